"""Configuration: every dialect, the file hierarchy, dedup, disabling, ordering, errors."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_server.hooks import load_config
from agent_server.hooks._config import HookConfig


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def settings(project: Path, data: Any, name: str = "settings.json") -> Path:
    return write(project / ".claude" / name, data)


def load(project: Path, **kw: Any) -> HookConfig:
    kw.setdefault("user_settings", None)
    return load_config(project, **kw)


def claude(cmd: str, matcher: str | None = None, **hook: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": cmd, **hook}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def test_claude_dialect(tmp_path: Path) -> None:
    settings(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [
                    claude("echo a", "Bash", timeout=2.5, onFailure="block", **{"if": "Bash(git *)"}),
                    {"matcher": "Write", "hooks": [{"type": "command", "args": ["/bin/echo", "x y"]}]},
                ]
            }
        },
    )
    config = load(tmp_path)
    assert not config.issues
    a, b = config.hooks["PreToolUse"]
    assert (a.kind, a.command, a.matcher, a.timeout, a.fail_closed, a.if_rule) == (
        "command",
        "echo a",
        "Bash",
        2.5,
        True,
        "Bash(git *)",
    )
    assert a.argv == ("/bin/sh", "-c", "echo a")
    assert a.cwd_mode == "session" and a.dialect == "claude"
    assert a.source == ".claude/settings.json" and a.location == "hooks.PreToolUse[0].hooks[0]"
    assert b.kind == "exec" and b.argv == ("/bin/echo", "x y")
    assert b.timeout == 600.0  # Claude Code's default, in seconds


def test_orion_dialect_milliseconds_and_hooks_dir(tmp_path: Path) -> None:
    script = write(tmp_path / ".claude" / "hooks" / "check.sh", "#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    settings(
        tmp_path,
        {
            "hooks": {
                "Stop": [
                    {"command": "check.sh --fast", "timeout": 1500, "continueOnError": False},
                    {"command": "echo hi"},
                ]
            }
        },
    )
    config = load(tmp_path)
    assert not config.issues, config.issues
    a, b = config.hooks["Stop"]
    assert a.dialect == "orion" and a.timeout == 1.5 and a.fail_closed
    assert a.cwd_mode == "hooks_dir"
    assert a.argv is not None and str(script) in a.argv[2] and a.argv[2].endswith(" --fast")
    assert b.timeout == 30.0 and not b.fail_closed  # 30000 ms default, fail open


def test_harness_dialect(tmp_path: Path) -> None:
    script = write(tmp_path / "tools" / "gate.py", "#!/usr/bin/env python3\n")
    script.chmod(0o755)
    write(tmp_path / "tools" / "other.py", "").chmod(0o755)
    settings(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [
                    {"path": "tools/gate.py", "matcher": {"tool_name": "Bash"}},
                    {"path": "tools/other.py", "timeout": 250, "matcher": "Write"},
                ]
            }
        },
    )
    config = load(tmp_path)
    a, b = config.hooks["PreToolUse"]
    assert a.dialect == "harness" and a.argv == (str(script),) and a.timeout == 5.0
    assert a.object_matcher == {"tool_name": "Bash"} and a.cwd_mode == "project"
    assert b.timeout == 0.25 and b.matcher == "Write"


def test_python_hook_forms_run_without_uv(tmp_path: Path) -> None:
    write(tmp_path / ".claude" / "hooks" / "x.py", "def run(p):\n    return None\n")
    settings(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [
                    claude("uv run python hook_launcher.py x.py"),
                    {"command": "python hook_launcher.py x.py --flag"},
                    {"hooks": [{"type": "python", "module": "x.py"}]},
                ]
            }
        },
    )
    config = load(tmp_path)
    specs = config.hooks["PreToolUse"]
    assert [s.kind for s in specs] == ["python"] * 3
    for s in specs:
        assert s.argv is not None and s.argv[0] == sys.executable
        assert s.argv[1].endswith("hook_launcher.py") and s.argv[2] == "x.py"
    assert specs[1].argv is not None and specs[1].argv[3:] == ("--flag",)


def test_genesis_key(tmp_path: Path) -> None:
    write(
        tmp_path / ".mentu" / "genesis.key",
        """
