"""The embeddable hook engine: load hooks, fire events, get one combined outcome.

Usable without the server::

    from agent_server.hooks import HookRunner

    async with HookRunner.from_project(".") as runner:
        outcome = await runner.fire("PreToolUse", payload)
"""

from __future__ import annotations

from ._cli import add_hooks_commands
from ._config import HookConfig, IgnoredHook, default_files, load_config, load_files, settings_root
from ._errors import ConfigError, ConfigIssue, HookError, RunnerClosedError, UnknownHookTypeError
from ._ledger import HookLedger, LedgerError
from ._matching import matcher_matches, tool_pattern_matches
from ._outcome import EventOutcome, HookResult, HookStatus
from ._permissions import PermissionBehavior, PermissionDecision, PermissionRule, PermissionRules
from ._prompt import (
    PROMPT_HOOK_SCHEMA,
    PROMPT_HOOK_SYSTEM,
    PromptEvaluator,
    PromptReplyError,
    expand_prompt,
    parse_prompt_reply,
)
from ._runner import DEFAULT_STRIPPED_ENV, HookRunner, parse_env_file
from ._spec import KNOWN_EVENTS, HookCallback, HookSpec
from ._trust import (
    TRUST_ALL_ENV,
    UNTRUSTED_REASON,
    HookTrust,
    TrustError,
    TrustItem,
    TrustPolicy,
    TrustStore,
    permissions_trusted,
    trust_store_path,
)

__all__ = [
    "DEFAULT_STRIPPED_ENV",
    "KNOWN_EVENTS",
    "PROMPT_HOOK_SCHEMA",
    "PROMPT_HOOK_SYSTEM",
    "TRUST_ALL_ENV",
    "UNTRUSTED_REASON",
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
    "HookTrust",
    "IgnoredHook",
    "LedgerError",
    "PermissionBehavior",
    "PermissionDecision",
    "PermissionRule",
    "PermissionRules",
    "PromptEvaluator",
    "PromptReplyError",
    "RunnerClosedError",
    "TrustError",
    "TrustItem",
    "TrustPolicy",
    "TrustStore",
    "UnknownHookTypeError",
    "add_hooks_commands",
    "default_files",
    "expand_prompt",
    "load_config",
    "load_files",
    "matcher_matches",
    "parse_env_file",
    "parse_prompt_reply",
    "permissions_trusted",
    "settings_root",
    "tool_pattern_matches",
    "trust_store_path",
]
