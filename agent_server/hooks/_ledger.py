"""The audit ledger: every fired event and hook result, recorded durably before ``fire()``
returns, in SQLite or in a PostgreSQL database that many servers share.

:meth:`HookLedger.record` appends one JSON line to this process's journal (one ``write()``:
nothing a killed process had returned is lost; ``synchronous="FULL"`` adds an fdatasync and
survives power loss). A writer thread moves journaled records into the store a moment
later, many per transaction; while the store is unreachable they wait in the journal.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import anyio.to_thread

from .._datadir import DATA_DIR_NAME
from ._json import compact_encoder
from ._ledger_journal import Journal, decode
from ._ledger_store import LedgerError, LedgerStore, check_url, is_url, open_store, redacted, replay
from ._outcome import EventOutcome, HookResult

__all__ = ["HookLedger", "LedgerError", "default_ledger_path", "pending_folder"]

log = logging.getLogger("agent_server.hooks.ledger")

_encode = compact_encoder(default=str)  # (json.dumps, its encoder built once)
_RETRY_FIRST, _RETRY_MAX = 0.5, 5.0  # seconds between attempts while the store fails (doubling)


def default_ledger_path(project_dir: str | os.PathLike[str]) -> Path:
    """Where ``ledger=True`` puts the database: ``<project>/.agent-server/hooks.db``."""
    return Path(project_dir) / DATA_DIR_NAME / "hooks.db"


def pending_folder(db: str | os.PathLike[str]) -> Path:
    """Where the journals of the SQLite ledger at ``db`` wait: ``<db>.pending/``."""
    return Path(f"{db}.pending")


def _cut(text: str, limit: int, head: bool) -> tuple[str, bool]:
    """The first (``head``) or last ``limit`` bytes of ``text``, and whether it was cut."""
    data = text.encode("utf-8", "replace") if len(text) * 4 > limit else b""  # (else it fits)
    if len(data) <= limit:
        return text, False
    return (data[:limit] if head else data[-limit:]).decode("utf-8", "ignore"), True


def _hook(r: HookResult, limit: int) -> dict[str, Any]:
    stdout, cut_out = _cut(r.stdout, limit, head=True)
    stderr, cut_err = _cut(r.stderr, limit, head=False)
    span_id = r.extra.get("span_id")
    return {
        "name": r.name,
        "command": r.command,
        "source": r.source,
        "matcher": r.matcher,
        "status": r.status,
        "exit_code": r.exit_code,
        "duration_ms": r.duration_ms,
        "decision": r.decision,
        "reason": r.reason,
        "started_at": r.started_at or None,
        "error": r.error,
        "timed_out": r.timed_out,
        "stdout": stdout,
        "stderr": stderr,
        "truncated": r.truncated or cut_out or cut_err,
        "span_id": span_id if isinstance(span_id, str) else None,
    }


class HookLedger:
    """An append-only record of fired events and hook results, for any number of runners,
    event loops and threads.

    ``target``: a SQLite file (created on first use) or a ``postgresql://`` URL (the
    ``postgres`` extra). ``synchronous``: ``"NORMAL"`` survives a killed process, ``"FULL"``
    power loss too. ``output_limit``: bytes of stdout (its start) and stderr (its end) kept
    per hook. ``retention``: seconds after which events are deleted (checked hourly).
    ``journal_dir``: where records wait (``<db>.pending/``; ``~/.agent-server/ledger.pending``
    for a URL). ``host``: put in every record (this machine's name). ``store``: a function
    opening the store instead (a test seam). ``batch_delay``: seconds a burst shares a commit.
    """

    def __init__(
        self,
        target: str | os.PathLike[str],
        *,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        output_limit: int = 8 * 1024,
        busy_timeout: float = 10.0,
        retention: float | None = None,
        journal_dir: str | os.PathLike[str] | None = None,
        host: str | None = None,
        store: Callable[[], LedgerStore] | None = None,
        batch_delay: float = 0.05,
    ) -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be 'NORMAL' or 'FULL', got {synchronous!r}")
        if retention is not None and not retention > 0:  # (NaN too)
            raise ValueError(f"retention must be a positive number of seconds, got {retention!r}")
        self.path = None if is_url(target) else Path(target)
        self.target = redacted(check_url(str(target))) if self.path is None else str(self.path)
        self.synchronous, self.output_limit, self.retention = synchronous, output_limit, retention
        self.host, self.batch_delay = socket.gethostname() if host is None else host, batch_delay
        default_dir = pending_folder(self.path) if self.path else Path.home() / DATA_DIR_NAME / "ledger.pending"
        self._journal = Journal(Path(journal_dir or default_dir), sync=synchronous == "FULL")
        self._open_store = store or functools.partial(
            open_store, target, synchronous=synchronous, busy_timeout=busy_timeout
        )
        self._store: LedgerStore | None = None
        self._lock = threading.Lock()  # appends (close() sets _stop under it)
        self._store_lock = threading.Lock()  # the store and the journal's reading end
        self._close_lock = threading.Lock()
        self._wake, self._stop = threading.Event(), threading.Event()
        self._thread: threading.Thread | None = None
        self._failing: Exception | None = None  # the store's last error, while it lasts
        self._pruned_at = -float("inf")
        #: Lines appended (each durable once its record() returned), transactions moving them in.
        self.records = self.commits = 0

    @staticmethod
    def check_url(url: str) -> str:
        """``url`` if it is a PostgreSQL URL psycopg can use, else :class:`LedgerError`."""
        return check_url(url)

    @property
    def journal(self) -> Path | None:
        """This process's journal file, while it has one."""
        return self._journal.path

    @classmethod
    def for_runner(
        cls, ledger: HookLedger | str | os.PathLike[str] | bool | None, project_dir: Path
    ) -> tuple[HookLedger | None, bool]:
        """Resolve a runner's ``ledger=`` option into ``(ledger, runner_owns_it)``."""
        if ledger is None or ledger is False or isinstance(ledger, HookLedger):
            return ledger or None, False
        if ledger is True:
            return cls(default_ledger_path(project_dir)), True
        return cls(ledger, journal_dir=project_dir / DATA_DIR_NAME / "ledger.pending" if is_url(ledger) else None), True

    async def record(self, event: str, payload: Mapping[str, Any], outcome: EventOutcome, **fields: Any) -> bool:
        """Write one fired event and its hook results (``fields`` as for :meth:`record_sync`);
        return once it is durable. Never raises: a storage problem is logged, False returned."""
        return await self._durably(functools.partial(self.record_sync, event, payload, outcome, **fields))

    async def _durably(self, call: Callable[[], bool]) -> bool:
        if self.synchronous == "NORMAL":
            return call()
        with anyio.CancelScope(shield=True):  # the fdatasync off the event loop; a cancelled fire keeps its record
            done = await anyio.to_thread.run_sync(call)
        return done  # (after the scope: a cancel scope may swallow an exception)

    def record_sync(
        self,
        event: str,
        payload: Mapping[str, Any],
        outcome: EventOutcome,
        *,
        event_id: str,
        started_at: float,
        ended_at: float,
        trace_id: str | None = None,
        project: str | None = None,
        tool_input: str | None = None,
    ) -> bool:
        """:meth:`record` for synchronous code. ``tool_input``: text to keep (already
        redacted by the caller), cut to ``output_limit`` bytes."""
        try:
            record: dict[str, Any] = {"event_id": event_id, "event": event} | {
                k: None if payload.get(k) in (None, "") else str(payload[k])
                for k in ("session_id", "tool_name", "tool_use_id")
            }
            record |= {"started_at": started_at, "ended_at": ended_at, "duration_ms": (ended_at - started_at) * 1e3}
            record |= {"blocked": outcome.blocked, "decision": outcome.decision, "reason": outcome.reason}
            record |= {"hook_count": len(outcome.hooks), "trace_id": trace_id, "host": self.host, "project": project}
            record["tool_input"] = None if tool_input is None else _cut(tool_input, self.output_limit, True)[0]
            record["hooks"] = [_hook(r, self.output_limit) for r in outcome.hooks]
        except Exception:
            log.exception("hook ledger: cannot build the record of %s %s", event, event_id)
            return False
        return self._write(record, "the record of", event_id)

    async def record_result(self, event_id: str, position: int, result: HookResult) -> bool:
        """Put the final result of an ``async: true`` hook in place of its placeholder (hook
        ``position`` of event ``event_id``). Durable on return; never raises."""
        update = {"update": event_id, "position": position, "hook": _hook(result, self.output_limit)}
        return await self._durably(
            functools.partial(self._write, update, f"the result of hook {position} of", event_id)
        )

    def _write(self, record: dict[str, Any], what: str, event_id: str) -> bool:
        try:
            line = (_encode(record) + "\n").encode()
            with self._lock:
                if self._stop.is_set():
                    raise LedgerError(f"{self.target}: the ledger is closed")
                if self._thread is None:  # before the first line: a journal never lacks a writer
                    thread = threading.Thread(target=self._writer, daemon=True, name=f"hook-ledger {self.target}")
                    thread.start()
                    self._thread = thread
                self._journal.append(line)
                self.records += 1
        except Exception as exc:
            log.error("hook ledger %s: %s %s could not be written: %s", self.target, what, event_id, exc)
            return False
        self._wake.set()
        return True

    def _writer(self) -> None:
        """Move journaled records into the store, a batch at a time, until close()."""
        retry = _RETRY_FIRST
        while True:
            self._wake.wait()
            self._wake.clear()  # (then the stop check: a close() just before the clear is seen)
            if self._stop.wait(self.batch_delay):
                return  # close() moves the rest
            try:
                self.flush()
                if self.retention and time.monotonic() - self._pruned_at > 3600:
                    self._pruned_at = time.monotonic()
                    self.prune(time.time() - self.retention)
            except Exception as exc:  # kept in the journal, retried until they get in
                if not self._failing:  # (once per outage)
                    why = f"they are safe in {self._journal.folder}; retrying"
                    log.error(
                        "hook ledger %s: cannot move records into the database yet (%s): %s", self.target, why, exc
                    )
                self._failing = exc
                if not self._stop.wait(retry):
                    self._wake.set()
                retry = min(retry * 2, _RETRY_MAX)
                continue
            if self._failing:
                log.warning("hook ledger %s: records reach the database again", self.target)
            self._failing, retry = None, _RETRY_FIRST

    def _ingest(self) -> LedgerStore:
        """The store (opened, and journals of dead processes replayed, on first use), with
        the journal's unread lines moved in (``_store_lock`` held). On a failure the store
        is dropped: the next attempt reconnects (a database that restarted, say)."""
        try:
            if self._store is None:
                self._store = self._open_store()
                replay(self._store, self._journal.folder, skip=self._journal.path)
            data, end = self._journal.unread()
            if data:
                self._store.write(*decode(data, self._journal.path, self._journal.consumed))
                self._journal.consumed, self.commits = end, self.commits + 1
            return self._store
        except BaseException:
            self._drop_store()
            raise

    def _drop_store(self) -> None:
        store, self._store = self._store, None
        with contextlib.suppress(Exception):  # (a broken connection may fail to close too)
            if store is not None:
                store.close()

    def flush(self) -> None:
        """Move every record appended so far into the store, now: records are durable once
        :meth:`record` returns; this makes them visible to readers at once, not in ~0.1 s."""
        with self._store_lock:
            self._ingest()
            with self._lock:
                self._journal.truncate_if_done()

    def prune(self, before: float, *, chunk: int = 5000) -> int:
        """Delete the events that started before ``before`` (Unix time), journaled ones
        too, ``chunk`` per transaction; return how many. A pruned event never comes back."""
        with self._store_lock:
            return self._ingest().prune(before, chunk)

    def close(self) -> None:
        """Move the journal's records into the store, stop the writer, remove the journal
        and close (a later :meth:`record` starts again). If the store cannot take them now,
        the journal stays and is replayed when the ledger is next opened."""
        with self._close_lock:
            with self._lock:
                self._stop.set()  # from here a record() is refused: none can be lost below
                thread, self._thread = self._thread, None
            try:
                if thread is not None:
                    self._wake.set()
                    thread.join()
                with self._store_lock:
                    error = self._failing  # (an unreachable store would only delay the close)
                    if self.journal is not None and error is None:
                        try:
                            self._ingest()
                        except Exception as exc:
                            error = exc
                    if self.journal is not None and error is not None:
                        log.error("hook ledger %s: records kept in %s: %s", self.target, self.journal, error)
                    self._journal.close(remove=error is None)
                    self._drop_store()
            finally:
                self._failing = None
                self._wake.clear()
                self._stop.clear()

    async def aclose(self) -> None:
        """:meth:`close` on a worker thread."""
        await anyio.to_thread.run_sync(self.close)

    def __enter__(self) -> HookLedger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> HookLedger:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
