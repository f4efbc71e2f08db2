"""Content-addressed trust of a project's hooks: the engine (real hook processes), the
``hooks trust | untrust | list | explain`` commands, the trust store's bad inputs."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_server.hooks import (
    UNTRUSTED_REASON,
    HookRunner,
    HookStatus,
    HookTrust,
    TrustError,
    TrustStore,
    load_config,
    permissions_trusted,
    trust_store_path,
)
from agent_server.hooks._trust import hash_file

CLI = [sys.executable, "-m", "agent_server"]


@pytest.fixture(autouse=True)
def store_policy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """These tests are about trust: the CI switch is off, and the store is this test's own."""
    monkeypatch.delenv("AGENT_SERVER_TRUST_ALL_HOOKS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "agent-server" / "trusted-hooks.json"


def _script(project: Path, name: str, marker: Path) -> Path:
    path = project / ".claude" / "hooks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def clone(tmp_path: Path) -> tuple[Path, Path]:
    """A 'cloned' project whose settings run two scripts of its own on SessionStart."""
    project = tmp_path / "cloned"
    marker = tmp_path / "ran.txt"
    _script(project, "a.sh", marker)
    _script(project, "b.sh", marker)
    settings = {
        "hooks": {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/a.sh"}]},
                {"hooks": [{"type": "command", "command": "sh .claude/hooks/b.sh"}]},
            ]
        },
        "permissions": {"allow": ["Bash(ls:*)"]},
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return project, marker


def ran(marker: Path) -> list[str]:
    return marker.read_text().split() if marker.exists() else []


async def fire(project: Path, event: str = "SessionStart", **options: Any) -> list[Any]:
    async with HookRunner.from_project(project, user_settings=None, **options) as runner:
        outcome = await runner.fire(event, {"session_id": "s", "cwd": str(project), "source": "startup"})
    return outcome.hooks


def cli(*args: str, project: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "hooks", *args, "--project-dir", str(project), "--no-user-settings"],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )


