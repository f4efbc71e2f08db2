"""The agent server's data folder in a project (``.agent-server/``): transcripts, the
hook ledger, resolved default settings.

Like ``.pytest_cache`` and ``.mypy_cache``, it carries its own ``.gitignore`` (``*``), so
it never shows in ``git status`` and the project's own ignore file needs no entry.
Shared by the engine (the default ledger location) and the server (its data folder).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["DATA_DIR_NAME", "make_data_dir"]

#: The data folder's name inside a project.
DATA_DIR_NAME = ".agent-server"

_GITIGNORE = "# Created by agent-server: local data (transcripts, the hook ledger), never committed.\n*\n"


def make_data_dir(path: Path) -> Path:
    """Create the data folder ``path`` (and its parents) with its ``.gitignore``; returns
    ``path``. An existing ``.gitignore`` is left as it is (the user may have changed it).
    Raises :class:`OSError` when the folder cannot be created."""
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        # O_EXCL: two processes creating the folder at once must not clobber each other
        # (or a file the user wrote in between); a folder we may not write stays usable.
        with contextlib.suppress(OSError):
            fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(_GITIGNORE)
    return path
