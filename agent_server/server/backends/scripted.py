"""The ``scripted`` backend: a deterministic, offline stand-in for a model.

It reads the newest user text message (a prompt, or the text after ``Stop hook
feedback:``) as a small script and plays it, one model reply per step. The language is
documented in ``docs/scripted-backend.md``:

==============================  =====================================================
line                            tool call
==============================  =====================================================
``$ CMD``                       Bash ``{"command": CMD}``
``read PATH``                   Read ``{"file_path": PATH}``
``write PATH`` + body lines     Write; the body runs to a line ``EOF`` or the end
``edit PATH: OLD => NEW``       Edit ``{"file_path", "old_string", "new_string"}``
``glob PATTERN``                Glob ``{"pattern": PATTERN}``
``grep PATTERN``                Grep ``{"pattern": PATTERN, "output_mode": "content"}``
``task: PROMPT``                Task (a subagent that plays PROMPT as its script);
                                ``task:`` alone takes the following lines up to ``EOF``
``tool NAME {JSON}``            any tool with a literal JSON input
``batch:`` ... ``end``          the enclosed calls in one reply (one tool batch)
anything else                   text: the final reply repeats these lines
==============================  =====================================================

After the last step the reply is the text lines joined by newlines, or ``Done.``.

Prompt hooks get a deterministic verdict from :func:`scripted_prompt_verdict`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_server.hooks import expand_prompt, parse_prompt_reply

from ._base import ModelBackend, ModelReply, ModelRequest, TextSink, message_text

__all__ = [
    "STOP_FEEDBACK",
    "ScriptError",
    "ScriptedBackend",
    "parse_script",
    "scripted_prompt_reply",
    "scripted_prompt_verdict",
]

STOP_FEEDBACK = "Stop hook feedback:\n"
COMPACT_PREAMBLE = "This session is being continued from a previous conversation"


class ScriptError(ValueError):
    """A script line that cannot be turned into a tool call."""


@dataclass
class Script:
    """A parsed script: tool batches in order, and the text lines."""

    batches: list[list[tuple[str, dict[str, Any]]]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


def _take_body(lines: list[str], start: int) -> tuple[list[str], int]:
    body: list[str] = []
    i = start
    while i < len(lines) and lines[i].strip() != "EOF":
        body.append(lines[i])
        i += 1
    return body, i + 1


def _call(line: str, lines: list[str], i: int) -> tuple[tuple[str, dict[str, Any]] | None, int]:
    """Parse the command at ``lines[i]``; returns (call or None for text, next index)."""
    s = line.strip()
    if s.startswith("$ "):
        cmd = s[2:].strip()
        return ("Bash", {"command": cmd, "description": cmd[:60]}), i + 1
    if s.startswith("read "):
        return ("Read", {"file_path": s[5:].strip()}), i + 1
    if s == "write" or s.startswith("write "):
        path = s[5:].strip()
        if not path:
            raise ScriptError(f"line {i + 1}: `write` needs a path: write PATH")
        body, nxt = _take_body(lines, i + 1)
        return ("Write", {"file_path": path, "content": "".join(b + "\n" for b in body)}), nxt
    if s.startswith("edit "):
        rest = s[5:]
        path, sep, change = rest.partition(": ")
        old, arrow, new = change.partition(" => ")
        if not sep or not arrow:
            raise ScriptError(f"line {i + 1}: expected `edit PATH: OLD => NEW`, got {s!r}")
        return ("Edit", {"file_path": path.strip(), "old_string": old, "new_string": new}), i + 1
    if s.startswith("glob "):
        return ("Glob", {"pattern": s[5:].strip()}), i + 1
    if s.startswith("grep "):
        return ("Grep", {"pattern": s[5:].strip(), "output_mode": "content"}), i + 1
    if s.startswith("task:"):
        prompt = s[5:].strip()
        nxt = i + 1
        if not prompt:
            body, nxt = _take_body(lines, i + 1)
            prompt = "\n".join(body)
        first = prompt.strip().splitlines()[0] if prompt.strip() else "subtask"
        return ("Task", {"description": first[:40], "prompt": prompt, "subagent_type": "general-purpose"}), nxt
    if s.startswith("tool "):
        name, _, raw = s[5:].strip().partition(" ")
        try:
            value = json.loads(raw) if raw.strip() else {}
        except ValueError as exc:
            raise ScriptError(f"line {i + 1}: `tool {name}` input is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise ScriptError(f"line {i + 1}: `tool {name}` input must be a JSON object")
        return (name, value), i + 1
    return None, i + 1


def parse_script(text: str) -> Script:
    """Parse a scripted-backend prompt (see the module docstring)."""
    lines = text.splitlines()
    script = Script()
    batch: list[tuple[str, dict[str, Any]]] | None = None
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s == "batch:":
            batch = []
            i += 1
            continue
        if s == "end" and batch is not None:
            if batch:
                script.batches.append(batch)
            batch = None
            i += 1
            continue
        if not s:
            i += 1
            continue
        call, i = _call(lines[i], lines, i)
        if call is None:
            script.text.append(s)
        elif batch is not None:
            batch.append(call)
        else:
            script.batches.append([call])
    if batch:
        script.batches.append(batch)
    return script


def _is_prompt(message: dict[str, Any]) -> bool:
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return bool(content) and not content.startswith(COMPACT_PREAMBLE)
    if isinstance(content, list):
        kinds = {b.get("type") for b in content if isinstance(b, dict)}
        return "text" in kinds and "tool_result" not in kinds
    return False


def scripted_prompt_verdict(prompt: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The scripted backend's answer to a prompt hook (docs/scripted-backend.md).

    The hook's prompt is read line by line; the first line that applies decides:
    ``block: TEXT`` when TEXT occurs in the event's JSON → ``{"ok": false, "reason":
    'the event contains "TEXT"'}``; ``reply: RAW`` → RAW read as the model's reply (so
    ``reply: not json`` is a reply that is not JSON). No line applies →
    ``{"ok": true, "reason": "no block: line matches the event"}``.
    """
    return parse_prompt_reply(_reply(prompt, expand_prompt("$ARGUMENTS", payload)))


