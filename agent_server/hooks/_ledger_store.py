"""Where the ledger's records end up: a SQLite file, or a PostgreSQL database that many
servers share. One row per fired event, its hook results a JSON array in that row."""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._datadir import DATA_DIR_NAME, make_data_dir
from ._errors import HookError
from ._ledger_journal import Update, decode

__all__ = ["LedgerError", "LedgerStore", "PostgresStore", "SQLiteStore", "check_url", "is_url", "open_store", "replay"]

log = logging.getLogger("agent_server.hooks.ledger")

#: ``PRAGMA user_version`` of the SQLite schema this code writes (5: tool_input).
SCHEMA_VERSION = 5
_INSERT = """INSERT INTO events (event_id, event, session_id, tool_name, tool_use_id, started_at, ended_at,
    duration_ms, blocked, decision, reason, hook_count, trace_id, hooks, host, project, tool_input)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"""
_SET_HOOKS = "UPDATE events SET hooks = ? WHERE event_id = ?"  # (an async hook's final result in its place)
# A prune's cutoff is kept: a journal replayed later must not bring a pruned event back.
_CUTOFF = "SELECT value FROM ledger_state WHERE key = 'pruned_before'"
_SET_CUTOFF = """INSERT INTO ledger_state (key, value) VALUES ('pruned_before', ?) ON CONFLICT (key) DO UPDATE
    SET value = CASE WHEN excluded.value > ledger_state.value THEN excluded.value ELSE ledger_state.value END"""
# The schema, in each store's types.
_EVENTS = """CREATE TABLE IF NOT EXISTS events (id {id}, event_id TEXT NOT NULL, event TEXT NOT NULL,
    session_id TEXT, tool_name TEXT, tool_use_id TEXT, started_at {real} NOT NULL, ended_at {real} NOT NULL,
    duration_ms {real} NOT NULL, blocked INTEGER NOT NULL, decision TEXT, reason TEXT,
    hook_count INTEGER NOT NULL, trace_id TEXT, hooks {json} NOT NULL, host TEXT, project TEXT, tool_input TEXT)"""
_SCHEMA = (
    _EVENTS,
    "CREATE TABLE IF NOT EXISTS ledger_state (key TEXT PRIMARY KEY, value {real})",
    "CREATE UNIQUE INDEX IF NOT EXISTS events_event_id ON events (event_id)",  # (a record replayed twice: once)
    "CREATE INDEX IF NOT EXISTS events_started_at ON events (started_at)",
)
# SQL readers of a SQLite ledger get one row per hook result, with these of its fields.
_HOOK_FIELDS = "name command source matcher status exit_code started_at duration_ms decision reason error timed_out"
_HOOK_FIELDS += " stdout stderr truncated span_id"
_HOOK_RUNS = (
    "CREATE VIEW hook_runs AS SELECT e.id AS event_ref, CAST(j.key AS INTEGER) AS position, e.event, "
    + ", ".join(f"json_extract(j.value, '$.{field}') AS {field}" for field in _HOOK_FIELDS.split())
    + " FROM events e, json_each(e.hooks) j"
)


class LedgerError(HookError):
    """The ledger is missing, unreachable, not a hook ledger, or has a newer schema."""


