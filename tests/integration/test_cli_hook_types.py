"""``agent-server hooks list/validate/explain/fire`` with http, prompt and agent hooks."""

from __future__ import annotations

import json
from pathlib import Path

import anyio.to_thread
import pytest

from tests.http_endpoint import http_endpoint
from tests.integration.test_cli import cli, project

URL = "http://127.0.0.1:9/hook"
SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "http",
                        "url": URL,
                        "headers": {"Authorization": "Bearer $TOKEN"},
                        "allowedEnvVars": ["TOKEN"],
                    },
                    {"type": "prompt", "prompt": "block: rm -rf\n$ARGUMENTS"},
                    {"type": "agent", "prompt": "Verify with tools"},
                ],
            }
        ]
    }
}


def test_list_shows_each_type(tmp_path: Path) -> None:
    p = project(tmp_path, SETTINGS)
    res = cli("hooks", "list", "--project-dir", str(p))
    assert res.returncode == 0, res.stderr
    assert f"1. hook: [http] {URL}" in res.stdout  # the short name: the URL's last path segment
    assert "headers=Authorization  allowedEnvVars=TOKEN" in res.stdout
    assert "2. prompt: [prompt] block: rm -rf" in res.stdout
    assert "ignored:" in res.stdout and "hook type 'agent' is not supported" in res.stdout
    data = json.loads(cli("hooks", "list", "--project-dir", str(p), "--json").stdout)
    http, prompt = data["events"]["PreToolUse"]["hooks"]
    assert http["type"] == "http" and http["url"] == URL
    assert http["headers"] == {"Authorization": "Bearer $TOKEN"} and http["allowedEnvVars"] == ["TOKEN"]
    assert prompt["type"] == "prompt" and prompt["prompt"] == "block: rm -rf\n$ARGUMENTS"
    assert prompt["timeout_s"] == 30
    [ignored] = data["ignored"]
    assert ignored["location"] == "hooks.PreToolUse[0].hooks[2]" and "not supported" in ignored["why"]


def test_validate_names_file_and_path(tmp_path: Path) -> None:
    p = project(tmp_path, SETTINGS)
    ok = cli("hooks", "validate", "--project-dir", str(p))
    assert ok.returncode == 0 and ok.stdout.startswith("warning: .claude/settings.json: hooks.PreToolUse[0].hooks[2]")
    project(
        tmp_path,
        {"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "file:///etc/passwd"}, {"type": "prompt"}]}]}},
    )
    bad = cli("hooks", "validate", "--project-dir", str(p))
    assert bad.returncode == 1
    assert (
        "error: .claude/settings.json: hooks.Stop[0].hooks[0].url: must be an http:// or https:// URL, "
        "got 'file:///etc/passwd'" in bad.stdout
    )
    assert "error: .claude/settings.json: hooks.Stop[0].hooks[1].prompt: missing: a prompt hook needs" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr


def test_explain_covers_every_type(tmp_path: Path) -> None:
    p = project(tmp_path, SETTINGS)
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    res = cli("hooks", "explain", "PreToolUse", "--project-dir", str(p), "--json", stdin=payload)
    assert res.returncode == 0, res.stderr
    verdicts = json.loads(res.stdout)["hooks"]
    assert [(v["command"], v["would_run"], v["skip"]) for v in verdicts] == [
        (URL, True, None),
        ("block: rm -rf\n$ARGUMENTS", True, None),
        ("Verify with tools", False, "unsupported"),
    ]
    other = json.dumps({"tool_name": "Read", "tool_input": {"file_path": "x"}})
    res = cli("hooks", "explain", "PreToolUse", "--project-dir", str(p), "--json", stdin=other)
    assert [v["skip"] for v in json.loads(res.stdout)["hooks"]] == ["matcher", "matcher", "unsupported"]


@pytest.mark.anyio
async def test_fire_posts_to_the_endpoint(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        url = ep.reply("deny", {"decision": "block", "reason": "endpoint says no"})
        p = project(tmp_path, {"hooks": {"PostToolUse": [{"hooks": [{"type": "http", "url": url}]}]}})
        payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}})
        # The CLI blocks on its subprocess; run it in a thread so the endpoint can answer.
        res = await anyio.to_thread.run_sync(
            lambda: cli("hooks", "fire", "PostToolUse", "--project-dir", str(p), "--json", stdin=payload)
        )
    assert res.returncode == 2, res.stderr
    out = json.loads(res.stdout)
    assert out["blocked"] and out["reason"] == "endpoint says no"
    [got] = ep.of("deny")
    assert got.json["tool_name"] == "Bash" and got.json["hook_event_name"] == "PostToolUse"
