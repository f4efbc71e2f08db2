"""gate/plan_required.py and gate/tests_before_stop.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def plan(kit: Any) -> Any:
    return kit.load("gate/plan_required.py")


@pytest.fixture
def tests_gate(kit: Any) -> Any:
    return kit.load("gate/tests_before_stop.py")


def edit(kit: Any, project: Path, rel: str = "src/app.py") -> Any:
    return kit.pre_tool("Edit", {"file_path": str(project / rel), "old_string": "a", "new_string": "b"}, project)


def stop(project: Path, active: bool = False) -> dict[str, Any]:
    return {
        "hook_event_name": "Stop",
        "cwd": str(project),
        "stop_hook_active": active,
        "last_assistant_message": "Done.",
    }


def test_plan_required_blocks_until_a_plan_exists(plan: Any, kit: Any, project: Path) -> None:
    result = plan.run(edit(kit, project))
    assert kit.decision(result) == "deny"
    assert ".skip-plan" in kit.reason(result) and "PLAN.md" in kit.reason(result)
    (project / "PLAN.md").write_text("   \n")  # an empty plan is no plan
    assert kit.decision(plan.run(edit(kit, project))) == "deny"
    (project / "PLAN.md").write_text("1. change app.py\n")
    assert plan.run(edit(kit, project)) is None


def test_plan_in_claude_folder_and_writing_the_plan(plan: Any, kit: Any, project: Path) -> None:
    write_plan = kit.pre_tool("Write", {"file_path": str(project / "PLAN.md"), "content": "x"}, project)
    assert plan.run(write_plan) is None
    (project / ".claude").mkdir()
    (project / ".claude" / "plan.md").write_text("plan")
    assert plan.run(edit(kit, project)) is None


def test_plan_marker_bypass_and_other_tools(plan: Any, kit: Any, project: Path) -> None:
    assert plan.run(kit.bash("ls", project)) is None
    (project / ".skip-plan").touch()
    assert plan.run(edit(kit, project)) is None


def test_tests_gate_blocks_with_the_failure_tail(
    tests_gate: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TESTS_BEFORE_STOP_CMD", "echo first; echo 'FAILED test_x' >&2; exit 3")
    result = tests_gate.run(stop(project))
    assert result["decision"] == "block"
    assert "exited 3" in result["reason"] and "FAILED test_x" in result["reason"]
    assert ".skip-tests" in result["reason"]
    # It blocks again while tests fail; the host caps repeated blocks.
    assert tests_gate.run(stop(project, active=True))["decision"] == "block"


def test_tests_gate_passes_and_marker(tests_gate: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESTS_BEFORE_STOP_CMD", "exit 0")
    assert tests_gate.run(stop(project)) is None
    monkeypatch.setenv("TESTS_BEFORE_STOP_CMD", "exit 1")
    (project / ".skip-tests").touch()
    assert tests_gate.run(stop(project)) is None


def test_tests_gate_timeout_kills_the_group(tests_gate: Any, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESTS_BEFORE_STOP_CMD", "echo started; exec tail -f /dev/null")
    monkeypatch.setenv("TESTS_BEFORE_STOP_TIMEOUT", "0.3")
    result = tests_gate.run(stop(project))
    assert result["decision"] == "block" and "did not finish within 0.3 s" in result["reason"]


def test_tests_gate_without_tests_does_nothing(tests_gate: Any, project: Path) -> None:
    assert tests_gate.run(stop(project)) is None


def test_tests_gate_reports_a_missing_tool(
    tests_gate: Any, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "Cargo.toml").write_text("[package]\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = tests_gate.run(stop(project))
    assert "could not run `cargo test --quiet`" in result["systemMessage"]


def test_detect(tests_gate: Any, tmp_path: Path) -> None:
    def proj(name: str, files: dict[str, str]) -> str:
        root = tmp_path / name
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        return str(root)

    py = tests_gate.detect(proj("py", {"pyproject.toml": "", "tests/test_a.py": ""}))
    assert py[1:] == ["-m", "pytest", "-q"] and py[0] == sys.executable
    npm = proj("npm", {"package.json": json.dumps({"scripts": {"test": "jest"}})})
    assert tests_gate.detect(npm) == ["npm", "test", "--silent"]
    default_npm = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    assert tests_gate.detect(proj("npm0", {"package.json": json.dumps(default_npm)})) is None
    assert tests_gate.detect(proj("rs", {"Cargo.toml": ""})) == ["cargo", "test", "--quiet"]
    assert tests_gate.detect(proj("go", {"go.mod": ""})) == ["go", "test", "./..."]
    assert tests_gate.detect(proj("mk", {"Makefile": "test:\n\ttrue\n"})) == ["make", "test"]
    assert tests_gate.detect(proj("none", {"README.md": ""})) is None


def test_tests_gate_runs_real_pytest(tests_gate: Any, project: Path) -> None:
    (project / "pyproject.toml").write_text("")
    (project / "tests").mkdir()
    (project / "tests" / "test_x.py").write_text("def test_x():\n    assert 1 == 2\n")
    result = tests_gate.run(stop(project))
    assert result["decision"] == "block" and "1 failed" in result["reason"]
