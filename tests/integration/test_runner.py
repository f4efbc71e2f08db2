"""The HookRunner with real subprocesses: order, combining, environment, dialects."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_server.hooks import HookRunner, HookStatus, RunnerClosedError, parse_env_file
from tests.support import cmd, load_payload, project

pytestmark = pytest.mark.anyio


def runner(path: Path, **kw: Any) -> HookRunner:
    return HookRunner.from_project(path, user_settings=None, **kw)


def bash_payload(path: Path, command: str = "ls") -> dict[str, Any]:
    payload = load_payload("PreToolUse__Bash", path)
    payload["tool_input"] = {"command": command}
    return payload


async def test_fire_requires_an_open_runner(tmp_path: Path) -> None:
    r = runner(project(tmp_path, {}))
    with pytest.raises(RunnerClosedError):
        await r.fire("Stop", {})


async def test_sequential_registration_order_and_first_block_stops(tmp_path: Path) -> None:
    log = tmp_path / "log"
    p = project(
        tmp_path,
        {
            "PreToolUse": [
                cmd(f"echo one >> {log}"),
                cmd(f"echo two >> {log}; echo stop >&2; exit 2"),
                cmd(f"echo three >> {log}"),
            ]
        },
    )
    async with runner(p) as r:
        outcome = await r.fire("PreToolUse", bash_payload(p))
    assert log.read_text().split() == ["one", "two"]
    assert outcome.blocked and outcome.reason == f"[echo two >> {log}; echo stop >&2; exit 2]: stop"
    assert [h.status for h in outcome.hooks] == [HookStatus.OK, HookStatus.BLOCKED, HookStatus.SKIPPED]


async def test_non_blocking_events_run_every_hook_after_a_block(tmp_path: Path) -> None:
    log = tmp_path / "log"
    p = project(tmp_path, {"Stop": [cmd(f"echo a >> {log}; exit 2"), cmd(f"echo b >> {log}")]})
    async with runner(p) as r:
        outcome = await r.fire("Stop", load_payload("Stop", p))
    assert log.read_text().split() == ["a", "b"] and outcome.blocked


async def test_updated_input_is_chained_in_sequential_order(tmp_path: Path) -> None:
    seen = tmp_path / "seen"
    update = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo safe"}}}
    )
    p = project(
        tmp_path,
        {
            "PreToolUse": [
                cmd(f"echo '{update}'"),
                cmd(f"cat > {seen}"),
            ]
        },
    )
    async with runner(p) as r:
        outcome = await r.fire("PreToolUse", bash_payload(p, "rm -rf x"))
    assert outcome.updated_input == {"command": "echo safe"}
    assert json.loads(seen.read_text())["tool_input"] == {"command": "echo safe"}


def wait_for_all(tmp: Path, me: str, names: list[str]) -> str:
    # Each hook marks itself and waits (bounded) until all are running at once.
    others = " ".join(f"[ -e {tmp}/{n} ] &&" for n in names)
    return f"touch {tmp}/{me}; i=0; while [ $i -lt 200 ]; do {others} exit 0; i=$((i+1)); sleep 0.025; done; exit 3"


async def test_parallel_runs_concurrently_and_combines_in_registration_order(tmp_path: Path) -> None:
    names = ["a", "b", "c"]
    deny_a = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "from-a",
            }
        }
    )
    hooks = [
        cmd(
            f"{wait_for_all(tmp_path, n, names)}"
            if n != "a"
            # bounded: 10 s at most, so a broken run fails instead of hanging
            else f"i=0; while [ ! -e {tmp_path}/c-done ] && [ $i -lt 1000 ]; do i=$((i+1)); sleep 0.01; done; "
            f"echo '{deny_a}'"
        )
        for n in names
    ]
    # c finishes first; b and c must be running together; a finishes last.
    hooks[2] = cmd(
        f"{wait_for_all(tmp_path, 'c', ['b', 'c'])}".replace(
            "exit 0;", f"{{ touch {tmp_path}/c-done; echo c >&2; exit 2; }};"
        )
    )
    hooks[1] = cmd(wait_for_all(tmp_path, "b", ["b", "c"]))
    p = project(tmp_path, {"PreToolUse": hooks}, hookRunner={"order": {"PreToolUse": "parallel"}})
    async with runner(p) as r:
        outcome = await r.fire("PreToolUse", bash_payload(p))
    statuses = [h.status for h in outcome.hooks]
    assert statuses == [HookStatus.BLOCKED, HookStatus.OK, HookStatus.BLOCKED], outcome.to_dict()
    # Claude Code would take the reason of the hook that finished last; we take registration order.
    assert outcome.reason == "from-a"


async def test_concurrency_cap(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    body = f"mkdir {lock} || exit 3; sleep 0.05; rmdir {lock}"
    p = project(tmp_path, {"Stop": [cmd(body + f" # {i}") for i in range(4)]}, hookRunner={"order": "parallel"})
    async with runner(p, max_processes=1) as r:
        outcome = await r.fire("Stop", load_payload("Stop", p))
    assert [h.status for h in outcome.hooks] == [HookStatus.OK] * 4, outcome.to_dict()


async def test_stdin_env_and_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "secret-key")
    monkeypatch.setenv("MY_HOST_VAR", "kept")
    out = tmp_path / "out.json"
    script = tmp_path / "dump.py"
    script.write_text(
        "import json, os, sys\n"
        "raw = sys.stdin.buffer.read()\n"
        f"json.dump({{'stdin': raw.decode(), 'env': dict(os.environ), 'cwd': os.getcwd()}}, open({str(out)!r}, 'w'))\n"
    )
    sub = tmp_path / "sub"
    sub.mkdir()
    p = project(
        tmp_path,
        {"PreToolUse": [{"hooks": [{"type": "command", "args": [sys.executable, str(script)], "timeout": 7}]}]},
    )
    payload = bash_payload(p)
    payload["cwd"] = str(sub)
    async with runner(p) as r:
        await r.fire("PreToolUse", payload)
    seen = json.loads(out.read_text())
    assert seen["stdin"].endswith("\n") and seen["stdin"].count("\n") == 1
    assert json.loads(seen["stdin"]) == payload
    assert " " not in seen["stdin"].split('"tool_input"')[0][-3:]  # compact JSON
    env = seen["env"]
    assert env["CLAUDE_PROJECT_DIR"] == str(tmp_path.resolve())
    assert env["HOOK_EVENT"] == "PreToolUse" and env["CLAUDECODE"] == "1"
    assert env["SESSION_ID"] == env["CLAUDE_CODE_SESSION_ID"] == payload["session_id"]
    assert json.loads(env["HOOK_PAYLOAD"]) == payload and env["HOOK_TIMEOUT"] == "7000"
    assert env["MY_HOST_VAR"] == "kept" and "ANTHROPIC_API_KEY" not in env
    assert "CLAUDE_ENV_FILE" not in env
    assert seen["cwd"] == str(sub)  # Claude Code hooks run in the session cwd


async def test_large_payload_is_not_put_in_the_environment(tmp_path: Path) -> None:
    p = project(
        tmp_path, {"PreToolUse": [cmd('echo "${HOOK_PAYLOAD_TRUNCATED:-0} ${#HOOK_PAYLOAD}" >&2; wc -c >&2; exit 2')]}
    )
    async with runner(p) as r:
        outcome = await r.fire("PreToolUse", bash_payload(p, "x" * 300_000))
    stderr = outcome.hooks[0].stderr.split()
    assert stderr[0] == "1" and stderr[1] == "0" and int(stderr[2]) > 300_000


async def test_cwd_per_dialect(tmp_path: Path) -> None:
    hooks_dir = tmp_path / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "where.sh").write_text("#!/bin/sh\npwd >&2\nexit 2\n")
    (hooks_dir / "where.sh").chmod(0o755)
    harness = tmp_path / "h.sh"
    harness.write_text("#!/bin/sh\npwd >&2\nexit 2\n")
    harness.chmod(0o755)
    for entry, expected in [
        ({"command": "where.sh"}, hooks_dir),  # Orion: resolved in and run from .claude/hooks
        ({"path": "h.sh"}, tmp_path),  # Harness: project dir
    ]:
        p = project(tmp_path, {"Stop": [entry]})
        async with runner(p) as r:
            outcome = await r.fire("Stop", {"cwd": "/"})
        assert outcome.hooks[0].stderr.strip() == str(expected.resolve())


async def test_session_start_env_file(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "SessionStart": [
                cmd(
                    "echo 'export A=1' >> \"$CLAUDE_ENV_FILE\"; "
                    'echo \'export B="two words"\' >> "$CLAUDE_ENV_FILE"; echo hello'
                )
            ]
        },
    )
    async with runner(p) as r:
        outcome = await r.fire("SessionStart", load_payload("SessionStart__startup", p))
        (env_file,) = outcome.env_files
        assert parse_env_file(env_file) == {"A": "1", "B": "two words"}
    assert outcome.additional_context == ["hello"]
    assert not os.path.exists(env_file)  # cleaned up with the runner


@pytest.mark.parametrize(
    ("command", "status", "error_part"),
    [
        ("definitely-not-a-command-xyz", HookStatus.ERROR, "exit 127"),
        ('echo \'{"hookSpecificOutput": {"hookEventName": "Stop"}}\'', HookStatus.ERROR, "invalid hook output"),
        ("echo crash >&2; exit 1", HookStatus.ERROR, "crash"),
        ("kill -9 $$", HookStatus.ERROR, "exit -9"),
    ],
)
async def test_failures_fail_open(tmp_path: Path, command: str, status: HookStatus, error_part: str) -> None:
    p = project(tmp_path, {"PreToolUse": [cmd(command), cmd("true")]})
    async with runner(p) as r:
        outcome = await r.fire("PreToolUse", bash_payload(p))
    first = outcome.hooks[0]
    assert first.status is status and error_part in (first.error or ""), first
    assert not outcome.blocked and outcome.hooks[1].status is HookStatus.OK


async def test_exec_that_cannot_start(tmp_path: Path) -> None:
    noexec = tmp_path / "noexec.sh"
    noexec.write_text("#!/bin/sh\n")
    p = project(
        tmp_path,
        {
            "PreToolUse": [
                {"hooks": [{"type": "command", "args": [str(tmp_path / "missing")]}]},
                {"hooks": [{"type": "command", "args": [str(noexec)], "onFailure": "block"}]},
            ]
        },
    )
    async with runner(p) as r:
        assert any("not executable" in str(w) for w in r.config.warnings)
        outcome = await r.fire("PreToolUse", bash_payload(p))
    missing, denied = outcome.hooks
    assert missing.status is HookStatus.ERROR and "No such file" in (missing.error or "")
    assert denied.status is HookStatus.ERROR and "Permission denied" in (denied.error or "")
    assert outcome.blocked and (outcome.reason or "").startswith(
        f'[{denied.command}]: failed; blocking because onFailure is "block"\n'
    )
    assert "Permission denied" in (outcome.reason or "")


async def test_fail_closed_orion_timeout_blocks(tmp_path: Path) -> None:
    p = project(tmp_path, {"PreToolUse": [{"command": "sleep 5", "timeout": 200, "continueOnError": False}]})
    async with runner(p) as r:
        outcome = await r.fire("PreToolUse", bash_payload(p))
    assert outcome.hooks[0].status is HookStatus.TIMEOUT
    assert outcome.blocked and "timed out after 0.2s" in (outcome.reason or "")


async def test_callbacks_obey_the_same_rules(tmp_path: Path) -> None:
    p = project(tmp_path, {"PreToolUse": [cmd("true")]})
    calls: list[str] = []

    async def deny(payload: dict[str, Any]) -> dict[str, Any]:
        calls.append(payload["tool_input"]["command"])
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "callback says no",
            }
        }

    async def never(payload: dict[str, Any]) -> None:
        calls.append("never")

    async def hang(payload: dict[str, Any]) -> None:
        import anyio

        await anyio.sleep_forever()

    async def boom(payload: dict[str, Any]) -> None:
        raise ValueError("bad callback")

    async with runner(p) as r:
        r.register("PreToolUse", never, matcher="Write")
        r.register("PreToolUse", hang, timeout=0.05)
        r.register("PreToolUse", boom)
        r.register("PreToolUse", deny, matcher="Bash")
        outcome = await r.fire("PreToolUse", bash_payload(p, "ls"))
    assert calls == ["ls"]
    assert [h.name for h in outcome.hooks] == [
        "true",
        "test_callbacks_obey_the_same_rules.<locals>.hang",
        "test_callbacks_obey_the_same_rules.<locals>.boom",
        "test_callbacks_obey_the_same_rules.<locals>.deny",
    ]
    assert [h.status for h in outcome.hooks] == [
        HookStatus.OK,
        HookStatus.TIMEOUT,
        HookStatus.ERROR,
        HookStatus.BLOCKED,
    ]
    assert outcome.reason == "callback says no"


async def test_genesis_end_to_end(tmp_path: Path) -> None:
    (tmp_path / ".mentu").mkdir()
    (tmp_path / ".mentu" / "genesis.key").write_text("""
