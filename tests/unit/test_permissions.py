"""Permission rules (contract §12): Claude Code's rule syntax, the merge across settings
files (deny > ask > allow), the trust gate on a project's allow rules, bad rules."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent_server.hooks import PermissionRule, PermissionRules, load_config
from agent_server.hooks._config import load_files
from agent_server.hooks._permissions import parse_rule, split_command

PROJECT = Path("/work/proj")


def matches(rule: str, tool: str, tool_input: dict[str, Any], cwd: Path = PROJECT) -> bool:
    return PermissionRule.parse("deny", rule).matches(tool, tool_input, cwd=cwd, project_dir=PROJECT)


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash", "anything at all", True),
        ("Bash(npm run build)", "npm run build", True),
        ("Bash(npm run build)", "npm run build --watch", False),
        ("Bash(npm run *)", "npm run test", True),
        ("Bash(npm run *)", "npm install", False),
        ("Bash(ls *)", "ls -la", True),
        ("Bash(ls *)", "ls", True),  # a lone trailing " *" is optional
        ("Bash(ls *)", "lsof", False),  # ... and keeps the word boundary
        ("Bash(ls*)", "lsof", True),
        ("Bash(npm run test:*)", "npm run test -- -x", True),  # legacy prefix form
        ("Bash(npm run test:*)", "npm run tests", False),
        ("Bash(git * main)", "git merge main", True),
        ("Bash(git * main)", "git merge main2", False),
        ("Bash(touch *)", "echo hi && touch x", True),  # any part of a compound command
        ("Bash(touch *)", "echo 'a && touch x'", False),  # quoted: one command
        ("Bash(rm *)", "ls | rm -rf y", True),
    ],
)
def test_bash_rules(rule: str, command: str, expected: bool) -> None:
    assert matches(rule, "Bash", {"command": command}) is expected


@pytest.mark.parametrize(
    ("rule", "tool", "path", "cwd", "expected"),
    [
        ("Read(./.env)", "Read", "/work/proj/.env", PROJECT, True),
        ("Read(./.env)", "Read", ".env", PROJECT, True),  # relative to the cwd
        ("Read(./.env)", "Read", "/work/proj/sub/.env", PROJECT, False),  # ./ anchors
        ("Read(.env)", "Read", "/work/proj/sub/.env", PROJECT, True),  # no slash: any depth
        ("Read(.env)", "Read", "/elsewhere/.env", PROJECT, False),  # not under the cwd
        ("Read(*.pem)", "Read", "/work/proj/a/b/key.pem", PROJECT, True),
        ("Read(src/*.py)", "Read", "/work/proj/src/a.py", PROJECT, True),
        ("Read(src/*.py)", "Read", "/work/proj/src/x/a.py", PROJECT, False),  # * stays in a folder
        ("Read(src/**)", "Read", "/work/proj/src/x/a.py", PROJECT, True),
        ("Read(secrets/)", "Read", "/work/proj/secrets/k.txt", PROJECT, True),  # a denied folder
        ("Read(/config/*.json)", "Read", "/work/proj/config/a.json", PROJECT / "sub", True),  # from the root
        ("Read(//etc/passwd)", "Read", "/etc/passwd", PROJECT, True),  # absolute
        ("Read(~/.ssh/**)", "Read", str(Path.home() / ".ssh" / "id_rsa"), PROJECT, True),
        ("Read(./.env)", "Grep", "/work/proj/.env", PROJECT, True),  # Read rules cover Grep/Glob
        ("Edit(/src/**)", "Write", "/work/proj/src/a.py", PROJECT, True),  # Edit covers Write
        ("Edit(/src/**)", "Read", "/work/proj/src/a.py", PROJECT, False),
        ("Edit(/src/**)", "Edit", "/work/proj/test/a.py", PROJECT, False),
        ("Edit(./a/../.env)", "Edit", "/work/proj/.env", PROJECT, False),  # rules are not normalised
        ("Read(./.env)", "Read", "/work/proj/sub/../.env", PROJECT, True),  # paths are
        ("Write(*.env)", "Write", "/work/proj/a/.env", PROJECT, True),  # any file tool: paths
        ("Write(*.env)", "Edit", "/work/proj/a/.env", PROJECT, False),
    ],
)
def test_path_rules(rule: str, tool: str, path: str, cwd: Path, expected: bool) -> None:
    key = "path" if tool in ("Grep", "Glob") else "file_path"
    assert matches(rule, tool, {key: path}, cwd) is expected


def test_path_rule_sees_through_symlinks(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("x")
    (tmp_path / "innocent.txt").symlink_to(tmp_path / "secret.txt")
    rule = PermissionRule.parse("deny", "Read(./secret.txt)")
    assert rule.matches("Read", {"file_path": "innocent.txt"}, cwd=tmp_path, project_dir=tmp_path)


@pytest.mark.parametrize(
    ("rule", "tool", "tool_input", "expected"),
    [
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/x"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://evil.com/example.com"}, False),
        ("WebFetch(domain:*.example.com)", "WebFetch", {"url": "http://docs.Example.com"}, True),
        ("mcp__github", "mcp__github__create_issue", {}, True),  # every tool of the server
        ("mcp__github", "mcp__githubx__create_issue", {}, False),
        ("mcp__github__*", "mcp__github__create_issue", {}, True),
        ("mcp__github__create_issue", "mcp__github__list", {}, False),
        ("Task(Explore)", "Agent", {"subagent_type": "Explore", "prompt": "p"}, True),
        ("Agent(Explore)", "Agent", {"subagent_type": "general-purpose", "prompt": "p"}, False),
        ("Bash", "Read", {"file_path": "/x"}, False),
    ],
)
def test_other_rules(rule: str, tool: str, tool_input: dict[str, Any], expected: bool) -> None:
    assert matches(rule, tool, tool_input) is expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Bash(npm run", "'(' is never closed"),
        ("Bash)", "')' without '('"),
        ("Bash(echo (x)", "unbalanced parentheses"),
        ("Bash(x) y", "unexpected text after ')'"),
        ("Bash()", "empty parentheses"),
        ("", "the rule is empty"),
        ("(ls)", "not a permission rule"),
        ("Bash Read", "not a permission rule"),
        ("mcp__server__tool(x)", "MCP rules take no specifier"),
        ("WebFetch(example.com)", "WebFetch(domain:example.com)"),
    ],
)
def test_malformed_rules(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_rule(text)


def test_nested_parentheses_are_part_of_the_specifier() -> None:
    assert parse_rule("Bash(echo $(date))") == ("Bash", "echo $(date)")


def test_split_command() -> None:
    assert split_command("a && b || c; d | e & f\ng") == ["a", "b", "c", "d", "e", "f", "g"]
    assert split_command("echo 'x; y' \"a|b\" c\\;d") == ["echo 'x; y' \"a|b\" c\\;d"]


def _rules(data: dict[str, list[str]], role: str = "user", trusted: bool = False) -> PermissionRules:
    from agent_server.hooks._permissions import merged

    return merged([({"permissions": data}, "s.json", role)], project_trusted=trusted)


def _decide(rules: PermissionRules, command: str) -> tuple[str | None, str | None]:
    d = rules.decide("Bash", {"command": command}, cwd=PROJECT, project_dir=PROJECT)
    return d.behavior, None if d.rule is None else d.rule.text


def test_deny_beats_ask_beats_allow_whatever_the_specificity() -> None:
    rules = _rules({"allow": ["Bash(git push origin main)"], "ask": ["Bash(git push *)"], "deny": ["Bash(git *)"]})
    assert _decide(rules, "git push origin main") == ("deny", "Bash(git *)")
    rules = _rules({"allow": ["Bash(git push origin main)"], "ask": ["Bash(git push *)"]})
    assert _decide(rules, "git push origin main") == ("ask", "Bash(git push *)")
    assert _decide(rules, "ls") == (None, None)


def test_allow_of_a_compound_command_needs_every_part() -> None:
    rules = _rules({"allow": ["Bash(npm run *)", "Bash(echo *)"]})
    assert _decide(rules, "npm run build && echo ok") == ("allow", "Bash(npm run *)")
    assert _decide(rules, "npm run build && rm -rf /") == (None, None)


def test_bare_deny_removes_the_tool_and_only_that_tool() -> None:
    rules = _rules({"deny": ["Bash", "Task", "Read(./.env)"]})
    assert rules.removed_by("Bash") is not None
    assert rules.removed_by("Agent") is not None  # the subagent tool, either name
    assert rules.removed_by("Read") is None  # a path rule does not remove Read
    assert rules.path_denied("Read", {"file_path": ".env"}, cwd=PROJECT, project_dir=PROJECT) is not None


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_merged_across_the_settings_hierarchy(tmp_path: Path) -> None:
    project = tmp_path / "p"
    user = write(tmp_path / "home" / "settings.json", {"permissions": {"deny": ["Bash(curl *)"]}})
    write(project / ".claude" / "settings.json", {"permissions": {"ask": ["Bash(git push *)"]}})
    write(project / ".claude" / "settings.local.json", {"permissions": {"deny": ["Read(./.env)"]}})
    managed = write(tmp_path / "managed.json", {"permissions": {"allow": ["Bash(make *)"], "deny": ["WebFetch"]}})
    config = load_config(project, user_settings=user, managed_file=managed)
    got = [(r.behavior, r.text, r.source, r.location) for r in config.permissions.rules]
    assert got == [
        ("deny", "Bash(curl *)", str(user), "permissions.deny[0]"),
        ("ask", "Bash(git push *)", ".claude/settings.json", "permissions.ask[0]"),
        ("deny", "Read(./.env)", ".claude/settings.local.json", "permissions.deny[0]"),
        ("allow", "Bash(make *)", str(managed), "permissions.allow[0]"),  # managed: no trust needed
        ("deny", "WebFetch", str(managed), "permissions.deny[0]"),
    ]
    assert config.issues == []


def test_project_allow_rules_wait_for_trust(tmp_path: Path) -> None:
    project = tmp_path / "p"
    user = write(tmp_path / "home.json", {"permissions": {"allow": ["Bash(ls *)"]}})
    write(project / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make *)"], "deny": ["Bash(rm *)"]}})
    write(project / ".claude" / "settings.local.json", {"permissions": {"allow": ["Bash(a *)", "Bash(b *)"]}})
    files = [
        (user, "user"),
        (project / ".claude" / "settings.json", "project"),
        (project / ".claude" / "settings.local.json", "local"),
    ]
    config = load_files(project, files)
    assert [r.text for r in config.permissions.rules] == ["Bash(ls *)", "Bash(rm *)"]  # deny rules still apply
    assert [i.rule.text for i in config.permissions.ignored] == ["Bash(make *)", "Bash(a *)", "Bash(b *)"]
    assert [(i.file, i.path, i.message, i.severity) for i in config.issues] == [
        (
            ".claude/settings.json",
            "permissions.allow",
            "Ignoring 1 permissions.allow entry from .claude/settings.json: this workspace has not been trusted. "
            "Run 'agent-server hooks trust' to review and trust them.",
            "warning",
        ),
        (
            ".claude/settings.local.json",
            "permissions.allow",
            "Ignoring 2 permissions.allow entries from .claude/settings.local.json: this workspace has not been "
            "trusted. Run 'agent-server hooks trust' to review and trust them.",
            "warning",
        ),
    ]
    trusted_files: set[str] = {".claude/settings.local.json"}
    asked: list[tuple[str, tuple[str, ...]]] = []

    def per_file(source: str, rules: Sequence[str]) -> bool:  # trust decided per file, at each use
        asked.append((source, tuple(rules)))
        return source in trusted_files

    later = load_files(project, files, project_trusted=per_file)
    assert set(asked) == {
        (".claude/settings.json", ("Bash(make *)",)),
        (".claude/settings.local.json", ("Bash(a *)", "Bash(b *)")),
    }
    assert [r.text for r in later.permissions.in_effect()] == ["Bash(ls *)", "Bash(rm *)", "Bash(a *)", "Bash(b *)"]
    assert [i.rule.text for i in later.permissions.ignored] == ["Bash(make *)"]
    assert [i.path for i in later.issues] == ["permissions.allow"]  # only the untrusted file warns
    trusted_files.add(".claude/settings.json")  # trusted after loading: applies at once
    decision = later.permissions.decide("Bash", {"command": "make all"}, cwd=project, project_dir=project)
    assert decision.behavior == "allow" and decision.rule is not None and decision.rule.text == "Bash(make *)"
    assert later.permissions.ignored == []
    trusted = load_files(project, files, project_trusted=True)
    assert [r.text for r in trusted.permissions.in_effect()] == [
        "Bash(ls *)",
        "Bash(make *)",
        "Bash(rm *)",
        "Bash(a *)",
        "Bash(b *)",
    ]
    assert trusted.issues == []


def test_bad_rules_are_one_error_each_and_the_rest_loads(tmp_path: Path) -> None:
    project = tmp_path / "p"
    settings = {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
        "permissions": {
            "deny": ["Bash(rm *)", "Bash(rm -rf", 42, "Read(./.env)"],
            "ask": "Bash(git push *)",
            "allow": ["bash(ls *)"],
            "defaultMode": "acceptEdits",
            "alow": [],
        },
    }
    write(project / ".claude" / "settings.json", settings)
    config = load_config(project, user_settings=None, project_trusted=True)
    assert [r.text for r in config.permissions.rules] == ["bash(ls *)", "Bash(rm *)", "Read(./.env)"]
    assert len(config.hooks["Stop"]) == 1  # the hooks of the file still load
    problems = [(i.severity, i.path, i.message) for i in config.issues]
    assert problems == [
        ("warning", "permissions.defaultMode", "'defaultMode' is not used by agent-server; it is ignored"),
        ("warning", "permissions.alow", "unknown field 'alow' is ignored"),
        ("warning", "permissions.allow[0]", "tool names are case-sensitive: 'bash' matches no tool"),
        ("error", "permissions.ask", "must be a list of rules, got str"),
        ("error", "permissions.deny[1]", "unbalanced parentheses in 'Bash(rm -rf': '(' is never closed"),
        ("error", "permissions.deny[2]", "a rule must be a string, got int"),
    ]
    assert all(i.file == ".claude/settings.json" for i in config.issues)
    assert config.issues[2].hint == "did you mean 'Bash'?"


def test_permissions_not_an_object(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project / ".claude" / "settings.json", {"permissions": ["Bash"]})
    config = load_config(project, user_settings=None)
    assert [str(i) for i in config.errors] == [
        'error: .claude/settings.json: permissions: must be an object like {"deny": ["Bash"]}, got list'
    ]
