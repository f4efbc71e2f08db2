"""PythonWorkerPool on its own: cancellation, closing, dead workers, the request format."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import psutil
import pytest

from agent_server._proc import MARKER_ENV
from agent_server.hooks import HookRunner, HookStatus
from agent_server.hooks._config import launcher_path
from agent_server.hooks._pool import PythonWorkerPool

pytestmark = pytest.mark.anyio

HANG = """
import os, sys, time
def run(payload):
    if payload.get("hang"):
        open(payload["hang"], "w").close()
        time.sleep(60)
    return {"pid": os.getpid(), "trace": os.environ.get("TRACEPARENT")}
"""


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


async def wait_for_file(path: Path) -> None:
    with anyio.fail_after(20):
        while not path.exists():
            await anyio.sleep(0.01)


@pytest.fixture
def module(tmp_path: Path) -> str:
    path = tmp_path / "hang.py"
    path.write_text(HANG)
    return str(path)


def make_pool(tmp_path: Path, **kw: Any) -> PythonWorkerPool:
    return PythonWorkerPool(size=kw.pop("size", 2), env=dict(os.environ), cwd=tmp_path, grace=0.5, **kw)


async def call(
    pool: PythonWorkerPool, module: str, payload: dict[str, Any], env: dict[str, str] | None = None, timeout: float = 30
) -> Any:
    return await pool.run(
        module,
        [],
        stdin=(json.dumps(payload) + "\n").encode(),
        env=env if env is not None else dict(os.environ),
        cwd=os.getcwd(),
        timeout=timeout,
    )


async def test_per_call_environment_comes_and_goes(tmp_path: Path, module: str) -> None:
    pool = make_pool(tmp_path, size=1)
    try:
        with_trace = await call(pool, module, {}, {**os.environ, "TRACEPARENT": "00-ab-cd-01"})
        without = await call(pool, module, {})
        assert json.loads(with_trace.stdout)["trace"] == "00-ab-cd-01"
        assert json.loads(without.stdout) == {"pid": json.loads(with_trace.stdout)["pid"], "trace": None}
    finally:
        await pool.aclose()


async def test_cancelled_call_ends_its_worker(tmp_path: Path, module: str) -> None:
    pool = make_pool(tmp_path)
    started = tmp_path / "started"
    async with anyio.create_task_group() as tg:
        tg.start_soon(call, pool, module, {"hang": str(started)})
        await wait_for_file(started)
        pid = pool.pids[0]
        tg.cancel_scope.cancel()
    assert pool.pids == [] and gone(pid)
    result = await call(pool, module, {})  # and the pool still works
    assert result.exit_code == 0
    await pool.aclose()
    assert pool.pids == []


async def test_aclose_kills_busy_workers(tmp_path: Path, module: str) -> None:
    pool = make_pool(tmp_path)
    started = tmp_path / "started"
    results: list[Any] = []

    async def busy() -> None:
        results.append(await call(pool, module, {"hang": str(started)}))

    async with anyio.create_task_group() as tg:
        tg.start_soon(busy)
        await wait_for_file(started)
        pid = pool.pids[0]
        with anyio.fail_after(20):
            await pool.aclose()
    assert gone(pid) and pool.pids == []
    assert results[0].exit_code == -signal.SIGKILL and not results[0].timed_out
    closed = await call(pool, module, {})
    assert closed.spawn_error == "the Python worker pool is closed"


async def test_background_python_hook_ends_with_the_runner(tmp_path: Path) -> None:
    hooks = tmp_path / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "hang.py").write_text(HANG)
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "python", "module": "hang.py", "async": True}]}]}})
    )
    started = tmp_path / "started"
    async with HookRunner.from_project(tmp_path, user_settings=None, kill_grace=0.5) as runner:
        outcome = await runner.fire("Stop", {"hang": str(started)})
        assert outcome.hooks[0].status is HookStatus.SKIPPED
        await wait_for_file(started)
        pool = runner.python_pool
        assert pool is not None
        pid = pool.pids[0]
    assert gone(pid) and pool.pids == []


async def test_idle_worker_killed_from_outside_is_replaced(tmp_path: Path, module: str) -> None:
    pool = make_pool(tmp_path, size=1)
    try:
        first = json.loads((await call(pool, module, {})).stdout)["pid"]
        os.kill(first, signal.SIGKILL)
        with anyio.fail_after(20):
            await pool._idle[0].process.wait()
        result = await call(pool, module, {})
        assert result.exit_code == 0 and json.loads(result.stdout)["pid"] != first
    finally:
        await pool.aclose()


async def test_unstartable_interpreter_is_a_spawn_error(tmp_path: Path, module: str) -> None:
    pool = make_pool(tmp_path, python=str(tmp_path / "no-python"))
    result = await call(pool, module, {})
    assert result.spawn_error is not None and "cannot start" in result.spawn_error
    assert pool.pids == []
    await pool.aclose()


def test_handles_only_the_launcher_with_this_interpreter(tmp_path: Path) -> None:
    pool = make_pool(tmp_path)
    assert pool.handles((sys.executable, launcher_path(), "x.py"))
    assert not pool.handles((sys.executable, launcher_path()))
    assert not pool.handles(("/bin/sh", "-c", "x"))
    with pytest.raises(ValueError):
        PythonWorkerPool(size=0)


def test_request_sends_only_the_difference() -> None:
    base = {"A": "1", "B": "2", MARKER_ENV: "m"}
    worker: Any = SimpleNamespace(env=base)
    env = {"A": "1", "C": "3", "HOOK_PAYLOAD": '{"x":1}'}
    line = PythonWorkerPool._request(worker, "h.py", ["arg"], b'{"x":1}\n', env, "/tmp")
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {
        "module": "h.py",
        "args": ["arg"],
        "cwd": "/tmp",
        "stdin": '{"x":1}\n',
        "env": {"C": "3"},
        "unset": ["B"],
        "payload_env": True,
    }
    # A HOOK_PAYLOAD that differs from stdin (e.g. after updatedInput) is sent as is.
    other = PythonWorkerPool._request(worker, "h.py", [], b"{}\n", {**base, "HOOK_PAYLOAD": "1"}, "/")
    assert json.loads(other)["env"] == {"HOOK_PAYLOAD": "1"}


async def test_endless_output_is_cut_back_while_the_hook_runs(tmp_path: Path) -> None:
    """A warm hook's capture file never holds much more than the output bound on disk."""
    limit = 64 * 1024
    report = tmp_path / "report"
    path = tmp_path / "flood.py"
    path.write_text(f"""
import os, time
def run(payload):
    allocated = []
    for _ in range(5):
        os.write(1, b"z" * (4 << 20))
        deadline = time.monotonic() + 10
        # Block accounting may lag the size by a moment: wait for both (bounded).
        while (os.fstat(1).st_size > {limit} or os.fstat(1).st_blocks * 512 > 4 * {limit}) \\
                and time.monotonic() < deadline:
            time.sleep(0.01)  # the pool cuts the file back every WATCH_PERIOD
        allocated.append(os.fstat(1).st_blocks * 512)
    open({str(report)!r}, "w").write(repr(allocated))
""")
    pool = make_pool(tmp_path, output_limit=limit)
    try:
        result = await call(pool, str(path), {})
    finally:
        await pool.aclose()
    assert result.exit_code == 0
    assert result.stdout == b"z" * limit and result.stdout_truncated
    allocated = eval(report.read_text())
    assert len(allocated) == 5 and max(allocated) <= 4 * limit, allocated


