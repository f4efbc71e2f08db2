"""hook_launcher.py: its helpers, the cold entry point and the warm worker protocol."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import psutil
import pytest

import hook_launcher
from hook_launcher import HookModuleError, ModuleCache, exit_status, load_module, resolve_module

LAUNCHER = os.path.abspath(hook_launcher.__file__)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (None, (0, None)),
        (0, (0, None)),
        (2, (2, None)),
        (256, (0, None)),
        (-1, (255, None)),
        (True, (1, None)),
        ("msg", (1, "msg")),
        (["x"], (1, "['x']")),
    ],
)
def test_exit_status_matches_cpython(code: object, expected: tuple[int, str | None]) -> None:
    assert exit_status(code) == expected


def test_exit_status_agrees_with_a_real_interpreter() -> None:
    for code in ("None", "7", "300", "-2", "'text'"):
        proc = subprocess.run([sys.executable, "-c", f"import sys; sys.exit({code})"], capture_output=True, text=True)
        status, message = exit_status(eval(code))
        assert proc.returncode == status
        assert proc.stderr == (message + "\n" if message else "")


def test_resolve_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = tmp_path / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "a.py").write_text("")
    assert resolve_module("a.py", str(tmp_path)) == hooks / "a.py"
    assert resolve_module("/abs/x.py", str(tmp_path)) == Path("/abs/x.py")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "here.py").write_text("")
    assert resolve_module("here.py", str(tmp_path)) == tmp_path / "here.py"
    # Neither exists: the hooks-dir path, so the error names where it was expected.
    assert resolve_module("nope.py", str(tmp_path)) == hooks / "nope.py"
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(tmp_path))
    assert resolve_module("a.py") == hooks / "a.py"


def test_load_module_compiles_from_source(tmp_path: Path) -> None:
    path = tmp_path / "dc.py"
    path.write_text(
        textwrap.dedent("""
        from __future__ import annotations
        from dataclasses import dataclass

        @dataclass
        class Point:
            x: int

        def run(payload):
            return Point(1)
    """)
    )
    module = load_module(path)
    assert module.run({}).x == 1
    assert sys.modules["hook_dc"] is module
    assert not (tmp_path / "__pycache__").exists()
    with pytest.raises(HookModuleError, match="hook module not found"):
        load_module(tmp_path / "missing.py")


def test_load_module_does_not_inherit_the_launchers_future_flags(tmp_path: Path) -> None:
    path = tmp_path / "ann.py"
    path.write_text("def run(payload) -> int:\n    return 1\n")
    # The launcher uses `from __future__ import annotations`; the hook must not.
    assert load_module(path).run.__annotations__ == {"return": int}


def test_module_cache_reloads_on_change(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("VALUE = 1\n")
    cache = ModuleCache()
    first = cache.load(path)
    assert cache.load(path) is first
    path.write_text("VALUE = 22\n")  # size changes
    second = cache.load(path)
    assert second is not first and second.VALUE == 22
    path.write_text("VALUE = 33\n")  # same size: mtime decides
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert cache.load(path).VALUE == 33
    path.unlink()
    with pytest.raises(HookModuleError, match="not found"):
        cache.load(path)


# -- cold entry point ------------------------------------------------------------


def cold(tmp_path: Path, body: str, payload: str = '{"a": 1}\n', *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "h.py").write_text(textwrap.dedent(body))
    return subprocess.run(
        [sys.executable, LAUNCHER, str(tmp_path / "h.py"), *args],
        input=payload,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_cold_prints_dict_as_json(tmp_path: Path) -> None:
    proc = cold(tmp_path, "def run(p):\n    return {'got': p}\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, '{"got": {"a": 1}}', "")


def test_cold_without_run(tmp_path: Path) -> None:
    proc = cold(tmp_path, "X = 1\n")
    assert proc.returncode == 1
    assert proc.stderr == f"hook_launcher: {tmp_path / 'h.py'} has no run(payload) function\n"


def test_cold_bad_payload(tmp_path: Path) -> None:
    proc = cold(tmp_path, "def run(p):\n    return 1\n", "{nope")
    assert proc.returncode == 1
    assert proc.stderr.startswith("hook_launcher: payload on stdin is not JSON")


def test_cold_empty_payload_is_an_empty_dict(tmp_path: Path) -> None:
    proc = cold(tmp_path, "def run(p):\n    return repr(p)\n", "")
    assert (proc.returncode, proc.stdout) == (0, "{}")


def test_cold_syntax_error(tmp_path: Path) -> None:
    proc = cold(tmp_path, "def run(p)\n    pass\n")
    assert proc.returncode == 1
    assert "SyntaxError" in proc.stderr and "hook_launcher" not in proc.stderr


def test_usage() -> None:
    for argv in ([], ["--help"], ["--serve", "--bogus"], ["--serve", "--stdout-fd=x"]):
        proc = subprocess.run(
            [sys.executable, LAUNCHER, *argv], capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        assert proc.returncode == 1 and proc.stderr.startswith("usage:"), argv


def test_main_is_the_console_script_entry() -> None:
    assert hook_launcher.main(["--help"]) == 1


# -- warm protocol ----------------------------------------------------------------


class WorkerProcess:
    """A ``--serve`` worker driven by hand: one JSON line out, one reply line back."""

    def __init__(self, cwd: Path, *, inline: bool = False, env: dict[str, str] | None = None) -> None:
        self.out: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self.err: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        argv = [sys.executable, LAUNCHER, "--serve"]
        if not inline:
            argv.append(f"--stdout-fd={self.out.fileno()}")
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            pass_fds=() if inline else (self.out.fileno(),),
            cwd=cwd,
            env=env if env is not None else dict(os.environ),
            start_new_session=True,
        )

    def send_line(self, line: bytes) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], 20)
        assert ready, "no reply within 20 s"
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply

    def call(self, **request: Any) -> dict[str, Any]:
        return self.send_line((json.dumps(request) + "\n").encode())

    def output(self) -> tuple[str, str]:
        return tuple(  # type: ignore[return-value]
            os.pread(f.fileno(), os.fstat(f.fileno()).st_size, 0).decode() for f in (self.out, self.err)
        )

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=20)
        self.out.close()
        self.err.close()
        return code


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[WorkerProcess]:
    w = WorkerProcess(tmp_path)
    yield w
    if w.proc.poll() is None:
        w.close()


def write_hook(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_protocol_round_trip(worker: WorkerProcess, tmp_path: Path) -> None:
    module = write_hook(
        tmp_path,
        "h.py",
        """
        import os, sys

        def run(payload):
            print("to stdout")
            print("to stderr", file=sys.stderr)
            return {"payload": payload, "argv": sys.argv[1:], "cwd": os.getcwd()}
    """,
    )
    reply = worker.call(module=module, args=["x"], cwd="/", stdin='{"n": 1}\n')
    assert reply == {"exit": 0}
    out, err = worker.output()
    assert out.splitlines() == ["to stdout", json.dumps({"payload": {"n": 1}, "argv": ["x"], "cwd": "/"})]
    assert err == "to stderr\n"
    # The files are fresh for every call.
    assert worker.call(module=module, stdin="{}\n") == {"exit": 0}
    assert worker.output()[1] == "to stderr\n"
    assert worker.close() == 0


def test_protocol_environment_is_exact_per_call(tmp_path: Path) -> None:
    module = write_hook(
        tmp_path,
        "env.py",
        """
        import json, os

        def run(payload):
            seen = {k: os.environ.get(k) for k in ("BASE", "GONE", "ADDED", "HOOK_PAYLOAD")}
            os.environ["SCRIBBLE"] = "1"
            return seen
    """,
    )
    w = WorkerProcess(tmp_path, env={**os.environ, "BASE": "b", "GONE": "g"})
    try:
        assert w.call(module=module, env={"ADDED": "a"}, unset=["GONE"], stdin='{"p": 1}\n', payload_env=True) == {
            "exit": 0
        }
        assert json.loads(w.output()[0]) == {"BASE": "b", "GONE": None, "ADDED": "a", "HOOK_PAYLOAD": '{"p": 1}'}
        assert w.call(module=module, stdin="{}\n") == {"exit": 0}
        assert json.loads(w.output()[0]) == {"BASE": "b", "GONE": "g", "ADDED": None, "HOOK_PAYLOAD": None}
        probe = write_hook(tmp_path, "probe.py", "import os\ndef run(p):\n    return os.environ.get('SCRIBBLE')\n")
        assert w.call(module=probe) == {"exit": 0}
        assert w.output()[0] == ""  # the previous hook's own change was undone
    finally:
        w.close()


def test_protocol_errors_keep_the_worker_alive(worker: WorkerProcess, tmp_path: Path) -> None:
    bad = worker.send_line(b"{not json\n")
    assert bad["exit"] == 1 and bad["spawn_error"].startswith("bad request:")
    assert worker.call(args=[])["spawn_error"] == "bad request: 'module' must be a string"
    assert worker.send_line(b"[1]\n")["spawn_error"].startswith("bad request:")
    assert worker.call(module="x.py", env=["A"])["spawn_error"].startswith("bad request:")
    assert worker.call(module="x.py", env={"A": 1})["spawn_error"].startswith("bad request:")
    missing_dir = worker.call(module="x.py", cwd=str(tmp_path / "nope"))
    assert missing_dir["exit"] == 1 and "cannot chdir" in missing_dir["spawn_error"]
    module = write_hook(tmp_path, "ok.py", "def run(p):\n    return 'ok'\n")
    assert worker.call(module=module) == {"exit": 0}
    assert worker.output()[0] == "ok"


def test_protocol_hook_cannot_write_to_the_reply_channel(worker: WorkerProcess, tmp_path: Path) -> None:
    module = write_hook(
        tmp_path,
        "fake.py",
        """
        import os, subprocess, sys

        def run(payload):
            sys.__stdout__.write('{"exit": 5}\\n')
            sys.__stdout__.flush()
            os.write(1, b'{"exit": 6}\\n')
            subprocess.run(["sh", "-c", 'echo \\'{"exit": 7}\\''])
    """,
    )
    assert worker.call(module=module) == {"exit": 0}
    assert worker.output()[0].splitlines() == ['{"exit": 5}', '{"exit": 6}', '{"exit": 7}']


def test_protocol_exit_codes(worker: WorkerProcess, tmp_path: Path) -> None:
    for code, status, err in (("2", 2, ""), ("'no'", 1, "no\n"), ("None", 0, "")):
        module = write_hook(tmp_path, f"e{status}.py", f"import sys\ndef run(p):\n    sys.exit({code})\n")
        assert worker.call(module=module) == {"exit": status}
        assert worker.output()[1] == err
    boom = write_hook(tmp_path, "boom.py", "def run(p):\n    raise KeyError('k')\n")
    assert worker.call(module=boom) == {"exit": 1}
    assert worker.output()[1].endswith("KeyError: 'k'\n")


def test_protocol_reports_leftover_children(worker: WorkerProcess, tmp_path: Path) -> None:
    module = write_hook(
        tmp_path,
        "kid.py",
        """
        import subprocess

        def run(payload):
            if payload.get("leave"):
                return subprocess.Popen(["sleep", "30"]).pid
            subprocess.Popen(["true"]).wait()
    """,
    )
    assert worker.call(module=module, stdin="{}\n") == {"exit": 0}
    reply = worker.call(module=module, stdin='{"leave": true}\n')
    assert reply == {"exit": 0, "leftover": 1}
    child = int(worker.output()[0])
    os.killpg(worker.proc.pid, 9)  # what the pool does (with kill_tree) on "leftover"
    worker.proc.wait(timeout=20)
    # The orphan may have come to this process (a subreaper after the runner tests).
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            proc = psutil.Process(child)
            if proc.status() == psutil.STATUS_ZOMBIE:
                if proc.ppid() == os.getpid():
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(child, 0)
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.005)


def test_inline_mode_sends_output_in_the_reply(tmp_path: Path) -> None:
    module = write_hook(
        tmp_path,
        "h.py",
        """
        import sys

        def run(payload):
            sys.stderr.write("e")
            return payload
    """,
    )
    w = WorkerProcess(tmp_path, inline=True)
    try:
        assert w.call(module=module, stdin='{"k": 2}\n') == {"exit": 0, "stdout": '{"k": 2}', "stderr": "e"}
    finally:
        assert w.close() == 0
