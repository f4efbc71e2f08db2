"""Unmodified ``python3 script.py`` hooks: forked from a fork server or cold, the same result.

Every behaviour runs the same script as a command hook twice, through a real HookRunner:
cold (``"warm": false``, a new interpreter via ``/bin/sh -c``) and forked (the default),
and compares the two results field by field; each case also asserts what the result is,
so two equal wrong answers fail too. The forked run must really have been forked.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest

from agent_server.hooks import HookResult, HookRunner, HookStatus
from agent_server.hooks._forkserver import parse_command, plan_call
from tests.support import load_payload

pytestmark = pytest.mark.anyio

PY = sys.executable
LIMIT = 64 * 1024
MODES = ("cold", "forked")


class Project:
    """A temporary project whose ``.claude/hooks/`` holds the scripts under test."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hooks_dir = root / ".claude" / "hooks"
        self.hooks_dir.mkdir(parents=True, exist_ok=True)

    def script(self, name: str, body: str, *, mode: int | None = None) -> Path:
        path = self.hooks_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body))
        if mode is not None:
            path.chmod(mode)
        return path

    def command(self, name: str, args: str = "") -> str:
        """``python "$CLAUDE_PROJECT_DIR"/.claude/hooks/NAME ARGS``, as settings write it."""
        return f'{shlex.quote(PY)} "$CLAUDE_PROJECT_DIR"/.claude/hooks/{name}' + (f" {args}" if args else "")

    def settings(self, command: str, mode: str, **fields: Any) -> None:
        hook: dict[str, Any] = {"type": "command", "command": command, **fields}
        if mode == "cold":
            hook["warm"] = False
        hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}
        (self.root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))

    def runner(self, **options: Any) -> HookRunner:
        options.setdefault("output_limit", LIMIT)
        options.setdefault("kill_grace", 0.5)
        runner = HookRunner.from_project(self.root, user_settings=None, **options)
        assert not runner.config.errors, runner.config.errors
        return runner

    def payload(self, **extra: Any) -> dict[str, Any]:
        payload = load_payload("PreToolUse__Bash", self.root)
        payload["tool_input"] = {"command": "ls"}
        payload.update(extra)
        return payload


@pytest.fixture
def p(tmp_path: Path) -> Project:
    return Project(tmp_path)


def check_mode(runner: HookRunner, mode: str, calls: int = 1) -> None:
    """The hook really ran the way the test says."""
    forks = runner.fork_servers
    if mode == "cold":
        assert forks.started == 0 and forks.forked == 0
    else:
        assert forks.forked == calls, "the hook did not run in the fork server"


async def fire(p: Project, mode: str, command: str, payload: dict[str, Any] | None = None, **fields: Any) -> HookResult:
    p.settings(command, mode, **fields)
    async with p.runner() as runner:
        outcome = await runner.fire("PreToolUse", payload or p.payload())
        check_mode(runner, mode)
    assert len(outcome.hooks) == 1
    return outcome.hooks[0]


def view(result: HookResult) -> dict[str, Any]:
    """What a hook's caller can see of its result (timing left out)."""
    return {
        "status": result.status,
        "exit_code": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "decision": result.decision,
        "reason": result.reason,
        "timed_out": result.timed_out,
        "truncated": result.truncated,
    }


async def both(p: Project, body: str, args: str = "", name: str = "h.py", **kw: Any) -> dict[str, Any]:
    """Run the script cold and forked; they must agree. Returns the (shared) view."""
    p.script(name, body)
    results = {mode: view(await fire(p, mode, p.command(name, args), **kw)) for mode in MODES}
    assert results["forked"] == results["cold"]
    return results["cold"]


# -- stdin -----------------------------------------------------------------------


async def test_reads_the_payload_from_stdin(p: Project) -> None:
    seen = await both(
        p,
        """
        import json, sys
        data = json.load(sys.stdin)
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "permissionDecision": "deny", "permissionDecisionReason": data["tool_input"]["command"]}}))
        """,
    )
    assert seen["status"] is HookStatus.BLOCKED
    assert seen["decision"] == "deny" and seen["reason"] == "ls"


async def test_partial_read_of_a_large_payload(p: Project) -> None:
    big = p.payload(tool_input={"command": "x" * 300_000})
    seen = await both(p, "import sys\nprint(repr(sys.stdin.read(12)))\n", payload=big)
    assert seen["stdout"] == repr('{"session_id') + "\n"
    assert seen["exit_code"] == 0


