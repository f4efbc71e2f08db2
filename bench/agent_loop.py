#!/usr/bin/env python3
"""Benchmark: the latency a tool call gains from 1, 5 and 10 no-op PreToolUse hooks.

The agent server's real agent loop runs with the ``anthropic`` backend (official SDK,
streaming) against a fake Messages API served by uvicorn on 127.0.0.1 in this process;
the model asks for one Bash call (``true``) per turn. For each hook count the time from the
tool call arriving to its result being ready is measured, paired with a 0-hook run in the
same round; the figure is the median of the per-round differences (Claude Code 2.1.330 on
a 2-core machine: +8.7 / +14.1 / +25.0 ms, contract §8). Target: at most a fifth of that.

    .venv/bin/python bench/agent_loop.py [--runs 21] [--order sequential|parallel|both] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from _common import open_session, paired_diffs, rotated, write_project

from agent_server.server import SessionManager
from agent_server.server._platform import install_pidfd_child_watcher
from agent_server.server.testing import FakeMessagesAPI, serve_app

COUNTS = (1, 5, 10)
CLAUDE_CODE_MS = {1: 8.7, 5: 14.1, 10: 25.0}


def make_project(base: Path, hooks: int) -> Path:
    """A project with ``hooks`` distinct no-op PreToolUse hooks (identical command
    strings would run once, so each is ``true #i``)."""
    entries = [{"type": "command", "command": f"true #{i}"} for i in range(hooks)]
    return write_project(
        base / f"hooks-{hooks}", {"PreToolUse": [{"matcher": "Bash", "hooks": entries}]} if hooks else {}
    )


async def one_turn(manager: SessionManager, sid: str) -> tuple[float, float]:
    """Run one prompt; returns (tool call → tool result, whole turn) in ms."""
    session = manager.get(sid)
    t0 = time.perf_counter()
    start = session.events.last_seq
    turn = session.submit("$ true\nok")
    await turn.done.wait()
    total = (time.perf_counter() - t0) * 1000
    if turn.result.get("status") != "completed":
        raise RuntimeError(f"turn did not complete: {turn.result}")
    events = session.events.history(start)
    call = next(e for e in events if e["type"] == "tool_call")
    result = next(e for e in events if e["type"] == "tool_result")
    return (result["mono"] - call["mono"]) * 1000, total


async def bench(order: str, runs: int, warmup: int, api_url: str, base: Path) -> dict[str, Any]:
    counts = (0, *COUNTS)
    async with AsyncExitStack() as stack:
        managers: dict[int, tuple[SessionManager, str]] = {}
        for n in counts:
            manager, sid, _ = await open_session(stack, make_project(base / order, n), api_url, order)
            managers[n] = (manager, sid)
        samples: dict[int, list[float]] = {n: [] for n in counts}
        totals: dict[int, list[float]] = {n: [] for n in counts}
        for i in range(warmup + runs):
            for n in rotated(counts, i):
                tool_ms, total_ms = await one_turn(*managers[n])
                if i >= warmup:
                    samples[n].append(tool_ms)
                    totals[n].append(total_ms)
    rows = []
    for n in COUNTS:
        diffs = paired_diffs(samples[n], samples[0])
        turn_diffs = paired_diffs(totals[n], totals[0])
        added = statistics.median(diffs)
        rows.append(
            {
                "hooks": n,
                "added_ms": round(added, 2),
                "added_turn_ms": round(statistics.median(turn_diffs), 2),
                "claude_code_ms": CLAUDE_CODE_MS[n],
                "target_ms": round(CLAUDE_CODE_MS[n] / 5, 2),
                "meets_target": added <= CLAUDE_CODE_MS[n] / 5,
            }
        )
    return {
        "order": order,
        "runs": runs,
        "baseline_tool_ms": round(statistics.median(samples[0]), 2),
        "baseline_turn_ms": round(statistics.median(totals[0]), 2),
        "rows": rows,
    }


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    orders = ["sequential", "parallel"] if args.order == "both" else [args.order]
    if not args.no_pidfd:
        install_pidfd_child_watcher()  # as `agent-server serve` does
    api = FakeMessagesAPI()
    results = []
    with tempfile.TemporaryDirectory(prefix="agent-server-bench-") as tmp:
        async with serve_app(api.app) as api_url:
            for order in orders:
                results.append(await bench(order, args.runs, args.warmup, api_url, Path(tmp)))
    return results


def _patch_monotonic_timestamps() -> None:
    """Stamp every event with a perf_counter reading (``mono``) for sub-ms precision."""
    from agent_server.server import _events

    original = _events.EventLog.emit

    def emit(self: _events.EventLog, type_: str, **data: Any) -> dict[str, Any]:
        return original(self, type_, mono=time.perf_counter(), **data)

    _events.EventLog.emit = emit  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="paired runs per hook count (default 21)")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured rounds first (default 3)")
    parser.add_argument(
        "--order",
        choices=["sequential", "parallel", "both"],
        default="both",
        help="hook order mode(s) to measure (default both)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--no-pidfd", action="store_true", help="keep asyncio's thread-per-subprocess child watcher (Python 3.11)"
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    _patch_monotonic_timestamps()
    results = anyio.run(main_async, args)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"Added latency per tool call from N no-op PreToolUse hooks (`true`), median of "
        f"{args.runs} paired runs vs 0 hooks; anthropic backend -> fake Messages API on 127.0.0.1"
    )
    print(f"{'order':<11} {'hooks':>5} {'ours':>9} {'whole turn':>11} {'Claude Code':>12} {'target 1/5':>11}  ok")
    for result in results:
        for row in result["rows"]:
            print(
                f"{result['order']:<11} {row['hooks']:>5} {row['added_ms']:>+8.2f}ms "
                f"{row['added_turn_ms']:>+10.2f}ms {row['claude_code_ms']:>+11.1f}ms "
                f"{row['target_ms']:>10.2f}ms  {'yes' if row['meets_target'] else 'NO'}"
            )
        print(
            f"{'':<11} (0-hook tool call {result['baseline_tool_ms']:.2f} ms, "
            f"whole turn {result['baseline_turn_ms']:.2f} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
