#!/usr/bin/env python3
"""Run Python hook modules, cold (one process per call) or warm (a persistent worker).

Cold: ``hook_launcher.py X.py [ARGS...]`` reads the payload JSON from stdin, imports
``X.py`` (relative to ``$CLAUDE_PROJECT_DIR/.claude/hooks/`` unless absolute), calls its
``run(payload)`` (plain or async) and prints the result: a dict (or list) as JSON, a
string as text, None as nothing. ``sys.exit(2)`` with a message on stderr blocks;
``sys.exit(code)`` exits like CPython (``None`` → 0, an int → ``code & 0xFF``, anything
else is printed to stderr and exits 1); an exception exits 1 with the traceback on
stderr (the launcher's own frames left out). A module without ``run`` exits 1 with
``hook_launcher: <file> has no run(payload) function``.

What the hook sees: ``sys.stdin`` is a fresh text stream holding the payload line (it
has ``.buffer``; fd 0 itself is already at EOF); ``sys.argv`` is
``[<module file>, *ARGS]``; the environment and cwd are the ones the runner gave.
The module is compiled from its source on every import (no ``__pycache__`` is read or
written next to hooks, so an edited hook never runs stale bytecode).

Warm: ``hook_launcher.py --serve --stdout-fd=N`` is a worker that runs many calls, one
at a time, with the same observable behaviour. Its channels:

* fd 0 (a pipe from the runner): requests; fd 1 (a pipe to the runner): replies. At
  start the worker moves both to private close-on-exec descriptors, so neither the
  hook nor anything it starts can read or write the protocol.
* fd ``N`` (inherited): a file that becomes fd 1 of every call; fd 2 (inherited) is the
  call's stderr file. The runner reads both after the reply (``fstat`` + ``pread``, up
  to its output bound); the worker truncates them before each call. Capture is at the
  file-descriptor level, so ``print``, ``sys.stdout.write``, ``os.write(1, ...)`` and
  subprocesses writing to fd 1/2 are all captured.
* fd 0 of a call is ``/dev/null``: in a cold hook the launcher has read stdin to EOF
  before ``run`` starts, so a subprocess of the hook sees EOF there too.

Protocol: line-delimited JSON, one request and then one reply per call.

Request (runner → worker)::

    {"module": "x.py", "args": ["a"], "cwd": "/proj", "stdin": "<payload line>\\n",
     "env": {"HOOK_EVENT": "PreToolUse", ...}, "unset": ["NAME", ...],
     "payload_env": true}

``env``/``unset`` are the call's environment as a difference from the worker's start
environment (``os.environ`` is made exactly equal to it for the call); with
``"payload_env": true`` ``HOOK_PAYLOAD`` is the stdin line without its newline (so the
payload is not sent twice). Only ``module`` is required.

Reply (worker → runner)::

    {"exit": 0}                                  the hook's exit status
    {"exit": 0, "leftover": 1}                   it left processes or threads running
    {"exit": 1, "spawn_error": "cannot chdir"}   the call could not start

Without ``--stdout-fd`` (inline mode, for trying it by hand or from other tools) the
worker keeps both files to itself and adds ``"stdout"`` and ``"stderr"`` (text, not
bounded) to each reply.

A worker that got ``leftover`` is retired by the runner (its whole process tree ended),
like a cold hook whose process group outlives it. On Linux the worker is a child
subreaper, so orphaned descendants (``cmd &``, double fork) re-parent to it and count
as leftover. EOF on the request pipe ends the worker with status 0. A module is
re-imported when its file's ``mtime_ns`` or size changes. After each call the worker
puts ``sys.path`` back, drops from ``sys.modules`` the modules the call imported from
outside the interpreter's libraries (the hook's helpers; the hook module keeps its own
references), cancels interval timers and restores its start-up signal handlers.
"""

from __future__ import annotations

# Only light modules at the top: a cold hook pays for every import here on every call
# (asyncio alone costs more than the interpreter's own start). The rest is imported
# where it is needed.
import contextlib
import importlib.util
import io
import json
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs a cold hook ~2 ms
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "HookModuleError",
    "ModuleCache",
    "Worker",
    "call_run",
    "emit",
    "exit_status",
    "load_module",
    "main",
    "resolve_module",
    "run_hook",
    "serve",
]

