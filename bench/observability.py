"""Cost of observability: fire() with tracing + metrics + ledger on, against all off.

    .venv/bin/python bench/observability.py [--trials N] [--rounds N] [--sessions N] [--gap MS]

One project, one ``true`` hook on PreToolUse (``--command`` picks another). Runners on
the same event loop:

* **off** — the default runner: no tracer or meter provider, no ledger (OTEL_* unset, so
  the OpenTelemetry API is a no-op);
* **telemetry** — an SDK ``TracerProvider`` whose spans go through a ``BatchSpanProcessor``
  to an exporter that drops them, and an SDK ``MeterProvider`` with an in-memory reader;
* **ledger** — a ``HookLedger`` (journal + SQLite WAL, ``synchronous=NORMAL``);
* **on** — telemetry + ledger (the gated case);
* **on, FULL** — the same with ``synchronous=FULL`` (an fsync per record).

Subprocesses are waited for with a pidfd, as ``agent-server serve`` sets up on Python
3.11 (3.12+ does it by itself), not with asyncio 3.11's thread per subprocess.

Runners are interleaved block by block, in a cycle where each runner follows every
other exactly once (the wrap included), so drift, and what one runner's block leaves
behind for the next (caches, the kernel writing back a FULL ledger's syncs), affects
all alike. Cases:

* **1 fire every --gap ms** (gated): fire() latency when the agent does something
  between two events, as every agent does (a tool call, a model turn). Span ends and
  ledger ingestion are deferred to such moments by design.
* **back to back**: fires with no pause. The event loop is busy all the time, so this shows
  the CPU that observability costs; with it, the loop thread's CPU per fire.
* **--sessions concurrent sessions**, each firing (latency per fire; CPU-bound on 2 cores).

The first two run in blocks of 20 fires per runner. What a block leaves queued is
finished before the next block starts, so no runner's deferred work is charged to
another: span ends and metrics on the event loop, where they run in production, charged
to the block's last fire; ledger records still in the journal are moved into SQLite on a
worker thread, as the ledger's own writer thread does in production, and that time is
reported per fire on a line of its own (with the gated ratio it would give if it were
charged to fire(), as this script did before), not added to a fire's latency.

**Processes.** The measurement runs in --trials worker processes, one after another
(``--worker`` runs one and prints JSON), and the report gives the median over them of
each figure and of each ratio, with every process's own ratios printed first. One
process's result moves by more than its sampling error (with 2400 fires per runner in one
process, where that error is about ±0.005, the gated ratio ranged 1.07 to 1.11 from run
to run), partly through state of the process itself (address-space layout, string
hashing), which the median of several tames; pyperf runs its benchmarks in several
processes for that reason.

Exits 1 if the median process's on/off (the worse of its median and mean ratio) is above
1.10 in the gated case. The other cases are reported, not gated.

**Host steal.** On a VM, the share of its CPU time the host gave to other guests during
each process's gated phase (``/proc/stat``) is printed with the results: the costs
measured here are mostly cache misses, and they grow when neighbours share the host's
caches, so a busy host raises the ratio (flagged from 5%; the gate is the same).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from agent_server.hooks import HookLedger, HookRunner
from agent_server.server._platform import install_pidfd_child_watcher

PAYLOAD = {
    "session_id": "bench",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "PreToolUse",
    "permission_mode": "default",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
    "tool_use_id": "toolu_bench",
}
TARGET = 1.10
# Host steal (% of the VM's CPU time) from which a run is flagged as taken on a busy host.
BUSY_STEAL = 5.0
# Fires in a row per runner: its deferred span work lands in its own block.
BLOCK = 20


class DropExporter(SpanExporter):
    """Accepts spans and drops them (measures our cost, not a collector's)."""

    def __init__(self) -> None:
        self.spans = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.spans += len(spans)
        return SpanExportResult.SUCCESS


def make_project(root: Path, command: str = "true") -> Path:
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}})
    )
    return root


async def one(runner: HookRunner) -> float:
    """One fire's latency (ms)."""
    t0 = time.perf_counter()
    await runner.fire("PreToolUse", PAYLOAD)
    return (time.perf_counter() - t0) * 1000.0


def flush_telemetry(runner: HookRunner) -> float:
    """Finish the span ends and metrics a block left queued, on the loop (where they
    run in production): their cost (ms) is the block's, not the next runner's."""
    t0 = time.perf_counter()
    runner.flush_telemetry()
    return (time.perf_counter() - t0) * 1000.0