async def test_no_read_of_a_large_payload(p: Project) -> None:
    big = p.payload(tool_input={"command": "x" * 300_000})
    seen = await both(p, "print('did not read')\n", payload=big)
    assert seen["stdout"] == "did not read\n" and seen["exit_code"] == 0


async def test_input_at_eof(p: Project) -> None:
    seen = await both(
        p,
        """
        line = input()
        print(len(line) > 10)
        input()
        """,
    )
    assert seen["exit_code"] == 1
    assert seen["stdout"] == "True\n"
    assert seen["stderr"].endswith("EOFError: EOF when reading a line\n")


# -- output ----------------------------------------------------------------------


async def test_large_output_is_capped_alike(p: Project) -> None:
    seen = await both(
        p,
        """
        import os, sys
        sys.stdout.write("o" * 200_000)
        sys.stderr.write("e" * 150_000)
        os.write(1, b"raw")
        """,
    )
    assert seen["truncated"] is True
    assert len(seen["stdout"]) == LIMIT and set(seen["stdout"]) == {"o"}
    assert len(seen["stderr"]) == LIMIT


async def test_unflushed_output_and_open_files_are_flushed_at_exit(p: Project) -> None:
    out = p.root / "written.txt"
    seen = await both(
        p,
        f"""
        import sys
        f = open({str(out)!r}, "w")
        f.write("kept")
        sys.stdout.write("no newline")
        """,
    )
    assert seen["stdout"] == "no newline"
    assert out.read_text() == "kept"


# -- exit ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "code", "stderr"),
    [
        ("sys.exit()", 0, ""),
        ("sys.exit(None)", 0, ""),
        ("sys.exit(0)", 0, ""),
        ("sys.exit(3)", 3, ""),
        ("sys.exit(True)", 1, ""),
        ("sys.exit(256 + 7)", 7, ""),
        ("raise SystemExit(-1)", 255, ""),
        ("sys.exit('bad thing')", 1, "bad thing\n"),
        ("os._exit(4)", 4, ""),
    ],
)
async def test_exit_forms(p: Project, statement: str, code: int, stderr: str) -> None:
    seen = await both(p, f"import os, sys\n{statement}\n")
    assert seen["exit_code"] == code
    assert seen["stderr"] == stderr


async def test_exit_2_blocks_with_stderr(p: Project) -> None:
    seen = await both(p, "import sys\nsys.stderr.write('no way\\n')\nsys.exit(2)\n")
    assert seen["status"] is HookStatus.BLOCKED and seen["exit_code"] == 2
    assert seen["reason"] and seen["reason"].endswith("no way")


async def test_uncaught_exception_prints_the_same_traceback(p: Project) -> None:
    seen = await both(
        p,
        """
        def inner():
            raise ValueError("boom")

        inner()
        """,
    )
    assert seen["exit_code"] == 1
    lines = seen["stderr"].splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1] == "ValueError: boom"
    assert "_forkserver" not in seen["stderr"]
    assert 'h.py", line 5, in <module>' in seen["stderr"]


async def test_custom_excepthook_is_used(p: Project) -> None:
    seen = await both(
        p,
        """
        import sys
        sys.excepthook = lambda t, v, tb: print("hooked", t.__name__, v, file=sys.stderr)
        raise KeyError("k")
        """,
    )
    assert seen["stderr"] == "hooked KeyError 'k'\n" and seen["exit_code"] == 1


# -- signals ---------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGUSR1])
async def test_death_by_signal(p: Project, sig: signal.Signals) -> None:
    seen = await both(p, f"import os, sys\nprint('before', flush=True)\nos.kill(os.getpid(), {int(sig)})\n")
    # /bin/sh either execs the script (the signal shows) or reports it as 128+N (dash).
    assert seen["exit_code"] in (-int(sig), 128 + int(sig))
    assert seen["stdout"] == "before\n"


async def test_keyboard_interrupt_dies_by_sigint_after_cleanup(p: Project) -> None:
    seen = await both(
        p,
        """
        import atexit
        atexit.register(lambda: print("cleanup ran", flush=True))
        raise KeyboardInterrupt
        """,
    )
    assert seen["exit_code"] in (-int(signal.SIGINT), 128 + int(signal.SIGINT))
    assert seen["stdout"] == "cleanup ran\n"
    assert seen["stderr"].rstrip().endswith("KeyboardInterrupt")


