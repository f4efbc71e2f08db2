"""Compact JSON, as hooks receive their payload: ``json.dumps`` with ``(",", ":")``
separators, its encoder built once."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["compact_encoder"]


def compact_encoder(default: Callable[[Any], Any] | None = None) -> Callable[[Any], str]:
    """A function giving the same text as ``json.dumps(value, separators=(",", ":"),
    default=default)``. Without ``default``, an unsupported value raises TypeError."""
    return json.JSONEncoder(separators=(",", ":"), default=default).encode
