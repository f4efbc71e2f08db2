"""The agent's spans, after the OpenTelemetry GenAI conventions (docs/observability.md).

One trace per turn: ``invoke_agent agent-server`` (the turn), ``chat <model>`` per model
call and ``execute_tool <tool>`` per tool call under it; the engine's ``hooks.fire
<Event>`` spans nest under whichever of these is current when the event fires. A
session's SessionStart and SessionEnd go into a trace of their own (``session start``,
``session end``) that every turn links to. OpenInference attributes
(``openinference.span.kind``, ``session.id``, ``input.value``/``output.value``) let LLM
tracing UIs such as Arize Phoenix show agent, model and tool spans.

Prompts, replies and tool input/output are recorded only when ``record_content`` is on
(``AGENT_SERVER_TRACE_CONTENT``), capped, with secrets redacted by the rules of the
shipped secrets hook (``hooks/security/secrets_guard.py``).
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode

from ._hooks_setup import secrets_redactor
from .backends import ModelReply

__all__ = ["CONTENT_LIMIT", "AgentTracing"]

log = logging.getLogger("agent_server.server")

#: Characters of a prompt, reply or tool input/output kept on a span.
CONTENT_LIMIT = 4096
AGENT_NAME = "agent-server"


class AgentTracing:
    """Starts the agent's spans; the server's sessions and agent loop call it."""

    def __init__(self, tracer_provider: trace.TracerProvider | None = None, *, record_content: bool = False) -> None:
        scope = "agent_server.server"
        self._tracer = trace.get_tracer(scope) if tracer_provider is None else tracer_provider.get_tracer(scope)
        self.record_content = record_content
        self._redact: Callable[[str], str] | None = None
        # Each session's ``session start`` span: its turns link to it, its end joins it.
        self._roots: weakref.WeakKeyDictionary[Any, trace.SpanContext] = weakref.WeakKeyDictionary()

    # -- content ------------------------------------------------------------
    def content(self, value: Any) -> str | None:
        """``value`` as text to record (JSON for objects), capped and redacted; None when
        content recording is off."""
        if not self.record_content:
            return None
        if self._redact is None:
            self._redact = secrets_redactor()
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        text = self._redact(text)
        return text if len(text) <= CONTENT_LIMIT else text[:CONTENT_LIMIT] + "…"

    def _set_content(self, span: Span, key: str, value: Any) -> None:
        text = self.content(value)
        if text is not None and span.is_recording():
            span.set_attribute(key, text)

    # -- session ------------------------------------------------------------
    @contextmanager
    def session_span(self, session: Any, what: str, session_id: str, detail: str) -> Iterator[Span]:
        """``session start`` (a new trace) or ``session end`` (in the start's trace): the
        span SessionStart / SessionEnd fire under."""
        attributes = {
            "gen_ai.conversation.id": session_id,
            "session.id": session_id,
            "openinference.span.kind": "CHAIN",
            f"agent_server.session.{'source' if what == 'start' else 'reason'}": detail,
        }
        root = self._roots.get(session)
        parent = (
            trace.set_span_in_context(trace.NonRecordingSpan(root), otel_context.Context())
            if root is not None
            else otel_context.Context()  # a root: not the HTTP request's trace, if any
        )
        with self._tracer.start_as_current_span(f"session {what}", context=parent, attributes=attributes) as span:
            if root is None and span.get_span_context().is_valid:
                self._roots[session] = span.get_span_context()
            yield span

    # -- turn ---------------------------------------------------------------
    @contextmanager
    def turn(self, session: Any, session_id: str, prompt_id: str, text: str) -> Iterator[Span]:
        """The ``invoke_agent`` span of one turn (a new trace, linked to the session's)."""
        root = self._roots.get(session)
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.conversation.id": session_id,
            "session.id": session_id,
            "openinference.span.kind": "AGENT",
            "agent_server.prompt_id": prompt_id,
        }
        with self._tracer.start_as_current_span(
            f"invoke_agent {AGENT_NAME}",
            context=otel_context.Context(),
            attributes=attributes,
            links=[Link(root)] if root is not None else None,
        ) as span:
            self._set_content(span, "input.value", text)
            yield span

    def turn_ended(self, span: Span, status: str, final_text: str, reason: str | None) -> None:
        """Record how the turn ended (``error`` is an error status)."""
        if not span.is_recording():
            return
        span.set_attribute("agent_server.turn.status", status)
        self._set_content(span, "output.value", final_text)
        if status == "error":
            span.set_status(Status(StatusCode.ERROR, reason or "error"))

    # -- model --------------------------------------------------------------
    @contextmanager
    def model_call(self, session_id: str, provider: str, model: str) -> Iterator[Span]:
        """The ``chat <model>`` span of one model call."""
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
            "gen_ai.conversation.id": session_id,
            "session.id": session_id,
            "openinference.span.kind": "LLM",
            "llm.model_name": model,
        }
        with self._tracer.start_as_current_span(f"chat {model}", kind=SpanKind.CLIENT, attributes=attributes) as span:
            yield span

    def model_replied(self, span: Span, reply: ModelReply) -> None:
        """Token usage, finish reason and (with content on) the reply's text."""
        if not span.is_recording():
            return
        span.set_attribute("gen_ai.response.finish_reasons", [reply.stop_reason])
        usage = reply.usage
        for ours, theirs, key in (
            ("gen_ai.usage.input_tokens", "llm.token_count.prompt", "input_tokens"),
            ("gen_ai.usage.output_tokens", "llm.token_count.completion", "output_tokens"),
        ):
            if isinstance(usage.get(key), int):
                span.set_attribute(ours, usage[key])
                span.set_attribute(theirs, usage[key])
        if isinstance(usage.get("input_tokens"), int) and isinstance(usage.get("output_tokens"), int):
            span.set_attribute("llm.token_count.total", usage["input_tokens"] + usage["output_tokens"])
        self._set_content(span, "output.value", reply.text or [b for b in reply.content if b.get("type") == "tool_use"])

    # -- tools --------------------------------------------------------------
    @contextmanager
    def tool_call(self, session_id: str, name: str, tool_use_id: str, tool_input: Any) -> Iterator[Span]:
        """The ``execute_tool <tool>`` span of one tool call; its PreToolUse and
        PostToolUse hooks fire under it."""
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": tool_use_id,
            "gen_ai.tool.type": "function",
            "gen_ai.conversation.id": session_id,
            "session.id": session_id,
            "openinference.span.kind": "TOOL",
            "tool.name": name,
        }
        with self._tracer.start_as_current_span(f"execute_tool {name}", attributes=attributes) as span:
            arguments = self.content(tool_input)
            if arguments is not None and span.is_recording():
                span.set_attribute("gen_ai.tool.call.arguments", arguments)
                span.set_attribute("input.value", arguments)
            yield span

    def tool_ended(self, span: Span, content: str, is_error: bool) -> None:
        """The tool's result: an error status (with the start of the message) when the
        call failed or a hook refused it."""
        if not span.is_recording():
            return
        self._set_content(span, "output.value", content)
        if is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR, content[:200]))
