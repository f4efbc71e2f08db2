"""The audit ledger: every fired event and every hook result, durably, in SQLite.

    runner = HookRunner.from_project(".", ledger=True)          # <project>/.agent-server/hooks.db
    runner = HookRunner.from_project(".", ledger=HookLedger(path))

Durability: :meth:`HookLedger.record` returns once the record is in the ledger's journal,
a file of JSON lines under ``<db>.pending/`` that only this ledger appends to. One
``write()`` puts it in the operating system's hands, which is all a killed *process*
needs: nothing whose ``fire()`` returned is lost. A writer thread moves journaled records
into the SQLite database (WAL) about 50 ms later, many per transaction, off the fire's
path; the next ledger or ``hooks log`` to open the database replays a journal whose
process died first. ``synchronous="NORMAL"`` (the default) survives a killed process;
``"FULL"`` adds an fdatasync of the journal per record (on a worker thread) and syncs
SQLite's WAL before a journal is emptied or removed, and survives power loss too.

Why a journal in front of SQLite: a SQLite commit costs about eight system calls (locks
and page writes), an append one; on a fire of a millisecond that difference is the
ledger's whole overhead (docs/observability.md).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import anyio.to_thread

from .._datadir import DATA_DIR_NAME, make_data_dir
from ._errors import HookError
from ._json import compact_encoder
from ._outcome import BLOCKING_DECISIONS, EventOutcome, HookResult

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
DEFAULT_LEDGER_PATH = Path(DATA_DIR_NAME) / "hooks.db"
#: ``PRAGMA user_version`` of the schema this code writes.
SCHEMA_VERSION = 3
#: Default bound on the stdout and on the stderr kept per hook run, in bytes.
DEFAULT_OUTPUT_LIMIT = 8 * 1024

Synchronous = Literal["NORMAL", "FULL"]

# One row per fired event, its hook results a JSON array in that row: a commit writes one
# table page, not a page per table and index (the audit record is on fire()'s path).
# ``hook_runs`` is a view with a row per hook result, for SQL readers. Rows are appended
# in time order, so "newest first" is the rowid order.
_HOOK_FIELDS = (
    "name",
    "command",
    "source",
    "matcher",
    "status",
    "exit_code",
    "started_at",
    "duration_ms",
    "decision",
    "reason",
    "error",
    "timed_out",
    "stdout",
    "stderr",
    "truncated",
    "span_id",
)
_HOOK_RUNS_VIEW = (
    "CREATE VIEW hook_runs AS SELECT e.id AS event_ref, CAST(j.key AS INTEGER) AS position,"
    " e.event AS event, "
    + ", ".join(f"json_extract(j.value, '$.{f}') AS {f}" for f in _HOOK_FIELDS)
    + " FROM events AS e, json_each(e.hooks) AS j"
)
# event_id: a record replayed from a journal twice is stored once. started_at: "newest
# first" (records replayed after a crash arrive late, so rowids are not time order).
_INDEXES = """CREATE UNIQUE INDEX events_event_id ON events (event_id);
CREATE INDEX events_started_at ON events (started_at);"""
# Key/value state of the ledger itself: ``pruned_before`` (Unix seconds), the newest
# cutoff a prune used. Records older than it are not inserted again when a journal that
# still holds them is replayed (a pruned event must not come back).
_STATE_TABLE = "CREATE TABLE ledger_state (key TEXT PRIMARY KEY, value) WITHOUT ROWID"
_PRUNED_BEFORE = "ifnull((SELECT value FROM ledger_state WHERE key = 'pruned_before'), 0)"
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
{_INDEXES}
{_HOOK_RUNS_VIEW};
{_STATE_TABLE};
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
{_INDEXES}
{_HOOK_RUNS_VIEW};
"""
# Schema 2 had no ledger_state.
_MIGRATE_FROM_2 = f"{_STATE_TABLE};\n"

