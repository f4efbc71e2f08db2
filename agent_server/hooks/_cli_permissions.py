"""The permission-rule part of ``agent-server hooks list`` and ``hooks explain``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._config import HookConfig
from ._permissions import PermissionRule

__all__ = ["explain_permissions", "explain_permissions_lines", "list_permissions_lines"]


def _where(rule: PermissionRule) -> str:
    return f"{rule.source} {rule.location}"


def list_permissions_lines(config: HookConfig) -> list[str]:
    """``hooks list``: every rule in effect (deny, ask, allow), then those ignored."""
    perms = config.permissions
    if not perms.rules and not perms.waiting:
        return []
    lines = ["", "permission rules  (deny > ask > allow)"]
    for behavior in ("deny", "ask", "allow"):
        for rule in perms.of(behavior):
            lines.append(f"  {behavior:<5}  {rule.text}  ({_where(rule)})")
    for ig in perms.ignored:
        lines.append(f"  {ig.rule.behavior:<5}  {ig.rule.text}  ({_where(ig.rule)}): ignored, {ig.why}")
    return lines


def explain_permissions(config: HookConfig, payload: Mapping[str, Any], project_dir: Path) -> dict[str, Any] | None:
    """The rules that cover the payload's tool call, whether each matches, and the
    decision; None when the payload is not a tool call."""
    tool = payload.get("tool_name")
    if not isinstance(tool, str):
        return None
    tool_input = payload.get("tool_input", {})
    cwd = Path(str(payload.get("cwd") or project_dir))
    perms = config.permissions
    removed = perms.removed_by(tool)
    decision = perms.decide(tool, tool_input, cwd=cwd, project_dir=project_dir)
    return {
        "tool_name": tool,
        "removed_by": None if removed is None else removed.to_dict(),
        "decision": decision.to_dict(),
        "rules": [
            {**rule.to_dict(), "matches": hit}
            for rule, hit in perms.explain(tool, tool_input, cwd=cwd, project_dir=project_dir)
        ],
        "ignored": [{**i.rule.to_dict(), "why": i.why} for i in perms.ignored if i.rule.covers(tool)],
    }


def explain_permissions_lines(data: Mapping[str, Any] | None) -> list[str]:
    """``hooks explain``'s text for :func:`explain_permissions`."""
    if data is None:
        return []
    tool = data["tool_name"]
    lines = ["", f"permission rules for {tool}:"]
    for r in data["rules"]:
        lines.append(
            f"  {'MATCH' if r['matches'] else '     '} {r['behavior']:<5} {r['rule']}  ({r['source']} {r['location']})"
        )
    for r in data["ignored"]:
        lines.append(f"        {r['behavior']:<5} {r['rule']}  ({r['source']} {r['location']}): ignored, {r['why']}")
    if not data["rules"] and not data["ignored"]:
        lines.append("  (no rule covers this tool)")
    removed, rule = data["removed_by"], data["decision"]["rule"]
    if removed is not None:
        lines.append(
            f"  => {tool} is removed from the session by {removed['rule']} ({removed['source']} {removed['location']})"
        )
    elif rule is not None:
        lines.append(f"  => {rule['behavior']} by {rule['rule']} ({rule['source']} {rule['location']})")
    else:
        lines.append("  => no rule decides: the hooks and the permission mode do")
    return lines
