"""``agent-server hooks list | explain | validate`` show the permission rules that apply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_cli import cli, project

SETTINGS = {
    "permissions": {
        "deny": ["Bash(touch *)", "Read(./.env)", "Bash(oops"],
        "ask": ["Bash(git push *)"],
        "allow": ["Bash(echo *)"],
    }
}


def test_list_shows_the_rules_in_effect_and_the_ignored_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_SERVER_TRUST_ALL_HOOKS")  # (the project's allow list waits for trust)
    root = project(tmp_path, SETTINGS)
    r = cli("hooks", "list", "--project-dir", str(root), "--no-user-settings", cwd=root)
    assert r.returncode == 0, r.stderr
    assert "  deny   Bash(touch *)  (.claude/settings.json permissions.deny[0])" in r.stdout
    assert "  ask    Bash(git push *)  (.claude/settings.json permissions.ask[0])" in r.stdout
    assert (
        "  allow  Bash(echo *)  (.claude/settings.json permissions.allow[0]): ignored, "
        "this workspace has not been trusted: run 'agent-server hooks trust'"
    ) in r.stdout
    data = json.loads(cli("hooks", "list", "--json", "--no-user-settings", cwd=root).stdout)
    assert [x["rule"] for x in data["permissions"]["deny"]] == ["Bash(touch *)", "Read(./.env)"]
    assert [x["rule"] for x in data["permissions"]["ignored"]] == ["Bash(echo *)"]
    # Once trusted (the user's trust store), the list is in effect.
    assert cli("hooks", "trust", "--all", "--project-dir", str(root), cwd=root).returncode == 0
    data = json.loads(cli("hooks", "list", "--json", "--no-user-settings", cwd=root).stdout)
    assert [x["rule"] for x in data["permissions"]["allow"]] == ["Bash(echo *)"]
    assert data["permissions"]["ignored"] == []


def test_validate_fails_on_a_malformed_rule_naming_file_and_path(tmp_path: Path) -> None:
    root = project(tmp_path, SETTINGS)
    r = cli("hooks", "validate", "--no-user-settings", cwd=root)
    assert r.returncode == 1
    assert (
        "error: .claude/settings.json: permissions.deny[2]: unbalanced parentheses in 'Bash(oops': '(' is never closed"
    ) in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_explain_shows_the_rules_that_apply_to_the_payload(tmp_path: Path) -> None:
    root = project(tmp_path, SETTINGS)
    payload = tmp_path / "p.json"
    payload.write_text(json.dumps({"tool_name": "Bash", "tool_input": {"command": "echo a && touch b"}}))
    args = ("hooks", "explain", "PreToolUse", "--payload", str(payload), "--no-user-settings")
    r = cli(*args, cwd=root)
    assert r.returncode == 0, r.stderr
    assert "  MATCH deny  Bash(touch *)  (.claude/settings.json permissions.deny[0])" in r.stdout
    assert "        ask   Bash(git push *)  (.claude/settings.json permissions.ask[0])" in r.stdout
    assert "  => deny by Bash(touch *) (.claude/settings.json permissions.deny[0])" in r.stdout
    assert "Read(./.env)" not in r.stdout  # a Read rule does not cover Bash
    data = json.loads(cli(*args, "--json", cwd=root).stdout)["permissions"]
    assert data["decision"]["behavior"] == "deny" and data["decision"]["rule"]["rule"] == "Bash(touch *)"
    assert [(x["rule"], x["matches"]) for x in data["rules"]] == [
        ("Bash(touch *)", True),
        ("Bash(git push *)", False),
        ("Bash(echo *)", True),  # (trusted here: AGENT_SERVER_TRUST_ALL_HOOKS=1)
    ]
    payload.write_text(json.dumps({"tool_name": "Read", "tool_input": {"file_path": str(root / ".env")}}))
    r = cli(*args, cwd=root)
    assert "  => deny by Read(./.env) (.claude/settings.json permissions.deny[1])" in r.stdout
