"""``agent-server hooks log | stats | prune | explain``: read and trim the audit ledger,
explain matching.

Registered by :func:`agent_server.hooks._cli.add_hooks_commands`; the verdicts of
``explain`` come from :func:`._matching.explain`. See docs/observability.md for examples.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ._cli_common import EXIT_OK, die, hidden_alias, load_project_config, project_arg, read_payload
from ._cli_permissions import explain_permissions, explain_permissions_lines
from ._ledger import LedgerError, default_ledger_path
from ._ledger_query import hook_stats, open_ledger, recent_events
from ._ledger_store import LedgerStore
from ._matching import explain
from ._spec import KNOWN_EVENTS, TOOL_EVENTS
from ._trust import HookTrust

__all__ = [
    "add_observe_commands",
    "cmd_explain",
    "cmd_log",
    "cmd_prune",
    "cmd_stats",
    "parse_since",
]

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_since(value: str, now: float | None = None) -> float:
    """A ``--since`` value as Unix time: an ISO time (local unless it has an offset) or
    an age such as ``90s``, ``10m``, ``2h``, ``1d``, ``1w``. ValueError names the value."""
    m = _AGE.match(value)
    if m:
        return (time.time() if now is None else now) - float(m.group(1)) * _UNIT_SECONDS[m.group(2).lower()]
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(
            f"--since {value!r}: expected an ISO time such as 2025-06-01T14:30 or an age such as 10m, 2h, 1d"
        ) from None
    if moment.tzinfo is None:
        moment = moment.astimezone()  # local time
    return moment.timestamp()


def _local(ts: float | None) -> str:
    if ts is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def _iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts).astimezone().isoformat(timespec="milliseconds")


def _short(text: str | None, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _session(session: str | None) -> str:
    """A session id short enough for a table: its first 8 characters (``--session``
    accepts such a prefix)."""
    if not session:
        return "-"
    return session if len(session) <= 12 else session[:8]


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    lines = []
    for row in (headers, *rows):
        cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return lines


def _db_path(args: argparse.Namespace) -> Path | str:
    """The ledger to read: --ledger, --ledger-url, $AGENT_SERVER_LEDGER_URL, then the hooks.db
    in the server's data folder (--data-dir, $AGENT_SERVER_DATA_DIR, else the project's)."""
    if getattr(args, "db", None):
        return Path(args.db)
    url = getattr(args, "ledger_url", None) or os.environ.get("AGENT_SERVER_LEDGER_URL")
    if url:
        return str(url)
    data_dir = getattr(args, "data_dir", None)
    if data_dir is None and args.project_dir is None:
        data_dir = os.environ.get("AGENT_SERVER_DATA_DIR")
    if data_dir:
        return Path(data_dir).expanduser() / "hooks.db"
    return default_ledger_path(Path(args.project_dir or os.environ.get("AGENT_SERVER_PROJECT_DIR") or os.getcwd()))


def ledger_hint(path: Path) -> str:
    """What a user should do when there is no ledger at ``path``."""
    return (
        f"no hook ledger at {path}: a server records hooks in <data dir>/hooks.db (by default "
        "<project>/.agent-server/hooks.db, or $AGENT_SERVER_DATA_DIR/hooks.db). Run this in the "
        "server's project folder, or pass --project-dir DIR, --data-dir DIR, --ledger FILE or --ledger-url URL"
    )


def warn_unknown_event(event: str | None) -> None:
    """A warning on stderr for an event name no hook can have, with the closest one."""
    if event is None or event in KNOWN_EVENTS:
        return
    close = [e for e in KNOWN_EVENTS if e.lower() == event.lower()]
    close = close or difflib.get_close_matches(event, sorted(KNOWN_EVENTS), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else "known events: " + ", ".join(sorted(KNOWN_EVENTS))
    print(f"warning: unknown event {event!r}: {hint}", file=sys.stderr)


def _filters(args: argparse.Namespace) -> dict[str, Any]:
    warn_unknown_event(args.event)
    since = None
    if args.since is not None:
        try:
            since = parse_since(args.since)
        except ValueError as exc:
            raise SystemExit(die(str(exc))) from None
    return {"session": args.session, "event": args.event, "since": since}


def _open(args: argparse.Namespace) -> LedgerStore:
    target = _db_path(args)
    try:
        return open_ledger(target)
    except LedgerError as exc:
        if isinstance(target, Path) and not target.exists():
            raise SystemExit(die(ledger_hint(target))) from None
        raise SystemExit(die(str(exc))) from None


# -- log ---------------------------------------------------------------------------


def _result_text(event: dict[str, Any]) -> str:
    if event["blocked"]:
        return f"BLOCKED ({event['decision']})" if event["decision"] else "BLOCKED"
    return event["decision"] or "allowed"


def cmd_log(args: argparse.Namespace) -> int:
    """Print the most recent fired events (oldest first) with each hook's result."""
    if args.limit < 1:
        return die(f"--limit {args.limit}: must be at least 1")
    filters = _filters(args)
    conn = _open(args)
    try:
        events = recent_events(conn, limit=args.limit, ran=args.ran, blocked=args.blocked, **filters)
    except LedgerError as exc:
        return die(str(exc))
    finally:
        conn.close()
    events.reverse()  # oldest first, like tail: the newest ends up next to the prompt
    if args.json:
        for e in events:
            e["time"] = _iso(e["started_at"])
        print(json.dumps(events, indent=2))
        return EXIT_OK
    if not events:
        narrowed = args.ran or args.blocked or any(v is not None for v in filters.values())
        print("no events recorded" + (" that match" if narrowed else ""))
        return EXIT_OK
    hosts = len({(e.get("host"), e.get("project")) for e in events}) > 1  # (a shared ledger)
    headers = ("TIME", "EVENT", "SESSION", "TOOL", "RESULT", "MS", "HOOKS") + (("HOST",) if hosts else ())
    rows = [
        (
            _local(e["started_at"]),
            e["event"],
            _session(e["session_id"]),
            e["tool_name"] or "-",
            _result_text(e),
            f"{e['duration_ms']:.1f}",
            str(e["hook_count"]),
        )
        + ((f"{e.get('host') or '-'}:{e.get('project') or '-'}",) if hosts else ())
        for e in events
    ]
    lines = _table(headers, rows, right={5, 6})
    print(lines[0])
    for line, e in zip(lines[1:], events, strict=True):
        print(line)
        if e["trace_id"]:
            print(f"    trace {e['trace_id']}")
        if e["tool_input"]:
            print(f"    input {_short(e['tool_input'], 200)}")
        for h in e["hooks"]:
            code = "-" if h["exit_code"] is None else str(h["exit_code"])
            note = h["reason"] or h["error"] or ""
            ms = "-" if h["status"] == "skipped" else f"{h['duration_ms']:.1f}"
            print(
                f"    {h['status']:<8} exit {code:>3} {ms:>9} ms  "
                f"{_short(h['name'], 60)}" + (f"  — {_short(note, 100)}" if note else "")
            )
    return EXIT_OK