@pytest.mark.anyio
async def test_a_cloned_projects_hooks_do_not_run_until_trusted(tmp_path: Path) -> None:
    project, marker = clone(tmp_path)
    results = await fire(project)
    assert [r.status for r in results] == [HookStatus.SKIPPED, HookStatus.SKIPPED]
    assert all(r.error == UNTRUSTED_REASON for r in results)
    assert ran(marker) == []

    listing = cli("list", "--untrusted", "--json", project=project)
    items = json.loads(listing.stdout)["untrusted"]
    assert [i["kind"] for i in items] == ["hook", "hook", "permissions"]
    assert items[0]["files"].keys() == {".claude/hooks/a.sh"} and items[1]["files"].keys() == {".claude/hooks/b.sh"}
    assert all(i["changes"] == ["never trusted"] for i in items)

    done = cli("trust", "--all", project=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("trusted ") == 3
    assert [r.status for r in await fire(project)] == [HookStatus.OK, HookStatus.OK]
    assert ran(marker) == ["a.sh", "b.sh"]
    assert permissions_trusted(project, ".claude/settings.json", ["Bash(ls:*)"])
    assert not permissions_trusted(project, ".claude/settings.json", ["Bash(*)"])  # other rules: not trusted
    assert permissions_trusted(project, "/home/u/.claude/settings.json", ["Bash(*)"])  # user rules are


@pytest.mark.anyio
async def test_editing_a_trusted_script_untrusts_that_hook_only(tmp_path: Path) -> None:
    project, marker = clone(tmp_path)
    assert cli("trust", "--all", project=project).returncode == 0
    async with HookRunner.from_project(project, user_settings=None) as runner:
        payload = {"session_id": "s", "cwd": str(project), "source": "startup"}
        assert [r.status for r in (await runner.fire("SessionStart", payload)).hooks] == ["ok", "ok"]
        # A `git pull` changes b.sh while the runner is open: b stops, a keeps running.
        (project / ".claude" / "hooks" / "b.sh").write_text(f"#!/bin/sh\necho pulled >> {marker}\n")
        results = (await runner.fire("SessionStart", payload)).hooks
        assert [r.status for r in results] == ["ok", "skipped"] and results[1].error == UNTRUSTED_REASON
        assert ran(marker) == ["a.sh", "b.sh", "a.sh"]
        changed = [i for i in runner.trust.items() if not i.trusted]
        assert len(changed) == 1 and changed[0].changes == [".claude/hooks/b.sh: content changed"]
        # Trusting that one id (as the chat page does) lets it run from the next event.
        runner.trust.trust([changed[0].id])
        assert [r.status for r in (await runner.fire("SessionStart", payload)).hooks] == ["ok", "ok"]
    assert ran(marker)[-2:] == ["a.sh", "pulled"]
    # A changed command is reported as such.
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    settings["hooks"]["SessionStart"][1]["hooks"][0]["command"] = "sh .claude/hooks/b.sh --loud"
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    items = HookTrust(load_config(project, user_settings=None)).untrusted()
    assert items[0].changes == ['command: "sh .claude/hooks/b.sh" -> "sh .claude/hooks/b.sh --loud"']


@pytest.mark.anyio
async def test_the_ledger_list_and_explain_show_the_reason(tmp_path: Path) -> None:
    project, _ = clone(tmp_path)
    db = tmp_path / "hooks.db"
    await fire(project, ledger=db)
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT status, error FROM hook_runs").fetchall()
    finally:
        conn.close()
    assert rows == [("skipped", UNTRUSTED_REASON)] * 2
    text = cli("list", project=project).stdout
    assert text.count(f"[{UNTRUSTED_REASON}; id ") == 2
    payload = json.dumps({"source": "startup"})
    explained = json.loads(cli("explain", "SessionStart", "--json", project=project, stdin=payload).stdout)
    assert [(h["would_run"], h["skip"], h["why"]) for h in explained["hooks"]] == [
        (False, "untrusted", UNTRUSTED_REASON)
    ] * 2


@pytest.mark.anyio
async def test_user_level_hooks_and_trust_all_need_no_trust(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, marker = clone(tmp_path)
    user = tmp_path / "user-settings.json"
    user.write_text(
        json.dumps({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": f"echo user >> {marker}"}]}]}})
    )
    async with HookRunner.from_project(project, user_settings=user) as runner:
        results = (await runner.fire("SessionStart", {"session_id": "s", "source": "startup"})).hooks
    assert [r.status for r in results] == ["ok", "skipped", "skipped"]
    assert ran(marker) == ["user"]
    assert [r.status for r in await fire(project, trust="all")] == ["ok", "ok"]
    monkeypatch.setenv("AGENT_SERVER_TRUST_ALL_HOOKS", "1")
    assert [r.status for r in await fire(project)] == ["ok", "ok"]
    assert ran(marker) == ["user", "a.sh", "b.sh", "a.sh", "b.sh"]


@pytest.mark.anyio
async def test_a_script_symlinked_out_of_the_project_cannot_be_trusted(tmp_path: Path) -> None:
    project, marker = clone(tmp_path)
    outside = _script(tmp_path / "elsewhere", "evil.sh", marker)
    link = project / ".claude" / "hooks" / "b.sh"
    link.unlink()
    link.symlink_to(outside)
    items = HookTrust(load_config(project, user_settings=None)).items()
    problem = items[1].problem
    assert problem is not None and ".claude/hooks/b.sh is a symlink out of the project" in problem
    assert str(outside) in problem
    refused = cli("trust", items[1].id, project=project)
    assert refused.returncode == 1 and "symlink out of the project" in refused.stderr
    partial = cli("trust", "--all", project=project)
    assert partial.returncode == 1 and "symlink out of the project" in partial.stdout
    results = await fire(project)
    assert [r.status for r in results] == ["ok", "skipped"]
    assert results[1].error is not None and results[1].error.startswith("untrusted: hook script .claude/hooks/b.sh")
    assert ran(marker) == ["a.sh"]


def test_trust_ids_are_content_addresses(tmp_path: Path) -> None:
    project, _ = clone(tmp_path)
    first = HookTrust(load_config(project, user_settings=None)).items()[0]
    (project / ".claude" / "hooks" / "a.sh").write_text("#!/bin/sh\necho changed\n")
    # The id the user reviewed no longer names the hook: trusting it is refused.
    stale = cli("trust", first.id, project=project)
    assert stale.returncode == 1 and f"id {first.id!r} matches no configured hook" in stale.stderr
    unknown = cli("trust", "zzzz", project=project)
    assert unknown.returncode == 1 and "matches no configured hook" in unknown.stderr
    assert cli("trust", "--all", project=project).returncode == 0
    assert cli("list", "--untrusted", project=project).stdout.strip() == "no untrusted project hooks"
    gone = cli("untrust", "--all", project=project)
    assert gone.returncode == 0 and "untrusted 3 item(s)" in gone.stdout
    assert "3 project hook(s) are not trusted" in cli("list", "--untrusted", project=project).stdout
    assert cli("untrust", project=project).returncode == 1


@pytest.mark.anyio
async def test_a_corrupt_store_is_reported_and_trusts_nothing(tmp_path: Path, store_policy: Path) -> None:
    project, marker = clone(tmp_path)
    assert cli("trust", "--all", project=project).returncode == 0
    assert trust_store_path() == store_policy and store_policy.is_file()
    store_policy.write_text("{not json")
    assert [r.status for r in await fire(project)] == ["skipped", "skipped"]
    assert ran(marker) == []
    listing = cli("list", project=project)
    assert f"trust store {store_policy}: not valid JSON" in listing.stderr
    refused = cli("trust", "--all", project=project)
    assert refused.returncode == 1 and "fix or delete the file first" in refused.stderr
    assert store_policy.read_text() == "{not json"  # never overwritten
    store_policy.write_text(json.dumps({"projects": []}))
    assert TrustStore().load().problem is not None


def test_an_unwritable_store_is_a_clear_error(tmp_path: Path, store_policy: Path) -> None:
    if os.geteuid() == 0:
        # (root writes anywhere: a store path below a regular file cannot be written by anyone)
        blocker = tmp_path / "not-a-dir"
        blocker.write_text("")
        store = TrustStore(blocker / "trusted-hooks.json")
    else:
        store_policy.parent.mkdir(parents=True)
        store_policy.parent.chmod(0o500)
        store = TrustStore(store_policy)
    project, _ = clone(tmp_path)
    trust = HookTrust(load_config(project, user_settings=None), store=store)
    with pytest.raises(TrustError, match=r"trust store .*trusted-hooks.json: cannot write it"):
        trust.trust(all_items=True)
    assert all(not i.trusted for i in trust.items())


def test_a_script_changed_while_hashed_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "x.sh"
    script.write_text("echo 1\n" * 50_000)
    real_read = os.read
    calls = []

    def read_then_append(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if not calls:  # a writer appends while the first chunk is hashed
            calls.append(fd)
            with script.open("a") as fh:
                fh.write("echo 2\n")
        return data

    monkeypatch.setattr(os, "read", read_then_append)
    with pytest.raises(TrustError, match="changed while it was being hashed"):
        hash_file(script)
    monkeypatch.setattr(os, "read", real_read)
    assert len(hash_file(script)) == 64


@pytest.mark.anyio
async def test_a_project_http_hook_is_not_called_until_trusted(tmp_path: Path) -> None:
    """Sending the payload to a URL is as much the project's doing as running a script."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from agent_server.server.testing import serve_app

    received: list[dict[str, Any]] = []

    async def collect(request: Request) -> JSONResponse:
        received.append(await request.json())
        return JSONResponse({})

    project = tmp_path / "cloned"
    (project / ".claude").mkdir(parents=True)
    async with serve_app(Starlette(routes=[Route("/h", collect, methods=["POST"])])) as url:
        settings = {"hooks": {"Stop": [{"hooks": [{"type": "http", "url": f"{url}/h"}]}]}}
        (project / ".claude" / "settings.json").write_text(json.dumps(settings))
        results = await fire(project, event="Stop")
        assert [(r.status, r.error) for r in results] == [(HookStatus.SKIPPED, UNTRUSTED_REASON)]
        assert received == []
        item = HookTrust(load_config(project, user_settings=None)).items()[0]
        assert item.files == {} and item.command == f"{url}/h"
        assert cli("trust", item.id, project=project).returncode == 0
        assert [r.status for r in await fire(project, event="Stop")] == [HookStatus.OK]
        assert len(received) == 1
        # Another URL is another hook.
        settings["hooks"]["Stop"][0]["hooks"][0]["url"] = f"{url}/h?copy=1"
        (project / ".claude" / "settings.json").write_text(json.dumps(settings))
        assert [r.status for r in await fire(project, event="Stop")] == [HookStatus.SKIPPED]
        assert len(received) == 1
