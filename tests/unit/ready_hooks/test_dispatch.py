"""hooks/dispatch.py: category runs, matchers, combining, output budget."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest


@pytest.fixture
def dispatch(kit: Any) -> Any:
    return kit.load("dispatch.py")


@pytest.mark.parametrize(
    "matcher, value, expected",
    [
        ("*", "Bash", True),
        ("", "Read", True),
        (None, None, True),
        ("Bash|Write", "Write", True),
        ("Write,Bash", "Bash", True),
        ("Bas", "Bash", False),
        ("B.s", "Bash", True),
        ("^Bash$", "Bash", True),
        ("Task", "Agent", True),
        ("Bash", None, False),
        ("(", "x", False),
    ],
)
def test_matcher_semantics(dispatch: Any, matcher: Any, value: Any, expected: bool) -> None:
    assert dispatch.matcher_matches(matcher, value) is expected


def test_security_category_combines_denies(
    dispatch: Any, kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOOK_CATEGORY", "security")
    result = dispatch.run(kit.bash("cat .env; rm -rf ~", project))
    text = kit.reason(result)
    assert kit.decision(result) == "deny"
    assert "[dangerous_commands]" in text and "[secrets_guard]" in text
    assert "[workspace_boundary]" in text
    assert kit.decision(dispatch.run(kit.bash("git clean -fd", project))) == "ask"
    assert dispatch.run(kit.bash("ls", project)) is None


def test_default_category_is_security(dispatch: Any, kit: Any, project: Path) -> None:
    assert kit.decision(dispatch.run(kit.bash("rm -rf /", project))) == "deny"


def test_skips_hooks_whose_matcher_does_not_fit(
    dispatch: Any, kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    modules = [
        SimpleNamespace(NAME=n, EVENTS=frozenset({"PreToolUse"}), MATCHER=m, run=lambda p, n=n: calls.append(n))
        for n, m in [("bash_only", "Bash"), ("read_only", "Read"), ("all", "*")]
    ]
    monkeypatch.setattr(dispatch, "load_category", lambda category: modules)
    dispatch.run(kit.bash("ls", project))
    assert calls == ["bash_only", "all"]
    calls.clear()
    dispatch.run({"hook_event_name": "Stop", "cwd": str(project)})
    assert calls == []


def test_gate_and_feedback_categories(dispatch: Any, kit: Any, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOK_CATEGORY", "gate")
    edit = kit.pre_tool("Edit", {"file_path": str(repo / "app.py"), "old_string": "a", "new_string": "b"}, repo)
    assert kit.decision(dispatch.run(edit)) == "deny"
    monkeypatch.setenv("HOOK_CATEGORY", "feedback")
    start = dispatch.run(kit.fixture_payload("SessionStart__startup", repo))
    assert "Git branch: main" in start["hookSpecificOutput"]["additionalContext"]
    monkeypatch.setenv("HOOK_CATEGORY", "security,gate")
    result = dispatch.run(edit)
    assert kit.decision(result) == "deny" and "[plan_required]" in kit.reason(result)


def test_output_budget_truncates_with_a_marker(
    dispatch: Any, kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = [
        SimpleNamespace(
            NAME=f"h{i}",
            EVENTS=frozenset({"SessionStart"}),
            MATCHER="*",
            run=lambda p, i=i: {
                "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": f"ctx{i} " + "x" * 800}
            },
        )
        for i in range(3)
    ]
    monkeypatch.setattr(dispatch, "load_category", lambda category: big)
    monkeypatch.setenv("HOOK_OUTPUT_BUDGET", "1000")
    context = dispatch.run(kit.fixture_payload("SessionStart__startup", project))["hookSpecificOutput"][
        "additionalContext"
    ]
    assert len(context) <= 1000 and context.startswith("ctx0 ")
    assert "truncated" in context and "ctx2" not in context
    monkeypatch.setenv("HOOK_OUTPUT_BUDGET", "100000")
    context = dispatch.run(kit.fixture_payload("SessionStart__startup", project))["hookSpecificOutput"][
        "additionalContext"
    ]
    assert "ctx2" in context and "truncated" not in context


def test_failing_hooks(dispatch: Any, kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(payload: Any) -> Any:
        raise RuntimeError("broken")

    broken = [SimpleNamespace(NAME="broken", EVENTS=frozenset({"PreToolUse", "Stop"}), MATCHER="*", run=boom)]
    monkeypatch.setattr(dispatch, "load_category", lambda category: broken)
    monkeypatch.setenv("HOOK_CATEGORY", "security")
    result = dispatch.run(kit.bash("ls", project))
    assert kit.decision(result) == "deny" and "fail closed" in kit.reason(result)
    monkeypatch.setenv("HOOK_CATEGORY", "feedback")
    result = dispatch.run({"hook_event_name": "Stop", "cwd": str(project)})
    assert "broken" in result["systemMessage"] and "decision" not in result


def test_stop_blocks_are_joined(dispatch: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blockers = [
        SimpleNamespace(
            NAME=n, EVENTS=frozenset({"Stop"}), MATCHER="*", run=lambda p, n=n: {"decision": "block", "reason": n}
        )
        for n in ("one", "two")
    ]
    monkeypatch.setattr(dispatch, "load_category", lambda category: blockers)
    result = dispatch.run({"hook_event_name": "Stop", "cwd": str(project)})
    assert result == {"decision": "block", "reason": "one\n\ntwo"}


def test_unknown_category(dispatch: Any, kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOK_CATEGORY", "nope")
    with pytest.raises(ValueError, match="unknown HOOK_CATEGORY"):
        dispatch.run(kit.bash("ls", project))


@pytest.mark.parametrize(
    "name", sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "fixtures" / "payloads").glob("*.json"))
)
def test_every_recorded_payload_is_handled(
    dispatch: Any, kit: Any, repo: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All categories accept every event Claude Code sends without crashing."""
    (repo / ".skip-tests").touch()
    for category in ("security", "gate", "feedback"):
        monkeypatch.setenv("HOOK_CATEGORY", category)
        result = dispatch.run(kit.fixture_payload(name, repo))
        assert result is None or isinstance(result, dict | str)
        if isinstance(result, dict) and "hookSpecificOutput" in result:
            assert result["hookSpecificOutput"]["hookEventName"] == kit.fixture_payload(name, repo)["hook_event_name"]
