"""The server's data folder stays out of ``git status``, and the shipped hooks do not
report it as the user's change."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from agent_server._datadir import make_data_dir
from agent_server.hooks import HookRunner
from tests.integration.server_harness import make_project, running_server
from tests.support import load_payload

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]
ROOT = Path(__file__).resolve().parents[2]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout


def _committed(repo: Path) -> Path:
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    assert _git(repo, "status", "--porcelain") == ""
    return repo


def test_make_data_dir_writes_a_gitignore_once(tmp_path: Path) -> None:
    folder = make_data_dir(tmp_path / "a" / ".agent-server")
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    (folder / ".gitignore").write_text("hooks.db\n")  # the user's own choice is kept
    make_data_dir(folder)
    assert (folder / ".gitignore").read_text() == "hooks.db\n"


async def test_a_running_server_leaves_git_status_clean(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    _committed(project.root)
    async with running_server(project, hook_ledger=True) as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "completed"
        data = project.root / ".agent-server"
        with anyio.fail_after(10):  # (the ledger's writer thread creates it a moment after the first record)
            while not (data / "hooks.db").exists():
                await anyio.sleep(0.02)
        assert any((data / "transcripts").iterdir())
        assert _git(project.root, "status", "--porcelain", "--untracked-files=all") == ""


async def test_the_engines_default_ledger_folder_is_ignored_too(tmp_path: Path) -> None:
    _committed(tmp_path)
    async with HookRunner.from_project(tmp_path, user_settings=None, ledger=True) as runner:
        await runner.fire("Stop", {"session_id": "s", "hook_event_name": "Stop"})
    assert (tmp_path / ".agent-server" / "hooks.db").exists()
    assert _git(tmp_path, "status", "--porcelain", "--untracked-files=all") == ""


def _hook(relpath: str) -> ModuleType:
    name = "data_dir_test_" + relpath.replace("/", "_").removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, ROOT / "hooks" / relpath)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_completion_check_does_not_count_the_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A data folder from before it carried a .gitignore still shows in git status;
    the Stop hook must not call it an uncommitted change after every turn."""
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    (tmp_path / "app.py").write_text("print('hi')\n")
    _committed(tmp_path)
    (tmp_path / ".agent-server" / "transcripts").mkdir(parents=True)
    (tmp_path / ".agent-server" / "transcripts" / "s.jsonl").write_text("{}\n")
    assert ".agent-server/" in _git(tmp_path, "status", "--porcelain")
    payload: dict[str, Any] = {**load_payload("Stop"), "cwd": str(tmp_path), "last_assistant_message": "Done."}
    hook = _hook("feedback/completion_check.py")
    assert hook.run(payload) is None
    (tmp_path / "app.py").write_text("print('changed')\n")
    message = hook.run(payload)["systemMessage"]
    assert "1 uncommitted change(s)" in message and "app.py" in message and ".agent-server" not in message
