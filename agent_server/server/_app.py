"""The Starlette application: JSON API, SSE event streams, the chat page.

The lifespan owns the HookRunner, the model backend and the :class:`SessionManager`;
leaving it closes every session (SessionEnd) and ends background hooks.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, TypeVar

import anyio
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from agent_server import __version__
from agent_server.hooks import HookRunner, TrustError

from ._api import (
    ApprovalAnswer,
    ApprovalRecorded,
    CreateSession,
    Error,
    ErrorDetail,
    EventHistory,
    Health,
    HookList,
    Interrupted,
    PostMessage,
    SessionList,
    TrustListing,
    TrustRequest,
    Turn,
    UpdateSession,
    openapi_spec,
)
from ._api import Session as SessionBody
from ._auth import FrontDoor, authenticated, launch_token, login_response
from ._errors import (
    ApiError,
    BusyError,
    ClosedError,
    InvalidRequestError,
    NotFoundError,
    SessionError,
    UnavailableError,
)
from ._hooks_setup import build_runner
from ._otel import Telemetry, check_otel_env, telemetry_from_env
from ._session import Session, SessionManager
from ._settings import Settings, load_settings
from ._spans import AgentTracing
from ._trust_api import log_untrusted, trust_ids, trust_listing
from .backends import ModelBackend, make_backend

__all__ = ["create_app", "request_shutdown"]

log = logging.getLogger("agent_server.server")
_M = TypeVar("_M", bound=BaseModel)
_END_REASONS = ("other", "logout", "prompt_input_exit", "clear")
_STATIC = {"chat.js": "text/javascript; charset=utf-8", "chat.css": "text/css; charset=utf-8"}


def _send(body: BaseModel, status_code: int = 200) -> JSONResponse:
    """A JSON response whose body is ``body`` (optional keys it was not given are left out)."""
    return JSONResponse(body.model_dump(mode="json", exclude_unset=True), status_code=status_code)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return _send(Error(error=ErrorDetail(code=code, message=message)), status)


def _describe(session: Session, messages: bool = False) -> SessionBody:
    return SessionBody.model_validate(session.describe(messages=messages))


async def _parse(request: Request, model: type[_M], *, optional: bool = False) -> _M:
    raw = await request.body()
    if not raw.strip():
        if optional:
            return model()
        raise ApiError(422, "invalid", f"a JSON body is required ({model.__name__})")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"request body is not valid JSON: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err.get("loc", ())) or "body"
            value = err.get("input")
            shown = f" (got {json.dumps(value)[:80]})" if loc != "body" and value is not None else ""
            problems.append(f"{loc}: {err.get('msg')}{shown}")
        raise ApiError(422, "invalid", "; ".join(problems)) from None


def _manager(request: Request) -> SessionManager:
    manager: SessionManager | None = getattr(request.app.state, "manager", None)
    if manager is None:
        raise ApiError(503, "unavailable", "the server is not running (lifespan not started)")
    return manager


def _session(request: Request, *, include_closed: bool = False) -> Session:
    return _manager(request).get(request.path_params["session_id"], include_closed=include_closed)


# -- endpoints ----------------------------------------------------------------
async def health(request: Request) -> Response:
    """``GET /health``."""
    settings: Settings = request.app.state.settings
    manager: SessionManager | None = getattr(request.app.state, "manager", None)
    return _send(
        Health(
            status="ok",
            version=__version__,
            backend=settings.backend,
            env=settings.env,
            project_dir=str(settings.project_dir),
            sessions=len(manager.sessions) if manager else 0,
        )
    )


async def list_hooks(request: Request) -> Response:
    """``GET /hooks``: what is configured, per event, permission rules, and configuration issues."""
    runner: HookRunner = _manager(request).runner
    config = runner.config
    events = runner.events
    body = HookList.model_validate(
        {
            "files": list(config.files),
            "order": {e: runner.order_for(e) for e in events},
            "hooks": {
                e: [
                    {
                        "name": s.display_name,
                        "command": s.command,
                        "source": s.source,
                        "location": s.location,
                        "matcher": s.matcher,
                        "timeout": s.timeout,
                        "untrusted": runner.trust.reason(s),  # (None: it may run)
                    }
                    for s in runner.hooks_for(e)
                ]
                for e in events
            },
            "issues": [
                {"file": i.file, "path": i.path, "message": i.message, "severity": i.severity} for i in config.issues
            ],
            "permissions": config.permissions.to_dict(),
        }
    )
    return _send(body)


async def get_trust(request: Request) -> Response:
    """``GET /hooks/trust``: every project hook, its trust and what changed since trusted."""
    return _send(TrustListing.model_validate(trust_listing(_manager(request).runner.trust)))


async def post_trust(request: Request) -> Response:
    """``POST /hooks/trust``: trust the given ids (or all); they run from the next event."""
    body = await _parse(request, TrustRequest)
    if not body.ids and not body.all:
        raise ApiError(422, "invalid", "give 'ids' (from GET /hooks/trust) or 'all': true")
    trust = _manager(request).runner.trust
    return _send(TrustListing.model_validate(trust_ids(trust, body.ids, body.all)))


async def create_session(request: Request) -> Response:
    """``POST /sessions``."""
    body = await _parse(request, CreateSession, optional=True)
    session = await _manager(request).create(body.permission_mode, body.resume)
    return _send(_describe(session), 201)


async def list_sessions(request: Request) -> Response:
    """``GET /sessions``."""
    return _send(SessionList(sessions=[_describe(s) for s in _manager(request).sessions.values()]))


async def get_session(request: Request) -> Response:
    """``GET /sessions/{id}``."""
    session = _session(request, include_closed=True)
    return _send(_describe(session, messages=request.query_params.get("messages") == "true"))


async def patch_session(request: Request) -> Response:
    """``PATCH /sessions/{id}``."""
    session = _session(request)
    body = await _parse(request, UpdateSession)
    session.set_permission_mode(body.permission_mode)
    session.events.emit("permission_mode_changed", permission_mode=body.permission_mode)
    return _send(_describe(session))


async def delete_session(request: Request) -> Response:
    """``DELETE /sessions/{id}``: fires SessionEnd."""
    reason = request.query_params.get("reason", "other")
    if reason not in _END_REASONS:
        raise ApiError(422, "invalid", f"reason must be one of {', '.join(_END_REASONS)}, got {reason!r}")
    manager = _manager(request)
    session = manager.get(request.path_params["session_id"])
    await manager.close(session, reason)
    return _send(_describe(session))


async def post_message(request: Request) -> Response:
    """``POST /sessions/{id}/messages``."""
    session = _session(request)
    body = await _parse(request, PostMessage)
    start = session.events.last_seq
    turn = session.submit(body.text)
    running = Turn(prompt_id=turn.prompt_id, session_id=session.id, status="running")
    if not body.wait:
        return _send(running, 202)

    def settled(event: dict[str, Any]) -> bool:
        return event["seq"] > start and (
            (event["type"] == "turn_ended" and event.get("prompt_id") == turn.prompt_id)
            or event["type"] == "approval_required"
        )

    found: dict[str, Any] | None = None
    with anyio.move_on_after(body.timeout):
        async for event in session.events.subscribe(start):
            if settled(event):
                found = event
                break
    if found is None:
        return _send(running)
    fields = {k: v for k, v in found.items() if k not in ("seq", "type", "time")}
    if found["type"] == "approval_required":
        return _send(
            Turn.model_validate(
                {
                    "prompt_id": turn.prompt_id,
                    "session_id": session.id,
                    "status": "awaiting_approval",
                    "approval": fields,
                }
            )
        )
    return _send(Turn.model_validate(fields))


async def answer_approval(request: Request) -> Response:
    """``POST /sessions/{id}/approvals/{approval_id}``."""
    session = _session(request)
    body = await _parse(request, ApprovalAnswer)
    approval = session.answer(
        request.path_params["approval_id"], body.decision, body.message, body.remember, body.updated_input
    )
    return _send(ApprovalRecorded(approval_id=approval.id, decision=body.decision))


async def interrupt(request: Request) -> Response:
    """``POST /sessions/{id}/interrupt``."""
    return _send(Interrupted(interrupted=_session(request).interrupt()))


async def events(request: Request) -> Response:
    """``GET /sessions/{id}/events``: SSE (or JSON history with ``?stream=false``)."""
    session = _session(request, include_closed=True)
    raw = request.query_params.get("since") or request.headers.get("last-event-id") or "0"
    try:
        since = int(raw)
    except ValueError:
        raise ApiError(422, "invalid", f"since must be an integer, got {raw!r}") from None
    if request.query_params.get("stream") == "false":
        gap = session.events.dropped(since)
        history = {
            "session_id": session.id,
            "state": session.state,
            "events": session.events.history(since),
            "dropped": gap and {"from_seq": gap[0], "to_seq": gap[1]},
        }
        return _send(EventHistory.model_validate(history))
    stop = _manager(request).shutting_down

    async def stream() -> AsyncIterator[str]:
        yield "retry: 2000\n\n"
        async for event in session.events.subscribe(since, stop=stop, heartbeat=15.0):
            if event["type"] == "ping":
                yield ": ping\n\n"
                continue
            data = json.dumps(event, ensure_ascii=False, default=str)
            # (An events_dropped carries the seq of the last event it stands for: a
            # reconnect with Last-Event-ID resumes after the gap, not before it.)
            yield f"id: {event['seq']}\nevent: {event['type']}\ndata: {data}\n\n"
        yield "event: end\ndata: {}\n\n"

    return StreamingResponse(
        stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


async def metrics_page(request: Request) -> Response:
    """``GET /metrics``: hook metrics in Prometheus text format."""
    telemetry: Telemetry | None = getattr(request.app.state, "telemetry", None)
    if telemetry is None or telemetry.scrape is None:
        raise ApiError(404, "not_found", "metrics are off (AGENT_SERVER_METRICS_ENDPOINT=false or OTEL_SDK_DISABLED)")
    return Response(telemetry.render_metrics(), media_type="text/plain; version=0.0.4; charset=utf-8")


def _web_file(name: str) -> str:
    return resources.files("agent_server").joinpath("web", name).read_text(encoding="utf-8")


async def chat_page(request: Request) -> Response:
    """``GET /chat``; ``/chat?token=…`` first trades the token for the page's cookie."""
    settings: Settings = request.app.state.settings
    token: str | None = request.app.state.api_token
    login = login_response(request, token)
    if login is not None:
        return login
    signed_in = authenticated(request.scope, request.headers, token)
    config = {"env": settings.env, "authRequired": not signed_in, "version": __version__}
    html = _web_file("chat.html").replace(
        "<!--AGENT_SERVER_CONFIG-->", f"<script>window.AGENT_SERVER_CONFIG = {json.dumps(config)};</script>"
    )
    return HTMLResponse(html, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


async def chat_static(request: Request) -> Response:
    """``GET /chat/{name}``: the page's script and style."""
    name = request.path_params["name"]
    if name not in _STATIC:
        raise ApiError(404, "not_found", f"no file {name!r}")
    return Response(_web_file(name), media_type=_STATIC[name], headers={"Cache-Control": "no-store"})


async def root(request: Request) -> Response:
    """``GET /`` redirects to the chat page."""
    return RedirectResponse("/chat")


async def openapi(request: Request) -> Response:
    """``GET /openapi.json``."""
    return JSONResponse(openapi_spec(__version__))


# -- errors -----------------------------------------------------------------
#: The one place where a session-layer error becomes an HTTP status (most specific
#: class first; a subclass not listed gets its base class's status).
HTTP_STATUS: tuple[tuple[type[SessionError], int], ...] = (
    (NotFoundError, 404),
    (BusyError, 409),
    (ClosedError, 409),
    (InvalidRequestError, 422),
    (UnavailableError, 503),
    (SessionError, 400),
)


async def _session_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SessionError)
    status = next(status for cls, status in HTTP_STATUS if isinstance(exc, cls))
    return _error(status, exc.code, exc.message)


