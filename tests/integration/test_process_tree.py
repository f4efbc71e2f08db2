"""Timeouts that really end the whole tree, bounded output, no orphans, no zombies."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import anyio
import psutil
import pytest

from agent_server.hooks import HookRunner, HookStatus
from tests.support import load_payload, project

pytestmark = pytest.mark.anyio



def tagged_sleep() -> tuple[str, str]:
    """A sleep with a unique duration, so leftovers can be found by command line."""
    secs = f"{300 + uuid.uuid4().int % 10000}.{uuid.uuid4().int % 997}"
    return f"sleep {secs}", secs


def leftovers(tag: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = " ".join(proc.info["cmdline"] or [])
        if tag in cmdline and "pytest" not in cmdline:
            found.append(proc)
    return found


def zombie_children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True) if p.status() == psutil.STATUS_ZOMBIE]


async def no_leftovers(tag: str) -> None:
    # SIGKILL is asynchronous: give the kernel a bounded moment to finish the job.
    with anyio.fail_after(3):
        while leftovers(tag) or zombie_children():
            await anyio.sleep(0.02)


CASES = {
    "grandchild holds stdout": "{sleep} & {sleep}",
    "ignores SIGTERM": "trap '' TERM; {sleep}; {sleep}",
    "grandchild ignores SIGTERM": "sh -c \"trap '' TERM; {sleep}\" & wait",
    "descendant in a new session": "setsid {sleep} & {sleep}",
    "descendant in a new session ignoring SIGTERM": "setsid sh -c \"trap '' TERM; {sleep}\" & wait",
    "python child of python": 'python3 -c \'import subprocess; subprocess.run(["sh", "-c", "{sleep}"])\'',
}


@pytest.mark.parametrize("shape", list(CASES))
async def test_timeout_ends_the_whole_tree(tmp_path: Path, shape: str) -> None:
    sleep, tag = tagged_sleep()
    command = CASES[shape].format(sleep=sleep)
    p = project(tmp_path, {"PreToolUse": [{"hooks": [{"type": "command", "command": command, "timeout": 0.5}]}]})
    async with HookRunner.from_project(p, user_settings=None, kill_grace=1.0) as runner:
        started = time.monotonic()
        outcome = await runner.fire("PreToolUse", load_payload("PreToolUse__Bash", p))
        elapsed = time.monotonic() - started
    (result,) = outcome.hooks
    assert result.status is HookStatus.TIMEOUT and result.timed_out
    assert not outcome.blocked  # fails open by default
    assert elapsed < 0.5 + 2.0  # design: returns within timeout + grace
    await no_leftovers(tag)


async def test_normal_exit_with_background_child_holding_stdout(tmp_path: Path) -> None:
    sleep, tag = tagged_sleep()
    p = project(
        tmp_path, {"Stop": [{"hooks": [{"type": "command", "command": f"echo out; {sleep} & exit 0", "timeout": 0.5}]}]}
    )
    async with HookRunner.from_project(p, user_settings=None) as runner:
        outcome = await runner.fire("Stop", load_payload("Stop", p))
    assert outcome.hooks[0].exit_code == 0 and outcome.hooks[0].stdout == "out\n"
    await no_leftovers(tag)


async def test_background_child_that_closed_its_pipes_is_ended(tmp_path: Path) -> None:
    sleep, tag = tagged_sleep()
    p = project(
        tmp_path,
        {"Stop": [{"hooks": [{"type": "command", "command": f"{sleep} >/dev/null 2>&1 </dev/null & exit 0"}]}]},
    )
    async with HookRunner.from_project(p, user_settings=None) as runner:
        outcome = await runner.fire("Stop", load_payload("Stop", p))
    assert outcome.hooks[0].status is HookStatus.OK
    await no_leftovers(tag)


async def test_fifty_megabytes_of_stdout_is_bounded(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "PostToolUse": [
                {"hooks": [{"type": "command", "command": "head -c 52428800 /dev/zero | tr '\\0' x; echo done >&2"}]}
            ]
        },
    )
    async with HookRunner.from_project(p, user_settings=None, output_limit=1 << 20) as runner:
        outcome = await runner.fire("PostToolUse", load_payload("PostToolUse__Bash", p))
    (result,) = outcome.hooks
    assert result.status is HookStatus.OK and result.truncated
    assert len(result.stdout) == 1 << 20 and result.stderr == "done\n"


async def test_hook_that_never_reads_a_two_megabyte_payload(tmp_path: Path) -> None:
    p = project(
        tmp_path, {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo ignoring-stdin", "timeout": 10}]}]}
    )
    payload = load_payload("PreToolUse__Bash", p)
    payload["tool_input"] = {"command": "x" * (2 << 20)}
    async with HookRunner.from_project(p, user_settings=None) as runner:
        outcome = await runner.fire("PreToolUse", payload)
    assert outcome.hooks[0].status is HookStatus.OK and not outcome.hooks[0].timed_out


async def test_async_hooks_run_in_background_and_end_with_the_runner(tmp_path: Path) -> None:
    sleep, tag = tagged_sleep()
    marker = tmp_path / "started"
    p = project(
        tmp_path,
        {"PostToolUse": [{"hooks": [{"type": "command", "command": f"touch {marker}; {sleep}", "async": True}]}]},
    )
    async with HookRunner.from_project(p, user_settings=None) as runner:
        outcome = await runner.fire("PostToolUse", load_payload("PostToolUse__Bash", p))
        assert outcome.hooks[0].status is HookStatus.SKIPPED  # result ignored
        with anyio.fail_after(5):
            while not leftovers(tag):
                await anyio.sleep(0.02)
    await no_leftovers(tag)


async def test_cancelled_fire_still_ends_the_tree(tmp_path: Path) -> None:
    sleep, tag = tagged_sleep()
    p = project(tmp_path, {"Stop": [{"hooks": [{"type": "command", "command": f"setsid {sleep} & {sleep}"}]}]})
    async with HookRunner.from_project(p, user_settings=None) as runner:
        with anyio.move_on_after(0.3):
            await runner.fire("Stop", load_payload("Stop", p))
    await no_leftovers(tag)
