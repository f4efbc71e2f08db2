"""Unmodified ``python3 script.py`` command hooks, run warm by a fork server.

A command hook that provably is just ``<python> script.py args…`` (or an executable
``script.py`` with a Python shebang) does not need a new interpreter per call: a fork
server per interpreter (``_forkserver_main.py``, started lazily with the runner's base
environment) forks a child that becomes exactly that run. See docs/python-hooks.md.

The forked child is handed to :func:`agent_server._proc.run_process` as the hook's
process (:class:`ForkedProcess`): its pid leads its own session and group, its stdio are
pipes the runner holds, its exit status comes back from the server, which reaps it. So
timeouts, the tree kill, output caps, the ledger and spans treat it as any other hook.

Equivalence is decided conservatively; when unsure, or when the server is unavailable,
the ordinary spawn runs (:meth:`ForkServers.launcher` returns None, or the launch
returns None) and a log line says why, once per reason.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel
import psutil

from .._proc import MARKER_ENV, SMALL_STDIN, kill_tree, signal_group
from ._spec import HookSpec

__all__ = ["ForkServers", "ForkedProcess", "Launch", "Plan", "parse_command", "plan_call"]

log = logging.getLogger("agent_server.hooks")

#: A launch for one call: given the call's full environment and stdin, the forked
#: process, or None to run it the ordinary way.
Launch = Callable[[Mapping[str, str], bytes], Awaitable["ForkedProcess | None"]]

_SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_forkserver_main.py")
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Outside quotes these make the line more than one simple command (or expand in ways
# not reproduced here): pipes, lists, redirections, globs, tilde, comments, subshells.
_SPECIAL = set("|&;<>()`*?[]{}~#!\n")
# Variables an interpreter reads at start-up: a hook whose values differ from the
# server's would not start the same interpreter, so it runs cold.
_STARTUP_NAMES = ("PATH", "HOME", "LANG", "TZ", "IFS")
_STARTUP_PREFIXES = ("PYTHON", "LC_")
#: How long a call waits for the server to fork (its first call includes its start-up).
START_TIMEOUT = 10.0
_CHUNK = 65536
# pidfds (the server) and SCM_RIGHTS as used here are Linux's.
_LINUX = sys.platform.startswith("linux")

# A word is a list of parts: literal text, or a variable (name, quoted).
_Part = tuple[str, str | None, bool]


def parse_command(command: str) -> list[list[_Part]] | None:
    """The words of a plain simple command, or None when it is anything more.

    Understands what a plain ``python3 "$CLAUDE_PROJECT_DIR"/x.py 'a b'`` needs: blanks
    between words, single and double quotes, backslash escapes, and ``$NAME`` /
    ``${NAME}``. Anything else the shell would interpret (pipes, ``&&``, redirections,
    other expansions, globs, comments, line breaks) gives None: the ordinary spawn.
    Each part is ``(text, None, False)`` for literal text or ``("", name, quoted)``.
    """
    words: list[list[_Part]] = []
    word: list[_Part] | None = None
    i, n = 0, len(command)

    def literal(text: str) -> None:
        assert word is not None
        word.append((text, None, False))

    def variable(at: int, quoted: bool) -> int | None:
        # ``$NAME`` or ``${NAME}`` at ``at`` (the ``$``); the index after it, or None.
        assert word is not None
        braced = command.startswith("${", at)
        m = _NAME.match(command, at + (2 if braced else 1))
        if m is None or (braced and not command.startswith("}", m.end())):
            return None
        word.append(("", m.group(), quoted))
        return m.end() + (1 if braced else 0)

    while i < n:
        c = command[i]
        if c in " \t":
            if word is not None:
                words.append(word)
                word = None
            i += 1
            continue
        if word is None:
            word = []
        if c in _SPECIAL:
            return None
        if c == "'":
            end = command.find("'", i + 1)
            if end < 0:
                return None
            literal(command[i + 1 : end])
            i = end + 1
        elif c == '"':
            i += 1
            text: list[str] = []
            while True:
                if i >= n:
                    return None
                c = command[i]
                if c == '"':
                    i += 1
                    break
                if c in "`\n":
                    return None
                if c == "\\" and i + 1 < n and command[i + 1] in '$`"\\':
                    text.append(command[i + 1])
                    i += 2
                elif c == "$":
                    literal("".join(text))
                    text = []
                    after = variable(i, quoted=True)
                    if after is None:
                        return None
                    i = after
                else:
                    text.append(c)
                    i += 1
            literal("".join(text))
        elif c == "\\":
            if i + 1 >= n or command[i + 1] == "\n":
                return None
            literal(command[i + 1])
            i += 2
        elif c == "$":
            after = variable(i, quoted=False)
            if after is None:
                return None
            i = after
        else:
            j = i
            while j < n and command[j] not in " \t'\"\\$" and command[j] not in _SPECIAL:
                j += 1
            literal(command[i:j])
            i = j
    if word is not None:
        words.append(word)
    return words


def _expand(words: list[list[_Part]], env: Mapping[str, str]) -> list[str] | None:
    """The words with variables put in, or None when the shell would split or glob."""
    out = []
    for word in words:
        text = []
        for literal, name, quoted in word:
            if name is None:
                text.append(literal)
                continue
            value = env.get(name, "")
            if not quoted and (not value or any(ch in value for ch in " \t\n*?[")):
                return None
            text.append(value)
        out.append("".join(text))
    return out


@dataclass(frozen=True)
class Plan:
    """One call as the fork server runs it: ``argv0 script args…`` under ``interpreter``."""

    interpreter: str
    argv0: str
    script: str
    args: tuple[str, ...]


def _executable(path: str) -> bool:
    """An executable ELF file (a pyenv shim or any wrapper script is not the interpreter)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF" and os.access(path, os.X_OK)
    except OSError:
        return False


