"""Warm Python hook workers: ``hook_launcher.py --serve`` processes kept between calls.

A Python hook (``kind="python"``) normally costs a fresh interpreter per call. The pool
keeps up to ``size`` worker processes instead and sends each call to an idle one over
the line-delimited JSON protocol documented in ``hook_launcher.py``; the hook's
stdout/stderr land in two files per worker that the pool reads after the reply, bounded
to ``output_limit``. What a hook observes (payload, environment, cwd, argv, output,
exit status, tracebacks) is the same as cold.

Rules:

* One call per worker at a time. Idle workers are handed out first; new ones start
  lazily up to ``size``; further calls wait for a free worker (the wait is not part of
  the hook's timeout, as waiting for the runner's process limit is not).
* Workers lead their own session and process group, get the runner's base environment
  (plus a marker, see ``agent_server._proc.MARKER_ENV``) and start in the project directory.
* A worker that times out, crashes, breaks the protocol, is cancelled mid-call or leaves
  child processes or threads behind is ended with its whole process tree
  (``agent_server._proc.kill_tree``) and replaced by a new one when next needed.
* :meth:`PythonWorkerPool.aclose` ends every worker: idle ones get EOF and exit, busy
  ones are killed, and ones still starting are waited for and killed (a call whose
  worker finished starting after the close gets the pool-closed error; the hook never
  runs).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from typing import IO, Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from .._proc import MARKER_ENV, ProcessResult, kill_tree, signal_group

__all__ = ["DEFAULT_PYTHON_WORKERS", "PythonWorkerPool"]

#: Workers per runner unless configured (``HookRunner(python_workers=N)`` or
#: ``"hookRunner": {"pythonWorkers": N}``); 0 turns warm mode off.
DEFAULT_PYTHON_WORKERS = 4
_MAX_REPLY = 1 << 16
_CLOSE_WAIT = 2.0
#: While a call runs, its capture files are cut back to the output bound this often, so
#: a hook that prints without end cannot fill the disk (cold hooks drain and drop).
WATCH_PERIOD = 0.1

_DEAD = (
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.DelimiterNotFound,
    OSError,
)


def _read_capture(file: IO[bytes], limit: int) -> tuple[bytes, bool]:
    """The first ``limit`` bytes of a capture file, and whether there was more."""
    fd = file.fileno()
    size = os.fstat(fd).st_size
    if size <= 0:
        return b"", False
    return os.pread(fd, min(size, limit), 0), size > limit


def _clip(file: IO[bytes], limit: int) -> bool:
    """Cut a capture file back to ``limit`` bytes; True when it was longer.

    The writer's offset stays where it was, so later writes leave a hole (no disk
    blocks) before them; the first ``limit`` bytes are untouched.
    """
    fd = file.fileno()
    if os.fstat(fd).st_size <= limit:
        return False
    os.ftruncate(fd, limit)
    return True


class _Worker:
    """One ``hook_launcher.py --serve`` process and its capture files."""

    def __init__(
        self, process: anyio.abc.Process, out: IO[bytes], err: IO[bytes], marker: str, env: dict[str, str]
    ) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self.reader = BufferedByteReceiveStream(process.stdout)
        self.out = out
        self.err = err
        self.marker = marker
        self.env = env
        self.calls = 0
        self.clipped_out = self.clipped_err = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def clip(self, limit: int) -> None:
        """Bound the current call's capture files (see :data:`WATCH_PERIOD`)."""
        out, err = _clip(self.out, limit), _clip(self.err, limit)
        self.clipped_out = self.clipped_out or out
        self.clipped_err = self.clipped_err or err

    def read_output(self, result: ProcessResult, limit: int) -> None:
        result.stdout, result.stdout_truncated = _read_capture(self.out, limit)
        result.stderr, result.stderr_truncated = _read_capture(self.err, limit)
        result.stdout_truncated |= self.clipped_out
        result.stderr_truncated |= self.clipped_err

    def close_files(self) -> None:
        self.out.close()
        self.err.close()


