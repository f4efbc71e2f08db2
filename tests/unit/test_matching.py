"""Matcher semantics (contract §5) and Tool(arg-glob) patterns (design.md)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agent_server.hooks import matcher_matches, tool_pattern_matches
from agent_server.hooks._matching import check_matcher, match_value, pattern_argument, why_not
from agent_server.hooks._spec import HookSpec
from tests.support import load_payload

ROOT = Path(__file__).resolve().parents[2]


def _dispatch() -> ModuleType:
    """The ready-made hooks' dispatcher, loaded by file path as the launcher loads it."""
    name = "ready_hooks_matching_dispatch"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "hooks" / "dispatch.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


# The same table runs against the engine and against hooks/dispatch.py.
IMPLEMENTATIONS: dict[str, Callable[[str | None, str | None], bool]] = {
    "engine": matcher_matches,
    "dispatch": _dispatch().matcher_matches,
}


@pytest.mark.parametrize(
    ("matcher", "value", "expected"),
    [
        (None, "Bash", True),
        ("", "Bash", True),
        ("*", "Bash", True),
        ("Bash", "Bash", True),
        ("bash", "Bash", False),  # case-sensitive
        ("Bas", "Bash", False),  # a name list is exact, not a prefix
        ("Bash|Write", "Write", True),
        ("Write,Bash", "Bash", True),
        ("Write, Edit", "Bash", False),
        ("B.s", "Bash", True),  # regex, searched unanchored
        ("^Bash$", "Bash", True),
        ("^Bash$", "Bash2", False),
        ("Edit.*", "MultiEdit", True),
        ("mcp__.*", "mcp__fs__read", True),
        ("Task", "Agent", True),  # the subagent tool answers to both names
        ("Agent", "Agent", True),
        ("Task", "Task", True),
        ("Agent", "Task", True),
        ("Agent|Bash", "Task", True),
        ("^Task$", "Agent", True),  # a regex tries both names too
        ("mcp__my-server__tool", "mcp__my-server__tool", True),
        ("mcp__my-server__tool", "mcp__my-server__tool2", False),  # "-" is a name character
        ("mcp__my-server__.*", "mcp__my-server__tool2", True),
        ("Bash", None, False),
        ("[unclosed", "Bash", False),
    ],
)
@pytest.mark.parametrize("implementation", sorted(IMPLEMENTATIONS))
def test_matcher_semantics(implementation: str, matcher: str | None, value: str | None, expected: bool) -> None:
    assert IMPLEMENTATIONS[implementation](matcher, value) is expected


def test_the_hooks_copy_of_the_rules_is_identical() -> None:
    """hooks/ runs without agent_server installed, so it carries its own copy of the rules;
    edit agent_server/hooks/_match_rules.py and copy it to hooks/_match_rules.py."""
    engine = (ROOT / "agent_server" / "hooks" / "_match_rules.py").read_bytes()
    assert (ROOT / "hooks" / "_match_rules.py").read_bytes() == engine
    assert _dispatch().matcher_matches.__module__ == "_match_rules"  # it uses the copy


def _module_spec(event: str, matcher: str) -> HookSpec:
    return HookSpec(
        event=event, kind="command", command="x", dialect="claude", source="s", location="l", matcher=matcher
    )


@pytest.mark.parametrize(
    ("event", "matcher", "payload", "expected"),
    [
        ("PreToolUse", "Agent", {"tool_name": "Task"}, True),
        ("PreToolUse", "Bash", {"tool_name": "Write"}, False),
        ("Notification", "idle_prompt", {"notification_type": "idle_prompt"}, True),
        ("Notification", "idle_prompt", {"notification_type": "permission_prompt"}, False),
        ("SessionStart", "compact", {"source": "startup"}, False),
        ("SubagentStop", "Explore", {"agent_type": "Explore"}, True),
        ("Stop", "Bash", {"stop_hook_active": False}, True),  # no match field: matcher ignored
        ("UserPromptSubmit", "nothing", {"prompt": "hi"}, True),
    ],
)
def test_engine_and_dispatch_pick_the_same_hooks(
    event: str, matcher: str, payload: dict[str, Any], expected: bool
) -> None:
    full = {"hook_event_name": event, **payload}
    assert (why_not(_module_spec(event, matcher), full) is None) is expected
    module = ModuleType("probe")
    module.EVENTS = frozenset({event})  # type: ignore[attr-defined]
    module.MATCHER = matcher  # type: ignore[attr-defined]
    assert _dispatch().applies(module, full) is expected


def test_invalid_regex_is_reported() -> None:
    problem = check_matcher("[unclosed")
    assert problem is not None and "[unclosed" in problem
    assert check_matcher("Bash|Write") is None
    assert check_matcher("^B.*$") is None


