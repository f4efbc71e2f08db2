"""The built-in hook types of ``.mentu/genesis.key`` and its actor permissions."""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import Mapping
from typing import Any

from ._config import ActorModel
from ._matching import tool_pattern_matches
from ._outcome import BLOCKING_DECISIONS, HookResult, HookStatus
from ._spec import HookSpec

__all__ = ["run_builtin"]

log = logging.getLogger("agent_server.hooks.evidence")


def _permission_problem(
    actors: Mapping[str, ActorModel], payload: Mapping[str, Any], require_actor: bool
) -> str | None:
    actor_name = payload.get("actor")
    tool_name = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    tool = tool_name if isinstance(tool_name, str) else None
    if not isinstance(actor_name, str) or actor_name not in actors:
        if require_actor:
            return f"actor {actor_name!r} is not declared in genesis.key permissions.actors"
        return None
    actor = actors[actor_name]
    for pattern in actor.deny:
        if tool_pattern_matches(pattern, tool, tool_input):
            return f"actor {actor_name!r} is denied {pattern!r} by genesis.key"
    if actor.allow is not None and not any(tool_pattern_matches(p, tool, tool_input) for p in actor.allow):
        return f"actor {actor_name!r} may only use {', '.join(actor.allow)} (genesis.key)"
    return None


def run_builtin(
    spec: HookSpec,
    payload: Mapping[str, Any],
    actors: Mapping[str, ActorModel],
    evidence: deque[dict[str, Any]],
) -> HookResult:
    """Run a genesis built-in hook in-process and return its result."""
    config = spec.config
    result = HookResult.for_spec(spec, HookStatus.OK, exit_code=0)
    kind = spec.builtin
    reason = config.get("reason")
    if kind == "deny":
        result.decision = "deny" if spec.event in ("PreToolUse", "PermissionRequest") else "block"
        result.reason = str(reason or f"denied by genesis.key rule {spec.tool_pattern or '*'} ({spec.location})")
    elif kind == "approval_gate":
        result.decision = "ask"
        result.reason = str(reason or f"approval required by genesis.key ({spec.location})")
    elif kind == "modify":
        tool_input = payload.get("tool_input")
        base = dict(tool_input) if isinstance(tool_input, Mapping) else {}
        result.updated_input = {**base, **dict(config["set"])}
    elif kind in ("permissions", "genesis_enforcement"):
        require = kind == "genesis_enforcement" and bool(config.get("require_actor", True))
        problem = _permission_problem(actors, payload, require)
        if problem:
            result.decision = "deny"
            result.reason = str(reason or problem)
    elif kind == "evidence_capture":
        record = {
            "event": spec.event,
            "session_id": payload.get("session_id"),
            "tool_name": payload.get("tool_name"),
            "tool_input": payload.get("tool_input"),
            "tool_response": payload.get("tool_response"),
            "actor": payload.get("actor"),
            "label": config.get("label"),
        }
        evidence.append(record)
        result.stdout = json.dumps(record, default=str)
        log.info("evidence captured: %s", result.stdout)
    if result.decision in BLOCKING_DECISIONS:
        result.status = HookStatus.BLOCKED
    return result
