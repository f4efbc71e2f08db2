"""Helpers for the ready-made hook tests.

``hooks/`` is not a package: hook modules are loaded by file path, the way the launcher
and ``dispatch.py`` load them.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[3]
HOOKS = ROOT / "hooks"
PAYLOADS = ROOT / "tests" / "fixtures" / "payloads"
CONFIG_ENV = (
    "PROTECTED_FILES",
    "WORKSPACE_ALLOWED_DIRS",
    "PROTECTED_BRANCHES",
    "TESTS_BEFORE_STOP_CMD",
    "TESTS_BEFORE_STOP_TIMEOUT",
    "HOOK_CATEGORY",
    "HOOK_OUTPUT_BUDGET",
)


def load_hook(relpath: str) -> ModuleType:
    """Import ``hooks/<relpath>`` (a file, or a package folder) by path (cached)."""
    name = "ready_hooks_test_" + relpath.removesuffix(".py").replace("/", "_")
    if name in sys.modules:
        return sys.modules[name]
    path = HOOKS / relpath
    if path.is_dir():
        spec = importlib.util.spec_from_file_location(
            name, path / "__init__.py", submodule_search_locations=[str(path)]
        )
    else:
        spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def pre_tool(tool: str, tool_input: dict[str, Any], cwd: Path | str) -> dict[str, Any]:
    """A PreToolUse payload."""
    return {
        "session_id": "s1",
        "transcript_path": "/dev/null",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }


def bash(command: str, cwd: Path | str) -> dict[str, Any]:
    """A PreToolUse payload for a Bash command."""
    return pre_tool("Bash", {"command": command}, cwd)


def decision(result: Any) -> str | None:
    """The permissionDecision of a hook result (None when it returned nothing)."""
    if result is None:
        return None
    return str(result["hookSpecificOutput"]["permissionDecision"])


def reason(result: Any) -> str:
    """The permissionDecisionReason of a hook result."""
    return str(result["hookSpecificOutput"]["permissionDecisionReason"])


def expect_decision(hook: str, command: str, cwd: Path, expected: str | None, rule: str = "") -> None:
    """Run ``hooks/<hook>`` on a Bash ``command``: its decision is ``expected``, and a decision's
    reason names ``rule <rule>``."""
    result = load_hook(hook).run(bash(command, cwd))
    assert decision(result) == expected, command
    if expected is not None:
        assert f"rule {rule}" in reason(result)


SECURITY_HOOKS = ("dangerous_commands", "secrets_guard", "workspace_boundary", "protected_files")
_STRENGTH = {None: 0, "ask": 1, "deny": 2}


class Verdict(NamedTuple):
    """The four security hooks on one payload, combined the way ``dispatch.py`` does."""

    combined: str | None  # any deny -> "deny", else any ask -> "ask", else None
    own: dict[str, str | None]  # each hook's own decision
    reasons: list[str]  # the reasons of the hooks that answered, in hook order


def security_verdict(payload: dict[str, Any]) -> Verdict:
    """Run the four security hooks on ``payload`` and combine their decisions."""
    own: dict[str, str | None] = {}
    reasons: list[str] = []
    for name in SECURITY_HOOKS:
        result = load_hook(f"security/{name}.py").run(payload)
        own[name] = decision(result)
        if result is not None:
            reasons.append(reason(result))
    return Verdict(max(own.values(), key=lambda d: _STRENGTH[d]), own, reasons)


def fixture_payload(name: str, project: Path, transcript: Path | None = None) -> dict[str, Any]:
    """A recorded Claude Code payload with its placeholders filled in."""
    text = (PAYLOADS / f"{name}.json").read_text()
    text = text.replace("<PROJECT_DIR>", str(project))
    text = text.replace("<TRANSCRIPT_PATH>", str(transcript or project / "transcript.jsonl"))
    payload: dict[str, Any] = json.loads(text)
    return payload


def git(project: Path, *args: str) -> str:
    """Run git in ``project`` with a fixed identity."""
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project directory set as CLAUDE_PROJECT_DIR, with a private HOME."""
    proj = tmp_path / "proj"
    proj.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(proj))
    monkeypatch.setenv("HOME", str(home))
    for key in CONFIG_ENV:
        monkeypatch.delenv(key, raising=False)
    return proj


@pytest.fixture
def repo(project: Path) -> Path:
    """``project`` as a git repository on branch main with one commit."""
    git(project, "init", "-q")
    (project / "README.md").write_text("# demo\n")
    (project / "app.py").write_text("# TODO: handle errors\nprint('hi')\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "Initial commit")
    return project


class Kit:
    """The helpers above, handed to tests as the ``kit`` fixture (conftest is not imported)."""

    load = staticmethod(load_hook)
    pre_tool = staticmethod(pre_tool)
    bash = staticmethod(bash)
    decision = staticmethod(decision)
    reason = staticmethod(reason)
    security = staticmethod(security_verdict)
    expect_decision = staticmethod(expect_decision)
    fixture_payload = staticmethod(fixture_payload)
    git = staticmethod(git)
    hooks_dir = HOOKS


@pytest.fixture
def kit() -> type[Kit]:
    """Hook-test helpers."""
    return Kit