# The columns an event record fills, in journal-line order (``hooks`` last).
_EVENT_FIELDS = (
    "event_id",
    "event",
    "session_id",
    "tool_name",
    "tool_use_id",
    "started_at",
    "ended_at",
    "duration_ms",
    "blocked",
    "decision",
    "reason",
    "hook_count",
    "trace_id",
    "hooks",
)
_EVENT_COLUMNS = len(_EVENT_FIELDS)
_INSERT_INTO = f"INSERT OR IGNORE INTO events ({', '.join(_EVENT_FIELDS)})"
_INSERT_EVENT = (
    f"{_INSERT_INTO} SELECT {', '.join(f'?{i + 1}' for i in range(_EVENT_COLUMNS))}"
    f" WHERE ?{_EVENT_FIELDS.index('started_at') + 1} >= {_PRUNED_BEFORE}"
)
# Journal times are integer microseconds; the database keeps seconds and milliseconds.
_EVENT_SCALE = {5: 1e6, 6: 1e6, 7: 1e3}  # started_at, ended_at (s), duration_ms
_HOOK_SCALE = {6: 1e6, 7: 1e3}  # a hook's started_at (s), duration_ms


def _hook_number(i: int) -> str:
    """SQL for field ``i`` of a journaled hook, as its JSON value: scaled fields become
    decimal numbers written from the integer (a REAL would print only 15 digits)."""
    x = f"json_extract(h.value, '$[{i}]')"
    if i not in _HOOK_SCALE:
        return x
    unit, digits = int(_HOOK_SCALE[i]), len(str(int(_HOOK_SCALE[i]))) - 1
    return f"iif({x} IS NULL, NULL, json(printf('%d.%0{digits}d', {x} / {unit}, {x} % {unit})))"


# One encoder for every journal line, built once (see _json); the values are plain JSON
# types, and ``default=`` would slow every line down, so only a line that holds something
# else is encoded again with ``str`` for it.
_encode = compact_encoder()
_encode_any = compact_encoder(default=str)
# A batch of journal lines, parsed by SQLite itself: the writer thread then holds
# Python's GIL only to read the bytes, not per record (so it never delays a fire).
_INSERT_BATCH = (
    f"{_INSERT_INTO} SELECT "
    + ", ".join(
        f"json_extract(r.value, '$[{i}]')" + (f" / {_EVENT_SCALE[i]!r}" if i in _EVENT_SCALE else "")
        for i in range(_EVENT_COLUMNS - 1)
    )
    + ", (SELECT json_group_array(json_object("
    + ", ".join(f"'{f}', {_hook_number(i)}" for i, f in enumerate(_HOOK_FIELDS))
    + ")) FROM (SELECT j.value AS value FROM json_each(json_extract(r.value,"
    f" '$[{_EVENT_COLUMNS - 1}]')) AS j ORDER BY j.key) AS h)"
    " FROM json_each(?) AS r WHERE json_type(r.value) = 'array'"
    f" AND json_array_length(r.value) = {_EVENT_COLUMNS}"
    f" AND json_extract(r.value, '$[{_EVENT_FIELDS.index('started_at')}]')"
    f" >= {_PRUNED_BEFORE} * {_EVENT_SCALE[_EVENT_FIELDS.index('started_at')]!r}"
)

# A journal line ["u", event_id, position, hook values]: an async hook's final result.
_UPDATE_MARK = "u"
_UPDATE_PREFIX = b'["u",'
_UPDATE_HOOK = "UPDATE events SET hooks = json_set(hooks, '$[' || ? || ']', json(?)) WHERE event_id = ?"

_JOURNAL_SUFFIX = ".jsonl"
# The writer thread waits this long (s) after a record so a burst shares one commit,
# then at most as long again for the next record, to commit right after it.
_INGEST_DELAY = 0.05
# After a failed commit (disk full, database locked), the next attempt waits this long.
_RETRY_DELAY = 0.5
# A journal whose records are all in the database is emptied once it is this big.
_TRUNCATE_AT = 1 << 20
# A ledger with a retention deletes older events when its writer starts and then this
# often (s), at most this many rows per transaction (other writers wait on a long one).
_PRUNE_EVERY = 3600.0
_PRUNE_CHUNK = 5000
_PRUNE = f"DELETE FROM events WHERE id IN (SELECT id FROM events WHERE started_at < ? LIMIT {_PRUNE_CHUNK})"
_SET_PRUNED_BEFORE = (
    "INSERT INTO ledger_state (key, value) VALUES ('pruned_before', ?) "
    "ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)"
)


