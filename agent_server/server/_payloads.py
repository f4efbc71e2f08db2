"""Hook payloads, shaped exactly like the ones Claude Code sends (``tests/fixtures/payloads``):
``session_id``, ``transcript_path``, ``cwd`` first, then the event's keys in Claude Code's
order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["AgentInfo", "PayloadBase", "permission_suggestions"]

EFFORT = {"level": "medium"}


@dataclass(frozen=True)
class AgentInfo:
    """Who is acting: the main agent (``agent_id`` None) or a subagent."""

    agent_id: str | None = None
    agent_type: str | None = None

    def fields(self) -> dict[str, Any]:
        """``agent_id``/``agent_type`` for subagent payloads, nothing for the main agent."""
        if self.agent_id is None:
            return {}
        return {"agent_id": self.agent_id, "agent_type": self.agent_type or ""}


@dataclass(frozen=True)
class PayloadBase:
    """The fields every payload of one turn shares."""

    session_id: str
    transcript_path: str
    cwd: str
    prompt_id: str | None = None
    permission_mode: str = "default"

    def _head(self, *, prompt: bool = True) -> dict[str, Any]:
        head: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
        }
        if prompt and self.prompt_id is not None:
            head["prompt_id"] = self.prompt_id
        return head

    def session_start(
        self, source: str, model: str | None = None, extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """SessionStart (``compact`` carries the prompt id and ``model``)."""
        data = self._head(prompt=source == "compact")
        data.update(hook_event_name="SessionStart", source=source)
        if source == "compact" and model:
            data["model"] = model
        data.update(extra or {})
        return data

    def user_prompt_submit(self, prompt: str) -> dict[str, Any]:
        """UserPromptSubmit."""
        data = self._head()
        data.update(permission_mode=self.permission_mode, hook_event_name="UserPromptSubmit", prompt=prompt)
        return data

    def _tool_head(self, event: str, agent: AgentInfo, effort: bool = True) -> dict[str, Any]:
        data = self._head()
        data["permission_mode"] = self.permission_mode
        data.update(agent.fields())
        if effort:
            data["effort"] = dict(EFFORT)
        data["hook_event_name"] = event
        return data

    def pre_tool_use(
        self, agent: AgentInfo, tool_name: str, tool_input: dict[str, Any], tool_use_id: str
    ) -> dict[str, Any]:
        """PreToolUse."""
        data = self._tool_head("PreToolUse", agent)
        data.update(tool_name=tool_name, tool_input=tool_input, tool_use_id=tool_use_id)
        return data

    def permission_request(
        self, agent: AgentInfo, tool_name: str, tool_input: dict[str, Any], suggestions: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """PermissionRequest (no tool_use_id, as in Claude Code)."""
        data = self._tool_head("PermissionRequest", agent)
        data.update(tool_name=tool_name, tool_input=tool_input, permission_suggestions=suggestions)
        return data

    def post_tool_use(
        self,
        agent: AgentInfo,
        tool_name: str,
        tool_input: dict[str, Any],
        tool_response: Any,
        tool_use_id: str,
        duration_ms: int,
    ) -> dict[str, Any]:
        """PostToolUse."""
        data = self._tool_head("PostToolUse", agent)
        data.update(
            tool_name=tool_name,
            tool_input=tool_input,
            tool_response=tool_response,
            tool_use_id=tool_use_id,
            duration_ms=duration_ms,
        )
        return data

    def post_tool_use_failure(
        self,
        agent: AgentInfo,
        tool_name: str,
        tool_input: dict[str, Any],
        tool_use_id: str,
        error: str,
        is_interrupt: bool,
        duration_ms: int,
    ) -> dict[str, Any]:
        """PostToolUseFailure."""
        data = self._tool_head("PostToolUseFailure", agent)
        data.update(
            tool_name=tool_name,
            tool_input=tool_input,
            tool_use_id=tool_use_id,
            error=error,
            is_interrupt=is_interrupt,
            duration_ms=duration_ms,
        )
        return data

    def post_tool_batch(self, agent: AgentInfo, tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
        """PostToolBatch (once per batch of tool calls)."""
        data = self._tool_head("PostToolBatch", agent)
        data["tool_calls"] = tool_calls
        return data

    def stop(self, *, active: bool, last_message: str, block_count: int) -> dict[str, Any]:
        """Stop; ``stop_hook_block_count`` (ours) says how often it blocked in a row."""
        data = self._tool_head("Stop", AgentInfo())
        data.update(
            stop_hook_active=active,
            last_assistant_message=last_message,
            background_tasks=[],
            session_crons=[],
            stop_hook_block_count=block_count,
        )
        return data

    def subagent_start(self, agent: AgentInfo) -> dict[str, Any]:
        """SubagentStart."""
        data = self._head()
        data.update(agent.fields())
        data["hook_event_name"] = "SubagentStart"
        return data

    def subagent_stop(
        self, agent: AgentInfo, *, active: bool, transcript: str, last_message: str, block_count: int
    ) -> dict[str, Any]:
        """SubagentStop (Stop's keys plus the agent's); subagents run synchronously, so
        ``background_tasks`` is empty (contract §9)."""
        data = self._tool_head("SubagentStop", agent)
        data.update(
            stop_hook_active=active,
            agent_transcript_path=transcript,
            last_assistant_message=last_message,
            background_tasks=[],
            session_crons=[],
            stop_hook_block_count=block_count,
        )
        return data

    def pre_compact(self, trigger: str, instructions: str | None) -> dict[str, Any]:
        """PreCompact."""
        data = self._head()
        data.update(hook_event_name="PreCompact", trigger=trigger, custom_instructions=instructions)
        return data

    def post_compact(self, trigger: str, summary: str) -> dict[str, Any]:
        """PostCompact."""
        data = self._head()
        data.update(hook_event_name="PostCompact", trigger=trigger, compact_summary=summary)
        return data

    def cwd_changed(self, old_cwd: str, new_cwd: str) -> dict[str, Any]:
        """CwdChanged (``cwd`` is already the new directory)."""
        data = self._head()
        data.update(hook_event_name="CwdChanged", old_cwd=old_cwd, new_cwd=new_cwd)
        return data

    def session_end(self, reason: str) -> dict[str, Any]:
        """SessionEnd."""
        data = self._head()
        data.update(hook_event_name="SessionEnd", reason=reason)
        return data

    def notification(self, message: str, notification_type: str) -> dict[str, Any]:
        """Notification (``permission_prompt`` or ``idle_prompt``)."""
        data = self._head(prompt=False)
        data.update(hook_event_name="Notification", message=message, notification_type=notification_type)
        return data


def permission_suggestions(tool_name: str, project_dir: str) -> list[dict[str, Any]]:
    """What Claude Code offers in the permission dialog for ``tool_name``."""
    suggestions: list[dict[str, Any]] = []
    if tool_name == "Bash":
        suggestions.append({"type": "addDirectories", "directories": [project_dir], "destination": "session"})
    suggestions.append({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
    return suggestions
