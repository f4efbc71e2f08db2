"""HookRunner.fire() overhead against spawning the same processes bare with anyio.

    .venv/bin/python bench/overhead.py [--rounds N]

For 1 and 10 ``true`` hooks, sequential and parallel, it interleaves rounds of
``fire()`` with rounds of the bare spawns (``anyio.run_process`` of the same argv with
the same payload on stdin), and prints medians and the ratio fire/bare. Target: ≤ 1.25.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import anyio.abc
from _common import bash_payload, write_project

from agent_server.hooks import HookRunner

PAYLOAD = bash_payload()


def make_project(root: Path, count: int, order: str) -> Path:
    hooks = [{"hooks": [{"type": "command", "command": f"true {i}"}]} for i in range(count)]
    return write_project(root / f"p{count}{order}", {"PreToolUse": hooks}, hookRunner={"order": order})


async def drain(stream: anyio.abc.ByteReceiveStream) -> None:
    async for _ in stream:
        pass


async def bare(count: int, parallel: bool) -> None:
    data = (json.dumps(PAYLOAD, separators=(",", ":")) + "\n").encode()

    async def one(i: int) -> None:
        # The least a correct caller does: pipes, stdin written (a broken pipe is
        # expected from a hook that doesn't read it), both streams read, exit awaited.
        async with await anyio.open_process(["/bin/sh", "-c", f"true {i}"], start_new_session=True) as proc:
            assert proc.stdin and proc.stdout and proc.stderr
            with contextlib.suppress(anyio.BrokenResourceError):
                await proc.stdin.send(data)
            await proc.stdin.aclose()
            async with anyio.create_task_group() as tg:
                tg.start_soon(drain, proc.stdout)
                tg.start_soon(drain, proc.stderr)
            await proc.wait()

    if parallel:
        async with anyio.create_task_group() as tg:
            for i in range(count):
                tg.start_soon(one, i)
    else:
        for i in range(count):
            await one(i)


async def timed(fn: Callable[[], Awaitable[object]]) -> float:
    t0 = time.perf_counter()
    await fn()
    return (time.perf_counter() - t0) * 1000.0


async def main(rounds: int) -> int:
    worst = 0.0
    print(f"{'case':<22}{'bare ms':>10}{'fire ms':>10}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for count in (1, 10):
            for order in ("sequential", "parallel"):
                project = make_project(Path(tmp), count, order)
                async with HookRunner.from_project(project, user_settings=None, trust="all") as runner:
                    base: list[float] = []
                    fired: list[float] = []
                    for _ in range(5):  # warm-up
                        await runner.fire("PreToolUse", PAYLOAD)
                        await bare(count, order == "parallel")
                    for _ in range(rounds):
                        base.append(await timed(functools.partial(bare, count, order == "parallel")))
                        fired.append(await timed(functools.partial(runner.fire, "PreToolUse", PAYLOAD)))
                b, f = statistics.median(base), statistics.median(fired)
                worst = max(worst, f / b)
                print(f"{f'{count} hook(s) {order}':<22}{b:>10.2f}{f:>10.2f}{f / b:>8.2f}")
    print(f"worst ratio {worst:.2f} (target <= 1.25)")
    return 0 if worst <= 1.25 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    sys.exit(anyio.run(main, parser.parse_args().rounds))
