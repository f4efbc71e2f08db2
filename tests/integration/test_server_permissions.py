"""Permission rules from settings files through the real server (contract §12): what the
model sees, which hooks fire in which order, and which rule the event stream names."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from agent_server.server.testing import FakeMessagesAPI, serve_app
from tests.integration.server_harness import Harness, Project, make_project, running_server

pytestmark = pytest.mark.anyio

ALLOW = "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'allow'}}))"


def results(messages: list[dict[str, Any]]) -> list[str]:
    """Every tool_result's content, in order."""
    return [
        b["content"]
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def with_rules(project: Project, **rules: list[Any]) -> Project:
    project.extra["permissions"] = rules
    project.write()
    return project


async def turn_end(h: Harness, sid: str) -> dict[str, Any]:
    """The session's turn_ended event (waits for it, bounded)."""
    return await h.wait_event(sid, lambda e: e["type"] == "turn_ended")


async def rule_events(h: Harness, sid: str) -> list[dict[str, Any]]:
    return [
        {k: e[k] for k in ("tool_name", "behavior", "rule", "source", "location")}
        for e in await h.events(sid)
        if e["type"] == "permission"
    ]


async def test_a_bare_deny_removes_the_tool_for_the_model_and_its_subagents(tmp_path: Path) -> None:
    project = with_rules(make_project(tmp_path), deny=["Bash"])
    project.hook("PreToolUse")
    api = FakeMessagesAPI()
    async with (
        serve_app(api.app) as api_url,
        running_server(
            project,
            backend="anthropic",
            anthropic_base_url=api_url,
            anthropic_api_key="test-key-123",
            permission_mode="bypassPermissions",
        ) as h,
    ):
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo hi\ntask: $ echo from-sub")
        assert turn["status"] == "completed"
        removed = (
            "<tool_use_error>Error: No such tool available: Bash. Bash is disabled for this session, "
            "in subagents as well as here.</tool_use_error>"
        )
        assert results(await h.messages(sid))[0] == removed
        events = await h.events(sid)
        sub_results = [e["content"] for e in events if e["type"] == "tool_result" and e["agent_id"]]
        assert sub_results == [removed]
        assert (
            await rule_events(h, sid)
            == [
                {
                    "tool_name": "Bash",
                    "behavior": "deny",
                    "rule": "Bash",
                    "source": ".claude/settings.json",
                    "location": "permissions.deny[0]",
                }
            ]
            * 2
        )
    # The model is never offered the tool, nor is the subagent; no PreToolUse for it.
    assert all("Bash" not in {t["name"] for t in r["tools"]} for r in api.requests)
    assert {t["name"] for t in api.requests[0]["tools"]} == {"Read", "Write", "Edit", "Glob", "Grep", "Task"}
    assert [p["tool_name"] for p in project.payloads("PreToolUse")] == ["Agent"]


async def test_a_pattern_deny_applies_after_pre_tool_use_even_in_bypass_mode(tmp_path: Path) -> None:
    project = with_rules(make_project(tmp_path), deny=["Bash(touch *)", "Bash(oops"])
    project.hook("PreToolUse", ALLOW)  # a hook's allow does not skip a deny rule
    project.hook("PostToolUse")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ touch made\n$ echo fine"))["status"] == "completed"
        assert results(await h.messages(sid)) == [
            "Permission to use Bash with command touch made has been denied.",
            "fine",
        ]
        assert not (project.root / "made").exists()
        # PreToolUse saw both calls; PostToolUse only the one that ran.
        assert [p["tool_input"]["command"] for p in project.payloads("PreToolUse")] == ["touch made", "echo fine"]
        assert [p["tool_input"]["command"] for p in project.payloads("PostToolUse")] == ["echo fine"]
        fired = await h.hooks_fired(sid)
        assert fired.index("PreToolUse") < fired.index("PostToolUse")
        denied = [e for e in await h.events(sid) if e["type"] == "tool_result" and e["is_error"]]
        assert denied[0]["blocked"] is True
        assert await rule_events(h, sid) == [
            {
                "tool_name": "Bash",
                "behavior": "deny",
                "rule": "Bash(touch *)",
                "source": ".claude/settings.json",
                "location": "permissions.deny[0]",
            }
        ]


async def test_an_ask_rule_beats_bypass_mode_and_a_hooks_allow(tmp_path: Path) -> None:
    project = with_rules(make_project(tmp_path), ask=["Bash(echo *)"])
    project.hook("PreToolUse", ALLOW)
    project.hook("PermissionRequest")
    async with running_server(project, permission_mode="bypassPermissions", approval_timeout=0.5) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo asked\n$ pwd"))["status"] == "awaiting_approval"
        assert (await turn_end(h, sid))["status"] == "completed"  # nobody answers
        assert results(await h.messages(sid)) == [
            "Claude requested permissions to use Bash, but you haven't granted it yet.",
            f"{project.root}",
        ]
        # PreToolUse, then PermissionRequest for the asked call only; the user was asked.
        assert [p["tool_input"]["command"] for p in project.payloads("PermissionRequest")] == ["echo asked"]
        fired = await h.hooks_fired(sid)
        assert fired.index("PreToolUse") < fired.index("PermissionRequest")
        events = await h.events(sid)
        assert [e["tool_name"] for e in events if e["type"] == "approval_required"] == ["Bash"]
        assert [(r["behavior"], r["rule"]) for r in await rule_events(h, sid)] == [("ask", "Bash(echo *)")]


async def test_an_ask_rule_answered_yes_runs_the_tool(tmp_path: Path) -> None:
    project = with_rules(make_project(tmp_path), ask=["Bash(echo *)"])
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo approved")
        assert turn["status"] == "awaiting_approval"
        r = await h.client.post(
            f"/sessions/{sid}/approvals/{turn['approval']['approval_id']}", json={"decision": "allow"}
        )
        assert r.status_code == 200, r.text
        await turn_end(h, sid)
        assert results(await h.messages(sid)) == ["approved"]


async def test_path_deny_refuses_before_pre_tool_use(tmp_path: Path) -> None:
    project = with_rules(make_project(tmp_path), deny=["Read(./.env)", "Edit(/secrets/**)"])
    project.hook("PreToolUse")
    (project.root / ".env").write_text("TOKEN=1\n")
    (project.root / "ok.txt").write_text("fine\n")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        script = "read .env\nread ok.txt\nwrite secrets/key.txt\nsecret\nEOF\nread sub/../.env"
        assert (await h.send(sid, script))["status"] == "completed"
        denied = "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"
        assert results(await h.messages(sid)) == [denied, "     1\tfine", denied, denied]
        assert not (project.root / "secrets").exists()
        assert [p["tool_name"] for p in project.payloads("PreToolUse")] == ["Read"]  # ok.txt only
        assert [r["rule"] for r in await rule_events(h, sid)] == ["Read(./.env)", "Edit(/secrets/**)", "Read(./.env)"]


async def test_allow_rules_skip_the_question_but_not_for_a_compound_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    managed = tmp_path / "managed.json"
    managed.write_text(json.dumps({"permissions": {"allow": ["Bash(echo *)"]}}))
    monkeypatch.setenv("AGENT_SERVER_MANAGED_SETTINGS", str(managed))
    project = make_project(tmp_path)
    project.hook("PermissionRequest")
    async with running_server(project, approval_timeout=0.5) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo allowed\n$ echo x && touch y"))["status"] == "awaiting_approval"
        assert (await turn_end(h, sid))["status"] == "completed"  # nobody answers
        assert results(await h.messages(sid)) == [
            "allowed",
            "Permission to use Bash was not granted: no answer within 0.5s",
        ]
        assert [p["tool_input"]["command"] for p in project.payloads("PermissionRequest")] == ["echo x && touch y"]
        rules = await rule_events(h, sid)
        assert rules == [
            {
                "tool_name": "Bash",
                "behavior": "allow",
                "rule": "Bash(echo *)",
                "source": str(managed),
                "location": "permissions.allow[0]",
            }
        ]


async def test_a_projects_own_allow_rules_wait_for_trust(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_SERVER_TRUST_ALL_HOOKS")  # (this test is about trust)
    project = with_rules(make_project(tmp_path), allow=["Bash(echo *)"])
    caplog.set_level(logging.WARNING, logger="agent_server.server")
    async with running_server(project) as h:
        listed = (await h.client.get("/hooks")).json()["permissions"]
        assert listed["allow"] == []
        assert [(r["rule"], r["why"]) for r in listed["ignored"]] == [
            ("Bash(echo *)", "this workspace has not been trusted: run 'agent-server hooks trust'")
        ]
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ echo not-yet")
        assert turn["status"] == "awaiting_approval"  # the allow rule is not applied
        r = await h.client.post(
            f"/sessions/{sid}/approvals/{turn['approval']['approval_id']}", json={"decision": "allow"}
        )
        assert r.status_code == 200, r.text
        await turn_end(h, sid)
        assert await rule_events(h, sid) == []

        # Trusting the project's permissions.allow list applies it from the next call.
        listing = (await h.client.get("/hooks/trust")).json()
        assert [i["command"] for i in listing["items"] if not i["trusted"]] == ["Bash(echo *)"]
        assert (await h.client.post("/hooks/trust", json={"all": True})).status_code == 200
        assert [r["rule"] for r in (await h.client.get("/hooks")).json()["permissions"]["allow"]] == ["Bash(echo *)"]
        assert (await h.send(sid, "$ echo trusted-now"))["status"] == "completed"
        assert [(r["behavior"], r["rule"]) for r in await rule_events(h, sid)] == [("allow", "Bash(echo *)")]
    assert (
        "Ignoring 1 permissions.allow entry from .claude/settings.json: this workspace has not been trusted. "
        "Run 'agent-server hooks trust' to review and trust them."
    ) in caplog.text


async def test_a_hooks_rewrite_cannot_slip_past_a_deny_rule(tmp_path: Path) -> None:
    project = with_rules(make_project(tmp_path), deny=["Bash(touch *)", "Read(./.env)"])
    project.hook(
        "PreToolUse",
        """
if payload["tool_input"].get("command") == "echo one":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "updatedInput": {"command": "touch one"}}}))
if payload["tool_name"] == "Read":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "updatedInput": {"file_path": ".env"}}}))""",
    )
    project.hook(
        "PermissionRequest",
        """
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
    "decision": {"behavior": "allow", "updatedInput": {"command": "touch two"}}}}))""",
    )
    (project.root / ".env").write_text("TOKEN=1\n")
    (project.root / "ok.txt").write_text("fine\n")
    async with running_server(project) as h:  # default mode: Bash asks, the hook answers
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo one\n$ echo two\nread ok.txt"))["status"] == "completed"
        assert results(await h.messages(sid)) == [
            "Permission to use Bash with command touch one has been denied.",
            "Permission to use Bash with command touch two has been denied.",
            "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>",
        ]
        assert not (project.root / "one").exists() and not (project.root / "two").exists()
        assert [p["tool_input"]["command"] for p in project.payloads("PermissionRequest")] == ["echo two"]