permissions:
  actors:
    bot:
      allow: ["Read(*)", "Bash(git *)"]
      deny: ["Bash(git push *)"]
hooks:
  pre_tool_use:
    - matcher: "Bash(rm *)"
      type: deny
      config: {reason: "no rm"}
    - type: approval_gate
      matcher: "Write(*.md)"
    - type: modify
      matcher: "Bash"
      config: {set: {timeout: 5}}
    - type: command
      config: {command: "echo hi", timeout: 3}
  post_tool_use:
    - type: evidence_capture
  stop:
    - type: genesis_enforcement
""",
    )
    config = load(tmp_path)
    assert not config.errors, config.errors
    pre = config.hooks["PreToolUse"]
    assert [s.builtin or s.kind for s in pre] == ["permissions", "deny", "approval_gate", "modify", "command"]
    assert pre[1].tool_pattern == "Bash(rm *)"
    assert pre[4].timeout == 3.0 and pre[4].cwd_mode == "project"
    assert config.hooks["PostToolUse"][0].builtin == "evidence_capture"
    assert config.hooks["Stop"][0].builtin == "genesis_enforcement"
    assert config.genesis_actors["bot"].deny == ["Bash(git push *)"]


def test_file_hierarchy_all_run_in_order(tmp_path: Path) -> None:
    user = write(tmp_path / "home" / "settings.json", {"hooks": {"Stop": [claude("echo user")]}})
    project = tmp_path / "p"
    settings(project, {"hooks": {"Stop": [claude("echo project")]}})
    settings(project, {"hooks": {"Stop": [claude("echo local")]}}, "settings.local.json")
    write(
        project / ".mentu" / "genesis.key",
        "hooks:\n  stop:\n    - type: command\n      config: {command: echo genesis}\n",
    )
    managed = write(tmp_path / "managed.json", {"hooks": {"Stop": [claude("echo managed")]}})
    config = load_config(project, user_settings=user, managed_file=managed)
    assert [s.command for s in config.hooks["Stop"]] == [
        "echo user",
        "echo project",
        "echo local",
        "echo genesis",
        "echo managed",
    ]


def test_identical_commands_run_once_across_files(tmp_path: Path) -> None:
    settings(tmp_path, {"hooks": {"Stop": [claude("echo same", timeout=5)]}})
    settings(
        tmp_path, {"hooks": {"Stop": [claude("echo same", timeout=9), claude("echo other")]}}, "settings.local.json"
    )
    config = load(tmp_path)
    assert [s.command for s in config.hooks["Stop"]] == ["echo same", "echo other"]
    assert config.hooks["Stop"][0].timeout == 5
    (ignored,) = config.ignored
    assert "duplicate" in ignored.why and ignored.source == ".claude/settings.local.json"
    assert ignored.kind == "duplicate"


def test_disable_all_hooks(tmp_path: Path) -> None:
    settings(tmp_path, {"hooks": {"Stop": [claude("echo a")]}})
    settings(tmp_path, {"disableAllHooks": True}, "settings.local.json")
    config = load(tmp_path)
    assert config.disabled and not config.hooks["Stop"]
    assert "disableAllHooks" in config.ignored[0].why and config.ignored[0].kind == "disabled"


def test_managed_hooks_survive_user_disable_and_can_forbid_others(tmp_path: Path) -> None:
    settings(tmp_path, {"disableAllHooks": True, "hooks": {"Stop": [claude("echo mine")]}})
    managed = write(tmp_path / "m.json", {"hooks": {"Stop": [claude("echo policy")]}})
    config = load(tmp_path, managed_file=managed)
    assert [s.command for s in config.hooks["Stop"]] == ["echo policy"]

    settings(tmp_path, {"hooks": {"Stop": [claude("echo mine")]}})
    write(managed, {"allowManagedHooksOnly": True, "hooks": {"Stop": [claude("echo policy")]}})
    config = load(tmp_path, managed_file=managed)
    assert [s.command for s in config.hooks["Stop"]] == ["echo policy"]
    assert "allowManagedHooksOnly" in config.ignored[0].why


def test_order_setting(tmp_path: Path) -> None:
    settings(tmp_path, {"hookRunner": {"order": "parallel"}})
    assert load(tmp_path).order_for("Stop") == "parallel"
    settings(tmp_path, {"hookRunner": {"order": {"PreToolUse": "parallel"}}})
    config = load(tmp_path)
    assert config.order_for("PreToolUse") == "parallel"
    assert config.order_for("Stop") == "sequential"


def test_unknown_events_are_kept_with_a_warning(tmp_path: Path) -> None:
    settings(tmp_path, {"hooks": {"MyHostEvent": [claude("echo x")]}})
    config = load(tmp_path)
    assert [s.command for s in config.hooks["MyHostEvent"]] == ["echo x"]
    assert not config.errors and "MyHostEvent" in str(config.warnings[0])


@pytest.mark.parametrize(
    ("data", "path", "words"),
    [
        (
            {"hooks": {"PreToolUse": [claude("x", timeout=-1)]}},
            "hooks.PreToolUse[0].hooks[0].timeout",
            "greater than 0",
        ),
        (
            {"hooks": {"PreToolUse": [claude("x", onFailure="explode")]}},
            "hooks.PreToolUse[0].hooks[0].onFailure",
            "block",
        ),
        (
            {"hooks": {"PreToolUse": [{"matcher": "[bad", "hooks": []}]}},
            "hooks.PreToolUse[0].matcher",
            "regular expression",
        ),
        (
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}},
            "hooks.PreToolUse[0].hooks[0]",
            "'command' or 'args'",
        ),
        ({"hooks": {"PreToolUse": [{"what": 1}]}}, "hooks.PreToolUse[0]", "dialect"),
        ({"hooks": {"PreToolUse": {"not": "a list"}}}, "hooks.PreToolUse", "list"),
        ({"hooks": []}, "hooks", "object"),
        ({"hooks": {"Stop": [{"command": "x", "timeout": "soon"}]}}, "hooks.Stop[0].timeout", "number"),
        (
            {"hooks": {"PreToolUse": [claude("x", **{"if": "not a pattern("})]}},
            "hooks.PreToolUse[0].hooks[0].if",
            "pattern",
        ),
        ({"hookRunner": {"order": "random"}}, "hookRunner.order", "sequential"),
        ({"disableAllHooks": "yes"}, "disableAllHooks", "true or false"),
        (
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "args": []}]}]}},
            "hooks.PreToolUse[0].hooks[0].args",
            "empty",
        ),
    ],
)
def test_errors_name_file_path_and_problem(tmp_path: Path, data: Any, path: str, words: str) -> None:
    settings(tmp_path, data)
    config = load(tmp_path)
    assert config.errors, "expected an error"
    err = config.errors[0]
    assert err.file == ".claude/settings.json"
    assert err.path == path, str(err)
    assert words in err.message, str(err)


def test_bad_entry_does_not_stop_its_siblings_or_other_files(tmp_path: Path) -> None:
    settings(tmp_path, {"hooks": {"Stop": [claude("x", timeout=0), claude("echo good")]}})
    settings(tmp_path, "{ not json", "settings.local.json")
    write(tmp_path / ".mentu" / "genesis.key", "hooks: [unclosed")
    config = load(tmp_path)
    assert [s.command for s in config.hooks["Stop"]] == ["echo good"]
    files = {e.file for e in config.errors}
    assert files == {".claude/settings.json", ".claude/settings.local.json", ".mentu/genesis.key"}
    local = next(e for e in config.errors if e.file.endswith("local.json"))
    assert local.path.startswith("line 1 column") and "invalid JSON" in local.message
    yaml_err = next(e for e in config.errors if e.file.endswith("genesis.key"))
    assert "invalid YAML" in yaml_err.message and yaml_err.path.startswith("line 1")


def test_genesis_errors(tmp_path: Path) -> None:
    write(
        tmp_path / ".mentu" / "genesis.key",
        """
