"""Every lifecycle point through the HTTP API, with real hook scripts, checking payloads
against the recorded Claude Code payloads."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from agent_server.hooks import EventOutcome, HookLedger
from agent_server.server import SettingsInvalid
from tests.integration.server_harness import (
    assert_shape,
    make_project,
    running_server,
    server_settings,
    sse_events,
)

pytestmark = pytest.mark.anyio

ALL_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
)


async def test_one_bash_call_fires_every_point_in_order_over_sse(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for event in ALL_EVENTS:
        project.hook(event)
    async with running_server(project, permission_mode="bypassPermissions") as h:
        session = await h.create()
        sid = session["session_id"]
        transcript = Path(session["transcript_path"])
        assert transcript.parent == project.root / ".agent-server" / "transcripts"
        result = await h.send(sid, "$ touch RAN_MARKER; echo hello-from-bash\nFINAL ANSWER", wait=False)
        prompt_id = result["prompt_id"]
        # Follow the live SSE stream until the turn ends.
        seen: list[str] = []
        async with h.client.stream("GET", f"/sessions/{sid}/events") as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            async for event in sse_events(resp):
                if event["type"] == "hook":
                    seen.append(event["event"])
                if event["type"] == "turn_ended":
                    assert event["status"] == "completed"
                    assert event["final_text"] == "FINAL ANSWER"
                    break
        assert seen == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch", "Stop"]
        await h.close(sid)
        assert (await h.hooks_fired(sid))[-1] == "SessionEnd"

    assert (project.root / "RAN_MARKER").exists()
    assert (project.root / ".agent-server" / "hooks.db").stat().st_size > 0  # the audit ledger
    p = {e: project.payloads(e) for e in ALL_EVENTS}
    assert_shape(p["SessionStart"][0], "SessionStart__startup")
    assert_shape(p["UserPromptSubmit"][0], "UserPromptSubmit")
    assert_shape(p["PreToolUse"][0], "PreToolUse__Bash")
    assert_shape(p["PostToolUse"][0], "PostToolUse__Bash")
    assert_shape(p["PostToolBatch"][0], "PostToolBatch")
    assert_shape(p["Stop"][0], "Stop", extra=("stop_hook_block_count",))
    assert_shape(p["SessionEnd"][0], "SessionEnd__other")
    assert not p["PermissionRequest"] and not p["PostToolUseFailure"]

    pre, post = p["PreToolUse"][0], p["PostToolUse"][0]
    assert pre["session_id"] == sid and pre["prompt_id"] == prompt_id
    assert pre["cwd"] == str(project.root)
    assert pre["permission_mode"] == "bypassPermissions"
    assert pre["tool_input"]["command"] == "touch RAN_MARKER; echo hello-from-bash"
    assert pre["tool_use_id"] == post["tool_use_id"]
    assert post["tool_response"] == {
        "stdout": "hello-from-bash",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    assert p["PostToolBatch"][0]["tool_calls"][0]["tool_response"] == "hello-from-bash"
    assert p["Stop"][0]["last_assistant_message"] == "FINAL ANSWER"
    assert p["Stop"][0]["stop_hook_active"] is False
    assert p["SessionEnd"][0]["reason"] == "other"

    # The transcript: one JSON line per message, Claude Code's shape.
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert [x["type"] for x in lines] == ["user", "assistant", "user", "assistant"]
    assert lines[0]["message"] == {
        "role": "user",
        "content": pre["tool_input"]["command"] and "$ touch RAN_MARKER; echo hello-from-bash\nFINAL ANSWER",
    }
    assert lines[1]["message"]["content"][0]["type"] == "tool_use"
    assert lines[2]["message"]["content"][0]["type"] == "tool_result"
    assert all(x["sessionId"] == sid for x in lines)
    assert p["PreToolUse"][0]["transcript_path"] == str(transcript)


async def test_failure_fires_post_tool_use_failure(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PostToolUse")
    project.hook("PostToolUseFailure")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "$ echo failing-out; echo failing-err >&2; exit 3")
    assert project.payloads("PostToolUse") == []
    (payload,) = project.payloads("PostToolUseFailure")
    assert_shape(payload, "PostToolUseFailure__Bash")
    assert payload["error"] == "Exit code 3\nfailing-out\nfailing-err"
    assert payload["is_interrupt"] is False


async def test_permission_request_notification_and_user_approval(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PermissionRequest")
    project.hook("Notification")
    async with running_server(project) as h:  # permission mode "default": Bash asks
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo approved > OUT")
        assert turn["status"] == "awaiting_approval"
        approval = turn["approval"]
        assert approval["tool_name"] == "Bash"
        assert not (project.root / "OUT").exists()
        r = await h.client.post(f"/sessions/{sid}/approvals/{approval['approval_id']}", json={"decision": "allow"})
        assert r.status_code == 200
        ended = await h.wait_event(sid, lambda e: e["type"] == "turn_ended")
        assert ended["status"] == "completed"
    assert (project.root / "OUT").read_text() == "approved\n"
    (request,) = project.payloads("PermissionRequest")
    assert_shape(request, "PermissionRequest__Bash")
    assert request["permission_suggestions"][0]["directories"] == [str(project.root)]
    (note,) = project.payloads("Notification")
    assert note["notification_type"] == "permission_prompt"
    assert note["message"] == "Claude needs your permission to use Bash"


async def test_user_denial_ends_the_turn_with_claude_codes_rejection(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("Stop")
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo no > OUT")
        r = await h.client.post(
            f"/sessions/{sid}/approvals/{turn['approval']['approval_id']}",
            json={"decision": "deny", "message": "not now"},
        )
        assert r.status_code == 200
        ended = await h.wait_event(sid, lambda e: e["type"] == "turn_ended")
        assert ended["status"] == "denied"
        result = (await h.messages(sid))[-1]["content"][0]
        assert result["is_error"] is True
        assert result["content"].startswith("The user doesn't want to proceed with this tool use.")
        assert result["content"].endswith("The user said: not now")
    assert not (project.root / "OUT").exists()
    assert project.payloads("Stop") == []


async def test_permission_request_hook_decides_without_the_user(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PermissionRequest",
        """
