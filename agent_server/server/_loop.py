"""The agent loop: model call, tool batch, hooks at every point, Stop; subagents reuse it.

Model-visible and user-visible effects of hook outcomes follow
``docs/spec/claude-code-contract.md`` exactly; :mod:`._session` owns the session-level
points (SessionStart, UserPromptSubmit, compaction, SessionEnd). The loop sees its
session only through :class:`LoopHost` (the session imports the loop, never the
other way round).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agent_server.hooks import EventOutcome, HookStatus, PermissionRule, PermissionRules

from ._events import EventLog
from ._payloads import AgentInfo, PayloadBase, permission_suggestions
from ._rules import PATH_DENIED, ask_unanswered, emit_rule, refusal, removed
from ._settings import Settings
from ._spans import AgentTracing
from ._transcript import Transcript
from .backends import BackendError, ModelBackend, ModelReply, ModelRequest
from .backends.scripted import STOP_FEEDBACK
from .tools import InvalidToolInput, TaskInput, Tool, ToolContext, ToolError, ToolOutcome, default_tools

__all__ = ["AgentState", "LoopHost", "LoopResult", "UserAnswer", "run_agent"]

USER_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
INTERRUPTED = "Tool call was interrupted before it finished."


@dataclass
class AgentState:
    """One conversation actor: the session's main agent, or a subagent."""

    info: AgentInfo
    conversation: list[dict[str, Any]]
    transcript: Transcript
    ctx: ToolContext
    tools: dict[str, Tool]
    description: str = ""
    tool_uses: int = 0
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def is_subagent(self) -> bool:
        """Whether this is a subagent (Task)."""
        return self.info.agent_id is not None


@dataclass
class LoopResult:
    """How an agent's run ended: ``completed``, ``stopped``, ``deferred``, ``denied``,
    ``interrupted``, ``error`` or ``max_steps``."""

    status: str
    final_text: str = ""
    reason: str | None = None


class UserAnswer(Protocol):
    """The user's answer to an approval request (``decision`` None: nobody answered)."""

    @property
    def decision(self) -> str | None:
        """``allow``, ``deny``, or None when the approval timed out."""
        ...

    @property
    def message(self) -> str | None:
        """Why (shown to the model on deny)."""
        ...

    @property
    def updated_input(self) -> dict[str, Any] | None:
        """Run the tool with this input instead."""
        ...


class LoopHost(Protocol):
    """What the agent loop needs from the session that runs it (the session is one)."""

    id: str
    events: EventLog
    permission_mode: str
    always_allow: set[str]
    current_prompt_id: str | None

    @property
    def settings(self) -> Settings:
        """Server settings."""
        ...

    @property
    def backend(self) -> ModelBackend:
        """The model backend."""
        ...

    @property
    def project_dir(self) -> Path:
        """The project directory."""
        ...

    @property
    def permissions(self) -> PermissionRules:
        """The settings files' permission rules (contract §12)."""
        ...

    @property
    def tracing(self) -> AgentTracing:
        """The agent's spans (turn, model call, tool call)."""
        ...

    def subagent_transcript_path(self, agent_id: str) -> Path:
        """Where a subagent's transcript goes."""
        ...

    def payload_base(self, agent: AgentState | None = None, prompt_id: str | None = None) -> PayloadBase:
        """Common payload fields for a hook fired by ``agent``."""
        ...

    def system_prompt(self, agent: AgentState) -> str:
        """The system prompt for a model call."""
        ...

    def notify_user(self, text: str, level: str = "info") -> None:
        """A message for the user only (never the model)."""
        ...

    def add_message(self, agent: AgentState, message: dict[str, Any]) -> None:
        """Append to ``agent``'s conversation and transcript, and announce it."""
        ...

    def refresh_env(self) -> None:
        """Re-read the SessionStart hooks' environment exports before a Bash call."""
        ...

    async def fire(self, event: str, payload: dict[str, Any]) -> EventOutcome:
        """Fire a hook event and report it on the event stream."""
        ...

    async def request_approval(
        self, agent: AgentState, tool_name: str, tool_input: dict[str, Any], tool_use_id: str, reason: str | None
    ) -> UserAnswer:
        """Ask the user whether a tool may run; waits for the answer or the timeout."""
        ...


