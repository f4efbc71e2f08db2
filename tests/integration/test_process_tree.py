"""Timeouts that really end the whole tree, bounded output, no orphans, no zombies."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import uuid
from asyncio import unix_events
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest

from agent_server._proc import (
    ProcessResult,
    disable_orphan_reaping,
    enable_orphan_reaping,
    run_process,
)
from agent_server.hooks import HookRunner, HookStatus
from tests.support import load_payload, project

pytestmark = pytest.mark.anyio


async def run_sh(script: str, cwd: Path, **options: Any) -> ProcessResult:
    """``sh -c script`` through :func:`run_process`, with ``{}`` on stdin, this process's
    environment, a fresh marker and ``options`` (``timeout``, ``grace``, ...)."""
    return await run_process(
        ["sh", "-c", script], stdin=b"{}\n", env=dict(os.environ), cwd=str(cwd), marker=uuid.uuid4().hex, **options
    )


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


# -- run_process directly: cancellation, daemons, forking escapees, pid reuse ----------


async def wait_for_pid_file(path: Path, seconds: float = 3.0) -> int:
    """The pid a hook wrote to ``path``, once that process runs."""
    with anyio.fail_after(seconds):
        while True:
            text = path.read_text().strip() if path.exists() else ""
            if text and psutil.pid_exists(int(text)):
                return int(text)
            await anyio.sleep(0.01)


def kill_leftovers(tag: str) -> None:
    for proc in leftovers(tag):
        with contextlib.suppress(psutil.Error):
            proc.kill()
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error, OSError):
            if child.status() == psutil.STATUS_ZOMBIE:
                os.waitpid(child.pid, os.WNOHANG)


async def test_cancel_after_leader_exit_ends_grandchild_holding_stdout(tmp_path: Path) -> None:
    sleep, tag = tagged_sleep()
    pid_file = tmp_path / "pid"
    try:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:

                async def run() -> None:
                    await run_sh(f"{sleep} & echo $! > {pid_file}; exit 0", tmp_path, timeout=30)

                tg.start_soon(run)
                await wait_for_pid_file(pid_file)
                while any(
                    p.name() == "sh" and pid_file.name in " ".join(p.cmdline()) for p in psutil.Process().children()
                ):
                    await anyio.sleep(0.01)  # until the leader exited (and was reaped)
                tg.cancel_scope.cancel()
        await no_leftovers(tag)
    finally:
        kill_leftovers(tag)


@pytest.mark.parametrize(
    "shape",
    [
        "setsid {sleep} >/dev/null 2>&1 </dev/null & echo $! > {pid}; exit 0",
        "( setsid sh -c 'echo $$ > {pid}; exec {sleep}' >/dev/null 2>&1 </dev/null & ); exit 0",
    ],
)
async def test_daemon_that_left_the_session_is_ended_after_normal_exit(tmp_path: Path, shape: str) -> None:
    sleep, tag = tagged_sleep()
    pid_file = tmp_path / "pid"
    command = shape.format(sleep=sleep, pid=pid_file)
    reaping = enable_orphan_reaping()
    try:
        with anyio.fail_after(5):
            result = await run_sh(command, tmp_path, timeout=5)
        assert result.exit_code == 0 and not result.timed_out
        await no_leftovers(tag)  # neither running nor our zombie
    finally:
        if reaping:
            disable_orphan_reaping()
        kill_leftovers(tag)


async def test_forking_escapee_is_ended_with_everything_it_forks(tmp_path: Path) -> None:
    sleep, tag = tagged_sleep()
    inner = f"trap '' TERM; while :; do {sleep} & done"
    try:
        # Generous: a fork storm on a loaded 2-core machine reaches ~10,000 processes
        # before the kill, and each scan reads all of their environments.
        with anyio.fail_after(30):
            result = await run_sh(f'setsid sh -c "{inner}" & wait', tmp_path, timeout=0.5, grace=0.3)
        assert result.timed_out
        await no_leftovers(tag)
    finally:
        for _ in range(5):
            kill_leftovers(tag)


NS_LAST_PID = Path("/proc/sys/kernel/ns_last_pid")


@pytest.mark.skipif(not os.access(NS_LAST_PID, os.W_OK), reason="needs a writable ns_last_pid")
async def test_recycled_leader_pid_is_never_signalled(tmp_path: Path) -> None:
    sleep, tag = tagged_sleep()
    other_sleep, other_tag = tagged_sleep()
    pid_file = tmp_path / "leader"
    victim: subprocess.Popen[bytes] | None = None
    try:
        with anyio.fail_after(8):
            async with anyio.create_task_group() as tg:
                results: list[ProcessResult] = []

                async def run() -> None:
                    # The escapee keeps stdout, so the tree is ended after the leader left.
                    results.append(
                        await run_sh(
                            f"echo $$ > {pid_file}; setsid {sleep} & sleep 0.3", tmp_path, timeout=1, grace=0.3
                        )
                    )

                tg.start_soon(run)
                leader = await wait_for_pid_file(pid_file)
                while psutil.pid_exists(leader):  # exited and reaped
                    await anyio.sleep(0.01)
                # An unrelated job in its own session gets the leader's pid (and group id).
                for _ in range(50):
                    NS_LAST_PID.write_text(str(leader - 1))
                    victim = subprocess.Popen(["sh", "-c", f"{other_sleep} & wait"], start_new_session=True)
                    if victim.pid == leader:
                        break
                    victim.kill()
                    victim.wait()
                    victim = None
                if victim is None:
                    pytest.skip("could not get the recycled pid")
                while not leftovers(other_tag):
                    await anyio.sleep(0.01)
        assert results[0].exit_code == 0
        assert victim.poll() is None and leftovers(other_tag), "an unrelated tree was killed"
        await no_leftovers(tag)
    finally:
        if victim is not None:
            victim.kill()
            victim.wait()
        kill_leftovers(tag)
        kill_leftovers(other_tag)


async def test_cancel_during_spawn_ends_what_the_leader_forked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sleep, tag = tagged_sleep()
    pid_file = tmp_path / "pid"
    scopes: list[anyio.CancelScope] = []
    start = unix_events._UnixSubprocessTransport._start

    def slow_start(self: Any, *args: Any, **kwargs: Any) -> None:
        start(self, *args, **kwargs)  # forked and exec'd; asyncio connects the pipes next
        deadline = time.monotonic() + 2
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # a busy loop: meanwhile the hook forks
        scopes[0].cancel()

    monkeypatch.setattr(unix_events._UnixSubprocessTransport, "_start", slow_start)
    try:
        with anyio.fail_after(5), anyio.CancelScope() as scope:
            scopes.append(scope)
            await run_sh(f"{sleep} & echo $! > {pid_file}; wait", tmp_path, timeout=30)
        monkeypatch.undo()
        assert scope.cancelled_caught and pid_file.exists()
        await no_leftovers(tag)
    finally:
        kill_leftovers(tag)


# -- a marked daemon caught in the middle of exec() ------------------------------------
# /proc/PID/environ reads empty for a moment while a process exec()s. A daemon that left
# the hook's session (setsid -> sh -> sleep) is often exec'ing just as its hook exits, so
# the check after the hook read it empty and let it live (seen as a flaky failure of
# test_daemon_that_left_the_session_is_ended_after_normal_exit, about 1 run in 12).


@contextlib.contextmanager
def _child(env: dict[str, str]) -> Any:
    """A sleeping child of this process with exactly ``env``; killed and reaped after."""
    proc = subprocess.Popen(["/bin/sleep", "30"], env=env)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def subreaper() -> Any:
    """This process as the subreaper of orphans for the test (skipped where there is none)."""
    if not enable_orphan_reaping():
        pytest.skip("no child subreaper here")
    yield
    disable_orphan_reaping()


def _environ_reads(monkeypatch: pytest.MonkeyPatch, empty_first: int | None = None) -> list[str]:
    """Record every environment read of ``_adopted`` (a pid per read); the first read
    of ``empty_first`` reads empty, as a process in the middle of exec() does."""
    from agent_server import _proc as _process

    real, reads = _process._environ, []

    def recording(pid: str) -> bytes | None:
        reads.append(pid)
        if empty_first is not None and pid == str(empty_first) and reads.count(pid) == 1:
            return b""
        return real(pid)

    monkeypatch.setattr(_process, "_environ", recording)
    return reads


@pytest.mark.usefixtures("subreaper")
async def test_adopted_reads_a_child_again_when_its_environment_reads_empty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_server import _proc as _process

    marker = uuid.uuid4().hex
    with _child({_process.MARKER_ENV: marker}) as proc:
        reads = _environ_reads(monkeypatch, empty_first=proc.pid)
        with anyio.fail_after(2):
            assert await _process._adopted(marker)
        assert reads.count(str(proc.pid)) == 2  # read again after a moment

        # Without the second look, the daemon is missed: the failure this fixes.
        reads = _environ_reads(monkeypatch, empty_first=proc.pid)
        monkeypatch.setattr(_process, "_EXEC_RETRIES", 0)
        assert not await _process._adopted(marker)


@pytest.mark.usefixtures("subreaper")
async def test_adopted_is_bounded_for_a_child_without_an_environment() -> None:
    from agent_server import _proc as _process

    with _child({}) as proc:  # empty for good: not mid-exec, and not the marked one
        assert _process._environ(str(proc.pid)) == b""
        started = time.monotonic()
        with anyio.fail_after(2):
            assert not await _process._adopted(uuid.uuid4().hex)
        took = time.monotonic() - started
        assert took >= _process._EXEC_SETTLE * _process._EXEC_RETRIES  # it did look again


@pytest.mark.usefixtures("subreaper")
async def test_adopted_does_not_wait_on_a_zombie_child(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_server import _proc as _process

    proc = subprocess.Popen(["/bin/true"], env={})
    try:
        # Exited, not reaped: a zombie child, whose environment is empty for good.
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
        assert not _process._alive(proc.pid)
        reads = _environ_reads(monkeypatch)
        assert not await _process._adopted(uuid.uuid4().hex)
        assert reads.count(str(proc.pid)) == 1  # no second look: it has exited
    finally:
        proc.wait()


@pytest.mark.usefixtures("subreaper")
async def test_adopted_skips_hook_leaders_of_other_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A concurrent run's leader is our child too, and may be mid-exec right then: it is
    never an adopted daemon, so it is not read, let alone waited for."""
    from agent_server import _proc as _process

    with _child({}) as proc:
        monkeypatch.setattr(_process, "_LEADERS", {str(proc.pid)})
        reads = _environ_reads(monkeypatch)
        assert not await _process._adopted(uuid.uuid4().hex)
        assert str(proc.pid) not in reads


async def test_leaders_are_forgotten_once_reaped(tmp_path: Path) -> None:
    from agent_server import _proc as _process

    before = set(_process._LEADERS)
    during: list[set[str]] = []
    result = await run_sh("exit 3", tmp_path, timeout=5, while_running=lambda: during.append(set(_process._LEADERS)))
    assert result.exit_code == 3
    assert len(during) == 1 and len(during[0] - before) == 1  # known while it ran
    after = set(_process._LEADERS)
    assert after == before
