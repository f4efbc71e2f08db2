"""Python hooks through a real HookRunner, cold and warm: the outcomes must be identical.

Every behavioural test runs twice (``mode`` = cold / warm) with the same assertions.
Cold uses ``"warm": false`` on the hook entry (the pool exists but must not be used);
warm uses the runner's worker pool.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import psutil
import pytest

from agent_server.hooks import HookResult, HookRunner, HookStatus, load_config
from tests.support import load_payload

pytestmark = pytest.mark.anyio

LIMIT = 64 * 1024


@pytest.fixture(params=["cold", "warm"])
def mode(request: pytest.FixtureRequest) -> str:
    """Which way Python hooks run in this test."""
    return str(request.param)


class Project:
    """A temporary project with ``.claude/hooks/*.py`` and a settings file."""

    def __init__(self, root: Path, mode: str) -> None:
        self.root = root
        self.mode = mode
        self.hooks_dir = root / ".claude" / "hooks"
        self.hooks_dir.mkdir(parents=True, exist_ok=True)

    def hook(self, name: str, body: str) -> Path:
        path = self.hooks_dir / name
        path.write_text(textwrap.dedent(body))
        return path

    def entry(self, module: str, **fields: Any) -> dict[str, Any]:
        hook: dict[str, Any] = {"type": "python", "module": module, **fields}
        if self.mode == "cold":
            hook["warm"] = False
        return {"hooks": [hook]}

    def command(self, command: str, matcher: str | None = None, **fields: Any) -> dict[str, Any]:
        """An entry in the ``python hook_launcher.py X.py ARGS`` command form."""
        hook: dict[str, Any] = {"type": "command", "command": command, **fields}
        if self.mode == "cold":
            hook["warm"] = False
        return {"hooks": [hook], **({"matcher": matcher} if matcher else {})}

    def settings(self, hooks: dict[str, list[dict[str, Any]]], **extra: Any) -> None:
        (self.root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks, **extra}))

    def runner(self, **options: Any) -> HookRunner:
        options.setdefault("python_workers", 2)
        options.setdefault("output_limit", LIMIT)
        options.setdefault("kill_grace", 0.5)
        runner = HookRunner.from_project(self.root, user_settings=None, **options)
        assert not runner.config.errors, runner.config.errors
        return runner

    def payload(self, command: str = "ls", **extra: Any) -> dict[str, Any]:
        payload = load_payload("PreToolUse__Bash", self.root)
        payload["tool_input"] = {"command": command}
        payload.update(extra)
        return payload


def check_mode(runner: HookRunner, mode: str) -> None:
    """The hooks really ran the way the test says (cold never touches the pool)."""
    pool = runner.python_pool
    assert pool is not None
    if mode == "cold":
        assert pool.started == 0
    else:
        assert pool.started >= 1


async def fire_one(p: Project, body: str, *, command: str = "ls", name: str = "h.py", **fields: Any) -> HookResult:
    """Fire PreToolUse once with a single Python hook and return its result."""
    p.hook(name, body)
    p.settings({"PreToolUse": [p.entry(name, **fields)]})
    async with p.runner() as runner:
        outcome = await runner.fire("PreToolUse", p.payload(command))
        check_mode(runner, p.mode)
    assert len(outcome.hooks) == 1
    return outcome.hooks[0]


def gone(pid: int) -> bool:
    """The process no longer exists (or is a zombie nobody can use)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.fixture
def p(tmp_path: Path, mode: str) -> Project:
    return Project(tmp_path, mode)


# -- results -------------------------------------------------------------------


async def test_exit_2_blocks_with_stderr(p: Project) -> None:
    result = await fire_one(
        p,
        """
        import sys

        def run(payload):
            sys.stderr.write("no " + payload["tool_input"]["command"] + "\\n")
            sys.exit(2)
    """,
        command="rm -rf /",
    )
    assert result.status is HookStatus.BLOCKED
    assert result.exit_code == 2
    assert result.decision == "deny"
    assert result.reason == "[python hook_launcher.py h.py]: no rm -rf /"


async def test_dict_result_is_json_output(p: Project) -> None:
    result = await fire_one(
        p,
        """
        def run(payload):
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "deny", "permissionDecisionReason": "nope"}}
    """,
    )
    assert result.status is HookStatus.BLOCKED
    assert result.exit_code == 0
    assert (result.decision, result.reason) == ("deny", "nope")
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


async def test_str_and_none_results(p: Project) -> None:
    text = await fire_one(p, "def run(payload):\n    return 'plain text'\n")
    assert (text.status, text.stdout) == (HookStatus.OK, "plain text")
    none = await fire_one(p, "def run(payload):\n    return None\n", name="n.py")
    assert (none.status, none.stdout, none.stderr) == (HookStatus.OK, "", "")


async def test_async_run(p: Project) -> None:
    result = await fire_one(
        p,
        """
        import asyncio

        async def run(payload):
            await asyncio.sleep(0)
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "additionalContext": "async " + payload["tool_name"]}}
    """,
    )
    assert result.status is HookStatus.OK
    assert result.additional_context == "async Bash"


async def test_exception_exits_1_with_the_hooks_traceback(p: Project) -> None:
    result = await fire_one(
        p,
        """
        def helper():
            raise ValueError("boom")

        def run(payload):
            helper()
    """,
    )
    assert result.status is HookStatus.ERROR
    assert result.exit_code == 1
    path = p.hooks_dir / "h.py"
    assert result.stderr == (
        "Traceback (most recent call last):\n"
        f'  File "{path}", line 6, in run\n'
        "    helper()\n"
        f'  File "{path}", line 3, in helper\n'
        '    raise ValueError("boom")\n'
        "ValueError: boom\n"
    )
    assert "hook_launcher" not in result.stderr


async def test_import_error_is_reported_like_an_exception(p: Project) -> None:
    result = await fire_one(p, "import no_such_module_here\n\ndef run(payload):\n    pass\n")
    assert (result.status, result.exit_code) == (HookStatus.ERROR, 1)
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert "ModuleNotFoundError: No module named 'no_such_module_here'" in result.stderr
    assert "hook_launcher" not in result.stderr


@pytest.mark.parametrize(
    ("code", "status", "exit_code", "stderr"),
    [
        ("0", HookStatus.OK, 0, ""),
        ("None", HookStatus.OK, 0, ""),
        ("1", HookStatus.ERROR, 1, ""),
        ("2", HookStatus.BLOCKED, 2, ""),
        ("3", HookStatus.ERROR, 3, ""),
        ("256", HookStatus.OK, 0, ""),
        ("-1", HookStatus.ERROR, 255, ""),
        ("'bad thing'", HookStatus.ERROR, 1, "bad thing\n"),
    ],
)
async def test_sys_exit_codes(p: Project, code: str, status: HookStatus, exit_code: int, stderr: str) -> None:
    result = await fire_one(p, f"import sys\n\ndef run(payload):\n    sys.exit({code})\n")
    assert (result.status, result.exit_code, result.stderr) == (status, exit_code, stderr)


async def test_module_without_run_is_a_clear_error(p: Project) -> None:
    result = await fire_one(p, "X = 1\n", name="norun.py")
    assert (result.status, result.exit_code) == (HookStatus.ERROR, 1)
    assert result.stderr == (f"hook_launcher: {p.hooks_dir / 'norun.py'} has no run(payload) function\n")


async def test_missing_module_is_a_clear_error(p: Project) -> None:
    p.settings({"PreToolUse": [p.entry("missing.py")]})
    async with p.runner() as runner:
        result = (await runner.fire("PreToolUse", p.payload())).hooks[0]
    assert (result.status, result.exit_code) == (HookStatus.ERROR, 1)
    assert result.stderr == (f"hook_launcher: hook module not found: {p.hooks_dir / 'missing.py'}\n")


# -- what the hook sees ------------------------------------------------------------


async def test_environment(p: Project) -> None:
    p.hook(
        "env.py",
        """
        import json, os

        def run(payload):
            seen = {k: os.environ.get(k) for k in (
                "CLAUDE_PROJECT_DIR", "HOOK_EVENT", "CUSTOM_VAR", "TRACEPARENT",
                "ANTHROPIC_API_KEY", "LEAKED", "CLAUDECODE")}
            seen["payload_tool"] = json.loads(os.environ["HOOK_PAYLOAD"])["tool_name"]
            os.environ["LEAKED"] = "yes"  # must not reach the next call
            os.environ.pop("CUSTOM_VAR")
            return json.dumps(seen)
    """,
    )
    p.settings({"PreToolUse": [p.entry("env.py")]})
    traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    env = {**os.environ, "CUSTOM_VAR": "42", "TRACEPARENT": traceparent, "ANTHROPIC_API_KEY": "secret"}
    expected = {
        "CLAUDE_PROJECT_DIR": str(p.root),
        "HOOK_EVENT": "PreToolUse",
        "CUSTOM_VAR": "42",
        "TRACEPARENT": traceparent,
        "ANTHROPIC_API_KEY": None,
        "LEAKED": None,
        "CLAUDECODE": "1",
        "payload_tool": "Bash",
    }
    async with p.runner(env=env) as runner:
        for _ in range(2):
            result = (await runner.fire("PreToolUse", p.payload())).hooks[0]
            assert result.status is HookStatus.OK, result.stderr
            assert json.loads(result.stdout) == expected
        check_mode(runner, p.mode)


async def test_cwd_follows_the_session(p: Project, tmp_path: Path) -> None:
    p.hook("cwd.py", "import os\n\ndef run(payload):\n    return os.getcwd()\n")
    p.settings({"PreToolUse": [p.entry("cwd.py")]})
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    async with p.runner() as runner:
        for where in (one, two, one):
            result = (await runner.fire("PreToolUse", p.payload(cwd=str(where)))).hooks[0]
            assert result.stdout == str(where)


async def test_stdin_argv_and_fd0(p: Project) -> None:
    p.hook(
        "io.py",
        """
        import json, subprocess, sys

        def run(payload):
            text = sys.stdin.read()
            return {"same": json.loads(text) == payload, "newline": text.endswith("\\n"),
                    "argv": sys.argv,
                    "fd0": subprocess.run(["cat"], capture_output=True, text=True).stdout}
    """,
    )
    p.settings({"PreToolUse": [p.command("python hook_launcher.py io.py one 'two words'")]})
    async with p.runner() as runner:
        result = (await runner.fire("PreToolUse", p.payload())).hooks[0]
        check_mode(runner, p.mode)
    assert result.json == {
        "same": True,
        "newline": True,
        "fd0": "",
        "argv": [str(p.hooks_dir / "io.py"), "one", "two words"],
    }


async def test_every_way_of_writing_is_captured(p: Project) -> None:
    p.hook(
        "noisy.py",
        """
        import os, subprocess, sys

        def run(payload):
            print("print")
            sys.stdout.write("write\\n")
            sys.stdout.flush()
            os.write(1, b"fd1\\n")
            sys.__stdout__.write('{"exit": 0}\\n')
            sys.__stdout__.flush()
            subprocess.run(["sh", "-c", "echo child; echo child-err >&2"])
            print("err", file=sys.stderr)
            os.write(2, b"fd2\\n")
    """,
    )
    p.settings({"PreToolUse": [p.entry("noisy.py")]})
    async with p.runner() as runner:
        for _ in range(2):  # the second call proves the protocol survived
            result = (await runner.fire("PreToolUse", p.payload())).hooks[0]
            assert result.status is HookStatus.OK
            assert result.stdout.splitlines() == ["print", "write", "fd1", '{"exit": 0}', "child"]
            assert sorted(result.stderr.splitlines()) == ["child-err", "err", "fd2"]


async def test_closing_stdout_does_not_break_the_next_call(p: Project) -> None:
    p.hook(
        "close.py",
        """
        import sys

        def run(payload):
            print("before")
            if payload["tool_input"]["command"] == "close":
                sys.stdout.flush()
                sys.stdout.close()
    """,
    )
    p.settings({"PreToolUse": [p.entry("close.py")]})
    async with p.runner() as runner:
        first = (await runner.fire("PreToolUse", p.payload("close"))).hooks[0]
        second = (await runner.fire("PreToolUse", p.payload("ls"))).hooks[0]
    assert (first.status, first.stdout) == (HookStatus.OK, "before\n")
    assert (second.status, second.stdout) == (HookStatus.OK, "before\n")


async def test_module_changes_between_calls(p: Project) -> None:
    path = p.hook("v.py", "def run(payload):\n    return 'one'\n")
    p.settings({"PreToolUse": [p.entry("v.py")]})
    async with p.runner() as runner:
        first = (await runner.fire("PreToolUse", p.payload())).hooks[0]
        path.write_text("def run(payload):\n    return 'two!'\n")
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        second = (await runner.fire("PreToolUse", p.payload())).hooks[0]
        third = (await runner.fire("PreToolUse", p.payload())).hooks[0]
        check_mode(runner, p.mode)
        if p.mode == "warm":
            assert runner.python_pool is not None and runner.python_pool.started == 1
    assert [first.stdout, second.stdout, third.stdout] == ["one", "two!", "two!"]


# -- failures and limits -------------------------------------------------------------


HANG = """
    import os, time

    def run(payload):
        if payload["tool_input"]["command"] == "hang":
            time.sleep(60)
        return str(os.getpid())
"""


def hang_settings(p: Project) -> None:
    """``Bash`` runs hang.py with the default timeout; ``Hang`` runs it with 0.5 s (only
    the hanging call has a tight deadline, so a slow cold start elsewhere is harmless)."""
    p.hook("hang.py", HANG)
    p.settings(
        {
            "PreToolUse": [
                {"matcher": "Bash", **p.entry("hang.py")},
                p.command("python hook_launcher.py hang.py short", matcher="Hang", timeout=0.5),
            ]
        }
    )


def hang_payload(p: Project) -> dict[str, Any]:
    return p.payload("hang", tool_name="Hang")


async def test_hanging_hook_times_out_and_the_worker_is_replaced(p: Project) -> None:
    hang_settings(p)
    async with p.runner() as runner:
        before = (await runner.fire("PreToolUse", p.payload("ls"))).hooks[0]
        hung = (await runner.fire("PreToolUse", hang_payload(p))).hooks[0]
        after = (await runner.fire("PreToolUse", p.payload("ls"))).hooks[0]
        pool = runner.python_pool
        assert pool is not None
        if p.mode == "warm":
            assert gone(int(before.stdout))
            assert pool.pids == [int(after.stdout)]
            assert pool.started == 2
    assert hung.status is HookStatus.TIMEOUT and hung.timed_out
    assert hung.error == "timed out after 0.5s"
    assert hung.exit_code == -15
    assert before.status is HookStatus.OK and after.status is HookStatus.OK
    assert before.stdout != after.stdout


async def test_hook_that_ends_its_own_process(p: Project) -> None:
    p.hook("die.py", HANG.replace("time.sleep(60)", "os._exit(3)"))
    p.settings({"PreToolUse": [p.entry("die.py")]})
    async with p.runner() as runner:
        died = (await runner.fire("PreToolUse", p.payload("hang"))).hooks[0]
        after = (await runner.fire("PreToolUse", p.payload("ls"))).hooks[0]
    assert (died.status, died.exit_code) == (HookStatus.ERROR, 3)
    assert after.status is HookStatus.OK


async def test_megabytes_of_output_are_bounded(p: Project) -> None:
    result = await fire_one(
        p,
        """
        import os, sys

        def run(payload):
            sys.stdout.write("x" * (2 << 20))
            sys.stdout.flush()
            os.write(1, b"y" * (1 << 20))
            sys.stderr.write("e" * (3 << 20))
    """,
    )
    assert result.status is HookStatus.OK
    assert result.truncated
    assert result.stdout == "x" * LIMIT
    assert result.stderr == "e" * LIMIT


async def test_leftover_child_is_ended(p: Project, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    result = await fire_one(
        p,
        f"""
        import subprocess

        def run(payload):
            child = subprocess.Popen(["sleep", "30"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            open({str(pidfile)!r}, "w").write(str(child.pid))
            return "started"
    """,
    )
    assert (result.status, result.stdout) == (HookStatus.OK, "started")
    assert gone(int(pidfile.read_text()))


async def test_two_hooks_run_at_once_and_combine_in_registration_order(p: Project, tmp_path: Path) -> None:
    # Each hook waits (bounded) for the other to have started: only a concurrent run passes.
    body = """
        import os, sys, time

        def run(payload):
            me, other = sys.argv[1], sys.argv[2]
            open(os.path.join({tmp!r}, me), "w").close()
            deadline = time.monotonic() + 10
            while not os.path.exists(os.path.join({tmp!r}, other)):
                if time.monotonic() > deadline:
                    sys.exit("the other hook never started")
                time.sleep(0.005)
            return {{"hookSpecificOutput": {{"hookEventName": "PreToolUse",
                    "additionalContext": me}}}}
    """.format(tmp=str(tmp_path))
    p.hook("pair.py", body)
    p.settings(
        {
            "PreToolUse": [
                p.command("python hook_launcher.py pair.py a b"),
                p.command("python hook_launcher.py pair.py b a"),
            ]
        },
        hookRunner={"order": "parallel"},
    )
    async with p.runner() as runner:
        outcome = await runner.fire("PreToolUse", p.payload())
        check_mode(runner, p.mode)
    assert [h.status for h in outcome.hooks] == [HookStatus.OK, HookStatus.OK], [h.stderr for h in outcome.hooks]
    assert outcome.additional_context == ["a", "b"]


async def test_cold_and_warm_give_identical_outcomes(tmp_path: Path) -> None:
    """The same hooks, fired cold and warm: ``to_dict()`` equal except durations."""
    bodies = {
        "block.py": "import sys\ndef run(p):\n    print('why', file=sys.stderr)\n    sys.exit(2)\n",
        "json.py": "def run(p):\n    return {'systemMessage': p['tool_name']}\n",
        "text.py": "def run(p):\n    return 'hello'\n",
        "boom.py": "def run(p):\n    raise RuntimeError('boom')\n",
        "exit.py": "import sys\ndef run(p):\n    sys.exit('bye')\n",
        "norun.py": "x = 1\n",
    }
    outcomes: dict[str, list[dict[str, Any]]] = {}
    for mode in ("cold", "warm"):
        p = Project(tmp_path, mode)
        for name, body in bodies.items():
            p.hook(name, body)
        p.settings({"PostToolUse": [p.entry(name) for name in bodies]})
        async with p.runner() as runner:
            dicts = []
            for _ in range(2):
                outcome = (await runner.fire("PostToolUse", p.payload())).to_dict()
                for hook in outcome["hooks"]:
                    hook.pop("duration_ms")
                dicts.append(outcome)
            check_mode(runner, mode)
        assert dicts[0] == dicts[1]
        outcomes[mode] = dicts
    assert outcomes["cold"] == outcomes["warm"]
    assert [h["status"] for h in outcomes["warm"][0]["hooks"]] == ["blocked", "ok", "ok", "error", "error", "error"]


# -- pool behaviour (warm only) ----------------------------------------------------------


async def test_workers_are_reused_isolated_and_never_leak(tmp_path: Path) -> None:
    p = Project(tmp_path, "warm")
    hang_settings(p)
    me = psutil.Process()
    before = {c.pid for c in me.children(recursive=True)}
    seen: set[int] = set()
    async with p.runner(python_workers=1) as runner:
        pool = runner.python_pool
        assert pool is not None and pool.pids == []  # lazy
        pids = [(await runner.fire("PreToolUse", p.payload())).hooks[0].stdout for _ in range(3)]
        assert len(set(pids)) == 1  # one warm worker served every call
        worker = int(pids[0])
        assert os.getsid(worker) == worker and os.getpgid(worker) == worker
        hung = (await runner.fire("PreToolUse", hang_payload(p))).hooks[0]
        assert hung.status is HookStatus.TIMEOUT
        seen.update(pool.pids)
        await runner.fire("PreToolUse", p.payload())
        seen.update(pool.pids)
        seen.add(worker)
    assert pool.closed and pool.pids == []
    assert len(seen) == 2
    assert all(gone(pid) for pid in seen)
    assert {c.pid for c in me.children(recursive=True)} - before == set()


async def test_extra_calls_wait_for_a_free_worker(tmp_path: Path) -> None:
    p = Project(tmp_path, "warm")
    p.hook("pid.py", "import os\ndef run(p):\n    return str(os.getpid())\n")
    p.settings(
        {"PreToolUse": [p.command(f"python hook_launcher.py pid.py {i}") for i in range(4)]},
        hookRunner={"order": "parallel"},
    )
    async with p.runner(python_workers=1) as runner:
        outcome = await runner.fire("PreToolUse", p.payload())
        assert runner.python_pool is not None and runner.python_pool.started == 1
    assert [h.status for h in outcome.hooks] == [HookStatus.OK] * 4
    assert len({h.stdout for h in outcome.hooks}) == 1


async def test_python_workers_zero_runs_cold(tmp_path: Path) -> None:
    p = Project(tmp_path, "warm")
    p.hook("pid.py", "import os\ndef run(p):\n    return str(os.getpid())\n")
    p.settings({"PreToolUse": [p.entry("pid.py")]}, hookRunner={"pythonWorkers": 0})
    async with p.runner(python_workers=None) as runner:
        assert runner.python_pool is None
        pids = {(await runner.fire("PreToolUse", p.payload())).hooks[0].stdout for _ in range(2)}
    assert len(pids) == 2


def test_python_workers_setting(tmp_path: Path) -> None:
    p = Project(tmp_path, "warm")
    p.settings({}, hookRunner={"pythonWorkers": 3, "order": "parallel"})
    runner = HookRunner.from_project(tmp_path, user_settings=None)
    assert runner.python_pool is not None and runner.python_pool.size == 3
    assert runner.config.default_order == "parallel"
    explicit = HookRunner.from_project(tmp_path, user_settings=None, python_workers=1)
    assert explicit.python_pool is not None and explicit.python_pool.size == 1
    p.settings({})
    default = HookRunner.from_project(tmp_path, user_settings=None)
    assert default.python_pool is not None and default.python_pool.size == 4


@pytest.mark.parametrize("value", [-1, "2", True, 1.5, None])
def test_bad_python_workers_setting_names_the_path(tmp_path: Path, value: Any) -> None:
    p = Project(tmp_path, "warm")
    (p.root / ".claude" / "settings.json").write_text(
        json.dumps({"hookRunner": {"pythonWorkers": value}}).replace("null", "[]")
    )
    config = load_config(tmp_path, user_settings=None)
    assert [(i.file, i.path) for i in config.errors] == [(".claude/settings.json", "hookRunner.pythonWorkers")]
    assert "whole number >= 0" in config.errors[0].message
    assert config.python_workers is None


async def test_warm_hook_reports_python_executable(tmp_path: Path) -> None:
    """Warm workers run the runner's interpreter, like cold hooks."""
    p = Project(tmp_path, "warm")
    result = await fire_one(p, "import sys\ndef run(p):\n    return sys.executable\n")
    assert result.stdout == sys.executable
