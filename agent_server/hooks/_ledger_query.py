"""Reading the ledger (``agent-server hooks log | stats``): recent events, per-hook stats."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import statistics
from pathlib import Path
from typing import Any

from ._ledger import pending_folder
from ._ledger_store import LedgerError, LedgerStore, is_url, open_store, replay
from ._outcome import BLOCKING_DECISIONS

__all__ = ["hook_stats", "open_ledger", "recent_events"]

log = logging.getLogger("agent_server.hooks.ledger")


def open_ledger(target: str | os.PathLike[str]) -> LedgerStore:
    """Open a ledger (a SQLite file or a ``postgresql://`` URL) to read, else
    :class:`LedgerError`. A SQLite file's journals (records of a moment ago, or of a
    process that died) are copied in first."""
    pending = None if is_url(target) else pending_folder(target)
    try:  # (a file not created yet whose journals hold records: create it)
        store = open_store(target, create=bool(pending and not Path(target).exists() and any(pending.glob("*.jsonl"))))
    except (sqlite3.Error, OSError) as exc:
        raise LedgerError(f"{target}: cannot open: {exc}") from None
    try:
        if pending:
            replay(store, pending)
    except Exception as exc:
        log.warning("hook ledger %s: records still in %s are not shown (%s)", target, pending, exc)
    return store


def _select(store: LedgerStore, what: str, tail: str = "", **where: Any) -> list[dict[str, Any]]:
    """Events matching ``where``: ``session`` (an id or its start), ``event``, ``since``,
    ``ran`` (a hook ran), ``blocked``; their hook results decoded."""
    tests = {"session": "substr(session_id, 1, ?) = ?", "event": "event = ?", "since": "started_at >= ?"}
    tests |= {"ran": "hook_count > 0", "blocked": "blocked > 0"}
    clauses: list[str] = []
    params: list[Any] = []
    for key, value in where.items():
        if value is not None and value is not False:
            clauses.append(tests[key])
            params += [len(value), value] if key == "session" else [value] * tests[key].count("?")
    sql = f"SELECT {what} FROM events" + (" WHERE " + " AND ".join(clauses) if clauses else "")
    rows = store.rows(sql + tail, params)
    for row in rows:
        row["hooks"] = json.loads(row["hooks"]) if isinstance(row["hooks"], str) else row["hooks"]
    return rows


def recent_events(store: LedgerStore, *, limit: int = 20, **where: Any) -> list[dict[str, Any]]:
    """The newest ``limit`` events (newest first), each with its ``hooks`` (filters as
    ``hooks log`` takes them: ``session``, ``event``, ``since``, ``ran``, ``blocked``)."""
    events = _select(store, "*", f" ORDER BY started_at DESC, id DESC LIMIT {int(limit)}", **where)
    for e in events:
        e.pop("id")
        e["blocked"] = bool(e["blocked"])
        for position, hook in enumerate(e["hooks"]):
            hook |= {"position": position, "event": e["event"], "timed_out": bool(hook.get("timed_out"))}
            hook["truncated"] = bool(hook.get("truncated"))
    return events


def hook_stats(store: LedgerStore, **where: Any) -> list[dict[str, Any]]:
    """Per hook (event and name): runs, p50/p95 duration, block, error and timeout rates and
    the hosts it ran on. A skipped hook (after a block, or ``async``) is not a run."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in _select(store, "event, hooks, host", **where):
        for h in row["hooks"]:
            if h.get("status") != "skipped":
                groups.setdefault((row["event"], str(h.get("name"))), []).append(h | {"host": row["host"]})
    stats = []
    for (event, name), runs in groups.items():
        n = len(runs)
        durations = [float(h.get("duration_ms") or 0.0) for h in runs]
        # 5 % steps; quantiles needs two points, so a single run counts twice.
        cuts = statistics.quantiles(durations * (2 if n == 1 else 1), n=20, method="inclusive")
        stats.append(
            {
                "event": event,
                "name": name,
                "runs": n,
                "p50_ms": round(cuts[9], 3),
                "p95_ms": round(cuts[18], 3),
                "block_rate": sum(h.get("decision") in BLOCKING_DECISIONS for h in runs) / n,
                "error_rate": sum(h.get("status") == "error" for h in runs) / n,
                "timeout_rate": sum(h.get("status") == "timeout" for h in runs) / n,
                "hosts": sorted({h["host"] for h in runs if h["host"]}),
            }
        )
    return sorted(stats, key=lambda s: (-s["runs"], s["event"], s["name"]))
