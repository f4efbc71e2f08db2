"""Compact JSON for the fire's path: one C encoder built once.

``json.dumps(value, separators=(",", ":"))`` and ``JSONEncoder.encode`` build a new
encoder on every call; on the fire's path, which runs with the CPU's caches cold after
waiting for a hook, that costs more than the encoding itself (docs/observability.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["compact_encoder"]


def compact_encoder(default: Callable[[Any], Any] | None = None) -> Callable[[Any], str]:
    """A function giving the same text as ``json.dumps(value, separators=(",", ":"),
    default=default)``. Without ``default``, an unsupported value raises TypeError.

    A circular value gets json's own error (ValueError) from the slower encoder; this
    one skips the per-call bookkeeping that finds it.
    """
    fallback = json.JSONEncoder(separators=(",", ":"), default=default).encode
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator
        return fallback
    try:
        c_encoder = make(None, default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)

        def encode(value: Any) -> str:
            try:
                return "".join(c_encoder(value, 0))
            except RecursionError:  # circular (or very deep): let json say which
                return fallback(value)

        sample = [1, "é\n", None, 1.5, True, [2, "x"], {"k": -0.0, "2": float("inf")}]
        if encode(sample) != fallback(sample):  # another Python's C encoder: don't guess
            return fallback
    except Exception:
        return fallback
    return encode
