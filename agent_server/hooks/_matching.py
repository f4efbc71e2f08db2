"""Which hooks apply to a payload: matchers, the ``if`` field, tool patterns."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from ._spec import MATCH_FIELDS, HookSpec

__all__ = [
    "check_matcher",
    "glob_matches",
    "hook_applies",
    "match_value",
    "matcher_matches",
    "path_glob_matches",
    "pattern_argument",
    "tool_pattern_matches",
]

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
    names = _ALIASES.get(tool_name, (tool_name,))
    if not any(_glob(tool_glob).fullmatch(n) for n in names):
        return False
    if arg_glob is None:
        return True
    return _glob(arg_glob).fullmatch(pattern_argument(tool_name, tool_input)) is not None


def _object_matches(matcher: Mapping[str, Any], payload: Mapping[str, Any]) -> bool:
    for key, expected in matcher.items():
        actual = payload.get(key)
        if isinstance(expected, list):
            if actual not in expected:
                return False
        elif isinstance(expected, str):
            if not matcher_matches(expected, None if actual is None else str(actual)):
                return False
        elif actual != expected:
            return False
    return True


def why_not(spec: HookSpec, payload: Mapping[str, Any]) -> str | None:
    """Why ``spec`` does not apply to ``payload``, or None when it does."""
    value = match_value(spec.event, payload)
    if (
        spec.matcher is not None
        and (spec.event in MATCH_FIELDS or value is not None)
        and not matcher_matches(spec.matcher, value)
    ):
        return f"matcher {spec.matcher!r} does not match {value!r}"
    if spec.object_matcher is not None and not _object_matches(spec.object_matcher, payload):
        return f"matcher {dict(spec.object_matcher)!r} does not match the payload"
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if spec.tool_pattern is not None and not tool_pattern_matches(
        spec.tool_pattern, tool_name if isinstance(tool_name, str) else None, tool_input
    ):
        return f"pattern {spec.tool_pattern!r} does not match the tool call"
    if (
        spec.if_rule is not None
        and isinstance(tool_name, str)
        and not tool_pattern_matches(spec.if_rule, tool_name, tool_input)
    ):
        return f"if {spec.if_rule!r} does not match the tool call"
    return None


def hook_applies(spec: HookSpec, payload: Mapping[str, Any]) -> bool:
    """True when ``spec``'s matcher, object matcher, pattern and ``if`` all fit."""
    return why_not(spec, payload) is None
