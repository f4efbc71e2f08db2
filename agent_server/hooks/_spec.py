"""The one internal form every configured hook is normalised into."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._match_rules import MATCH_FIELDS  # (owned by the rules module shared with the hooks)

__all__ = [
    "BLOCKING_EVENTS",
    "DEFAULT_TIMEOUTS",
    "HTTP_DEFAULT_TIMEOUT",
    "KNOWN_EVENTS",
    "MATCH_FIELDS",
    "PROMPT_DEFAULT_TIMEOUT",
    "TOOL_EVENTS",
    "HookCallback",
    "HookSpec",
]

HookKind = Literal["command", "exec", "python", "callback", "builtin", "http", "prompt"]
Dialect = Literal["claude", "orion", "harness", "genesis", "callback"]
CwdMode = Literal["session", "hooks_dir", "project"]

#: An in-process hook: receives the payload, returns what a command hook would print
#: (a JSON-shaped dict, a string, or None).
HookCallback = Callable[[dict[str, Any]], Awaitable[Mapping[str, Any] | str | None]]

KNOWN_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
)

#: Events whose hooks can stop the host from going ahead; in sequential order the
#: first block on these stops the remaining hooks.
BLOCKING_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "UserPromptSubmit"})

TOOL_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"})

#: Timeout unit and default per dialect, in seconds.
DEFAULT_TIMEOUTS: Mapping[str, float] = {
    "claude": 600.0,
    "orion": 30.0,
    "harness": 5.0,
    "genesis": 60.0,
    "callback": 60.0,
}

#: Default timeouts of the Claude Code hook types that run no process, in seconds.
HTTP_DEFAULT_TIMEOUT = 600.0
PROMPT_DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class HookSpec:
    """One runnable hook, whatever dialect it was written in.

    ``source`` and ``location`` (a JSON path such as ``hooks.PreToolUse[0].hooks[1]``)
    say where it came from, so every error and log line can point at it.
    """

    event: str
    kind: HookKind
    command: str
    dialect: Dialect
    source: str
    location: str
    argv: tuple[str, ...] | None = None
    matcher: str | None = None
    object_matcher: Mapping[str, Any] | None = None
    tool_pattern: str | None = None
    if_rule: str | None = None
    timeout: float = 600.0
    fail_closed: bool = False
    run_async: bool = False
    cwd_mode: CwdMode = "session"
    status_message: str | None = None
    warm: bool | None = None
    module: str | None = None
    builtin: str | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    callback: HookCallback | None = field(default=None, compare=False)
    name: str = ""
    #: ``http`` hooks: where the payload is POSTed, the headers (``$VAR`` filled only
    #: for names in ``allowed_env_vars``). ``command`` holds the URL.
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    allowed_env_vars: tuple[str, ...] = ()
    #: ``prompt`` hooks: the configured prompt (``$ARGUMENTS`` unexpanded); also ``command``.
    prompt: str | None = None

    @property
    def display_name(self) -> str:
        """A short human name: the explicit name, else the command."""
        return self.name or self.command

    @property
    def matcher_text(self) -> str | None:
        """What the entry matches on, as one string for lists, logs and traces: the
        matcher, else the ``Tool(arg-glob)`` pattern, else the object matcher as JSON;
        None when it matches every occurrence."""
        if self.matcher:
            return self.matcher
        if self.tool_pattern:
            return self.tool_pattern
        if self.object_matcher:
            return json.dumps(dict(self.object_matcher))
        return None

    @property
    def dedup_key(self) -> tuple[str, str] | None:
        """Identical command strings run once per event; callbacks never dedup."""
        if self.kind in ("callback", "builtin"):
            return None
        if self.kind in ("http", "prompt"):
            # A URL or a prompt never dedups against a command line that reads the same.
            return (self.event, f"{self.kind}:{self.command}")
        return (self.event, self.command)
