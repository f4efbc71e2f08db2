"""Reading the ledger (``agent-server hooks log | stats``): recent events, per-hook stats."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any

from ._ledger import pending_folder, replay_journals
from ._ledger_store import LedgerError, LedgerStore, is_url, open_store
from ._outcome import BLOCKING_DECISIONS

__all__ = ["hook_stats", "open_ledger", "recent_events"]

log = logging.getLogger("agent_server.hooks.ledger")


def open_ledger(target: str | os.PathLike[str]) -> LedgerStore:
    """Open a ledger (a SQLite file or a ``postgresql://`` URL) for reading;
    :class:`LedgerError` with a clear message otherwise. A SQLite ledger's journals
    (records of a moment ago, or of a process that died) are copied in first, and a
    file from an older agent-server is upgraded."""
    # (A file not created yet whose journals hold records: its writer has not moved them in yet.)
    create = not is_url(target) and not Path(target).exists() and any(pending_folder(target).glob("*.jsonl"))
    try:
        store = open_store(target, create=create)
    except (sqlite3.Error, OSError) as exc:
        raise LedgerError(f"{target}: cannot open: {exc}") from None
    if not is_url(target):
        try:
            replay_journals(store, pending_folder(target))
        except Exception as exc:
            log.warning("hook ledger %s: records still in %s are not shown (%s)", target, pending_folder(target), exc)
    return store


def _where(
    session: str | None, event: str | None, since: float | None, ran: bool = False, blocked: bool = False
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if session is not None:  # an id, or its first characters
        clauses.append("substr(session_id, 1, ?) = ?")
        params += [len(session), session]
    if event is not None:
        clauses.append("event = ?")
        params.append(event)
    if since is not None:
        clauses.append("started_at >= ?")
        params.append(since)
    if ran:
        clauses.append("hook_count > 0")
    if blocked:
        clauses.append("blocked = ?")
        params.append(True)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _hooks(value: Any) -> list[dict[str, Any]]:
    """A row's hook results (JSON text in SQLite, already decoded from PostgreSQL)."""
    hooks: list[dict[str, Any]] = json.loads(value or "[]") if isinstance(value, str | bytes) else list(value)
    return hooks


def recent_events(
    store: LedgerStore,
    *,
    session: str | None = None,
    event: str | None = None,
    since: float | None = None,
    ran: bool = False,
    blocked: bool = False,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """The newest ``limit`` events (newest first), each with its ``hooks``; ``ran``: only
    those where a hook ran, ``blocked``: only those a hook blocked."""
    where, params = _where(session, event, since, ran, blocked)
    events = store.rows(f"SELECT * FROM events{where} ORDER BY started_at DESC, id DESC LIMIT ?", [*params, limit])
    for e in events:
        del e["id"]
        e["blocked"] = bool(e["blocked"])
        e["hooks"] = _hooks(e["hooks"])
        for position, hook in enumerate(e["hooks"]):
            hook.update(position=position, event=e["event"])
            hook.update(timed_out=bool(hook.get("timed_out")), truncated=bool(hook.get("truncated")))
    return events


def _percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile of sorted ``values`` (q in 0..100)."""
    if not values:
        return 0.0
    k = (len(values) - 1) * q / 100.0
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def hook_stats(
    store: LedgerStore, *, session: str | None = None, event: str | None = None, since: float | None = None
) -> list[dict[str, Any]]:
    """Per hook (event and name): runs, p50/p95 duration, block, error and timeout rates,
    and the hosts it ran on. Skipped hooks (after a block, or ``async``) are not runs."""
    where, params = _where(session, event, since)
    groups: dict[tuple[str, str], list[tuple[Any, Any, float, Any]]] = {}
    for row in store.rows(f"SELECT event, hooks, host FROM events{where}", params):
        for h in _hooks(row["hooks"]):
            if h.get("status") != "skipped":
                run = (h.get("status"), h.get("decision"), float(h.get("duration_ms") or 0.0), row["host"])
                groups.setdefault((row["event"], str(h.get("name"))), []).append(run)
    stats: list[dict[str, Any]] = []
    for (ev, name), runs in groups.items():
        durations = sorted(d for _, _, d, _ in runs)
        n = len(runs)
        stats.append(
            {
                "event": ev,
                "name": name,
                "runs": n,
                "p50_ms": round(_percentile(durations, 50), 3),
                "p95_ms": round(_percentile(durations, 95), 3),
                "block_rate": sum(1 for r in runs if r[1] in BLOCKING_DECISIONS) / n,
                "error_rate": sum(1 for r in runs if r[0] == "error") / n,
                "timeout_rate": sum(1 for r in runs if r[0] == "timeout") / n,
                "hosts": sorted({r[3] for r in runs if r[3]}),
            }
        )
    stats.sort(key=lambda s: (-s["runs"], s["event"], s["name"]))
    return stats


def ledger_hint(path: Path) -> str:
    """What a user should do when there is no ledger at ``path``."""
    return (
        f"no hook ledger at {path}: a server records hooks in <data dir>/hooks.db (by default "
        "<project>/.agent-server/hooks.db, or $AGENT_SERVER_DATA_DIR/hooks.db). Run this in the "
        "server's project folder, or pass --project-dir DIR, --data-dir DIR, --db FILE or --ledger-url URL"
    )