def _shebang(path: str) -> tuple[str, str | None] | None:
    """The interpreter and optional argument of ``path``'s ``#!`` line, if it has one."""
    try:
        with open(path, "rb") as f:
            line = f.readline(256)
    except OSError:
        return None
    if not line.startswith(b"#!") or not line.endswith(b"\n"):
        return None
    parts = line[2:].decode("utf-8", "replace").strip().split(None, 1)
    if not parts:
        return None
    return parts[0], (parts[1].strip() if len(parts) > 1 else None)


def plan_call(words: Sequence[str], env: Mapping[str, str], cwd: str) -> tuple[Plan | None, str]:
    """How a cold run of ``words`` would start Python, or (None, why not)."""
    if not words:
        return None, "empty command"
    first = words[0]
    path = env.get("PATH", os.defpath)
    if _PYTHON.fullmatch(os.path.basename(first)):
        if len(words) < 2 or words[1].startswith("-"):
            return None, "interpreter options or no script"
        script, args = words[1], tuple(words[2:])
        interpreter = os.path.join(cwd, first) if "/" in first else shutil.which(first, path=path)
        argv0 = first
    elif first.endswith(".py") and "/" in first:
        script, args = first, tuple(words[1:])
        bang = _shebang(os.path.join(cwd, script))
        if bang is None or not os.access(os.path.join(cwd, script), os.X_OK):
            return None, "not an executable script with a #! line"
        program, arg = bang
        if arg is None and _PYTHON.fullmatch(os.path.basename(program)):
            interpreter, argv0 = program, program
        elif os.path.basename(program) == "env" and arg is not None and _PYTHON.fullmatch(arg):
            interpreter, argv0 = shutil.which(arg, path=path), arg
        else:
            return None, "the #! line is not a plain Python interpreter"
    else:
        return None, "not a Python script command"
    if not script.endswith(".py"):
        return None, "the script is not a .py file"
    if interpreter is None or not _executable(interpreter):
        return None, f"{first!r} is not an interpreter binary here"
    return Plan(os.path.abspath(interpreter), argv0, script, args), ""


