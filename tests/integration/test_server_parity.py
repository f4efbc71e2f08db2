"""Claude Code parity details (contract §9): each test runs the real server with real hook
processes and checks what Claude Code 2.1.330 was observed to do."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent_server.hooks import load_config
from agent_server.server.testing import FakeMessagesAPI
from tests.integration.server_harness import (
    BLOCK_STOP_ONCE,
    add_entry,
    assert_shape,
    json_out,
    make_project,
    running_anthropic_server,
    running_server,
    system_texts,
    tool_results,
    user_notes,
)

pytestmark = pytest.mark.anyio


async def test_command_with_args_runs_command_with_those_arguments(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    out = tmp_path / "argv.json"
    script = tmp_path / "argv_hook.py"  # not executable: only `command` can run it
    script.write_text(f"import json, sys\nopen({str(out)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    add_entry(
        project, "PreToolUse", {"type": "command", "command": sys.executable, "args": [str(script), "a b", "$HOME"]}
    )
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo hi"))["status"] == "completed"
    assert json.loads(out.read_text()) == ["a b", "$HOME"]  # no shell: no splitting, no expansion


async def test_permission_request_exit_2_changes_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PermissionRequest", 'sys.stderr.write("no"); sys.exit(2)')
    async with running_server(project) as h:  # default mode: Bash asks for permission
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN")
        assert turn["status"] == "awaiting_approval"  # the normal permission flow goes on
        r = await h.client.post(
            f"/sessions/{sid}/approvals/{turn['approval']['approval_id']}", json={"decision": "allow"}
        )
        assert r.status_code == 200
        ended = await h.wait_event(sid, lambda e: e["type"] == "turn_ended")
        assert ended["status"] == "completed"
    assert (project.root / "RAN").exists()
    assert len(project.payloads("PermissionRequest")) == 1


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
async def test_continue_false_runs_the_tool_and_skips_post_tool_batch(tmp_path: Path, event: str) -> None:
    project = make_project(tmp_path)
    project.hook(event, json_out({"continue": False, "stopReason": "enough"}))
    project.hook("PostToolBatch")
    project.hook("Stop")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN\n$ touch RAN2")
        assert turn["status"] == "stopped"
        assert "enough" in await user_notes(h, sid)
        fired = await h.hooks_fired(sid)
    assert (project.root / "RAN").exists() and not (project.root / "RAN2").exists()
    assert "PostToolBatch" not in fired and project.payloads("PostToolBatch") == []
    assert project.payloads("Stop") == []


async def test_stop_json_block_gives_the_model_both_messages(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook("Stop", BLOCK_STOP_ONCE)
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "completed"
        msgs = await h.messages(sid)
    assert [(m["role"], m["content"]) for m in msgs[2:4]] == [
        ("system", f'Stop hook blocking error from command: "{cmd}": run the tests'),
        ("user", "Stop hook feedback:\nrun the tests"),
    ]


def context_hook(event: str, text: str) -> str:
    return json_out({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


async def test_several_additional_contexts_make_one_message(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch"):
        project.hook(event, context_hook(event, "A"))
        project.hook(event, context_hook(event, "B"))
    project.hook("SessionStart", 'print("plain")')
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo hi"))["status"] == "completed"
        texts = system_texts(await h.messages(sid))
    assert texts == [
        "SessionStart:startup hook success: plain",
        "SessionStart hook additional context: A\nB",
        "UserPromptSubmit hook additional context: A\nB",
        "PreToolUse:Bash hook additional context: A\nB",
        "PostToolUse:Bash hook additional context: A\nB",
        "PostToolBatch hook additional context: A\nB",
    ]


async def test_post_tool_batch_reports_the_models_input_after_updated_input(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        json_out({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo new"}}}),
    )
    project.hook("PostToolUse")
    project.hook("PostToolBatch")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo old"))["status"] == "completed"
    (post,) = project.payloads("PostToolUse")
    assert post["tool_input"] == {"command": "echo new"}
    ((call,),) = [b["tool_calls"] for b in project.payloads("PostToolBatch")]
    assert call["tool_input"] == {"command": "echo old", "description": "echo old"}
    assert call["tool_response"] == "new"


TASK_RESPONSE_KEYS = [
    "status",
    "prompt",
    "agentId",
    "agentType",
    "content",
    "totalDurationMs",
    "totalToolUseCount",
    "harnessNoteCount",
    "harnessTailCount",
    "harnessSectionHash",
    "resolvedModel",
    "totalTokens",
    "usage",
    "canContinueAgent",
]


async def test_subagent_tool_in_post_tool_use_post_tool_batch_and_subagent_stop(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for event in ("PostToolUse", "PostToolBatch", "SubagentStop"):
        project.hook(event)
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "task: $ echo from-sub\nFINAL"))["status"] == "completed"
    post = next(p for p in project.payloads("PostToolUse") if p["tool_name"] == "Agent")
    assert list(post["tool_response"]) == TASK_RESPONSE_KEYS
    response = post["tool_response"]
    assert response["status"] == "completed" and response["prompt"] == "$ echo from-sub"
    assert response["content"] == [{"type": "text", "text": "Done."}]
    assert response["totalToolUseCount"] == 1 and response["resolvedModel"] == "scripted"
    (main_batch,) = [b for b in project.payloads("PostToolBatch") if "agent_id" not in b]
    ((call,),) = [main_batch["tool_calls"]]
    assert call["tool_name"] == "Task"
    assert call["tool_response"] == [{"type": "text", "text": "Done."}]
    (stop,) = project.payloads("SubagentStop")
    assert stop["background_tasks"] == []  # a synchronous subagent


async def test_on_failure_block_reason_text(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook("PreToolUse", 'sys.stderr.write("boom\\n"); sys.exit(1)', onFailure="block")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "$ touch RAN")
        (result,) = tool_results(await h.messages(sid))
    assert result["is_error"] is True
    assert (
        result["content"] == f'PreToolUse:Bash hook error: [{cmd}]: failed; blocking because onFailure is "block"\nboom'
    )
    assert not (project.root / "RAN").exists()


async def test_invalid_updated_input_text(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        json_out({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"description": "x"}}}),
    )
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "$ touch RAN")
        (result,) = tool_results(await h.messages(sid))
    assert result["is_error"] is True
    assert result["content"] == (
        "PreToolUse hook for Bash returned updatedInput that failed schema validation: "
        "Bash failed due to the following issue:\nThe required parameter `command` is missing\n"
        "The tool input from the model was valid; the hook's rewrite of it was not."
    )
    assert not (project.root / "RAN").exists()


async def test_pre_compact_stdout_reaches_the_summary_request(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PreCompact", 'print("keep the file names")')
    api = FakeMessagesAPI()
    async with running_anthropic_server(project, api) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "completed"
        assert (await h.send(sid, "/compact"))["status"] == "completed"
    summary_request = api.requests[-1]
    assert "tools" not in summary_request
    last = summary_request["messages"][-1]["content"]
    text = last if isinstance(last, str) else last[-1]["text"]
    assert text.endswith("\n\nAdditional Instructions:\nkeep the file names")


async def test_cwd_changed_fires_when_bash_changes_the_session_cwd(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("CwdChanged")
    (project.root / "sub").mkdir()
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo same\n$ cd sub\n$ pwd"))["status"] == "completed"
        session = (await h.client.get(f"/sessions/{sid}")).json()
    (changed,) = project.payloads("CwdChanged")
    assert_shape(changed, "CwdChanged")
    root = project.root.resolve()
    assert changed["old_cwd"] == str(root) and changed["new_cwd"] == str(root / "sub")
    assert changed["cwd"] == str(root / "sub") and changed["session_id"] == sid
    assert session["cwd"] == str(root / "sub")


def test_stop_failure_permission_denied_and_cwd_changed_are_known_events(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for event in ("StopFailure", "PermissionDenied", "CwdChanged", "NoSuchEvent"):
        project.shell_hook(event, "true")
    config = load_config(project.root, user_settings=None)
    unknown = [w.path for w in config.warnings if "not a known" in w.message]
    assert unknown == ["hooks.NoSuchEvent"]
    assert {e: len(config.hooks[e]) for e in ("StopFailure", "PermissionDenied", "CwdChanged")} == {
        "StopFailure": 1,
        "PermissionDenied": 1,
        "CwdChanged": 1,
    }


async def test_claude_effort_reaches_tool_event_and_stop_hooks(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    seen = tmp_path / "effort.jsonl"
    body = (
        f"open({str(seen)!r}, 'a').write(json.dumps([payload['hook_event_name'], "
        "os.environ.get('CLAUDE_EFFORT')]) + '\\n')"
    )
    for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch", "Stop"):
        project.hook(event, body)
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo hi"))["status"] == "completed"
    rows = [json.loads(line) for line in seen.read_text().splitlines()]
    assert rows == [
        ["SessionStart", None],
        ["UserPromptSubmit", None],
        ["PreToolUse", "medium"],
        ["PostToolUse", "medium"],
        ["PostToolBatch", "medium"],
        ["Stop", "medium"],
    ]


async def test_settings_come_from_the_git_root_when_started_in_a_subfolder(tmp_path: Path) -> None:
    project = make_project(tmp_path)  # its .claude/ is at the repository root
    if shutil.which("git") is None:
        pytest.skip("git is not installed (needed to make the repository)")
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    body = "open(os.environ['CLAUDE_PROJECT_DIR'] + '/../project-dir.txt', 'w').write(os.environ['CLAUDE_PROJECT_DIR'])"
    project.hook("PreToolUse", body)
    sub = project.root / "packages" / "app"
    sub.mkdir(parents=True)
    (sub / ".claude").mkdir()
    (sub / ".claude" / "settings.json").write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}}'
    )
    async with running_server(sub, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ pwd"))["status"] == "completed"
        issues = [str(i) for i in h.app.state.manager.runner.config.issues]
        stops = [e["hooks"] for e in await h.events(sid) if e["type"] == "hook" and e["event"] == "Stop"]
    assert stops == [[]]  # the subfolder's own .claude/ is not read
    (pre,) = project.payloads("PreToolUse")
    assert pre["cwd"] == str(sub.resolve())  # the session works in the subfolder
    assert (tmp_path / "project-dir.txt").read_text() == str(project.root.resolve())
    assert any(str(sub / ".claude" / "settings.json") in i and "not read" in i for i in issues)
