"""security/protected_files.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def hook(kit: Any) -> Any:
    return kit.load("security/protected_files.py")


def write(kit: Any, project: Path, rel: str) -> Any:
    return kit.pre_tool("Write", {"file_path": str(project / rel), "content": "x"}, project)


@pytest.mark.parametrize(
    "rel",
    [
        ".env",
        ".env.local",
        ".git/config",
        "package-lock.json",
        "sub/yarn.lock",
        ".claude/settings.json",
        ".claude/hooks/x.py",
        ".claude/protected_files.json",
        "Cargo.lock",
    ],
)
def test_denies_protected_writes(hook: Any, kit: Any, project: Path, rel: str) -> None:
    result = hook.run(write(kit, project, rel))
    assert kit.decision(result) == "deny" and "PROTECTED_FILES" in kit.reason(result)


@pytest.mark.parametrize(
    "rel", ["src/app.py", ".env.example", ".gitignore", "package.json", ".claude/plan.md", ".github/workflows/ci.yml"]
)
def test_allows_other_writes(hook: Any, kit: Any, project: Path, rel: str) -> None:
    assert hook.run(write(kit, project, rel)) is None


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf .git",
        "echo x > .git/HEAD",
        "cp .env.example .env.production",
        "sed -i 's/a/b/' yarn.lock",
        "mv poetry.lock x",
        "echo x | tee -a .env",
        "> .env",
        "rm -r .claude",
        "find . -name '.env*' -delete",
        "python -c \"open('.env', 'w').write('x')\"",
    ],
)
def test_denies_bash_modifications(hook: Any, kit: Any, project: Path, command: str) -> None:
    (project / ".env.production").write_text("DB_PASSWORD=real\n")
    assert kit.decision(hook.run(kit.bash(command, project))) == "deny", command


def test_env_file_made_from_its_template_overwrites_nothing(hook: Any, kit: Any, project: Path) -> None:
    # No .env yet: copying the template creates it (the bootstrap every README describes).
    for command in ("cp .env.example .env && chmod 600 .env", "test -f .env || cp .env.dist .env"):
        assert hook.run(kit.bash(command, project)) is None, command
    # A test env made from the template, and edited in the same command, holds placeholders.
    (project / ".env.testing").write_text("DB=sqlite\n")
    assert hook.run(kit.bash("cp .env.sample .env.testing && sed -i 's/sqlite/pg/' .env.testing", project)) is None
    # Once the user's .env exists, copying over it (or guarding the wrong way) is refused.
    (project / ".env").write_text("API_KEY=real\n")
    for command in (
        "cp .env.example .env",
        "cp -f .env.dist .env",
        "[ -f .env ] && cp .env.example .env",
        "cp .env.production .env",
    ):
        assert kit.decision(hook.run(kit.bash(command, project))) == "deny", command
    assert hook.run(kit.bash("[ -e .env ] || cp .env.example .env", project)) is None
    assert hook.run(kit.bash("if [ ! -f .env ]; then cp .env.example .env; fi", project)) is None


@pytest.mark.parametrize(
    "command",
    [
        "npm install",
        "cat .git/HEAD",
        "git add package-lock.json",
        "sed -n 1p yarn.lock",
        "echo x >> .gitignore",
        "touch .env",
        "cat .claude/settings.json",
    ],
)
def test_allows_reading_and_tools(hook: Any, kit: Any, project: Path, command: str) -> None:
    assert hook.run(kit.bash(command, project)) is None, command


def test_env_list_replaces_defaults(hook: Any, kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROTECTED_FILES", "docs/**:*.md:!README.md")
    assert kit.decision(hook.run(write(kit, project, "docs/a/b.txt"))) == "deny"
    assert kit.decision(hook.run(write(kit, project, "NOTES.md"))) == "deny"
    assert hook.run(write(kit, project, "README.md")) is None
    assert hook.run(write(kit, project, ".env")) is None


def test_project_config_extends_or_replaces(hook: Any, kit: Any, project: Path) -> None:
    config = project / ".claude" / "protected_files.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"patterns": ["migrations/"]}))
    assert kit.decision(hook.run(write(kit, project, "migrations/001.sql"))) == "deny"
    assert kit.decision(hook.run(write(kit, project, ".env"))) == "deny"
    config.write_text(json.dumps({"patterns": ["migrations/"], "replace_defaults": True}))
    assert hook.run(write(kit, project, ".env")) is None
    assert kit.decision(hook.run(write(kit, project, ".claude/protected_files.json"))) == "deny"


def test_broken_config_keeps_defaults(hook: Any, kit: Any, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "protected_files.json").write_text("{not json")
    assert kit.decision(hook.run(write(kit, project, ".env"))) == "deny"


def test_malformed_input_fails_closed(hook: Any, kit: Any, project: Path) -> None:
    assert kit.decision(hook.run(kit.pre_tool("Edit", {"old_string": "a"}, project))) == "deny"
    assert kit.decision(hook.run(kit.bash("echo 'x", project))) == "deny"
