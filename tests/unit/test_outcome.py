"""Per-hook exit-code and JSON rules (contract §3-4) and the combining rule (design.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_server.hooks import EventOutcome, HookResult, HookStatus
from agent_server.hooks._outcome import interpret_output
from agent_server.hooks._spec import HookSpec


def spec(event: str = "PreToolUse", command: str = "hook.sh", fail_closed: bool = False) -> HookSpec:
    return HookSpec(
        event=event,
        kind="command",
        command=command,
        dialect="claude",
        source=".claude/settings.json",
        location="x",
        fail_closed=fail_closed,
    )


def run(event: str, code: int | None, stdout: Any = "", stderr: str = "", **kw: Any) -> HookResult:
    out = stdout if isinstance(stdout, str) else json.dumps(stdout)
    return interpret_output(spec(event, **kw), {}, code, out, stderr)


def pre(**specific: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}


def test_exit_2_blocks_with_stderr_and_ignores_json() -> None:
    r = run("PreToolUse", 2, pre(permissionDecision="allow"), "nope\n")
    assert r.status is HookStatus.BLOCKED and r.decision == "deny"
    assert r.reason == "[hook.sh]: nope"
    assert run("PreToolUse", 2).reason == "[hook.sh]: No stderr output"
    assert run("Stop", 2, "", "keep going").decision == "block"
    assert run("UserPromptSubmit", 2, "", "no").status is HookStatus.BLOCKED


@pytest.mark.parametrize("event", ["SessionStart", "SessionEnd", "SubagentStart", "PostCompact"])
def test_exit_2_does_not_block_non_blocking_events(event: str) -> None:
    r = run(event, 2, "", "err")
    assert r.status is HookStatus.ERROR and r.decision is None and "err" in (r.error or "")


def test_plain_stdout_is_context_only_where_claude_uses_it() -> None:
    assert run("SessionStart", 0, "hello\n").additional_context == "hello"
    assert run("UserPromptSubmit", 0, "ctx").additional_context == "ctx"
    assert run("PreCompact", 0, "keep x").additional_context == "keep x"
    assert run("PreToolUse", 0, "ignored").additional_context is None
    assert run("SessionStart", 1, "fails").additional_context is None


def test_other_exit_codes_fail_open_but_json_is_honoured() -> None:
    r = run("PreToolUse", 1, "", "boom")
    assert r.status is HookStatus.ERROR and r.decision is None and "boom" in (r.error or "")
    r = run("PreToolUse", 1, pre(permissionDecision="deny", permissionDecisionReason="no"))
    assert r.status is HookStatus.BLOCKED and r.decision == "deny" and r.reason == "no"


def test_fail_closed_turns_failure_into_block() -> None:
    r = run("PreToolUse", 1, "", "crash", fail_closed=True)
    assert r.status is HookStatus.ERROR and r.decision == "deny"
    assert (r.reason or "").startswith(f"[{r.command}]: failed; blocking because ") and "crash" in (r.reason or "")
    assert run("Stop", 3, "", "", fail_closed=True).decision == "block"
    assert run("SessionStart", 1, fail_closed=True).decision is None  # nothing to block


def test_json_only_when_whole_stdout_is_one_object() -> None:
    assert run("PreToolUse", 0, "text " + json.dumps(pre(permissionDecision="deny"))).decision is None
    assert run("PreToolUse", 0, "{not json").decision is None
    r = run("PreToolUse", 0, "  " + json.dumps(pre(permissionDecision="deny")) + "\n")
    assert r.decision == "deny" and r.json is not None


@pytest.mark.parametrize(
    "output",
    [
        pre(permissionDecision="maybe"),
        {"hookSpecificOutput": {"permissionDecision": "deny"}},
        {"hookSpecificOutput": {"hookEventName": "PostToolUse"}},
        {"continue": "no"},
        {"decision": "approve"} | {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": [1]}},
        {"hookSpecificOutput": "x"},
    ],
)
def test_invalid_json_output_is_an_error_and_ignored(output: dict[str, Any]) -> None:
    r = run("PreToolUse", 0, output)
    assert r.status is HookStatus.ERROR and r.decision is None
    assert (r.error or "").startswith("invalid hook output")


def test_pretooluse_fields() -> None:
    r = run(
        "PreToolUse",
        0,
        pre(
            permissionDecision="ask",
            permissionDecisionReason="sure?",
            updatedInput={"command": "ls -la"},
            additionalContext="note",
        ),
    )
    assert (r.decision, r.reason, r.updated_input, r.additional_context) == (
        "ask",
        "sure?",
        {"command": "ls -la"},
        "note",
    )
    assert run("PreToolUse", 0, {"decision": "block", "reason": "legacy"}).decision == "deny"
    assert run("PreToolUse", 0, {"decision": "approve"}).decision == "allow"
    assert run("PreToolUse", 0, pre(permissionDecision="defer")).status is HookStatus.BLOCKED


def test_permission_request_decision() -> None:
    out = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "m", "interrupt": True},
        }
    }
    r = run("PermissionRequest", 0, out)
    assert (r.decision, r.reason, r.interrupt) == ("deny", "m", True)
    out["hookSpecificOutput"]["decision"] = {"behavior": "allow", "updatedInput": {"a": 1}}
    r = run("PermissionRequest", 0, out)
    assert r.decision == "allow" and r.updated_input == {"a": 1}


def test_continue_false_and_messages() -> None:
    r = run("PreToolUse", 0, {"continue": False, "stopReason": "halt", "systemMessage": "hi"})
    assert not r.continue_ and r.stop_reason == "halt" and r.system_message == "hi"
    assert r.decision is None  # PreToolUse: the tool still runs, then the loop stops
    r = run("UserPromptSubmit", 0, {"continue": False, "stopReason": "halt"})
    assert r.decision == "block" and r.reason == "halt"
    assert run("Stop", 0, {"decision": "block", "reason": "more"}).reason == "more"
    assert run("Stop", 0, {"decision": "approve"}).status is HookStatus.ERROR


def result(name: str, status: HookStatus = HookStatus.OK, **kw: Any) -> HookResult:
    return HookResult(name=name, command=name, source="s", event="PreToolUse", status=status, **kw)


def test_combine_registration_order_and_precedence() -> None:
    outcome = EventOutcome.combine(
        "PreToolUse",
        [
            result("a", decision="allow", additional_context="c1", updated_input={"v": 1}),
            result("b", decision="ask", reason="ask-b"),
            result("c", HookStatus.BLOCKED, decision="deny", reason="deny-c", additional_context="c3"),
            result(
                "d", HookStatus.BLOCKED, decision="deny", reason="deny-d", updated_input={"v": 4}, system_message="s4"
            ),
        ],
    )
    assert outcome.blocked and outcome.decision == "deny"
    assert outcome.reason == "deny-c"  # first blocking hook in registration order
    assert outcome.updated_input == {"v": 4}  # last in registration order
    assert outcome.additional_context == ["c1", "c3"]
    assert outcome.system_messages == ["s4"]
    data = outcome.to_dict()
    assert list(data) == [
        "event",
        "blocked",
        "decision",
        "reason",
        "additional_context",
        "updated_input",
        "continue",
        "stop_reason",
        "system_messages",
        "hooks",
    ]
    assert [h["name"] for h in data["hooks"]] == ["a", "b", "c", "d"]


def test_combine_ask_beats_allow_and_timeouts_are_discarded() -> None:
    outcome = EventOutcome.combine(
        "PreToolUse",
        [
            result("a", decision="allow"),
            result("b", decision="ask", reason="r"),
            result("t", HookStatus.TIMEOUT, additional_context="late", updated_input={"x": 1}),
        ],
    )
    assert not outcome.blocked and outcome.decision == "ask" and outcome.reason == "r"
    assert outcome.additional_context == [] and outcome.updated_input is None


def test_combine_non_permission_events_only_block() -> None:
    outcome = EventOutcome.combine("Stop", [result("a"), result("b", decision="block", reason="go on")])
    assert outcome.blocked and outcome.decision == "block" and outcome.reason == "go on"
    assert EventOutcome.combine("Stop", []).to_dict()["decision"] is None


def test_combine_continue_false_first_reason() -> None:
    outcome = EventOutcome.combine(
        "PreToolUse", [result("a", continue_=False, stop_reason="one"), result("b", continue_=False, stop_reason="two")]
    )
    assert not outcome.continue_ and outcome.stop_reason == "one" and not outcome.blocked


def test_permission_request_exit_2_is_an_error_not_a_deny() -> None:
    # Contract §9: the normal permission flow goes on.
    r = run("PermissionRequest", 2, "", "no")
    assert r.status is HookStatus.ERROR and r.decision is None and "no" in (r.error or "")
    assert not EventOutcome.combine("PermissionRequest", [r]).blocked


def test_fail_closed_reason_is_claude_codes_text() -> None:
    r = run("PreToolUse", 1, "", "boom\n", fail_closed=True)
    assert r.reason == '[hook.sh]: failed; blocking because onFailure is "block"\nboom'