async def test_signal_handlers_start_default(p: Project) -> None:
    seen = await both(
        p,
        """
        import signal
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE, signal.SIGCHLD, signal.SIGUSR1):
            print(s.name, signal.getsignal(s))
        print(sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        """,
    )
    assert seen["stdout"] == (f"SIGTERM 0\nSIGINT {signal.default_int_handler}\nSIGPIPE 1\nSIGCHLD 0\nSIGUSR1 0\n[]\n")


# -- processes, cwd, environment, threads, atexit ----------------------------------


async def test_subprocesses_inherit_stdio(p: Project) -> None:
    seen = await both(
        p,
        """
        import os, subprocess, sys
        print("parent", flush=True)
        subprocess.run(["sh", "-c", "echo child; echo child-err >&2; head -c 14"], check=True)
        print()
        os.system("echo system")
        """,
    )
    assert seen["stdout"] == 'parent\nchild\n{"session_id":\nsystem\n'
    assert seen["stderr"] == "child-err\n"


async def test_only_the_standard_descriptors_are_open(p: Project) -> None:
    seen = await both(
        p,
        """
        import os, stat
        print(sorted(os.listdir("/proc/self/fd")))
        print([stat.S_ISFIFO(os.fstat(fd).st_mode) for fd in (0, 1, 2)])
        """,
    )
    # (3: the directory listdir() has open while it reads)
    assert seen["stdout"] == "['0', '1', '2', '3']\n[True, True, True]\n"


async def test_chdir_and_cwd(p: Project) -> None:
    seen = await both(
        p,
        """
        import os
        print(os.getcwd())
        os.chdir("/")
        print(os.getcwd())
        """,
    )
    assert seen["stdout"] == f"{p.root}\n/\n"


async def test_environment_is_the_hooks_and_changes_reach_children(p: Project) -> None:
    seen = await both(
        p,
        """
        import os, subprocess
        print(os.environ["HOOK_EVENT"], os.environ["CLAUDE_PROJECT_DIR"] == os.getcwd())
        print(sorted(k for k in os.environ if k != "AGENT_SERVER_HOOK_RUN"))
        os.environ["ADDED_BY_HOOK"] = "yes"
        del os.environ["HOOK_EVENT"]
        subprocess.run(["sh", "-c", 'echo "$ADDED_BY_HOOK-${HOOK_EVENT:-unset}"'])
        """,
    )
    first, keys, last = seen["stdout"].splitlines()
    assert first == "PreToolUse True"
    assert "CLAUDE_PROJECT_DIR" in keys and "HOOK_PAYLOAD" in keys
    assert last == "yes-unset"


async def test_a_hooks_changes_do_not_reach_the_next_call(p: Project) -> None:
    p.script(
        "h.py",
        """
        import os, sys
        print(os.environ.get("LEFT_BEHIND", "clean"), sys.modules.get("leftover_mod") is None)
        os.environ["LEFT_BEHIND"] = "dirty"
        sys.modules["leftover_mod"] = sys
        """,
    )
    p.settings(p.command("h.py"), "forked")
    async with p.runner() as runner:
        outs = [(await runner.fire("PreToolUse", p.payload())).hooks[0].stdout for _ in range(3)]
        check_mode(runner, "forked", calls=3)
    assert outs == ["clean True\n"] * 3


async def test_threads_are_joined_before_exit(p: Project) -> None:
    seen = await both(
        p,
        """
        import threading, time
        def late():
            time.sleep(0.2)
            print("thread done", flush=True)
        threading.Thread(target=late).start()
        print("main done", flush=True)
        """,
    )
    assert seen["stdout"] == "main done\nthread done\n"


async def test_atexit_handlers_run_in_order(p: Project) -> None:
    seen = await both(
        p,
        """
        import atexit, sys
        atexit.register(print, "first registered")
        atexit.register(print, "second registered")
        sys.exit(5)
        """,
    )
    assert seen["stdout"] == "second registered\nfirst registered\n" and seen["exit_code"] == 5


# -- argv, path, imports -----------------------------------------------------------