@dataclass
class _CallResult:
    block: dict[str, Any]
    contexts: list[str] = field(default_factory=list)
    batch_entry: dict[str, Any] | None = None
    end: str | None = None
    end_reason: str | None = None
    stop_after: str | None = None


@dataclass
class _Permission:
    allowed: bool
    message: str = ""
    updated_input: dict[str, Any] | None = None
    end: str | None = None


def _result_block(tool_use_id: str, content: str, is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


def _batch_entry(model_name: str, model_input: dict[str, Any], tool_use_id: str, content: str) -> dict[str, Any]:
    """One ``tool_calls`` entry of PostToolBatch: the model's tool name and input; the
    subagent tool is ``Task`` there, its response a list of content blocks (contract §9)."""
    response: Any = [{"type": "text", "text": content}] if model_name == "Task" else content
    return {"tool_name": model_name, "tool_input": model_input, "tool_use_id": tool_use_id, "tool_response": response}


def hook_name(tool_name: str) -> str:
    """The tool name hooks see: the model's ``Task`` is ``Agent``."""
    return "Agent" if tool_name == "Task" else tool_name


def repair(conversation: list[dict[str, Any]]) -> None:
    """Give every ``tool_use`` without a result an error result, so the conversation is
    valid for the Messages API (after an interrupted turn or a resumed transcript)."""
    i = 0
    while i < len(conversation):
        msg = conversation[i]
        content = msg.get("content")
        if msg.get("role") == "assistant" and isinstance(content, list):
            ids = [b["id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
            if ids:
                nxt = conversation[i + 1] if i + 1 < len(conversation) else None
                have: set[str] = set()
                if nxt and nxt.get("role") == "user" and isinstance(nxt.get("content"), list):
                    have = {b.get("tool_use_id", "") for b in nxt["content"] if isinstance(b, dict)}
                missing = [_result_block(t, INTERRUPTED, True) for t in ids if t not in have]
                if missing:
                    if have and nxt is not None:
                        nxt["content"].extend(missing)
                    else:
                        conversation.insert(i + 1, {"role": "user", "content": missing})
        i += 1


def context_messages(label: str, contexts: list[str]) -> list[str]:
    """An event's ``additionalContext``s as Claude Code sends them: one system message,
    the contexts joined by ``\n`` (contract §9)."""
    return [f"{label} hook additional context: " + "\n".join(contexts)] if contexts else []


def blocking_messages(event: str, tool: str, outcome: EventOutcome) -> list[str]:
    """System messages for PostToolUse(Failure) blocks and contexts (contract §3-4)."""
    texts = [
        f'{event}:{tool} hook blocking error from command: "{r.command}": {r.reason or ""}'
        for r in outcome.hooks
        if r.status is HookStatus.BLOCKED
    ]
    return texts + context_messages(f"{event}:{tool}", outcome.additional_context)


async def run_agent(session: LoopHost, agent: AgentState, prompt_id: str) -> LoopResult:
    """Call the model and run its tools until it stops (Stop/SubagentStop permitting)."""
    settings = session.settings
    stop_blocks = 0
    steps = 0
    while True:
        steps += 1
        if steps > settings.max_turn_steps:
            session.notify_user(
                f"The turn was stopped after {settings.max_turn_steps} model calls (AGENT_SERVER_MAX_TURN_STEPS).",
                level="warning",
            )
            return LoopResult("max_steps", reason="too many model calls")
        reply = await _call_model(session, agent)
        for key, count in reply.usage.items():
            agent.usage[key] = agent.usage.get(key, 0) + count
        session.add_message(agent, {"role": "assistant", "content": reply.content})
        uses = reply.tool_uses
        if not uses:
            text = reply.text
            outcome = await _fire_stop(session, agent, text, stop_blocks)
            if not outcome.continue_:
                if outcome.stop_reason:
                    session.notify_user(outcome.stop_reason)
                return LoopResult("completed", text, outcome.stop_reason)
            if outcome.decision == "block":
                stop_blocks += 1
                event = "SubagentStop" if agent.is_subagent else "Stop"
                if stop_blocks >= settings.stop_block_cap:
                    session.notify_user(
                        f"{event} hook blocked {stop_blocks} times in a row; ending the turn anyway "
                        f"(cap AGENT_SERVER_STOP_BLOCK_CAP={settings.stop_block_cap}).",
                        level="warning",
                    )
                    return LoopResult("completed", text, "stop hook block cap reached")
                # A JSON block also reaches the model as a system message, before the
                # feedback (contract §9); an exit-2 block gives the feedback alone (§3).
                for hook in outcome.hooks:
                    if hook.status is HookStatus.BLOCKED and hook.json is not None:
                        error = f'{event} hook blocking error from command: "{hook.command}": {hook.reason or ""}'
                        session.add_message(agent, {"role": "system", "content": error})
                session.add_message(agent, {"role": "user", "content": STOP_FEEDBACK + (outcome.reason or "")})
                continue
            return LoopResult("completed", text)

        results: list[_CallResult] = []
        ended: _CallResult | None = None
        for block in uses:
            if ended is not None:
                results.append(
                    _CallResult(_result_block(block["id"], f"Tool call skipped: the turn ended ({ended.end}).", True))
                )
                continue
            res = await _traced_tool_call(session, agent, block, prompt_id)
            results.append(res)
            if res.end is not None:
                ended = res
        session.add_message(agent, {"role": "user", "content": [r.block for r in results]})
        for r in results:
            for text in r.contexts:
                session.add_message(agent, {"role": "system", "content": text})
        entries = [r.batch_entry for r in results if r.batch_entry is not None]
        if ended is not None:
            return LoopResult(ended.end or "stopped", reason=ended.end_reason)
        # `continue: false` on Pre/PostToolUse stops the loop before PostToolBatch (§9).
        stops = [r.stop_after for r in results if r.stop_after is not None]
        if stops:
            if stops[0]:
                session.notify_user(stops[0])
            return LoopResult("stopped", reason=stops[0] or "continue: false")
        if entries:
            base = session.payload_base(agent, prompt_id)
            batch = await session.fire("PostToolBatch", base.post_tool_batch(agent.info, entries))
            for text in context_messages("PostToolBatch", batch.additional_context):
                session.add_message(agent, {"role": "system", "content": text})
            if batch.blocked or not batch.continue_:
                why = batch.reason or batch.stop_reason or "no reason given"
                session.notify_user(f"PostToolBatch hook stopped the agent loop: {why}")
                return LoopResult("stopped", reason="hook_stopped")


async def _call_model(session: LoopHost, agent: AgentState) -> ModelReply:
    repair(agent.conversation)
    request = ModelRequest(
        system=session.system_prompt(agent),
        messages=list(agent.conversation),
        # A bare deny rule removes the tool, for subagents too (contract §12).
        tools=[t.schema() for t in agent.tools.values() if session.permissions.removed_by(hook_name(t.name)) is None],
    )

    async def on_text(delta: str) -> None:
        session.events.emit("assistant_delta", text=delta, agent_id=agent.info.agent_id)

    backend = session.backend
    tracing = session.tracing
    try:
        with tracing.model_call(session.id, backend.name, backend.model) as span:
            reply = await backend.respond(request, on_text)
            tracing.model_replied(span, reply)
        return reply
    except BackendError:
        raise
    except Exception as exc:  # a backend bug must not take the server down
        raise BackendError(f"model backend failed: {type(exc).__name__}: {exc}") from exc


async def _fire_stop(session: LoopHost, agent: AgentState, text: str, blocks: int) -> EventOutcome:
    base = session.payload_base(agent, session.current_prompt_id)
    if agent.is_subagent:
        payload = base.subagent_stop(
            agent.info,
            active=blocks > 0,
            transcript=str(agent.transcript.path),
            last_message=text,
            block_count=blocks,
        )
        return await session.fire("SubagentStop", payload)
    return await session.fire("Stop", base.stop(active=blocks > 0, last_message=text, block_count=blocks))


def _needs_approval(session: LoopHost, tool: Tool) -> bool:
    mode = session.permission_mode
    if mode == "bypassPermissions" or tool.kind in ("read", "agent"):
        return False
    if tool.name in session.always_allow:
        return False
    return not (mode == "acceptEdits" and tool.kind == "edit")


async def _traced_tool_call(session: LoopHost, agent: AgentState, block: dict[str, Any], prompt_id: str) -> _CallResult:
    """:func:`_run_tool_call` in an ``execute_tool`` span (its hooks fire under it)."""
    tracing = session.tracing
    name, tool_use_id = hook_name(str(block.get("name", ""))), str(block.get("id") or "")
    with tracing.tool_call(session.id, name, tool_use_id, block.get("input")) as span:
        result = await _run_tool_call(session, agent, block, prompt_id)
        tracing.tool_ended(span, str(result.block.get("content", "")), bool(result.block.get("is_error")))
    return result


async def _run_tool_call(session: LoopHost, agent: AgentState, block: dict[str, Any], prompt_id: str) -> _CallResult:
    tool_use_id = str(block.get("id") or f"toolu_{uuid.uuid4().hex[:20]}")
    model_name = str(block.get("name", ""))
    name = hook_name(model_name)
    raw_input = block.get("input")
    tool_input: dict[str, Any] = dict(raw_input) if isinstance(raw_input, dict) else {}
    model_input = tool_input  # PostToolBatch reports the model's own input (contract §9)
    agent.tool_uses += 1
    session.events.emit(
        "tool_call", tool_use_id=tool_use_id, tool_name=name, input=tool_input, agent_id=agent.info.agent_id
    )

    def fail(
        text: str,
        contexts: list[str] | None = None,
        *,
        blocked: bool = False,
        end: str | None = None,
        end_reason: str | None = None,
    ) -> _CallResult:
        session.events.emit(
            "tool_result",
            tool_use_id=tool_use_id,
            tool_name=name,
            is_error=True,
            content=text,
            blocked=blocked,
            agent_id=agent.info.agent_id,
        )
        return _CallResult(
            _result_block(tool_use_id, text, True),
            contexts or [],
            batch_entry=_batch_entry(model_name, model_input, tool_use_id, text),
            end=end,
            end_reason=end_reason,
        )

    rules = session.permissions
    where = {"cwd": agent.ctx.cwd, "project_dir": session.project_dir}

    def by_rule(rule: PermissionRule) -> None:
        emit_rule(session.events, rule, tool_use_id=tool_use_id, tool_name=name, agent_id=agent.info.agent_id)

    removed_by = rules.removed_by(name)
    if removed_by is not None:
        by_rule(removed_by)
        return fail(removed(model_name), blocked=True)
    tool = agent.tools.get(model_name)
    if tool is None:
        return fail(f"Error: No such tool available: {model_name}")
    try:
        tool.validate(tool_input)
    except ToolError as exc:
        return fail(str(exc))
    path_rule = rules.path_denied(name, tool_input, **where)
    if path_rule is not None:  # refused before PreToolUse, like Claude Code
        by_rule(path_rule)
        return fail(PATH_DENIED, blocked=True)

    base = session.payload_base(agent, prompt_id)
    pre = await session.fire("PreToolUse", base.pre_tool_use(agent.info, name, tool_input, tool_use_id))
    contexts = context_messages(f"PreToolUse:{name}", pre.additional_context)
    stop_after = None if pre.continue_ else (pre.stop_reason or "")
    if pre.decision == "deny":
        denied = fail(f"PreToolUse:{name} hook error: {pre.reason or 'blocked by a hook'}", contexts, blocked=True)
        denied.stop_after = stop_after  # a prompt hook's "no" also stops the turn (contract §11)
        return denied
    if pre.decision == "defer":
        why = pre.reason or "no reason given"
        session.notify_user(f"PreToolUse:{name} hook deferred the tool call; the turn ends: {why}")
        return fail(
            f"PreToolUse:{name} hook deferred this tool call: {why}",
            contexts,
            blocked=True,
            end="deferred",
            end_reason=why,
        )
    if pre.updated_input is not None:
        tool_input = dict(pre.updated_input)
        session.events.emit(
            "tool_input_updated",
            tool_use_id=tool_use_id,
            tool_name=name,
            input=tool_input,
            agent_id=agent.info.agent_id,
        )
    try:
        parsed = tool.validate(tool_input)
    except InvalidToolInput as exc:
        # Only a hook's rewrite can fail here: the model's input was checked above.
        return fail(
            f"PreToolUse hook for {name} returned updatedInput that failed schema validation: {exc.issues}\n"
            "The tool input from the model was valid; the hook's rewrite of it was not.",
            contexts,
        )
    except ToolError as exc:
        return fail(str(exc), contexts)

    # Settings rules come after PreToolUse; a hook's allow skips neither deny nor ask rules.
    ruling = rules.decide(name, tool_input, **where)
    if ruling.rule is not None and ruling.behavior != "allow":
        by_rule(ruling.rule)
    if ruling.behavior == "deny" and ruling.rule is not None:
        return fail(refusal(ruling.rule, name, tool_input), contexts, blocked=True)
    if pre.decision != "allow" or ruling.behavior == "ask":
        ask = pre.decision == "ask" or ruling.behavior == "ask"
        if session.permission_mode == "plan" and tool.kind in ("edit", "exec") and pre.decision != "ask":
            return fail(
                f"{name} is not available in plan mode: only read-only tools run until the user leaves plan mode.",
                contexts,
            )
        needs = ask or (_needs_approval(session, tool) and ruling.behavior != "allow")
        if ruling.behavior == "allow" and ruling.rule is not None and _needs_approval(session, tool):
            by_rule(ruling.rule)
        if needs:
            perm = await _permission(
                session,
                agent,
                base,
                name,
                tool_input,
                tool_use_id,
                pre.reason if pre.decision == "ask" else None,
                ask_unanswered(name) if ruling.behavior == "ask" and pre.decision != "ask" else None,
            )
            if not perm.allowed:
                return fail(perm.message, contexts, end=perm.end, end_reason=perm.message)
            if perm.updated_input is not None:
                tool_input = dict(perm.updated_input)
                try:
                    parsed = tool.validate(tool_input)
                except ToolError as exc:
                    return fail(str(exc), contexts)
                again = rules.decide(name, tool_input, **where)  # a rewrite cannot slip past a deny
                if again.behavior == "deny" and again.rule is not None:
                    by_rule(again.rule)
                    return fail(refusal(again.rule, name, tool_input), contexts, blocked=True)

    t0 = time.perf_counter()
    try:
        if model_name == "Task":
            assert isinstance(parsed, TaskInput)
            outcome = await _run_subagent(session, agent, parsed, prompt_id)
        else:
            if tool.name == "Bash":
                session.refresh_env()
            outcome = await tool.run(parsed, agent.ctx)
    except ToolError as exc:
        outcome = ToolOutcome.failure(str(exc))
    except OSError as exc:
        outcome = ToolOutcome.failure(f"{type(exc).__name__}: {exc}")
    duration_ms = round((time.perf_counter() - t0) * 1000)
    if outcome.new_cwd is not None and outcome.new_cwd != agent.ctx.cwd:
        old, agent.ctx.cwd = agent.ctx.cwd, outcome.new_cwd
        session.events.emit("cwd_changed", old_cwd=str(old), new_cwd=str(outcome.new_cwd), agent_id=agent.info.agent_id)
        if not agent.is_subagent:  # the session's cwd is the main agent's (contract §9)
            base = session.payload_base(agent, prompt_id)
            await session.fire("CwdChanged", base.cwd_changed(str(old), str(outcome.new_cwd)))
    session.events.emit(
        "tool_result",
        tool_use_id=tool_use_id,
        tool_name=name,
        is_error=not outcome.ok,
        content=outcome.content,
        duration_ms=duration_ms,
        agent_id=agent.info.agent_id,
    )

    base = session.payload_base(agent, prompt_id)
    if outcome.ok:
        event = "PostToolUse"
        post = await session.fire(
            event, base.post_tool_use(agent.info, name, tool_input, outcome.response, tool_use_id, duration_ms)
        )
    else:
        event = "PostToolUseFailure"
        post = await session.fire(
            event,
            base.post_tool_use_failure(
                agent.info,
                name,
                tool_input,
                tool_use_id,
                outcome.error or outcome.content,
                outcome.interrupted,
                duration_ms,
            ),
        )
    contexts += blocking_messages(event, name, post)
    if not post.continue_ and stop_after is None:
        stop_after = post.stop_reason or ""
    return _CallResult(
        _result_block(tool_use_id, outcome.content, not outcome.ok),
        contexts,
        batch_entry=_batch_entry(model_name, model_input, tool_use_id, outcome.content),
        stop_after=stop_after,
    )


async def _permission(
    session: LoopHost,
    agent: AgentState,
    base: PayloadBase,
    name: str,
    tool_input: dict[str, Any],
    tool_use_id: str,
    ask_reason: str | None,
    unanswered: str | None = None,
) -> _Permission:
    payload = base.permission_request(
        agent.info, name, tool_input, permission_suggestions(name, str(session.project_dir))
    )
    out = await session.fire("PermissionRequest", payload)
    if out.decision == "allow":
        return _Permission(True, updated_input=out.updated_input)
    if out.decision == "deny":
        message = out.reason or f"Permission to use {name} was denied by a PermissionRequest hook."
        if out.interrupt:
            session.notify_user(f"PermissionRequest hook interrupted the turn: {message}")
        return _Permission(False, message, end="interrupted" if out.interrupt else None)
    answer = await session.request_approval(agent, name, tool_input, tool_use_id, ask_reason)
    if answer.decision == "allow":
        return _Permission(True, updated_input=answer.updated_input)
    if answer.decision is None:  # no answer in time: the ask rule's text, else the hook's reason alone (§9)
        timeout = f"no answer within {session.settings.approval_timeout:g}s"
        return _Permission(False, unanswered or ask_reason or f"Permission to use {name} was not granted: {timeout}")
    message = USER_REJECTED + (f" The user said: {answer.message}" if answer.message else "")
    return _Permission(False, message, end="denied")


async def _run_subagent(session: LoopHost, parent: AgentState, task: TaskInput, prompt_id: str) -> ToolOutcome:
    agent_id = "a" + uuid.uuid4().hex[:16]
    info = AgentInfo(agent_id=agent_id, agent_type=task.subagent_type)
    path = session.subagent_transcript_path(agent_id)
    ctx = ToolContext(**{**parent.ctx.__dict__, "cwd": Path(parent.ctx.cwd)})
    ctx.env = parent.ctx.env  # the session's CLAUDE_ENV_FILE exports, shared
    sub = AgentState(
        info=info,
        conversation=[],
        transcript=Transcript(path, session.id, agent_id),
        ctx=ctx,
        tools=default_tools(with_task=False),
        description=task.description,
    )
    t0 = time.perf_counter()
    session.events.emit(
        "subagent_started",
        agent_id=agent_id,
        agent_type=task.subagent_type,
        description=task.description,
        transcript_path=str(path),
    )
    start = await session.fire("SubagentStart", session.payload_base(sub, prompt_id).subagent_start(info))
    session.add_message(sub, {"role": "user", "content": task.prompt})
    for text in context_messages("SubagentStart", start.additional_context):
        session.add_message(sub, {"role": "system", "content": text})
    try:
        result = await run_agent(session, sub, prompt_id)
    except BackendError as exc:
        result = LoopResult("error", reason=str(exc))
    session.events.emit("subagent_stopped", agent_id=agent_id, status=result.status, final_text=result.final_text)
    text = result.final_text or (f"Subagent ended: {result.status}" + (f" ({result.reason})" if result.reason else ""))
    usage = {"input_tokens": sub.usage.get("input_tokens", 0), "output_tokens": sub.usage.get("output_tokens", 0)}
    # Claude Code's keys, in its order (contract §9); no harness notes here, and a
    # finished subagent cannot be continued.
    response = {
        "status": result.status,
        "prompt": task.prompt,
        "agentId": agent_id,
        "agentType": task.subagent_type,
        "content": [{"type": "text", "text": text}],
        "totalDurationMs": round((time.perf_counter() - t0) * 1000),
        "totalToolUseCount": sub.tool_uses,
        "harnessNoteCount": 0,
        "harnessTailCount": 0,
        "harnessSectionHash": "",
        "resolvedModel": session.backend.model,
        "totalTokens": sum(usage.values()),
        "usage": usage,
        "canContinueAgent": False,
    }
    if result.status in ("completed", "max_steps"):
        return ToolOutcome(ok=True, content=text, response=response)
    out = ToolOutcome.failure(text)
    out.response = response
    return out
