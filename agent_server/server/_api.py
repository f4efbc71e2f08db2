"""Request and response bodies of the HTTP API, and its OpenAPI description (served at
``/openapi.json``). Every body is a pydantic model; the OpenAPI schemas are generated
from them, so the document cannot drift from what the endpoints send."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema

from ._settings import PermissionMode

__all__ = [
    "ApprovalAnswer",
    "ApprovalRecorded",
    "CreateSession",
    "Error",
    "ErrorDetail",
    "EventHistory",
    "Health",
    "HookList",
    "Interrupted",
    "PendingApproval",
    "PostMessage",
    "Session",
    "SessionList",
    "TrustListing",
    "TrustRequest",
    "Turn",
    "UpdateSession",
    "openapi_spec",
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateSession(_Body):
    """``POST /sessions``: start a session (or resume one from its transcript)."""

    permission_mode: PermissionMode | None = Field(
        None, description="default | acceptEdits | bypassPermissions | plan (default: the server's)."
    )
    resume: str | None = Field(None, description="Resume this session id from its transcript.")


class PostMessage(_Body):
    """``POST /sessions/{id}/messages``: a user prompt (or ``/compact [..]``, ``/clear``)."""

    text: str = Field(min_length=1, max_length=1_000_000, description="The prompt.")
    wait: bool = Field(False, description="Answer when the turn ends or waits for an approval.")
    timeout: float = Field(120.0, gt=0, le=3600, description="With wait: give up waiting after this.")


class ApprovalAnswer(_Body):
    """``POST /sessions/{id}/approvals/{approval_id}``: the user's decision."""

    decision: Literal["allow", "deny"]
    message: str | None = Field(None, description="Why (shown to the model on deny).")
    remember: bool = Field(False, description="Allow this tool for the rest of the session.")
    updated_input: dict[str, Any] | None = Field(None, description="Run the tool with this input.")


class UpdateSession(_Body):
    """``PATCH /sessions/{id}``: change the permission mode."""

    permission_mode: PermissionMode


class TrustRequest(_Body):
    """``POST /hooks/trust``: the ids to trust (as listed by ``GET /hooks/trust``), or all."""

    ids: list[str] = Field(default_factory=list, description="Item ids from GET /hooks/trust.")
    all: bool = Field(False, description="Trust every untrusted item.")


# -- responses ------------------------------------------------------------------------
class _Out(BaseModel):
    # A key the endpoint sends but the model lacks is an error, not a silent drop: the
    # published schema must describe every key.
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(_Out):
    """What went wrong."""

    code: str = Field(description="not_found | busy | closed | invalid | bad_json | unavailable | unauthorized | …")
    message: str = Field(description="What went wrong, naming the field or value.")
    header: str | None = Field(
        default=None, description="The request header at fault (Host, Origin, Content-Type), for 403 and 415."
    )


class Error(_Out):
    """Every error response."""

    error: ErrorDetail


class PendingApproval(_Out):
    """A tool call waiting for the user's decision."""

    approval_id: str
    tool_use_id: str
    tool_name: str
    tool_input: dict[str, Any]
    reason: str | None = Field(description="Why a hook asks (PreToolUse ask), if one did.")
    agent_id: str | None = Field(description="The subagent that wants the tool, None for the main agent.")


SessionState = Literal["starting", "idle", "running", "awaiting_approval", "closed"]


class Session(_Out):
    """A session's state."""

    session_id: str
    state: SessionState
    permission_mode: PermissionMode
    transcript_path: str
    cwd: str = Field(description="The session's current directory (follows cd in Bash).")
    created_at: float = Field(description="Unix time, seconds.")
    closed_reason: str | None = Field(description="The SessionEnd reason once closed.")
    prompt_id: str | None = Field(description="The running turn's prompt, if any.")
    pending_approvals: list[PendingApproval]
    last_event_seq: int
    messages: list[dict[str, Any]] = Field(
        default_factory=list, description="The conversation; only with ?messages=true."
    )


class SessionList(_Out):
    """The open sessions."""

    sessions: list[Session]


class Turn(_Out):
    """A prompt's turn: started (202), waiting for an approval, or ended."""

    prompt_id: str
    session_id: str
    status: str = Field(
        description="running | awaiting_approval | completed | blocked | "
        "stopped | deferred | denied | interrupted | error | max_steps"
    )
    final_text: str = Field(default="", description="The model's last reply (ended turns).")
    reason: str | None = Field(default=None, description="Why the turn ended this way (ended turns).")
    approval: PendingApproval | None = Field(default=None, description="What waits for the user (awaiting_approval).")


class ApprovalRecorded(_Out):
    """The user's answer was recorded."""

    approval_id: str
    decision: Literal["allow", "deny"]


