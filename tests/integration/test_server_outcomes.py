"""Each hook outcome's effect on the model-visible conversation and the user-visible stream,
exactly as in the contract (docs/spec/claude-code-contract.md §3-4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.server_harness import (
    json_out,
    make_project,
    running_server,
    system_texts,
    tool_results,
    user_notes,
)

pytestmark = pytest.mark.anyio


def pre_tool_decision(decision: str, reason: str, *, context: str | None = None) -> str:
    """Hook body printing a PreToolUse ``permissionDecision`` (with ``additionalContext``)."""
    output = {"hookEventName": "PreToolUse", "permissionDecision": decision, "permissionDecisionReason": reason}
    if context is not None:
        output["additionalContext"] = context
    return json_out({"hookSpecificOutput": output})


async def test_user_prompt_submit_block_exit2_no_model_call(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook("UserPromptSubmit", 'sys.stderr.write("no secrets please"); sys.exit(2)')
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "my password is hunter2")
        assert turn["status"] == "blocked"
        assert await h.messages(sid) == []  # no prompt kept, no model call
        assert f"UserPromptSubmit operation blocked by hook:\n[{cmd}]: no secrets please" in await user_notes(h, sid)
        assert "Stop" not in await h.hooks_fired(sid)


async def test_user_prompt_submit_contexts_and_json_block(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("UserPromptSubmit", 'print("plain context")')
    project.hook(
        "UserPromptSubmit",
        """