# -- stats -------------------------------------------------------------------------


def _pct(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def cmd_stats(args: argparse.Namespace) -> int:
    """Per hook: runs, p50/p95 duration, block, error and timeout rates."""
    filters = _filters(args)
    conn = _open(args)
    try:
        stats = hook_stats(conn, **filters)
    except LedgerError as exc:
        return die(str(exc))
    finally:
        conn.close()
    if args.json:
        print(json.dumps(stats, indent=2))
        return EXIT_OK
    if not stats:
        print("no hook runs recorded" + (" that match" if any(v is not None for v in filters.values()) else ""))
        return EXIT_OK
    headers = ("EVENT", "HOOK", "RUNS", "P50 MS", "P95 MS", "BLOCK", "ERROR", "TIMEOUT")
    rows = [
        (
            s["event"],
            _short(s["name"], 50),
            str(s["runs"]),
            f"{s['p50_ms']:.1f}",
            f"{s['p95_ms']:.1f}",
            _pct(s["block_rate"]),
            _pct(s["error_rate"]),
            _pct(s["timeout_rate"]),
        )
        for s in stats
    ]
    print("\n".join(_table(headers, rows, right={2, 3, 4, 5, 6, 7})))
    return EXIT_OK


# -- prune -------------------------------------------------------------------------


def cmd_prune(args: argparse.Namespace) -> int:
    """Delete the events (and their hook results) older than ``--older-than``."""
    try:
        before = parse_since(args.older_than)
    except ValueError as exc:
        return die(str(exc).replace("--since", "--older-than", 1))
    store = _open(args)  # a clear error for a missing or foreign ledger; replays journals
    when = _local(before)
    try:
        if args.dry_run:
            [count] = store.rows("SELECT count(*) AS n FROM events WHERE started_at < ?", [before])[0].values()
            print(f"{count} events older than {when} would be deleted from {store.target}")
            return EXIT_OK
        deleted = store.prune(before, 5000)
    except Exception as exc:  # (sqlite3 or psycopg errors, a full disk...)
        return die(f"{store.target}: cannot delete from the ledger: {exc}")
    finally:
        store.close()
    print(f"deleted {deleted} events older than {when} from {store.target}")
    return EXIT_OK


# -- explain -----------------------------------------------------------------------


def cmd_explain(args: argparse.Namespace) -> int:
    """For every hook configured for EVENT: would it run for the payload, and if not why."""
    warn_unknown_event(args.event)
    config = load_project_config(args)
    missing = None
    if args.event in TOOL_EVENTS:  # (other events match without one)
        missing = (
            f"hooks explain {args.event}: no payload: pass --payload FILE or pipe the event's JSON on stdin, e.g. "
            f"""echo '{{"tool_name": "Bash", "tool_input": {{"command": "ls"}}}}' | """
            f"agent-server hooks explain {args.event}"
        )
    payload = read_payload(args, Path(args.project_dir), missing=missing)
    verdicts = explain(config, args.event, payload, untrusted=HookTrust(config).reason)
    permissions = explain_permissions(config, payload, Path(args.project_dir).resolve())
    if args.json:
        data: dict[str, Any] = {"event": args.event, "hooks": [v.to_dict() for v in verdicts]}
        if permissions is not None:
            data["permissions"] = permissions
        print(json.dumps(data, indent=2))
        return EXIT_OK
    subject = args.event
    tool = payload.get("tool_name")
    if isinstance(tool, str):
        subject += f" ({tool})"
    print(f"{subject}: {sum(v.runs for v in verdicts)} of {len(verdicts)} configured hook(s) would run")
    for v in verdicts:
        state = "RUN " if v.runs else "SKIP"
        print(f"  {state} {v.name + ': ' if v.name else ''}{_short(v.command, 70)}")
        print(f"       {v.source} {v.location}")
        if not v.runs:
            print(f"       {v.why}" if v.kind == "untrusted" else f"       {v.kind}: {v.why}")
        if v.note:
            print(f"       note: {v.note}")
    if not verdicts:
        print(f"  no hooks are configured for {args.event}")
    for line in explain_permissions_lines(permissions):
        print(line)
    return EXIT_OK


# -- registration ------------------------------------------------------------------


def _ledger_file_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--project-dir",
        metavar="DIR",
        help="project folder (default: cwd); the ledger is <project>/.agent-server/hooks.db",
    )
    p.add_argument("--data-dir", metavar="DIR", help="the server's data folder (AGENT_SERVER_DATA_DIR): its hooks.db")
    hidden_alias(p, "--project", "project_dir")
    # --ledger PATH, as `hooks fire --ledger PATH` spells the same file.
    p.add_argument("--ledger", dest="db", metavar="PATH", help="ledger file (overrides --project-dir)")
    hidden_alias(p, "--db", "db")
    p.add_argument(
        "--ledger-url",
        metavar="URL",
        help="a PostgreSQL ledger shared by several servers (default: $AGENT_SERVER_LEDGER_URL)",
    )