class LedgerError(HookError):
    """The ledger file is missing, is not a hook ledger, or has a newer schema."""


def default_ledger_path(project_dir: str | os.PathLike[str]) -> Path:
    """``<project>/.agent-server/hooks.db``."""
    return Path(project_dir) / DEFAULT_LEDGER_PATH


def _head(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


def _tail(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text, False
    return data[-limit:].decode("utf-8", "ignore"), True


class HookLedger:
    """An append-only SQLite record of fired events and hook results.

    ``path`` is created (with its folder) on first write. ``synchronous``: ``"NORMAL"``
    survives a killed process, ``"FULL"`` power loss too (see the module docstring);
    ``output_limit`` bounds the stdout and the stderr stored per hook run, in bytes (the
    start of stdout, the end of stderr). ``retention`` (seconds), when given, keeps the
    database from growing forever: events that started longer ago than that are deleted
    when the writer thread starts and then hourly (see :meth:`prune`). One instance may
    be shared by many runners and sessions, from any event loop or thread; several
    processes may share one database (each appends to its own journal).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: Synchronous = "NORMAL",
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        busy_timeout: float = 10.0,
        retention: float | None = None,
    ) -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be 'NORMAL' or 'FULL', got {synchronous!r}")
        if retention is not None and not retention > 0:  # (NaN too)
            raise ValueError(f"retention must be a positive number of seconds, got {retention!r}")
        self.retention = retention
        self._pruned_at: float | None = None  # time.monotonic() of the last retention pass
        self.path = Path(path)
        self.synchronous: Synchronous = synchronous
        self.output_limit = output_limit
        self.busy_timeout = busy_timeout
        # The journal: its descriptor, and how much of it is written / in SQLite.
        self._journal_lock = threading.Lock()
        self._fd: int | None = None
        self._journal: Path | None = None
        self._written = 0
        self._ingested = 0
        # The database connection, used by the writer thread, flush() and close().
        self._db_lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()  # set while closing: ends the writer's waits at once
        self._thread: threading.Thread | None = None
        self._close_lock = threading.Lock()  # one close() at a time: each resets _stop
        #: Event records appended so far (each durable when its record() returned).
        self.records = 0
        #: SQLite transactions that moved records from the journal into the database.
        self.commits = 0

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
    @staticmethod
    def _hook_values(r: HookResult, limit: int) -> list[Any]:
        """One hook result, its values in ``_HOOK_FIELDS`` order (positional in the
        journal: less to build and encode on the fire's path; objects in SQLite)."""
        # (Lean on purpose: this runs on every fire's path, with the CPU's caches cold
        # after waiting for the hook, where each call costs several times its warm cost.)
        stdout, stderr, cut = r.stdout, r.stderr, r.truncated
        if len(stdout) * 4 > limit:  # (at most 4 bytes per character: else it fits)
            stdout, cut_out = _head(stdout, limit)
            cut = cut or cut_out
        if len(stderr) * 4 > limit:
            stderr, cut_err = _tail(stderr, limit)
            cut = cut or cut_err
        span_id = r.extra.get("span_id")
        return [
            r.name,
            r.command,
            r.source,
            r.matcher,
            r.status,
            r.exit_code,  # (a StrEnum)
            round(r.started_at * 1e6) if r.started_at else None,
            round(r.duration_ms * 1e3),
            r.decision,
            r.reason,
            r.error,
            int(r.timed_out),
            stdout,
            stderr,
            int(cut),
            span_id if isinstance(span_id, str) else None,
        ]

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
        """Write one fired event and its hook results; return once it is durable.

        Never raises for a storage problem: it is logged and False is returned (the
        hooks' outcome matters more than its audit record).
        """
        if self.synchronous == "FULL":
            # The fsync waits on a worker thread, not on the event loop; shielded, so a
            # cancelled fire still leaves its record (as in NORMAL mode).
            with anyio.CancelScope(shield=True):
                return await anyio.to_thread.run_sync(
                    functools.partial(
                        self.record_sync,
                        event,
                        payload,
                        outcome,
                        event_id=event_id,
                        started_at=started_at,
                        ended_at=ended_at,
                        trace_id=trace_id,
                    )
                )
        return self.record_sync(
            event, payload, outcome, event_id=event_id, started_at=started_at, ended_at=ended_at, trace_id=trace_id
        )

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
        """:meth:`record` for synchronous code."""
        # One journal line's values: the ``events`` row, times in integer microseconds
        # (cheaper to encode than floats; SQLite divides), ``hooks`` (last) still a list.
        # (Built in this one frame, no helpers or comprehension: it runs on every fire's
        # path with the CPU's caches cold, where each call costs several times its warm
        # cost.)
        try:
            hooks = []
            for r in outcome.hooks:
                hooks.append(self._hook_values(r, self.output_limit))
            start, end = round(started_at * 1e6), round(ended_at * 1e6)
            session = payload.get("session_id")
            tool = payload.get("tool_name")
            call = payload.get("tool_use_id")
            row = [
                event_id,
                event,
                None if session is None or session == "" else str(session),
                None if tool is None or tool == "" else str(tool),
                None if call is None or call == "" else str(call),
                start,
                end,
                end - start,
                int(outcome.blocked),
                outcome.decision,
                outcome.reason,
                len(hooks),
                trace_id,
                hooks,
            ]
        except Exception:
            log.exception("hook ledger: cannot build the record of %s %s", event, event_id)
            return False
        return self._write(row, "the record of", event_id)

    async def record_result(self, event_id: str, position: int, result: HookResult) -> bool:
        """Put the final result of an ``async: true`` hook in place of its placeholder:
        hook ``position`` of the event ``event_id``, recorded when the event returned.
        Durable on return, like :meth:`record`; never raises."""
        if self.synchronous == "FULL":
            with anyio.CancelScope(shield=True):
                return await anyio.to_thread.run_sync(self.record_result_sync, event_id, position, result)
        return self.record_result_sync(event_id, position, result)

    def record_result_sync(self, event_id: str, position: int, result: HookResult) -> bool:
        """:meth:`record_result` for synchronous code."""
        try:
            line = [_UPDATE_MARK, event_id, position, self._hook_values(result, self.output_limit)]
        except Exception:
            log.exception("hook ledger: cannot build the result of a hook of %s", event_id)
            return False
        return self._write(line, f"the result of hook {position} of", event_id)

    def _write(self, values: list[Any], what: str, event_id: str) -> bool:
        """Append one journal line; False (logged) when that fails."""
        try:
            try:
                text = _encode(values)
            except TypeError:
                text = _encode_any(values)
            line = (text + "\n").encode()
        except Exception:
            log.exception("hook ledger: cannot encode %s %s", what, event_id)
            return False
        try:
            self._append(line)
        except Exception as exc:
            log.error(
                "hook ledger %s: %s %s could not be written: %s",
                self.path,
                what,
                event_id,
                exc,
                exc_info=not isinstance(exc, (OSError, sqlite3.Error, LedgerError)),
            )
            return False
        if not self._wake.is_set():
            self._wake.set()  # the writer thread moves it into SQLite in a moment
        return True

    def _append(self, line: bytes) -> None:
        if self._fd is None:
            # First record: check the database (schema, writable) now, before the journal
            # lock (the lock order is _db_lock, then _journal_lock).
            self._check_database()
        with self._journal_lock:
            if self._fd is None:
                self._open_journal()
            fd = self._fd
            assert fd is not None
            written = os.write(fd, line)
            if written != len(line):  # disk full mid-record: end the torn line
                with contextlib.suppress(OSError):
                    os.write(fd, b"\n")
                self._written = os.fstat(fd).st_size  # ingestion skips the torn line
                raise OSError(errno.ENOSPC, "short write to the ledger journal")
            # Counted before the sync: the line is in the file whatever fdatasync says,
            # and ingestion reads by these offsets.
            self._written += written
            if self.synchronous == "FULL":
                os.fdatasync(fd)
            self.records += 1

    def _check_open(self) -> None:
        if self._stop.is_set():
            raise LedgerError(f"{self.path}: the ledger is closed")

    def _connection(self) -> sqlite3.Connection:
        """The writing connection, opened on first use (``_db_lock`` held)."""
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _check_database(self) -> None:
        self._check_open()
        with self._db_lock:
            self._connection()

    def _open_journal(self) -> None:
        """Start a journal of our own and the writer thread (under ``_journal_lock``,
        which close() also takes to find the thread: none starts unseen)."""
        self._check_open()  # (again: close() may have begun since _check_database)
        folder = pending_folder(self.path)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{os.getpid()}-{os.urandom(6).hex()}"
        # Locked before it gets the name recovery looks for: a live journal is never
        # taken for an orphan.
        temp = folder / f"{name}.new"
        fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            journal = folder / f"{name}{_JOURNAL_SUFFIX}"
            os.rename(temp, journal)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        self._fd, self._journal, self._written, self._ingested = fd, journal, 0, 0
        thread = threading.Thread(target=self._writer, daemon=True, name=f"hook-ledger {self.path.name}")
        try:
            thread.start()
        except BaseException:  # (can't start new thread): no journal without a writer
            self._fd = self._journal = None
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(journal)
            raise
        self._thread = thread

    def _writer(self) -> None:
        """Move journaled records into SQLite, a batch at a time; first replay the
        journals of processes that died before they could."""
        with self._db_lock:
            try:
                if self._conn is not None:
                    replay_journals(self._conn, self.path, skip=self._journal)
            except Exception as exc:  # they stay on disk for the next open
                log.error(
                    "hook ledger %s: cannot replay the journals in %s: %s", self.path, pending_folder(self.path), exc
                )
        self._apply_retention()
        failing = False
        while True:
            self._wake.wait()
            if self._stop.wait(_INGEST_DELAY):  # a burst's records share one commit
                return  # close() moves the rest on its own thread
            self._wake.clear()
            # Then wait for the next record (at most as long again): one is appended just
            # before a fire returns, when the event loop turns to wait for the agent's
            # next step, so the commit lands in that pause instead of in a later fire,
            # where it competes with the hook's process for the CPUs.
            if not self._stop.is_set() and self._wake.wait(_INGEST_DELAY):
                self._wake.clear()
            # close() sets _stop before _wake: if it came before one of the clears above,
            # its wake-up is gone and only this check ends the thread.
            if self._stop.is_set():
                return
            try:
                self.flush()
                if failing:
                    log.warning("hook ledger %s: records reach the database again", self.path)
                failing = False
                self._apply_retention()
            except Exception as exc:  # kept in the journal, retried until they get in
                (log.debug if failing else log.error)(
                    "hook ledger %s: cannot move records into the database yet (they are safe in %s; retrying): %s",
                    self.path,
                    self._journal,
                    exc,
                )
                failing = True
                if self._stop.wait(_RETRY_DELAY):
                    return
                self._wake.set()

    def flush(self) -> None:
        """Move every record appended so far into the database, now (on this thread).

        Records are durable once :meth:`record` returns; this only makes them visible
        to SQL readers at once instead of within about 0.1 s.
        """
        with self._db_lock:
            with self._journal_lock:
                fd, journal, start, end = self._fd, self._journal, self._ingested, self._written
            if fd is None or journal is None or end <= start:
                return
            self._ingest(fd, journal, start, end)
            with self._journal_lock:
                self._ingested = end
                if end == self._written and end >= _TRUNCATE_AT:
                    os.ftruncate(fd, 0)  # all of it is in SQLite: start the journal over
                    self._written = self._ingested = 0

    def _ingest(self, fd: int, journal: Path, start: int, end: int) -> None:
        """Insert bytes ``start:end`` of a journal in one transaction (``_db_lock`` held)."""
        data = os.pread(fd, end - start, start)
        _insert_lines(self._connection(), data, journal, start)
        self.commits += 1

    def prune(self, before: float) -> int:
        """Delete the events that started before ``before`` (Unix time), with their hook
        results; return how many.

        Records still in journals (this ledger's, and those of processes that died) are
        moved into the database first, so an old one cannot come back later. Deleted
        rows' pages are reused by new records; the file does not shrink.
        """
        self.flush()
        deleted = 0
        with self._db_lock:
            if self._conn is None:  # (first use: take in what dead processes left too)
                replay_journals(self._connection(), self.path, skip=self._journal)
            conn = self._connection()
            while True:  # in chunks: other writers wait on one transaction, not on all
                with _transaction(conn):
                    if not deleted:  # so that no replayed journal line brings one back
                        conn.execute(_SET_PRUNED_BEFORE, (before,))
                    count = conn.execute(_PRUNE, (before,)).rowcount
                deleted += count
                if count < _PRUNE_CHUNK or self._stop.is_set():  # closing: the rest next time
                    return deleted

    def _apply_retention(self) -> None:
        """On the writer thread: :meth:`prune` by ``retention``, at most hourly."""
        now = time.monotonic()
        if self.retention is None or (self._pruned_at is not None and now - self._pruned_at < _PRUNE_EVERY):
            return
        self._pruned_at = now
        try:
            deleted = self.prune(time.time() - self.retention)
        except Exception as exc:  # tried again in an hour; recording goes on
            log.error(
                "hook ledger %s: cannot delete events older than its retention (%g s): %s",
                self.path,
                self.retention,
                exc,
            )
            return
        if deleted:
            log.info("hook ledger %s: deleted %d events older than %g s", self.path, deleted, self.retention)

    def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _connect(self) -> sqlite3.Connection:
        if self.path.parent.name == DATA_DIR_NAME:
            make_data_dir(self.path.parent)  # the default place: with its .gitignore
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: every batch commit syncs the WAL (once per batch, off the fire's path),
            # so a journal emptied or removed after a commit has its records on disk. A
            # checkpoint would not do: it syncs nothing while a reader holds a snapshot.
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        with _transaction(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise LedgerError(
                    f"{self.path}: ledger schema version {version} is newer than this "
                    f"agent-server understands ({SCHEMA_VERSION})"
                )
            if version < SCHEMA_VERSION:
                script = {0: _SCHEMA, 1: _MIGRATE_FROM_1 + _MIGRATE_FROM_2, 2: _MIGRATE_FROM_2}[version]
                for statement in script.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        """Move what the journal still holds into the database, stop the writer
        thread, remove the journal and close (a later :meth:`record` starts again).

        If the database cannot take the records now, the journal is kept and replayed
        the next time this ledger is opened (by a runner or ``hooks log``)."""
        with self._close_lock:
            self._close()

    def _close(self) -> None:
        self._stop.set()
        try:
            with self._journal_lock:  # a first record() starting a writer has finished
                thread, self._thread = self._thread, None
            if thread is not None:
                self._wake.set()
                thread.join()
            with self._db_lock:
                # Detached first: from here on a record() cannot land in this journal (it
                # is refused while closing), so none can be appended after the last
                # ingestion and then removed with the file.
                with self._journal_lock:
                    fd, journal = self._fd, self._journal
                    start, end = self._ingested, self._written
                    self._fd = self._journal = None
                    self._written = self._ingested = 0
                try:
                    if fd is not None and journal is not None:
                        self._ingest_and_remove(fd, journal, start, end)
                finally:
                    if fd is not None:
                        os.close(fd)  # (drops the lock: a kept journal is an orphan to replay)
                    self._drop_connection()
        finally:
            self._wake.clear()
            self._stop.clear()

    def _ingest_and_remove(self, fd: int, journal: Path, start: int, end: int) -> None:
        """close(): move the journal's last records into SQLite, then remove it; if the
        database cannot take them, keep it (replayed when the ledger is next opened)."""
        try:
            if end > start:
                self._ingest(fd, journal, start, end)
        except Exception as exc:
            log.error(
                "hook ledger %s: records kept in %s, replayed when the ledger is next opened: %s",
                self.path,
                journal,
                exc,
            )
            return
        try:
            os.unlink(journal)  # (FULL: its records' commit synced the WAL)
        except FileNotFoundError:  # removed by someone else (its records are in SQLite)
            log.warning("hook ledger %s: journal %s was already gone at close", self.path, journal)
        except OSError as exc:  # replayed next time
            log.warning("hook ledger %s: journal %s kept: %s", self.path, journal, exc)

    async def aclose(self) -> None:
        """:meth:`close` on a worker thread."""
        await anyio.to_thread.run_sync(self.close)

    def __enter__(self) -> HookLedger:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> HookLedger:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


# -- journals ----------------------------------------------------------------------


def pending_folder(db: str | os.PathLike[str]) -> Path:
    """Where the journals of the ledger at ``db`` live: ``<db>.pending/``."""
    p = Path(db)
    return p.with_name(p.name + ".pending")


_Row = tuple[Any, ...]
_Update = tuple[int, str, str]  # position, hook object (JSON), event id


def _hook_json(values: list[Any]) -> str:
    """A journaled hook's values as the JSON object stored in ``events.hooks``."""
    hook = dict(zip(_HOOK_FIELDS, values, strict=True))
    for i, scale in _HOOK_SCALE.items():
        field = _HOOK_FIELDS[i]
        hook[field] = None if hook[field] is None else hook[field] / scale
    return json.dumps(hook, separators=(",", ":"))


def _parse_journal(
    data: bytes, source: Path | None, offset: int = 0, *, events: bool = True
) -> tuple[list[_Row], list[_Update]]:
    """The events rows and async-hook results in ``data`` (complete lines of a journal,
    from byte ``offset``; only the results when not ``events``). Bad lines are logged
    and skipped (a line torn by a full disk, or edited by hand)."""
    rows: list[_Row] = []
    updates: list[_Update] = []
    at = offset
    for line in data.split(b"\n"):
        start, at = at, at + len(line) + 1
        if not line.strip() or not (events or line.startswith(_UPDATE_PREFIX)):
            continue
        try:
            values = json.loads(line)
            if isinstance(values, list) and len(values) == 4 and values[0] == _UPDATE_MARK:
                updates.append((int(values[2]), _hook_json(values[3]), str(values[1])))
                continue
            if not isinstance(values, list) or len(values) != _EVENT_COLUMNS:
                raise ValueError(f"expected a list of {_EVENT_COLUMNS} values")
            for i, scale in _EVENT_SCALE.items():
                values[i] = None if values[i] is None else values[i] / scale
            values[-1] = "[" + ",".join(_hook_json(h) for h in values[-1]) + "]"
        except (ValueError, TypeError) as exc:
            log.warning("hook ledger journal %s: the line at byte %d is not a record, skipped (%s)", source, start, exc)
            continue
        rows.append(tuple(values))
    return rows, updates


def _insert_lines(conn: sqlite3.Connection, data: bytes, source: Path | None, offset: int) -> None:
    """Insert the records in ``data`` (complete journal lines) in one transaction,
    parsed by SQLite (async-hook results, rare, by Python); a batch SQLite rejects (a
    torn line) is parsed line by line."""
    batch = b"[" + data.rstrip(b"\n").replace(b"\n", b",") + b"]"
    try:
        with _transaction(conn):
            conn.execute(_INSERT_BATCH, (batch.decode("utf-8"),))
            if _UPDATE_PREFIX in data:
                _, updates = _parse_journal(data, source, offset, events=False)
                conn.executemany(_UPDATE_HOOK, updates)
        return
    except (sqlite3.OperationalError, UnicodeDecodeError) as exc:
        if "JSON" not in str(exc).upper() and not isinstance(exc, UnicodeDecodeError):
            raise  # locked, disk full...: the batch stays in the journal for a retry
    rows, updates = _parse_journal(data, source, offset)
    with _transaction(conn):
        conn.executemany(_INSERT_EVENT, rows)
        conn.executemany(_UPDATE_HOOK, updates)  # after: they refer to those rows


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (taken at once, so a busy database fails here, early)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _sync_wal(db: Path) -> None:
    """Put every committed transaction of ``db`` on disk: fsync its WAL (the replaying
    connection may commit with synchronous=NORMAL, and the journal it replaces may come
    from a FULL ledger)."""
    try:
        fd = os.open(f"{db}-wal", os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # nothing committed since the last checkpoint (which synced the database)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replay_journals(conn: sqlite3.Connection, db: Path, *, skip: Path | None = None) -> None:
    """Copy the records of every journal beside ``db`` into it.

    A journal whose owner is gone (its lock is free) is removed once copied. A live
    one is read up to its last complete line and left to its owner. Event ids are
    unique, so a record copied twice is stored once.
    """
    try:
        journals = sorted(pending_folder(db).glob(f"*{_JOURNAL_SUFFIX}"))
    except OSError:
        return
    for journal in journals:
        if journal == skip:
            continue
        try:
            fd = os.open(journal, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue  # its owner just finished with it
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                orphan = True
            except OSError:
                orphan = False
            data = os.pread(fd, os.fstat(fd).st_size, 0)
            complete = data[: data.rfind(b"\n") + 1]
            if complete:
                _insert_lines(conn, complete, journal, 0)
            if orphan:
                _sync_wal(db)  # its records on disk before the copy in the journal goes
                os.unlink(journal)
        finally:
            os.close(fd)


# -- reading (the CLI) -----------------------------------------------------------


def open_ledger(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open a ledger for reading; :class:`LedgerError` with a clear message otherwise.

    Records still in journals (written a moment ago, or by a process that died) are
    copied into the database first, and a database from an older agent-server is
    upgraded; both need write access, else the reader sees what the database holds.
    """
    p = Path(path)
    conn, version = _open_read_only(p)
    has_journals = any(pending_folder(p).glob(f"*{_JOURNAL_SUFFIX}"))
    if version < SCHEMA_VERSION or has_journals:
        conn.close()
        _catch_up(p, upgrade=version < SCHEMA_VERSION)
        conn, version = _open_read_only(p)
    conn.row_factory = sqlite3.Row
    return conn


def _open_read_only(p: Path) -> tuple[sqlite3.Connection, int]:
    if not p.exists():
        raise LedgerError(
            f"no hook ledger at {p} (it is created when a runner has "
            "ledger=True or ledger=HookLedger(path); pass --ledger PATH to read "
            "another file)"
        )
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
        raise LedgerError(
            f"{p}: ledger schema version {version} is newer than this agent-server understands ({SCHEMA_VERSION})"
        )
    return conn, version


def _catch_up(path: Path, *, upgrade: bool) -> None:
    """Upgrade an older schema (an error if that fails) and replay journals (a warning)."""
    ledger = HookLedger(path)
    try:
        conn = ledger._connect()  # migrates, in one transaction
    except (sqlite3.Error, OSError, LedgerError) as exc:
        if upgrade:
            raise LedgerError(
                f"{path}: cannot upgrade this ledger from an older agent-server "
                f"to schema version {SCHEMA_VERSION}: {exc}"
            ) from None
        log.warning("hook ledger %s: records still in %s are not shown (%s)", path, pending_folder(path), exc)
        return
    try:
        replay_journals(conn, path)
    except (sqlite3.Error, OSError) as exc:
        log.warning("hook ledger %s: records still in %s are not shown (%s)", path, pending_folder(path), exc)
    finally:
        conn.close()


def _filters(session: str | None, event: str | None, since: float | None, alias: str = "e") -> tuple[str, list[Any]]:
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
    sql = f"SELECT * FROM events e{where} ORDER BY e.started_at DESC, e.id DESC LIMIT ?"
    for row in conn.execute(sql, [*params, limit]):
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
                    (hook.get("status"), hook.get("decision"), float(hook.get("duration_ms") or 0.0))
                )
    stats: list[dict[str, Any]] = []
    for (ev, name), runs in groups.items():
        durations = sorted(d for _, _, d in runs)
        n = len(runs)
        blocks = sum(1 for _, decision, _ in runs if decision in BLOCKING_DECISIONS)
        stats.append(
            {
                "event": ev,
                "name": name,
                "runs": n,
                "p50_ms": round(_percentile(durations, 50), 3),
                "p95_ms": round(_percentile(durations, 95), 3),
                "block_rate": blocks / n,
                "error_rate": sum(1 for s, _, _ in runs if s == "error") / n,
                "timeout_rate": sum(1 for s, _, _ in runs if s == "timeout") / n,
            }
        )
    stats.sort(key=lambda s: (-s["runs"], s["event"], s["name"]))
    return stats