class Interrupted(_Out):
    """Whether a running turn was interrupted."""

    interrupted: bool


class DroppedRange(_Out):
    """Events the session no longer keeps."""

    from_seq: int
    to_seq: int


class EventHistory(_Out):
    """``GET /sessions/{id}/events?stream=false``."""

    session_id: str
    state: SessionState
    events: list[dict[str, Any]] = Field(description="Each with seq, type, time and the type's fields.")
    dropped: DroppedRange | None


class Health(_Out):
    """Liveness and a configuration summary."""

    status: Literal["ok"]
    version: str
    backend: str
    env: str
    project_dir: str
    sessions: int = Field(description="Open sessions.")


class HookEntry(_Out):
    """One configured hook."""

    name: str
    command: str
    source: str = Field(description="The settings file it comes from.")
    location: str = Field(description="Its JSON path in that file.")
    matcher: str | None
    timeout: float = Field(description="Seconds.")
    untrusted: str | None = Field(description="Why it does not run until trusted; None when it may run.")


class HookIssue(_Out):
    """A problem in a settings file."""

    file: str
    path: str
    message: str
    severity: Literal["error", "warning"]


class PermissionRuleEntry(_Out):
    """One settings permission rule (contract §12)."""

    behavior: Literal["allow", "ask", "deny"]
    rule: str = Field(description="As written, e.g. Bash(npm run *).")
    tool: str
    specifier: str | None
    source: str = Field(description="The settings file it comes from.")
    location: str = Field(description="Its JSON path in that file.")
    why: str | None = Field(None, description="Why it is ignored (only in `ignored`).")


class PermissionRuleList(_Out):
    """The permission rules in effect, per behaviour, and those ignored."""

    allow: list[PermissionRuleEntry]
    ask: list[PermissionRuleEntry]
    deny: list[PermissionRuleEntry]
    ignored: list[PermissionRuleEntry]


class HookList(_Out):
    """Configured hooks per event, permission rules, and configuration issues."""

    files: list[str]
    order: dict[str, str] = Field(description="sequential | parallel, per event.")
    hooks: dict[str, list[HookEntry]]
    issues: list[HookIssue]
    permissions: PermissionRuleList


class TrustItem(_Out):
    """A project hook (or ``permissions.allow`` list) and its trust."""

    id: str = Field(description="Content id: the hook's definition and scripts, hashed (12 hex digits).")
    kind: Literal["hook", "permissions"]
    event: str
    command: str
    source: str = Field(description="The project file it comes from.")
    location: str = Field(description="Its JSON path in that file.")
    files: dict[str, str] = Field(description="Scripts in the project it names: path -> sha256.")
    trusted: bool
    reason: str | None = Field(description="Why it does not run (untrusted: ...), None when trusted.")
    problem: str | None = Field(description="Why it cannot be trusted at all (a symlink out of the project, ...).")
    changes: list[str] = Field(description="What differs from the version last trusted.")


class TrustListing(_Out):
    """``GET /hooks/trust`` (and ``POST``, with ``trusted``)."""

    policy: Literal["store", "all"]
    store: str = Field(description="The trust store file.")
    store_problem: str | None = Field(description="Why the store cannot be used (then nothing is trusted).")
    untrusted: int
    items: list[TrustItem]
    trusted: list[str] = Field(default_factory=list, description="POST: the ids just trusted.")


_REQUESTS: tuple[type[BaseModel], ...] = (CreateSession, PostMessage, ApprovalAnswer, UpdateSession, TrustRequest)
_RESPONSES: tuple[type[BaseModel], ...] = (
    Error,
    Session,
    SessionList,
    Turn,
    ApprovalRecorded,
    Interrupted,
    EventHistory,
    Health,
    HookList,
    TrustListing,
)


def _ref(model: type[BaseModel]) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _body(model: type[BaseModel]) -> dict[str, Any]:
    return {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
    }


def _resp(
    description: str, schema: dict[str, Any] | None = None, status: str = "200", errors: tuple[str, ...] = ("404",)
) -> dict[str, Any]:
    out: dict[str, Any] = {status: {"description": description}}
    if schema is not None:
        out[status]["content"] = {"application/json": {"schema": schema}}
    for code in errors:
        out[code] = {"description": "error", "content": {"application/json": {"schema": _ref(Error)}}}
    return out


_SID = {"name": "session_id", "in": "path", "required": True, "schema": {"type": "string"}}


