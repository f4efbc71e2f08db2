"""security/workspace_boundary.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def hook(kit: Any) -> Any:
    return kit.load("security/workspace_boundary.py")


@pytest.mark.parametrize(
    "command",
    [
        "cp /etc/fstab /etc/fstab.bak",
        "cat ~/notes.txt",
        "ls ~ > ~/listing.txt",
        "cd .. && ls",
        "cat ../x",
        "echo x > ../out",
        "cp a.py $HOME/a.py",
        "cd /etc; cat hosts",
        "git -C /srv/repo log",
        "cat /etc/$NAME",
        "tar xzf a.tgz -C /",
        "python3 -c \"open('/etc/fstab', 'w').write('')\"",
        "python3 -c \"open('/etc/passwd', 'a').write('x')\"",
        "cd",
    ],
)
def test_denies_paths_outside(hook: Any, kit: Any, project: Path, command: str) -> None:
    result = hook.run(kit.bash(command, project))
    assert kit.decision(result) == "deny", command
    assert "WORKSPACE_ALLOWED_DIRS" in kit.reason(result)


@pytest.mark.parametrize(
    "command",
    [
        "ls src/../tests",
        "cat README.md",
        "npm test > /dev/null 2>&1",
        'grep -r "/api" src',
        "git commit -m '/fix: x'",
        "ssh host 'cat /etc/passwd'",
        "curl http://localhost/x",
        "ln -s ../shared/c.json src/c.json",
        'docker run -v "$(pwd)":/app -w /app img',
        "/usr/bin/env python3 x.py",
        'echo "/etc/passwd"',
        # Names and sizes only: a look anywhere prints no file's content and changes nothing.
        "ls ~",
        "ls -la ~/.ssh",
        "du -sh ~/.cache",
        "ls ../",
    ],
)
def test_allows_paths_inside(hook: Any, kit: Any, project: Path, command: str) -> None:
    assert hook.run(kit.bash(command, project)) is None, command


def test_file_tools(hook: Any, kit: Any, project: Path) -> None:
    inside = kit.pre_tool("Read", {"file_path": str(project / "a.py")}, project)
    assert hook.run(inside) is None
    for tool, tool_input in [
        ("Read", {"file_path": "/etc/shadow"}),
        ("Write", {"file_path": f"{project}/../x.py", "content": ""}),
        ("Glob", {"pattern": "/etc/**"}),
        ("Glob", {"pattern": "../**"}),
        ("Grep", {"pattern": "x", "path": "/var/log"}),
        ("LS", {"path": "/"}),
        ("NotebookEdit", {"notebook_path": f"{project}/../n.ipynb"}),
    ]:
        assert kit.decision(hook.run(kit.pre_tool(tool, tool_input, project))) == "deny", tool


def test_symlink_escape_is_resolved(hook: Any, kit: Any, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, project / "link")
    result = hook.run(kit.pre_tool("Write", {"file_path": str(project / "link" / "x"), "content": ""}, project))
    assert kit.decision(result) == "deny"


def test_allowed_dirs_are_configurable(
    hook: Any, kit: Any, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = tmp_path / "shared"
    monkeypatch.setenv("WORKSPACE_ALLOWED_DIRS", f"{extra}:/nonexistent")
    assert hook.run(kit.bash(f"cat {extra}/notes.txt", project)) is None
    assert kit.decision(hook.run(kit.bash("cp /etc/fstab /etc/fstab.bak", project))) == "deny"


def test_project_falls_back_to_payload_cwd(hook: Any, kit: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR")
    assert hook.run(kit.bash(f"cat {project}/a", project)) is None
    assert kit.decision(hook.run(kit.bash("cp /etc/fstab /etc/fstab.bak", project))) == "deny"


def test_malformed_input_fails_closed(hook: Any, kit: Any, project: Path) -> None:
    for tool, tool_input in [("Read", {"file_path": 1}), ("Glob", {}), ("Bash", {})]:
        assert kit.decision(hook.run(kit.pre_tool(tool, tool_input, project))) == "deny"
