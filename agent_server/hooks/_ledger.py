"""The audit ledger: every fired event and every hook result, durably, in SQLite.

    runner = HookRunner.from_project(".", ledger=True)          # <project>/.agent-server/hooks.db
    runner = HookRunner.from_project(".", ledger=HookLedger(path))

Durability: :meth:`HookLedger.record` returns only after the transaction holding the
record has committed, so a record whose ``fire()`` returned survives the process being
killed. The database runs in WAL mode with ``synchronous=NORMAL`` by default: a WAL commit
is written to the operating system before it returns, which is all a killed *process*
needs; only a power loss or kernel crash can lose the last commits (the database is never
corrupted). ``synchronous="FULL"`` adds an fsync per commit and survives power loss too,
at the cost of one disk flush per group of concurrent fires.

Overhead: SQLite runs on one writer thread per ledger, never on the event loop. A
``record()`` queues its rows and awaits a future; the writer takes everything queued,
commits it in one transaction (a group commit: records that arrive during a commit form
the next group, so concurrent sessions share transactions and never queue behind each
other's disk writes) and resolves the futures with one ``call_soon_threadsafe`` per event
loop. Outside asyncio the caller waits on a worker thread instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import anyio.to_thread

from ._errors import HookError
from ._outcome import EventOutcome, HookResult

__all__ = [
    "DEFAULT_LEDGER_PATH",
    "SCHEMA_VERSION",
    "HookLedger",
    "LedgerError",
    "default_ledger_path",
    "hook_stats",
    "open_ledger",
    "recent_events",
]

log = logging.getLogger("agent_server.hooks.ledger")

#: Where ``ledger=True`` puts the database, relative to the project folder.
DEFAULT_LEDGER_PATH = Path(".agent-server") / "hooks.db"
#: ``PRAGMA user_version`` of the schema this code writes.
SCHEMA_VERSION = 2
#: Default bound on the stdout and on the stderr kept per hook run, in bytes.
DEFAULT_OUTPUT_LIMIT = 8 * 1024

Synchronous = Literal["NORMAL", "FULL"]

# One row per fired event, its hook results a JSON array in that row: a commit writes one
# table page, not a page per table and index (the audit record is on fire()'s path).
# ``hook_runs`` is a view with a row per hook result, for SQL readers. Rows are appended
# in time order, so "newest first" is the rowid order.
_HOOK_FIELDS = (
    "name", "command", "source", "matcher", "status", "exit_code", "started_at",
    "duration_ms", "decision", "reason", "error", "timed_out", "stdout", "stderr",
    "truncated", "span_id",
)
_HOOK_RUNS_VIEW = (
    "CREATE VIEW hook_runs AS SELECT e.id AS event_ref, CAST(j.key AS INTEGER) AS position,"
    " e.event AS event, "
    + ", ".join(f"json_extract(j.value, '$.{f}') AS {f}" for f in _HOOK_FIELDS)
    + " FROM events AS e, json_each(e.hooks) AS j"
)
_SCHEMA = f"""
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,    -- insertion (= time) order
    event_id    TEXT NOT NULL,          -- random id, also the span attribute hook.event_id
    event       TEXT NOT NULL,
    session_id  TEXT,
    tool_name   TEXT,
    tool_use_id TEXT,
    started_at  REAL NOT NULL,          -- Unix time, seconds
    ended_at    REAL NOT NULL,
    duration_ms REAL NOT NULL,
    blocked     INTEGER NOT NULL,       -- 0/1
    decision    TEXT,
    reason      TEXT,
    hook_count  INTEGER NOT NULL,
    trace_id    TEXT,                   -- 32 hex digits when traced
    hooks       TEXT NOT NULL           -- JSON array of hook results, registration order
);
{_HOOK_RUNS_VIEW};
"""
# Schema 1 kept hook results in a hook_runs table; opening such a file moves them into
# events.hooks (same fields) and leaves the view in the table's place.
_MIGRATE_FROM_1 = f"""
ALTER TABLE events ADD COLUMN hooks TEXT NOT NULL DEFAULT '[]';
UPDATE events SET hooks = (
    SELECT json_group_array(json_object({", ".join(f"'{f}', {f}" for f in _HOOK_FIELDS)}))
    FROM (SELECT * FROM hook_runs AS h WHERE h.event_ref = events.id ORDER BY h.position)
);
DROP TABLE hook_runs;
{_HOOK_RUNS_VIEW};
"""

_INSERT_EVENT = (
    "INSERT INTO events (event_id, event, session_id, tool_name, tool_use_id, started_at,"
    " ended_at, duration_ms, blocked, decision, reason, hook_count, trace_id, hooks)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class LedgerError(HookError):
    """The ledger file is missing, is not a hook ledger, or has a newer schema."""


def default_ledger_path(project_dir: str | os.PathLike[str]) -> Path:
    """``<project>/.agent-server/hooks.db``."""
    return Path(project_dir) / DEFAULT_LEDGER_PATH


def _head(text: str, limit: int) -> tuple[str, bool]:
    if len(text) * 4 <= limit:  # at most 4 bytes per character: certainly fits
        return text, False
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def _tail(text: str, limit: int) -> tuple[str, bool]:
    if len(text) * 4 <= limit:
        return text, False
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    return data[-limit:].decode("utf-8", "ignore"), True


def _opt(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


# One events row: the values of _INSERT_EVENT, hooks (JSON) last.
_Record = tuple[Any, ...]


class _Waiter:
    """How the writer thread tells one ``record()`` call that its record is durable."""

    __slots__ = ("event", "future", "loop", "ok")

    def __init__(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.loop = loop
        self.future: asyncio.Future[bool] | None = loop.create_future() if loop else None
        self.event = None if loop else threading.Event()
        self.ok = False


def _resolve(futures: list[tuple[asyncio.Future[bool], bool]]) -> None:
    for future, ok in futures:
        if not future.done():  # the awaiting fire() may have been cancelled
            future.set_result(ok)


_STOP = object()
_CHECKPOINT = object()
# Inline commits leave WAL checkpoints (which fsync) to the writer thread, every so often.
_CHECKPOINT_EVERY = 256


class HookLedger:
    """An append-only SQLite record of fired events and hook results.

    ``path`` is created (with its folder) on first write. ``synchronous`` is SQLite's
    WAL ``synchronous`` level (see the module docstring); ``output_limit`` bounds the
    stdout and the stderr stored per hook run, in bytes (the start of stdout, the end
    of stderr). One instance may be shared by many runners and sessions, from any
    event loop or thread: one writer thread owns the connection and commits whatever
    is queued in one transaction.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: Synchronous = "NORMAL",
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        busy_timeout: float = 10.0,
    ) -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be 'NORMAL' or 'FULL', got {synchronous!r}")
        self.path = Path(path)
        self.synchronous: Synchronous = synchronous
        self.output_limit = output_limit
        self.busy_timeout = busy_timeout
        self._queue: queue.SimpleQueue[tuple[_Record, _Waiter] | object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._thread_lock = threading.Lock()
        # One connection, used by whoever holds _write_lock: the writer thread, or a
        # record() that found the writer idle and commits inline (no thread hand-off).
        self._conn: sqlite3.Connection | None = None
        self._write_lock = threading.Lock()
        self._since_checkpoint = 0
        #: Transactions committed so far (fewer than records when fires were grouped).
        self.commits = 0
        #: Event records committed so far.
        self.records = 0

    def __repr__(self) -> str:
        return f"HookLedger({str(self.path)!r}, synchronous={self.synchronous!r})"

    @classmethod
    def for_runner(
        cls,
        ledger: HookLedger | str | os.PathLike[str] | bool | None,
        project_dir: Path,
    ) -> tuple[HookLedger | None, bool]:
        """Resolve a runner's ``ledger=`` option into ``(ledger, runner_owns_it)``."""
        if ledger is None or ledger is False:
            return None, False
        if ledger is True:
            return cls(default_ledger_path(project_dir)), True
        if isinstance(ledger, HookLedger):
            return ledger, False
        return cls(ledger), True

    # -- writing ---------------------------------------------------------
    def _build(
        self,
        event: str,
        payload: Mapping[str, Any],
        outcome: EventOutcome,
        event_id: str,
        started_at: float,
        ended_at: float,
        trace_id: str | None,
    ) -> _Record:
        limit = self.output_limit
        hooks = [self._hook_object(r, limit) for r in outcome.hooks]
        return (
            event_id, event, _opt(payload.get("session_id")), _opt(payload.get("tool_name")),
            _opt(payload.get("tool_use_id")), started_at, ended_at,
            round((ended_at - started_at) * 1000.0, 3), int(outcome.blocked), outcome.decision,
            outcome.reason, len(outcome.hooks), trace_id,
            json.dumps(hooks, ensure_ascii=False, separators=(",", ":"), default=str),
        )

    @staticmethod
    def _hook_object(r: HookResult, limit: int) -> dict[str, Any]:
        """One element of ``events.hooks`` (the fields of the ``hook_runs`` view)."""
        stdout, cut_out = _head(r.stdout, limit)
        stderr, cut_err = _tail(r.stderr, limit)
        span_id = r.extra.get("span_id")
        return {
            "name": r.name, "command": r.command, "source": r.source, "matcher": r.matcher,
            "status": r.status.value, "exit_code": r.exit_code,
            "started_at": r.started_at or None, "duration_ms": round(r.duration_ms, 3),
            "decision": r.decision, "reason": r.reason, "error": r.error,
            "timed_out": int(r.timed_out), "stdout": stdout, "stderr": stderr,
            "truncated": int(r.truncated or cut_out or cut_err),
            "span_id": span_id if isinstance(span_id, str) else None,
        }

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
    ) -> bool:
        """Write one fired event and its hook results; return once it is committed.

        Never raises for a storage problem: it is logged and False is returned (the
        hooks' outcome matters more than its audit record).
        """
        try:
            rec = self._build(event, payload, outcome, event_id, started_at, ended_at, trace_id)
        except Exception:
            log.exception("hook ledger: cannot build the record of %s %s", event, event_id)
            return False
        inline = self._commit_inline(rec)
        if inline is not None:
            return inline
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None  # another async library: wait on a worker thread instead
        waiter = _Waiter(loop)
        self._submit(rec, waiter)
        if waiter.future is not None:
            # asyncio: the writer thread resolves the future with call_soon_threadsafe.
            # A cancelled fire() stops waiting; its record is still written.
            return await waiter.future
        assert waiter.event is not None
        await anyio.to_thread.run_sync(waiter.event.wait)
        return waiter.ok

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
    ) -> bool:
        """:meth:`record` for synchronous code (blocks until committed)."""
        rec = self._build(event, payload, outcome, event_id, started_at, ended_at, trace_id)
        waiter = _Waiter(None)
        self._submit(rec, waiter)
        assert waiter.event is not None
        waiter.event.wait()
        return waiter.ok

    def _commit_inline(self, rec: _Record) -> bool | None:
        """Commit on the caller's thread when nobody else is writing (a WAL commit
        without fsync takes tens of microseconds, less than two thread hand-offs).
        Returns None when the writer is busy: then the record joins its next group."""
        if not self._queue.empty() or not self._write_lock.acquire(blocking=False):
            return None
        try:
            if self._conn is None:
                self._conn = self._connect()
            self._commit(self._conn, [rec])
            ok = True
        except Exception:
            log.exception("hook ledger %s: an event record could not be written", self.path)
            self._drop_connection()
            ok = False
        finally:
            self._write_lock.release()
        self._since_checkpoint += 1
        if self._since_checkpoint >= _CHECKPOINT_EVERY:
            self._since_checkpoint = 0
            self._submit(_CHECKPOINT, None)
        return ok

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _submit(self, rec: object, waiter: _Waiter | None) -> None:
        self._queue.put(rec if waiter is None else (rec, waiter))
        thread = self._thread
        if thread is None or not thread.is_alive():
            with self._thread_lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(
                        target=self._writer, name=f"hook-ledger {self.path.name}", daemon=True)
                    self._thread.start()

    def _writer(self) -> None:
        """The writer thread: take everything queued, commit it in one transaction,
        tell each waiter. Records that arrive during a commit form the next group."""
        checkpointer: sqlite3.Connection | None = None
        while True:
            first = self._queue.get()
            items: list[tuple[_Record, _Waiter]] = []
            stop = first is _STOP
            checkpoint = first is _CHECKPOINT
            if not (stop or checkpoint):
                items.append(first)  # type: ignore[arg-type]
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is _STOP:
                    stop = True
                elif item is _CHECKPOINT:
                    checkpoint = True
                else:
                    items.append(item)  # type: ignore[arg-type]
            with self._write_lock:
                if items:
                    ok = False
                    try:
                        if self._conn is None:
                            self._conn = self._connect()
                        self._commit(self._conn, [rec for rec, _ in items])
                        ok = True
                    except Exception:
                        log.exception("hook ledger %s: %d event record(s) could not be written",
                                      self.path, len(items))
                        self._drop_connection()  # reopen for the next group
                    finally:  # whatever happens, nobody is left waiting
                        self._notify([w for _, w in items], ok)
                if stop:
                    self._drop_connection()
            if checkpoint and not stop:  # (close() checkpoints once the writer is gone)
                checkpointer = self._checkpoint(checkpointer)
            if stop:
                if checkpointer is not None:
                    checkpointer.close()
                return

    def _checkpoint(self, conn: sqlite3.Connection | None) -> sqlite3.Connection | None:
        """Copy the WAL into the database on the writer thread's own connection: a
        PASSIVE checkpoint runs beside commits, so its fsync never holds up a fire()."""
        try:
            if conn is None:
                conn = sqlite3.connect(self.path, timeout=self.busy_timeout,
                                       isolation_level=None)
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            log.debug("hook ledger %s: checkpoint skipped", self.path, exc_info=True)
        return conn

    def _commit(self, conn: sqlite3.Connection, batch: list[_Record]) -> None:
        if len(batch) == 1:
            conn.execute(_INSERT_EVENT, batch[0])  # one statement: SQLite's autocommit
        else:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(_INSERT_EVENT, batch)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        self.commits += 1
        self.records += len(batch)

    @staticmethod
    def _notify(waiters: list[_Waiter], ok: bool) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[bool], bool]]] = {}
        for w in waiters:
            w.ok = ok
            if w.event is not None:
                w.event.set()
            elif w.loop is not None and w.future is not None:
                by_loop.setdefault(w.loop, []).append((w.future, ok))
        for loop, futures in by_loop.items():  # one wake-up per event loop
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(_resolve, futures)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            conn.execute("PRAGMA wal_autocheckpoint=0")  # the writer thread checkpoints
            self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise LedgerError(
                    f"{self.path}: ledger schema version {version} is newer than this "
                    f"agent-server understands ({SCHEMA_VERSION})")
            if version < SCHEMA_VERSION:
                script = _SCHEMA if version == 0 else _MIGRATE_FROM_1
                for statement in script.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Commit anything queued, stop the writer thread and close the connection
        (a later :meth:`record` starts them again)."""
        with self._thread_lock:
            thread, self._thread = self._thread, None
            if thread is not None:
                self._queue.put(_STOP)
        if thread is not None:
            thread.join()
        with self._write_lock:  # inline commits may have left the connection open
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                self._drop_connection()

    async def aclose(self) -> None:
        """:meth:`close` on a worker thread."""
        await anyio.to_thread.run_sync(self.close)

    def __enter__(self) -> HookLedger:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    async def __aenter__(self) -> HookLedger:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


# -- reading (the CLI) -----------------------------------------------------------

def open_ledger(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open a ledger for reading; :class:`LedgerError` with a clear message otherwise."""
    p = Path(path)
    if not p.exists():
        raise LedgerError(f"no hook ledger at {p} (it is created when a runner has "
                          "ledger=True or ledger=HookLedger(path); pass --db PATH to read "
                          "another file)")
    if not p.is_file():
        raise LedgerError(f"{p}: not a file")
    try:
        conn = sqlite3.connect(p.resolve().as_uri() + "?mode=ro", uri=True, timeout=10.0)
    except sqlite3.Error as exc:
        raise LedgerError(f"{p}: cannot open: {exc}") from None
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.Error as exc:
        conn.close()
        raise LedgerError(f"{p}: not a hook ledger ({exc})") from None
    if version == 0 or not {"events", "hook_runs"} <= tables:
        conn.close()
        raise LedgerError(f"{p}: not a hook ledger (no events/hook_runs tables)")
    if version > SCHEMA_VERSION:
        conn.close()
        raise LedgerError(f"{p}: ledger schema version {version} is newer than this "
                          f"agent-server understands ({SCHEMA_VERSION})")
    if version < SCHEMA_VERSION:  # written by an older agent-server: upgrade it once
        conn.close()
        _upgrade(p)
        return open_ledger(p)
    conn.row_factory = sqlite3.Row
    return conn


