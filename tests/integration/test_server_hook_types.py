"""HTTP and prompt hooks through the real server (contract §10-11): a loopback HTTP hook
endpoint, the scripted backend's prompt evaluator, and the anthropic backend against a
loopback fake Messages API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent_server.hooks import PROMPT_HOOK_SCHEMA, PROMPT_HOOK_SYSTEM
from agent_server.server.testing import FakeMessagesAPI
from tests.http_endpoint import http_endpoint
from tests.integration.server_harness import (
    add_entry,
    make_project,
    running_anthropic_server,
    running_server,
    system_texts,
    tool_results,
    user_notes,
)

pytestmark = pytest.mark.anyio


async def deny_rm(request: Request) -> Response:
    """The endpoint's policy: no ``rm``; everything else passes with an empty body."""
    payload = await request.json()
    if "rm " in payload["tool_input"].get("command", ""):
        return JSONResponse(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the endpoint forbids rm",
                    "additionalContext": "policy v2",
                }
            }
        )
    return Response(b"")


# -- http hooks --------------------------------------------------------------------------


async def test_http_hooks_decide_like_command_hooks(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with http_endpoint() as ep:
        add_entry(project, "PreToolUse", {"type": "http", "url": ep.on("pre", deny_rm)}, matcher="Bash")
        post = ep.reply("post", {"decision": "block", "reason": "lint failed"})
        add_entry(project, "PostToolUse", {"type": "http", "url": post})
        start = ep.reply("start", {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "x"}})
        add_entry(project, "SessionStart", {"type": "http", "url": start})
        async with running_server(project, permission_mode="bypassPermissions") as h:
            sid = (await h.create())["session_id"]
            turn = await h.send(sid, "$ rm -rf build\n$ echo ok > RAN\nDone here.")
            assert turn["status"] == "completed" and turn["final_text"] == "Done here."
            msgs = await h.messages(sid)
    denied, ran = tool_results(msgs)
    assert denied["is_error"] is True
    assert denied["content"] == "PreToolUse:Bash hook error: the endpoint forbids rm"
    assert "is_error" not in ran and (project.root / "RAN").exists()
    assert system_texts(msgs) == [
        "PreToolUse:Bash hook additional context: policy v2",
        f'PostToolUse:Bash hook blocking error from command: "{post}": lint failed',
    ]
    assert ep.of("start") == []  # not sent for SessionStart
    [pre_rm, pre_echo] = ep.of("pre")
    assert pre_rm.json["tool_input"]["command"] == "rm -rf build"
    assert pre_rm.json["session_id"] == sid and pre_rm.json["hook_event_name"] == "PreToolUse"
    assert pre_echo.json["tool_use_id"] != pre_rm.json["tool_use_id"]