def is_url(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL database rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def redacted(url: str) -> str:
    """``url`` with its password replaced by ``***``."""
    password = urlsplit(url).password if is_url(url) else None
    return url.replace(f":{password}@", ":***@", 1) if password else url


def check_url(url: str) -> str:
    """``url`` if psycopg can use it, else :class:`LedgerError` (naming it without its password)."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        if not is_url(url):
            raise ValueError("not a postgresql:// URL")
        urlsplit(url).port  # noqa: B018  (a port that is not a number: ValueError)
        conninfo_to_dict(url)
    except ImportError:
        raise LedgerError(f"{redacted(url)}: a PostgreSQL ledger needs psycopg (the postgres extra)") from None
    except Exception as exc:
        raise LedgerError(
            f"{redacted(url)}: not a valid PostgreSQL URL ({str(exc).replace(url, '…').strip()})"
        ) from None
    return url


def open_store(target: str | os.PathLike[str], *, create: bool = True, **sqlite_options: Any) -> LedgerStore:
    """A PostgreSQL store for a ``postgresql://`` URL, else a SQLite file."""
    return PostgresStore(str(target)) if is_url(target) else SQLiteStore(Path(target), create=create, **sqlite_options)


class LedgerStore:
    """A ledger's database (one statement set, in each store's placeholders); subclass one
    to watch or change what a ledger writes (``HookLedger(store=...)``)."""

    target: str  # for messages (a URL without its password)
    _conn: Any
    _mark = "?"

    def _transaction(self) -> contextlib.AbstractContextManager[Any]:
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self._mark)

    def write(self, events: Sequence[dict[str, Any]], updates: Sequence[Update]) -> None:
        """Insert events (one already stored, or older than a prune, is skipped), then apply
        async hooks' results, in one transaction."""
        with self._transaction() as conn:
            [cutoff] = [r["value"] for r in conn.execute(_CUTOFF).fetchall()] or [0.0]
            conn.cursor().executemany(self._sql(_INSERT), [r for e in events if (r := _row(e)) and r[5] >= cutoff])
            for event_id, position, hook in updates:  # (rare: only async hooks)
                for row in conn.execute(self._sql("SELECT hooks FROM events WHERE event_id = ?"), (event_id,)):
                    hooks = json.loads(row["hooks"]) if isinstance(row["hooks"], str) else row["hooks"]
                    hooks[position : position + 1] = [hook]
                    conn.execute(self._sql(_SET_HOOKS), (json.dumps(hooks), event_id))

    def prune(self, before: float, chunk: int) -> int:
        """Delete the events that started before ``before``, ``chunk`` per transaction."""
        deleted, count = 0, chunk
        while count == chunk:
            with self._transaction() as conn:
                conn.execute(self._sql(_SET_CUTOFF), (before,))
                sql = "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE started_at < ? LIMIT ?)"
                count = conn.execute(self._sql(sql), (before, chunk)).rowcount
            deleted += count
        return deleted

    def rows(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        """A read query (``?`` placeholders) as dicts."""
        try:
            return [dict(r) for r in self._conn.execute(self._sql(sql), params).fetchall()]
        except Exception as exc:  # (sqlite3 or psycopg errors: one kind for readers)
            raise LedgerError(f"{self.target}: cannot read the ledger: {exc}") from None

    def sync(self) -> None:
        """Put every committed transaction on disk."""

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


def _row(e: dict[str, Any]) -> tuple[Any, ...] | None:
    """A journaled event as column values; None (logged) if it is not one."""
    try:
        return (
            *(str(e["event_id"]), str(e["event"]), e.get("session_id"), e.get("tool_name"), e.get("tool_use_id")),
            *(float(e["started_at"]), float(e["ended_at"]), float(e["duration_ms"]), int(bool(e["blocked"]))),
            *(e.get("decision"), e.get("reason"), int(e["hook_count"]), e.get("trace_id"), json.dumps(e["hooks"])),
            *(e.get("host"), e.get("project"), e.get("tool_input")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("hook ledger: a journaled event is incomplete, skipped (%s): %.200s", exc, e)
        return None


class SQLiteStore(LedgerStore):
    """A SQLite file (WAL). ``create=False`` (readers) refuses a missing or foreign file;
    ``synchronous="FULL"`` syncs every commit (a journal emptied after it loses nothing)."""

    def __init__(
        self, path: Path, *, create: bool = True, synchronous: str = "NORMAL", busy_timeout: float = 10
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
            self._conn.execute(f"PRAGMA synchronous={'FULL' if synchronous == 'FULL' else 'NORMAL'}")
            self._check_schema(create)
        except BaseException as exc:
            self._conn.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise LedgerError(f"{path}: not a hook ledger, or not writable ({exc})") from None
            raise

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")  # the write lock at once: a busy database fails here
        with self._conn:  # (commits, or rolls back on an exception)
            yield self._conn

    def _check_schema(self, create: bool) -> None:
        types = {"id": "INTEGER PRIMARY KEY", "real": "REAL", "json": "TEXT"}
        with self._transaction() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0 and (not create or conn.execute("SELECT name FROM sqlite_master").fetchall()):
                raise LedgerError(f"{self.path}: not a hook ledger (no events/hook_runs tables)")
            if version not in (0, SCHEMA_VERSION):
                raise LedgerError(
                    f"{self.path}: ledger schema version {version} is newer than this agent-server understands"
                    if version > SCHEMA_VERSION
                    else f"{self.path}: ledger schema version {version} is from an early development build "
                    "of agent-server 0.1.0 and cannot be read: delete the file (a new ledger is created)"
                )
            if version == 0:
                for statement in (*_SCHEMA, _HOOK_RUNS):
                    conn.execute(statement.format(**types))
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def sync(self) -> None:
        """fsync the WAL (a replayed journal may come from a FULL ledger)."""
        with contextlib.suppress(FileNotFoundError), open(f"{self.path}-wal", "rb") as wal:  # (none: nothing new)
            os.fsync(wal.fileno())


class PostgresStore(LedgerStore):
    """A PostgreSQL database (psycopg 3), shared by many servers."""

    _mark = "%s"

    def __init__(self, url: str, *, connect_timeout: int = 5) -> None:
        self.target = redacted(check_url(url))
        import psycopg
        from psycopg.rows import dict_row

        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout, row_factory=dict_row)
        except psycopg.Error as exc:
            raise LedgerError(f"{self.target}: cannot connect: {str(exc).strip()}") from None
        types = {"id": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "real": "DOUBLE PRECISION", "json": "JSONB"}
        try:
            with self._transaction():  # one server creates the tables, the others wait
                self._conn.execute("SELECT pg_advisory_xact_lock(2225570000)")
                for statement in _SCHEMA:
                    self._conn.execute(statement.format(**types))
                self._conn.execute("ALTER TABLE events ADD COLUMN IF NOT EXISTS tool_input TEXT")  # (older tables)
        except BaseException:
            self._conn.close()
            raise

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._conn.transaction():
            yield self._conn


def replay(store: LedgerStore, folder: Path, skip: Path | None = None) -> None:
    """Copy every journal in ``folder`` (but ``skip``) into ``store``, removing those whose
    owner is gone (a record copied twice is stored once: event ids are unique)."""
    for path in sorted(set(folder.glob("*.jsonl")) - {skip}):  # (none if there is no folder)
        with contextlib.suppress(FileNotFoundError), open(path, "rb") as f:  # (its owner just removed it)
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                orphan = True
            except OSError:
                orphan = False
            data = f.read()
            if lines := data[: data.rfind(b"\n") + 1]:
                store.write(*decode(lines, path))
            if orphan:
                store.sync()  # on disk before the journal's copy goes
                os.unlink(path)
