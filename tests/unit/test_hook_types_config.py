"""Settings entries of type http, prompt and agent: what loads, and one clear error per
bad entry (file, JSON path, what is wrong) while the rest of the file still loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_server.hooks import load_config


def load(tmp_path: Path, hooks: dict[str, Any]) -> Any:
    (tmp_path / ".claude").mkdir(exist_ok=True)
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return load_config(tmp_path, user_settings=None)


def issues(config: Any) -> list[tuple[str, str, str, str]]:
    return [(i.severity, i.file, i.path, i.message) for i in config.issues]


def test_http_prompt_and_command_hooks_load(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "http",
                            "url": "https://hooks.example/pre",
                            "headers": {"Authorization": "Bearer $TOKEN"},
                            "allowedEnvVars": ["TOKEN"],
                            "timeout": 5,
                            "onFailure": "block",
                        },
                        {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"},
                        {"type": "command", "command": "true"},
                    ],
                }
            ]
        },
    )
    assert config.issues == []
    http, prompt, command = config.hooks["PreToolUse"]
    assert (http.kind, http.command, http.url, http.timeout, http.fail_closed) == (
        "http",
        "https://hooks.example/pre",
        "https://hooks.example/pre",
        5.0,
        True,
    )
    assert dict(http.headers) == {"Authorization": "Bearer $TOKEN"} and http.allowed_env_vars == ("TOKEN",)
    assert http.matcher == "Bash" and http.location == "hooks.PreToolUse[0].hooks[0]"
    assert (prompt.kind, prompt.prompt, prompt.timeout) == ("prompt", "Is this safe? $ARGUMENTS", 30.0)
    assert command.kind == "command"


def test_each_bad_entry_is_one_error_and_the_rest_loads(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "PreToolUse": [
                {
                    "hooks": [
                        {"type": "webhook", "url": "http://x/"},
                        {"type": "http"},
                        {"type": "http", "url": "ftp://files.example/x"},
                        {"type": "http", "url": "http:///nohost"},
                        {"type": "prompt"},
                        {"type": "prompt", "prompt": "   "},
                        {"type": "command", "command": "echo still-here"},
                    ]
                }
            ]
        },
    )
    f = ".claude/settings.json"
    p = "hooks.PreToolUse[0].hooks"
    assert issues(config) == [
        ("error", f, f"{p}[0].type", "unknown hook type 'webhook': expected command, http, prompt, agent or python"),
        ("error", f, f"{p}[1].url", "missing: an http hook needs 'url' (where the event's JSON is POSTed)"),
        ("error", f, f"{p}[2].url", "must be an http:// or https:// URL, got 'ftp://files.example/x'"),
        ("error", f, f"{p}[3].url", "has no host: 'http:///nohost'"),
        (
            "error",
            f,
            f"{p}[4].prompt",
            "missing: a prompt hook needs 'prompt' (the instruction for the model; "
            "$ARGUMENTS is replaced by the event's JSON)",
        ),
        (
            "error",
            f,
            f"{p}[5].prompt",
            "missing: a prompt hook needs 'prompt' (the instruction for the model; "
            "$ARGUMENTS is replaced by the event's JSON)",
        ),
    ]
    assert [s.command for s in config.hooks["PreToolUse"]] == ["echo still-here"]


def test_wrong_field_types_name_the_field(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {"Stop": [{"hooks": [{"type": "http", "url": "http://h/", "headers": {"X-N": 5}, "allowedEnvVars": "TOKEN"}]}]},
    )
    paths = [i.path for i in config.errors]
    assert paths == ["hooks.Stop[0].hooks[0].headers.X-N", "hooks.Stop[0].hooks[0].allowedEnvVars"]


def test_agent_hooks_are_listed_as_unsupported(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {"Stop": [{"hooks": [{"type": "agent", "prompt": "Check the tests pass"}, {"type": "agent"}]}]},
    )
    [ignored] = config.ignored
    assert ignored.location == "hooks.Stop[0].hooks[0]" and ignored.command == "Check the tests pass"
    assert ignored.why.startswith("hook type 'agent' is not supported")
    assert [(i.severity, i.path) for i in config.issues] == [
        ("warning", "hooks.Stop[0].hooks[0].type"),
        ("error", "hooks.Stop[0].hooks[1].prompt"),
    ]
    assert config.hooks.get("Stop", []) == []


def test_warnings_for_what_would_surprise(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "SessionStart": [{"hooks": [{"type": "http", "url": "http://h/start"}]}],
            "Stop": [
                {
                    "hooks": [
                        {"type": "http", "url": "http://h/stop", "headers": {"X-Key": "${KEY}"}},
                        {"type": "prompt", "prompt": "Is the work done?", "model": "claude-haiku"},
                    ]
                }
            ],
        },
    )
    assert [(i.severity, i.path, i.message) for i in config.issues] == [
        (
            "warning",
            "hooks.SessionStart[0].hooks[0].type",
            "http hooks are not sent for SessionStart (as in Claude Code); the entry is ignored",
        ),
        (
            "warning",
            "hooks.Stop[0].hooks[0].headers.X-Key",
            "$KEY is not in allowedEnvVars: it is sent as an empty string",
        ),
        (
            "warning",
            "hooks.Stop[0].hooks[1].prompt",
            "the prompt has no $ARGUMENTS: the model will not see the event's JSON",
        ),
        ("warning", "hooks.Stop[0].hooks[1].model", "'model' is ignored: prompt hooks use the session's model"),
    ]
    assert config.hooks.get("SessionStart", []) == []
    assert [(i.kind, i.why) for i in config.ignored] == [
        ("unsupported", "http hooks are not sent for SessionStart (as in Claude Code)")
    ]
    assert len(config.hooks["Stop"]) == 2


def test_same_url_runs_once_but_never_dedups_against_a_command(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        {
            "Stop": [
                {"hooks": [{"type": "http", "url": "http://h/x"}]},
                {"hooks": [{"type": "http", "url": "http://h/x"}]},
                {"hooks": [{"type": "command", "command": "http://h/x"}]},
            ]
        },
    )
    assert [s.kind for s in config.hooks["Stop"]] == ["http", "command"]
    assert [i.why for i in config.ignored] == ["duplicate of .claude/settings.json hooks.Stop[0].hooks[0]"]
