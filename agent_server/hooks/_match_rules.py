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
    "glob_matches",
    "match_value",
    "matcher_applies",
    "matcher_matches",
    "parse_tool_pattern",
    "path_glob_matches",
    "pattern_argument",
    "tool_names",
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


def tool_names(tool_name: str) -> tuple[str, ...]:
    """Every name ``tool_name`` is known by (``Agent`` and ``Task`` are one tool)."""
    return _ALIASES.get(tool_name, (tool_name,))


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
    candidates = tool_names(value)
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
    # "npm run test:*" is Claude Code's legacy prefix form, the same as "npm run test *".
    if glob.endswith(":*"):
        glob = glob[:-2] + " *"
    # A lone trailing " *" keeps a word boundary and is optional: "ls *" matches "ls" and
    # "ls -la", never "lsof" (Claude Code's documented rule syntax).
    optional_tail = glob.endswith(" *") and glob.count("*") == 1
    if optional_tail:
        glob = glob[:-2]
    parts = []
    for ch in glob:
        parts.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
    if optional_tail:
        parts.append("(?: .*)?")
    return re.compile("".join(parts), re.DOTALL)


def glob_matches(glob: str, text: str) -> bool:
    """Claude Code's wildcard match of a whole string: ``*`` is any text, ``?`` one
    character, a trailing ``:*`` or lone trailing `` *`` a word-bounded optional rest."""
    return _glob(glob).fullmatch(text) is not None


@functools.lru_cache(maxsize=512)
def _path_glob(pattern: str) -> re.Pattern[str]:
    # gitignore wildcards: "*" and "?" stay within one path segment, "**" crosses them.
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = re.escape(body[1:] if negate else body).replace("\\-", "-")
            out.append(f"[{'^' if negate else ''}{body}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def path_glob_matches(pattern: str, relative: str) -> bool:
    """gitignore-style match of ``pattern`` against a ``/``-separated path relative to
    the pattern's base folder. A pattern with a leading or inner ``/`` is anchored to
    the base, one without matches at any depth; a trailing ``/`` matches folders only;
    a match on a folder covers everything in it."""
    relative = relative.strip("/")
    if not relative or relative == ".." or relative.startswith("../"):
        return False
    dir_only = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    anchored = "/" in pattern  # a leading or inner "/" anchors it to the base folder
    pattern = pattern.lstrip("/")
    if not pattern:
        return False
    if not anchored:
        pattern = "**/" + pattern
    regex = _path_glob(pattern)
    segments = relative.split("/")
    # The path itself, then each folder above it (a denied folder denies its files).
    for n in range(len(segments), 0, -1):
        if dir_only and n == len(segments):
            continue
        if regex.fullmatch("/".join(segments[:n])):
            return True
    return False


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
    names = tool_names(tool_name)
    if not any(_glob(tool_glob).fullmatch(n) for n in names):
        return False
    if arg_glob is None:
        return True
    return _glob(arg_glob).fullmatch(pattern_argument(tool_name, tool_input)) is not None
