"""Hook results as values, and the one rule that combines them into an event outcome.

Per hook: Claude Code's exit-code and JSON rules (contract §3-4). Per event: results
are kept in registration order and combined once, after all ran (design.md "Outcomes").
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._spec import BLOCKING_EVENTS, HookSpec

__all__ = [
    "BLOCKING_DECISIONS",
    "EventOutcome",
    "HookResult",
    "HookStatus",
    "fail_closed_reason",
    "failed_result",
    "interpret_output",
    "json_object",
    "timeout_result",
]


class HookStatus(enum.StrEnum):
    """How one hook run ended."""

    OK = "ok"
    BLOCKED = "blocked"
    ERROR = "error"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value


PERMISSION_EVENTS = frozenset({"PreToolUse", "PermissionRequest"})
# Exit 2 has no blocking effect on these (contract §3): it is reported as an error.
NON_BLOCKING_EVENTS = frozenset({"SessionStart", "SessionEnd", "Notification", "SubagentStart", "PostCompact"})
# Exit 2 is ignored on these too; PermissionRequest's normal flow goes on (contract §9).
_EXIT2_IGNORED = NON_BLOCKING_EVENTS | {"PermissionRequest"}
# Plain stdout on exit 0 becomes context on these events.
STDOUT_CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "SubagentStart", "PreCompact"})
_DECISION_RANK = {"deny": 4, "defer": 3, "block": 3, "ask": 2, "allow": 1}
#: The decisions that stop the host from going ahead (the one definition; the runner,
#: the ledger's statistics and the traces all count blocks with it).
BLOCKING_DECISIONS = frozenset({"deny", "defer", "block"})


@dataclass
class HookResult:
    """The outcome of one hook: status, captured output, and what it decided."""

    name: str
    command: str
    source: str
    event: str
    status: HookStatus
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    duration_ms: float = 0.0
    started_at: float = 0.0
    decision: str | None = None
    reason: str | None = None
    additional_context: str | None = None
    updated_input: dict[str, Any] | None = None
    continue_: bool = True
    stop_reason: str | None = None
    system_message: str | None = None
    interrupt: bool = False
    suppress_output: bool = False
    json: dict[str, Any] | None = None
    error: str | None = None
    timed_out: bool = False
    truncated: bool = False
    fail_closed: bool = False
    env_file: str | None = None
    matcher: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def for_spec(cls, spec: HookSpec, status: HookStatus, **values: Any) -> HookResult:
        """A result labelled with ``spec``'s name, command, source and event."""
        return cls(
            name=spec.display_name,
            command=spec.command,
            source=spec.source,
            event=spec.event,
            status=status,
            fail_closed=spec.fail_closed,
            matcher=spec.matcher_text,
            **values,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form used in :meth:`EventOutcome.to_dict` (design.md "Outcomes")."""
        data: dict[str, Any] = {
            "name": self.name,
            "command": self.command,
            "source": self.source,
            "status": self.status.value,
            "exit_code": self.exit_code,
            "duration_ms": round(self.duration_ms, 3),
            "stdout": self.stdout,
            "stderr": self.stderr,
            "decision": self.decision,
            "reason": self.reason,
        }
        if self.error:
            data["error"] = self.error
        if self.timed_out:
            data["timed_out"] = True
        if self.truncated:
            data["truncated"] = True
        return data


def json_object(stdout: str) -> dict[str, Any] | None:
    """``stdout`` as a JSON object, or None when it is not one."""
    # Stdout is JSON only when the whole trimmed stdout is one JSON object (contract §4).
    text = stdout.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class _Invalid(Exception):
    """Well-formed JSON that breaks the output schema."""


def _opt_str(data: Mapping[str, Any], key: str, where: str = "") -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _Invalid(f"{where}{key} must be a string, got {type(value).__name__}")


def _apply_json(result: HookResult, event: str, data: dict[str, Any]) -> None:
    """Read Claude Code's JSON output fields into ``result``; raise _Invalid on bad shape."""
    cont = data.get("continue", True)
    if not isinstance(cont, bool):
        raise _Invalid("continue must be true or false")
    result.continue_ = cont
    result.stop_reason = _opt_str(data, "stopReason")
    result.system_message = _opt_str(data, "systemMessage")
    result.suppress_output = bool(data.get("suppressOutput", False))

    decision = data.get("decision")
    reason = _opt_str(data, "reason")
    if decision is not None:
        allowed = ("block", "approve") if event in PERMISSION_EVENTS else ("block",)
        if decision not in allowed:
            raise _Invalid(f"decision must be one of {', '.join(allowed)}, got {decision!r}")
        if event in PERMISSION_EVENTS:
            # Legacy PreToolUse decisions: block = deny, approve = allow.
            result.decision = "deny" if decision == "block" else "allow"
        else:
            result.decision = "block"
        result.reason = reason

    specific = data.get("hookSpecificOutput")
    if specific is None:
        return
    if not isinstance(specific, dict):
        raise _Invalid("hookSpecificOutput must be an object")
    name = specific.get("hookEventName")
    if name is None:
        raise _Invalid("hookSpecificOutput.hookEventName is missing")
    if name != event:
        raise _Invalid(f"hookSpecificOutput.hookEventName is {name!r}, expected {event!r}")
    where = "hookSpecificOutput."
    result.additional_context = _opt_str(specific, "additionalContext", where)
    if event == "PreToolUse":
        pd = specific.get("permissionDecision")
        if pd is not None:
            if pd not in ("allow", "deny", "ask", "defer"):
                raise _Invalid(f"{where}permissionDecision must be allow, deny, ask or defer, got {pd!r}")
            result.decision = pd
            result.reason = _opt_str(specific, "permissionDecisionReason", where)
        updated = specific.get("updatedInput")
        if updated is not None:
            if not isinstance(updated, dict):
                raise _Invalid(f"{where}updatedInput must be an object")
            result.updated_input = updated
    elif event == "PermissionRequest":
        dec = specific.get("decision")
        if dec is not None:
            if not isinstance(dec, dict) or dec.get("behavior") not in ("allow", "deny"):
                raise _Invalid(f"{where}decision.behavior must be allow or deny")
            result.decision = dec["behavior"]
            result.reason = _opt_str(dec, "message", f"{where}decision.")
            result.interrupt = bool(dec.get("interrupt", False))
            updated = dec.get("updatedInput")
            if updated is not None:
                if not isinstance(updated, dict):
                    raise _Invalid(f"{where}decision.updatedInput must be an object")
                result.updated_input = updated


def interpret_output(
    spec: HookSpec,
    payload: Mapping[str, Any],
    exit_code: int | None,
    stdout: str,
    stderr: str,
) -> HookResult:
    """Turn a finished hook's exit code and output into a result (contract §3-4)."""
    event = spec.event
    result = HookResult.for_spec(spec, HookStatus.OK, exit_code=exit_code, stdout=stdout, stderr=stderr)
    if exit_code == 2:
        # On exit 2 JSON is ignored and stderr is the message.
        if event in _EXIT2_IGNORED:
            result.status = HookStatus.ERROR
            result.error = f"exit 2: {stderr.strip() or 'No stderr output'}"
            return result
        result.status = HookStatus.BLOCKED
        result.decision = "deny" if event in PERMISSION_EVENTS else "block"
        result.reason = f"[{spec.command}]: {stderr.strip() or 'No stderr output'}"
        return result

    data = json_object(stdout)
    if data is not None:
        try:
            _apply_json(result, event, data)
        except _Invalid as exc:
            fresh = HookResult.for_spec(spec, HookStatus.ERROR, exit_code=exit_code, stdout=stdout, stderr=stderr)
            fresh.error = f"invalid hook output: {exc}"
            return _fail(fresh, spec)
        result.json = data
    elif exit_code == 0 and event in STDOUT_CONTEXT_EVENTS and stdout.strip():
        result.additional_context = stdout.strip()

    if not result.continue_ and event == "UserPromptSubmit":
        result.decision = result.decision or "block"
        result.reason = result.reason or result.stop_reason
    if result.decision in BLOCKING_DECISIONS:
        result.status = HookStatus.BLOCKED
    elif exit_code != 0:
        result.status = HookStatus.ERROR
        result.error = f"exit {exit_code}: {_tail(stderr) or 'No stderr output'}"
        return _fail(result, spec)
    return result


def _tail(text: str, limit: int = 400) -> str:
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]