hooks:
  pre_tool_use:
    - type: teleport
    - type: modify
    - type: deny
      matcher: "Bash(unclosed"
""",
    )
    config = load(tmp_path)
    paths = sorted(e.path for e in config.errors)
    assert paths == ["hooks.pre_tool_use[0].type", "hooks.pre_tool_use[1].config.set", "hooks.pre_tool_use[2].matcher"]


def test_warnings_for_missing_and_non_executable_scripts(tmp_path: Path) -> None:
    script = write(tmp_path / "hooks" / "lint.sh", "#!/bin/sh\n")
    script.chmod(stat.S_IRUSR | stat.S_IWUSR)
    settings(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [
                    claude("$CLAUDE_PROJECT_DIR/hooks/lint.sh"),
                    claude("./hooks/missing.sh --x"),
                    {"hooks": [{"type": "command", "command": "echo x", "timout": 5}]},
                ]
            }
        },
    )
    config = load(tmp_path)
    assert not config.errors
    texts = [str(w) for w in config.warnings]
    assert any("not executable" in t and f"chmod +x {script}" in t for t in texts), texts
    assert any("missing.sh" in t and "not found" in t for t in texts), texts
    assert any("unknown field 'timout'" in t for t in texts), texts
    assert len(config.hooks["PreToolUse"]) == 3  # warnings do not drop hooks


def test_unsupported_hook_type_is_ignored_with_reason(tmp_path: Path) -> None:
    settings(tmp_path, {"hooks": {"Stop": [{"hooks": [{"type": "agent", "prompt": "x"}]}]}})
    config = load(tmp_path)
    assert not config.hooks.get("Stop")
    assert "not supported" in config.ignored[0].why


def test_default_user_settings_come_from_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write(tmp_path / "home" / ".claude" / "settings.json", {"hooks": {"Stop": [claude("echo u")]}})
    (tmp_path / "p").mkdir()
    config = load_config(tmp_path / "p")
    assert [s.command for s in config.hooks["Stop"]] == ["echo u"]
    assert os.path.isabs(config.files[0])


def test_command_with_args_execs_command_with_those_arguments(tmp_path: Path) -> None:
    settings(
        tmp_path,
        {
            "hooks": {
                "Stop": [
                    claude("/usr/bin/python3", args=["hook.py", "x"]),
                    claude("/bin/true", args=[]),
                ]
            }
        },
    )
    config = load(tmp_path)
    assert not config.errors
    with_args, without = config.hooks["Stop"]
    assert (with_args.kind, with_args.argv) == ("exec", ("/usr/bin/python3", "hook.py", "x"))
    assert without.argv == ("/bin/true",)  # no shell even with empty args


def test_settings_come_from_the_git_root_of_a_subfolder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)  # what git init makes; a worktree has a .git file
    settings(root, {"hooks": {"Stop": [claude("echo root")]}})
    sub = root / "packages" / "app"
    sub.mkdir(parents=True)
    config = load(sub)
    assert config.project_dir == root.resolve()
    assert [s.command for s in config.hooks["Stop"]] == ["echo root"]
    assert load(tmp_path).project_dir == tmp_path.resolve()  # outside a repository: as given


def test_every_field_a_model_reads_is_a_known_key(tmp_path: Path) -> None:
    """The unknown-field warning comes from the models themselves: their aliases
    (``if``, ``async``) are known, a misspelling is not."""
    hook = {
        "type": "command",
        "command": "echo x",
        "timeout": 5,
        "if": "Bash(git *)",
        "onFailure": "block",
        "async": False,
        "statusMessage": "checking",
        "warm": False,
        "asynch": True,
    }
    settings(tmp_path, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook], "matchr": "x"}]}})
    config = load(tmp_path)
    unknown = sorted(w.path for w in config.warnings if "unknown field" in w.message)
    assert unknown == ["hooks.PreToolUse[0].hooks[0].asynch", "hooks.PreToolUse[0].matchr"]


def test_harness_timeout_below_100_ms_is_probably_seconds(tmp_path: Path) -> None:
    for name in ("a.sh", "b.sh"):
        write(tmp_path / name, "#!/bin/sh\n").chmod(0o755)
    settings(tmp_path, {"hooks": {"PreToolUse": [{"path": "a.sh", "timeout": 30}, {"path": "b.sh", "timeout": 100}]}})
    config = load(tmp_path)
    assert [h.timeout for h in config.hooks["PreToolUse"]] == [0.03, 0.1]  # still loaded as written
    [warning] = config.warnings
    assert warning.path == "hooks.PreToolUse[0].timeout" and "Harness" in warning.message and "30000" in warning.hint