def live_workers() -> list[int]:
    """This process's ``hook_launcher.py --serve`` children that are still running."""
    pids = []
    for child in psutil.Process().children():
        try:
            if "--serve" in child.cmdline() and not gone(child.pid):
                pids.append(child.pid)
        except psutil.Error:
            pass
    return pids


async def test_aclose_during_spawn_ends_the_starting_worker(tmp_path: Path) -> None:
    started = tmp_path / "started"
    path = tmp_path / "mark.py"
    path.write_text(f"def run(payload):\n    open({str(started)!r}, 'w').close()\n")
    pool = make_pool(tmp_path, size=1)
    results: list[Any] = []

    async def first() -> None:
        results.append(await call(pool, str(path), {}))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(first)
            await anyio.sleep(0)  # the call is now in _spawn (shielded open_process)
            await pool.aclose()
            survivors = live_workers()  # aclose() returned: nothing may be running
    assert pool.started == 1 and survivors == [] and pool.pids == []
    assert results[0].spawn_error == "the Python worker pool is closed"
    assert not started.exists()


async def test_aclose_during_a_polite_retire_ends_the_worker_before_returning(tmp_path: Path) -> None:
    """A timed-out call's worker is retired politely (SIGTERM, then ``grace``); an
    aclose() meanwhile must not treat it as already gone, but end it and wait."""
    termed = tmp_path / "termed"
    path = tmp_path / "stubborn.py"
    path.write_text(f"""
import signal, time
def run(payload):
    signal.signal(signal.SIGTERM, lambda *_: open({str(termed)!r}, "w").close())
    while True:
        time.sleep(0.05)
""")
    pool = PythonWorkerPool(size=1, env=dict(os.environ), cwd=tmp_path, grace=15)
    results: list[Any] = []

    async def slow() -> None:
        results.append(await call(pool, str(path), {}, timeout=0.5))

    with anyio.fail_after(10):  # below the 15 s grace: aclose() did not wait it out
        async with anyio.create_task_group() as tg:
            tg.start_soon(slow)
            await wait_for_file(termed)  # the call timed out; its retire is in its grace
            await pool.aclose()
            survivors = live_workers()
    assert survivors == [] and pool.pids == []
    assert results[0].timed_out


