"""``python -m agent_server``."""

from __future__ import annotations

import sys

from ._cli import main

sys.exit(main())
