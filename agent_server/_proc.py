"""Run one process and make sure it, and everything it started, ends.

Shared by the hook engine (every command hook) and the server's Bash tool, so it lives
beside both packages rather than inside either.

The rules (design.md "Running hooks"): the hook leads its own session and process
group; the payload goes to stdin as one line; stdout/stderr are captured up to a bound
and the rest drained; at the deadline the group gets SIGTERM, then SIGKILL together
with every descendant still alive (also those that left the group with ``setsid``);
the call returns within ``timeout + grace`` even when a grandchild holds the pipes.
After a normal exit, what is left of the tree is ended too: a member still in the group,
or (with the subreaper on) a re-parented daemon carrying the run's marker in its
environment, read again for a moment when caught in the middle of exec().
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import anyio
import anyio.abc
import anyio.lowlevel
import psutil

__all__ = [
    "MARKER_ENV",
    "SMALL_STDIN",
    "ProcessResult",
    "disable_orphan_reaping",
    "enable_orphan_reaping",
    "kill_tree",
    "run_process",
    "signal_group",
]

#: Set in a run's environment (``marker`` of :func:`run_process`): how its processes are
#: found after they left the process group.
MARKER_ENV = "AGENT_SERVER_HOOK_RUN"
#: Stdin up to this size fits an empty pipe's buffer (64 KiB on Linux), so writing it
#: cannot block.
SMALL_STDIN = 32768
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
    pid: int | None = None  # the process's id, once it started


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


def signal_group(pgid: int, sig: int) -> bool:
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


def _needle(marker: str) -> bytes:
    return f"{MARKER_ENV}={marker}\0".encode()


def _environ(pid: str) -> bytes | None:
    """Process ``pid``'s environment block (Linux /proc); None when it is gone or not
    readable. A process in the middle of exec() shows an empty one for a moment."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read()
    except OSError:
        return None


def _holds(environ: bytes, needle: bytes) -> bool:
    return environ.startswith(needle) or b"\0" + needle in environ


def _carries(pid: str, needle: bytes) -> bool:
    """Whether process ``pid``'s environment holds ``needle`` (Linux /proc)."""
    environ = _environ(pid)
    return environ is not None and _holds(environ, needle)


def _marked_processes(marker: str) -> list[psutil.Process]:
    """Processes whose environment carries this run's marker (they left the group).

    Zombies are not found: their environment is gone. Reads /proc directly on Linux:
    psutil's environ() parsing is ~50x slower, and a fork storm has thousands to read.
    """
    found = []
    me = os.getpid()
    if sys.platform.startswith("linux") and os.path.isdir("/proc"):
        needle = _needle(marker)
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != me and _carries(name, needle):
                with contextlib.suppress(psutil.Error):
                    found.append(psutil.Process(int(name)))
        return found
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


def _reap(pids: set[int], groups: set[int], leader: int) -> None:
    """Reap killed descendants that became our children (subreaper), without blocking.

    Besides the ``pids`` seen, any zombie child of ours in one of the killed ``groups``
    is reaped too: a group kill also ends processes no scan saw. Those groups belong to
    the hook's own sessions, so no other run's child is in them; the leader is left to
    asyncio, which reads its exit status.
    """
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
    if not groups:
        return
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process(me).children():
            with contextlib.suppress(psutil.Error, ChildProcessError, OSError):
                pgid = os.getpgid(child.pid)
                # A group leader might be another run's leader (its pid reusing an old
                # group id): those, like ours, are asyncio's to reap.
                if child.pid not in (leader, pgid) and pgid in groups and child.status() == psutil.STATUS_ZOMBIE:
                    os.waitpid(child.pid, os.WNOHANG)


# How long the SIGKILL rounds may go on while marked processes keep appearing (a
# forking escapee); each round also kills whole groups, so this is rarely reached.
_RESCAN_LIMIT = 2.0