permissions:
  actors:
    bot: {allow: ["Read(*)", "Bash(git *)"], deny: ["Bash(git push *)"]}
hooks:
  pre_tool_use:
    - {matcher: "Bash(rm *)", type: deny, config: {reason: "no rm here"}}
    - {matcher: "Bash(deploy*)", type: approval_gate}
    - {matcher: "Bash(git log*)", type: modify, config: {set: {timeout: 5}}}
  post_tool_use:
    - {type: evidence_capture, config: {label: audit}}
""")
    async with runner(tmp_path) as r:

        async def fire(command: str, actor: str | None = None) -> Any:
            payload = bash_payload(tmp_path, command)
            if actor:
                payload["actor"] = actor
            return await r.fire("PreToolUse", payload)

        assert (await fire("rm -rf build")).reason == "no rm here"
        assert (await fire("deploy prod")).decision == "ask"
        assert (await fire("git log")).updated_input == {"command": "git log", "timeout": 5}
        assert (await fire("git push origin main", "bot")).blocked
        assert "may only use" in ((await fire("curl x", "bot")).reason or "")
        assert not (await fire("git status", "bot")).blocked
        assert not (await fire("curl x", "stranger")).blocked
        post = load_payload("PostToolUse__Bash", tmp_path)
        await r.fire("PostToolUse", post)
        assert r.evidence[-1]["label"] == "audit"
        assert r.evidence[-1]["tool_input"] == post["tool_input"]


async def test_orion_python_launcher_without_uv(tmp_path: Path) -> None:
    hooks_dir = tmp_path / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "ctx.py").write_text(
        "def run(payload):\n    return {'hookSpecificOutput': {'hookEventName': 'UserPromptSubmit',"
        " 'additionalContext': 'seen ' + payload['prompt']}}\n"
    )
    p = project(tmp_path, {"UserPromptSubmit": [{"command": "uv run python hook_launcher.py ctx.py"}]})
    async with runner(p) as r:
        payload = load_payload("UserPromptSubmit", p)
        outcome = await r.fire("UserPromptSubmit", payload)
    assert outcome.additional_context == [f"seen {payload['prompt']}"], outcome.to_dict()


async def test_events_the_project_does_not_know_are_fired(tmp_path: Path) -> None:
    p = project(tmp_path, {"Deploy": [cmd("echo nope >&2; exit 2", "web")]})
    async with runner(p) as r:
        assert (await r.fire("Deploy", {"tool_name": "web"})).blocked
        assert not (await r.fire("Deploy", {"tool_name": "db"})).hooks


async def test_every_run_is_logged_and_failures_carry_the_stderr_tail(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    p = project(tmp_path, {"Stop": [cmd("true"), cmd("echo the-tail >&2; exit 5")]})
    caplog.set_level("INFO", logger="agent_server.hooks")
    async with runner(p, debug=True) as r:
        await r.fire("Stop", load_payload("Stop", p))
    runs = [m for m in caplog.messages if m.startswith("hook run")]
    assert len(runs) == 2
    assert "name='true' event=Stop status=ok exit=0 start=" in runs[0] and "duration_ms=" in runs[0]
    failure = next(m for m in caplog.messages if m.startswith("hook failed"))
    assert "event=Stop" in failure and "exit 5" in failure and "the-tail" in failure
    assert any(m.startswith("fire Stop payload=") for m in caplog.messages)  # HOOK_DEBUG
    assert any("stdout=" in m for m in caplog.messages if m.startswith("hook output"))


async def test_async_hook_after_the_runner_closed_mid_event_is_an_error_result(
    tmp_path: Path,
) -> None:
    started, go = tmp_path / "started", tmp_path / "go"
    wait_for_go = f"touch {started}; i=0; while [ ! -e {go} ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done"
    p = project(
        tmp_path, {"Stop": [cmd(wait_for_go), {"hooks": [{"type": "command", "command": "true", "async": True}]}]}
    )
    outcomes: list[Any] = []
    with anyio.fail_after(8):
        async with anyio.create_task_group() as tg:
            r = runner(p)
            await r.__aenter__()

            async def fire() -> None:
                outcomes.append(await r.fire("Stop", load_payload("Stop", p)))

            tg.start_soon(fire)
            while not started.exists():
                await anyio.sleep(0.01)
            await r.aclose()  # while the first hook still runs
            go.touch()
    first, second = outcomes[0].hooks
    assert first.status is HookStatus.OK
    assert second.status is HookStatus.ERROR and "closed" in (second.error or "")
