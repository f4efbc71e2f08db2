"""Where the ledger's records end up: a SQLite file, or a PostgreSQL database that many
servers share. One row per fired event, its hook results a JSON array in that row;
``hook_runs`` is a view with a row per hook result, for SQL readers."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from .._datadir import DATA_DIR_NAME, make_data_dir
from ._errors import HookError
from ._ledger_journal import Update

__all__ = ["LedgerError", "LedgerStore", "PostgresStore", "SQLiteStore"]
__all__ += ["check_url", "is_url", "open_store", "redacted"]

log = logging.getLogger("agent_server.hooks.ledger")

#: ``PRAGMA user_version`` of the SQLite schema this code writes (4: host, project).
SCHEMA_VERSION = 4
COLUMNS = (
    "event_id, event, session_id, tool_name, tool_use_id, started_at, ended_at, duration_ms, blocked, decision, "
    "reason, hook_count, trace_id, hooks, host, project"
)
_HOOK_COLUMNS = (
    *("name", "command", "source", "matcher", "status", "exit_code", "started_at", "duration_ms"),
    *("decision", "reason", "error", "timed_out", "stdout", "stderr", "truncated", "span_id"),
)
# Prune: the newest cutoff used is kept, so that a journal replayed later cannot bring a
# pruned event back. Chunks: other writers wait on one transaction, not on all.
_STATE = "SELECT value FROM ledger_state WHERE key = 'pruned_before'"
_SET_STATE = """INSERT INTO ledger_state (key, value) VALUES ('pruned_before', ?)
    ON CONFLICT (key) DO UPDATE SET value = CASE WHEN excluded.value > ledger_state.value
    THEN excluded.value ELSE ledger_state.value END"""
_PRUNE = "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE started_at < ? LIMIT ?)"

_SQLITE_SCHEMA = (
    """CREATE TABLE events (id INTEGER PRIMARY KEY, event_id TEXT NOT NULL, event TEXT NOT NULL, session_id TEXT,
    tool_name TEXT, tool_use_id TEXT, started_at REAL NOT NULL, ended_at REAL NOT NULL, duration_ms REAL NOT NULL,
    blocked INTEGER NOT NULL, decision TEXT, reason TEXT, hook_count INTEGER NOT NULL, trace_id TEXT,
    hooks TEXT NOT NULL, host TEXT, project TEXT)""",
    "CREATE TABLE ledger_state (key TEXT PRIMARY KEY, value) WITHOUT ROWID",
)
_SQLITE_INDEXES = (
    "CREATE UNIQUE INDEX events_event_id ON events (event_id)",
    "CREATE INDEX events_started_at ON events (started_at)",
    """CREATE VIEW hook_runs AS SELECT e.id AS event_ref, CAST(j.key AS INTEGER) AS position, e.event AS event,
    json_extract(j.value, '$.name') AS name, json_extract(j.value, '$.command') AS command,
    json_extract(j.value, '$.source') AS source, json_extract(j.value, '$.matcher') AS matcher,
    json_extract(j.value, '$.status') AS status, json_extract(j.value, '$.exit_code') AS exit_code,
    json_extract(j.value, '$.started_at') AS started_at, json_extract(j.value, '$.duration_ms') AS duration_ms,
    json_extract(j.value, '$.decision') AS decision, json_extract(j.value, '$.reason') AS reason,
    json_extract(j.value, '$.error') AS error, json_extract(j.value, '$.timed_out') AS timed_out,
    json_extract(j.value, '$.stdout') AS stdout, json_extract(j.value, '$.stderr') AS stderr,
    json_extract(j.value, '$.truncated') AS truncated, json_extract(j.value, '$.span_id') AS span_id
    FROM events AS e, json_each(e.hooks) AS j""",
)
_PG_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS events (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE, event TEXT NOT NULL, session_id TEXT, tool_name TEXT, tool_use_id TEXT,
    started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION NOT NULL, duration_ms DOUBLE PRECISION NOT NULL,
    blocked BOOLEAN NOT NULL, decision TEXT, reason TEXT, hook_count INTEGER NOT NULL, trace_id TEXT,
    hooks JSONB NOT NULL, host TEXT, project TEXT)""",
    "CREATE INDEX IF NOT EXISTS events_started_at ON events (started_at)",
    "CREATE TABLE IF NOT EXISTS ledger_state (key TEXT PRIMARY KEY, value DOUBLE PRECISION)",
    """CREATE OR REPLACE VIEW hook_runs AS SELECT e.id AS event_ref, j.n - 1 AS position, e.event, e.host,
    e.project, j.h ->> 'name' AS name, j.h ->> 'command' AS command, j.h ->> 'status' AS status,
    (j.h ->> 'exit_code')::int AS exit_code, (j.h ->> 'duration_ms')::float AS duration_ms,
    j.h ->> 'decision' AS decision, j.h ->> 'reason' AS reason, j.h ->> 'error' AS error
    FROM events AS e, jsonb_array_elements(e.hooks) WITH ORDINALITY AS j(h, n)""",
)


