"""HTTP hooks in the engine (contract §10) against a real endpoint on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import psutil
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from agent_server.hooks import HookRunner, HookStatus
from agent_server.hooks._ledger_query import open_ledger, recent_events
from tests.http_endpoint import http_endpoint
from tests.support import cmd, project

pytestmark = pytest.mark.anyio

PAYLOAD: dict[str, Any] = {
    "session_id": "sess-1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build"},
    "tool_use_id": "toolu_1",
}
DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "no rm from the endpoint",
    }
}


def http(url: str, matcher: str | None = None, **fields: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "http", "url": url, **fields}]}
    if matcher:
        group["matcher"] = matcher
    return group


def runner(path: Path, **kw: Any) -> HookRunner:
    return HookRunner.from_project(path, user_settings=None, **kw)


async def test_payload_is_posted_and_a_json_answer_decides(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        url = ep.reply("deny", DENY)
        p = project(tmp_path, {"PreToolUse": [http(url, matcher="Bash")]})
        async with runner(p) as r:
            outcome = await r.fire("PreToolUse", PAYLOAD)
    assert outcome.blocked and outcome.decision == "deny"
    assert outcome.reason == "no rm from the endpoint"
    [got] = ep.of("deny")
    assert got.method == "POST" and got.headers["content-type"] == "application/json"
    # The body is the payload a command hook reads on stdin, keys in the same order.
    assert list(got.json) == [*PAYLOAD, "hook_event_name"]
    assert got.json["tool_input"] == {"command": "rm -rf build"}
    [result] = outcome.hooks
    assert result.command == url and result.status is HookStatus.BLOCKED
    assert result.extra["http_status"] == 200


async def test_empty_body_is_success_and_failures_do_not_block(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        empty = ep.reply("empty")
        text = ep.reply("text", raw=b"all good")
        broken = ep.reply("broken", raw=b'{"decision": ')
        missing = ep.reply("missing", {"error": "nope"}, status=404)
        array = ep.reply("array", [1, 2])
        refused = "http://127.0.0.1:9/refused"  # the discard port: nothing listens there
        p = project(tmp_path, {"PreToolUse": [http(u) for u in (empty, text, broken, missing, array, refused)]})
        async with runner(p) as r:
            outcome = await r.fire("PreToolUse", PAYLOAD)
    assert not outcome.blocked and outcome.decision is None
    statuses = [h.status for h in outcome.hooks]
    assert statuses == [HookStatus.OK] + [HookStatus.ERROR] * 5
    errors = [h.error or "" for h in outcome.hooks[1:]]
    assert errors[0] == f"HTTP 200 from {text}: the response body is not a JSON object"
    assert errors[1] == f"HTTP 200 from {broken}: the response body is not a JSON object"
    assert errors[2] == f"HTTP 404 from {missing}"
    assert errors[3] == f"HTTP 200 from {array}: the response body is not a JSON object"
    assert errors[4].startswith(f"request to {refused} failed: ConnectError")


async def test_on_failure_block_uses_claude_codes_text(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        url = ep.reply("gone", status=404)
        p = project(tmp_path, {"PreToolUse": [http(url, onFailure="block")]})
        async with runner(p) as r:
            outcome = await r.fire("PreToolUse", PAYLOAD)
    assert outcome.blocked and outcome.decision == "deny"
    assert outcome.reason == f'[{url}]: failed; blocking because onFailure is "block"\nHTTP 404 from {url}'


async def test_post_tool_use_block_names_the_url(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        url = ep.reply("post", {"decision": "block", "reason": "lint failed"})
        p = project(tmp_path, {"PostToolUse": [http(url)]})
        async with runner(p) as r:
            outcome = await r.fire("PostToolUse", {**PAYLOAD, "tool_response": {"stdout": ""}})
    [result] = outcome.hooks
    assert result.status is HookStatus.BLOCKED and result.command == url and result.reason == "lint failed"


async def test_timeout_is_a_cancel_scope_and_fails_open(tmp_path: Path) -> None:
    never = anyio.Event()

    async def hang(request: Request) -> Response:
        await never.wait()
        return Response(b"{}")

    async with http_endpoint() as ep:
        url = ep.on("hang", hang)
        p = project(tmp_path, {"PreToolUse": [http(url, timeout=0.3)]})
        async with runner(p) as r:
            outcome = await r.fire("PreToolUse", PAYLOAD)
        never.set()
    [result] = outcome.hooks
    assert result.status is HookStatus.TIMEOUT and result.timed_out
    assert result.error == "timed out after 0.3s"
    assert not outcome.blocked


async def test_headers_fill_only_allowed_variables(tmp_path: Path) -> None:
    env = {"HOOK_TOKEN": "tok-123", "SECRET": "do-not-send", "PATH": "/usr/bin"}
    async with http_endpoint() as ep:
        url = ep.reply("headers")
        headers = {"Authorization": "Bearer $HOOK_TOKEN", "X-Braced": "<${HOOK_TOKEN}>", "X-Secret": "[$SECRET]"}
        p = project(tmp_path, {"Stop": [http(url, headers=headers, allowedEnvVars=["HOOK_TOKEN"])]})
        async with runner(p, env=env) as r:
            await r.fire("Stop", {"session_id": "s", "stop_hook_active": False})
    [got] = ep.of("headers")
    assert got.headers["authorization"] == "Bearer tok-123"
    assert got.headers["x-braced"] == "<tok-123>"
    assert got.headers["x-secret"] == "[]"
    assert "do-not-send" not in json.dumps(got.headers)


async def test_a_variable_that_would_break_a_header_is_refused(tmp_path: Path) -> None:
    env = {"HOOK_TOKEN": "tok\r\nX-Injected: yes"}
    async with http_endpoint() as ep:
        url = ep.reply("inject")
        p = project(
            tmp_path,
            {"Stop": [http(url, headers={"Authorization": "Bearer $HOOK_TOKEN"}, allowedEnvVars=["HOOK_TOKEN"])]},
        )
        async with runner(p, env=env) as r:
            outcome = await r.fire("Stop", {"session_id": "s", "stop_hook_active": False})
    [result] = outcome.hooks
    assert result.status is HookStatus.ERROR
    assert (
        result.error == "header 'Authorization' would hold a line break or NUL once its variables are filled; not sent"
    )
    assert ep.of("inject") == []


async def test_connections_are_reused_across_fires(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        url = ep.reply("again")
        p = project(tmp_path, {"PreToolUse": [http(url)]})
        async with runner(p) as r:
            for _ in range(3):
                await r.fire("PreToolUse", PAYLOAD)
    ports = {got.client_port for got in ep.of("again")}
    assert len(ep.of("again")) == 3 and len(ports) == 1


async def test_same_host_redirects_are_followed_other_hosts_refused(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        target = ep.reply("target", DENY)
        same = ep.on("same", _redirect(target))
        elsewhere = ep.on("elsewhere", _redirect(target.replace("127.0.0.1", "localhost")))
        p = project(tmp_path, {"PreToolUse": [http(same)], "PostToolUse": [http(elsewhere)]})
        async with runner(p) as r:
            pre = await r.fire("PreToolUse", PAYLOAD)
            post = await r.fire("PostToolUse", {**PAYLOAD, "tool_response": {}})
    assert pre.blocked and pre.reason == "no rm from the endpoint"
    [followed] = ep.of("target")  # only the same-host redirect reached it
    assert followed.method == "POST" and followed.json["hook_event_name"] == "PreToolUse"
    [refused] = post.hooks
    assert refused.status is HookStatus.ERROR
    assert refused.error == (
        f"HTTP 307 from {elsewhere}: redirect to another host refused ({target.replace('127.0.0.1', 'localhost')})"
    )


def _redirect(location: str) -> Any:
    async def handler(request: Request) -> Response:
        return RedirectResponse(location, status_code=307)

    return handler


async def test_the_body_read_is_bounded(tmp_path: Path) -> None:
    sent = 0

    async def huge(request: Request) -> Response:
        async def chunks() -> Any:
            nonlocal sent
            yield b'{"reason": "'
            for _ in range(64):
                sent += 1
                yield b"x" * 65536
            yield b'"}'

        return StreamingResponse(chunks(), media_type="application/json")

    async with http_endpoint() as ep:
        url = ep.on("huge", huge)
        p = project(tmp_path, {"PreToolUse": [http(url)]})
        async with runner(p, output_limit=1000) as r:
            outcome = await r.fire("PreToolUse", PAYLOAD)
    [result] = outcome.hooks
    assert result.status is HookStatus.ERROR and result.truncated
    assert result.error == f"HTTP 200 from {url}: the response body is cut off at the size limit"
    assert len(result.stdout) == 1000


async def test_http_and_command_hooks_start_together(tmp_path: Path) -> None:
    """Each side waits for the other to have started: only concurrent starts finish."""
    from_hook, from_endpoint = tmp_path / "hook-started", tmp_path / "endpoint-started"

    async def wait_for_hook(request: Request) -> Response:
        from_endpoint.touch()
        with anyio.fail_after(10):
            while not from_hook.exists():
                await anyio.sleep(0.01)
        return JSONResponse({"systemMessage": "endpoint saw the command hook"})

    script = tmp_path / "hook.py"
    script.write_text(
        "import pathlib, sys, time\n"
        f"pathlib.Path({str(from_hook)!r}).touch()\n"
        "deadline = time.monotonic() + 10\n"
        f"while not pathlib.Path({str(from_endpoint)!r}).exists():\n"
        "    if time.monotonic() > deadline: sys.exit(1)\n"
        "    time.sleep(0.01)\n"
        'print(\'{"systemMessage": "hook saw the endpoint"}\')\n'
    )
    async with http_endpoint() as ep:
        url = ep.on("together", wait_for_hook)
        p = project(
            tmp_path,
            {"PreToolUse": [http(url, timeout=20), cmd(f"{sys.executable} {script}", timeout=20)]},
            hookRunner={"order": "parallel"},
        )
        async with runner(p) as r:
            outcome = await r.fire("PreToolUse", PAYLOAD)
    assert [h.status for h in outcome.hooks] == [HookStatus.OK, HookStatus.OK]
    assert outcome.system_messages == ["endpoint saw the command hook", "hook saw the endpoint"]


async def test_span_ledger_and_trace_header(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    db = tmp_path / "hooks.db"
    async with http_endpoint() as ep:
        url = ep.reply("traced", DENY)
        p = project(tmp_path, {"PreToolUse": [http(url)]})
        async with runner(p, tracer_provider=provider, ledger=db) as r:
            await r.fire("PreToolUse", PAYLOAD)
    provider.shutdown()
    spans = {s.name: s for s in exporter.get_finished_spans()}
    hook_span = spans["traced"]  # the short name: the URL's last path segment
    assert hook_span.attributes is not None
    assert hook_span.attributes["hook.command"] == url
    assert hook_span.attributes["hook.status"] == "blocked"
    # The request carried the hook span's W3C trace context.
    [got] = ep.of("traced")
    assert got.headers["traceparent"] == (
        f"00-{hook_span.context.trace_id:032x}-{hook_span.context.span_id:016x}-{int(hook_span.context.trace_flags):02x}"
    )
    conn = open_ledger(db)
    try:
        [event] = recent_events(conn)
    finally:
        conn.close()
    [row] = event["hooks"]
    assert row["command"] == url and row["status"] == "blocked"


def client_connections(port: int) -> int:
    """This process's open TCP connections to ``port`` (client side only)."""
    return sum(1 for c in psutil.Process().net_connections(kind="tcp") if c.raddr and c.raddr.port == port)


async def test_closing_the_runner_closes_its_connections(tmp_path: Path) -> None:
    async with http_endpoint() as ep:
        url = ep.reply("once")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        p = project(tmp_path, {"PreToolUse": [http(url)]})
        async with runner(p) as r:
            await r.fire("PreToolUse", PAYLOAD)
            assert client_connections(port) == 1  # kept open for the next fire
        assert client_connections(port) == 0