def _startup_env(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k in _STARTUP_NAMES or k.startswith(_STARTUP_PREFIXES)}


class _PipeReader(anyio.abc.ByteReceiveStream):
    """The runner's end of a hook's stdout or stderr pipe."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd

    async def receive(self, max_bytes: int = _CHUNK) -> bytes:
        # A checkpoint per chunk: a hook printing without end must not starve the loop.
        await anyio.lowlevel.checkpoint()
        while True:
            if self._fd < 0:
                raise anyio.ClosedResourceError
            try:
                data = os.read(self._fd, max_bytes)
            except BlockingIOError:
                await anyio.wait_readable(self._fd)
                continue
            if not data:
                raise anyio.EndOfStream
            return data

    async def aclose(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            anyio.notify_closing(fd)
            os.close(fd)


class _PipeWriter(anyio.abc.ByteSendStream):
    """The runner's end of a hook's stdin pipe."""

    def __init__(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd

    async def send(self, item: bytes) -> None:
        view = memoryview(item)
        while view:
            if self._fd < 0:
                raise anyio.ClosedResourceError
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
                continue
            except BrokenPipeError as exc:
                raise anyio.BrokenResourceError from exc
            view = view[written:]

    async def aclose(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            anyio.notify_closing(fd)
            os.close(fd)


class _Lines:
    """JSON lines from the server on one call's socket (kept across cancellations)."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.buffer = b""

    async def next(self) -> dict[str, Any] | None:
        """The next message, or None at EOF (the server ended)."""
        while b"\n" not in self.buffer:
            try:
                data = self.sock.recv(4096)
            except BlockingIOError:
                await anyio.wait_readable(self.sock)
                continue
            except OSError:
                data = b""
            if not data:
                return None
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        message = json.loads(line)
        return message if isinstance(message, dict) else None

    def close(self) -> None:
        anyio.notify_closing(self.sock)
        self.sock.close()


class ForkedProcess(anyio.abc.Process):
    """A hook forked by the fork server, seen by ``run_process`` as its process.

    ``pid`` is the child's (it leads its own session and group); ``wait()`` gets its exit
    status from the server, which reaps it. If the server dies mid-call, the child's group
    is killed and, when it was re-parented to this (subreaper) process, reaped here.
    """

    def __init__(self, pid: int, lines: _Lines, stdin: int | None, stdout: int, stderr: int, server: _Server) -> None:
        self._pid = pid
        self._lines = lines
        self._returncode: int | None = None
        self._stdin = _PipeWriter(stdin) if stdin is not None else None
        self._stdout = _PipeReader(stdout)
        self._stderr = _PipeReader(stderr)
        self._server = server
        self._interrupted = False

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def returncode(self) -> int | None:
        return self._returncode

    @property
    def stdin(self) -> anyio.abc.ByteSendStream | None:
        """None when the input was written into the pipe before the fork."""
        return self._stdin

    @property
    def stdout(self) -> anyio.abc.ByteReceiveStream:
        return self._stdout

    @property
    def stderr(self) -> anyio.abc.ByteReceiveStream:
        return self._stderr

    async def wait(self) -> int:
        while self._returncode is None:
            try:
                message = await self._lines.next()
            except anyio.get_cancelled_exc_class():
                # The runner stopped waiting (deadline or cancellation): the signals
                # that end the child now are the runner's own.
                self._interrupted = True
                raise
            if message is None:
                self._returncode = await self._orphaned()
            elif isinstance(message.get("exit"), int):
                self._returncode = int(message["exit"])
            elif isinstance(message.get("signal"), int):
                self._returncode = self._through_shell(int(message["signal"]), bool(message.get("core")))
        return self._returncode

    def _through_shell(self, sig: int, core: bool) -> int:
        """The status ``/bin/sh -c`` (one that waits for its command) reports when a
        signal killed the script, and what it prints; the server writes that."""
        if self._interrupted:
            # A timeout or cancellation: the runner's signal ended the shell as well.
            say, code = "", -sig
        else:
            code = 128 + sig
            say = "" if sig in (signal.SIGINT, signal.SIGPIPE) else f"{signal.strsignal(sig)}"
            if say and core:
                say += " (core dumped)"
        with contextlib.suppress(OSError):
            self._lines.sock.send((json.dumps({"say": say + "\n" if say else ""}) + "\n").encode())
        return code

    async def _orphaned(self) -> int:
        """The server ended before reporting: end the child's group; its status if ours."""
        self._server.failed = True
        with contextlib.suppress(OSError):
            os.killpg(self._pid, signal.SIGKILL)
        with anyio.move_on_after(1.0):
            while True:
                try:
                    done, status = os.waitpid(self._pid, os.WNOHANG)
                except ChildProcessError:
                    break  # not re-parented to us: init reaps it
                if done:
                    return os.waitstatus_to_exitcode(status)
                await anyio.sleep(0.01)
        return -signal.SIGKILL

    def send_signal(self, signal: int) -> None:
        if self._returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    async def aclose(self) -> None:
        """Close the pipes and the call socket (the server then SIGKILLs a child still
        running and reaps it)."""
        with anyio.CancelScope(shield=True):
            if self._stdin is not None:
                await self._stdin.aclose()
            await self._stdout.aclose()
            await self._stderr.aclose()
        self._lines.close()