if "deny-me" in payload["tool_input"]["command"]:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "deny", "message": "denied by policy"}}}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedInput": {"command": "echo rewritten > OUT"}}}}))
""",
    )
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo original > OUT")
        assert turn["status"] == "completed"
        assert (project.root / "OUT").read_text() == "rewritten\n"
        turn = await h.send(sid, "$ echo deny-me")
        assert turn["status"] == "completed"
        result = [m for m in await h.messages(sid) if m["role"] == "user"][-1]["content"][0]
        assert result == {
            "type": "tool_result",
            "tool_use_id": result["tool_use_id"],
            "content": "denied by policy",
            "is_error": True,
        }


async def test_accept_edits_and_plan_modes(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PermissionRequest")
    async with running_server(project, permission_mode="acceptEdits") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "write notes.txt\nhi\nEOF"))["status"] == "completed"
        assert (project.root / "notes.txt").read_text() == "hi\n"
        assert project.payloads("PermissionRequest") == []
        assert (await h.send(sid, "$ echo x"))["status"] == "awaiting_approval"
        await h.client.post(f"/sessions/{sid}/interrupt")
        await h.wait_event(sid, lambda e: e["type"] == "turn_ended")

        plan = (await h.create(permission_mode="plan"))["session_id"]
        assert (await h.send(plan, "write plan.txt\nno\nEOF\nread notes.txt"))["status"] == "completed"
        assert not (project.root / "plan.txt").exists()
        results = [
            m["content"][0] for m in await h.messages(plan) if m["role"] == "user" and isinstance(m["content"], list)
        ]
        assert results[0]["is_error"] and "not available in plan mode" in results[0]["content"]
        assert results[1]["content"] == "     1\thi"


async def test_subagent_has_its_own_transcript_and_hooks_see_agent(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    for event in ("PreToolUse", "PostToolUse", "PostToolBatch", "SubagentStart", "SubagentStop", "Stop"):
        project.hook(event)
    project.hook("PreToolUse", matcher="Task", name="task-matcher")
    project.hook(
        "SubagentStart",
        """
