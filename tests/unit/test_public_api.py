"""The public surface is pinned: changing it must be a deliberate act."""

from __future__ import annotations

import agent_server.hooks as hooks
import agent_server.server as server


def test_exports_are_pinned() -> None:
    assert set(hooks.__all__) == {
        "DEFAULT_STRIPPED_ENV",
        "ConfigError",
        "ConfigIssue",
        "EventOutcome",
        "HookCallback",
        "HookConfig",
        "HookError",
        "HookLedger",
        "HookResult",
        "HookRunner",
        "HookSpec",
        "HookStatus",
        "IgnoredHook",
        "KNOWN_EVENTS",
        "LedgerError",
        "PermissionBehavior",
        "PermissionDecision",
        "PermissionRule",
        "PermissionRules",
        "PROMPT_HOOK_SCHEMA",
        "PROMPT_HOOK_SYSTEM",
        "PromptEvaluator",
        "PromptReplyError",
        "RunnerClosedError",
        "UnknownHookTypeError",
        "add_hooks_commands",
        "default_files",
        "expand_prompt",
        "load_config",
        "load_files",
        "matcher_matches",
        "parse_env_file",
        "parse_prompt_reply",
        "settings_root",
        "tool_pattern_matches",
        # project hook trust (docs/server.md "Security model")
        "TRUST_ALL_ENV",
        "UNTRUSTED_REASON",
        "HookTrust",
        "TrustError",
        "TrustItem",
        "TrustPolicy",
        "TrustStore",
        "permissions_trusted",
        "trust_store_path",
    }
    assert len(hooks.__all__) == len(set(hooks.__all__))
    for name in hooks.__all__:
        assert getattr(hooks, name) is not None
        assert not name.startswith("_")


def test_server_exports_are_pinned() -> None:
    assert set(server.__all__) == {
        "ApiError",
        "BusyError",
        "ClosedError",
        "InvalidRequestError",
        "NotFoundError",
        "Session",
        "SessionError",
        "SessionManager",
        "Settings",
        "SettingsInvalid",
        "Telemetry",
        "UnavailableError",
        "create_app",
        "load_settings",
        "request_shutdown",
        "telemetry_from_env",
    }
    for name in server.__all__:
        assert getattr(server, name) is not None


def test_server_exception_tree() -> None:
    # The session layer's errors know no HTTP status: the app maps them (see test_server_api).
    for exc in (server.BusyError, server.ClosedError, server.InvalidRequestError, server.NotFoundError):
        assert issubclass(exc, server.SessionError) and not hasattr(exc, "status")
    assert server.UnavailableError("going").code == "unavailable"


def test_exception_tree() -> None:
    for exc in (hooks.ConfigError, hooks.RunnerClosedError, hooks.UnknownHookTypeError):
        assert issubclass(exc, hooks.HookError)
    err = hooks.ConfigError([hooks.ConfigIssue("a.json", "hooks.Stop[0]", "bad")])
    assert "a.json: hooks.Stop[0]: bad" in str(err) and err.issues[0].file == "a.json"