class _Server:
    """One fork server process for one interpreter path."""

    def __init__(self, interpreter: str, process: anyio.abc.Process, ctl: socket.socket, env: dict[str, str]) -> None:
        self.interpreter = interpreter
        self.process = process
        self.ctl = ctl
        self.env = env
        self.marker = env[MARKER_ENV]
        self.served = 0
        self.failed = False

    @property
    def alive(self) -> bool:
        return not self.failed and self.process.returncode is None

    async def send(self, message: bytes, fds: list[int]) -> None:
        while True:
            try:
                socket.send_fds(self.ctl, [message], fds)
                return
            except BlockingIOError:
                await anyio.wait_writable(self.ctl)

    async def aclose(self, grace: float) -> None:
        """EOF ends the server and its running children; then whatever is left of its
        tree (anything carrying its marker) is killed."""
        with anyio.CancelScope(shield=True):
            anyio.notify_closing(self.ctl)
            self.ctl.close()
            with anyio.move_on_after(grace):
                await self.process.wait()
            await kill_tree(self.process, self.marker, grace, polite=False)
            with anyio.move_on_after(grace + 1.0):
                await self.process.wait()
            with contextlib.suppress(Exception):
                await self.process.aclose()
            await self._reap_group()

    async def _reap_group(self) -> None:
        """Reap what is left of the server's own group (its spare child, re-parented to
        this subreaper when the server died first, then ended): nobody else waits for
        it. Group leaders are left alone: those are other runs' hooks."""
        pgid = self.process.pid
        with anyio.move_on_after(1.0):
            while signal_group(pgid, 0):
                with contextlib.suppress(psutil.Error):
                    for child in psutil.Process().children():
                        with contextlib.suppress(psutil.Error, OSError):
                            if child.pid != pgid and os.getpgid(child.pid) == pgid:
                                signal_group(pgid, signal.SIGKILL)
                                if child.status() == psutil.STATUS_ZOMBIE:
                                    os.waitpid(child.pid, os.WNOHANG)
                await anyio.sleep(0.01)