async def _trust_error(request: Request, exc: Exception) -> Response:
    # (the engine's refusal: an id that no longer names a hook, a script that cannot be
    # trusted, a trust store that cannot be written)
    return _error(409, "trust_refused", str(exc))


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return _error(exc.status, exc.code, exc.message)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code, message = {
        404: ("not_found", f"no route {request.method} {request.url.path}"),
        405: ("method_not_allowed", f"{request.method} is not allowed on {request.url.path}"),
    }.get(exc.status_code, ("http_error", str(exc.detail)))
    return _error(exc.status_code, code, message)


async def _internal_error(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
    return _error(500, "internal", f"internal error: {type(exc).__name__}")


def request_shutdown(app: Starlette) -> None:
    """Close the sessions, then end open event streams (call from uvicorn's exit handler,
    before it waits for open connections; thread-safe). See
    :meth:`SessionManager.begin_shutdown`."""
    manager: SessionManager | None = getattr(app.state, "manager", None)
    loop: asyncio.AbstractEventLoop | None = getattr(app.state, "loop", None)
    if manager is not None and loop is not None and not loop.is_closed():
        loop.call_soon_threadsafe(manager.begin_shutdown)


def create_app(
    settings: Settings | None = None,
    *,
    runner: HookRunner | None = None,
    backend: ModelBackend | None = None,
    setup: Callable[[HookRunner], Awaitable[Any] | Any] | None = None,
    telemetry: Telemetry | None = None,
) -> Starlette:
    """The agent server as an ASGI app.

    ``settings`` default to the environment (:func:`load_settings`). ``runner`` and
    ``backend`` replace the ones built from the settings; ``setup(runner)`` runs once the
    runner is open (e.g. to ``register`` in-process hooks). ``telemetry`` replaces the
    providers built from the ``OTEL_*`` variables at start-up (docs/observability.md).
    Raises :class:`SettingsInvalid` for bad settings or a malformed ``OTEL_*`` value.
    """
    settings = settings or load_settings()
    settings.check_backend()
    if telemetry is None:
        check_otel_env()  # (a malformed OTEL_* value stops the start, naming the variable)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        own = telemetry is None
        otel = telemetry or telemetry_from_env(metrics_endpoint=settings.metrics_endpoint)
        app.state.telemetry = otel
        tracing = AgentTracing(otel.tracer_provider, record_content=settings.trace_content)
        hook_runner = runner or build_runner(settings, otel.tracer_provider, otel.meter_provider)
        model = backend or make_backend(settings)
        if hook_runner.prompt_evaluator is None:
            # Prompt hooks ask the session's model (contract §11).
            hook_runner.prompt_evaluator = model.evaluate_hook_prompt
        app.state.loop = asyncio.get_running_loop()
        try:
            async with hook_runner:
                if setup is not None:
                    maybe = setup(hook_runner)
                    if inspect.isawaitable(maybe):
                        await maybe
                app.state.untrusted_hooks = log_untrusted(hook_runner)
                async with SessionManager(settings, hook_runner, model, tracing) as manager:
                    app.state.manager = manager
                    try:
                        yield
                    finally:
                        manager.shutting_down.set()
                app.state.manager = None
        finally:
            try:
                if runner is None and hook_runner.ledger is not None:
                    await hook_runner.ledger.aclose()  # (one it did not own: a retention)
            finally:
                await model.aclose()
                if own:  # the last spans and metrics go out (bounded by the exporters' timeouts)
                    await anyio.to_thread.run_sync(otel.shutdown)

    routes = [
        Route("/", root),
        Route("/health", health),
        Route("/openapi.json", openapi),
        Route("/hooks", list_hooks),
        Route("/hooks/trust", get_trust, methods=["GET"]),
        Route("/hooks/trust", post_trust, methods=["POST"]),
        Route("/metrics", metrics_page),
        Route("/chat", chat_page),
        Route("/chat/{name}", chat_static),
        Route("/sessions", create_session, methods=["POST"]),
        Route("/sessions", list_sessions, methods=["GET"]),
        Route("/sessions/{session_id}", get_session, methods=["GET"]),
        Route("/sessions/{session_id}", patch_session, methods=["PATCH"]),
        Route("/sessions/{session_id}", delete_session, methods=["DELETE"]),
        Route("/sessions/{session_id}/messages", post_message, methods=["POST"]),
        Route("/sessions/{session_id}/approvals/{approval_id}", answer_approval, methods=["POST"]),
        Route("/sessions/{session_id}/interrupt", interrupt, methods=["POST"]),
        Route("/sessions/{session_id}/events", events, methods=["GET"]),
    ]
    token = launch_token(settings)
    if token is None:
        log.warning(
            "AGENT_SERVER_AUTH=none: the API needs no token; any program on this machine can run commands through it"
        )
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(FrontDoor, settings=settings, token=token)],
        exception_handlers={
            ApiError: _api_error,
            SessionError: _session_error,
            TrustError: _trust_error,
            HTTPException: _http_error,
            Exception: _internal_error,
        },
    )
    app.state.settings = settings
    app.state.api_token = token  # (`serve` prints the chat URL with it)
    app.state.untrusted_hooks = 0
    app.state.manager = None
    app.state.telemetry = None
    return app
