"""Run one hook process and make sure it, and everything it started, ends.

The rules (design.md "Running hooks"): the hook leads its own session and process
group; the payload goes to stdin as one line; stdout/stderr are captured up to a bound
and the rest drained; at the deadline the group gets SIGTERM, then SIGKILL together
with every descendant still alive (also those that left the group with ``setsid``);
the call returns within ``timeout + grace`` even when a grandchild holds the pipes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import anyio
import anyio.abc
import psutil

__all__ = ["ProcessResult", "disable_orphan_reaping", "enable_orphan_reaping", "run_process"]

MARKER_ENV = "AGENT_SERVER_HOOK_RUN"
_CHUNK = 65536
# Linux pipes buffer 64 KiB; a payload this small is written without waiting.
_SMALL_STDIN = 32768
_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False
_subreaper_users = 0


def _set_subreaper(on: bool) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def enable_orphan_reaping() -> bool:
    """Make this process the reaper of orphaned hook descendants (Linux only).

    Some inits (containers, sandboxes) never reap orphans, so a killed grandchild would
    stay a zombie. As subreaper, orphans come back to us and :func:`run_process` reaps
    the ones it killed. Reference-counted: pair each call with
    :func:`disable_orphan_reaping`; the process stops being a subreaper after the last.
    Returns whether it is in effect.
    """
    global _subreaper, _subreaper_users
    if not _subreaper:
        _subreaper = _set_subreaper(True)
    if _subreaper:
        _subreaper_users += 1
    return _subreaper


def disable_orphan_reaping() -> None:
    """Undo one :func:`enable_orphan_reaping` (the host's own orphans go to init again)."""
    global _subreaper, _subreaper_users
    _subreaper_users = max(0, _subreaper_users - 1)
    if _subreaper_users == 0 and _subreaper:
        _set_subreaper(False)
        _subreaper = False


@dataclass
class ProcessResult:
    """What one process run produced. ``exit_code`` is negative for a signal."""

    exit_code: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    timed_out: bool = False
    spawn_error: str | None = None
    killed_descendants: int = 0


class _Capture:
    """Keeps the first ``limit`` bytes of a stream and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0
        self.truncated = False
        self.done = anyio.Event()

    def feed(self, data: bytes) -> None:
        room = self.limit - self.size
        if room <= 0:
            self.truncated = True
            return
        if len(data) > room:
            data = data[:room]
            self.truncated = True
        self.parts.append(data)
        self.size += len(data)

    def value(self) -> bytes:
        return b"".join(self.parts)


async def _wait_drained(*captures: _Capture) -> None:
    # Event.wait() yields to the loop even when set; skip it on the common path.
    for cap in captures:
        if not cap.done.is_set():
            await cap.done.wait()


async def _drain(stream: anyio.abc.ByteReceiveStream | None, cap: _Capture) -> None:
    try:
        if stream is not None:
            async for chunk in stream:
                cap.feed(chunk)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        pass
    finally:
        cap.done.set()


async def _feed(stream: anyio.abc.ByteSendStream | None, data: bytes) -> None:
    if stream is None:
        return
    # A hook that never reads stdin, or exits early, is fine: a broken pipe is expected.
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stream.send(data)
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stream.aclose()


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to a process group; False when the group is empty."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _group_members(pgid: int) -> list[psutil.Process]:
    members = []
    for proc in psutil.process_iter(["pid"]):
        with contextlib.suppress(psutil.Error, OSError):
            if os.getpgid(proc.pid) == pgid:
                members.append(proc)
    return members


def _marked_processes(marker: str) -> list[psutil.Process]:
    """Processes whose environment carries this run's marker (they left the group)."""
    found = []
    me = os.getpid()
    for proc in psutil.process_iter(["pid"]):
        if proc.pid == me:
            continue
        with contextlib.suppress(psutil.Error, OSError):
            if proc.environ().get(MARKER_ENV) == marker:
                found.append(proc)
    return found


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return list(psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return []


def _alive(proc: psutil.Process | int) -> bool:
    """Running and not a zombie (a pid that is gone is not alive)."""
    try:
        if isinstance(proc, int):
            proc = psutil.Process(proc)
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _reap(pids: set[int]) -> None:
    """Reap killed descendants that became our children (subreaper), without blocking."""
    me = os.getpid()
    for pid in list(pids):
        try:
            if psutil.Process(pid).ppid() != me:
                continue
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                pids.discard(pid)
        except (psutil.Error, ChildProcessError, OSError):
            pids.discard(pid)


async def _kill_tree(
    process: anyio.abc.Process, marker: str, grace: float, *, polite: bool
) -> int:
    """End the hook's whole tree; returns how many processes besides the leader it hit.

    ``polite`` sends SIGTERM first and waits up to ``grace``; then SIGKILL to the group,
    to every descendant seen, and to every process carrying the run marker.
    """
    pgid = process.pid
    seen = [*_descendants(process.pid), *_group_members(pgid)]
    if marker:
        seen += _marked_processes(marker)
    victims = {p.pid: p for p in seen if p.pid != process.pid}
    if polite:
        _signal_group(pgid, signal.SIGTERM)
        for proc in victims.values():
            with contextlib.suppress(psutil.Error):
                proc.terminate()
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if (
                not _alive(process.pid)
                and not any(_alive(p) for p in victims.values())
                and not _group_alive(pgid)
            ):
                break
            await anyio.sleep(0.02)
    for proc in _descendants(process.pid):
        victims.setdefault(proc.pid, proc)
    _signal_group(pgid, signal.SIGKILL)
    for proc in [*victims.values(), *(_marked_processes(marker) if marker else [])]:
        if proc.pid == process.pid:
            continue  # the leader is anyio's child to reap: its exit status is ours to read
        victims.setdefault(proc.pid, proc)
        with contextlib.suppress(psutil.Error):
            proc.kill()
    if process.returncode is None:
        # os.kill, not process.kill(): Popen.send_signal() polls first, which would reap
        # the zombie leader behind asyncio's back and lose its exit status (255).
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)
    if _subreaper:
        pending = set(victims)
        with anyio.move_on_after(1.0):
            while pending:
                _reap(pending)
                if pending:
                    await anyio.sleep(0.01)
    return len(victims)


def _group_alive(pgid: int) -> bool:
    """True while a live (non-zombie) process is still in the group."""
    if not _signal_group(pgid, 0):
        return False
    return any(_alive(p) for p in _group_members(pgid))


async def run_process(
    argv: Sequence[str],
    *,
    stdin: bytes,
    env: Mapping[str, str],
    cwd: str,
    timeout: float,
    grace: float = 1.5,
    output_limit: int = 1 << 20,
    marker: str = "",
    while_running: Callable[[], object] | None = None,
) -> ProcessResult:
    """Run ``argv`` to completion or deadline and return what it produced.

    ``while_running`` is called once the process has started and has its stdin: the
    event loop would only wait for the process now, so short bookkeeping (the
    runner's deferred span ends) costs no latency there. Its errors are ignored.

    Never raises for the hook's own failures (missing file, crash, timeout): those are
    in the result. If the *caller* is cancelled, the tree is still ended and the leader
    reaped (shielded, bounded) before the cancellation propagates.
    """
    full_env = dict(env)
    if marker:
        full_env[MARKER_ENV] = marker
    result = ProcessResult()
    try:
        process = await anyio.open_process(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=full_env,
            start_new_session=True,
        )
    except OSError as exc:
        result.spawn_error = f"cannot start {argv[0]!r}: {exc.strerror or exc}"
        return result

    out, err = _Capture(output_limit), _Capture(output_limit)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_drain, process.stdout, out)
            tg.start_soon(_drain, process.stderr, err)
            if len(stdin) <= _SMALL_STDIN:
                # Fits the pipe buffer: the write cannot block, so no task is needed.
                await _feed(process.stdin, stdin)
            else:
                tg.start_soon(_feed, process.stdin, stdin)
            if while_running is not None:
                try:  # noqa: SIM105 (no context manager per hook on this path)
                    while_running()
                except Exception:  # bookkeeping never breaks a hook
                    pass
            with anyio.move_on_after(timeout):
                await process.wait()
                # The leader is done. Pipes still open means something it started holds
                # them: wait for EOF until the deadline, then end the rest of the tree.
                await _wait_drained(out, err)
            if process.returncode is None:
                result.timed_out = True
            if (
                result.timed_out
                or not (out.done.is_set() and err.done.is_set())
                or _signal_group(process.pid, 0)
            ):
                with anyio.CancelScope(shield=True):
                    result.killed_descendants = await _kill_tree(
                        process, marker, grace, polite=True
                    )
                # Whatever still held the pipes was just killed; don't wait on it forever.
                with anyio.move_on_after(grace):
                    await _wait_drained(out, err)
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                await _kill_tree(process, marker, grace, polite=False)
                with anyio.move_on_after(grace + 1.0):
                    await process.wait()
            await process.aclose()
    result.exit_code = process.returncode
    result.stdout, result.stderr = out.value(), err.value()
    result.stdout_truncated, result.stderr_truncated = out.truncated, err.truncated
    return result
