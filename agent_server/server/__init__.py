"""The agent server: a Starlette app whose lifespan owns a HookRunner, sessions with
JSONL transcripts, an agent loop that fires every Claude Code hook event, model
backends (``scripted``, ``anthropic``), tools, an HTTP/SSE API and a chat page.

    from agent_server.server import create_app, load_settings
    app = create_app(load_settings(project_dir="."))
"""

from __future__ import annotations

from ._app import create_app, request_shutdown
from ._errors import (
    ApiError,
    BusyError,
    ClosedError,
    InvalidRequestError,
    NotFoundError,
    SessionError,
    UnavailableError,
)
from ._otel import Telemetry, telemetry_from_env
from ._session import Session, SessionManager
from ._settings import Settings, SettingsInvalid, load_settings

__all__ = [
    "ApiError",
    "BusyError",
    "ClosedError",
    "InvalidRequestError",
    "NotFoundError",
    "Session",
    "SessionError",
    "SessionManager",
    "Settings",
    "SettingsInvalid",
    "Telemetry",
    "UnavailableError",
    "create_app",
    "load_settings",
    "request_shutdown",
    "telemetry_from_env",
]