if "forbidden" in payload["prompt"]:
    print(json.dumps({"decision": "block", "reason": "forbidden word",
                      "hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                             "additionalContext": "ctx-on-block"}}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                             "additionalContext": "json context"}}))""",
    )
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "completed"
        msgs = await h.messages(sid)
        assert msgs[0] == {"role": "user", "content": "hello"}
        assert system_texts(msgs) == [
            "UserPromptSubmit hook success: plain context",
            "UserPromptSubmit hook additional context: json context",
        ]
        assert (await h.send(sid, "forbidden"))["status"] == "blocked"
        assert "UserPromptSubmit operation blocked by hook:\nforbidden word" in await user_notes(h, sid)
        msgs = await h.messages(sid)
        assert "forbidden" not in [m["content"] for m in msgs if m["role"] == "user"]
        assert system_texts(msgs)[-1] == "UserPromptSubmit hook additional context: ctx-on-block"


async def test_user_prompt_submit_continue_false(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("UserPromptSubmit", json_out({"continue": False, "stopReason": "maintenance window"}))
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "stopped"
        assert "Operation stopped by hook: maintenance window" in await user_notes(h, sid)
        assert [m for m in await h.messages(sid) if m["role"] == "assistant"] == []


async def test_session_start_context_reaches_the_model(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("SessionStart", 'print("project uses tabs")')
    project.hook(
        "SessionStart",
        json_out(
            {
                "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "json ctx"},
                "systemMessage": "hi user",
            }
        ),
    )
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        msgs = await h.messages(sid)
        assert system_texts(msgs) == [
            "SessionStart:startup hook success: project uses tabs",
            "SessionStart hook additional context: json ctx",  # no source (contract §9)
        ]
        assert "hi user" in await user_notes(h, sid)
        assert "hi user" not in json.dumps(msgs)  # systemMessage: user only


async def test_pre_tool_use_exit2_denies_with_exact_message(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook("PreToolUse", 'sys.stderr.write("rm is not allowed"); sys.exit(2)', matcher="Bash")
    empty = project.shell_hook("PreToolUse", "exit 2", matcher="Write")
    project.hook("PostToolUse")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "$ touch RAN\nwrite W.txt\nx\nEOF")
        results = tool_results(await h.messages(sid))
        assert results[0]["is_error"] is True
        assert results[0]["content"] == f"PreToolUse:Bash hook error: [{cmd}]: rm is not allowed"
        assert results[1]["content"] == f"PreToolUse:Write hook error: [{empty}]: No stderr output"
        blocked = [e for e in await h.events(sid) if e["type"] == "tool_result" and e.get("blocked")]
        assert len(blocked) == 2
    assert not (project.root / "RAN").exists() and not (project.root / "W.txt").exists()
    assert project.payloads("PostToolUse") == []


async def test_pre_tool_use_json_deny_with_context(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        pre_tool_decision("deny", "use the safe wrapper", context="see docs/safe.md"),
    )
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "$ touch RAN")
        msgs = await h.messages(sid)
        (result,) = tool_results(msgs)
        assert result["content"] == "PreToolUse:Bash hook error: use the safe wrapper"
        # The context is a system message right after the tool result.
        idx = next(i for i, m in enumerate(msgs) if m["role"] == "user" and isinstance(m["content"], list))
        assert msgs[idx + 1] == {
            "role": "system",
            "content": "PreToolUse:Bash hook additional context: see docs/safe.md",
        }
        hook = next(e for e in await h.events(sid) if e["type"] == "hook" and e["event"] == "PreToolUse")
        assert hook["decision"] == "deny" and hook["reason"] == "use the safe wrapper"
        assert hook["hooks"][0]["status"] == "blocked" and hook["hooks"][0]["duration_ms"] > 0
    assert not (project.root / "RAN").exists()


async def test_pre_tool_use_updated_input_replaces_the_input(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        json_out(
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo replaced > OUT"}}}
        ),
    )
    project.hook("PostToolUse")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "$ echo original > OUT")
    assert (project.root / "OUT").read_text() == "replaced\n"
    (post,) = project.payloads("PostToolUse")
    assert post["tool_input"] == {"command": "echo replaced > OUT"}  # replaced, not merged


async def test_pre_tool_use_allow_skips_the_permission_check(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse", json_out({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    )
    project.hook("PermissionRequest")
    async with running_server(project) as h:  # default mode would ask for Bash
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ touch RAN"))["status"] == "completed"
    assert (project.root / "RAN").exists()
    assert project.payloads("PermissionRequest") == []


async def test_pre_tool_use_ask_pauses_for_the_user(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        pre_tool_decision("ask", "touching files needs a human"),
    )
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN")
        assert turn["status"] == "awaiting_approval"
        assert turn["approval"]["reason"] == "touching files needs a human"
        session = (await h.client.get(f"/sessions/{sid}")).json()
        assert session["state"] == "awaiting_approval"
        assert session["pending_approvals"][0]["approval_id"] == turn["approval"]["approval_id"]
        r = await h.client.post(
            f"/sessions/{sid}/approvals/{turn['approval']['approval_id']}", json={"decision": "allow"}
        )
        assert r.json() == {"approval_id": turn["approval"]["approval_id"], "decision": "allow"}
        await h.wait_event(sid, lambda e: e["type"] == "turn_ended")
    assert (project.root / "RAN").exists()


async def test_ask_without_an_answer_is_denied_with_the_reason(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        pre_tool_decision("ask", "why"),
    )
    async with running_server(project, approval_timeout=0.3) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN")
        assert turn["status"] == "awaiting_approval"
        ended = await h.wait_event(sid, lambda e: e["type"] == "turn_ended")
        assert ended["status"] == "completed"
        (result,) = tool_results(await h.messages(sid))
        assert result["content"] == "why"  # the reason alone (contract §9)
    assert not (project.root / "RAN").exists()


async def test_pre_tool_use_defer_ends_the_run(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        pre_tool_decision("defer", "later"),
    )
    project.hook("Stop")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN\n$ touch RAN2")
        assert turn["status"] == "deferred" and turn["reason"] == "later"
    assert not (project.root / "RAN").exists() and not (project.root / "RAN2").exists()
    assert project.payloads("Stop") == []


async def test_pre_tool_use_continue_false_runs_the_tool_then_stops(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PreToolUse", json_out({"continue": False, "stopReason": "enough for today"}))
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN\n$ touch RAN2")
        assert turn["status"] == "stopped"
        assert "enough for today" in await user_notes(h, sid)
    assert (project.root / "RAN").exists() and not (project.root / "RAN2").exists()


async def test_post_tool_use_block_and_context_messages(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook("PostToolUse", 'sys.stderr.write("lint failed"); sys.exit(2)')
    json_cmd = project.hook(
        "PostToolUse",
        json_out(
            {
                "decision": "block",
                "reason": "format it",
                "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ran black"},
            }
        ),
    )
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo out"))["status"] == "completed"
        msgs = await h.messages(sid)
        (result,) = tool_results(msgs)
        assert result["content"] == "out" and "is_error" not in result  # result unchanged
        assert system_texts(msgs) == [
            f'PostToolUse:Bash hook blocking error from command: "{cmd}": [{cmd}]: lint failed',
            f'PostToolUse:Bash hook blocking error from command: "{json_cmd}": format it',
            "PostToolUse:Bash hook additional context: ran black",
        ]


async def test_post_tool_batch_block_stops_the_loop(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PostToolBatch", 'sys.stderr.write("batch rejected"); sys.exit(2)')
    project.hook("Stop")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "batch:\n$ echo a\n$ echo b\nend\n$ touch RAN2")
        assert turn["status"] == "stopped" and turn["reason"] == "hook_stopped"
        assert any("PostToolBatch hook stopped the agent loop" in t for t in await user_notes(h, sid))
    (batch,) = project.payloads("PostToolBatch")
    assert [c["tool_response"] for c in batch["tool_calls"]] == ["a", "b"]  # one batch, two calls
    assert not (project.root / "RAN2").exists()
    assert project.payloads("Stop") == []


async def test_stop_block_continues_with_feedback_then_cap(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook(
        "Stop",
        """
if payload["stop_hook_block_count"] == 0:
    sys.stderr.write("$ touch FIXED"); sys.exit(2)""",
    )
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "done?"))["status"] == "completed"
        msgs = await h.messages(sid)
    first, second = project.payloads("Stop")
    assert first["stop_hook_active"] is False and second["stop_hook_active"] is True
    assert second["stop_hook_block_count"] == 1
    feedback = [m for m in msgs if m["role"] == "user" and isinstance(m["content"], str)][1]
    assert feedback["content"] == f"Stop hook feedback:\n[{cmd}]: $ touch FIXED"

    capped = make_project(tmp_path / "cap")
    capped.hook("Stop", json_out({"decision": "block", "reason": "keep going"}))
    async with running_server(capped, stop_block_cap=3) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "hi")
        assert turn["status"] == "completed" and turn["reason"] == "stop hook block cap reached"
        msgs = await h.messages(sid)
        assert [m["content"] for m in msgs if m["role"] == "user"][1:] == ["Stop hook feedback:\nkeep going"] * 2
        assert any("blocked 3 times in a row" in t for t in await user_notes(h, sid))
    assert [p["stop_hook_block_count"] for p in capped.payloads("Stop")] == [0, 1, 2]


async def test_stop_continue_false_and_hook_failure_warnings(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("Stop", 'sys.stderr.write("boom"); sys.exit(1)')
    project.hook("PreToolUse", "import time; time.sleep(5)", timeout=0.3)
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN")
        assert turn["status"] == "completed"
        notes = await user_notes(h, sid)
        assert any(n.startswith("PreToolUse hook") and "timed out" in n for n in notes)
        assert any(n.startswith("Stop hook") and "boom" in n for n in notes)
    assert (project.root / "RAN").exists()  # a timed-out hook never blocks


async def test_permission_request_deny_with_interrupt_aborts_the_turn(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PermissionRequest",
        json_out(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PermissionRequest",
                    "decision": {"behavior": "deny", "message": "stop right there", "interrupt": True},
                }
            }
        ),
    )
    project.hook("Stop")
    async with running_server(project) as h:  # default mode: Bash needs permission
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ touch RAN\n$ touch RAN2")
        assert turn["status"] == "interrupted"
        results = tool_results(await h.messages(sid))
        assert results[0]["content"] == "stop right there" and results[0]["is_error"] is True
        assert any("PermissionRequest hook interrupted the turn" in n for n in await user_notes(h, sid))
    assert not (project.root / "RAN").exists() and not (project.root / "RAN2").exists()
    assert project.payloads("Stop") == []