async def test_http_failures_block_only_with_on_failure_block(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    refused = "http://127.0.0.1:9/refused"  # the discard port: nothing listens there
    (project.root / "a.txt").write_text("alpha\n")
    async with http_endpoint() as ep:
        gone = ep.reply("gone", status=404)
        add_entry(project, "PreToolUse", {"type": "http", "url": gone, "onFailure": "block"}, matcher="Bash")
        add_entry(project, "PostToolUse", {"type": "http", "url": refused}, matcher="Read")
        async with running_server(project, permission_mode="bypassPermissions") as h:
            sid = (await h.create())["session_id"]
            assert (await h.send(sid, "$ touch RAN\nread a.txt"))["status"] == "completed"
            msgs = await h.messages(sid)
            notes = await user_notes(h, sid)
    blocked, read = tool_results(msgs)
    assert blocked["content"] == (
        f'PreToolUse:Bash hook error: [{gone}]: failed; blocking because onFailure is "block"\nHTTP 404 from {gone}'
    )
    assert not (project.root / "RAN").exists()
    # Without onFailure a failing http hook is reported to the user; the action went ahead.
    assert "is_error" not in read and "alpha" in read["content"]
    assert any(n.startswith(f"PostToolUse hook 'refused' failed: request to {refused} failed") for n in notes)
    assert system_texts(msgs) == []


# -- prompt hooks, scripted backend ----------------------------------------------------------

GUARD = "block: rm -rf\nIs this command safe to run? $ARGUMENTS"


async def test_prompt_hook_no_on_pre_tool_use_stops_the_turn(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    add_entry(project, "PreToolUse", {"type": "prompt", "prompt": GUARD}, matcher="Bash")
    project.hook("Stop")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo first > A\n$ rm -rf build\n$ touch NEVER\nnot reached")
        assert turn["status"] == "stopped"
        msgs = await h.messages(sid)
        notes = await user_notes(h, sid)
    first, denied = tool_results(msgs)
    assert "is_error" not in first and (project.root / "A").exists()
    assert denied["is_error"] is True
    assert denied["content"] == f'PreToolUse:Bash hook error: [{GUARD}]: the event contains "rm -rf"'
    assert msgs[-1]["role"] == "user"  # no further model call after the denied tool
    assert not (project.root / "NEVER").exists()
    assert 'the event contains "rm -rf"' in notes
    assert project.payloads("Stop") == []


async def test_prompt_hook_no_on_user_prompt_submit(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    add_entry(project, "UserPromptSubmit", {"type": "prompt", "prompt": "block: password\n$ARGUMENTS"})
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "completed"
        turn = await h.send(sid, "my password is hunter2")
        assert turn["status"] == "stopped"
        assert 'Operation stopped by hook: the event contains "password"' in await user_notes(h, sid)
        msgs = await h.messages(sid)
    assert "hunter2" not in json.dumps(msgs)  # never reached the model
    assert [m["role"] for m in msgs] == ["user", "assistant"]


async def test_prompt_hook_no_on_post_tool_use_ends_the_turn_after_the_tool(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    prompt = "block: SECRET\nDoes this output leak anything? $ARGUMENTS"
    add_entry(project, "PostToolUse", {"type": "prompt", "prompt": prompt})
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo SECRET\n$ touch NEVER")
        assert turn["status"] == "stopped"
        msgs = await h.messages(sid)
    [result] = tool_results(msgs)
    assert result["content"] == "SECRET"  # the tool ran; its result is unchanged
    assert system_texts(msgs) == [
        f'PostToolUse:Bash hook blocking error from command: "{prompt}": [{prompt}]: the event contains "SECRET"'
    ]
    assert not (project.root / "NEVER").exists()


async def test_prompt_hook_no_on_stop_is_feedback_and_the_model_goes_on(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    prompt = "block: unfinished\nIs the work done? $ARGUMENTS"
    add_entry(project, "Stop", {"type": "prompt", "prompt": prompt})
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "unfinished")
        assert turn["status"] == "completed"
        msgs = await h.messages(sid)
    feedback = f'Stop hook feedback:\n[{prompt}]: the event contains "unfinished"'
    at = msgs.index({"role": "user", "content": feedback})
    assert msgs[at - 1] == {"role": "assistant", "content": [{"type": "text", "text": "unfinished"}]}
    assert msgs[at + 1]["role"] == "assistant"  # the model was called again


async def test_prompt_hook_bad_reply_fails_open(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    add_entry(project, "PreToolUse", {"type": "prompt", "prompt": "reply: not json at all\n$ARGUMENTS"})
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ touch RAN"))["status"] == "completed"
        notes = await user_notes(h, sid)
    assert (project.root / "RAN").exists()
    assert any("prompt hook reply: the reply is not JSON: 'not json at all'" in n for n in notes)


# -- prompt hooks, anthropic backend ---------------------------------------------------------


async def test_prompt_hook_is_one_extra_messages_call(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    prompt = "Judge this tool call: $ARGUMENTS"
    add_entry(project, "PreToolUse", {"type": "prompt", "prompt": prompt}, matcher="Bash")
    api = FakeMessagesAPI()

    async def responder(body: dict[str, Any]) -> list[dict[str, Any]]:
        if "output_config" in body:  # the prompt hook's call
            asked = body["messages"][0]["content"]
            verdict = {"ok": "rm -rf" not in asked, "reason": "destructive command"}
            return [{"type": "text", "text": json.dumps(verdict)}]
        return await api.scripted_reply(body)

    api.responder = responder
    async with running_anthropic_server(
        project, api, anthropic_model="claude-test", permission_mode="bypassPermissions"
    ) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo fine\n$ rm -rf build\n$ touch NEVER")
        assert turn["status"] == "stopped"
        msgs = await h.messages(sid)
    hook_calls = [r for r in api.requests if "output_config" in r]
    agent_calls = [r for r in api.requests if "output_config" not in r]
    assert len(hook_calls) == 2 and len(agent_calls) == 2  # no model call after the "no"
    call = hook_calls[1]
    assert call["model"] == "claude-test" and "tools" not in call and not call.get("stream")
    assert call["system"] == PROMPT_HOOK_SYSTEM
    assert call["output_config"] == {"format": {"type": "json_schema", "schema": PROMPT_HOOK_SCHEMA}}
    [message] = call["messages"]
    assert message["role"] == "user"
    head, _, event_json = message["content"].partition("Judge this tool call: ")
    assert head == ""
    event = json.loads(event_json)
    assert event["hook_event_name"] == "PreToolUse" and event["tool_input"]["command"] == "rm -rf build"
    assert event["session_id"] == sid
    _, denied = tool_results(msgs)
    assert denied["content"] == f"PreToolUse:Bash hook error: [{prompt}]: destructive command"
    assert not (project.root / "NEVER").exists()


async def test_the_fake_messages_api_plays_the_scripted_verdict(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    add_entry(project, "PreToolUse", {"type": "prompt", "prompt": GUARD}, matcher="Bash")
    add_entry(
        project, "PreToolUse", {"type": "prompt", "prompt": "reply: Sure, looks fine!\n$ARGUMENTS"}, matcher="Read"
    )
    (project.root / "a.txt").write_text("alpha\n")
    api = FakeMessagesAPI()
    async with running_anthropic_server(project, api, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "read a.txt\n$ echo fine\n$ rm -rf build\n$ touch NEVER")
        assert turn["status"] == "stopped"
        msgs = await h.messages(sid)
        notes = await user_notes(h, sid)
    read, echo, denied = tool_results(msgs)
    # A reply that is not JSON: a non-blocking error, the tool ran.
    assert "alpha" in read["content"]
    assert any("prompt hook reply: the reply is not JSON: 'Sure, looks fine!'" in n for n in notes)
    assert echo["content"] == "fine"
    assert denied["content"] == f'PreToolUse:Bash hook error: [{GUARD}]: the event contains "rm -rf"'
    assert not (project.root / "NEVER").exists()
    assert len([r for r in api.requests if "output_config" in r]) == 3