_THIS_FILE = os.path.abspath(__file__)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36

Loader = Callable[[Path], ModuleType]


class HookModuleError(Exception):
    """The hook module cannot be used (missing file, no ``run``); reported without a
    traceback as ``hook_launcher: <message>``."""


def resolve_module(name: str, project_dir: str | None = None) -> Path:
    """The file a module argument names: absolute, or relative to ``.claude/hooks/``
    (falling back to the current directory when only that has it)."""
    path = os.path.expanduser(name)
    if os.path.isabs(path):
        return Path(path)
    base = project_dir or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    candidate = os.path.join(base, ".claude", "hooks", path)
    if os.path.exists(candidate):
        return Path(candidate)
    here = os.path.join(os.getcwd(), path)
    return Path(here if os.path.exists(here) else candidate)


def load_module(path: Path) -> ModuleType:
    """Import a module from its source file (its folder goes first on ``sys.path``).

    The module is registered in ``sys.modules`` as ``hook_<stem>`` while it runs (so
    dataclasses, pickling and the like work) and compiled from source every time.
    """
    try:
        source = path.read_bytes()
    except FileNotFoundError:
        raise HookModuleError(f"hook module not found: {path}") from None
    except IsADirectoryError:
        raise HookModuleError(f"hook module is a directory: {path}") from None
    name = f"hook_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise HookModuleError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    module.__cached__ = None  # type: ignore[attr-defined]
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    code = compile(source, str(path), "exec", dont_inherit=True)
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module


class ModuleCache:
    """Modules a worker imported, re-imported when the file's mtime_ns or size changes."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[int, int, ModuleType, str]] = {}
        #: The module last loaded and its folder (for the worker's per-call cleanup).
        self.module: ModuleType | None = None
        self.folder: str | None = None

    def load(self, path: Path) -> ModuleType:
        """The module for ``path``, imported now if new or changed since last time."""
        key = str(path)
        try:
            st = os.stat(key)
        except FileNotFoundError:
            self._entries.pop(key, None)
            raise HookModuleError(f"hook module not found: {path}") from None
        hit = self._entries.get(key)
        if hit is not None and hit[0] == st.st_mtime_ns and hit[1] == st.st_size:
            # The worker undoes both after every call; a warm call sees what a cold one
            # does (its folder on sys.path, itself in sys.modules).
            module, folder = hit[2], hit[3]
            sys.modules[module.__name__] = module
            if folder not in sys.path:
                sys.path.insert(0, folder)
            self.module, self.folder = module, folder
            return module
        self._entries.pop(key, None)
        folder = self.folder = str(path.parent)
        module = self.module = load_module(path)
        self._entries[key] = (st.st_mtime_ns, st.st_size, module, folder)
        return module


def call_run(module: ModuleType, payload: Any) -> Any:
    """Call ``module.run(payload)``, running it to completion when it is async."""
    run = getattr(module, "run", None)
    if not callable(run):
        raise HookModuleError(f"{module.__file__} has no run(payload) function")
    value = run(payload)
    if isinstance(value, Awaitable):
        import asyncio

        value = asyncio.run(_await(value))
    return value


async def _await(value: Any) -> Any:
    return await value


def emit(value: Any) -> None:
    """Print a hook's return value the way the runner reads it."""
    if value is None:
        return
    if isinstance(value, (dict, list)):
        sys.stdout.write(json.dumps(value))
    else:
        sys.stdout.write(str(value))
    sys.stdout.flush()


def exit_status(code: object) -> tuple[int, str | None]:
    """The process status CPython gives ``SystemExit(code)``, and what it prints.

    ``None`` → 0; an int → its low 8 bits; anything else → 1, printed to stderr.
    """
    if code is None:
        return 0, None
    if isinstance(code, int):
        return code & 0xFF, None
    return 1, str(code)


def _print_traceback(exc: BaseException) -> None:
    """Print ``exc`` like the interpreter would, leaving out the launcher's frames."""
    import traceback

    te = traceback.TracebackException.from_exception(exc)
    frames = list(te.stack)
    last = max((i for i, f in enumerate(frames) if f.filename == _THIS_FILE), default=-1)
    frames = frames[last + 1 :]
    while frames and frames[0].filename.startswith("<frozen importlib"):
        frames.pop(0)
    te.stack = traceback.StackSummary.from_list(frames)
    sys.stderr.write("".join(te.format()))


