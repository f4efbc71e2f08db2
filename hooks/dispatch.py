"""Run every hook of one category in a single process.

Hook: dispatch
Event: * (each hook of the category declares its own EVENTS)
Matcher: * (each hook declares its own MATCHER, applied here with Claude Code's rules)
Description: Loads hooks/<category>/*.py (HOOK_CATEGORY: security, gate or feedback, or a
    comma-separated list; default security), runs those whose EVENTS contain the payload's
    event and whose MATCHER fits the tool name / source / trigger / agent type, in file-name
    order, and combines their answers: any deny → deny with the reasons joined; else any
    ask → ask; Stop-style blocks joined; additionalContext and systemMessage joined in order
    and cut to HOOK_OUTPUT_BUDGET characters (default 10000) with a visible marker. A
    security hook that raises denies (fail closed); other failing hooks are reported in a
    systemMessage and skipped. One interpreter start instead of one per hook.
"""

from __future__ import annotations

import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import _common  # noqa: E402

# The matcher rules are the engine's own (_match_rules.py is a byte-identical copy of
# agent_server/hooks/_match_rules.py): a hook here runs exactly when the engine would run
# it under the same matcher.
from _match_rules import match_value, matcher_applies, matcher_matches  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

__all__ = ["applies", "load_category", "match_subject", "matcher_matches", "run"]

