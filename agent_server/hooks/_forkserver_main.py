"""The fork server for ``python3 script.py`` command hooks (started by ``_forkserver.py``).

Run as ``<python> _forkserver_main.py FD``: FD is one end of a ``SOCK_SEQPACKET``
socketpair from the runner. Standalone on purpose: it runs under whatever interpreter the
hook names, which need not have ``agent_server`` installed (Python >= 3.9, Linux).

It imports the common standard library once and keeps one *spare* child, forked ahead of
need, waiting for a job in the server's process group. Each request goes to the spare
(its code object marshalled, its fds passed on), which becomes ``python3 script.py
args…``: its own session, the request's fds as 0/1/2, the hook's environment, cwd, ``sys.argv``,
``sys.path[0]``, ``__main__`` module and standard streams as a fresh interpreter would
make them; then the next spare is forked while that hook runs. Single-threaded: one
``selectors`` loop.

Protocol. A request is one packet on FD: a JSON object plus four descriptors
``[call socket, stdin, stdout, stderr]``::

    {"script": "x.py", "argv": ["x.py", "a"], "argv0": "python3", "cwd": "/proj",
     "env": {"NAME": "value"}, "unset": ["NAME"], "shell": true}

(``env``/``unset``: the difference from this server's start environment; ``shell``: the
cold run goes through a ``/bin/sh -c`` that does not exec its last command, so the
server reports a death by signal as that shell would, see :meth:`_Server.exited`). Replies go on
the call socket, one JSON line each, then the server closes it::

    {"pid": 1234}          the child runs (its pid leads its own session and group)
    {"exit": 0}            it ended; a negative number is the signal that killed it
    {"signal": 15, "core": false}   (with "shell") a signal killed it; the runner
                           answers {"say": "Terminated\\n"}: what the shell would print
    {"cold": "reason"}     not started: run it the ordinary way (the file is missing,
                           unreadable or does not compile: the cold run reports that)

EOF on the call socket before ``exit`` (the runner gave up on the call): the child's
group gets SIGKILL. EOF on FD (the runner is gone): every child's group and the spare
get SIGKILL and the server exits. A spare whose server is gone gets EOF and exits.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import gc
import io
import json
import marshal
import os
import selectors
import signal
import socket
import sys
import types
from importlib.machinery import SourceFileLoader
from typing import Any

# The standard library hooks import most, loaded once here so a forked hook finds it
# ready. Kept short: every module makes the server bigger, and each fork and exit costs
# more with its size (these cost about 0.4 ms per call here; all of logging, tempfile,
# hashlib, uuid and dataclasses as well, about 0.7 ms more).
_PRELOAD = (
    "argparse",
    "collections",
    "datetime",
    "fnmatch",
    "functools",
    "glob",
    "itertools",
    "pathlib",
    "re",
    "shlex",
    "shutil",
    "subprocess",
    "textwrap",
    "time",
    "traceback",
    "typing",
    "urllib.parse",
)
_MAX_REQUEST = 1 << 21
# Code objects (marshalled, to hand to a spare child) by file path, kept while the
# file's (mtime, size, inode) are unchanged.
_code_cache: dict[str, tuple[tuple[int, int, int], bytes]] = {}


class _Job:
    """What a forked child runs: everything it needs, gathered before the fork."""

    def __init__(self, request: dict[str, Any], filename: str, code: types.CodeType, fds: list[int]) -> None:
        self.request = request
        self.filename = filename
        self.code = code
        self.fds = fds


def _compile(filename: str) -> bytes:
    """The script's code object, marshalled (cached); raises what reading or compiling
    raises."""
    st = os.stat(filename)
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    if not os.access(filename, os.R_OK):  # (a chmod does not change the key)
        raise PermissionError(filename)
    hit = _code_cache.get(filename)
    if hit is not None and hit[0] == key:
        return hit[1]
    import stat

    if not stat.S_ISREG(st.st_mode):
        raise IsADirectoryError(filename)  # a directory or zip runs its __main__: not ours
    with open(filename, "rb") as f:
        source = f.read()
    if b"PK\x05\x06" in source[-65558:]:
        raise ValueError("looks like a zip archive")
    code = marshal.dumps(compile(source, filename, "exec", dont_inherit=True))
    _code_cache[filename] = (key, code)
    return code


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # (the runner gave up on this call)
        sock.sendall((json.dumps(message) + "\n").encode())


def _kill_group(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(pid, signal.SIGKILL)


class _Child:
    """A forked hook the server waits for."""

    def __init__(self, pid: int, pidfd: int, call: socket.socket, stderr: int | None) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.call: socket.socket | None = call  # None once the runner gave up on it
        self.stderr = stderr  # a copy of its stderr, kept while it stands in for a shell
        self.telling = False  # waiting for the runner's word on a death by signal

    def close(self) -> None:
        """Close what the server holds for it (also used in a forked child)."""
        os.close(self.pidfd)
        if self.stderr is not None:
            os.close(self.stderr)
            self.stderr = None
        if self.call is not None:
            self.call.close()
            self.call = None


class _Spare:
    """A child forked ahead of need, waiting on ``sock`` for its job: the fork (and the
    new process's first scheduling) is off the next call's path."""

    def __init__(self, pid: int, pidfd: int, sock: socket.socket) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.sock = sock


class _Server:
    """The server's state: its selector, the runner's socket, its children, a spare."""

    def __init__(self, ctl: socket.socket) -> None:
        self.ctl = ctl
        self.sel = selectors.DefaultSelector()
        self.sel.register(ctl, selectors.EVENT_READ, None)
        self.children: dict[int, _Child] = {}
        self.spare: _Spare | None = None

    def serve(self) -> _Job | None:
        """Answer requests until EOF on ``ctl`` (returns None); returns a job in a child."""
        job = self.fork_spare()
        if job is not None:
            return job
        while True:
            for key, _ in self.sel.select():
                what = key.data
                if what is None:
                    got = self.request()
                    if got is False:  # EOF: the runner is gone
                        self.shut_down()
                        return None
                    if isinstance(got, _Job):
                        return got
                    if self.spare is None:
                        # The next call's child, forked while this call's hook runs
                        # (rather than after: the runner's next call often follows at once).
                        job = self.fork_spare()
                        if job is not None:
                            return job
                    continue
                kind, child = what
                if kind == "spare":  # the spare died (killed from outside)
                    self.drop_spare()
                elif kind == "exit":
                    self.exited(child)
                    if self.spare is None:
                        job = self.fork_spare()  # (one was not made: a hand-over failed)
                        if job is not None:
                            return job
                elif child.telling:  # the runner's word: what a shell would print, if anything
                    self.tell(child)
                else:  # EOF (or stray bytes) on the call socket: the runner gave up
                    if child.call is not None:
                        self.sel.unregister(child.call)
                        child.call.close()
                        child.call = None
                    _kill_group(child.pid)

    def shut_down(self) -> None:
        """Before exiting: end the spare and every running child."""
        self.drop_spare()
        for pid in self.children:
            _kill_group(pid)
        for pid in self.children:
            os.waitpid(pid, 0)

    def fork_spare(self) -> _Job | None:
        """Fork the spare child; in the child, wait for a job and return it."""
        gc.freeze()  # children share what exists now; frozen, their collections skip it
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            # The child keeps none of the server's descriptors (closed through their
            # objects, so nothing later closes a number the hook reuses).
            self.sel.close()
            self.ctl.close()
            ours.close()
            for other in self.children.values():
                other.close()
            return _wait_for_job(theirs)
        theirs.close()
        self.spare = _Spare(pid, os.pidfd_open(pid), ours)
        self.sel.register(self.spare.pidfd, selectors.EVENT_READ, ("spare", None))
        return None

    def drop_spare(self) -> None:
        """End the spare child (EOF on its socket, and SIGKILL) and reap it."""
        spare, self.spare = self.spare, None
        if spare is not None:
            self.sel.unregister(spare.pidfd)
            spare.sock.close()
            _kill_group(spare.pid)
            os.waitpid(spare.pid, 0)
            os.close(spare.pidfd)

    def request(self) -> _Job | bool:
        """Read one request and hand it to the spare child. False on EOF; a job in a
        (newly forked) child."""
        try:
            raw, fds, flags, _ = socket.recv_fds(self.ctl, _MAX_REQUEST, 4)
        except (BlockingIOError, InterruptedError):
            return True
        if not raw and not fds:
            return False
        if len(fds) != 4 or flags & socket.MSG_TRUNC:
            for fd in fds:
                os.close(fd)
            return True
        call = socket.socket(fileno=fds[0])
        stdio = fds[1:]
        try:
            try:
                request = json.loads(raw)
                cwd = request["cwd"]
                script = request["script"]
                # The path a cold run gives its code and __file__: the word joined,
                # unnormalised, to the physical working directory.
                filename = script if os.path.isabs(script) else os.path.join(os.path.realpath(cwd), script)
                if not os.path.isdir(cwd):
                    raise NotADirectoryError(cwd)
                code = _compile(filename)
            except Exception as exc:  # the cold run reports it exactly as it should
                _send(call, {"cold": f"{type(exc).__name__}: {exc}"})
                call.close()
                return True
            if self.spare is None:  # (calls at once: one spare each)
                job = self.fork_spare()
                if job is not None:
                    call.close()
                    return job
            spare, self.spare = self.spare, None
            assert spare is not None
            request["filename"] = filename
            header = json.dumps(request).encode("utf-8", "surrogateescape")
            try:
                socket.send_fds(spare.sock, [len(header).to_bytes(4, "big"), header, code], stdio)
            except OSError as exc:  # too large to hand over: the cold run does it
                self.spare = spare
                self.drop_spare()
                _send(call, {"cold": f"cannot hand the call over: {exc}"})
                call.close()
                return True
            spare.sock.close()
            # Standing in for a shell, the server keeps the hook's stderr open (as the
            # shell does) until it has written what the shell would.
            stderr = os.dup(stdio[2]) if request.get("shell") else None
            child = _Child(spare.pid, spare.pidfd, call, stderr)
            self.children[child.pid] = child
            self.sel.modify(child.pidfd, selectors.EVENT_READ, ("exit", child))
            self.sel.register(call, selectors.EVENT_READ, ("call", child))
            _send(call, {"pid": child.pid})
            return True
        finally:
            for fd in stdio:
                os.close(fd)

    def exited(self, child: _Child) -> None:
        """Reap ``child`` and report its status."""
        self.sel.unregister(child.pidfd)
        _, status = os.waitpid(child.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if child.call is not None and child.stderr is not None and code < 0:
            # Through a shell that waits for its command (dash), a death by signal
            # becomes 128+N and perhaps a line on stderr; the runner knows whether it
            # sent the signal (then the shell died of it too), so it says what to write.
            child.telling = True
            _send(child.call, {"signal": -code, "core": os.WCOREDUMP(status)})
            return
        if child.call is not None:
            self.sel.unregister(child.call)
            _send(child.call, {"exit": code})
        self.children.pop(child.pid)
        child.close()

    def tell(self, child: _Child) -> None:
        """Write what the runner says the shell would have printed; then forget the child."""
        assert child.call is not None and child.stderr is not None
        self.sel.unregister(child.call)
        try:
            line = child.call.makefile("rb").readline(1 << 16)
            text = json.loads(line)["say"] if line else ""
            if text:
                os.write(child.stderr, text.encode())
        except (OSError, ValueError, KeyError, TypeError):
            pass
        self.children.pop(child.pid)
        child.close()


def _wait_for_job(sock: socket.socket) -> _Job:
    """In the spare child: the job the server hands over (EOF: the server is gone)."""
    # Nothing but 0/1/2 and the job's socket stays open (done while waiting, off the
    # call's path); the server's own descriptors were closed through their objects.
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2 and int(name) != sock.fileno():
            with contextlib.suppress(OSError):
                os.close(int(name))
    _rehearse()
    try:
        raw, fds, _, _ = socket.recv_fds(sock, _MAX_REQUEST + (1 << 22), 3)
    except OSError:
        raw, fds = b"", []
    if not raw or len(fds) != 3:
        os._exit(0)
    sock.close()
    # Only now its own session: idle, it stays in the server's group, so ending that
    # group (the runner retiring the server) ends it too.
    os.setsid()
    size = int.from_bytes(raw[:4], "big")
    request = json.loads(raw[4 : 4 + size])
    return _Job(request, request["filename"], marshal.loads(raw[4 + size :]), fds)


def _stdio(fd: int, name: str) -> None:
    """Make ``sys.<name>`` (and ``sys.__<name>__``) a stream over ``fd`` as the
    interpreter makes it at start-up."""
    stream = _stream(fd, name)
    setattr(sys, name, stream)
    setattr(sys, f"__{name}__", stream)


def _stream(fd: int, name: str) -> io.TextIOWrapper:
    old = getattr(sys, f"__{name}__")
    write = name != "stdin"
    buffered = not old.write_through  # (-u / PYTHONUNBUFFERED: write-through)
    buffering = -1 if buffered or not write else 0
    buf: Any = open(fd, "wb" if write else "rb", buffering, closefd=False)  # noqa: SIM115
    raw = buf.raw if buffering else buf
    raw.name = f"<{name}>"
    line_buffering = buffered and (raw.isatty() or name == "stderr")
    stream = io.TextIOWrapper(buf, old.encoding, old.errors, "\n", line_buffering, not buffered)
    stream.mode = "w" if write else "r"  # type: ignore[misc]
    return stream


def _rehearse() -> None:
    """In the spare, before its job: go once through what every job does, on throwaway
    values. The memory pages this writes (reference counts, mostly) are copied from the
    server now, while the spare waits, instead of during the call."""
    request = json.loads(json.dumps({"env": {"NAME": "value"}, "argv": ["x.py"], "cwd": "/"}))
    marshal.loads(marshal.dumps(_rehearse.__code__))
    environ = dict(os.environ)
    environ.update(request["env"])
    os.path.dirname(os.path.realpath(os.path.join(os.getcwd(), "x.py")))
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        _stream(fd, name)  # (nothing read or written; closed without closing the fd)
    # What a typical hook does: read JSON from stdin and print JSON (here over pipes).
    main = types.ModuleType("__main__")
    main.__loader__ = SourceFileLoader("__main__", "/x.py")
    source = "import json, os, sys\nprint(json.dumps(json.load(stdin)), file=stdout, flush=True)\n"
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    names: dict[str, Any] = {}
    try:
        os.write(in_w, b'{"tool_input": {"command": "ls"}}\n')
        os.close(in_w)
        in_w = -1
        names = {**main.__dict__, "stdin": _stream(in_r, "stdin"), "stdout": _stream(out_w, "stdout")}
        exec(compile(source, "<rehearsal>", "exec"), names)
    except OSError:
        pass
    finally:
        names.clear()  # (the streams go before their descriptors)
        for fd in (in_r, in_w, out_r, out_w):
            if fd >= 0:
                os.close(fd)
    main.__dict__.clear()
    gc.collect()


def _become(job: _Job) -> None:
    """In the child: turn this process into ``python3 script.py args…`` and run it."""
    request = job.request
    for target, fd in enumerate(job.fds):
        os.dup2(fd, target)
    for fd in job.fds:
        os.close(fd)
    try:
        os.chdir(request["cwd"])
    except OSError as exc:
        os.write(2, f"cannot chdir to {request['cwd']!r}: {exc}\n".encode())
        os._exit(1)
    for name in request.get("unset", ()):
        os.environ.pop(name, None)
    os.environ.update(request.get("env", {}))
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        _stdio(fd, name)
    sys.argv = list(request["argv"])
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = [request["argv0"], *request["argv"]]
    if not getattr(sys.flags, "safe_path", False):
        sys.path[0] = os.path.dirname(os.path.realpath(job.filename))
    # A fresh __main__, with the names a cold run's has.
    main = types.ModuleType("__main__")
    main.__annotations__ = {}
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    main.__file__ = job.filename
    main.__cached__ = None  # type: ignore[attr-defined]
    main.__loader__ = SourceFileLoader("__main__", job.filename)
    sys.modules["__main__"] = main
    status = [0]
    interrupted: list[bool] = []

    def finish() -> None:
        # Registered before the script's own handlers, so it runs after them (and after
        # the interpreter has joined the script's threads). It ends the process the way a
        # cold interpreter's end is seen: the script's globals released (unclosed files
        # flushed), the standard streams flushed (120 if that fails), and for an uncaught
        # KeyboardInterrupt death by SIGINT; the interpreter's own teardown of every module
        # is skipped (os._exit): in a forked child it would touch, and so copy, each page.
        main.__dict__.clear()
        gc.collect()
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except Exception:
                status[0] = 120
        if interrupted:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(status[0])

    atexit.register(finish)
    try:
        exec(job.code, main.__dict__)
    except SystemExit as exc:
        status[0] = _exit_status(exc)
    except BaseException as exc:
        tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None  # without this frame
        exc = exc.with_traceback(tb)
        sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
        if sys.version_info >= (3, 12):
            sys.last_exc = exc  # type: ignore[attr-defined,unused-ignore]
        sys.excepthook(type(exc), exc, tb)
        status[0] = 1
        if isinstance(exc, KeyboardInterrupt):
            interrupted.append(True)


def _exit_status(exc: SystemExit) -> int:
    """The exit status an interpreter gives an uncaught ``SystemExit``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        sys.stderr.write(f"{code}\n")
        sys.stderr.flush()
    return 1


def main() -> None:
    """Serve until the runner goes away; in a forked child, run the hook."""
    for name in _PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)
    if not hasattr(os, "pidfd_open") or not hasattr(socket, "recv_fds"):
        sys.exit("the fork server needs Python >= 3.9 on Linux")
    job = _Server(socket.socket(fileno=int(sys.argv[1]))).serve()
    if job is not None:
        _become(job)


if __name__ == "__main__":
    main()
