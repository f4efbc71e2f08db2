"""Helpers shared by tests (importable as ``tests.support``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def bash_payload(command: str = "ls") -> dict[str, Any]:
    """A minimal PreToolUse payload for a Bash call running ``command``."""
    return {
        "session_id": "sess-1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def load_payload(name: str, project_dir: Path | None = None) -> dict[str, Any]:
    """A recorded Claude Code payload, with its placeholders filled in."""
    text = (FIXTURES / "payloads" / f"{name}.json").read_text()
    project = str(project_dir or "/tmp")
    text = text.replace("<PROJECT_DIR>", project).replace("<TRANSCRIPT_PATH>", f"{project}/t.jsonl")
    data: dict[str, Any] = json.loads(text)
    return data


def project(tmp_path: Path, hooks: dict[str, Any], **extra: Any) -> Path:
    """A project folder whose ``.claude/settings.json`` holds ``hooks`` (and ``extra`` keys)."""
    (tmp_path / ".claude").mkdir(exist_ok=True)
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks, **extra}))
    return tmp_path


def cmd(command: str, matcher: str | None = None, **kw: Any) -> dict[str, Any]:
    """A Claude Code matcher group with one command hook."""
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **kw}]}
    if matcher:
        group["matcher"] = matcher
    return group


def run_cli(
    *args: str, env: dict[str, str], stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``agent-server *args`` as a user runs it: a real process (bounded), its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "agent_server", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )
