"""Cost of observability: fire() with tracing + metrics + ledger on, against all off.

    .venv/bin/python bench/observability.py [--rounds N] [--sessions N]

One project, one ``true`` hook on PreToolUse (``--command`` picks another). Runners on the same event loop:

* **off** — the default runner: no tracer or meter provider, no ledger (OTEL_* unset, so
  the OpenTelemetry API is a no-op);
* **telemetry** — an SDK ``TracerProvider`` whose spans go through a ``BatchSpanProcessor``
  to an exporter that drops them, and an SDK ``MeterProvider`` with an in-memory reader;
* **ledger** — a ``HookLedger`` (WAL, ``synchronous=NORMAL``) in a temporary folder;
* **on** — telemetry + ledger (the gated case);
* **on, FULL** — the same with ``synchronous=FULL`` (an fsync per group commit).

Rounds are interleaved (each round runs every runner once, alternating the order) so
drift affects all alike. Cases: one fire at a time; and ``--sessions`` concurrent
sessions each firing (latency per fire). Prints medians and ratios to **off**; exits 1
if on/off is above 1.10 in either case.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from agent_server.hooks import HookLedger, HookRunner

PAYLOAD = {
    "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
    "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Bash",
    "tool_input": {"command": "ls"}, "tool_use_id": "toolu_bench",
}
TARGET = 1.10


class DropExporter(SpanExporter):
    """Accepts spans and drops them (measures our cost, not a collector's)."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


def make_project(root: Path, command: str = "true") -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(json.dumps(
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}))
    return root


async def one(runner: HookRunner) -> float:
    t0 = time.perf_counter()
    await runner.fire("PreToolUse", PAYLOAD)
    return (time.perf_counter() - t0) * 1000.0


async def burst(runner: HookRunner, sessions: int, per_session: int) -> list[float]:
    """``sessions`` tasks fire concurrently; returns every fire's latency (ms)."""
    latencies: list[float] = []

    async def session(i: int) -> None:
        payload = {**PAYLOAD, "session_id": f"bench-{i}"}
        for _ in range(per_session):
            t0 = time.perf_counter()
            await runner.fire("PreToolUse", payload)
            latencies.append((time.perf_counter() - t0) * 1000.0)

    async with anyio.create_task_group() as tg:
        for i in range(sessions):
            tg.start_soon(session, i)
    return latencies


async def main(rounds: int, sessions: int, command: str) -> int:
    for name in [n for n in os.environ if n.startswith("OTEL_")]:
        del os.environ[name]
    exporter = DropExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    telemetry: dict[str, Any] = {"tracer_provider": tracer_provider,
                                 "meter_provider": meter_provider}
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp) / "p", command)
        ledgers = {name: HookLedger(Path(tmp) / f"{name}.db", synchronous=sync)
                   for name, sync in (("ledger", "NORMAL"), ("on", "NORMAL"),
                                      ("on, FULL", "FULL"))}
        options: dict[str, dict[str, Any]] = {
            "off": {},
            "telemetry": telemetry,
            "ledger": {"ledger": ledgers["ledger"]},
            "on": {**telemetry, "ledger": ledgers["on"]},
            "on, FULL": {**telemetry, "ledger": ledgers["on, FULL"]},
        }
        single: dict[str, list[float]] = {k: [] for k in options}
        concurrent: dict[str, list[float]] = {k: [] for k in options}
        async with contextlib.AsyncExitStack() as stack:
            runners = {k: await stack.enter_async_context(
                HookRunner.from_project(project, user_settings=None, **v))
                for k, v in options.items()}
            order = list(runners)
            for r in runners.values():  # warm-up
                for _ in range(10):
                    await one(r)
            for i in range(rounds):
                for name in order if i % 2 == 0 else reversed(order):
                    single[name].append(await one(runners[name]))
            for i in range(max(rounds // 10, 3)):
                for name in order if i % 2 == 0 else reversed(order):
                    concurrent[name] += await burst(runners[name], sessions, 5)
        tracer_provider.force_flush()
        grouped = ledgers["on"]
        commits, records = grouped.commits, grouped.records
        for ledger in ledgers.values():
            ledger.close()
    tracer_provider.shutdown()
    meter_provider.shutdown()

    print(f"fire() with 1 `{command}` hook: {rounds} interleaved rounds one fire at a time; "
          f"{max(rounds // 10, 3)} rounds of {sessions} concurrent sessions x 5 fires\n")
    names = list(options)
    print(f"{'median ms (ratio to off)':<26}" + "".join(f"{n:>18}" for n in names))
    worst = 0.0
    for label, data in (("1 fire at a time", single),
                        (f"{sessions} sessions at once", concurrent)):
        off = statistics.median(data["off"])
        cells = []
        for n in names:
            med = statistics.median(data[n])
            cells.append(f"{med:.3f} ({med / off:.2f})")
        worst = max(worst, statistics.median(data["on"]) / off)
        print(f"{label:<26}" + "".join(f"{c:>18}" for c in cells))
    print(f"\nspans exported: {exporter.spans}; 'on' ledger: {records} records in "
          f"{commits} commits (group commit)")
    print(f"worst on/off ratio {worst:.3f} (target <= {TARGET:.2f})")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--command", default="true", help="the hook's command (default: true)")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.rounds, args.sessions, args.command))
