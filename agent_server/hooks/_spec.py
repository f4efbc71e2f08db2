"""The one internal form every configured hook is normalised into."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

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
    "derive_name",
    "unique_name",
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
    "StopFailure",
    "PermissionDenied",
    "CwdChanged",
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
        """The hook's short name (see :func:`derive_name`), unique within its event once
        the hook is in a :class:`~agent_server.hooks.HookConfig`."""
        return self.name or derive_name(self)

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


# Words that start a command without naming what it runs.
_LAUNCHERS = frozenset({"env", "exec", "uv", "run", "npx", "node", "deno", "bun", "bash", "sh", "zsh", "ruby", "perl"})
_SCRIPT_SUFFIXES = (".py", ".sh", ".js", ".mjs", ".ts", ".rb", ".pl", ".bash")


def derive_name(spec: HookSpec) -> str:
    """A short, stable name for a hook that has no explicit ``name``: the Python hook's
    module file name; an http hook's last URL path segment (else its host); ``prompt``
    for a prompt hook; else the first script file named on the command line (without
    its suffix), else the command's first word."""
    if spec.module:
        return _stem(spec.module)
    if spec.kind == "http":  # the URL's last path segment, else its host
        url = urlsplit(spec.command)
        return next((p for p in reversed(url.path.split("/")) if p), url.hostname or "http")
    if spec.kind == "prompt":
        return "prompt"
    try:
        words = shlex.split(spec.command)
    except ValueError:
        words = spec.command.split()
    if not words:
        return spec.command or spec.kind
    for word in words:
        if " " in word or word.startswith("-") or "=" in word.split("/")[0]:
            continue  # an inline script, an option or a VAR=value
        base = os.path.basename(word)
        if base in _LAUNCHERS or base.startswith("python"):
            continue  # an interpreter (/usr/bin/python3 too): the script comes next
        if word.endswith(_SCRIPT_SUFFIXES) or "/" in word:
            return _stem(word)
        break  # a program of its own: named by the first word
    return os.path.basename(words[0]) or words[0]


def _stem(path: str) -> str:
    base = os.path.basename(path.rstrip("/")) or path
    root, suffix = os.path.splitext(base)
    return root if suffix in _SCRIPT_SUFFIXES and root else base


def unique_name(name: str, taken: Collection[str]) -> str:
    """``name``, or ``name#2``, ``name#3``… : the first not in ``taken``."""
    if name not in taken:
        return name
    n = 2
    while f"{name}#{n}" in taken:
        n += 1
    return f"{name}#{n}"
