"""workspace_boundary: a find that only lists names and sizes outside the project is a look.

``find /var/log -xdev -type f -size +500M -printf '%s %p\\n'`` (what fills the disk?) prints
names and sizes, like ``ls`` or ``du``, which may look anywhere. Any action (-delete, -exec,
-fprint …) is judged as before, and a search of the whole filesystem or home folder for file
names (``find / -name '*.conf'``) stays refused: it hunts rather than looks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.mark.parametrize(
    "command",
    [
        "sudo find /var/lib/docker/volumes -maxdepth 2 -type d -size +100M",
        "find /srv/uploads -mtime +30 -type f -printf '%TY-%Tm-%Td %s %p\\n' | sort | tail -20",
        "find /opt/app/releases -mindepth 1 -maxdepth 1 -type d | wc -l",
        "fd --size +1g . /mnt/scratch",
        "find ~/Downloads -name '*.dmg' -ls",
    ],
)
def test_listings_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "find /srv/uploads -mtime +30 -delete",
        "find /opt/app/releases -name '*.tar' -exec rm {} +",
        "find /srv/uploads -type f -fprint /etc/uploads.list",
        "fd -e tmp . /mnt/media -x rm",
        "find / -name 'id_*'",
        "find ~ -name '*.kdbx'",
    ],
)
def test_actions_and_whole_machine_searches_stay_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")
