"""What the model and the user see when a settings permission rule decides a tool call
(contract §12): the exact texts, and the ``permission`` event the chat page shows."""

from __future__ import annotations

from typing import Any

from agent_server.hooks import PermissionRule

from ._events import EventLog

__all__ = ["PATH_DENIED", "ask_unanswered", "denied", "emit_rule", "refusal", "removed"]

PATH_DENIED = "<tool_use_error>File is in a directory that is denied by your permission settings.</tool_use_error>"


def removed(tool: str) -> str:
    """The result of calling a tool a bare ``deny`` rule removed (no PreToolUse)."""
    return (
        f"<tool_use_error>Error: No such tool available: {tool}. {tool} is disabled for this session, "
        "in subagents as well as here.</tool_use_error>"
    )


def denied(tool: str, tool_input: dict[str, Any]) -> str:
    """The result of a call a ``deny`` pattern refused (after PreToolUse)."""
    command = tool_input.get("command")
    if tool == "Bash" and isinstance(command, str):
        return f"Permission to use Bash with command {command} has been denied."
    return f"Permission to use {tool} has been denied."


def refusal(rule: PermissionRule, tool: str, tool_input: dict[str, Any]) -> str:
    """The result of a call a ``deny`` rule refused: the path text for a file rule
    (``Read(...)``, ``Edit(...)``), else :func:`denied`."""
    return PATH_DENIED if rule.file_rule else denied(tool, tool_input)


def ask_unanswered(tool: str) -> str:
    """The result when an ``ask`` rule's question got no answer in time."""
    return f"Claude requested permissions to use {tool}, but you haven't granted it yet."


def emit_rule(
    events: EventLog, rule: PermissionRule, *, tool_use_id: str, tool_name: str, agent_id: str | None
) -> None:
    """Announce which settings rule decided a call (shown in the chat page's timeline)."""
    events.emit(
        "permission",
        tool_use_id=tool_use_id,
        tool_name=tool_name,
        behavior=rule.behavior,
        rule=rule.text,
        source=rule.source,
        location=rule.location,
        agent_id=agent_id,
    )