class ForkServers:
    """The fork servers of one runner, one per interpreter path, started lazily.

    ``env`` is the runner's base environment (the servers' start environment).
    """

    def __init__(self, env: Mapping[str, str], *, grace: float = 1.5) -> None:
        self._env = dict(env)
        self._startup = _startup_env(self._env)
        self._grace = grace
        self._servers: dict[str, _Server] = {}
        self._unavailable: set[str] = set()
        self._words: dict[str, list[list[_Part]] | None] = {}
        self._noted: set[tuple[str, str]] = set()
        self._lock = anyio.Lock()
        self._closed = False
        #: How many servers were started, and how many calls ran forked (for tests and
        #: diagnostics).
        self.started = 0
        self.forked = 0

    @property
    def pids(self) -> dict[str, int]:
        """The running servers' pids by interpreter path."""
        return {k: s.process.pid for k, s in self._servers.items() if s.process.returncode is None}

    def _note(self, command: str, reason: str, level: int = logging.INFO) -> None:
        if (command, reason) not in self._noted:
            self._noted.add((command, reason))
            log.log(level, "hook %r runs cold (no fork server): %s", command, reason)

    def launcher(self, spec: HookSpec, cwd: str) -> Launch | None:
        """A launch for ``spec`` run in ``cwd`` when it may be a forkable Python script
        (the final checks need the call's environment), else None."""
        if self._closed or spec.warm is False or spec.argv is None or not _LINUX:
            return None
        if spec.kind == "command" and len(spec.argv) == 3 and spec.argv[:2] == ("/bin/sh", "-c"):
            line = spec.argv[2]
            if line not in self._words:
                self._words[line] = parse_command(line)
            words = self._words[line]
        elif spec.kind == "exec":
            words = [[(w, None, False)] for w in spec.argv]
        else:
            return None
        if not words or not _looks_like_python(words):
            return None
        parsed = words
        through_shell = spec.kind == "command"

        async def launch(env: Mapping[str, str], stdin: bytes) -> ForkedProcess | None:
            return await self._launch(spec, parsed, env, stdin, cwd, through_shell)

        return launch

    async def _launch(
        self,
        spec: HookSpec,
        words: list[list[_Part]],
        env: Mapping[str, str],
        stdin: bytes,
        cwd: str,
        through_shell: bool,
    ) -> ForkedProcess | None:
        expanded = _expand(words, env) if "IFS" not in env else None
        if expanded is None:
            self._note(spec.command, "the shell would split or glob a variable")
            return None
        plan, why = plan_call(expanded, env, cwd)
        if plan is None:
            self._note(spec.command, why)
            return None
        if _startup_env(env) != self._startup:
            self._note(spec.command, "its environment changes how the interpreter starts")
            return None
        if plan.interpreter in self._unavailable:
            return None
        for _attempt in range(2):  # a server killed from outside is replaced once
            server = await self._server(plan.interpreter)
            if server is None:
                return None
            shell = through_shell and not await _shell_execs()
            process = await self._call(server, plan, env, stdin, cwd, spec, shell)
            if process is not None or server.alive:
                return process
            await self._retire(server)
            if server.served == 0:
                self._unavailable.add(plan.interpreter)
                self._note(plan.interpreter, "the fork server did not start", logging.WARNING)
                return None
        return None

    async def _server(self, interpreter: str) -> _Server | None:
        async with self._lock:
            if self._closed:
                return None
            server = self._servers.get(interpreter)
            if server is not None and not server.alive:
                await self._retire(server)
                log.warning("fork server for %s ended; starting a new one", interpreter)
                server = None
            if server is None:
                server = await self._start(interpreter)
            return server

    async def _start(self, interpreter: str) -> _Server | None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        env = dict(self._env)
        env[MARKER_ENV] = uuid.uuid4().hex  # finds whatever its children leave behind
        try:
            with anyio.CancelScope(shield=True):
                process = await anyio.open_process(
                    [interpreter, _SERVER, str(theirs.fileno())],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=None,  # its own failures reach the runner's log output
                    pass_fds=(theirs.fileno(),),
                    env=env,
                    start_new_session=True,
                )
        except OSError as exc:
            ours.close()
            self._unavailable.add(interpreter)
            self._note(interpreter, f"cannot start the fork server: {exc}", logging.WARNING)
            return None
        finally:
            theirs.close()
        server = _Server(interpreter, process, ours, env)
        self._servers[interpreter] = server
        self.started += 1
        return server

    async def _call(
        self,
        server: _Server,
        plan: Plan,
        env: Mapping[str, str],
        stdin: bytes,
        cwd: str,
        spec: HookSpec,
        shell: bool,
    ) -> ForkedProcess | None:
        base = server.env
        request = {
            "script": plan.script,
            "argv": [plan.script, *plan.args],
            "argv0": plan.argv0,
            "cwd": cwd,
            "env": {k: v for k, v in env.items() if base.get(k) != v},
            "unset": [k for k in base if k not in env],
            "shell": shell,
        }
        data = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogateescape")
        ours, theirs = socket.socketpair()
        stdin_r, stdin_w = os.pipe2(os.O_CLOEXEC)
        stdout_r, stdout_w = os.pipe2(os.O_CLOEXEC)
        stderr_r, stderr_w = os.pipe2(os.O_CLOEXEC)
        keep = [stdin_w, stdout_r, stderr_r]
        # Small input goes into the stdin pipe before the fork, so the child never waits for
        # the runner to wake up and write it.
        prefed = len(stdin) <= SMALL_STDIN
        if prefed:
            os.write(stdin_w, stdin)  # (fits: the pipe is new and empty)
            os.close(stdin_w)
            keep.remove(stdin_w)
            stdin_w = -1
        lines = _Lines(ours)
        try:
            try:
                await server.send(data, [theirs.fileno(), stdin_r, stdout_w, stderr_w])
            except OSError as exc:
                if exc.errno == errno.EMSGSIZE:
                    self._note(spec.command, "the call's environment is too large to send")
                else:
                    server.failed = True
                raise
            finally:
                theirs.close()
                for fd in (stdin_r, stdout_w, stderr_w):
                    os.close(fd)
            with anyio.move_on_after(START_TIMEOUT):
                reply = await lines.next()
                if reply is not None and isinstance(reply.get("pid"), int):
                    server.served += 1
                    self.forked += 1
                    keep = []
                    return ForkedProcess(reply["pid"], lines, None if prefed else stdin_w, stdout_r, stderr_r, server)
                if reply is not None and "cold" in reply:
                    self._note(spec.command, f"the fork server declined: {reply['cold']}", logging.DEBUG)
                    return None
            server.failed = True  # no answer in time, or EOF: it is not serving
            return None
        except OSError:
            return None
        finally:
            if keep:
                lines.close()
                for fd in keep:
                    os.close(fd)

    async def _retire(self, server: _Server) -> None:
        if self._servers.get(server.interpreter) is server:
            del self._servers[server.interpreter]
        await server.aclose(self._grace)

    async def aclose(self) -> None:
        """End every fork server (and whatever their hooks left). Idempotent."""
        self._closed = True
        servers, self._servers = list(self._servers.values()), {}
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for server in servers:
                    tg.start_soon(server.aclose, self._grace)


_SHELL_EXECS: list[bool] = []


async def _shell_execs() -> bool:
    """Whether ``/bin/sh -c CMD`` execs CMD (bash does) rather than running it as a child
    and waiting (dash does): the exit status of a script killed by a signal differs.
    Asked once per process, by running it."""
    if not _SHELL_EXECS:
        probe = await anyio.run_process(["/bin/sh", "-c", '/bin/sh -c "kill -TERM \\$\\$"'], check=False)
        _SHELL_EXECS.append(probe.returncode == -signal.SIGTERM)
    return _SHELL_EXECS[0]


def _looks_like_python(words: list[list[_Part]]) -> bool:
    """A cheap first test on the unexpanded words (most shell hooks stop here)."""
    first = words[0]
    tail = first[-1]
    if tail[1] is not None:
        return False
    if len(first) == 1 and _PYTHON.fullmatch(os.path.basename(tail[0])):
        return True
    return tail[0].endswith(".py")
