#!/usr/bin/env python3
"""Unmodified Python script hooks: cold (an interpreter per call) against forked (fork server).

    .venv/bin/python bench/python_scripts.py [--rounds 40] [--turns 21] [--python PATH] [--json]

Part 1, one hook: the same unmodified ``python3 guard.py`` command hook (reads the payload
from stdin, prints a decision) through ``HookRunner.fire("PreToolUse", …)``, cold
(``"warm": false``) and forked (the default), plus the warm worker pool running the same
logic rewritten as a ``run(payload)`` module, for reference. The modes take turns within
each round (rotating which goes first), so load on the machine hits all alike.

Part 2, a realistic configuration through the agent loop (as bench/agent_loop.py: the
``anthropic`` backend against a fake Messages API on 127.0.0.1): per tool call 3 Python
script hooks (a command guard, a JSONL audit logger, a secret scanner) and 2 shell hooks
on PreToolUse; the latency each configuration adds to a tool call against a 0-hook
session, cold against forked, paired per round.

Targets: forked >= 5x faster than cold (median, part 1); the realistic configuration's
added latency per tool call >= 3x lower forked than cold (part 2). Exit status 1 if missed.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from _common import bash_payload, check_allowed, open_session, paired_diffs, rotated, spread, timed_fire, write_project
from agent_loop import _patch_monotonic_timestamps, one_turn

from agent_server.hooks import HookRunner
from agent_server.server._platform import install_pidfd_child_watcher
from agent_server.server.testing import FakeMessagesAPI, serve_app

PAYLOAD = bash_payload("ls -la")

GUARD = '''\
"""Deny rm -rf; allow the rest (a typical PreToolUse guard, as people write them)."""
import json
import sys

data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print("rm -rf is not allowed", file=sys.stderr)
    sys.exit(2)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}))
'''

GUARD_RUN = '''\
"""The same guard as a run(payload) module (what the warm worker pool runs)."""
import sys


def run(data):
    command = data.get("tool_input", {}).get("command", "")
    if "rm -rf" in command:
        print("rm -rf is not allowed", file=sys.stderr)
        sys.exit(2)
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
'''

AUDIT = '''\
"""Append every tool call to a JSONL audit log in the project."""
import datetime
import json
import os
import pathlib
import sys

data = json.load(sys.stdin)
log = pathlib.Path(os.environ["CLAUDE_PROJECT_DIR"]) / ".claude" / "audit.jsonl"
entry = {"at": datetime.datetime.now(datetime.timezone.utc).isoformat(), "tool": data.get("tool_name"),
         "input": data.get("tool_input")}
with log.open("a") as f:
    f.write(json.dumps(entry) + "\\n")
'''

SECRETS = '''\
"""Block commands that carry something that looks like a credential."""
import json
import re
import sys

PATTERNS = [re.compile(p) for p in (r"AKIA[0-9A-Z]{16}", r"ghp_[A-Za-z0-9]{36}", r"sk-[A-Za-z0-9]{20,}")]
data = json.load(sys.stdin)
text = json.dumps(data.get("tool_input", {}))
for pattern in PATTERNS:
    if pattern.search(text):
        print(f"looks like a secret: {pattern.pattern}", file=sys.stderr)
        sys.exit(2)
'''


def write_hooks(hooks_dir: Path) -> None:
    hooks_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (("guard.py", GUARD), ("guard_run.py", GUARD_RUN), ("audit.py", AUDIT), ("secrets.py", SECRETS)):
        (hooks_dir / name).write_text(text)


def script_command(python: str, name: str) -> str:
    return f'{shlex.quote(python)} "$CLAUDE_PROJECT_DIR"/.claude/hooks/{name}'


def single_project(base: Path, mode: str, python: str) -> Path:
    root = base / f"single-{mode}"
    write_hooks(root / ".claude" / "hooks")
    if mode == "pool":
        hook: dict[str, Any] = {"type": "python", "module": "guard_run.py"}
    else:
        hook = {"type": "command", "command": script_command(python, "guard.py")}
        if mode == "cold":
            hook["warm"] = False
    return write_project(root, {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]})


async def part1(base: Path, python: str, rounds: int, warmup: int) -> dict[str, Any]:
    modes = ("cold", "forked", "pool")
    samples: dict[str, list[float]] = {m: [] for m in modes}
    async with AsyncExitStack() as stack:
        runners = {}
        for mode in modes:
            # trust="all": the bench's own generated hooks.
            runner = HookRunner.from_project(single_project(base, mode, python), user_settings=None, trust="all")
            runners[mode] = await stack.enter_async_context(runner)
        for i in range(warmup + rounds):
            for mode in rotated(modes, i):
                elapsed, outcome = await timed_fire(runners[mode], PAYLOAD)
                check_allowed(outcome, f"{mode}: the hook")
                if i >= warmup:
                    samples[mode].append(elapsed)
        if runners["forked"].fork_servers.forked != warmup + rounds:
            raise SystemExit("the forked runner did not fork every call")
    return {
        "python": python,
        "rounds": rounds,
        "modes": {m: spread(v) for m, v in samples.items()},
        "cold_over_forked": round(statistics.median(samples["cold"]) / statistics.median(samples["forked"]), 2),
        "forked_over_pool": round(statistics.median(samples["forked"]) / statistics.median(samples["pool"]), 2),
    }


def loop_project(base: Path, config: str, python: str) -> Path:
    root = base / f"loop-{config}"
    write_hooks(root / ".claude" / "hooks")
    hooks: list[dict[str, Any]] = []
    if config != "none":
        hooks = [
            {"type": "command", "command": script_command(python, "guard.py")},
            {"type": "command", "command": script_command(python, "audit.py")},
            {"type": "command", "command": script_command(python, "secrets.py")},
            {"type": "command", "command": "cat > /dev/null"},
            {"type": "command", "command": 'test -n "$HOOK_EVENT"'},
        ]
        if config == "cold":
            for hook in hooks[:3]:
                hook["warm"] = False
    return write_project(root, {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]} if hooks else {})


async def part2(base: Path, python: str, turns: int, warmup: int, order: str) -> dict[str, Any]:
    configs = ("none", "cold", "forked")
    api = FakeMessagesAPI()
    samples: dict[str, list[float]] = {c: [] for c in configs}
    async with serve_app(api.app) as api_url, AsyncExitStack() as stack:
        managers = {}
        for config in configs:
            managers[config] = await open_session(stack, loop_project(base, config, python), api_url, order)
        for i in range(warmup + turns):
            for config in rotated(configs, i):
                manager, sid, _ = managers[config]
                tool_ms, _total = await one_turn(manager, sid)
                if i >= warmup:
                    samples[config].append(tool_ms)
        forked = managers["forked"][2].fork_servers.forked
        if forked != 3 * (warmup + turns):
            raise SystemExit(f"the forked configuration forked {forked} of {3 * (warmup + turns)} Python hook calls")
    added = {c: paired_diffs(samples[c], samples["none"]) for c in ("cold", "forked")}
    return {
        "order": order,
        "turns": turns,
        "baseline_tool_ms": spread(samples["none"]),
        "added_ms": {c: spread(v) for c, v in added.items()},
        "cold_over_forked": round(statistics.median(added["cold"]) / statistics.median(added["forked"]), 2),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    install_pidfd_child_watcher()  # as `agent-server serve` does
    with tempfile.TemporaryDirectory(prefix="agent-server-bench-") as tmp:
        one = await part1(Path(tmp), args.python, args.rounds, warmup=3)
        loop = await part2(Path(tmp), args.python, args.turns, 3, args.order)
    return {"single_hook": one, "agent_loop": loop}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40, help="part 1: measured rounds (default 40)")
    parser.add_argument("--turns", type=int, default=21, help="part 2: measured turns per configuration (default 21)")
    parser.add_argument("--python", default=sys.executable, help="the hooks' interpreter (default: this one)")
    parser.add_argument("--order", choices=["sequential", "parallel"], default="sequential", help="part 2 hook order")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    _patch_monotonic_timestamps()
    result = anyio.run(main_async, args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        one, loop = result["single_hook"], result["agent_loop"]
        print(f"Part 1: one unmodified script hook, {one['rounds']} rounds, interpreter {one['python']}")
        print(f"{'mode':<34}{'median':>9}{'p10':>9}{'p90':>9}{'p95':>9}  (ms per fire)")
        names = {
            "cold": "cold (interpreter per call)",
            "forked": "forked (fork server)",
            "pool": "warm pool (run(payload) rewrite)",
        }
        for mode, row in one["modes"].items():
            print(f"{names[mode]:<34}{row['median']:>9.3f}{row['p10']:>9.3f}{row['p90']:>9.3f}{row['p95']:>9.3f}")
        print(
            f"cold/forked ratio of medians: {one['cold_over_forked']:.1f} (target >= 5); "
            f"forked/pool: {one['forked_over_pool']:.1f}"
        )
        print()
        print(
            f"Part 2: 3 Python script hooks + 2 shell hooks per tool call ({loop['order']}), "
            f"{loop['turns']} paired turns; added latency per tool call vs 0 hooks"
        )
        print(f"{'configuration':<34}{'median':>9}{'p10':>9}{'p90':>9}{'p95':>9}  (ms)")
        for config, row in loop["added_ms"].items():
            print(f"{config:<34}{row['median']:>+9.2f}{row['p10']:>+9.2f}{row['p90']:>+9.2f}{row['p95']:>+9.2f}")
        base = loop["baseline_tool_ms"]
        print(
            f"{'(0-hook tool call)':<34}{base['median']:>9.2f}{base['p10']:>9.2f}{base['p90']:>9.2f}{base['p95']:>9.2f}"
        )
        print(f"cold/forked ratio of added latency (medians): {loop['cold_over_forked']:.1f} (target >= 3)")
    ok = result["single_hook"]["cold_over_forked"] >= 5 and result["agent_loop"]["cold_over_forked"] >= 3
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
