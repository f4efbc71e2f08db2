"""``agent-server hooks …`` as a user runs it: a real process, real exit codes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support import FIXTURES, run_cli


def cli(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**os.environ, "HOME": str(cwd or Path.cwd())}, stdin=stdin, cwd=cwd)


def project(tmp_path: Path, settings: Any) -> Path:
    (tmp_path / ".claude").mkdir(exist_ok=True)
    text = settings if isinstance(settings, str) else json.dumps(settings)
    (tmp_path / ".claude" / "settings.json").write_text(text)
    return tmp_path


BLOCKER = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": 'grep -q "rm -rf" && { echo no rm >&2; exit 2; } || exit 0'}],
            }
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "echo dup"}]},
            {"hooks": [{"type": "command", "command": "echo dup"}]},
        ],
    }
}


def test_list_shows_hooks_and_ignored_entries(tmp_path: Path) -> None:
    p = project(tmp_path, BLOCKER)
    res = cli("hooks", "list", "--project-dir", str(p))
    assert res.returncode == 0, res.stderr
    assert "PreToolUse  (sequential)" in res.stdout and "matcher=Bash" in res.stdout
    assert "timeout=600s" in res.stdout and "source=.claude/settings.json" in res.stdout
    assert "ignored:" in res.stdout and "duplicate of" in res.stdout
    data = json.loads(cli("hooks", "list", "--project-dir", str(p), "--json").stdout)
    assert data["events"]["PreToolUse"]["hooks"][0]["timeout_s"] == 600


def test_validate_exit_codes(tmp_path: Path) -> None:
    p = project(tmp_path, BLOCKER)
    ok = cli("hooks", "validate", "--project-dir", str(p))
    assert ok.returncode == 0 and ok.stdout.startswith("OK: 2 hooks")
    project(tmp_path, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "x"}]}]}})
    bad = cli("hooks", "validate", "--project-dir", str(p))
    assert bad.returncode == 1
    assert "error: .claude/settings.json: hooks.Stop[0].hooks[0].timeout:" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr


def test_validate_warns_about_a_timeout_in_the_wrong_unit(tmp_path: Path) -> None:
    """5000 in a Claude Code entry is 83 minutes (Claude Code counts seconds), 5 in an Orion
    entry is 5 ms (Orion counts milliseconds): both load, with a warning naming the unit."""
    p = project(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a", "timeout": 5000}]}],
                "Stop": [{"command": "b", "timeout": 5}],
                "PostToolUse": [{"hooks": [{"type": "command", "command": "c", "timeout": 600}]}],
            }
        },
    )
    res = cli("hooks", "validate", "--project-dir", str(p))
    assert res.returncode == 0 and "OK: 3 hooks" in res.stdout and "2 warnings" in res.stdout, res.stdout
    lines = res.stdout.splitlines()
    [claude] = [line for line in lines if "hooks.PreToolUse[0].hooks[0].timeout" in line]
    assert claude.startswith("warning:") and "in seconds (83 minutes)" in claude
    assert "if you meant milliseconds, write 5;" in claude and "Orion and Harness hooks count milliseconds" in claude
    [orion] = [line for line in lines if "hooks.Stop[0].timeout" in line]
    assert "in milliseconds (0.005 s) in Orion hooks" in orion and "did you mean seconds? then write 5000" in orion
    assert "PostToolUse" not in res.stdout  # 600 s, Claude Code's own default, is fine


def test_fire_from_stdin_and_file(tmp_path: Path) -> None:
    p = project(tmp_path, BLOCKER)
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "rm -rf x"}})
    res = cli("hooks", "fire", "PreToolUse", "--project-dir", str(p), "--json", stdin=payload)
    assert res.returncode == 2, res.stderr
    out = json.loads(res.stdout)
    assert out["blocked"] and out["decision"] == "deny" and out["reason"].endswith("no rm")
    recorded = FIXTURES / "payloads" / "PreToolUse__Bash.json"
    res = cli("hooks", "fire", "PreToolUse", "--project-dir", str(p), "--payload", str(recorded))
    assert res.returncode == 0 and "PreToolUse: allowed" in res.stdout


def test_fire_fills_in_missing_fields(tmp_path: Path) -> None:
    p = project(tmp_path, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cat >&2; exit 2"}]}]}})
    res = cli("hooks", "fire", "Stop", "--project-dir", str(p), "--json", stdin="{}")
    seen = json.loads(json.loads(res.stdout)["hooks"][0]["stderr"])
    assert seen["hook_event_name"] == "Stop" and seen["session_id"] and "transcript_path" in seen
    assert seen["cwd"] == str(p.resolve())


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["--payload", "/nonexistent.json"], "", "--payload /nonexistent.json"),
        ([], "{oops", "invalid JSON at line 1"),
        ([], "[1, 2]", "must be a JSON object"),
        (["--project-dir", "/nonexistent-dir"], "{}", "not a directory"),
    ],
)
def test_fire_usage_errors(tmp_path: Path, args: list[str], stdin: str, message: str) -> None:
    p = project(tmp_path, BLOCKER)
    full = ["hooks", "fire", "Stop", "--project-dir", str(p), *args]
    res = cli(*full, stdin=stdin)
    assert res.returncode == 1 and message in res.stderr and "Traceback" not in res.stderr


def test_fire_refuses_a_broken_config(tmp_path: Path) -> None:
    p = project(tmp_path, "{ nope")
    res = cli("hooks", "fire", "Stop", "--project-dir", str(p), stdin="{}")
    assert res.returncode == 1 and ".claude/settings.json" in res.stderr and "invalid JSON" in res.stderr


@pytest.mark.parametrize(
    ("pattern", "tool", "arg", "expected"),
    [
        ("Bash(git *)", "Bash", "git commit -m x", "match"),
        ("Bash(git *)", "Bash", "rm -rf /", "no match"),
        ("Write(*.env)", "Write", "/p/.env", "match"),
    ],
)
def test_test_pattern(pattern: str, tool: str, arg: str, expected: str) -> None:
    res = cli("hooks", "test-pattern", pattern, tool, arg)
    assert res.returncode == 0 and res.stdout.strip() == expected


def test_test_pattern_rejects_garbage() -> None:
    res = cli("hooks", "test-pattern", "Bash(unclosed", "Bash", "x")
    assert res.returncode == 1 and "not of the form" in res.stderr


def test_fire_records_in_the_ledger_only_when_asked(tmp_path: Path) -> None:
    p = project(tmp_path, BLOCKER)
    payload = json.dumps({"session_id": "cli-1", "tool_name": "Bash", "tool_input": {"command": "rm -rf x"}})
    db = p / ".agent-server" / "hooks.db"
    assert cli("hooks", "fire", "PreToolUse", "--project-dir", str(p), stdin=payload).returncode == 2
    assert not db.exists()  # a dry test run leaves no ledger behind
    assert cli("hooks", "fire", "PreToolUse", "--project-dir", str(p), "--ledger", stdin=payload).returncode == 2
    [event] = json.loads(cli("hooks", "log", "--project-dir", str(p), "--json").stdout)
    assert (event["event"], event["session_id"], event["blocked"]) == ("PreToolUse", "cli-1", 1)
    other = tmp_path / "elsewhere.db"
    assert cli("hooks", "fire", "Stop", "--project-dir", str(p), "--ledger", str(other), stdin="{}").returncode == 0
    [event] = json.loads(cli("hooks", "log", "--db", str(other), "--json").stdout)
    assert event["event"] == "Stop" and event["hook_count"] == 1


def test_fire_with_an_unwritable_ledger_still_fires_and_says_why(tmp_path: Path) -> None:
    p = project(tmp_path, BLOCKER)
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = cli("hooks", "fire", "Stop", "--project-dir", str(p), "--ledger", str(blocker / "hooks.db"), stdin="{}")
    assert res.returncode == 0 and "Stop: allowed" in res.stdout
    assert str(blocker / "hooks.db") in res.stderr and "Traceback" not in res.stderr
