"""Which configured hooks apply to a payload, and why not: matchers, object matchers,
tool patterns and the ``if`` field (:func:`why_not`), and the same for every entry of a
configuration, ignored and invalid ones included (:func:`explain`).

The rules themselves (matcher syntax, ``Tool(arg-glob)``) are in :mod:`._match_rules`,
shared with the ready-made hooks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._config import HookConfig
from ._match_rules import (
    check_matcher,
    match_value,
    matcher_applies,
    matcher_matches,
    parse_tool_pattern,
    pattern_argument,
    tool_pattern_matches,
)
from ._spec import HookSpec

__all__ = [
    "Verdict",
    "check_matcher",
    "explain",
    "hook_applies",
    "match_value",
    "matcher_matches",
    "parse_tool_pattern",
    "pattern_argument",
    "tool_pattern_matches",
    "why_not",
]


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


def _skip(spec: HookSpec, payload: Mapping[str, Any]) -> tuple[str, str] | None:
    """Which check keeps ``spec`` from applying to ``payload`` (its :class:`Verdict` kind)
    and why, or None when it applies."""
    if not matcher_applies(spec.matcher, spec.event, payload):
        return "matcher", f"matcher {spec.matcher!r} does not match {match_value(spec.event, payload)!r}"
    if spec.object_matcher is not None and not _object_matches(spec.object_matcher, payload):
        return "object matcher", f"matcher {dict(spec.object_matcher)!r} does not match the payload"
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if spec.tool_pattern is not None and not tool_pattern_matches(
        spec.tool_pattern, tool_name if isinstance(tool_name, str) else None, tool_input
    ):
        return "pattern", f"pattern {spec.tool_pattern!r} does not match the tool call"
    if (
        spec.if_rule is not None
        and isinstance(tool_name, str)
        and not tool_pattern_matches(spec.if_rule, tool_name, tool_input)
    ):
        return "if", f"if {spec.if_rule!r} does not match the tool call"
    return None


def why_not(spec: HookSpec, payload: Mapping[str, Any]) -> str | None:
    """Why ``spec`` does not apply to ``payload``, or None when it does."""
    skip = _skip(spec, payload)
    return None if skip is None else skip[1]


def hook_applies(spec: HookSpec, payload: Mapping[str, Any]) -> bool:
    """True when ``spec``'s matcher, object matcher, pattern and ``if`` all fit."""
    return why_not(spec, payload) is None


# -- explain -----------------------------------------------------------------------
@dataclass
class Verdict:
    """Whether one configured entry would run for a payload, and why not."""

    command: str
    source: str
    location: str
    runs: bool
    kind: str  # "" when it runs; else matcher | object matcher | pattern | if | untrusted |
    #            disabled | duplicate | unsupported | invalid
    why: str
    note: str = ""
    name: str = ""  # the hook's short name ("" for an entry that did not load)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``explain --json``."""
        return {
            "name": self.name or None,
            "command": self.command,
            "source": self.source,
            "location": self.location,
            "would_run": self.runs,
            "skip": self.kind or None,
            "why": self.why or None,
            "note": self.note or None,
        }


def _event_paths(event: str) -> tuple[str, ...]:
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()  # PreToolUse -> pre_tool_use
    return (f"hooks.{event}", f"hooks.{snake}")


def explain(
    config: HookConfig,
    event: str,
    payload: dict[str, Any],
    untrusted: Callable[[HookSpec], str | None] | None = None,
) -> list[Verdict]:
    """A verdict for every entry configured for ``event``: the hooks that load (in
    registration order), then ignored entries, then invalid ones. ``untrusted`` says why
    a hook that matches may still not run (the trust policy, ``HookTrust.reason``)."""
    verdicts: list[Verdict] = []
    for spec in config.hooks.get(event, []):
        kind, why = _skip(spec, payload) or ("", "")
        note = "runs in the background (async); its result is ignored" if spec.run_async else ""
        distrust = untrusted(spec) if not kind and untrusted is not None else None
        if distrust is not None:
            kind, why = "untrusted", distrust
        verdicts.append(Verdict(spec.command, spec.source, spec.location, not kind, kind, why, note, spec.display_name))
    for ig in config.ignored:
        if ig.event == event:
            verdicts.append(Verdict(ig.command, ig.source, ig.location, False, ig.kind, ig.why))
    prefixes = _event_paths(event)
    for issue in config.errors:
        if any(issue.path == p or issue.path.startswith((p + "[", p + ".")) for p in prefixes):
            verdicts.append(
                Verdict(
                    "(invalid entry)",
                    issue.file,
                    issue.path,
                    False,
                    "invalid",
                    issue.message + (f" ({issue.hint})" if issue.hint else ""),
                )
            )
    return verdicts
