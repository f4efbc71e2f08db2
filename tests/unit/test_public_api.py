"""The public surface is pinned: changing it must be a deliberate act."""

from __future__ import annotations

import agent_server.hooks as hooks


def test_exports_are_pinned() -> None:
    assert set(hooks.__all__) >= {
        "ConfigError",
        "ConfigIssue",
        "EventOutcome",
        "HookCallback",
        "HookConfig",
        "HookError",
        "HookResult",
        "HookRunner",
        "HookSpec",
        "HookStatus",
        "IgnoredHook",
        "KNOWN_EVENTS",
        "RunnerClosedError",
        "UnknownHookTypeError",
        "load_config",
        "matcher_matches",
        "parse_env_file",
        "tool_pattern_matches",
    }
    for name in hooks.__all__:
        assert getattr(hooks, name) is not None
        assert not name.startswith("_")


def test_exception_tree() -> None:
    for exc in (hooks.ConfigError, hooks.RunnerClosedError, hooks.UnknownHookTypeError):
        assert issubclass(exc, hooks.HookError)
    err = hooks.ConfigError([hooks.ConfigIssue("a.json", "hooks.Stop[0]", "bad")])
    assert "a.json: hooks.Stop[0]: bad" in str(err) and err.issues[0].file == "a.json"