print(json.dumps({"hookSpecificOutput": {"hookEventName": "SubagentStart",
                                         "additionalContext": "sub-context"}}))""",
    )
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "task: $ echo from-sub\nFINAL ANSWER")
        assert turn["status"] == "completed"
        messages = await h.messages(sid)
    pre_agent = [c for c in project.calls("PreToolUse") if c["payload"]["tool_name"] == "Agent"]
    assert {c["hook"] for c in pre_agent} == {"PreToolUse-1", "task-matcher"}
    assert_shape(pre_agent[0]["payload"], "PreToolUse__Agent")
    start = project.payloads("SubagentStart")[0]
    assert_shape(start, "SubagentStart")
    agent_id = start["agent_id"]
    sub_pre = next(p for p in project.payloads("PreToolUse") if p["tool_name"] == "Bash")
    assert_shape(sub_pre, "PreToolUse__Bash__in_subagent")
    assert sub_pre["agent_id"] == agent_id and sub_pre["session_id"] == sid
    sub_post = next(p for p in project.payloads("PostToolUse") if p["tool_name"] == "Bash")
    assert_shape(sub_post, "PostToolUse__Bash__in_subagent")
    assert (
        next(b for b in project.payloads("PostToolBatch") if "agent_id" in b)["tool_calls"][0]["tool_response"]
        == "from-sub"
    )
    (stop,) = project.payloads("SubagentStop")
    assert_shape(stop, "SubagentStop", extra=("stop_hook_block_count",))
    sub_transcript = Path(stop["agent_transcript_path"])
    assert sub_transcript.name == f"agent-{agent_id}.jsonl"
    sub_lines = [json.loads(x) for x in sub_transcript.read_text().splitlines()]
    assert sub_lines[0]["message"]["content"] == "$ echo from-sub"
    assert any(x["message"]["content"] == "SubagentStart hook additional context: sub-context" for x in sub_lines)
    post_agent = next(p for p in project.payloads("PostToolUse") if p["tool_name"] == "Agent")
    assert post_agent["tool_response"]["agentId"] == agent_id
    assert post_agent["tool_response"]["status"] == "completed"
    assert project.payloads("Stop")[0]["last_assistant_message"] == "FINAL ANSWER"
    tool_result = next(m for m in messages if m["role"] == "user" and isinstance(m["content"], list))
    assert tool_result["content"][0]["content"] == "Done."


async def test_clear_ends_the_session_and_starts_a_new_one(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("SessionStart")
    project.hook("SessionEnd")
    async with running_server(project) as h:
        old = (await h.create())["session_id"]
        await h.send(old, "hello")
        turn = await h.send(old, "/clear")
        assert turn["status"] == "completed"
        new = (await h.client.get(f"/sessions/{old}")).json()["session_id"]
        assert new != old
        assert await h.messages(new) == []
    end_clear, end_other = project.payloads("SessionEnd")
    # The recorded payload has a prompt_id; Claude Code 2.1.330 sends none (contract §9).
    assert_shape(end_clear, "SessionEnd__clear", missing=("prompt_id",))
    assert "prompt_id" not in end_clear
    assert end_clear["reason"] == "clear" and end_clear["session_id"] == old
    assert end_other["reason"] == "other" and end_other["session_id"] == new
    starts = project.payloads("SessionStart")
    assert [s["source"] for s in starts] == ["startup", "clear"]
    assert_shape(starts[1], "SessionStart__clear")
    assert starts[1]["session_id"] == new
    assert starts[1]["transcript_path"].endswith(f"{new}.jsonl")


async def test_manual_compact_order_payloads_and_instructions(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PreCompact", 'print("keep the file names")')
    project.hook("SessionStart")
    project.hook("PostCompact")
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "first request")
        turn = await h.send(sid, "/compact focus on tests")
        assert turn["status"] == "completed"
        fired = await h.hooks_fired(sid)
        assert fired[-3:] == ["PreCompact", "SessionStart", "PostCompact"]
        messages = await h.messages(sid)
    (pre,) = project.payloads("PreCompact")
    assert_shape(pre, "PreCompact")
    assert pre["trigger"] == "manual" and pre["custom_instructions"] == "focus on tests"
    start = project.payloads("SessionStart")[-1]
    assert_shape(start, "SessionStart__compact")
    assert start["model"] == "scripted"
    (post,) = project.payloads("PostCompact")
    assert_shape(post, "PostCompact")
    assert "Requests so far: first request." in post["compact_summary"]
    assert "Instructions: focus on tests\nkeep the file names" in post["compact_summary"]
    assert messages[0]["content"].startswith("This session is being continued")


async def test_pre_compact_block_and_auto_compaction(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "PreCompact",
        """
if payload["trigger"] == "manual":
    sys.stderr.write("not now"); sys.exit(2)""",
    )
    project.hook("PostCompact")
    async with running_server(project, context_budget=400) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "/compact"))["status"] == "blocked"
        events = await h.events(sid)
        assert any(
            e["type"] == "system_message" and "Compaction blocked by PreCompact hook" in e["text"] for e in events
        )
        await h.send(sid, "x" * 500)
        await h.send(sid, "second")  # over budget → automatic compaction first
    (post,) = project.payloads("PostCompact")
    assert post["trigger"] == "auto"


async def test_resume_loads_the_transcript(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("SessionStart")
    async with running_server(project) as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "remember me")
        await h.close(sid)
        resumed = await h.create(resume=sid)
        assert resumed["session_id"] == sid
        messages = await h.messages(sid)
        assert messages[0] == {"role": "user", "content": "remember me"}
        r = await h.client.post("/sessions", json={"resume": "../../etc/passwd"})
        assert r.status_code == 422 and "not a session id" in r.json()["error"]["message"]
    start = project.payloads("SessionStart")[-1]
    assert start["source"] == "resume"
    assert_shape(start, "SessionStart__resume")
    assert start["context_tokens"] > 0 and start["prompt_cache_likely_expired"] is False


async def test_env_file_exports_and_cd_follow_the_session(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook(
        "SessionStart",
        """
