"""agent-server: a Claude-Code-compatible hook engine and the agent server around it."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