# The setting that made a hook fail closed, as its dialect spells it.
_FAIL_CLOSED_BY = {
    "claude": 'onFailure is "block"',
    "orion": "continueOnError is false",
    "harness": "continueOnError is false",
    "genesis": "config.fail_closed is true",
    "callback": "fail_closed is set",
}


def _fail(result: HookResult, spec: HookSpec) -> HookResult:
    """Apply the failure policy: fail open by default, closed when the hook asks (with
    Claude Code's reason text, contract §9)."""
    if spec.fail_closed and spec.event not in NON_BLOCKING_EVENTS:
        result.decision = "deny" if spec.event in PERMISSION_EVENTS else "block"
        # Command hooks explain themselves on stderr; http/prompt hooks in the error.
        result.reason = fail_closed_reason(spec, result.stderr.strip() or result.error or "")
    return result


def fail_closed_reason(spec: HookSpec, detail: str) -> str:
    """The block reason of a failed hook that is set to fail closed: Claude Code's text
    (contract §9-10; the loop prefixes ``<Event>:<Tool> hook error: ``), naming the
    setting as the hook's dialect spells it."""
    why = _FAIL_CLOSED_BY.get(spec.dialect, "it fails closed")
    return f"[{spec.command}]: failed; blocking because {why}\n{detail}"