def _upgrade(path: Path) -> None:
    ledger = HookLedger(path)
    try:
        ledger._drop_connection()
        ledger._conn = ledger._connect()  # migrates, in one transaction
    except (sqlite3.Error, LedgerError) as exc:
        raise LedgerError(f"{path}: cannot upgrade this ledger from an older agent-server "
                          f"to schema version {SCHEMA_VERSION}: {exc}") from None
    finally:
        ledger.close()


def _filters(session: str | None, event: str | None, since: float | None,
             alias: str = "e") -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if session is not None:  # an id, or its first characters
        clauses.append(f"substr({alias}.session_id, 1, ?) = ?")
        params += [len(session), session]
    if event is not None:
        clauses.append(f"{alias}.event = ?")
        params.append(event)
    if since is not None:
        clauses.append(f"{alias}.started_at >= ?")
        params.append(since)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _hooks_of(row: sqlite3.Row) -> list[dict[str, Any]]:
    hooks: list[dict[str, Any]] = json.loads(row["hooks"] or "[]")
    for position, hook in enumerate(hooks):
        hook["position"] = position
        hook["event"] = row["event"]
        hook["timed_out"] = bool(hook.get("timed_out"))
        hook["truncated"] = bool(hook.get("truncated"))
    return hooks


def recent_events(
    conn: sqlite3.Connection,
    *,
    session: str | None = None,
    event: str | None = None,
    since: float | None = None,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """The newest ``limit`` events (newest first), each with its ``hooks`` rows."""
    where, params = _filters(session, event, since)
    events: list[dict[str, Any]] = []
    for row in conn.execute(f"SELECT * FROM events e{where} ORDER BY e.id DESC LIMIT ?",
                            [*params, limit]):
        e = dict(row)
        del e["id"]
        e["blocked"] = bool(e["blocked"])
        e["hooks"] = _hooks_of(row)
        events.append(e)
    return events


def _percentile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolated percentile of already sorted values (q in 0..100)."""
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def hook_stats(
    conn: sqlite3.Connection,
    *,
    session: str | None = None,
    event: str | None = None,
    since: float | None = None,
) -> list[dict[str, Any]]:
    """Per hook (event and name): runs, p50/p95 duration, block, error and timeout rates.

    Skipped hooks (after an earlier block, or ``async``) are not runs and are left out.
    """
    where, params = _filters(session, event, since)
    groups: dict[tuple[str, str], list[tuple[str, str | None, float]]] = {}
    for row in conn.execute(f"SELECT event, hooks FROM events e{where}", params):
        for hook in json.loads(row["hooks"] or "[]"):
            if hook.get("status") != "skipped":
                groups.setdefault((row["event"], str(hook.get("name"))), []).append(
                    (hook.get("status"), hook.get("decision"),
                     float(hook.get("duration_ms") or 0.0)))
    stats: list[dict[str, Any]] = []
    for (ev, name), runs in groups.items():
        durations = sorted(d for _, _, d in runs)
        n = len(runs)
        blocks = sum(1 for _, decision, _ in runs if decision in ("deny", "defer", "block"))
        stats.append({
            "event": ev,
            "name": name,
            "runs": n,
            "p50_ms": round(_percentile(durations, 50), 3),
            "p95_ms": round(_percentile(durations, 95), 3),
            "block_rate": blocks / n,
            "error_rate": sum(1 for s, _, _ in runs if s == "error") / n,
            "timeout_rate": sum(1 for s, _, _ in runs if s == "timeout") / n,
        })
    stats.sort(key=lambda s: (-s["runs"], s["event"], s["name"]))
    return stats