async def kill_tree(process: anyio.abc.Process, marker: str, grace: float, *, polite: bool) -> int:
    """End the hook's whole tree; returns how many processes besides the leader it hit.

    ``polite`` sends SIGTERM first and waits up to ``grace``; then SIGKILL to the group,
    to every descendant seen, to every process carrying the run marker and to their
    groups, again until a scan finds no live marked process (bounded).

    The leader's pid, and so its group id, is only ours while the leader is unreaped
    (``returncode is None``): after that the kernel may give it to an unrelated process.
    Then only marked processes and psutil handles taken earlier (psutil checks they are
    still the same process) are signalled.
    """
    pgid = process.pid
    own_group = os.getpgrp()
    victims: dict[int, psutil.Process] = {}

    def leader_ours() -> bool:
        return process.returncode is None

    def collect() -> list[psutil.Process]:
        found: list[psutil.Process] = []
        if leader_ours():
            found += [*_descendants(process.pid), *_group_members(pgid)]
        if marker:
            found += _marked_processes(marker)
        found = [proc for proc in found if proc.pid != process.pid]
        for proc in found:
            victims.setdefault(proc.pid, proc)
        return found

    def signal_all(found: list[psutil.Process], sig: signal.Signals) -> set[int]:
        """``sig`` to the leader's group (while ours), to the groups of ``found`` (a
        forking escapee leads one: killpg reaches what no scan has seen yet, and a
        fork storm of thousands costs a few calls), and to those left in our group."""
        groups = {pgid} if leader_ours() else set()
        singles: list[psutil.Process] = []
        for proc in found:
            try:  # (just scanned: still that process)
                group = os.getpgid(proc.pid)
            except OSError:
                continue
            if group == own_group:
                singles.append(proc)
            else:
                groups.add(group)
        for group in groups:
            signal_group(group, sig)
        for proc in singles:
            with contextlib.suppress(psutil.Error):
                proc.send_signal(sig)
        return groups

    found = collect()
    if polite:
        signal_all(found, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not any(_alive(p) for p in victims.values()) and not (
                leader_ours() and (_alive(process.pid) or _group_alive(pgid))
            ):
                break
            await anyio.sleep(0.02)
        found = collect()
    groups: set[int] = set()
    deadline = time.monotonic() + _RESCAN_LIMIT
    while True:
        # Only groups seen this round: one emptied earlier may have a recycled id now.
        groups |= signal_all(found, signal.SIGKILL)
        if leader_ours():
            # os.kill, not process.kill(): Popen.send_signal() polls first, which would
            # reap the zombie leader behind asyncio's back and lose its exit status.
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        if not marker or time.monotonic() >= deadline:
            break
        await anyio.sleep(0.01)
        found = collect()  # anything forked since the last scan?
        # (A marked child the scan read in the middle of exec() goes round once more.)
        if not any(_alive(p) for p in found) and not await _adopted(marker):
            break
    if _subreaper:
        pending = set(victims)
        with anyio.move_on_after(1.0):
            while pending:
                _reap(pending, groups, process.pid)
                if pending:
                    await anyio.sleep(0.01)
        _reap(pending, groups, process.pid)
    return len(victims)


def _group_alive(pgid: int) -> bool:
    """True while a live (non-zombie) process is still in the group."""
    if not signal_group(pgid, 0):
        return False
    return any(_alive(p) for p in _group_members(pgid))


async def _leftovers(process: anyio.abc.Process, marker: str) -> bool:
    """Whether anything of the tree may still run after the leader exited on its own.

    Cheap, as it runs after every hook (a scan of every process's environment costs
    ~0.6 ms): a member left in the hook's group, or, with the subreaper on, a marked
    child of ours (a daemon that left the group with ``setsid`` or a double fork is
    re-parented to us). A pid is never reused while it names a live group, so the group
    check cannot hit another process's group while ours has members.
    """
    if process.returncode is None:
        return True
    return signal_group(process.pid, 0) or await _adopted(marker)


# A child whose environment reads empty may be in the middle of exec() (a daemon going
# setsid -> sh -> sleep is, often, just as its hook exits): read again this often (s),
# this many times. Empty for longer, it is a process without an environment.
_EXEC_SETTLE = 0.001
_EXEC_RETRIES = 3
# The hook leaders run_process has started and not yet reaped (pids, as /proc lists
# them): children of ours but never adopted ones, and one may be mid-exec when another
# hook's check runs (concurrent fires), which must not make that check wait.
_LEADERS: set[str] = set()


async def _adopted(marker: str) -> bool:
    """With the subreaper on: one of this process's children carries ``marker``.

    A live child whose environment reads empty is read again a few times, a millisecond
    apart: one caught in the middle of exec() shows it again at once (without that, a
    daemon exec'ing at the moment of the check escaped it).
    """
    if not (_subreaper and marker):
        return False
    # Orphans are re-parented to the main thread (the kernel picks the first live thread,
    # the leader first), so its list is the only one to read: one file per hook.
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = f.read().split()
    except OSError:
        return False
    needle = _needle(marker)
    to_read = [child for child in children if child not in _LEADERS]
    for attempt in range(_EXEC_RETRIES + 1):
        if attempt:
            await anyio.sleep(_EXEC_SETTLE)
        unsure = []
        for child in to_read:
            environ = _environ(child)
            if environ is None:  # gone
                continue
            if _holds(environ, needle):
                return True
            # (A zombie's environment is empty for good, not for an exec().)
            if not environ and _alive(int(child)):
                unsure.append(child)
        if not unsure:
            return False
        to_read = unsure  # only the ones that read empty are read again
    return False


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
    launch: Callable[[Mapping[str, str], bytes], Awaitable[anyio.abc.Process | None]] | None = None,
) -> ProcessResult:
    """Run ``argv`` to completion or deadline and return what it produced.

    ``while_running`` is called once the process has started and has its stdin: the
    event loop would only wait for the process now, so short bookkeeping (the
    runner's deferred span ends) costs no latency there. Its errors are ignored.

    ``launch``, given the full environment and ``stdin``, may start the process another
    way (a fork server: ``agent_server.hooks._forkserver``) and return it, or return None
    for the ordinary spawn; everything after the start is the same for both (a launched
    process whose ``stdin`` is None was given its input already).

    Never raises for the hook's own failures (missing file, crash, timeout): those are
    in the result. If the *caller* is cancelled, the tree is still ended and the leader
    reaped (shielded, bounded) before the cancellation propagates.
    """
    full_env = dict(env)
    if marker:
        full_env[MARKER_ENV] = marker
    result = ProcessResult()
    try:
        # Shielded: cancelled while asyncio connects the pipes, it would kill only the
        # leader, not what the leader already forked. The finally below ends it all.
        with anyio.CancelScope(shield=True):
            launched = await launch(full_env, stdin) if launch is not None else None
            process = launched or await anyio.open_process(
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
    ended = False  # set once the tree is known to be ended (or found empty)
    leader = str(process.pid)
    result.pid = process.pid
    _LEADERS.add(leader)
    try:
        await anyio.lowlevel.checkpoint_if_cancelled()  # a cancel held off by the shield
        async with anyio.create_task_group() as tg:
            tg.start_soon(_drain, process.stdout, out)
            tg.start_soon(_drain, process.stderr, err)
            if len(stdin) <= SMALL_STDIN:
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
            if result.timed_out or not (out.done.is_set() and err.done.is_set()) or await _leftovers(process, marker):
                with anyio.CancelScope(shield=True):
                    result.killed_descendants = await kill_tree(process, marker, grace, polite=True)
                ended = True
                # Whatever still held the pipes was just killed; don't wait on it forever.
                with anyio.move_on_after(grace):
                    await _wait_drained(out, err)
            else:
                ended = True  # nothing of the tree is left
            tg.cancel_scope.cancel()
    finally:
        try:
            with anyio.CancelScope(shield=True):
                # Not "returncode is None": after the leader exits, what it started can
                # still run (and hold the pipes) when the caller is cancelled.
                if not ended:
                    await kill_tree(process, marker, grace, polite=False)
                if process.returncode is None:
                    with anyio.move_on_after(grace + 1.0):
                        await process.wait()
                await process.aclose()
        finally:
            _LEADERS.discard(leader)  # whatever the clean-up raised
    result.exit_code = process.returncode
    result.stdout, result.stderr = out.value(), err.value()
    result.stdout_truncated, result.stderr_truncated = out.truncated, err.truncated
    return result
