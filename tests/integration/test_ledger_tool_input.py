"""Tool input in the audit ledger (docs/observability.md "The audit ledger"): only with
``AGENT_SERVER_LEDGER_TOOL_INPUT``, and then redacted by the shipped secrets hook's rules."""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.server_harness import make_project, running_server

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parents[2]


def fake_github_token() -> str:
    """A realistic fake credential from the evaluation kit (hooks/eval/evaluate.py)."""
    spec = importlib.util.spec_from_file_location("eval_evaluate", ROOT / "hooks" / "eval" / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    token: str = module.fake_token("github", "ledger")
    return token


async def run_one_bash_call(tmp_path: Path, command: str, **settings: object) -> tuple[Path, list[str | None]]:
    """Run one Bash tool call through a real server with a PreToolUse hook; the ledger's
    file and the tool_input column of its PreToolUse rows."""
    project = make_project(tmp_path)
    project.hook("PreToolUse", name="guard", matcher="Bash")
    async with running_server(project, **settings) as h:
        sid = (await h.create(permission_mode="bypassPermissions"))["session_id"]
        await h.send(sid, f"$ {command}")
    db = project.root / ".agent-server" / "hooks.db"  # (the server closed: every record is in)
    conn = sqlite3.connect(db)
    try:
        rows = [r[0] for r in conn.execute("SELECT tool_input FROM events WHERE event = 'PreToolUse'")]
    finally:
        conn.close()
    return db, rows


async def test_tool_input_is_not_in_the_ledger_by_default(tmp_path: Path) -> None:
    token = fake_github_token()
    db, rows = await run_one_bash_call(tmp_path, f"echo GITHUB_TOKEN={token}")
    assert rows == [None]
    assert token.encode() not in db.read_bytes()


async def test_with_the_setting_tool_input_is_recorded_redacted_and_shown_by_hooks_log(tmp_path: Path) -> None:
    token = fake_github_token()
    db, rows = await run_one_bash_call(tmp_path, f"echo GITHUB_TOKEN={token}", ledger_tool_input=True)
    assert len(rows) == 1 and rows[0] is not None
    assert '"command": "echo GITHUB_TOKEN=[REDACTED]"' in rows[0]
    assert token not in rows[0] and token.encode() not in db.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path / "home")}
    log = subprocess.run(
        [sys.executable, "-m", "agent_server", "hooks", "log", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert log.returncode == 0, log.stderr
    assert 'input {"command": "echo GITHUB_TOKEN=[REDACTED]"' in log.stdout
    assert token not in log.stdout