async def ingest(runner: HookRunner) -> float:
    """Move the ledger records a block left in the journal into SQLite on a worker
    thread, as the ledger's writer thread does in production; returns the time (ms)."""
    if runner.ledger is None:
        return 0.0
    t0 = time.perf_counter()
    await anyio.to_thread.run_sync(runner.ledger.flush)
    return (time.perf_counter() - t0) * 1000.0


def cpu_ticks() -> tuple[int, int] | None:
    """(steal, total) CPU time of the whole VM so far, in clock ticks, from /proc/stat;
    None where that is not available."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if len(fields) < 9 or fields[0] != "cpu":
        return None
    # user nice system idle iowait irq softirq steal (guest time is inside user)
    ticks = [int(v) for v in fields[1:9]]
    return ticks[7], sum(ticks)


def steal_percent(start: tuple[int, int] | None, end: tuple[int, int] | None) -> float | None:
    """The share of the VM's CPU time the host took for others between two
    :func:`cpu_ticks` readings (%): a busy host makes cold caches colder."""
    if start is None or end is None or end[1] <= start[1]:
        return None
    return 100.0 * (end[0] - start[0]) / (end[1] - start[1])


def balanced_sequence(n: int) -> list[int]:
    """A cyclic order of ``n`` runners in which every runner comes right after every
    other exactly once per cycle (``n * (n - 1)`` blocks, each runner ``n - 1`` times),
    the wrap from the last block to the first included: an Eulerian circuit of the
    complete directed graph.

    A block leaves traces for the next one (caches, the kernel still writing back a
    FULL ledger's syncs); with a fixed order those would land on the same neighbour
    every time and bias its ratio.
    """
    if n == 1:
        return [0]
    unused = {a: [b for b in range(n) if b != a] for a in range(n)}
    stack, circuit = [0], []
    while stack:  # Hierholzer
        if unused[stack[-1]]:
            stack.append(unused[stack[-1]].pop())
        else:
            circuit.append(stack.pop())
    circuit.reverse()
    return circuit[:-1]  # (it ends where it began)


def interleaved(runners: dict[str, HookRunner], blocks: int) -> Iterator[tuple[str, HookRunner]]:
    """At least ``blocks`` blocks per runner, in whole balanced cycles (drift and
    carry-over hit all runners alike)."""
    names = list(runners)
    cycle = balanced_sequence(len(names))
    per_cycle = max(len(names) - 1, 1)
    for _ in range(-(-blocks // per_cycle)):
        for k in cycle:
            yield names[k], runners[names[k]]


async def block(runner: HookRunner, gap: float) -> tuple[list[float], float, float]:
    """BLOCK fires ``gap`` s apart: their latencies (ms; the last also pays for the span
    work the block left queued), the loop thread's CPU per fire (ms) and the time taken
    to move the block's remaining ledger records into SQLite (ms, off the loop)."""
    cpu0 = time.thread_time()
    latencies = []
    for _ in range(BLOCK):
        latencies.append(await one(runner))
        if gap:
            await anyio.sleep(gap)  # the agent's own step between two events
    latencies[-1] += flush_telemetry(runner)
    cpu = (time.thread_time() - cpu0) * 1000.0 / BLOCK
    return latencies, cpu, await ingest(runner)


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


async def trial(rounds: int, sessions: int, command: str, gap: float, pidfd: bool = True) -> dict[str, Any]:
    """One process's measurement of every case: ``cases`` maps case, then statistic, to
    each runner's value (ms); with the ledger ingestion per fire, span and record counts,
    the host's steal (%) and how many fires each case had."""
    for name in [n for n in os.environ if n.startswith("OTEL_")]:
        del os.environ[name]
    if pidfd:
        install_pidfd_child_watcher()  # as `agent-server serve` does (bench/agent_loop.py too)
    exporter = DropExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    telemetry: dict[str, Any] = {"tracer_provider": tracer_provider, "meter_provider": meter_provider}
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp) / "p", command)
        ledgers = {
            name: HookLedger(Path(tmp) / f"{name}.db", synchronous="FULL" if name == "on, FULL" else "NORMAL")
            for name in ("ledger", "on", "on, FULL")
        }
        options: dict[str, dict[str, Any]] = {
            "off": {},
            "telemetry": telemetry,
            "ledger": {"ledger": ledgers["ledger"]},
            "on": {**telemetry, "ledger": ledgers["on"]},
            "on, FULL": {**telemetry, "ledger": ledgers["on, FULL"]},
        }
        single: dict[str, list[float]] = {k: [] for k in options}
        concurrent: dict[str, list[float]] = {k: [] for k in options}
        paced: dict[str, list[float]] = {k: [] for k in options}
        ingested: dict[str, float] = {k: 0.0 for k in options}  # ms, paced case, off the loop
        cpu: dict[str, list[float]] = {k: [] for k in options}
        async with contextlib.AsyncExitStack() as stack:
            runners = {
                k: await stack.enter_async_context(
                    HookRunner.from_project(project, user_settings=None, trust="all", **v)
                )
                for k, v in options.items()
            }
            for r in runners.values():  # warm-up
                for _ in range(10):
                    await one(r)
            # As `agent-server serve` does once started: full collections skip what
            # setup loaded, so their pauses (tens of ms for this heap on a slow VM, landing
            # on whichever runner is firing) scale with what the runs make, not with it.
            gc.freeze()
            # Each case in its own phase, so one case's leftovers never land in another.
            ticks = cpu_ticks()
            for name, runner in interleaved(runners, max(rounds // BLOCK, 2)):
                latencies, _, ingest_ms = await block(runner, gap)
                paced[name] += latencies
                ingested[name] += ingest_ms
            steal = steal_percent(ticks, cpu_ticks())
            for name, runner in interleaved(runners, max(rounds // 4 // BLOCK, 2)):
                latencies, cpu_ms, _ = await block(runner, 0.0)
                single[name] += latencies
                cpu[name].append(cpu_ms)
            for name, runner in interleaved(runners, max(rounds // 120, 3)):
                latencies = await burst(runner, sessions, 5)
                latencies[-1] += flush_telemetry(runner)
                await ingest(runner)
                concurrent[name] += latencies
        tracer_provider.force_flush()
        grouped = ledgers["on"]
        commits, records = grouped.commits, grouped.records
        for ledger in ledgers.values():
            ledger.close()
    tracer_provider.shutdown()
    meter_provider.shutdown()
    cases: dict[str, dict[str, dict[str, float]]] = {
        case: {
            stat: {n: fn(values) for n, values in data.items()}
            for stat, fn in (("median", statistics.median), ("mean", statistics.fmean))
        }
        for case, data in ((PACED, paced), (BACK_TO_BACK, single), (CPU, cpu), (SESSIONS, concurrent))
    }
    return {
        "cases": cases,
        "ingestion": {n: ingested[n] / len(paced[n]) for n in options},
        "spans": exporter.spans,
        "records": records,
        "commits": commits,
        "steal": steal,
        "fires": {"paced": len(paced["off"]), "back to back": len(single["off"]), "sessions": len(concurrent["off"])},
    }


# The cases of a trial's result.
PACED, BACK_TO_BACK, CPU, SESSIONS = "paced", "back to back", "loop CPU per fire", "sessions"
STATS = ("median", "mean")


def percent(value: float | None) -> str:
    """A share for printing ("n/a" when it could not be measured)."""
    return "n/a" if value is None else f"{value:.1f}%"


def worst_ratio(result: dict[str, Any], case: str) -> float:
    """on/off for ``case``, the worse of its median and mean."""
    return max(float(result["cases"][case][stat]["on"] / result["cases"][case][stat]["off"]) for stat in STATS)


def charged_ratio(result: dict[str, Any]) -> float:
    """Mean on/off in the paced case with the block-end ledger ingestion charged to
    fire() (this script's accounting before 2026-11-22)."""
    mean, ingest_ms = result["cases"][PACED]["mean"], result["ingestion"]
    return float((mean["on"] + ingest_ms["on"]) / (mean["off"] + ingest_ms["off"]))


def run_trials(args: argparse.Namespace) -> int:
    """Run ``args.trials`` worker processes one after another and report the median
    trial (each trial's figures are printed too)."""
    gap_ms = f"{args.gap:g}"
    labels = {
        PACED: f"1 fire every {gap_ms} ms",
        BACK_TO_BACK: BACK_TO_BACK,
        CPU: f"  {CPU}",
        SESSIONS: f"{args.sessions} sessions at once",
    }
    trials: list[dict[str, Any]] = []
    for i in range(args.trials):
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--worker",
                "--rounds",
                str(args.rounds),
                "--sessions",
                str(args.sessions),
                "--gap",
                gap_ms,
                "--command",
                args.command,
                *(["--no-pidfd"] if args.no_pidfd else []),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            print(f"trial {i + 1} failed (exit {proc.returncode}):\n{proc.stderr}", file=sys.stderr)
            return 2
        result = json.loads(proc.stdout)
        trials.append(result)
        print(
            f"trial {i + 1}: on/off {labels[PACED]} {worst_ratio(result, PACED):.3f} "
            f"(ingestion charged: {charged_ratio(result):.3f}); back to back "
            f"{worst_ratio(result, BACK_TO_BACK):.3f}; {labels[SESSIONS]} "
            f"{worst_ratio(result, SESSIONS):.3f}; host steal {percent(result['steal'])}",
            flush=True,
        )

    def median(value: Callable[[dict[str, Any]], float]) -> float:
        return statistics.median(value(t) for t in trials)

    fires = trials[0]["fires"]
    print(
        f"\nfire() with 1 `{args.command}` hook, {args.trials} processes, each with per "
        f"runner {fires['paced']} fires {gap_ms} ms apart, {fires['back to back']} back to "
        f"back in blocks of {BLOCK}, {fires['sessions']} from {args.sessions} concurrent "
        "sessions. Median over the processes of each figure and of each ratio:\n"
    )
    names = list(trials[0]["ingestion"])
    print(f"{'ms (ratio to off)':<30}" + "".join(f"{n:>18}" for n in names))
    for case, label in labels.items():
        for stat in STATS:
            rows = [t["cases"][case][stat] for t in trials]
            cells = [
                f"{statistics.median(r[n] for r in rows):.3f} ({statistics.median(r[n] / r['off'] for r in rows):.2f})"
                for n in names
            ]
            print(f"{label + ', ' + stat:<30}" + "".join(f"{c:>18}" for c in cells))
    print(
        f"{'  ledger ingestion per fire':<30}"
        + "".join(f"{statistics.median(t['ingestion'][n] for t in trials):>18.3f}" for n in names)
    )
    print(
        "  (ingestion: what the paced blocks left in the journal, moved into SQLite off "
        "the loop, as in production;\n  the rest was moved by the ledgers' writer threads "
        "while the blocks ran)"
    )
    first = trials[0]
    print(
        f"\nspans exported per process: {first['spans']}; 'on' ledger: {first['records']} "
        f"records in {first['commits']} commits (group commit)"
    )
    gated = median(lambda t: worst_ratio(t, PACED))
    steals = [t["steal"] for t in trials if t["steal"] is not None]
    if steals:
        print(
            f"host steal in the gated phase: {min(steals):.1f}-{max(steals):.1f}% of the "
            "VM's CPU time per process"
            + (
                " (a busy host: cold caches get colder and this ratio rises; docs/observability.md#benchmark)"
                if max(steals) >= BUSY_STEAL
                else ""
            )
        )
    print(f"if the ingestion were charged to fire(): {median(charged_ratio):.3f}")
    print(
        f"on/off, {labels[PACED]} (gated, median of {args.trials} processes): {gated:.3f} "
        f"(target <= {TARGET:.2f}); reported only: back to back "
        f"{median(lambda t: worst_ratio(t, BACK_TO_BACK)):.3f}, {labels[SESSIONS]} "
        f"{median(lambda t: worst_ratio(t, SESSIONS)):.3f}"
    )
    return 0 if gated <= TARGET else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trials", type=int, default=5, help="worker processes, run one after another (default: 5)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=600,
        help="fires per runner and process in the gated (paced) case; the other cases take a quarter (default: 600)",
    )
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--gap", type=float, default=2.0, help="ms between fires in the paced case (default: 2)")
    parser.add_argument("--command", default="true", help="the hook's command (default: true)")
    parser.add_argument(
        "--no-pidfd", action="store_true", help="keep asyncio's thread-per-subprocess child watcher (Python 3.11)"
    )
    parser.add_argument("--worker", action="store_true", help="run one trial in this process and print it as JSON")
    args = parser.parse_args()
    if args.worker:
        print(
            json.dumps(anyio.run(trial, args.rounds, args.sessions, args.command, args.gap / 1000.0, not args.no_pidfd))
        )
        sys.exit(0)
    sys.exit(run_trials(args))