def scripted_prompt_reply(message: str) -> str:
    """The same answer, as the model's reply text, to a prompt hook's expanded user
    message (what a Messages API sees): ``block: TEXT`` looks for TEXT in the message's
    other lines, which hold the event's JSON. Used by
    :class:`~agent_server.server.testing.FakeMessagesAPI`."""
    rest = "\n".join(line for line in message.splitlines() if not line.strip().startswith(("block:", "reply:")))
    return _reply(message, rest)


def _reply(prompt: str, haystack: str) -> str:
    for line in prompt.splitlines():
        text = line.strip()
        if text.startswith("block:"):
            needle = text[len("block:") :].strip()
            if needle and needle in haystack:
                return json.dumps({"ok": False, "reason": f'the event contains "{needle}"'})
        elif text.startswith("reply:"):
            return text[len("reply:") :].strip()
    return json.dumps({"ok": True, "reason": "no block: line matches the event"})


class ScriptedBackend(ModelBackend):
    """Deterministic offline model that plays the newest user message as a script."""

    name = "scripted"
    model = "scripted"

    def __init__(self) -> None:
        self._counter = 0

    def _tool_id(self) -> str:
        self._counter += 1
        return f"toolu_{uuid.uuid4().hex[:20]}"

    async def respond(self, request: ModelRequest, on_text: TextSink | None = None) -> ModelReply:
        """Next step of the script in the newest user text message."""
        messages = request.messages
        idx = next((i for i in range(len(messages) - 1, -1, -1) if _is_prompt(messages[i])), None)
        source = message_text(messages[idx]) if idx is not None else ""
        if source.startswith(STOP_FEEDBACK):
            source = source[len(STOP_FEEDBACK) :]
        try:
            script = parse_script(source)
        except ScriptError as exc:
            return await self._say(f"Script error: {exc}", on_text)
        done = (
            0
            if idx is None
            else sum(
                1
                for m in messages[idx + 1 :]
                if m.get("role") == "assistant"
                and isinstance(m.get("content"), list)
                and any(b.get("type") == "tool_use" for b in m["content"])
            )
        )
        available = {t["name"] for t in request.tools}
        if done < len(script.batches):
            blocks = []
            for name, tool_input in script.batches[done]:
                if name == "Task" and "Task" not in available:
                    return await self._say("Subagents cannot start subagents.", on_text)
                blocks.append({"type": "tool_use", "id": self._tool_id(), "name": name, "input": tool_input})
            return ModelReply(content=blocks, stop_reason="tool_use")
        return await self._say("\n".join(script.text) or "Done.", on_text)

    async def _say(self, text: str, on_text: TextSink | None) -> ModelReply:
        if on_text is not None:
            await on_text(text)
        return ModelReply(content=[{"type": "text", "text": text}], stop_reason="end_turn")

    async def evaluate_hook_prompt(self, prompt: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        """A prompt hook's verdict, without a model: :func:`scripted_prompt_verdict`."""
        return scripted_prompt_verdict(prompt, payload)

    async def summarize(self, messages: Sequence[dict[str, Any]], instructions: str | None) -> str:
        """A deterministic summary: message count, the prompts, the instructions."""
        prompts = [
            message_text(m).strip().splitlines()[0] for m in messages if _is_prompt(m) and message_text(m).strip()
        ]
        summary = f"Summary of {len(messages)} earlier messages."
        if prompts:
            summary += " Requests so far: " + "; ".join(prompts) + "."
        if instructions:
            summary += f" Instructions: {instructions.strip()}"
        return summary
