"""Sessions: a conversation with a JSONL transcript, its lifecycle hooks (SessionStart,
UserPromptSubmit, PreCompact/PostCompact, Notification, SessionEnd), ``/compact``,
``/clear``, approvals, and the :class:`SessionManager` that owns them all."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
import anyio.abc

from agent_server._datadir import make_data_dir
from agent_server.hooks import (
    DEFAULT_STRIPPED_ENV,
    EventOutcome,
    HookError,
    HookRunner,
    HookStatus,
    PermissionRules,
    parse_env_file,
)

from ._errors import BusyError, ClosedError, InvalidRequestError, NotFoundError, UnavailableError
from ._events import EventLog
from ._loop import AgentState, LoopResult, context_messages, run_agent
from ._payloads import AgentInfo, PayloadBase
from ._settings import PERMISSION_MODES, Settings
from ._spans import AgentTracing
from ._transcript import COMPACT_BOUNDARY, Transcript, load_messages
from .backends import BackendError, ModelBackend
from .backends.scripted import COMPACT_PREAMBLE
from .tools import ToolContext, default_tools

__all__ = [
    "Approval",
    "Session",
    "SessionManager",
]

log = logging.getLogger("agent_server.server")

# How long closing a session whose start failed may take (its SessionEnd hooks).
_START_CLEANUP_TIMEOUT = 30.0
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
_SUMMARY_INTRO = COMPACT_PREAMBLE + " that ran out of context. The conversation is summarized below:\n"


@dataclass
class Approval:
    """A tool call waiting for the user's decision."""

    id: str
    tool_use_id: str
    tool_name: str
    tool_input: dict[str, Any]
    reason: str | None
    agent_id: str | None
    done: anyio.Event = field(default_factory=anyio.Event)
    decision: str | None = None
    message: str | None = None
    remember: bool = False
    updated_input: dict[str, Any] | None = None

    def public(self) -> dict[str, Any]:
        """The JSON form shown by the API and the stream."""
        return {
            "approval_id": self.id,
            "tool_use_id": self.tool_use_id,
            "tool_name": self.tool_name,
            "tool_input": self.tool_input,
            "reason": self.reason,
            "agent_id": self.agent_id,
        }


@dataclass
class Turn:
    """One prompt being processed."""

    prompt_id: str
    text: str
    done: anyio.Event = field(default_factory=anyio.Event)
    scope: anyio.CancelScope | None = None
    cancel_requested: bool = False
    result: dict[str, Any] = field(default_factory=dict)

    def cancel(self) -> None:
        """Ask the turn to end (also before its task has started)."""
        self.cancel_requested = True
        if self.scope is not None:
            self.scope.cancel()


