"""A loopback HTTP hook endpoint for tests: a real Starlette app served by uvicorn on
127.0.0.1 (random port). Each route answers as the test tells it and records what it got."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agent_server.server.testing import serve_app

Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Received:
    """One request the endpoint got."""

    path: str
    method: str
    headers: dict[str, str]
    body: bytes
    client_port: int | None

    @property
    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


@dataclass
class Endpoint:
    """Routes ``/NAME`` to ``handlers[NAME]`` (default: an empty 200); ``url(NAME)`` is
    the full address once served."""

    handlers: dict[str, Handler] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    base: str = ""

    def url(self, name: str) -> str:
        """The address of route ``name``."""
        return f"{self.base}/{name}"

    def on(self, name: str, handler: Handler) -> str:
        """Answer ``/name`` with ``handler``; returns its URL."""
        self.handlers[name] = handler
        return self.url(name)

    def reply(self, name: str, body: Any = None, status: int = 200, raw: bytes | None = None) -> str:
        """Answer ``/name`` with a fixed JSON body (or raw bytes); returns its URL."""

        async def handler(request: Request) -> Response:
            if raw is not None:
                return Response(raw, status_code=status, media_type="text/plain")
            if body is None:
                return Response(b"", status_code=status)
            return JSONResponse(body, status_code=status)

        return self.on(name, handler)

    def of(self, name: str) -> list[Received]:
        """Requests to ``/name``."""
        return [r for r in self.received if r.path == f"/{name}"]

    async def _route(self, request: Request) -> Response:
        body = await request.body()
        self.received.append(
            Received(
                request.url.path,
                request.method,
                {k.lower(): v for k, v in request.headers.items()},
                body,
                request.client.port if request.client else None,
            )
        )
        handler = self.handlers.get(request.path_params["name"])
        if handler is None:
            return Response(b"", status_code=200)
        return await handler(request)

    @property
    def app(self) -> Starlette:
        """The ASGI app."""
        return Starlette(routes=[Route("/{name}", self._route, methods=["GET", "POST"])])


@asynccontextmanager
async def http_endpoint() -> AsyncIterator[Endpoint]:
    """A running :class:`Endpoint` on 127.0.0.1."""
    endpoint = Endpoint()
    async with serve_app(endpoint.app) as base:
        endpoint.base = base
        yield endpoint