class LedgerError(HookError):
    """The ledger is missing, unreachable, not a hook ledger, or has a newer schema."""


class LedgerStore(Protocol):
    """Where journaled records end up; the writer thread is its only writer."""

    target: str  # for messages (a URL without its password)

    def write(self, events: Sequence[dict[str, Any]], updates: Sequence[Update]) -> None:
        """Insert events (an event id already stored, or older than a prune, is skipped)
        and apply async-hook results, in one transaction."""

    def prune(self, before: float, chunk: int) -> int:
        """Delete the events that started before ``before``; return how many."""

    def rows(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        """A read query (``?`` placeholders) as dicts."""

    def sync(self) -> None:
        """Put every committed transaction on disk."""

    def close(self) -> None:
        """Close the connection."""


def is_url(target: str | os.PathLike[str]) -> bool:
    """Whether ``target`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def check_url(url: str) -> str:
    """``url`` if psycopg can use it, else :class:`LedgerError` (no password shown)."""
    shown = redacted(url)
    if not is_url(url):
        raise LedgerError(f"{shown}: not a postgresql:// URL")
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise LedgerError(f"{shown}: a PostgreSQL ledger needs psycopg: pip install 'agent-server[postgres]'") from None
    try:
        urlsplit(url).port  # noqa: B018  (a port that is not a number: ValueError)
        conninfo_to_dict(url)
    except Exception as exc:
        raise LedgerError(f"{shown}: not a valid PostgreSQL URL ({str(exc).replace(url, shown).strip()})") from None
    return url


def redacted(url: str) -> str:
    """``url`` with its password replaced by ``***``."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)).geturl()
    except ValueError:
        return "<the ledger URL>"


def open_store(target: str | os.PathLike[str], *, create: bool = True, **sqlite: Any) -> LedgerStore:
    """A PostgreSQL store for a ``postgresql://`` URL, else a SQLite file."""
    if is_url(target):
        return PostgresStore(str(target))
    return SQLiteStore(Path(target), create=create, **sqlite)


class _SQLStore:
    """What SQLite and PostgreSQL share: the statements differ only in placeholders."""

    target: str
    _mark = "?"
    _insert: str
    _update: str

    def _connection(self) -> Any:
        raise NotImplementedError

    def _transaction(self) -> contextlib.AbstractContextManager[Any]:
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self._mark)

    def write(self, events: Sequence[dict[str, Any]], updates: Sequence[Update]) -> None:
        with self._transaction() as conn:
            [cutoff] = [r["value"] for r in conn.execute(_STATE).fetchall()] or [0.0]
            rows = [row for e in events if (row := _row(e)) and row[5] >= cutoff]
            conn.cursor().executemany(self._insert, rows)
            # (after the inserts: they refer to those rows)
            conn.cursor().executemany(self._update, [(p, json.dumps(h), e) for e, p, h in updates])

    def prune(self, before: float, chunk: int) -> int:
        deleted = 0
        while True:
            with self._transaction() as conn:
                if not deleted:
                    conn.execute(self._sql(_SET_STATE), (before,))
                count: int = conn.execute(self._sql(_PRUNE), (before, chunk)).rowcount
            deleted += count
            if count < chunk:
                return deleted

    def rows(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        try:
            return [dict(r) for r in self._connection().execute(self._sql(sql), params).fetchall()]
        except Exception as exc:  # (sqlite3 or psycopg errors: one kind for readers)
            raise LedgerError(f"{self.target}: cannot read the ledger: {exc}") from None

    def sync(self) -> None:
        pass


def _row(e: dict[str, Any]) -> tuple[Any, ...] | None:
    """An event record as the ``COLUMNS`` values, None (logged) if it is not one."""
    try:
        return (
            *(str(e[k]) for k in ("event_id", "event")),
            *(e.get(k) for k in ("session_id", "tool_name", "tool_use_id")),
            *(float(e[k]) for k in ("started_at", "ended_at", "duration_ms")),
            bool(e["blocked"]),
            *(e.get(k) for k in ("decision", "reason")),
            int(e["hook_count"]),
            e.get("trace_id"),
            json.dumps(e["hooks"]),
            *(e.get(k) for k in ("host", "project")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("hook ledger: a journaled event is incomplete, skipped (%s): %.200s", exc, e)
        return None


class SQLiteStore(_SQLStore):
    """A SQLite file (WAL). ``create=False`` (readers) refuses a missing or foreign file."""

    _insert = f"INSERT OR IGNORE INTO events ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    _update = "UPDATE events SET hooks = json_set(hooks, '$[' || ? || ']', json(?)) WHERE event_id = ?"

    def __init__(
        self,
        path: Path,
        *,
        create: bool = True,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        busy_timeout: float = 10.0,
    ) -> None:
        self.path, self.target = path, str(path)
        if not create and not path.is_file():
            raise LedgerError(f"{path}: not a file" if path.exists() else f"no hook ledger at {path}")
        if path.parent.name == DATA_DIR_NAME:
            make_data_dir(path.parent)  # the default place: with its .gitignore
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # FULL: every commit syncs the WAL, so a journal emptied after it loses nothing.
            self._conn.execute(f"PRAGMA synchronous={synchronous}")
            self._migrate(create)
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise LedgerError(f"{path}: not a hook ledger, or not writable ({exc})") from None
        except BaseException:
            self._conn.close()
            raise

    def _connection(self) -> sqlite3.Connection:
        return self._conn

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")  # the write lock at once: a busy database fails here
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

    def _migrate(self, create: bool) -> None:
        with self._transaction() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if version > SCHEMA_VERSION:
                raise LedgerError(
                    f"{self.path}: ledger schema version {version} is newer than this agent-server "
                    f"understands ({SCHEMA_VERSION})"
                )
            if version == 0 and (not create or tables):
                raise LedgerError(f"{self.path}: not a hook ledger (no events/hook_runs tables)")
            for statement in _SQLITE_SCHEMA if version == 0 else ():
                conn.execute(statement)
            if version == 1:  # hook results in a hook_runs table: into events.hooks
                conn.execute("ALTER TABLE events ADD COLUMN hooks TEXT NOT NULL DEFAULT '[]'")
                hooks: dict[int, list[dict[str, Any]]] = {}
                for r in conn.execute("SELECT * FROM hook_runs ORDER BY event_ref, position"):
                    hooks.setdefault(r["event_ref"], []).append({k: r[k] for k in _HOOK_COLUMNS})
                moved = [(json.dumps(h), event) for event, h in hooks.items()]
                conn.executemany("UPDATE events SET hooks = ? WHERE id = ?", moved)
                conn.execute("DROP TABLE hook_runs")
            if version in (1, 2):
                conn.execute(_SQLITE_SCHEMA[1])
            if version in (1, 2, 3):
                conn.execute("ALTER TABLE events ADD COLUMN host TEXT")
                conn.execute("ALTER TABLE events ADD COLUMN project TEXT")
            if version in (0, 1):
                for statement in _SQLITE_INDEXES:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def sync(self) -> None:
        """fsync the WAL (a replayed journal may come from a FULL ledger)."""
        try:
            fd = os.open(f"{self.path}-wal", os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return  # nothing committed since the last checkpoint, which synced the file
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def close(self) -> None:
        self._conn.close()


class PostgresStore(_SQLStore):
    """A PostgreSQL database (psycopg 3), shared by many servers."""

    _mark = "%s"
    _insert = (
        f"INSERT INTO events ({COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s, %s)"
        " ON CONFLICT (event_id) DO NOTHING"
    )
    _update = "UPDATE events SET hooks = jsonb_set(hooks, ARRAY[%s::text], %s::jsonb) WHERE event_id = %s"

    def __init__(self, url: str, *, connect_timeout: int = 5) -> None:
        self.target = redacted(check_url(url))
        import psycopg
        from psycopg.rows import dict_row

        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout, row_factory=dict_row)
        except psycopg.Error as exc:
            raise LedgerError(f"{self.target}: cannot connect: {str(exc).strip()}") from None
        try:
            with self._conn.transaction():  # one server creates the tables, the others wait
                self._conn.execute("SELECT pg_advisory_xact_lock(2225570000)")
                for statement in _PG_SCHEMA:
                    self._conn.execute(statement)
        except BaseException:
            self._conn.close()
            raise

    def _connection(self) -> Any:
        return self._conn

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._conn.transaction():
            yield self._conn

    def close(self) -> None:
        self._conn.close()