class Session:
    """One conversation. Create through :meth:`SessionManager.create`."""

    def __init__(
        self,
        manager: SessionManager,
        session_id: str,
        permission_mode: str,
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        self.manager = manager
        self.id = session_id
        self.permission_mode = permission_mode
        self.events = EventLog()
        self.state = "starting"
        self.created_at = time.time()
        self.closed_reason: str | None = None
        self.current_prompt_id: str | None = None
        self.approvals: dict[str, Approval] = {}
        self.always_allow: set[str] = set()
        self.env_files: list[str] = []
        self.turn: Turn | None = None
        self._idle_scope: anyio.CancelScope | None = None
        self._closing: anyio.Event | None = None  # set once a close() has finished
        self._idle_generation = 0
        settings = manager.settings
        ctx = ToolContext(
            project_dir=settings.project_dir,
            cwd=settings.project_dir,
            env={},
            confine=settings.confine_tools,
            allowed_dirs=tuple(settings.allowed_dirs),
            bash_timeout=settings.bash_timeout,
            bash_max_timeout=settings.bash_max_timeout,
            output_limit=settings.tool_output_limit,
            stripped_env=DEFAULT_STRIPPED_ENV,
        )
        self.main = AgentState(
            info=AgentInfo(),
            conversation=list(messages or []),
            transcript=Transcript(self._transcript_file(session_id), session_id),
            ctx=ctx,
            tools=default_tools(),
        )

    # -- plumbing used by the loop -------------------------------------------
    @property
    def settings(self) -> Settings:
        """Server settings."""
        return self.manager.settings

    @property
    def backend(self) -> ModelBackend:
        """The model backend."""
        return self.manager.backend

    @property
    def permissions(self) -> PermissionRules:
        """The settings files' permission rules (contract §12)."""
        return self.manager.runner.config.permissions

    @property
    def project_dir(self) -> Path:
        """The project directory."""
        return self.settings.project_dir

    @property
    def tracing(self) -> AgentTracing:
        """The agent's spans (turn, model call, tool call; docs/observability.md)."""
        return self.manager.tracing

    @property
    def transcript_path(self) -> Path:
        """The main transcript file."""
        return self.main.transcript.path

    @property
    def cwd(self) -> Path:
        """The session's current directory (follows ``cd`` in Bash)."""
        return self.main.ctx.cwd

    def _transcript_file(self, session_id: str) -> Path:
        return self.manager.transcripts_dir / f"{session_id}.jsonl"

    def subagent_transcript_path(self, agent_id: str) -> Path:
        """Where a subagent's transcript goes."""
        return self.manager.transcripts_dir / self.id / "subagents" / f"agent-{agent_id}.jsonl"

    def payload_base(self, agent: AgentState | None = None, prompt_id: str | None = None) -> PayloadBase:
        """Common payload fields for a hook fired by ``agent`` (default: main)."""
        agent = agent or self.main
        return PayloadBase(
            session_id=self.id,
            transcript_path=str(self.transcript_path),
            cwd=str(agent.ctx.cwd),
            prompt_id=prompt_id,
            permission_mode=self.permission_mode,
        )

    def system_prompt(self, agent: AgentState) -> str:
        """The system prompt for a model call."""
        if self.settings.system_prompt:
            return self.settings.system_prompt
        who = "a subagent working on one task" if agent.is_subagent else "a coding agent"
        return (
            f"You are {who} run by agent-server in the project {self.project_dir}. The current "
            f"directory is {agent.ctx.cwd}. Use the tools to inspect and change files and to run "
            "commands; answer concisely."
        )

    def notify_user(self, text: str, level: str = "info") -> None:
        """A message for the user only (never the model)."""
        self.events.emit("system_message", text=text, level=level)

    def add_message(self, agent: AgentState, message: dict[str, Any]) -> None:
        """Append to ``agent``'s conversation and transcript, and announce it."""
        agent.conversation.append(message)
        agent.transcript.append(message, cwd=str(agent.ctx.cwd))
        content = message["content"]
        if isinstance(content, list) and all(b.get("type") == "tool_result" for b in content):
            return
        text = (
            content
            if isinstance(content, str)
            else "".join(b.get("text", "") for b in content if b.get("type") == "text")
        )
        data: dict[str, Any] = {"role": message["role"], "text": text, "agent_id": agent.info.agent_id}
        if isinstance(content, list):
            uses = [
                {"id": b["id"], "name": b["name"], "input": b.get("input")}
                for b in content
                if b.get("type") == "tool_use"
            ]
            if uses:
                data["tool_uses"] = uses
        self.events.emit("message", **data)

    def refresh_env(self) -> None:
        """Re-read CLAUDE_ENV_FILE exports from SessionStart hooks into the Bash env."""
        for path in self.env_files:
            self.main.ctx.env.update(parse_env_file(path))

    async def fire(self, event: str, payload: dict[str, Any]) -> EventOutcome:
        """Fire ``event`` and report every hook run on the event stream."""
        t0 = time.perf_counter()
        try:
            outcome = await self.manager.runner.fire(event, payload)
        except HookError as exc:
            self.notify_user(f"{event} hooks could not run: {exc}", level="error")
            outcome = EventOutcome(event=event)
        hooks = [
            {
                "name": r.name,
                "command": r.command,
                "source": r.source,
                "status": r.status.value,
                "duration_ms": round(r.duration_ms, 3),
                "decision": r.decision,
                "reason": r.reason,
                "exit_code": r.exit_code,
                "error": r.error,
            }
            for r in outcome.hooks
        ]
        self.events.emit(
            "hook",
            event=event,
            agent_id=payload.get("agent_id"),
            tool_name=payload.get("tool_name"),
            tool_use_id=payload.get("tool_use_id"),
            prompt_id=payload.get("prompt_id"),
            blocked=outcome.blocked,
            decision=outcome.decision,
            reason=outcome.reason,
            stop_reason=outcome.stop_reason,
            duration_ms=round((time.perf_counter() - t0) * 1000, 3),
            hooks=hooks,
            **{"continue": outcome.continue_},
        )
        for text in outcome.system_messages:
            self.notify_user(text)
        for r in outcome.hooks:
            if r.status in (HookStatus.ERROR, HookStatus.TIMEOUT):
                self.notify_user(f"{event} hook {r.name!r} failed: {r.error}", level="warning")
        return outcome

    def _contexts(self, outcome: EventOutcome, label: str, json_label: str | None = None) -> list[str]:
        """Context texts: each plain stdout reads ``<label> hook success: ...``; the JSON
        ``additionalContext``s make one ``<json_label> hook additional context: ...``
        (joined by newlines, contract §9)."""
        texts, joined = [], []
        for r in outcome.hooks:
            if r.status in (HookStatus.SKIPPED, HookStatus.TIMEOUT) or not r.additional_context:
                continue
            if r.json is None:
                texts.append(f"{label} hook success: {r.additional_context}")
            else:
                joined.append(r.additional_context)
        return texts + context_messages(json_label or label, joined)

    # -- lifecycle -------------------------------------------------------------
    async def start(self, source: str, prompt_id: str | None = None, extra: dict[str, Any] | None = None) -> None:
        """Fire SessionStart; its contexts join the conversation, its env files the Bash env."""
        self.events.emit(
            "session_started",
            session_id=self.id,
            source=source,
            transcript_path=str(self.transcript_path),
            cwd=str(self.cwd),
            permission_mode=self.permission_mode,
        )
        payload = self.payload_base(prompt_id=prompt_id).session_start(source, self.backend.model, extra)
        outcome = await self.fire("SessionStart", payload)
        # JSON context is labelled without the source (contract §9).
        for text in self._contexts(outcome, f"SessionStart:{source}", "SessionStart"):
            self.add_message(self.main, {"role": "system", "content": text})
        self.env_files += outcome.env_files
        self.refresh_env()
        if self.state == "starting":
            self.state = "idle"

    def submit(self, text: str) -> Turn:
        """Start processing a prompt in the background; returns the turn."""
        self._check_open()
        if self.turn is not None:
            raise BusyError(
                f"session {self.id} is busy with prompt {self.turn.prompt_id}; "
                "wait for its turn_ended event (or answer its approval) first",
            )
        self._idle_generation += 1
        if self._idle_scope is not None:
            self._idle_scope.cancel()
        turn = Turn(prompt_id=str(uuid.uuid4()), text=text)
        self.turn = turn
        self.state = "running"
        self.manager.spawn(self._traced_turn, turn)
        return turn

    async def _traced_turn(self, turn: Turn) -> None:
        """:meth:`_run_turn` in the turn's ``invoke_agent`` span (docs/observability.md)."""
        tracing = self.tracing
        with tracing.turn(self, self.id, turn.prompt_id, turn.text) as span:
            await self._run_turn(turn)
            result = turn.result or {}
            tracing.turn_ended(
                span, str(result.get("status")), str(result.get("final_text") or ""), result.get("reason")
            )

    async def _run_turn(self, turn: Turn) -> None:
        self.current_prompt_id = turn.prompt_id
        self.events.emit("turn_started", prompt_id=turn.prompt_id, text=turn.text)
        result = LoopResult("error", reason="not run")
        try:
            with anyio.CancelScope() as scope:
                turn.scope = scope
                if turn.cancel_requested:
                    scope.cancel()
                result = await self._dispatch(turn)
            if scope.cancelled_caught:
                result = LoopResult("interrupted", reason="the turn was interrupted")
        except BackendError as exc:
            self.notify_user(f"Model error: {exc}", level="error")
            self.events.emit("error", message=str(exc), prompt_id=turn.prompt_id)
            result = LoopResult("error", reason=str(exc))
        except Exception as exc:
            log.exception("turn %s of session %s failed", turn.prompt_id, self.id)
            message = f"internal error: {type(exc).__name__}: {exc}"
            self.notify_user(message, level="error")
            self.events.emit("error", message=message, prompt_id=turn.prompt_id)
            result = LoopResult("error", reason=message)
        finally:
            turn.result = {
                "prompt_id": turn.prompt_id,
                "status": result.status,
                "final_text": result.final_text,
                "reason": result.reason,
                "session_id": self.id,
            }
            self.events.emit("turn_ended", **turn.result)
            self.turn = None
            if self.state != "closed":
                self.state = "idle"
                self._start_idle_timer()
            turn.done.set()

    async def _dispatch(self, turn: Turn) -> LoopResult:
        text = turn.text.strip()
        command, _, arg = text.partition(" ")
        if command == "/compact":
            done = await self.compact("manual", arg.strip() or None, turn.prompt_id)
            return LoopResult("completed" if done else "blocked", "Compacted." if done else "")
        if command == "/clear" and not arg.strip():
            await self.clear(turn.prompt_id)
            return LoopResult("completed", "Cleared.")
        return await self._prompt(turn)

    async def _prompt(self, turn: Turn) -> LoopResult:
        budget = self.settings.context_budget
        if budget and self.conversation_size() > budget:
            await self.compact("auto", None, turn.prompt_id)
        base = self.payload_base(prompt_id=turn.prompt_id)
        outcome = await self.fire("UserPromptSubmit", base.user_prompt_submit(turn.text))
        contexts = self._contexts(outcome, "UserPromptSubmit")
        if not outcome.continue_:
            for c in contexts:
                self.add_message(self.main, {"role": "system", "content": c})
            self.notify_user(f"Operation stopped by hook: {outcome.stop_reason or ''}")
            return LoopResult("stopped", reason=outcome.stop_reason)
        if outcome.blocked:
            for c in contexts:
                self.add_message(self.main, {"role": "system", "content": c})
            self.notify_user(f"UserPromptSubmit operation blocked by hook:\n{outcome.reason or ''}")
            return LoopResult("blocked", reason=outcome.reason)
        self.add_message(self.main, {"role": "user", "content": turn.text})
        for c in contexts:
            self.add_message(self.main, {"role": "system", "content": c})
        return await run_agent(self, self.main, turn.prompt_id)

    def conversation_size(self) -> int:
        """Characters in the main conversation (the auto-compaction measure)."""
        import json

        return len(json.dumps(self.main.conversation, ensure_ascii=False))

    async def compact(self, trigger: str, instructions: str | None, prompt_id: str) -> bool:
        """PreCompact → summary → SessionStart(compact) → PostCompact. False if blocked."""
        base = self.payload_base(prompt_id=prompt_id)
        pre = await self.fire("PreCompact", base.pre_compact(trigger, instructions))
        if pre.blocked:
            self.notify_user(f"Compaction blocked by PreCompact hook: {pre.reason or ''}")
            return False
        full = "\n".join([x for x in [instructions, *pre.additional_context] if x]) or None
        summary = await self.backend.summarize(list(self.main.conversation), full)
        before = len(self.main.conversation)
        self.main.conversation.clear()
        self.main.transcript.append(
            {"role": "system", "content": "Conversation compacted"}, cwd=str(self.cwd), subtype=COMPACT_BOUNDARY
        )
        self.add_message(self.main, {"role": "user", "content": _SUMMARY_INTRO + summary})
        await self.start("compact", prompt_id=prompt_id)
        await self.fire("PostCompact", base.post_compact(trigger, summary))
        self.events.emit("compacted", trigger=trigger, summary=summary, messages_before=before)
        return True

    async def clear(self, prompt_id: str | None) -> None:
        """SessionEnd(reason=clear), then a new session id and SessionStart(source=clear)."""
        # Without prompt_id, as Claude Code sends it (contract §9).
        await self.fire("SessionEnd", self.payload_base().session_end("clear"))
        old = self.id
        new = str(uuid.uuid4())
        self.id = new
        self.main.conversation.clear()
        self.main.transcript = Transcript(self._transcript_file(new), new)
        self.manager.rekey(old, self)
        self.events.emit(
            "session_cleared", old_session_id=old, session_id=new, transcript_path=str(self.transcript_path)
        )
        await self.start("clear")

    async def close(self, reason: str = "other") -> None:
        """End the running turn (if any), fire SessionEnd and close the event stream.

        Once: a second close() (a DELETE racing another, or shutdown) waits for the
        first instead of firing SessionEnd again."""
        if self._closing is not None:
            await self._closing.wait()
            return
        if self.state == "closed":
            return
        self._closing = anyio.Event()  # before the first await: a racing close() sees it
        try:
            await self._close(reason)
        finally:
            self._closing.set()

    async def _close(self, reason: str) -> None:
        turn = self.turn
        if turn is not None:
            turn.cancel()
            with anyio.move_on_after(10):
                await turn.done.wait()
        if self._idle_scope is not None:
            self._idle_scope.cancel()
        self.state = "closed"
        self.closed_reason = reason
        try:
            with self.tracing.session_span(self, "end", self.id, reason):
                await self.fire("SessionEnd", self.payload_base(prompt_id=self.current_prompt_id).session_end(reason))
        finally:
            self.events.emit("session_ended", reason=reason, session_id=self.id)
            self.events.close()

    def _check_open(self) -> None:
        if self.state == "closed":
            raise ClosedError(f"session {self.id} is closed")

    def _start_idle_timer(self) -> None:
        seconds = self.settings.idle_notification_seconds
        if seconds <= 0:
            return
        generation = self._idle_generation

        async def watch() -> None:
            with anyio.CancelScope() as scope:
                self._idle_scope = scope
                await anyio.sleep(seconds)
                if generation == self._idle_generation and self.turn is None and self.state == "idle":
                    payload = self.payload_base().notification("Claude is waiting for your input", "idle_prompt")
                    await self.fire("Notification", payload)

        self.manager.spawn(watch)

    # -- approvals -------------------------------------------------------------
    async def request_approval(
        self, agent: AgentState, tool_name: str, tool_input: dict[str, Any], tool_use_id: str, reason: str | None
    ) -> Approval:
        """Ask the user (via the API/UI) whether a tool may run; waits for the answer or
        the approval timeout (then ``decision`` is None)."""
        approval = Approval(
            id=uuid.uuid4().hex[:12],
            tool_use_id=tool_use_id,
            tool_name=tool_name,
            tool_input=tool_input,
            reason=reason,
            agent_id=agent.info.agent_id,
        )
        self.approvals[approval.id] = approval
        self.state = "awaiting_approval"
        self.events.emit("approval_required", **approval.public())
        await self.fire(
            "Notification",
            self.payload_base(agent).notification(
                f"Claude needs your permission to use {tool_name}", "permission_prompt"
            ),
        )
        try:
            with anyio.move_on_after(self.settings.approval_timeout):
                await approval.done.wait()
        finally:
            self.approvals.pop(approval.id, None)
            if self.state == "awaiting_approval":
                self.state = "running"
        by = "user" if approval.decision is not None else "timeout"
        self.events.emit(
            "approval_resolved",
            approval_id=approval.id,
            decision=approval.decision or "deny",
            by=by,
            tool_use_id=tool_use_id,
        )
        if approval.decision == "allow" and approval.remember:
            self.always_allow.add(tool_name)
        return approval

    def answer(
        self,
        approval_id: str,
        decision: str,
        message: str | None = None,
        remember: bool = False,
        updated_input: dict[str, Any] | None = None,
    ) -> Approval:
        """Record the user's answer to a pending approval."""
        approval = self.approvals.get(approval_id)
        if approval is None or approval.done.is_set():
            raise NotFoundError(f"no pending approval {approval_id!r} in session {self.id}")
        approval.decision = decision
        approval.message = message
        approval.remember = remember
        approval.updated_input = updated_input
        approval.done.set()
        return approval

    def set_permission_mode(self, mode: str) -> None:
        """Change the permission mode for later tool calls."""
        if mode not in PERMISSION_MODES:
            raise InvalidRequestError(f"permission_mode must be one of {', '.join(PERMISSION_MODES)}")
        self.permission_mode = mode

    def interrupt(self) -> bool:
        """Cancel the running turn; True if there was one."""
        if self.turn is None:
            return False
        self.turn.cancel()
        return True

    def describe(self, messages: bool = False) -> dict[str, Any]:
        """The session's JSON form."""
        data: dict[str, Any] = {
            "session_id": self.id,
            "state": self.state,
            "permission_mode": self.permission_mode,
            "transcript_path": str(self.transcript_path),
            "cwd": str(self.cwd),
            "created_at": self.created_at,
            "closed_reason": self.closed_reason,
            "prompt_id": self.turn.prompt_id if self.turn else None,
            "pending_approvals": [a.public() for a in self.approvals.values()],
            "last_event_seq": self.events.last_seq,
        }
        if messages:
            data["messages"] = self.main.conversation
        return data


# Anthropic's prompt cache lives 5 minutes; a cache write costs $6.25 per million tokens
# (Claude Opus 4.5). Both only feed the estimates of SessionStart(resume).
_CACHE_TTL_SECONDS = 300
_CACHE_WRITE_USD_PER_TOKEN = 6.25e-6


def _resume_fields(session: Session, idle: int) -> dict[str, Any]:
    """SessionStart(resume)'s extra keys, in Claude Code's order (contract §9); tokens are
    estimated as one per four characters of the conversation."""
    tokens = session.conversation_size() // 4
    return {
        "seconds_since_last_response": idle,
        "context_tokens": tokens,
        "prompt_cache_likely_expired": idle > _CACHE_TTL_SECONDS,
        "estimated_cache_write_usd": round(tokens * _CACHE_WRITE_USD_PER_TOKEN, 4),
    }


# How long open event streams may stay open at shutdown while the sessions close.
_STREAM_GRACE = 2.0


class SessionManager:
    """Owns every session and their background tasks; closes them all on exit
    (each fires SessionEnd)."""

    def __init__(
        self, settings: Settings, runner: HookRunner, backend: ModelBackend, tracing: AgentTracing | None = None
    ) -> None:
        self.settings = settings
        self.runner = runner
        self.backend = backend
        #: The agent's spans (turn, model call, tool call; docs/observability.md).
        self.tracing = tracing or AgentTracing()
        self.transcripts_dir = settings.data_path / "transcripts"
        self.sessions: dict[str, Session] = {}
        self._aliases: dict[str, str] = {}
        self._closed: OrderedDict[str, Session] = OrderedDict()
        self._tg: anyio.abc.TaskGroup | None = None
        self.shutting_down = anyio.Event()
        self._shutdown_requested = anyio.Event()

    async def __aenter__(self) -> SessionManager:
        make_data_dir(self.settings.data_path)
        self.transcripts_dir.mkdir(parents=True, exist_ok=True)
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._close_on_request)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            await self.shutdown()
        finally:
            tg, self._tg = self._tg, None
            if tg is not None:
                tg.cancel_scope.cancel()
                await tg.__aexit__(None, None, None)

    def begin_shutdown(self) -> None:
        """The server is about to stop (call on the event loop, even from a plain loop
        callback): close every session now, so that open event streams still carry each
        ``turn_ended`` and ``session_ended``, then tell the streams to end. They are
        told at the latest after ``_STREAM_GRACE`` seconds, so a slow SessionEnd hook
        cannot hold the server."""
        self._shutdown_requested.set()

    async def _close_on_request(self) -> None:
        await self._shutdown_requested.wait()

        async def end_streams_later() -> None:
            await anyio.sleep(_STREAM_GRACE)
            self.shutting_down.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(end_streams_later)
            try:
                await self._close_all()
            finally:
                self.shutting_down.set()
                tg.cancel_scope.cancel()

    async def shutdown(self) -> None:
        """Close every open session (SessionEnd reason ``other``)."""
        self.shutting_down.set()
        await self._close_all()

    async def _close_all(self) -> None:
        # All at once: each may wait for its turn to end and for its SessionEnd hooks,
        # and one slow session must not hold back the others' ends.
        async def close(session: Session) -> None:
            try:
                await self.close(session, "other")
            except Exception:
                log.exception("closing session %s failed", session.id)

        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for session in list(self.sessions.values()):
                    tg.start_soon(close, session)

    def spawn(self, func: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        """Run ``func(*args)`` in the manager's task group."""
        if self._tg is None:
            raise UnavailableError("the server is shutting down")
        self._tg.start_soon(func, *args)

    async def create(self, permission_mode: str | None = None, resume: str | None = None) -> Session:
        """A new session (or a resumed one) that has fired SessionStart."""
        if self.shutting_down.is_set() or self._shutdown_requested.is_set():
            raise UnavailableError("the server is shutting down")
        mode = permission_mode or self.settings.permission_mode
        if mode not in PERMISSION_MODES:
            raise InvalidRequestError(f"permission_mode must be one of {', '.join(PERMISSION_MODES)}")
        if resume is not None:
            if not _SESSION_ID.match(resume):
                raise InvalidRequestError(f"resume: {resume!r} is not a session id")
            if resume in self.sessions:
                raise BusyError(f"session {resume} is open; use it instead of resuming")
            path = self.transcripts_dir / f"{resume}.jsonl"
            if not path.is_file():
                raise NotFoundError(f"resume: no transcript for session {resume}")
            idle = max(0, int(time.time() - path.stat().st_mtime))
            session = Session(self, resume, mode, load_messages(path))
            # An id left behind by /clear (an alias of the session that followed) is
            # this session's again: its own id wins over the alias from now on.
            alias = self._aliases.pop(resume, None)
            try:
                await self._start(session, "resume", _resume_fields(session, idle))
            except BaseException:
                if alias is not None and alias in self.sessions:
                    self._aliases[resume] = alias  # still leads to the open successor
                raise
            return session
        session = Session(self, str(uuid.uuid4()), mode)
        await self._start(session, "startup")
        return session

    async def _start(self, session: Session, source: str, extra: dict[str, Any] | None = None) -> None:
        """Register ``session`` and fire its SessionStart. If that fails (an error of
        ours, not a hook's) or is cancelled, the session does not stay half-open: it is
        closed like any other (SessionEnd, ``session_ended``), then the error goes on."""
        self.sessions[session.id] = session
        try:
            with self.tracing.session_span(session, "start", session.id, source):
                await session.start(source, extra=extra)
        except BaseException as exc:
            (log.error if isinstance(exc, Exception) else log.info)(
                "session %s could not start: %s: %s", session.id, type(exc).__name__, exc
            )
            with anyio.CancelScope(shield=True), anyio.move_on_after(_START_CLEANUP_TIMEOUT):
                try:
                    await self.close(session, "other")
                except Exception:
                    log.exception("closing session %s after its failed start failed", session.id)
            self.sessions.pop(session.id, None)  # (even if close() ran out of time)
            raise

    def get(self, session_id: str, *, include_closed: bool = False) -> Session:
        """The session with this id (or an id it had before ``/clear``)."""
        sid = session_id if session_id in self.sessions else self._aliases.get(session_id, session_id)
        session = self.sessions.get(sid)
        if session is None and include_closed:
            session = self._closed.get(session_id) or self._closed.get(sid)
        if session is None:
            raise NotFoundError(f"no session {session_id!r}")
        return session

    def rekey(self, old: str, session: Session) -> None:
        """After ``/clear``: the session has a new id; the old one still finds it."""
        self.sessions.pop(old, None)
        self.sessions[session.id] = session
        self._aliases[old] = session.id
        for alias, target in list(self._aliases.items()):
            if target == old:
                self._aliases[alias] = session.id

    async def close(self, session: Session, reason: str = "other") -> None:
        """Close ``session`` and keep it readable for a while."""
        try:
            await session.close(reason)
        finally:
            self.sessions.pop(session.id, None)
            self._closed[session.id] = session
            for alias, target in list(self._aliases.items()):
                if target == session.id:
                    self._closed[alias] = session
                    del self._aliases[alias]
            while len(self._closed) > 200:
                self._closed.popitem(last=False)