def _ledger_args(p: argparse.ArgumentParser) -> None:
    _ledger_file_args(p)
    p.add_argument("--session", help="only this session (an id or its first characters)")
    p.add_argument("--event", help="only this event, e.g. PreToolUse")
    p.add_argument("--since", metavar="T", help="only events since T: ISO time (2025-06-01T14:30) or age (10m, 2h, 1d)")
    p.add_argument("--json", action="store_true", help="print JSON")


def add_observe_commands(hsub: Any) -> None:
    """Add ``log``, ``stats``, ``prune`` and ``explain`` to the ``hooks`` subcommands."""
    p = hsub.add_parser("log", help="recent fired events and hook runs from the audit ledger")
    _ledger_args(p)
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N events (default 20)")
    p.add_argument("--ran", action="store_true", help="only events where a hook ran")
    p.add_argument("--blocked", action="store_true", help="only events a hook blocked")
    p.set_defaults(func=cmd_log)

    p = hsub.add_parser(
        "stats", help="per hook: runs, p50/p95 duration, block/error/timeout rates (from the audit ledger)"
    )
    _ledger_args(p)
    p.set_defaults(func=cmd_stats)

    p = hsub.add_parser("prune", help="delete old events from the audit ledger")
    p.add_argument(
        "--older-than",
        required=True,
        metavar="T",
        help="delete events that started before T: an age (30d, 12h, 2w) or an ISO time (2025-06-01T14:30)",
    )
    _ledger_file_args(p)
    p.add_argument("--dry-run", action="store_true", help="only count what would be deleted")
    p.set_defaults(func=cmd_prune)

    p = hsub.add_parser("explain", help="would each configured hook run for a payload, and why not")
    p.add_argument("event")
    project_arg(p)
    p.add_argument("--payload", metavar="FILE", help="payload JSON file (default: stdin)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_explain)
