"""The ledger's journal: an append-only file of JSON lines per process, ``flock``-ed by its
owner (one whose lock is free belongs to a dead process: the next ledger replays it).

A line is an event (its fields and a ``hooks`` list) or an ``async: true`` hook's final
result, ``{"update": event_id, "position": n, "hook": {...}}``."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
from pathlib import Path
from typing import Any

from .._datadir import DATA_DIR_NAME, make_data_dir

__all__ = ["Journal", "Update", "decode"]

log = logging.getLogger("agent_server.hooks.ledger")

Update = tuple[str, int, dict[str, Any]]  # event id, hook position, the hook's final result
_TRUNCATE_AT = 1 << 20  # a journal whose records are all in the store starts over at this size


class Journal:
    """This process's journal in ``folder``, created on the first :meth:`append`."""

    def __init__(self, folder: Path, *, sync: bool) -> None:
        self.folder, self.sync = folder, sync
        self.path: Path | None = None
        self.consumed = 0  # bytes already in the store
        self._fd: int | None = None

    def append(self, line: bytes) -> None:
        """Write one line: on return it survives a killed process (``sync``: power loss too)."""
        if self._fd is None:
            if self.folder.parent.name == DATA_DIR_NAME:
                make_data_dir(self.folder.parent)  # the default place: with its .gitignore
            self.folder.mkdir(parents=True, exist_ok=True)
            temp = self.folder / f"{os.getpid()}-{os.urandom(6).hex()}.new"
            fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
            try:  # locked before it gets the name replay looks for: never taken for an orphan
                fcntl.flock(fd, fcntl.LOCK_EX)
                os.rename(temp, temp.with_suffix(".jsonl"))
            except BaseException:
                os.close(fd)
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
            self._fd, self.path, self.consumed = fd, temp.with_suffix(".jsonl"), 0
        if os.write(self._fd, line) != len(line):  # disk full mid-line: end it (then skipped)
            with contextlib.suppress(OSError):
                os.write(self._fd, b"\n")
            raise OSError(errno.ENOSPC, "short write to the ledger journal")
        if self.sync:
            os.fdatasync(self._fd)

    def unread(self) -> tuple[bytes, int]:
        """The complete lines not yet in the store, and the offset past them."""
        if self._fd is None:
            return b"", 0
        data = os.pread(self._fd, os.fstat(self._fd).st_size - self.consumed, self.consumed)
        end = data.rfind(b"\n") + 1  # (a line being appended right now: next time)
        return data[:end], self.consumed + end

    def truncate_if_done(self) -> None:
        """Start over once all of it is in the store (no append may run meanwhile)."""
        if self._fd is not None and self.consumed >= _TRUNCATE_AT and os.fstat(self._fd).st_size == self.consumed:
            os.ftruncate(self._fd, 0)
            self.consumed = 0

    def close(self, *, remove: bool) -> None:
        """Close (with ``remove``, delete) the file; a kept one is replayed later."""
        fd, path, self._fd, self.path = self._fd, self.path, None, None
        if fd is None or path is None:
            return
        try:
            if remove:
                os.unlink(path)
        except OSError as exc:
            gone = isinstance(exc, FileNotFoundError)
            log.warning("hook ledger: journal %s %s", path, "was already gone at close" if gone else f"stays: {exc}")
        finally:
            os.close(fd)  # (drops the lock)


def decode(data: bytes, source: Path | None, offset: int = 0) -> tuple[list[dict[str, Any]], list[Update]]:
    """The events and async-hook updates in ``data`` (complete lines from byte ``offset``);
    a bad line (torn by a full disk, edited by hand) is logged and skipped."""
    events: list[dict[str, Any]] = []
    updates: list[Update] = []
    for line in data.split(b"\n"):
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if "update" in record:
                updates.append((str(record["update"]), int(record["position"]), dict(record["hook"])))
            elif isinstance(record["hooks"], list) and isinstance(record["event_id"], str):
                events.append(record)
            else:
                raise ValueError("no event_id and hooks")
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("hook ledger journal %s: the line at byte %d is not a record, skipped (%s)", source, start, exc)
    return events, updates