def openapi_spec(version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the API."""
    _, generated = models_json_schema(
        [(m, "validation") for m in _REQUESTS] + [(m, "serialization") for m in _RESPONSES],
        ref_template="#/components/schemas/{model}",
    )
    schemas: dict[str, Any] = generated["$defs"]
    session_ref = _ref(Session)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "agent-server",
            "version": version,
            "description": "A small agent server with Claude-Code-compatible hooks. Send "
            "`Authorization: Bearer <token>` (AGENT_SERVER_API_TOKEN, or the per-launch token "
            "`serve` prints; the event stream also accepts `?access_token=`) and JSON bodies "
            "(`Content-Type: application/json`). Host and Origin are checked (403).",
        },
        "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": {
            "/health": {
                "get": {
                    "summary": "Liveness and configuration summary",
                    "security": [],
                    "responses": _resp("ok", _ref(Health), errors=()),
                }
            },
            "/hooks": {
                "get": {
                    "summary": "Configured hooks per event, and configuration issues",
                    "responses": _resp("hooks", _ref(HookList), errors=()),
                }
            },
            "/hooks/trust": {
                "get": {
                    "summary": "Project hooks and their trust (id, command, file, scripts, what changed)",
                    "responses": _resp("trust", _ref(TrustListing), errors=()),
                },
                "post": {
                    "summary": "Trust project hooks by id (or all); they run from the next event",
                    "requestBody": _body(TrustRequest),
                    "responses": _resp("trusted", _ref(TrustListing), errors=("409", "422")),
                },
            },
            "/sessions": {
                "post": {
                    "summary": "Create a session (fires SessionStart)",
                    "requestBody": {**_body(CreateSession), "required": False},
                    "responses": _resp("created", session_ref, "201", ("404", "409", "422")),
                },
                "get": {"summary": "List open sessions", "responses": _resp("sessions", _ref(SessionList), errors=())},
            },
            "/sessions/{session_id}": {
                "parameters": [_SID],
                "get": {
                    "summary": "Session state (with ?messages=true: the conversation)",
                    "responses": _resp("session", session_ref),
                },
                "patch": {
                    "summary": "Change the permission mode",
                    "requestBody": _body(UpdateSession),
                    "responses": _resp("session", session_ref, errors=("404", "422")),
                },
                "delete": {
                    "summary": "Close the session (fires SessionEnd)",
                    "parameters": [
                        {
                            "name": "reason",
                            "in": "query",
                            "schema": {"type": "string", "enum": ["other", "logout", "prompt_input_exit", "clear"]},
                        }
                    ],
                    "responses": _resp("closed", session_ref),
                },
            },
            "/sessions/{session_id}/messages": {
                "parameters": [_SID],
                "post": {
                    "summary": "Send a prompt; `/compact [instructions]` and `/clear` are commands",
                    "requestBody": _body(PostMessage),
                    "responses": {
                        **_resp(
                            "turn finished or waiting (wait=true)",
                            _ref(Turn),
                            "200",
                            ("404", "409", "422"),
                        ),
                        "202": {
                            "description": "turn started",
                            "content": {"application/json": {"schema": _ref(Turn)}},
                        },
                    },
                },
            },
            "/sessions/{session_id}/approvals/{approval_id}": {
                "parameters": [
                    _SID,
                    {"name": "approval_id", "in": "path", "required": True, "schema": {"type": "string"}},
                ],
                "post": {
                    "summary": "Answer a pending approval (a tool call that asks the user)",
                    "requestBody": _body(ApprovalAnswer),
                    "responses": _resp("recorded", _ref(ApprovalRecorded), errors=("404", "422")),
                },
            },
            "/sessions/{session_id}/interrupt": {
                "parameters": [_SID],
                "post": {
                    "summary": "Interrupt the running turn",
                    "responses": _resp("interrupted?", _ref(Interrupted)),
                },
            },
            "/sessions/{session_id}/events": {
                "parameters": [
                    _SID,
                    {
                        "name": "since",
                        "in": "query",
                        "schema": {"type": "integer"},
                        "description": "Only events with seq > since (also Last-Event-ID). Events the "
                        "session no longer keeps (it keeps the newest 20,000) are "
                        "announced by an events_dropped event (JSON: dropped).",
                    },
                    {
                        "name": "stream",
                        "in": "query",
                        "schema": {"type": "boolean"},
                        "description": "false: return the history as JSON instead of SSE.",
                    },
                ],
                "get": {
                    "summary": "Server-sent events: every message, tool call/result, hook run "
                    "(event, hook, status, duration, decision), approval and error",
                    "responses": {
                        "200": {
                            "description": "text/event-stream of JSON events (`event:` is the type, `id:` the seq)",
                            "content": {
                                "text/event-stream": {"schema": {"type": "string"}},
                                "application/json": {"schema": _ref(EventHistory)},
                            },
                        },
                        "404": {"description": "no such session"},
                    },
                },
            },
            "/chat": {
                "get": {
                    "summary": "The chat page",
                    "security": [],
                    "responses": {
                        "200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}
                    },
                }
            },
        },
    }
