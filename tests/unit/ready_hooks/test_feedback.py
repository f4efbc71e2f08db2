"""feedback/*: tool_logger, session_context, prompt_context, completion_check,
preserve_context."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest


def test_tool_logger_appends_jsonl(kit: Any, project: Path) -> None:
    logger = kit.load("feedback/tool_logger.py")
    payload = kit.fixture_payload("PostToolUse__Bash", project)
    token = kit.load("eval/evaluate.py").fake_token("github", "log")
    payload["tool_input"]["command"] = f"echo {token} " + "x" * 5000
    assert logger.run(payload) is None
    assert logger.run(kit.fixture_payload("PreToolUse__Bash", project)) is None
    lines = (project / ".claude" / "logs" / "tools.jsonl").read_text().splitlines()
    first, second = (json.loads(line) for line in lines)
    assert first["event"] == "PostToolUse" and first["tool_name"] == "Bash"
    assert first["duration_ms"] == 88 and first["response_chars"] > 0
    assert token not in first["input"]["command"] and "[REDACTED]" in first["input"]["command"]
    assert len(first["input"]["command"]) < 2100
    assert second["event"] == "PreToolUse"


def test_tool_logger_never_raises(kit: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logger = kit.load("feedback/tool_logger.py")
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(blocker))  # a file: mkdir under it fails
    assert logger.run({"hook_event_name": "PreToolUse", "tool_name": "Bash"}) is None


def test_session_context_in_a_repo(kit: Any, repo: Path) -> None:
    hook = kit.load("feedback/session_context.py")
    (repo / "new.txt").write_text("x")
    result = hook.run(kit.fixture_payload("SessionStart__startup", repo))
    spec = result["hookSpecificOutput"]
    assert spec["hookEventName"] == "SessionStart"
    text = spec["additionalContext"]
    assert "Git branch: main" in text and "new.txt" in text and "Initial commit" in text
    assert "Open TODO/FIXME markers: 1" in text and "app.py:1" in text


def test_session_context_without_git_and_for_subagents(kit: Any, project: Path) -> None:
    hook = kit.load("feedback/session_context.py")
    (project / "a.py").write_text("x = 1  # FIXME later\n")
    text = hook.run(kit.fixture_payload("SessionStart__startup", project))["hookSpecificOutput"]["additionalContext"]
    assert "Not a git repository" in text and "a.py:1" in text
    sub = hook.run(kit.fixture_payload("SubagentStart", project))["hookSpecificOutput"]
    assert sub["hookEventName"] == "SubagentStart" and "TODO" not in sub["additionalContext"]


def test_compaction_round_trip(kit: Any, repo: Path) -> None:
    preserve = kit.load("feedback/preserve_context.py")
    session = kit.load("feedback/session_context.py")
    transcript = repo / "t.jsonl"
    entries = [
        {"type": "user", "message": {"role": "user", "content": "first request"}},
        {"type": "assistant", "message": {"role": "assistant", "content": "ok"}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": "tool output"}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "please add tests"}]}},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "meta"}},
    ]
    transcript.write_text("\n".join(json.dumps(e) for e in entries) + "\n{broken\n")
    payload = kit.fixture_payload("PreCompact", repo, transcript)
    payload["custom_instructions"] = "keep the API design"
    assert preserve.run(payload) is None
    saved = (repo / ".claude" / "compact-context.md").read_text()
    assert "Branch: main" in saved and "1. first request" in saved
    assert "2. please add tests" in saved and "tool output" not in saved and "meta" not in saved
    assert "keep the API design" in saved
    text = session.run(kit.fixture_payload("SessionStart__compact", repo))["hookSpecificOutput"]["additionalContext"]
    assert "Context saved before compaction" in text and "please add tests" in text


def test_preserve_context_without_transcript(kit: Any, project: Path) -> None:
    preserve = kit.load("feedback/preserve_context.py")
    assert preserve.run(kit.fixture_payload("PreCompact", project)) is None
    assert "- none" in (project / ".claude" / "compact-context.md").read_text()


def test_prompt_context_lists_mentioned_files_inside_only(kit: Any, repo: Path, tmp_path: Path) -> None:
    hook = kit.load("feedback/prompt_context.py")
    (tmp_path / "secret.txt").write_text("x")
    payload = kit.fixture_payload("UserPromptSubmit", repo)
    payload["prompt"] = (
        f"Fix `app.py` and README.md, not missing.py nor {tmp_path}/secret.txt "
        "or ../secret.txt; see https://example.com/a.html"
    )
    text = hook.run(payload)["hookSpecificOutput"]["additionalContext"]
    assert "Current time:" in text and "Git branch: main" in text
    assert "- app.py (" in text and "2 lines" in text and "- README.md (" in text
    assert "missing.py" not in text and "secret" not in text and "a.html" not in text


def test_completion_check(kit: Any, repo: Path) -> None:
    hook = kit.load("feedback/completion_check.py")
    payload = kit.fixture_payload("Stop", repo)
    assert hook.run(payload) is None
    payload["last_assistant_message"] = "Implemented the parser; error handling is still TODO."
    message = hook.run(payload)["systemMessage"]
    assert "unfinished work" in message and "TODO" in message
    (repo / "app.py").write_text("changed\n")
    payload["last_assistant_message"] = "All done."
    result = hook.run(payload)
    assert "1 uncommitted change(s)" in result["systemMessage"] and "decision" not in result


def test_completion_check_outside_git(kit: Any, project: Path) -> None:
    hook = kit.load("feedback/completion_check.py")
    assert hook.run(kit.fixture_payload("SubagentStop", project)) is None


def test_feedback_hooks_survive_missing_git(kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", os.devnull)
    hook = kit.load("feedback/session_context.py")
    text = hook.run(kit.fixture_payload("SessionStart__startup", project))["hookSpecificOutput"]["additionalContext"]
    assert "Not a git repository" in text