@pytest.mark.parametrize(
    ("event", "payload_name", "expected"),
    [
        ("PreToolUse", "PreToolUse__Bash", "Bash"),
        ("PostToolUse", "PostToolUse__Agent", "Agent"),
        ("SessionStart", "SessionStart__compact", "compact"),
        ("SessionEnd", "SessionEnd__clear", "clear"),
        ("PreCompact", "PreCompact", "manual"),
        ("SubagentStart", "SubagentStart", None),
        ("Stop", "Stop", None),
        ("UserPromptSubmit", "UserPromptSubmit", None),
    ],
)
def test_match_field_per_event(event: str, payload_name: str, expected: str | None) -> None:
    payload = load_payload(payload_name)
    value = match_value(event, payload)
    if event == "SubagentStart":
        assert value == payload["agent_type"]
    else:
        assert value == expected


def test_matcher_ignored_on_events_without_match_field() -> None:
    spec = HookSpec(
        event="Stop", kind="command", command="x", dialect="claude", source="s", location="l", matcher="Bash"
    )
    assert why_not(spec, load_payload("Stop")) is None


@pytest.mark.parametrize(
    ("pattern", "tool", "tool_input", "expected"),
    [
        ("Bash(git *)", "Bash", {"command": "git commit -m x"}, True),
        ("Bash(git *)", "Bash", {"command": "gitx"}, False),
        ("Bash(git *)", "Bash", {"command": "echo; git status"}, False),  # anchored
        ("Bash(rm ?f *)", "Bash", {"command": "rm -f a"}, True),
        ("Bash(npm run test:*)", "Bash", {"command": "npm run test -- -x"}, True),
        ("Bash(npm run test:*)", "Bash", {"command": "npm run tests"}, False),  # word boundary
        ("Bash(git *)", "Bash", {"command": "git"}, True),  # a lone trailing " *" is optional
        ("Bash(ls *)", "Bash", {"command": "lsof"}, False),
        ("Bash", "Bash", {"command": "anything"}, True),
        ("Write(*.env)", "Write", {"file_path": "/p/.env", "content": "x"}, True),
        ("Write(*.env)", "Edit", {"file_path": "/p/.env"}, False),
        ("Edit(/etc/*)", "Edit", {"file_path": "/etc/passwd"}, True),
        ("mcp__*", "mcp__fs__read", {"x": 1}, True),
        ("Task(*)", "Agent", {"prompt": "go"}, True),
        ("Glob(*.txt)", "Glob", {"pattern": "src/**/*.py"}, False),
        ("Glob(*.py)", "Glob", {"pattern": "src/**/*.py"}, True),
        ('Other(*"k":1*)', "Other", {"k": 1}, True),  # JSON of the input otherwise
        ("Bash(git *)", None, {"command": "git x"}, False),
    ],
)
def test_tool_patterns(pattern: str, tool: str | None, tool_input: dict[str, object], expected: bool) -> None:
    assert tool_pattern_matches(pattern, tool, tool_input) is expected


def test_pattern_argument_main_inputs() -> None:
    assert pattern_argument("Bash", {"command": "ls"}) == "ls"
    assert pattern_argument("Read", {"file_path": "/a"}) == "/a"
    assert pattern_argument("NotebookEdit", {"notebook_path": "/n.ipynb"}) == "/n.ipynb"
    assert pattern_argument("X", {"a": 1}) == '{"a":1}'


def _spec(**kw: object) -> HookSpec:
    base: dict[str, object] = dict(
        event="PreToolUse", kind="command", command="x", dialect="claude", source="s", location="l"
    )
    base.update(kw)
    return HookSpec(**base)  # type: ignore[arg-type]


def test_if_field_filters_on_tool_input() -> None:
    payload = load_payload("PreToolUse__Bash")
    assert why_not(_spec(if_rule="Bash(touch *)"), payload) is None
    reason = why_not(_spec(if_rule="Bash(git *)"), payload)
    assert reason is not None and "if" in reason


def test_object_matcher() -> None:
    payload = load_payload("PreToolUse__Bash")
    assert why_not(_spec(object_matcher={"tool_name": "Bash"}), payload) is None
    assert why_not(_spec(object_matcher={"tool_name": ["Write", "Bash"]}), payload) is None
    assert why_not(_spec(object_matcher={"tool_name": "Write|Edit"}), payload) is not None
    assert why_not(_spec(object_matcher={"permission_mode": "default"}), payload) is not None


def test_matcher_text_is_what_the_entry_matches_on() -> None:
    assert _spec(matcher="Bash|Write").matcher_text == "Bash|Write"
    assert _spec(tool_pattern="Bash(git *)").matcher_text == "Bash(git *)"
    assert _spec(object_matcher={"tool_name": "Edit"}).matcher_text == '{"tool_name": "Edit"}'
    assert _spec().matcher_text is None