def failed_result(spec: HookSpec, status: HookStatus, error: str, **values: Any) -> HookResult:
    """A result for a hook that crashed, timed out or could not start."""
    return _fail(HookResult.for_spec(spec, status, error=error, **values), spec)


def timeout_result(spec: HookSpec, **values: Any) -> HookResult:
    """A result for a hook that ran past its ``timeout``."""
    return failed_result(spec, HookStatus.TIMEOUT, f"timed out after {spec.timeout:g}s", timed_out=True, **values)


@dataclass
class EventOutcome:
    """The combined result of firing one event: what the host must do.

    ``hooks`` holds every hook's :class:`HookResult` in registration order; the other
    fields are derived from them by one combining rule (design.md "Running hooks").
    """

    event: str
    hooks: list[HookResult] = field(default_factory=list)
    blocked: bool = False
    decision: str | None = None
    reason: str | None = None
    additional_context: list[str] = field(default_factory=list)
    updated_input: dict[str, Any] | None = None
    continue_: bool = True
    stop_reason: str | None = None
    system_messages: list[str] = field(default_factory=list)
    interrupt: bool = False
    env_files: list[str] = field(default_factory=list)

    @classmethod
    def combine(cls, event: str, results: Sequence[HookResult]) -> EventOutcome:
        """Combine results, in registration order: the strongest decision wins and the
        first hook that gave it supplies the reason; the last ``updatedInput`` wins;
        contexts and system messages keep registration order."""
        outcome = cls(event=event, hooks=list(results))
        best = 0
        for r in results:
            if r.status is HookStatus.SKIPPED:
                continue
            if r.decision is not None:
                rank = _DECISION_RANK.get(r.decision, 0)
                if rank > best:
                    best, outcome.decision, outcome.reason = rank, r.decision, r.reason
                    outcome.interrupt = r.interrupt
            if r.status is HookStatus.TIMEOUT:
                continue  # a timed-out hook's output is discarded
            if r.updated_input is not None:
                outcome.updated_input = r.updated_input
            if r.additional_context:
                outcome.additional_context.append(r.additional_context)
            if r.system_message:
                outcome.system_messages.append(r.system_message)
            if not r.continue_ and outcome.continue_:
                outcome.continue_, outcome.stop_reason = False, r.stop_reason
        outcome.blocked = outcome.decision in BLOCKING_DECISIONS
        if event not in PERMISSION_EVENTS and outcome.decision not in (None, "block"):
            outcome.decision = None
        return outcome

    @property
    def ran(self) -> list[HookResult]:
        """Results of hooks that actually ran (not skipped)."""
        return [r for r in self.hooks if r.status is not HookStatus.SKIPPED]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form from design.md (also the CLI's ``--json``)."""
        return {
            "event": self.event,
            "blocked": self.blocked,
            "decision": self.decision,
            "reason": self.reason,
            "additional_context": list(self.additional_context),
            "updated_input": self.updated_input,
            "continue": self.continue_,
            "stop_reason": self.stop_reason,
            "system_messages": list(self.system_messages),
            "hooks": [r.to_dict() for r in self.hooks],
        }


def is_blocking_event(event: str) -> bool:
    """Whether the first block on ``event`` stops the remaining sequential hooks."""
    return event in BLOCKING_EVENTS
