"""The ledger's journal: one append-only file of JSON lines per process.

A record is one line, a JSON object: an event (its fields and a ``hooks`` list) or, for
an ``async: true`` hook that finished later, ``{"update": event_id, "position": n,
"hook": {...}}``. A single ``write()`` hands it to the operating system, which is all a
killed process needs; the file is ``flock``-ed by its owner, so a journal whose lock is
free belongs to a process that died and is replayed into the store by the next ledger.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._datadir import DATA_DIR_NAME, make_data_dir

__all__ = ["Journal", "Update", "decode", "journals_in"]

log = logging.getLogger("agent_server.hooks.ledger")

SUFFIX = ".jsonl"
#: A journal whose records are all in the store is emptied once it is this big.
TRUNCATE_AT = 1 << 20

Update = tuple[str, int, dict[str, Any]]  # event id, hook position, the hook's final result


class Journal:
    """This process's journal in ``folder``, created on the first :meth:`append`."""

    def __init__(self, folder: Path, *, sync: bool) -> None:
        self.folder, self.sync = folder, sync
        self.path: Path | None = None
        self.consumed = 0  # bytes already moved into the store
        self._fd: int | None = None

    def append(self, line: bytes) -> None:
        """Write one line; on return it survives a killed process (with ``sync``, power loss)."""
        if self._fd is None:
            self._open()
        assert self._fd is not None
        written = os.write(self._fd, line)
        if written != len(line):  # disk full mid-line: end the torn line, it is skipped
            with contextlib.suppress(OSError):
                os.write(self._fd, b"\n")
            raise OSError(errno.ENOSPC, "short write to the ledger journal")
        if self.sync:
            os.fdatasync(self._fd)

    def _open(self) -> None:
        if self.folder.parent.name == DATA_DIR_NAME:
            make_data_dir(self.folder.parent)  # the default place: with its .gitignore
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"{os.getpid()}-{os.urandom(6).hex()}"
        # Locked before it gets the name replay looks for: never taken for an orphan.
        temp = self.folder / f"{name}.new"
        fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.rename(temp, self.folder / f"{name}{SUFFIX}")
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        self._fd, self.path, self.consumed = fd, self.folder / f"{name}{SUFFIX}", 0

    def unread(self) -> tuple[bytes, int]:
        """The complete lines not yet consumed, and the offset just past them."""
        if self._fd is None:
            return b"", 0
        data = os.pread(self._fd, os.fstat(self._fd).st_size - self.consumed, self.consumed)
        data = data[: data.rfind(b"\n") + 1]
        return data, self.consumed + len(data)

    def truncate_if_done(self) -> None:
        """Start the file over once everything in it is in the store (caller holds the
        ledger's append lock: no line may land between the check and the truncate)."""
        if self._fd is not None and self.consumed >= TRUNCATE_AT and os.fstat(self._fd).st_size == self.consumed:
            os.ftruncate(self._fd, 0)
            self.consumed = 0

    def close(self, *, remove: bool) -> None:
        """Close (and with ``remove`` delete) the file; a kept one is replayed later."""
        fd, path, self._fd, self.path = self._fd, self.path, None, None
        if fd is None or path is None:
            return
        try:
            if remove:
                os.unlink(path)
        except FileNotFoundError:
            log.warning("hook ledger: journal %s was already gone at close", path)
        except OSError as exc:
            log.warning("hook ledger: journal %s kept, replayed later: %s", path, exc)
        finally:
            os.close(fd)  # (drops the lock)


def decode(data: bytes, source: Path | None, offset: int = 0) -> tuple[list[dict[str, Any]], list[Update]]:
    """The events and async-hook updates in ``data`` (complete lines from byte ``offset``).
    A bad line (torn by a full disk, edited by hand) is logged and skipped."""
    events: list[dict[str, Any]] = []
    updates: list[Update] = []
    at = offset
    for line in data.split(b"\n"):
        start, at = at, at + len(line) + 1
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
            if "update" in record:
                updates.append((str(record["update"]), int(record["position"]), dict(record["hook"])))
            elif isinstance(record.get("event_id"), str) and isinstance(record.get("hooks"), list):
                events.append(record)
            else:
                raise ValueError("no event_id or hooks")
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("hook ledger journal %s: the line at byte %d is not a record, skipped (%s)", source, start, exc)
    return events, updates


def journals_in(folder: Path, skip: Path | None = None) -> Iterator[tuple[Path, bytes, bool]]:
    """Every journal in ``folder`` but ``skip``: its path, complete lines, and whether its
    owner is gone (its lock is free; the caller removes it once the records are stored)."""
    try:
        paths = sorted(folder.glob(f"*{SUFFIX}"))
    except OSError:
        return
    for path in paths:
        if path == skip:
            continue
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue  # its owner just finished with it
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                orphan = True
            except OSError:
                orphan = False
            data = os.pread(fd, os.fstat(fd).st_size, 0)
            yield path, data[: data.rfind(b"\n") + 1], orphan
        finally:
            os.close(fd)
