"""The anthropic backend (official SDK, streaming, tool use) against a fake Messages API on
127.0.0.1: what the model is sent is exactly what the contract says it sees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_server.server.testing import FakeMessagesAPI
from tests.integration.server_harness import BLOCK_STOP_ONCE, make_project, running_anthropic_server

pytestmark = pytest.mark.anyio


def texts(message: dict[str, Any]) -> list[str]:
    return [b["text"] for b in message["content"] if b.get("type") == "text"]


async def test_tool_use_streaming_and_model_visible_hook_messages(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook("PreToolUse", 'sys.stderr.write("no rm"); sys.exit(2)', matcher="Bash")
    project.hook(
        "PreToolUse",
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
        "'additionalContext': 'read carefully'}}))",
        matcher="Read",
    )
    project.hook("SessionStart", 'print("ctx from start")')
    (project.root / "a.txt").write_text("alpha\n")
    api = FakeMessagesAPI()
    async with running_anthropic_server(
        project, api, anthropic_model="claude-test", permission_mode="bypassPermissions"
    ) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ rm -rf x\nread a.txt\nAll done here, nothing else to do.")
        assert turn["status"] == "completed"
        assert turn["final_text"] == "All done here, nothing else to do."
        events = await h.events(sid)
    assert len(api.requests) == 3
    first, second, third = api.requests
    assert first["model"] == "claude-test" and first["stream"] is True
    assert {t["name"] for t in first["tools"]} == {"Bash", "Read", "Write", "Edit", "Glob", "Grep", "Task"}
    assert texts(first["messages"][0]) == [
        "SessionStart:startup hook success: ctx from start",
        "$ rm -rf x\nread a.txt\nAll done here, nothing else to do.",
    ]
    # Denied tool → error tool_result with the exact text.
    result = second["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert result["content"] == f"PreToolUse:Bash hook error: [{cmd}]: no rm"
    # Allowed tool → its output, then the hook's context as text in the same user turn.
    last = third["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and last[0]["content"] == "     1\talpha"
    assert last[1] == {"type": "text", "text": "PreToolUse:Read hook additional context: read carefully"}
    # The final text was streamed in pieces before the message was complete.
    deltas = [e["text"] for e in events if e["type"] == "assistant_delta"]
    assert len(deltas) > 1 and "".join(deltas) == "All done here, nothing else to do."
    assert x_api_key(api) is None  # the key travels in a header, not the body


def x_api_key(api: FakeMessagesAPI) -> Any:
    return api.requests[0].get("api_key")


async def test_stop_feedback_and_compaction_reach_the_api(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    cmd = project.hook("Stop", BLOCK_STOP_ONCE)
    api = FakeMessagesAPI()
    async with running_anthropic_server(project, api) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "completed"
        # A JSON block: the system message, then the feedback (contract §9).
        assert texts(api.requests[1]["messages"][-1]) == [
            f'Stop hook blocking error from command: "{cmd}": run the tests',
            "Stop hook feedback:\nrun the tests",
        ]
        assert (await h.send(sid, "/compact"))["status"] == "completed"
        summary_request = api.requests[2]
        assert "tools" not in summary_request and "stream" not in summary_request
        msgs = await h.messages(sid)
        assert msgs[0]["content"].endswith("summarized below:\nSUMMARY of 5 messages")


async def test_api_errors_are_reported_not_raised(tmp_path: Path) -> None:
    project = make_project(tmp_path)

    def broken(body: dict[str, Any]) -> list[dict[str, Any]]:
        raise RuntimeError("fake API crashed")

    api = FakeMessagesAPI(responder=broken)
    async with running_anthropic_server(project, api) as h:
        h.app.state.manager.backend.client = h.app.state.manager.backend.client.with_options(max_retries=0)
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "hello")
        assert turn["status"] == "error"
        assert "Messages API error 500" in turn["reason"]
        errors = [e for e in await h.events(sid) if e["type"] == "error"]
        assert errors and "500" in errors[0]["message"]