async def test_backgrounded_grandchild_is_ended_with_its_worker(tmp_path: Path) -> None:
    """``cmd &`` re-parents the job to the worker (subreaper): it is leftover."""
    pidfile = tmp_path / "bg.pid"
    path = tmp_path / "bg.py"
    path.write_text(f"""
import os
def run(payload):
    os.system("setsid sleep 30 >/dev/null 2>&1 </dev/null & echo $! > {pidfile}")
    return os.getpid()
""")
    pool = make_pool(tmp_path, size=1)
    job = 0
    try:
        with anyio.fail_after(20):
            result = await call(pool, str(path), {})
        job = int(pidfile.read_text())
        assert result.exit_code == 0
        assert gone(job) and gone(int(result.stdout)) and pool.pids == []
    finally:
        if job and not gone(job):
            os.kill(job, signal.SIGKILL)
        await pool.aclose()


async def test_timers_and_signal_handlers_do_not_outlive_the_call(tmp_path: Path) -> None:
    (tmp_path / "arm.py").write_text("""
import signal
def run(payload):
    signal.setitimer(signal.ITIMER_REAL, 0.2)  # would kill the worker in the next call
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
""")
    (tmp_path / "wait.py").write_text("""
import os, signal, time
def run(payload):
    time.sleep(0.4)
    return {"pid": os.getpid(), "term": signal.getsignal(signal.SIGTERM) == signal.SIG_DFL}
""")
    pool = make_pool(tmp_path, size=1)
    try:
        with anyio.fail_after(20):
            armed = await call(pool, str(tmp_path / "arm.py"), {})
            waited = await call(pool, str(tmp_path / "wait.py"), {})
    finally:
        await pool.aclose()
    assert armed.exit_code == 0
    assert waited.exit_code == 0, waited
    assert json.loads(waited.stdout)["term"] is True  # SIGTERM handler put back
    assert pool.started == 1  # the same worker survived the pending timer


async def test_helper_modules_stay_with_their_hook_folder(tmp_path: Path) -> None:
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "common.py").write_text(f"WHO = {sub!r}\n")
        (tmp_path / sub / "x.py").write_text(
            "import common\nCALLS = []\ndef run(payload):\n    CALLS.append(1)\n    return [common.WHO, len(CALLS)]\n"
        )
    pool = make_pool(tmp_path, size=1)
    try:
        with anyio.fail_after(20):
            out = [json.loads((await call(pool, str(tmp_path / sub / "x.py"), {})).stdout) for sub in ("a", "b", "a")]
    finally:
        await pool.aclose()
    # b gets its own helper; a stays warm (module state kept) with its own.
    assert out == [["a", 1], ["b", 1], ["a", 2]] and pool.started == 1


async def test_thread_left_running_retires_the_worker(tmp_path: Path) -> None:
    path = tmp_path / "thread.py"
    path.write_text("""
import os, threading, time
def run(payload):
    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    return os.getpid()
""")
    pool = make_pool(tmp_path, size=1)
    try:
        with anyio.fail_after(20):
            result = await call(pool, str(path), {})
        assert result.exit_code == 0 and gone(int(result.stdout)) and pool.pids == []
    finally:
        await pool.aclose()
