"""The model backend interface and the conversation format shared by all backends.

Conversation messages are ``{"role": "user"|"assistant"|"system", "content": str | [blocks]}``
with Messages-API content blocks (``text``, ``tool_use``, ``tool_result``). ``system``
messages are what Claude Code calls system messages (hook contexts): the model sees
them, in place, as text in the neighbouring user turn.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BackendError",
    "ModelBackend",
    "ModelReply",
    "ModelRequest",
    "TextSink",
    "message_text",
    "to_api_messages",
]

#: Receives streamed text deltas.
TextSink = Callable[[str], Awaitable[None]]


class BackendError(Exception):
    """The model could not answer; the message is shown to the user."""


@dataclass
class ModelRequest:
    """One model call: system prompt, conversation and tool definitions."""

    system: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ModelReply:
    """The assistant's content blocks (``text`` and ``tool_use``) and why it stopped."""

    content: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        """The ``tool_use`` blocks, in order."""
        return [b for b in self.content if b.get("type") == "tool_use"]

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.get("text", "") for b in self.content if b.get("type") == "text")


class ModelBackend(ABC):
    """Produces the assistant's next message for a conversation."""

    #: Backend name (``scripted``, ``anthropic``).
    name: str = ""
    #: Model name reported to hooks (SessionStart ``model``).
    model: str = ""

    @abstractmethod
    async def respond(self, request: ModelRequest, on_text: TextSink | None = None) -> ModelReply:
        """The next assistant message; streamed text goes to ``on_text`` as it arrives."""

    @abstractmethod
    async def summarize(self, messages: Sequence[dict[str, Any]], instructions: str | None) -> str:
        """A summary of ``messages`` for compaction."""

    async def evaluate_hook_prompt(self, prompt: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        """Answer a prompt hook (contract §11): ``{"ok": bool, "reason": str}`` for the
        hook's configured ``prompt`` (``$ARGUMENTS`` unexpanded) and the event ``payload``.
        The server gives this method to its HookRunner as the prompt evaluator."""
        raise BackendError(f"the {self.name or type(self).__name__} backend cannot answer prompt hooks")

    async def aclose(self) -> None:
        """Release connections."""
        return None


def message_text(message: dict[str, Any]) -> str:
    """The text of a message (text blocks only)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [dict(b) for b in content if isinstance(b, dict)]


def to_api_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as Messages API ``messages``: system messages become text blocks
    of the adjacent user turn, consecutive same-role turns are merged, and tool results
    come first in their user turn (as the API requires)."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        role = "assistant" if msg.get("role") == "assistant" else "user"
        blocks = _blocks(msg.get("content", ""))
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for msg in out:
        if msg["role"] == "user":
            results = [b for b in msg["content"] if b.get("type") == "tool_result"]
            rest = [b for b in msg["content"] if b.get("type") != "tool_result"]
            msg["content"] = results + rest
    if out and out[0]["role"] == "assistant":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(conversation start)"}]})
    return out
