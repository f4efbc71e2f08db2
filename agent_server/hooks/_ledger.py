"""The audit ledger: every fired event and hook result, recorded durably before ``fire()``
returns, in SQLite or a PostgreSQL database shared by many servers.

    runner = HookRunner.from_project(".", ledger=True)          # <project>/.agent-server/hooks.db
    runner = HookRunner.from_project(".", ledger="postgresql://ledger@db/agent")

:meth:`HookLedger.record` appends one JSON line to this process's journal (one
``write()``: nothing a killed process had returned is lost; ``synchronous="FULL"`` adds
an fdatasync and survives power loss). A writer thread moves journaled records into the
store a moment later, many per transaction, off the fire's path; while the store is
unreachable they wait in the journal (logged once), and a journal left by a dead process
is replayed by the next ledger or reader.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import anyio.to_thread

from .._datadir import DATA_DIR_NAME
from ._ledger_journal import Journal, decode, journals_in
from ._ledger_store import LedgerError, LedgerStore, check_url, is_url, open_store, redacted
from ._outcome import EventOutcome, HookResult

__all__ = ["DEFAULT_LEDGER_PATH", "HookLedger", "LedgerError", "default_ledger_path", "pending_folder"]

log = logging.getLogger("agent_server.hooks.ledger")

#: Where ``ledger=True`` puts the database, relative to the project folder.
DEFAULT_LEDGER_PATH = Path(DATA_DIR_NAME) / "hooks.db"
#: Default bound on the stdout and on the stderr kept per hook run, in bytes.
DEFAULT_OUTPUT_LIMIT = 8 * 1024
_RETRY_DELAY = 0.5  # after a failed write to the store (s)
_PRUNE_EVERY = 3600.0  # a retention is applied when the writer starts, then this often (s)


def default_ledger_path(project_dir: str | os.PathLike[str]) -> Path:
    """``<project>/.agent-server/hooks.db``."""
    return Path(project_dir) / DEFAULT_LEDGER_PATH


def pending_folder(db: str | os.PathLike[str]) -> Path:
    """Where the journals of the SQLite ledger at ``db`` live: ``<db>.pending/``."""
    return Path(f"{db}.pending")


def replay_journals(store: LedgerStore, folder: Path, skip: Path | None = None) -> None:
    """Copy every journal in ``folder`` into ``store``; remove those whose owner is gone
    (a record copied twice is stored once: event ids are unique)."""
    for path, data, orphan in journals_in(folder, skip):
        events, updates = decode(data, path)
        if events or updates:
            store.write(events, updates)
        if orphan:
            store.sync()  # on disk before the journal's copy goes
            os.unlink(path)


def _cut(text: str, limit: int, *, head: bool) -> tuple[str, bool]:
    """The first (``head``) or last ``limit`` bytes of ``text``, and whether it was cut."""
    if len(text) * 4 <= limit:  # (at most 4 bytes a character: it fits)
        return text, False
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    return (data[:limit] if head else data[-limit:]).decode("utf-8", "ignore"), True


def _hook(r: HookResult, limit: int) -> dict[str, Any]:
    stdout, cut_out = _cut(r.stdout, limit, head=True)
    stderr, cut_err = _cut(r.stderr, limit, head=False)
    span_id = r.extra.get("span_id")
    return {
        **{k: getattr(r, k) for k in ("name", "command", "source", "matcher", "status", "exit_code")},
        "started_at": r.started_at or None,
        **{k: getattr(r, k) for k in ("duration_ms", "decision", "reason", "error", "timed_out")},
        **{"stdout": stdout, "stderr": stderr, "truncated": r.truncated or cut_out or cut_err},
        "span_id": span_id if isinstance(span_id, str) else None,
    }


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


class HookLedger:
    """An append-only record of fired events and hook results.

    ``target``: a SQLite file (created with its folder on first write) or a
    ``postgresql://`` URL (needs the ``postgres`` extra). ``synchronous``: ``"NORMAL"``
    survives a killed process, ``"FULL"`` power loss too. ``output_limit`` bounds the
    stdout (its start) and stderr (its end) kept per hook run, in bytes. ``retention``
    (seconds) deletes older events when the writer starts, then hourly. ``journal_dir``:
    where journals wait (default ``<db>.pending/``, or ``~/.agent-server/ledger.pending``
    for a URL). ``host`` goes in every record (default: this machine's name). ``store``:
    a function opening the store, instead of the one ``target`` names (a test seam).
    One instance may be shared by many runners, event loops and threads.
    """

    def __init__(
        self,
        target: str | os.PathLike[str],
        *,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
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
        url = check_url(str(target)) if is_url(target) else None
        self.path = None if url else Path(target)
        self.target = str(self.path) if url is None else redacted(url)
        self.synchronous, self.output_limit, self.retention = synchronous, output_limit, retention
        self.host = socket.gethostname() if host is None else host
        self.batch_delay = batch_delay
        if journal_dir is None:
            journal_dir = pending_folder(self.path) if self.path else Path.home() / ".agent-server" / "ledger.pending"
        self._open_store = store or functools.partial(
            open_store, url or Path(target), synchronous=synchronous, busy_timeout=busy_timeout
        )
        self._journal = Journal(Path(journal_dir), sync=synchronous == "FULL")
        self._lock = threading.Lock()  # appends; close() sets _stop under it
        self._store_lock = threading.Lock()  # the store and the journal's reading end
        self._close_lock = threading.Lock()
        self._store: LedgerStore | None = None
        self._wake, self._stop = threading.Event(), threading.Event()
        self._thread: threading.Thread | None = None
        self._failing: Exception | None = None  # the store's last error
        self._pruned_at: float | None = None
        #: Lines appended so far (each durable when its record() returned).
        self.records = 0
        #: Transactions that moved records from the journal into the store.
        self.commits = 0

    def __repr__(self) -> str:
        return f"HookLedger({self.target!r}, synchronous={self.synchronous!r})"

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
        if ledger is None or ledger is False:
            return None, False
        if isinstance(ledger, HookLedger):
            return ledger, False
        if ledger is True:
            return cls(default_ledger_path(project_dir)), True
        journals = project_dir / DATA_DIR_NAME / "ledger.pending" if is_url(ledger) else None
        return cls(ledger, journal_dir=journals), True

    # -- writing ---------------------------------------------------------
    async def record(
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
    ) -> bool:
        """Write one fired event and its hook results; return once it is durable.

        Never raises for a storage problem: it is logged and False is returned (the
        hooks' outcome matters more than its audit record).
        """
        call = functools.partial(
            self.record_sync,
            event,
            payload,
            outcome,
            event_id=event_id,
            started_at=started_at,
            ended_at=ended_at,
            trace_id=trace_id,
            project=project,
        )
        if self.synchronous == "FULL":  # the fdatasync on a worker thread; a cancelled fire keeps its record
            with anyio.CancelScope(shield=True):
                return await anyio.to_thread.run_sync(call)
        return call()

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
    ) -> bool:
        """:meth:`record` for synchronous code."""
        try:
            hooks = [_hook(r, self.output_limit) for r in outcome.hooks]
            record = {
                "event_id": event_id,
                "event": event,
                **{k: _text(payload.get(k)) for k in ("session_id", "tool_name", "tool_use_id")},
                "started_at": started_at,
                "ended_at": ended_at,
                "duration_ms": (ended_at - started_at) * 1000.0,
                **{"blocked": outcome.blocked, "decision": outcome.decision, "reason": outcome.reason},
                **{"hook_count": len(hooks), "trace_id": trace_id, "host": self.host, "project": project},
                "hooks": hooks,
            }
        except Exception:
            log.exception("hook ledger: cannot build the record of %s %s", event, event_id)
            return False
        return self._write(record, "the record of", event_id)

    async def record_result(self, event_id: str, position: int, result: HookResult) -> bool:
        """Put the final result of an ``async: true`` hook in place of its placeholder
        (hook ``position`` of event ``event_id``). Durable on return; never raises."""
        if self.synchronous == "FULL":
            with anyio.CancelScope(shield=True):
                return await anyio.to_thread.run_sync(self.record_result_sync, event_id, position, result)
        return self.record_result_sync(event_id, position, result)

    def record_result_sync(self, event_id: str, position: int, result: HookResult) -> bool:
        """:meth:`record_result` for synchronous code."""
        update = {"update": event_id, "position": position, "hook": _hook(result, self.output_limit)}
        return self._write(update, f"the result of hook {position} of", event_id)

    def _write(self, record: dict[str, Any], what: str, event_id: str) -> bool:
        """Append one journal line; False (logged) when that fails."""
        try:
            line = (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode()
            with self._lock:
                if self._stop.is_set():
                    raise LedgerError(f"{self.target}: the ledger is closed")
                if self._thread is None:  # first: a journal is never left without a writer
                    thread = threading.Thread(target=self._writer, daemon=True, name=f"hook-ledger {self.target}")
                    thread.start()
                    self._thread = thread
                self._journal.append(line)
                self.records += 1
        except Exception as exc:
            log.error("hook ledger %s: %s %s could not be written: %s", self.target, what, event_id, exc)
            return False
        self._wake.set()  # the writer moves it into the store in a moment
        return True

    def _writer(self) -> None:
        """Move journaled records into the store, a batch at a time."""
        self._wake.set()  # first connect and replay what dead processes left
        while True:
            self._wake.wait()
            self._wake.clear()  # (then the stop check: a close() before the clear is seen)
            if self._stop.wait(self.batch_delay):  # a burst shares one commit
                return  # close() moves the rest
            try:
                self.flush()
                self._apply_retention()
            except Exception as exc:  # kept in the journal, retried until they get in
                if not self._failing:
                    log.error(
                        "hook ledger %s: cannot move records into the database yet (they are safe in %s; retrying): %s",
                        self.target,
                        self._journal.folder,
                        exc,
                    )
                self._failing = exc
                if self._stop.wait(_RETRY_DELAY):
                    return
                self._wake.set()
                continue
            if self._failing:
                log.warning("hook ledger %s: records reach the database again", self.target)
            self._failing = None

    def _connected(self) -> LedgerStore:
        """The store, opened on first use, with dead processes' journals replayed into
        it (``_store_lock`` held)."""
        if self._store is None:
            store = self._open_store()
            try:
                replay_journals(store, self._journal.folder, skip=self._journal.path)
            except BaseException:
                store.close()
                raise
            self._store = store
        return self._store

    def _ingest(self) -> None:
        """Move the journal's unread lines into the store (``_store_lock`` held)."""
        store = self._connected()
        data, end = self._journal.unread()
        if data:
            store.write(*decode(data, self._journal.path, self._journal.consumed))
            self._journal.consumed = end
            self.commits += 1

    def flush(self) -> None:
        """Move every record appended so far into the store, now (on this thread).

        Records are durable once :meth:`record` returns; this only makes them visible
        to readers at once instead of within about 0.1 s."""
        with self._store_lock:
            self._ingest()
            with self._lock:
                self._journal.truncate_if_done()

    def prune(self, before: float, *, chunk: int = 5000) -> int:
        """Delete the events that started before ``before`` (Unix time), ``chunk`` per
        transaction; return how many. Journaled records go in first, and a journal
        replayed later cannot bring a pruned event back."""
        with self._store_lock:
            self._ingest()
            return self._connected().prune(before, chunk)

    def _apply_retention(self) -> None:
        now = time.monotonic()
        if self.retention is None or (self._pruned_at is not None and now - self._pruned_at < _PRUNE_EVERY):
            return
        self._pruned_at = now
        try:
            deleted = self.prune(time.time() - self.retention)
        except Exception as exc:  # tried again in an hour; recording goes on
            log.error("hook ledger %s: cannot delete events older than %g s: %s", self.target, self.retention, exc)
            return
        if deleted:
            log.info("hook ledger %s: deleted %d events older than %g s", self.target, deleted, self.retention)

    def close(self) -> None:
        """Move what the journal holds into the store, stop the writer, remove the
        journal and close (a later :meth:`record` starts again). If the store cannot
        take the records now, the journal is kept and replayed when next opened."""
        with self._close_lock:
            with self._lock:
                self._stop.set()  # from here a record() is refused, so none is lost below
                thread, self._thread = self._thread, None
            try:
                if thread is not None:
                    self._wake.set()
                    thread.join()
                with self._store_lock:
                    done = self._journal.path is None
                    if not done and self._failing:  # (an unreachable store would only delay the close)
                        log.error("hook ledger %s: records kept in %s: %s", self.target, self.journal, self._failing)
                    elif not done:
                        try:
                            self._ingest()
                            done = True
                        except Exception as exc:
                            log.error("hook ledger %s: records kept in %s: %s", self.target, self._journal.path, exc)
                    self._journal.close(remove=done)
                    store, self._store, self._failing = self._store, None, None
                    if store is not None:
                        store.close()
            finally:
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

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