def run_hook(module_arg: str, args: Sequence[str], raw: str, loader: Loader = load_module) -> int:
    """Run one hook call in this process and return its exit status.

    ``raw`` is the payload text; it becomes ``sys.stdin``. Output goes to the current
    ``sys.stdout``/``sys.stderr``. Used by both the cold and the warm path.
    """
    path = resolve_module(module_arg)
    sys.argv = [str(path), *args]
    sys.stdin = io.TextIOWrapper(
        io.BytesIO(raw.encode("utf-8", "surrogateescape")), encoding="utf-8", errors="surrogateescape"
    )
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        sys.stderr.write(f"hook_launcher: payload on stdin is not JSON: {exc}\n")
        return 1
    try:
        emit(call_run(loader(path), payload))
    except SystemExit as exc:
        status, message = exit_status(exc.code)
        if message is not None:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
            sys.stderr.write(message + "\n")
        return status
    except HookModuleError as exc:
        sys.stderr.write(f"hook_launcher: {exc}\n")
        return 1
    except BaseException as exc:  # the hook's failure is its exit status, never ours
        _print_traceback(exc)
        return 1
    return 0


# -- warm worker ---------------------------------------------------------------


def _prctl(option: int, value: int) -> None:
    """Linux ``prctl(option, value)``; nothing elsewhere (or when it is refused)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def _set_child_subreaper() -> None:
    """Linux: orphaned descendants of a hook (``cmd &``, double fork, setsid) re-parent to
    the worker instead of init, so they count as leftover children and end with it."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _set_parent_death_signal() -> None:
    """Linux: die with the runner, even if it is killed (EOF on fd 0 covers the rest)."""
    import signal

    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _text_stream(fd: int, like: Any, line_buffering: bool) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.FileIO(fd, "w", closefd=False),
        encoding=getattr(like, "encoding", None) or "utf-8",
        errors=getattr(like, "errors", None) or "strict",
        line_buffering=line_buffering,
    )


