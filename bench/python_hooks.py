"""Per-call latency of one Python hook, cold (a process per call) against warm (a worker).

    .venv/bin/python bench/python_hooks.py [--cold N] [--warm N]

Both runs go through ``HookRunner.fire("PreToolUse", payload)`` with one Python hook
configured in a temporary project's ``.claude/settings.json``: once with
``python_workers=0`` (cold), once with the default pool (warm). For reference it also
times the same hook logic as an in-process callback (the runner's own overhead per
hook). Prints median and p95 per mode and the cold/warm ratio of the medians.
Targets: warm median < 1 ms, cold/warm >= 30 (exit status 1 when missed).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from _common import bash_payload, check_allowed, percentile, timed_fire, write_project

from agent_server.hooks import HookRunner

PAYLOAD = bash_payload("ls -la")

HOOK = '''\
"""A typical guard: deny rm -rf, allow the rest."""


def run(payload):
    command = payload.get("tool_input", {}).get("command", "")
    if "rm -rf" in command:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}}
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow"}}
'''


async def _callback(payload: dict[str, Any]) -> dict[str, Any]:
    command = payload.get("tool_input", {}).get("command", "")
    decision = "deny" if "rm -rf" in command else "allow"
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision}}


def make_project(root: Path) -> Path:
    hooks = root / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "guard.py").write_text(HOOK)
    return write_project(
        root, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "python", "module": "guard.py"}]}]}
    )


async def measure(runner: HookRunner, rounds: int, warmup: int) -> list[float]:
    times: list[float] = []
    for i in range(warmup + rounds):
        elapsed, outcome = await timed_fire(runner, PAYLOAD)
        check_allowed(outcome)
        if i >= warmup:
            times.append(elapsed)
    return times


async def main(cold_rounds: int, warm_rounds: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp))
        async with HookRunner.from_project(project, user_settings=None, trust="all", python_workers=0) as runner:
            cold = await measure(runner, cold_rounds, warmup=2)
        async with HookRunner.from_project(project, user_settings=None, trust="all") as runner:
            warm = await measure(runner, warm_rounds, warmup=20)
        async with HookRunner(project_dir=project) as runner:
            runner.register("PreToolUse", _callback, matcher="Bash", name="guard")
            inproc = await measure(runner, warm_rounds, warmup=20)
    rows = [
        ("cold (process per call)", cold),
        ("warm (worker pool)", warm),
        ("in-process callback (reference)", inproc),
    ]
    print(f"{'mode':<34}{'calls':>7}{'median ms':>11}{'p95 ms':>9}")
    for name, values in rows:
        print(f"{name:<34}{len(values):>7}{statistics.median(values):>11.3f}{percentile(values, 95):>9.3f}")
    ratio = statistics.median(cold) / statistics.median(warm)
    warm_median = statistics.median(warm)
    print(f"cold/warm ratio of medians: {ratio:.1f} (target >= 30); warm median {warm_median:.3f} ms (target < 1 ms)")
    return 0 if warm_median < 1.0 and ratio >= 30 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cold", type=int, default=40, help="cold calls (default 40)")
    parser.add_argument("--warm", type=int, default=1000, help="warm calls (default 1000)")
    ns = parser.parse_args()
    sys.exit(anyio.run(main, ns.cold, ns.warm))