async def test_argv_path_and_main_module(p: Project) -> None:
    seen = await both(
        p,
        """
        import os, sys
        print(sys.argv)
        print(sys.path[0] == os.path.dirname(os.path.realpath(__file__)), __name__, __file__)
        print(sorted(globals()), __spec__, type(__loader__).__name__, __cached__, __package__)
        print(os.path.basename(sys.orig_argv[0]), sys.orig_argv[1:] == sys.argv)
        """,
        args="'a b' c",
    )
    argv, main, names, orig = seen["stdout"].splitlines()
    script = f"{p.hooks_dir}/h.py"
    assert argv == str([script, "a b", "c"])
    assert main == f"True __main__ {script}"
    assert names.endswith("None SourceFileLoader None None")
    assert orig.endswith(" True")


async def test_imports_from_the_scripts_folder(p: Project) -> None:
    p.script("helper_mod.py", "VALUE = 'from the folder'\n")
    p.script("pkg/__init__.py", "")
    p.script("pkg/inner.py", "from . import sibling\nVALUE = sibling.VALUE\n")
    p.script("pkg/sibling.py", "VALUE = 'relative import'\n")
    seen = await both(
        p,
        """
        import helper_mod
        from pkg import inner
        print(helper_mod.VALUE, "/", inner.VALUE)
        """,
    )
    assert seen["stdout"] == "from the folder / relative import\n"


async def test_script_is_reloaded_when_it_changes(p: Project) -> None:
    path = p.script("h.py", "print('one')\n")
    p.settings(p.command("h.py"), "forked")
    async with p.runner() as runner:
        first = (await runner.fire("PreToolUse", p.payload())).hooks[0].stdout
        path.write_text("print('two, longer')\n")
        second = (await runner.fire("PreToolUse", p.payload())).hooks[0].stdout
        check_mode(runner, "forked", calls=2)
    assert (first, second) == ("one\n", "two, longer\n")


# -- bad input -----------------------------------------------------------------------


async def test_missing_script(p: Project) -> None:
    command = p.command("missing.py")
    results = {}
    for mode in MODES:
        p.settings(command, mode)
        async with p.runner() as runner:
            results[mode] = view((await runner.fire("PreToolUse", p.payload())).hooks[0])
            if mode == "forked":  # declined: nothing forked, the ordinary spawn reported it
                assert runner.fork_servers.forked == 0
    assert results["forked"] == results["cold"]
    assert results["cold"]["exit_code"] == 2
    assert "can't open file" in results["cold"]["stderr"]


async def test_unreadable_script(p: Project) -> None:
    p.script("h.py", "print('read it')\n", mode=0)
    results = {}
    for mode in MODES:
        p.settings(p.command("h.py"), mode)
        async with p.runner() as runner:
            results[mode] = view((await runner.fire("PreToolUse", p.payload())).hooks[0])
    assert results["forked"] == results["cold"]
    if os.geteuid() != 0:  # root reads it anyway, cold and forked alike
        assert results["cold"]["exit_code"] == 2 and "Permission denied" in results["cold"]["stderr"]


async def test_syntax_error(p: Project) -> None:
    p.script("h.py", "print('x'\n")
    results = {}
    for mode in MODES:
        p.settings(p.command("h.py"), mode)
        async with p.runner() as runner:
            results[mode] = view((await runner.fire("PreToolUse", p.payload())).hooks[0])
            # The server declined it and stays up for the next call.
            if mode == "forked":
                assert runner.fork_servers.started == 1 and runner.fork_servers.pids
    assert results["forked"] == results["cold"]
    assert results["cold"]["exit_code"] == 1 and "SyntaxError" in results["cold"]["stderr"]


async def test_hang_during_import_times_out_and_the_server_survives(p: Project) -> None:
    p.script("hang.py", "import time\nprint('importing', flush=True)\nwhile True:\n    time.sleep(0.05)\n")
    p.script("ok.py", "print('fine')\n")
    results = {}
    for mode in MODES:
        hooks = [
            {"type": "command", "command": p.command("hang.py"), "timeout": 1},
            {"type": "command", "command": p.command("ok.py")},
        ]
        if mode == "cold":
            for hook in hooks:
                hook["warm"] = False
        settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}
        (p.root / ".claude" / "settings.json").write_text(json.dumps(settings))
        async with p.runner() as runner:
            outcome = await runner.fire("PreToolUse", p.payload())
            results[mode] = [view(r) for r in outcome.hooks]
            if mode == "forked":
                server_pids = dict(runner.fork_servers.pids)
                again = await runner.fire("PreToolUse", p.payload())
                assert again.hooks[1].stdout == "fine\n"
                assert runner.fork_servers.pids == server_pids  # the same server served both
                assert runner.fork_servers.forked == 4
    assert results["forked"] == results["cold"]
    hang, ok = results["cold"]
    assert hang["status"] is HookStatus.TIMEOUT and hang["timed_out"]
    assert ok["stdout"] == "fine\n"


