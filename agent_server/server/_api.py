"""Request bodies of the HTTP API and its OpenAPI description (served at ``/openapi.json``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._settings import PermissionMode

__all__ = ["ApprovalAnswer", "CreateSession", "PostMessage", "TrustRequest", "UpdateSession", "openapi_spec"]


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


_ERROR = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
}
_SESSION = {
    "type": "object",
    "properties": {
        "session_id": {"type": "string"},
        "state": {"type": "string", "enum": ["starting", "idle", "running", "awaiting_approval", "closed"]},
        "permission_mode": {"type": "string"},
        "transcript_path": {"type": "string"},
        "cwd": {"type": "string"},
        "prompt_id": {"type": ["string", "null"]},
        "pending_approvals": {"type": "array", "items": {"type": "object"}},
        "last_event_seq": {"type": "integer"},
    },
}
_TURN = {
    "type": "object",
    "properties": {
        "prompt_id": {"type": "string"},
        "session_id": {"type": "string"},
        "status": {
            "type": "string",
            "description": "running | awaiting_approval | completed | blocked | "
            "stopped | deferred | denied | interrupted | error | max_steps",
        },
        "final_text": {"type": "string"},
        "reason": {"type": ["string", "null"]},
        "approval": {"type": ["object", "null"]},
    },
}


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
        out[code] = {
            "description": "error",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    return out


_SID = {"name": "session_id", "in": "path", "required": True, "schema": {"type": "string"}}


def openapi_spec(version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the API."""
    schemas: dict[str, Any] = {"Error": _ERROR, "Session": _SESSION, "Turn": _TURN}
    for model in (CreateSession, PostMessage, ApprovalAnswer, UpdateSession, TrustRequest):
        schemas[model.__name__] = model.model_json_schema()
    session_ref = {"$ref": "#/components/schemas/Session"}
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
                    "responses": _resp("ok", {"type": "object"}, errors=()),
                }
            },
            "/hooks": {
                "get": {
                    "summary": "Configured hooks per event, and configuration issues",
                    "responses": _resp("hooks", {"type": "object"}, errors=()),
                }
            },
            "/hooks/trust": {
                "get": {
                    "summary": "Project hooks and their trust (id, command, file, scripts, what changed)",
                    "responses": _resp("trust", {"type": "object"}, errors=()),
                },
                "post": {
                    "summary": "Trust project hooks by id (or all); they run from the next event",
                    "requestBody": _body(TrustRequest),
                    "responses": _resp("trusted", {"type": "object"}, errors=("409", "422")),
                },
            },
            "/sessions": {
                "post": {
                    "summary": "Create a session (fires SessionStart)",
                    "requestBody": {**_body(CreateSession), "required": False},
                    "responses": _resp("created", session_ref, "201", ("404", "409", "422")),
                },
                "get": {"summary": "List open sessions", "responses": _resp("sessions", {"type": "object"}, errors=())},
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
                            {"$ref": "#/components/schemas/Turn"},
                            "200",
                            ("404", "409", "422"),
                        ),
                        "202": {
                            "description": "turn started",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Turn"}}},
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
                    "responses": _resp("recorded", {"type": "object"}, errors=("404", "422")),
                },
            },
            "/sessions/{session_id}/interrupt": {
                "parameters": [_SID],
                "post": {
                    "summary": "Interrupt the running turn",
                    "responses": _resp("interrupted?", {"type": "object"}),
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
                                "application/json": {"schema": {"type": "object"}},
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
