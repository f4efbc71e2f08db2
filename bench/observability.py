"""What tracing and metrics add to one fire(), in milliseconds (budget: 0.15 ms).

    .venv/bin/python bench/observability.py [--trials N] [--pairs N] [--gap MS] [--ledger]

One project, one ``true`` hook on PreToolUse (``--command`` picks another). Two runners on
the same event loop:

* **off** — no providers: the OpenTelemetry API's no-ops (``OTEL_*`` unset);
* **on** — what ``agent-server serve`` builds with tracing on: an SDK ``TracerProvider``
  whose spans go through a ``BatchSpanProcessor`` (to an exporter that drops them, so the
  figure is ours, not a collector's), and an SDK ``MeterProvider`` with the pull reader
  behind ``GET /metrics``; **traces** and **metrics** have one of the two each;
* with ``--ledger``, a third runner **on + ledger** adds the audit ledger (SQLite).

**Paired.** Each pair fires ``off`` and ``on`` back to back, in random order, ``--gap`` ms
apart (an agent does something between two events), and the figure is the *difference*
on - off of the pair. A hook process costs about a millisecond and its spawn time drifts
with whatever else the machine does; pairing cancels the drift, and the median of the
differences is robust to the spikes a shared machine adds to single fires. The loop
thread's CPU per fire (on - off, over the whole run) is printed too: it is much less noisy
than latency.

**Processes.** Each trial runs in its own process (``--worker``); the report gives every
trial's median difference and the distribution of all pairs' differences (percentiles),
and exits 1 when the median over the trials is above the budget.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from _common import bash_payload, percentile, write_project
from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from agent_server.hooks import HookLedger, HookRunner
from agent_server.server._platform import install_pidfd_child_watcher

PAYLOAD = bash_payload()
BUDGET_MS = 0.15
PERCENTILES = (10, 25, 50, 75, 90)


class DropExporter(SpanExporter):
    """Accepts spans and drops them (measures our cost, not a collector's)."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


def make_project(root: Path, command: str) -> Path:
    return write_project(root, {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]})


async def fire(runner: HookRunner) -> tuple[float, float]:
    """One fire's latency and the loop thread's CPU time for it (ms)."""
    cpu0, t0 = time.thread_time(), time.perf_counter()
    await runner.fire("PreToolUse", PAYLOAD)
    return (time.perf_counter() - t0) * 1000.0, (time.thread_time() - cpu0) * 1000.0


async def trial(pairs: int, command: str, gap: float, ledger: bool) -> dict[str, Any]:
    """One process's measurement: every pair's on - off difference (ms) per runner, and
    the loop CPU per fire (ms) of each runner."""
    install_pidfd_child_watcher()  # as `agent-server serve` does
    exporter = DropExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()], exemplar_filter=AlwaysOffExemplarFilter())
    on = {"tracer_provider": tracer_provider, "meter_provider": meter_provider}
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp) / "p", command)
        options: dict[str, dict[str, Any]] = {
            "off": {},
            "traces": {"tracer_provider": tracer_provider},
            "metrics": {"meter_provider": meter_provider},
            "on": on,
        }
        if ledger:
            options["on + ledger"] = {**on, "ledger": HookLedger(Path(tmp) / "l.db")}
        diffs: dict[str, list[float]] = {name: [] for name in options if name != "off"}
        cpu: dict[str, list[float]] = {name: [] for name in options}
        async with contextlib.AsyncExitStack() as stack:
            runners = {
                name: await stack.enter_async_context(
                    HookRunner.from_project(project, user_settings=None, trust="all", **kw)
                )
                for name, kw in options.items()
            }
            for runner in runners.values():  # warm-up
                for _ in range(20):
                    await fire(runner)
            # As `agent-server serve` does once started: full collections skip what setup
            # loaded, so their pauses scale with what the fires make, not with the heap.
            gc.collect()
            gc.freeze()
            for _ in range(pairs):
                order = list(runners)
                rng.shuffle(order)
                latency: dict[str, float] = {}
                for name in order:
                    latency[name], cpu_ms = await fire(runners[name])
                    cpu[name].append(cpu_ms)
                    await anyio.sleep(gap)
                for name in diffs:
                    diffs[name].append(latency[name] - latency["off"])
        if ledger:
            options["on + ledger"]["ledger"].close()
    tracer_provider.shutdown()
    meter_provider.shutdown()
    return {
        "diffs": diffs,
        "cpu": {name: statistics.fmean(values) for name, values in cpu.items()},
        "spans": exporter.spans,
    }


def percentiles(values: list[float]) -> list[float]:
    return [percentile(values, p) for p in PERCENTILES]


def run_trials(args: argparse.Namespace) -> int:
    """Run the trials one after another, each in its own process, and report."""
    results = []
    for i in range(args.trials):
        argv = [sys.executable, __file__, "--worker", "--pairs", str(args.pairs), "--gap", f"{args.gap:g}"]
        argv += ["--command", args.command, *(["--ledger"] if args.ledger else [])]
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            print(f"trial {i + 1} failed (exit {proc.returncode}):\n{proc.stderr}", file=sys.stderr)
            return 2
        result = json.loads(proc.stdout)
        results.append(result)
        cells = "; ".join(
            f"{name} - off: median {statistics.median(d):+.3f} ms, "
            f"loop CPU {result['cpu'][name] - result['cpu']['off']:+.3f} ms"
            for name, d in result["diffs"].items()
        )
        print(f"trial {i + 1}: {cells}", flush=True)
    names = list(results[0]["diffs"])
    print(
        f"\nfire() with 1 `{args.command}` hook; {args.trials} processes x {args.pairs} pairs, fires "
        f"{args.gap:g} ms apart. What tracing adds per fire (ms), the pairs' on - off differences:\n"
    )
    print(f"{'':<14}" + "".join(f"{'p' + str(p):>9}" for p in PERCENTILES) + f"{'loop CPU':>11}")
    for name in names:
        every = [d for r in results for d in r["diffs"][name]]
        cpu = statistics.median(r["cpu"][name] - r["cpu"]["off"] for r in results)
        print(f"{name + ' - off':<14}" + "".join(f"{v:>+9.3f}" for v in percentiles(every)) + f"{cpu:>+11.3f}")
    off_cpu = statistics.median(r["cpu"]["off"] for r in results)
    print(f"{'(off itself)':<14}{'':>45}{off_cpu:>11.3f}")
    medians = [statistics.median(r["diffs"]["on"]) for r in results]
    verdict = statistics.median(medians)
    print(
        f"\nspans exported per process: {results[0]['spans']}\n"
        f"tracing + metrics add {verdict:+.3f} ms per fire (median over the trials of each trial's "
        f"median pair difference; trials: {', '.join(f'{m:+.3f}' for m in medians)}); "
        f"budget {BUDGET_MS} ms: {'met' if verdict <= BUDGET_MS else 'NOT met'}"
    )
    return 0 if verdict <= BUDGET_MS else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trials", type=int, default=5, help="worker processes, one after another (default: 5)")
    parser.add_argument("--pairs", type=int, default=600, help="on/off pairs per process (default: 600)")
    parser.add_argument("--gap", type=float, default=2.0, help="ms between fires (default: 2)")
    parser.add_argument("--command", default="true", help="the hook's command (default: true)")
    parser.add_argument("--ledger", action="store_true", help="also measure tracing + the audit ledger")
    parser.add_argument("--worker", action="store_true", help="run one trial in this process and print it as JSON")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(anyio.run(trial, args.pairs, args.command, args.gap / 1000.0, args.ledger)))
        sys.exit(0)
    sys.exit(run_trials(args))