@pytest.mark.parametrize("mode", MODES)
async def test_timeout_kills_the_whole_tree(p: Project, mode: str) -> None:
    pids = p.root / "pids.txt"
    p.script(
        "tree.py",
        f"""
        import os, subprocess, time
        child = subprocess.Popen(["sleep", "60"])
        daemon = subprocess.Popen(["sleep", "61"], start_new_session=True)
        with open({str(pids)!r}, "w") as f:
            f.write(f"{{os.getpid()}} {{child.pid}} {{daemon.pid}}")
        time.sleep(60)
        """,
    )
    p.settings(p.command("tree.py"), mode, timeout=1)
    async with p.runner() as runner:
        outcome = await runner.fire("PreToolUse", p.payload())
        check_mode(runner, mode)
        result = outcome.hooks[0]
        assert result.status is HookStatus.TIMEOUT
        found = [int(x) for x in pids.read_text().split()]
        assert len(found) == 3
        with anyio.fail_after(5):
            while not all(gone(pid) for pid in found):
                await anyio.sleep(0.02)


def zombie_children() -> list[int]:
    """This process's children that nobody has reaped."""
    found = []
    for child in psutil.Process().children():
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                found.append(child.pid)
        except psutil.NoSuchProcess:
            pass
    return found


def gone(pid: int) -> bool:
    """The process no longer exists (or is a zombie nobody can use)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


# -- the server itself -----------------------------------------------------------------


async def test_a_killed_server_is_replaced_on_the_next_call(p: Project) -> None:
    p.script("h.py", "import os\nprint('ok')\n")
    p.settings(p.command("h.py"), "forked")
    async with p.runner() as runner:
        assert (await runner.fire("PreToolUse", p.payload())).hooks[0].stdout == "ok\n"
        [old] = runner.fork_servers.pids.values()
        os.kill(old, signal.SIGKILL)
        with anyio.fail_after(5):
            while not gone(old):
                await anyio.sleep(0.02)
        result = (await runner.fire("PreToolUse", p.payload())).hooks[0]
        assert result.stdout == "ok\n" and result.exit_code == 0
        [new] = runner.fork_servers.pids.values()
        assert new != old and runner.fork_servers.started == 2 and runner.fork_servers.forked == 2
    assert gone(new)  # aclose() ended it
    # The dead server's spare child came back to this process (the subreaper): reaped.
    assert not zombie_children()


async def test_aclose_ends_the_server_and_a_running_hook(p: Project) -> None:
    pids = p.root / "pid.txt"
    p.script("h.py", f"import os, time\nopen({str(pids)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    p.settings(p.command("h.py"), "forked", **{"async": True})
    async with p.runner() as runner:
        await runner.fire("PreToolUse", p.payload())
        with anyio.fail_after(10):
            while not pids.exists() or not pids.read_text():
                await anyio.sleep(0.02)
        server = list(runner.fork_servers.pids.values())
    hook = int(pids.read_text())
    assert gone(hook) and all(gone(pid) for pid in server)


async def test_shebang_script_runs_forked(p: Project) -> None:
    p.script("run_me.py", f"#!{PY}\nimport sys\nprint(sys.argv[1:])\n", mode=0o755)
    command = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/run_me.py x'
    results = {mode: view(await fire(p, mode, command)) for mode in MODES}
    assert results["forked"] == results["cold"]
    assert results["cold"]["stdout"] == "['x']\n"


@pytest.mark.parametrize(
    "suffix",
    [
        " | cat",
        " && true",
        " > /dev/stdout",
        " 2>&1",
        "; true",
        " $(echo a)",
        " *",
    ],
)
async def test_shell_syntax_runs_cold(p: Project, suffix: str) -> None:
    p.script("h.py", "import sys\nprint('ran', sys.argv[1:])\n")
    p.settings(p.command("h.py") + suffix, "forked")
    async with p.runner() as runner:
        result = (await runner.fire("PreToolUse", p.payload())).hooks[0]
        assert runner.fork_servers.forked == 0 and runner.fork_servers.started == 0
    assert result.exit_code == 0 and result.stdout.startswith("ran")


async def test_env_assignment_and_options_run_cold(p: Project) -> None:
    p.script("h.py", "import os, sys\nprint(os.environ.get('FOO'), sys.flags.optimize)\n")
    for command, expected in (
        ("FOO=1 " + p.command("h.py"), "1 0\n"),
        (p.command("h.py").replace(" ", " -O ", 1), "None 1\n"),
    ):
        p.settings(command, "forked")
        async with p.runner() as runner:
            result = (await runner.fire("PreToolUse", p.payload())).hooks[0]
            assert runner.fork_servers.forked == 0
        assert result.stdout == expected


async def test_warm_false_and_non_python_commands_never_start_a_server(p: Project) -> None:
    p.script("h.py", "print('x')\n")
    p.settings("echo hi", "forked")
    async with p.runner() as runner:
        assert (await runner.fire("PreToolUse", p.payload())).hooks[0].stdout == "hi\n"
        assert runner.fork_servers.started == 0


# -- the command-line check, alone ---------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("python3 x.py", ["python3", "x.py"]),
        ("python3  'a b'  \"c d\" e\\ f", ["python3", "a b", "c d", "e f"]),
        ('python3 "$CLAUDE_PROJECT_DIR"/h/x.py', ["python3", "/proj/h/x.py"]),
        ("python3 ${CLAUDE_PROJECT_DIR}/x.py", ["python3", "/proj/x.py"]),
        ("python3 '$NOT_EXPANDED'", ["python3", "$NOT_EXPANDED"]),
    ],
)
def test_parse_plain_commands(command: str, words: list[str]) -> None:
    from agent_server.hooks._forkserver import _expand

    parsed = parse_command(command)
    assert parsed is not None
    assert _expand(parsed, {"CLAUDE_PROJECT_DIR": "/proj"}) == words


@pytest.mark.parametrize(
    "command",
    [
        "python3 x.py | cat",
        "python3 x.py && y",
        "python3 x.py > out",
        "python3 x.py < in",
        "python3 x.py &",
        "(python3 x.py)",
        "python3 $(which x).py",
        "python3 `x`.py",
        'python3 "$(x)".py',
        "python3 ${X:-y}.py",
        "python3 $1.py",
        "python3 ~/x.py",
        "python3 x*.py",
        "python3 x.py # comment",
        "python3 'unterminated",
        "python3 x.py\npython3 y.py",
    ],
)
def test_parse_rejects_shell_syntax(command: str) -> None:
    assert parse_command(command) is None


def test_plan_rejects_what_it_cannot_prove(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"]}
    script = tmp_path / "x.py"
    script.write_text("print(1)\n")
    plan, _ = plan_call([PY, "x.py", "a"], env, str(tmp_path))
    assert plan is not None and plan.args == ("a",) and plan.script == "x.py"
    assert plan_call([PY, "-u", "x.py"], env, str(tmp_path))[0] is None
    assert plan_call([PY, "x.txt"], env, str(tmp_path))[0] is None
    assert plan_call(["node", "x.py"], env, str(tmp_path))[0] is None
    # Not executable, or no #! line: not a script the shell would run with Python.
    assert plan_call(["./x.py"], env, str(tmp_path))[0] is None
    wrapper = tmp_path / "python3"
    wrapper.write_text("#!/bin/sh\nexec true\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    assert plan_call(["./python3", "x.py"], env, str(tmp_path))[0] is None  # a wrapper, not a binary


async def test_a_server_that_cannot_start_leaves_hooks_cold(
    p: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from agent_server.hooks import _forkserver

    broken = tmp_path / "broken_server.py"
    broken.write_text("import sys\nsys.exit('this interpreter cannot serve')\n")
    monkeypatch.setattr(_forkserver, "_SERVER", str(broken))
    p.script("h.py", "print('ran anyway')\n")
    p.settings(p.command("h.py"), "forked")
    async with p.runner() as runner:
        results = [(await runner.fire("PreToolUse", p.payload())).hooks[0] for _ in range(3)]
        forks = runner.fork_servers
        assert forks.forked == 0 and forks.started == 1  # tried once, then left alone
    assert [r.stdout for r in results] == ["ran anyway\n"] * 3
    warnings = [r for r in caplog.records if "fork server did not start" in r.getMessage()]
    assert len(warnings) == 1