class PythonWorkerPool:
    """Up to ``size`` warm workers running Python hooks for one :class:`HookRunner`.

    ``env`` is the workers' start environment (the runner's base environment); each
    call's environment is sent as a difference from it. ``python`` and ``launcher`` name
    the interpreter and ``hook_launcher.py``; only hooks whose argv starts with those two
    run warm (:meth:`handles`).
    """

    def __init__(
        self,
        *,
        size: int = DEFAULT_PYTHON_WORKERS,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        python: str = sys.executable,
        launcher: str | None = None,
        output_limit: int = 1 << 20,
        grace: float = 1.5,
    ) -> None:
        if size < 1:
            raise ValueError("a worker pool needs size >= 1 (use 0 workers = no pool)")
        if launcher is None:
            from ._config import launcher_path

            launcher = launcher_path()
        self.size = size
        self.python = python
        self.launcher = launcher
        self.output_limit = output_limit
        self.grace = grace
        self._env = dict(os.environ if env is None else env)
        self._cwd = os.fspath(cwd) if cwd is not None else os.getcwd()
        self._idle: list[_Worker] = []
        self._workers: set[_Worker] = set()
        self._slots: anyio.Semaphore | None = None
        self._closed = False
        #: Spawns in flight (inside the shielded ``_spawn``, not yet seen by a caller);
        #: :meth:`aclose` waits for them so it never misses a worker being born.
        self._spawning = 0
        self._spawns_done: anyio.Event | None = None
        #: How many workers were started (for tests and diagnostics).
        self.started = 0

    # -- introspection ------------------------------------------------------
    @property
    def pids(self) -> list[int]:
        """Process ids of the workers alive now (idle and busy)."""
        return sorted(w.pid for w in self._workers)

    @property
    def closed(self) -> bool:
        """True once :meth:`aclose` ran."""
        return self._closed

    def handles(self, argv: Sequence[str]) -> bool:
        """Whether ``argv`` (``python hook_launcher.py MODULE [ARGS]``) can run warm here."""
        return len(argv) >= 3 and argv[0] == self.python and argv[1] == self.launcher

    # -- one call -----------------------------------------------------------
    async def run_argv(
        self, argv: Sequence[str], *, stdin: bytes, env: Mapping[str, str], cwd: str, timeout: float
    ) -> ProcessResult:
        """Run a ``python hook_launcher.py MODULE [ARGS]`` command line in a worker."""
        return await self.run(argv[2], argv[3:], stdin=stdin, env=env, cwd=cwd, timeout=timeout)

    async def run(
        self, module: str, args: Sequence[str], *, stdin: bytes, env: Mapping[str, str], cwd: str, timeout: float
    ) -> ProcessResult:
        """Run one hook call in a warm worker; same result shape as ``run_process``.

        Never raises for the hook's failures. If the caller is cancelled mid-call, the
        worker is ended (shielded) before the cancellation propagates.
        """
        if self._closed:
            return ProcessResult(spawn_error="the Python worker pool is closed")
        slots = self._slots
        if slots is None:
            slots = self._slots = anyio.Semaphore(self.size)
        try:
            slots.acquire_nowait()
        except anyio.WouldBlock:
            await slots.acquire()
        try:
            if self._closed:  # closed while this call waited for a worker
                return ProcessResult(spawn_error="the Python worker pool is closed")
            return await self._run_in_worker(module, args, stdin, env, cwd, timeout)
        finally:
            slots.release()

    async def _run_in_worker(
        self, module: str, args: Sequence[str], stdin: bytes, env: Mapping[str, str], cwd: str, timeout: float
    ) -> ProcessResult:
        result = ProcessResult()
        deadline = anyio.current_time() + timeout
        worker: _Worker | None = None
        keep = False
        try:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.returncode is None:
                    break
                # It died while idle (killed from outside): not this hook's doing.
                with anyio.CancelScope(shield=True):
                    await self._retire(worker, polite=False)
                worker.close_files()
                worker = None
            if worker is None:
                with anyio.CancelScope(shield=True):
                    worker, error = await self._spawn()
                if worker is None:
                    result.spawn_error = error
                    return result
                if self._closed:  # aclose() ran during the spawn: the finally retires it
                    result.spawn_error = "the Python worker pool is closed"
                    return result
            worker.calls += 1
            worker.clipped_out = worker.clipped_err = False
            request = self._request(worker, module, args, stdin, env, cwd)
            line = b""
            with anyio.move_on_after(max(0.0, deadline - anyio.current_time())) as scope:
                try:
                    await worker.stdin.send(request)
                    while True:
                        with anyio.move_on_after(WATCH_PERIOD) as tick:
                            line = await worker.reader.receive_until(b"\n", _MAX_REPLY)
                        if not tick.cancelled_caught:
                            break
                        worker.clip(self.output_limit)
                except _DEAD:
                    line = b""
            if scope.cancelled_caught:
                result.timed_out = True
                await self._retire(worker, polite=True)
            elif not line:
                # The worker died mid-call (the hook ended the process, or a crash):
                # like a cold hook, its own exit status is the result.
                with anyio.move_on_after(max(0.0, deadline - anyio.current_time())):
                    await worker.process.wait()
                result.timed_out = worker.process.returncode is None
                await self._retire(worker, polite=result.timed_out)
            else:
                reply = self._parse(line)
                if reply is None:
                    await self._retire(worker, polite=False)
                    result.exit_code = 1
                    result.stderr = b"hook_launcher: the worker broke the protocol\n"
                    return result
                if reply.get("spawn_error"):
                    result.spawn_error = str(reply["spawn_error"])
                result.exit_code = int(reply["exit"])
                worker.read_output(result, self.output_limit)
                if reply.get("leftover"):
                    await self._retire(worker, polite=True)
                else:
                    keep = True
                return result
            result.exit_code = worker.process.returncode
            worker.read_output(result, self.output_limit)
            return result
        finally:
            if worker is not None:
                if keep and not self._closed:
                    self._idle.append(worker)
                else:
                    with anyio.CancelScope(shield=True):
                        if keep:  # healthy, but the pool closed meanwhile
                            await self._close_idle(worker)
                        elif worker in self._workers:  # cancelled or failed mid-call
                            await self._retire(worker, polite=False)
                    worker.close_files()

    @staticmethod
    def _parse(line: bytes) -> dict[str, Any] | None:
        try:
            reply = json.loads(line)
        except ValueError:
            return None
        if not isinstance(reply, dict) or not isinstance(reply.get("exit"), int):
            return None
        return reply

    @staticmethod
    def _request(
        worker: _Worker, module: str, args: Sequence[str], stdin: bytes, env: Mapping[str, str], cwd: str
    ) -> bytes:
        base = worker.env
        changed = {k: v for k, v in env.items() if base.get(k) != v}
        unset = [k for k in base if k not in env and k != MARKER_ENV]
        text = stdin.decode("utf-8", "surrogateescape")
        message: dict[str, Any] = {"module": module, "cwd": cwd, "stdin": text}
        if args:
            message["args"] = list(args)
        payload = changed.get("HOOK_PAYLOAD")
        if payload is not None and len(payload) + 1 == len(text) and text == payload + "\n":
            del changed["HOOK_PAYLOAD"]
            message["payload_env"] = True
        if changed:
            message["env"] = changed
        if unset:
            message["unset"] = unset
        return (json.dumps(message, separators=(",", ":")) + "\n").encode()

    # -- worker lifecycle -----------------------------------------------------
    async def _spawn(self) -> tuple[_Worker | None, str | None]:
        self._spawning += 1
        try:
            return await self._open_worker()
        finally:
            self._spawning -= 1
            if not self._spawning and self._spawns_done is not None:
                self._spawns_done.set()

    async def _open_worker(self) -> tuple[_Worker | None, str | None]:
        out = tempfile.TemporaryFile()  # noqa: SIM115 - owned by the worker
        err = tempfile.TemporaryFile()  # noqa: SIM115
        marker = uuid.uuid4().hex
        env = dict(self._env)
        env[MARKER_ENV] = marker
        argv = [self.python, self.launcher, "--serve", f"--stdout-fd={out.fileno()}"]
        try:
            process = await anyio.open_process(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                pass_fds=(out.fileno(),),
                cwd=self._cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            out.close()
            err.close()
            return None, f"cannot start {self.python!r}: {exc.strerror or exc}"
        worker = _Worker(process, out, err, marker, env)
        self._workers.add(worker)
        self.started += 1
        return worker, None

    async def _retire(self, worker: _Worker, *, polite: bool) -> None:
        """End ``worker`` and everything it started; forget it once it is reaped.

        It stays in ``_workers`` until then, so an :meth:`aclose` that runs meanwhile
        retires it too (at once, not politely) and does not return before it is gone.
        """
        with contextlib.suppress(ValueError):
            self._idle.remove(worker)
        with anyio.CancelScope(shield=True):
            process = worker.process
            if process.returncode is None or signal_group(process.pid, 0):
                await kill_tree(process, worker.marker, self.grace, polite=polite)
            with anyio.move_on_after(self.grace + 1.0):
                await process.wait()
            with contextlib.suppress(Exception):
                await process.aclose()
            self._workers.discard(worker)

    async def _close_idle(self, worker: _Worker) -> None:
        """EOF on its request pipe ends an idle worker; force it after a short wait."""
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(Exception):
                await worker.stdin.aclose()
            with anyio.move_on_after(_CLOSE_WAIT):
                await worker.process.wait()
            await self._retire(worker, polite=False)
            worker.close_files()

    async def aclose(self) -> None:
        """End every worker (idle ones exit on EOF, busy ones are killed). Idempotent."""
        self._closed = True
        if self._spawning:
            # A worker still being started is not in _workers yet; wait (bounded) until it
            # is, so it is killed below. Past the bound, the caller's own check retires it.
            if self._spawns_done is None or self._spawns_done.is_set():
                self._spawns_done = anyio.Event()
            with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_WAIT):
                await self._spawns_done.wait()
        idle, self._idle = self._idle, []
        busy = [w for w in self._workers if w not in idle]
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for worker in idle:
                    tg.start_soon(self._close_idle, worker)
                for worker in busy:
                    tg.start_soon(self._kill_busy, worker)

    async def _kill_busy(self, worker: _Worker) -> None:
        await self._retire(worker, polite=False)
