"""Testing aids: a fake Anthropic Messages API and a helper to run an ASGI app on a real
socket. Used by the test suite and ``bench/agent_loop.py``; handy for testing hooks
offline against the ``anthropic`` backend.

    api = FakeMessagesAPI()                      # plays scripted-backend prompts
    async with serve_app(api.app) as base_url:   # http://127.0.0.1:<random port>
        ...AGENT_SERVER_ANTHROPIC_BASE_URL=base_url...
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .backends import ModelRequest, ScriptedBackend, message_text
from .backends.scripted import scripted_prompt_reply

__all__ = ["FakeMessagesAPI", "Responder", "serve_app"]

#: Given the request body, returns the assistant's content blocks (may be async).
Responder = Callable[[dict[str, Any]], "list[dict[str, Any]] | Awaitable[list[dict[str, Any]]]"]


def _internal(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """API messages → the scripted backend's view: a user turn with text and no tool
    results is a prompt, and its last text block is the script."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        content = msg.get("content")
        if isinstance(content, str):
            out.append({"role": msg["role"], "content": content})
            continue
        blocks = [b for b in content or [] if isinstance(b, dict)]
        texts = [b.get("text", "") for b in blocks if b.get("type") == "text"]
        if msg["role"] == "user" and texts and not any(b.get("type") == "tool_result" for b in blocks):
            out.append({"role": "user", "content": texts[-1]})
        else:
            out.append({"role": msg["role"], "content": blocks})
    return out


class FakeMessagesAPI:
    """A Starlette app imitating ``POST /v1/messages`` (streaming and plain).

    Every request body is kept in ``requests``. Replies come from ``responder``; the
    default plays the newest prompt with the scripted backend's language, so the same
    prompts work with both backends.
    """

    def __init__(self, responder: Responder | None = None, model: str = "fake-model") -> None:
        self.requests: list[dict[str, Any]] = []
        self.responder = responder
        self.model = model
        self._scripted = ScriptedBackend()
        self.app = Starlette(routes=[Route("/v1/messages", self._messages, methods=["POST"])])

    async def scripted_reply(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The scripted backend's answer to a Messages API request body."""
        if "output_config" in body:  # a prompt hook's call: the scripted backend's answer
            return [{"type": "text", "text": scripted_prompt_reply(message_text(body["messages"][-1]))}]
        if "tools" not in body:  # a summary request (compaction)
            prompts = [message_text(m) for m in _internal(body.get("messages", []))]
            return [{"type": "text", "text": f"SUMMARY of {len(prompts)} messages"}]
        request = ModelRequest(
            system="", messages=_internal(body.get("messages", [])), tools=list(body.get("tools", []))
        )
        reply = await self._scripted.respond(request)
        return reply.content

    async def _messages(self, request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse(
                {"type": "error", "error": {"type": "invalid_request_error", "message": "body is not JSON"}}, 400
            )
        self.requests.append(body)
        if self.responder is None:
            content = await self.scripted_reply(body)
        else:
            result = self.responder(body)
            content = await result if not isinstance(result, list) else result
        stop = "tool_use" if any(b.get("type") == "tool_use" for b in content) else "end_turn"
        message = {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", self.model),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        if not body.get("stream"):
            return JSONResponse(message)
        return StreamingResponse(self._sse(message), media_type="text/event-stream")

    @staticmethod
    async def _sse(message: dict[str, Any]) -> AsyncIterator[str]:
        def ev(kind: str, data: dict[str, Any]) -> str:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"

        start = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
        yield ev("message_start", {"message": start})
        for i, block in enumerate(message["content"]):
            if block["type"] == "text":
                yield ev("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}})
                text = block["text"]
                for j in range(0, len(text), 16) or [0]:
                    yield ev(
                        "content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": text[j : j + 16]}}
                    )
            else:
                yield ev(
                    "content_block_start",
                    {
                        "index": i,
                        "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                    },
                )
                yield ev(
                    "content_block_delta",
                    {
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))},
                    },
                )
            yield ev("content_block_stop", {"index": i})
        yield ev(
            "message_delta",
            {"delta": {"stop_reason": message["stop_reason"], "stop_sequence": None}, "usage": {"output_tokens": 5}},
        )
        yield ev("message_stop", {})


def _free_socket(host: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _quiet_server_class() -> type[Any]:
    import uvicorn

    class QuietServer(uvicorn.Server):
        """Leaves signal handling to the host (tests, benchmarks)."""

        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return QuietServer


@asynccontextmanager
async def serve_app(app: Any, host: str = "127.0.0.1", startup_timeout: float = 10.0) -> AsyncIterator[str]:
    """Run ``app`` with uvicorn on ``host`` and a random free port in this event loop;
    yields the base URL. Leaving the block shuts the server down (lifespan included)."""
    import uvicorn

    _QuietServer = _quiet_server_class()
    sock = _free_socket(host)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="auto", timeout_graceful_shutdown=2, access_log=False)
    server = _QuietServer(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        with anyio.fail_after(startup_timeout):
            while not server.started:
                if server.should_exit:
                    raise RuntimeError("the test server failed to start")
                await anyio.sleep(0.005)
        try:
            yield f"http://{host}:{port}"
        finally:
            shutdown = getattr(app, "state", None)
            manager = getattr(shutdown, "manager", None) if shutdown is not None else None
            if manager is not None:
                manager.begin_shutdown()  # as `serve` does on SIGINT/SIGTERM
            server.should_exit = True
    sock.close()
