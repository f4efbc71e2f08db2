"""The evaluation corpus meets its targets; every hook file is well-formed."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HOOKS = Path(__file__).resolve().parents[3] / "hooks"
HOOK_FILES = [
    *sorted(
        p
        for p in HOOKS.glob("*/*.py")
        if p.parent.name in ("security", "gate", "feedback") and not p.name.startswith("_")
    ),
    HOOKS / "dispatch.py",
]


def test_corpus_is_large_and_labelled(kit: Any) -> None:
    evaluate = kit.load("eval/evaluate.py")
    items = evaluate.load_corpus()
    assert len(items) >= 320
    for label in ("dangerous", "warn", "benign"):
        assert sum(i["label"] == label for i in items) >= 40
    assert {i["hook"] for i in items} == set(evaluate.HOOK_NAMES)
    assert {i["tool_name"] for i in items} >= {"Bash", "Write", "Edit", "Read", "Glob", "Grep"}


def test_corpus_meets_targets(kit: Any) -> None:
    report = kit.load("eval/evaluate.py").evaluate()
    overall = report["overall"]
    assert overall["dangerous_denied"]["rate"] >= 0.98, report["misses"]
    assert overall["benign_blocked"]["rate"] <= 0.01, report["misses"]
    assert overall["warn_flagged"]["rate"] >= 0.95, report["misses"]
    assert report["passed"], report["misses"]


def test_holdout_set_meets_targets(kit: Any) -> None:
    evaluate = kit.load("eval/evaluate.py")
    report = evaluate.evaluate(str(HOOKS / "eval" / "holdout.jsonl"))
    assert report["passed"], report["misses"]


@pytest.mark.parametrize("name", sorted(p.name for p in (HOOKS / "eval").glob("*.jsonl")))
def test_corpus_holds_no_secret_shaped_strings(kit: Any, name: str) -> None:
    text = (HOOKS / "eval" / name).read_text()
    assert kit.load("security/secrets_guard.py").find_tokens(text) == []


def test_evaluate_cli_json(kit: Any, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(HOOKS / "eval" / "evaluate.py"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    # Misses are listed only on request (--misses), so a blind run shows figures alone.
    assert report["passed"] and report["items"] >= 320 and "misses" not in report


def test_evaluate_fails_when_targets_are_missed(kit: Any, tmp_path: Path) -> None:
    evaluate = kit.load("eval/evaluate.py")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        json.dumps(
            {
                "id": "x1",
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "label": "dangerous",
                "hook": "dangerous_commands",
                "note": "n",
            }
        )
        + "\n"
    )
    assert evaluate.main(["--corpus", str(corpus)]) == 1
    assert "MISSED" in evaluate.markdown(evaluate.evaluate(str(corpus)))


@pytest.mark.parametrize("path", HOOK_FILES, ids=lambda p: str(p.relative_to(HOOKS)))
def test_hook_file_header_and_constants(path: Path) -> None:
    tree = ast.parse(path.read_text())
    doc = ast.get_docstring(tree) or ""
    for field in ("Hook:", "Event:", "Description:", "Matcher:"):
        assert any(line.startswith(field) for line in doc.splitlines()), (path, field)
    assert f"Hook: {path.stem}" in doc
    names = {
        t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)
    }
    assert {"NAME", "EVENTS", "MATCHER"} <= names
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "run" in functions
    assert "from __future__ import annotations" in path.read_text()
    assert 'if __name__ == "__main__":' in path.read_text()


def test_default_settings_reference_existing_hooks() -> None:
    settings = json.loads((HOOKS / "settings.default.json").read_text())
    events = settings["hooks"]
    assert set(events) == {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "Stop",
        "SubagentStart",
        "SubagentStop",
        "PreCompact",
    }
    for entries in events.values():
        for entry in entries:
            for hook in entry["hooks"]:
                assert hook["type"] == "command"
                prefix = "python hook_launcher.py "
                assert hook["command"].startswith(prefix)
                target = hook["command"][len(prefix) :]
                assert (HOOKS / target).is_file(), target
                assert (hook.get("onFailure") == "block") == target.startswith("security/")


def run_standalone(path: str, stdin: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(HOOKS / path)], input=stdin, capture_output=True, text=True, timeout=30, env=env
    )


def test_hooks_run_standalone(project: Path) -> None:
    import os

    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(project)}
    payload = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf /"},
            "cwd": str(project),
        }
    )
    done = run_standalone("security/dangerous_commands.py", payload, env)
    assert done.returncode == 0
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    done = run_standalone("security/secrets_guard.py", "{not json", env)
    assert done.returncode == 2 and "not a JSON object" in done.stderr
    done = run_standalone("feedback/completion_check.py", "[]", env)
    assert done.returncode == 1
    stop = json.dumps({"hook_event_name": "Stop", "cwd": str(project), "last_assistant_message": "done"})
    done = run_standalone("feedback/completion_check.py", stop, env)
    assert done.returncode == 0 and done.stdout == ""
    done = run_standalone("dispatch.py", payload, {**env, "HOOK_CATEGORY": "security"})
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