with open(os.environ["CLAUDE_ENV_FILE"], "a") as fh:
    fh.write("export FOO=from-env-file\\n")""",
    )
    project.hook("PostToolUse")
    (project.root / "sub").mkdir()
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, '$ echo "foo=$FOO"\n$ cd sub\n$ pwd\n$ cd /')
        session = (await h.client.get(f"/sessions/{sid}")).json()
        results = [
            m["content"][0]["content"]
            for m in await h.messages(sid)
            if m["role"] == "user" and isinstance(m["content"], list)
        ]
    posts = project.calls("PostToolUse")
    assert posts[0]["payload"]["tool_response"]["stdout"] == "foo=from-env-file"
    assert posts[2]["payload"]["tool_response"]["stdout"] == str(project.root / "sub")
    assert posts[2]["payload"]["cwd"] == str(project.root / "sub")
    assert posts[2]["pwd"] == str(project.root / "sub")  # hooks run in the session cwd
    assert results[3] == f"Shell cwd was reset to {project.root}"
    assert session["cwd"] == str(project.root)


async def test_idle_notification(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("Notification")
    async with running_server(project, idle_notification_seconds=0.2) as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "hi")
        event = await h.wait_event(sid, lambda e: e["type"] == "hook" and e["event"] == "Notification")
        assert event["hooks"][0]["status"] == "ok"
    (note,) = project.payloads("Notification")
    assert note["notification_type"] == "idle_prompt"
    assert list(note) == ["session_id", "transcript_path", "cwd", "hook_event_name", "message", "notification_type"]


async def test_server_shutdown_fires_session_end(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("SessionEnd")
    async with running_server(project) as h:
        a = (await h.create())["session_id"]
        b = (await h.create())["session_id"]
    ends = project.payloads("SessionEnd")
    assert sorted(e["session_id"] for e in ends) == sorted([a, b])
    assert {e["reason"] for e in ends} == {"other"}


async def test_ledger_retention_drops_old_events_and_the_ledger_closes_with_the_server(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("SessionStart")
    db = project.root / ".agent-server" / "hooks.db"
    long_ago = time.time() - 5 * 86400
    with HookLedger(db) as ledger:  # a run of five days ago
        ledger.record_sync(
            "Stop",
            {"session_id": "old"},
            EventOutcome.combine("Stop", []),
            event_id="old",
            started_at=long_ago,
            ended_at=long_ago,
        )
    async with running_server(project, hook_ledger_retention_days=2) as h:
        sid = (await h.create())["session_id"]
    conn = sqlite3.connect(db)
    try:
        sessions = {row[0] for row in conn.execute("SELECT session_id FROM events")}
    finally:
        conn.close()
    assert sessions == {sid}  # the old one pruned; SessionStart/End of this run kept
    assert not list((db.parent / "hooks.db.pending").iterdir())  # closed: journal gone


@pytest.mark.parametrize("days", [0, -1, float("inf")])
def test_ledger_retention_setting_is_checked(tmp_path: Path, days: float) -> None:
    with pytest.raises(SettingsInvalid, match="AGENT_SERVER_HOOK_LEDGER_RETENTION_DAYS="):
        server_settings(tmp_path, hook_ledger_retention_days=days)


async def test_shutdown_lets_event_streams_see_the_turn_and_session_end(tmp_path: Path) -> None:
    """Sessions close before the event streams are told to end: a client following a
    session awaiting an approval still gets its turn_ended and session_ended."""
    project = make_project(tmp_path)
    project.hook("SessionEnd")
    got: list[dict[str, Any]] = []
    following = anyio.Event()

    async def follow(url: str, sid: str, headers: httpx.Headers) -> None:
        async with (
            httpx.AsyncClient(base_url=url, timeout=30, headers=headers) as client,
            client.stream("GET", f"/sessions/{sid}/events") as resp,
        ):
            async for event in sse_events(resp):
                got.append(event)
                following.set()

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg, running_server(project) as h:
            sid = (await h.create())["session_id"]
            assert (await h.send(sid, "$ echo hi > OUT"))["status"] == "awaiting_approval"
            tg.start_soon(follow, str(h.client.base_url), sid, h.client.headers)
            await following.wait()
    types = [e["type"] for e in got]
    assert "turn_ended" in types and types[-1] == "session_ended", types
    assert len(project.payloads("SessionEnd")) == 1
