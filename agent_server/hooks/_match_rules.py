"""Claude Code's matcher rules (contract §5) and ``Tool(arg-glob)`` patterns.

The one implementation of which hooks a payload reaches, used by the engine and by the
ready-made hooks' ``dispatch.py``. Those hooks run without agent_server installed, so
this file exists twice, byte for byte: ``agent_server/hooks/_match_rules.py`` and
``hooks/_match_rules.py`` (a test fails when they differ: change one, copy it over the
other). Standard library only, and no ``typing`` at run time (a cold hook pays for
every import).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping  # (already loaded by re: free)

# Not typing.TYPE_CHECKING: importing typing costs a cold hook a few milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "MATCH_FIELDS",
    "check_matcher",
    "match_value",
    "matcher_applies",
    "matcher_matches",
    "parse_tool_pattern",
    "pattern_argument",
    "tool_pattern_matches",
]

#: Which payload field a matcher is compared with, per event (contract §5). On other
#: events a matcher is ignored.
MATCH_FIELDS: Mapping[str, str] = {
    "PreToolUse": "tool_name",
    "PermissionRequest": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "SessionStart": "source",
    "SessionEnd": "reason",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
    "Notification": "notification_type",
}

# Only name characters plus "|", "," and spaces: a list of exact names (contract §5).
_NAME_LIST = re.compile(r"^[\w\-|, ]+$")
_PATTERN = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
# The subagent tool is "Task" to the model and "Agent" to hooks; both names match it.
_ALIASES = {"Agent": ("Agent", "Task"), "Task": ("Task", "Agent")}


def check_matcher(matcher: str) -> str | None:
    """Return a problem with ``matcher`` (an invalid regex), or None when it is usable."""
    if matcher in ("", "*") or _NAME_LIST.match(matcher):
        return None
    try:
        re.compile(matcher)
    except re.error as exc:
        return f"invalid regular expression {matcher!r}: {exc}"
    return None


@functools.lru_cache(maxsize=512)
def _compiled(matcher: str) -> re.Pattern[str] | frozenset[str] | None:
    if _NAME_LIST.match(matcher):
        return frozenset(n for n in re.split(r"[|, ]+", matcher) if n)
    try:
        return re.compile(matcher)
    except re.error:
        return None


def matcher_matches(matcher: str | None, value: str | None) -> bool:
    """Claude Code matcher semantics: ``*``/empty match all, name lists, else regex."""
    if matcher is None or matcher in ("", "*"):
        return True
    if value is None:
        return False
    compiled = _compiled(matcher)
    candidates = _ALIASES.get(value, (value,))
    if compiled is None:
        return False
    if isinstance(compiled, frozenset):
        return any(c in compiled for c in candidates)
    return any(compiled.search(c) for c in candidates)


def match_value(event: str, payload: Mapping[str, Any]) -> str | None:
    """The payload field an event's matcher is compared with (None: matchers ignored)."""
    field = MATCH_FIELDS.get(event)
    if field is None:
        # A host's own event: match on the tool name when the payload has one.
        field = "tool_name" if "tool_name" in payload else None
    if field is None:
        return None
    value = payload.get(field)
    return None if value is None else str(value)


def matcher_applies(matcher: str | None, event: str, payload: Mapping[str, Any]) -> bool:
    """Whether a hook registered for ``event`` with ``matcher`` runs for ``payload``.

    Events without a match field (Stop, UserPromptSubmit, …) ignore the matcher.
    """
    if matcher is None:
        return True
    value = match_value(event, payload)
    if event not in MATCH_FIELDS and value is None:
        return True
    return matcher_matches(matcher, value)


def pattern_argument(tool_name: str, tool_input: Any) -> str:
    """The tool's main input a ``Tool(arg-glob)`` pattern is matched against."""
    if isinstance(tool_input, Mapping):
        if tool_name == "Bash" and isinstance(tool_input.get("command"), str):
            return str(tool_input["command"])
        for key in ("file_path", "notebook_path"):
            if isinstance(tool_input.get(key), str):
                return str(tool_input[key])
        if tool_name in ("Glob", "Grep") and isinstance(tool_input.get("pattern"), str):
            return str(tool_input["pattern"])
        if tool_name == "WebFetch" and isinstance(tool_input.get("url"), str):
            return str(tool_input["url"])
    return json.dumps(tool_input, separators=(",", ":"))


@functools.lru_cache(maxsize=512)
def _glob(glob: str) -> re.Pattern[str]:
    # "npm run test:*" is Claude Code's prefix form; it means "npm run test" + anything.
    if glob.endswith(":*"):
        glob = glob[:-2] + "*"
    parts = []
    for ch in glob:
        parts.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
    return re.compile("".join(parts), re.DOTALL)


def parse_tool_pattern(pattern: str) -> tuple[str, str | None] | None:
    """Split ``Tool(arg-glob)`` into its parts; None when it is not of that form."""
    m = _PATTERN.match(pattern)
    if not m:
        return None
    return m.group(1), m.group(2)


def tool_pattern_matches(pattern: str, tool_name: str | None, tool_input: Any) -> bool:
    """``Bash(git *)``: the tool name (globbed) and its main argument (globbed)."""
    parsed = parse_tool_pattern(pattern)
    if parsed is None or tool_name is None:
        return False
    tool_glob, arg_glob = parsed
    names = _ALIASES.get(tool_name, (tool_name,))
    if not any(_glob(tool_glob).fullmatch(n) for n in names):
        return False
    if arg_glob is None:
        return True
    return _glob(arg_glob).fullmatch(pattern_argument(tool_name, tool_input)) is not None