NAME = "dispatch"
EVENTS = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "SessionStart",
        "SubagentStart",
        "Stop",
        "SubagentStop",
        "PreCompact",
    }
)
MATCHER = "*"
CATEGORIES = ("security", "gate", "feedback")
DEFAULT_BUDGET = 10_000
CONTEXT_EVENTS = frozenset(
    {"SessionStart", "SubagentStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}
)
DECISION_EVENTS = frozenset({"PreToolUse"})


def match_subject(payload: _common.Payload) -> str | None:
    """What a matcher is compared with for this payload's event (None: matchers ignored)."""
    return match_value(str(payload.get("hook_event_name")), payload)


def load_category(category: str) -> list[ModuleType]:
    """The hook modules of ``hooks/<category>/`` in file-name order (cached per process)."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown HOOK_CATEGORY {category!r} (expected one of {', '.join(CATEGORIES)})")
    folder = os.path.join(_HERE, category)
    modules: list[ModuleType] = []
    for filename in sorted(os.listdir(folder)):
        if not filename.endswith(".py") or filename.startswith("_"):
            continue
        name = f"ready_hooks_{category}_{filename[:-3]}"
        module = sys.modules.get(name)
        if module is None:
            spec = importlib.util.spec_from_file_location(name, os.path.join(folder, filename))
            if spec is None or spec.loader is None:  # pragma: no cover - a .py always has one
                raise ImportError(f"cannot load {filename}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
        modules.append(module)
    return modules


def applies(module: ModuleType, payload: _common.Payload) -> bool:
    """Whether ``module`` wants this payload (its EVENTS and MATCHER)."""
    event = payload.get("hook_event_name")
    return event in getattr(module, "EVENTS", ()) and matcher_applies(
        getattr(module, "MATCHER", "*"), str(event), payload
    )


class _Combined:
    """Accumulates the answers of several hooks."""

    def __init__(self) -> None:
        self.deny: list[str] = []
        self.ask: list[str] = []
        self.allow = False
        self.block: list[str] = []
        self.contexts: list[str] = []
        self.messages: list[str] = []
        self.texts: list[str] = []
        self.stop_reason: str | None = None

    def add(self, result: _common.Result) -> None:
        if result is None:
            return
        if isinstance(result, str):
            if result.strip():
                self.texts.append(result.strip())
            return
        decision = _common.decision_of(result)
        reason = _common.reason_of(result)
        if decision == "deny":
            self.deny.append(reason or "denied")
        elif decision == "ask":
            self.ask.append(reason or "needs approval")
        elif decision == "allow":
            self.allow = True
        if result.get("decision") == "block":
            self.block.append(reason or "blocked")
        spec = result.get("hookSpecificOutput")
        if isinstance(spec, dict) and isinstance(spec.get("additionalContext"), str):
            self.contexts.append(spec["additionalContext"])
        if isinstance(result.get("systemMessage"), str):
            self.messages.append(result["systemMessage"])
        if result.get("continue") is False:
            self.stop_reason = str(result.get("stopReason") or "stopped by a hook")

    def output(self, event: str, budget: int) -> _common.Result:
        out: dict[str, Any] = {}
        spec: dict[str, Any] = {"hookEventName": event}
        if event in DECISION_EVENTS:
            deny = self.deny  # includes legacy "decision": "block" answers
            if deny:
                spec["permissionDecision"] = "deny"
                spec["permissionDecisionReason"] = _common.truncate("\n".join(deny), budget)
            elif self.ask:
                spec["permissionDecision"] = "ask"
                spec["permissionDecisionReason"] = _common.truncate("\n".join(self.ask), budget)
            elif self.allow:
                spec["permissionDecision"] = "allow"
        elif self.block:
            out["decision"] = "block"
            out["reason"] = _common.truncate("\n\n".join(self.block), budget)
        contexts = self.contexts
        if event in CONTEXT_EVENTS:
            contexts = contexts + self.texts  # plain stdout is context for these events
        if contexts and event in CONTEXT_EVENTS:
            spec["additionalContext"] = _common.truncate("\n\n".join(contexts), budget, "context")
        if len(spec) > 1:
            out["hookSpecificOutput"] = spec
        if self.messages:
            out["systemMessage"] = _common.truncate("\n".join(self.messages), budget, "messages")
        if self.stop_reason is not None:
            out["continue"] = False
            out["stopReason"] = self.stop_reason
        if not out and self.texts and event not in CONTEXT_EVENTS:
            return _common.truncate("\n\n".join(self.texts), budget)  # e.g. PreCompact text
        return out or None


def _hook_name(module: Any) -> str:
    return str(getattr(module, "NAME", None) or getattr(module, "__name__", "hook"))


def _budget() -> int:
    try:
        return max(200, int(os.environ.get("HOOK_OUTPUT_BUDGET", "") or DEFAULT_BUDGET))
    except ValueError:
        return DEFAULT_BUDGET


def run(payload: _common.Payload) -> _common.Result:
    """Run the category's matching hooks and combine their answers."""
    categories = [c.strip() for c in os.environ.get("HOOK_CATEGORY", "security").split(",") if c.strip()] or [
        "security"
    ]
    if not isinstance(payload, dict):
        return _common.malformed(NAME, "payload is not a JSON object")
    event = payload.get("hook_event_name")
    if event is None and "security" in categories:
        payload = {**payload, "hook_event_name": "PreToolUse"}  # let security hooks judge it
        event = "PreToolUse"
    if not isinstance(event, str):
        return None
    combined = _Combined()
    for category in categories:
        for module in load_category(category):
            if not applies(module, payload):
                continue
            try:
                result = module.run(payload)
            except SystemExit as exc:  # sys.exit(2) is a block in the launcher's contract
                hook = _hook_name(module)
                result = (
                    None
                    if exc.code in (0, None)
                    else {"decision": "block", "reason": f"[{hook}] exited with {exc.code}"}
                )
            except Exception as exc:  # one broken hook must not hide the others' answers
                hook = _hook_name(module)
                if category == "security":
                    result = _common.deny(f"[{hook}] failed ({type(exc).__name__}: {exc}); blocked (fail closed).")
                else:
                    result = {"systemMessage": f"[{hook}] failed: {type(exc).__name__}: {exc}"}
            combined.add(result)
    return combined.output(event, _budget())


if __name__ == "__main__":
    _common.main(run, fail_closed_on_bad_input="security" in os.environ.get("HOOK_CATEGORY", "security"))