class Worker:
    """The warm side of the protocol (see the module docstring): owns the private
    protocol descriptors, the call's stdout/stderr files and ``/dev/null`` for fd 0."""

    def __init__(self, stdout_fd: int | None = None) -> None:
        # Protocol channels move to private, close-on-exec descriptors.
        self.requests = os.fdopen(os.dup(0), "rb")
        self.replies = os.dup(1)
        # The call's stdout file and stderr file (fd 2, as inherited), kept privately so
        # a hook that closes or replaces fd 1/2 gets fresh ones on the next call.
        # Without ``stdout_fd`` (inline mode) both are private temporary files and the
        # output travels in the reply.
        self.inline = stdout_fd is None
        if stdout_fd is None:
            self.out_fd, self.err_fd = _temp_fd(), _temp_fd()
            os.dup2(self.err_fd, 2)
        else:
            self.out_fd = os.dup(stdout_fd)
            if stdout_fd > 2:
                os.close(stdout_fd)
            self.err_fd = os.dup(2)
        self.null_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        os.dup2(self.out_fd, 1)
        os.dup2(self.null_fd, 0)
        self.start_env = dict(os.environ)
        self.applied = dict(self.start_env)
        self._applied_raw = self._raw_environ()
        self.cache = ModuleCache()
        self._stdout = sys.stdout
        self._stderr = sys.stderr
        import threading

        self._threads = threading.active_count
        # The C module: signal.getsignal() costs ~1 us per signal (its enum lookup).
        try:
            self._signal: Any = importlib.import_module("_signal")
        except ImportError:
            self._signal = importlib.import_module("signal")
        # Handlers as at start, restored after every call (None: not set from Python).
        self._handlers = {
            sig: h for sig in self._signal.valid_signals() if (h := self._signal.getsignal(sig)) is not None
        }
        self._library = _library_roots()
        self._roots: dict[str, tuple[str, ...]] = {}

    # -- one call --------------------------------------------------------
    def handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Run one request and return the reply (the hook's output is in the files)."""
        self._fresh_files()
        module = request.get("module")
        if not isinstance(module, str) or not module:
            sys.stderr.write("hook_launcher: bad request: 'module' must be a string\n")
            return {"exit": 1, "spawn_error": "bad request: 'module' must be a string"}
        raw = request.get("stdin") or ""
        env = dict(self.start_env)
        env.update(request.get("env") or {})
        for name in request.get("unset") or ():
            env.pop(name, None)
        if request.get("payload_env"):
            env["HOOK_PAYLOAD"] = raw[:-1] if raw.endswith("\n") else raw
        self._apply_env(env)
        cwd = request.get("cwd")
        if cwd:
            try:
                os.chdir(cwd)
            except OSError as exc:
                return {"exit": 1, "spawn_error": f"cannot chdir to {cwd!r}: {exc.strerror}"}
        os.dup2(self.null_fd, 0)
        self.cache.module = self.cache.folder = None
        path_list, path_before = sys.path, list(sys.path)
        modules_before = set(sys.modules)
        threads_before = self._threads()
        try:
            status = run_hook(module, list(request.get("args") or ()), raw, self.cache.load)
            self._flush()
            # Threads it left running would write into later calls' output: retire.
            leftover = _leftover_children() + max(0, self._threads() - threads_before)
        finally:
            self._reset_signals()
            if sys.path is not path_list:
                sys.path = path_list
            if path_list != path_before:
                path_list[:] = path_before
            self._forget_modules(modules_before, self.cache.module, self.cache.folder)
        reply: dict[str, Any] = {"exit": status}
        if leftover:
            reply["leftover"] = leftover
        if self.inline:
            reply["stdout"] = _read_all(self.out_fd)
            reply["stderr"] = _read_all(self.err_fd)
        return reply

    def _reset_signals(self) -> None:
        """Cancel the call's interval timers (a pending ``alarm`` would hit a later call)
        and put back the signal handlers the worker started with."""
        sig_module = self._signal
        for timer in (sig_module.ITIMER_REAL, sig_module.ITIMER_VIRTUAL, sig_module.ITIMER_PROF):
            sig_module.setitimer(timer, 0)
        for sig, handler in self._handlers.items():
            if sig_module.getsignal(sig) != handler:
                with contextlib.suppress(OSError, ValueError, TypeError):
                    sig_module.signal(sig, handler)

    def _forget_modules(self, before: set[str], hook: ModuleType | None, folder: str | None) -> None:
        """Drop the modules the call imported from outside the interpreter's libraries
        (its own helpers), so another hook's ``import common`` finds its own file. The
        hook module keeps references to what it imported at module level."""
        modules = sys.modules
        new = modules.keys() - before
        if hook is not None and hook.__name__ in new and modules[hook.__name__] is hook:
            del modules[hook.__name__]  # the hook itself: registered again by every call
            new.discard(hook.__name__)
        if not new:
            return
        key = folder or ""
        roots = self._roots.get(key)
        if roots is None:  # a library folder that holds the hook does not count
            where = os.path.abspath(key) if key else ""
            roots = self._roots[key] = tuple(r.rstrip(os.sep) + os.sep for r in self._library if not _under(where, r))
        for name in new:
            module = modules.get(name)
            spec = getattr(module, "__spec__", None)
            origin = getattr(spec, "origin", None)
            if spec is not None and not spec.has_location:
                locations = list(getattr(spec, "submodule_search_locations", None) or ())
                if not locations:
                    continue  # built-in, frozen or synthetic: nothing to re-read
                origin = locations[0]  # a namespace package
            elif not isinstance(origin, str):
                origin = getattr(module, "__file__", None)
            if not isinstance(origin, str) or origin.endswith(_EXTENSIONS):
                continue  # extension modules cannot be imported twice safely
            if not os.path.abspath(origin).startswith(roots):
                modules.pop(name, None)

    def _fresh_files(self) -> None:
        for fd, target in ((self.out_fd, 1), (self.err_fd, 2)):
            if os.fstat(fd).st_size:
                os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.dup2(fd, target)
        if self._stdout is None or self._stdout.closed:
            self._stdout = _text_stream(1, sys.__stdout__, line_buffering=False)
        if self._stderr is None or self._stderr.closed:
            self._stderr = _text_stream(2, sys.__stderr__, line_buffering=True)
        sys.stdout, sys.stderr = self._stdout, self._stderr

    @staticmethod
    def _raw_environ() -> dict[bytes, bytes] | None:
        # os.environ's encoded mapping: comparing it is one C-level dict comparison,
        # where iterating os.environ decodes every name and value (~30 us per call).
        data = getattr(os.environ, "_data", None)
        return dict(data) if isinstance(data, dict) else None

    def _apply_env(self, env: dict[str, str]) -> None:
        """Make ``os.environ`` equal ``env``, touching only what differs."""
        current = os.environ
        raw = getattr(current, "_data", None)
        if raw is None or self._applied_raw is None or raw != self._applied_raw:
            self.applied = dict(current)  # the last hook changed it itself
        applied = self.applied
        for name in [n for n in applied if n not in env]:
            current.pop(name, None)
        for name, value in env.items():
            if applied.get(name) != value:
                current[name] = value
        self.applied = env
        self._applied_raw = self._raw_environ()

    def _flush(self) -> None:
        for stream in {
            id(s): s for s in (sys.stdout, sys.stderr, self._stdout, self._stderr) if s is not None
        }.values():
            with contextlib.suppress(Exception):
                stream.flush()

    # -- the loop --------------------------------------------------------
    def serve_forever(self) -> int:
        """Answer requests until EOF on the request pipe."""
        for line in self.requests:
            reply: dict[str, Any]
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("a request must be a JSON object")
                reply = self.handle(request)
            except (ValueError, TypeError, AttributeError) as exc:  # a malformed request
                self._fresh_files()
                sys.stderr.write(f"hook_launcher: bad request: {exc}\n")
                reply = {"exit": 1, "spawn_error": f"bad request: {exc}"}
            os.write(self.replies, (json.dumps(reply, separators=(",", ":")) + "\n").encode())
        return 0


_EXTENSIONS = (".so", ".pyd", ".dll", ".dylib")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _library_roots() -> list[str]:
    """Where the interpreter's libraries live: the stdlib and site-packages folders and
    the start-up ``sys.path`` (less the launcher's own folder, ``sys.path[0]``)."""
    import sysconfig

    paths = sysconfig.get_paths()
    found = [paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    found += sys.path[1:]
    roots: list[str] = []
    for entry in found:
        if entry:
            root = os.path.abspath(entry)
            if root not in roots:
                roots.append(root)
    return roots


def _temp_fd() -> int:
    """A private (close-on-exec) descriptor of an anonymous temporary file."""
    import tempfile

    with tempfile.TemporaryFile() as fh:
        return os.dup(fh.fileno())


def _read_all(fd: int) -> str:
    return os.pread(fd, os.fstat(fd).st_size, 0).decode("utf-8", "replace")


def _leftover_children() -> int:
    """Reap finished children; return how many are still running (0 on the fast path)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 0
        if pid == 0:
            break
    count = 0
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children", encoding="ascii") as fh:
                count += len(fh.read().split())
    except OSError:
        return 1
    return count


def serve(stdout_fd: int | None = None) -> int:
    """Run the warm worker until EOF on the request pipe (``stdout_fd``: see the module
    docstring; without it the call's output is sent inline in the reply)."""
    _set_parent_death_signal()
    _set_child_subreaper()
    return Worker(stdout_fd).serve_forever()


def _usage() -> int:
    sys.stderr.write(
        "usage: hook_launcher.py MODULE.py [ARGS...]   (payload JSON on stdin)\n"
        "       hook_launcher.py --serve [--stdout-fd=N] (warm worker; see the docstring)\n"
    )
    return 1


def main(argv: list[str] | None = None) -> int:
    """Entry point (and the ``hook-launcher`` console script); returns the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help"):
        return _usage()
    if args[0] == "--serve":
        fd: int | None = None
        for arg in args[1:]:
            name, _, value = arg.partition("=")
            if name != "--stdout-fd" or not value.isdigit():
                return _usage()
            fd = int(value)
        return serve(fd)
    raw = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    status = run_hook(args[0], args[1:], raw)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
