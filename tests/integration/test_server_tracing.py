"""The server's traces and metrics through a real server (docs/observability.md): one
turn is one trace (turn, model call, tool, hooks); ``GET /metrics``; OTEL_* checks."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agent_server.server import SettingsInvalid, Telemetry, create_app, telemetry_from_env
from tests.integration.server_harness import make_project, running_server, server_settings

pytestmark = pytest.mark.anyio


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    yield InMemorySpanExporter()


@pytest.fixture
def telemetry(exporter: InMemorySpanExporter) -> Iterator[Telemetry]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield Telemetry(tracer_provider=provider)
    provider.shutdown()


async def spans_when(
    exporter: InMemorySpanExporter, done: Callable[[Sequence[ReadableSpan]], bool], timeout: float = 10
) -> Sequence[ReadableSpan]:
    """The finished spans once ``done`` holds for them (bounded wait: the turn's span
    ends just after the API has answered)."""
    with anyio.fail_after(timeout):
        while not done(spans := exporter.get_finished_spans()):
            await anyio.sleep(0.02)
    return spans


def one(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    found = [s for s in spans if s.name == name]
    assert len(found) == 1, f"{name}: {[s.name for s in spans]}"
    return found[0]


async def test_one_prompt_with_one_tool_call_is_one_trace(
    tmp_path: Path, exporter: InMemorySpanExporter, telemetry: Telemetry
) -> None:
    project = make_project(tmp_path)
    project.hook("SessionStart", name="greeter")
    project.hook("UserPromptSubmit", name="prompt-log")
    project.hook("PreToolUse", name="guard", matcher="Bash")
    project.hook("PostToolUse", name="audit", matcher="Bash")
    project.hook("Stop", name="stopper")
    async with running_server(project, telemetry=telemetry) as h:
        sid = (await h.create(permission_mode="bypassPermissions"))["session_id"]
        result = await h.send(sid, "$ echo hi")
        assert result["status"] == "completed", result
        spans = await spans_when(exporter, lambda s: any(x.name.startswith("invoke_agent") for x in s))
    turn = one(spans, "invoke_agent agent-server")
    trace_id = turn.context.trace_id
    in_trace = [s for s in spans if s.context.trace_id == trace_id]
    names = sorted(s.name for s in in_trace)
    assert names == sorted(
        [
            "invoke_agent agent-server",
            "hooks.fire UserPromptSubmit",
            "prompt-log",
            "chat scripted",
            "chat scripted",  # the tool call's reply, then the final answer
            "execute_tool Bash",
            "hooks.fire PreToolUse",
            "guard",
            "hooks.fire PostToolUse",
            "audit",
            "hooks.fire Stop",
            "stopper",
        ]
    ), names
    by_id = {s.context.span_id: s for s in in_trace}

    def parent(span: ReadableSpan) -> str:
        assert span.parent is not None, span.name
        return by_id[span.parent.span_id].name

    tool = one(in_trace, "execute_tool Bash")
    assert parent(tool) == "invoke_agent agent-server"
    assert parent(one(in_trace, "hooks.fire PreToolUse")) == "execute_tool Bash"
    assert parent(one(in_trace, "hooks.fire PostToolUse")) == "execute_tool Bash"
    assert parent(one(in_trace, "guard")) == "hooks.fire PreToolUse"
    assert parent(one(in_trace, "hooks.fire UserPromptSubmit")) == "invoke_agent agent-server"
    assert parent(one(in_trace, "hooks.fire Stop")) == "invoke_agent agent-server"
    assert turn.parent is None
    # GenAI and OpenInference attributes, each on its own span.
    assert turn.attributes is not None and tool.attributes is not None
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn.attributes["gen_ai.conversation.id"] == sid
    assert turn.attributes["openinference.span.kind"] == "AGENT"
    assert tool.attributes["gen_ai.tool.name"] == "Bash"
    assert str(tool.attributes["gen_ai.tool.call.id"]).startswith("toolu_")
    assert tool.attributes["openinference.span.kind"] == "TOOL"
    assert "input.value" not in tool.attributes  # tool input only with trace_content on
    chat = next(s for s in in_trace if s.name == "chat scripted")
    assert chat.attributes is not None
    assert chat.attributes["gen_ai.request.model"] == "scripted"
    assert chat.attributes["openinference.span.kind"] == "LLM"
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    guard = one(in_trace, "guard")
    assert guard.attributes is not None
    assert guard.attributes["openinference.span.kind"] == "CHAIN"
    assert str(guard.attributes["hook.command"]).endswith("guard.py")
    assert guard.attributes["process.exit.code"] == 0
    assert guard.attributes["session.id"] == sid
    for span in in_trace:
        if not span.name.startswith("execute_tool"):
            assert not any(k.startswith("gen_ai.tool") for k in span.attributes or {}), span.name
    # SessionStart is in the session's own trace, which the turn links to.
    start = one(spans, "session start")
    assert start.context.trace_id != trace_id
    assert parent_name(spans, one(spans, "hooks.fire SessionStart")) == "session start"
    assert [link.context.span_id for link in turn.links] == [start.context.span_id]


def parent_name(spans: Sequence[ReadableSpan], span: ReadableSpan) -> str:
    assert span.parent is not None
    return next(s.name for s in spans if s.context.span_id == span.parent.span_id)


async def test_a_blocked_tool_shows_as_errors_and_session_end_joins_the_session_trace(
    tmp_path: Path, exporter: InMemorySpanExporter, telemetry: Telemetry
) -> None:
    project = make_project(tmp_path)
    project.hook("PreToolUse", "print('no rm', file=sys.stderr); sys.exit(2)", name="no-rm", matcher="Bash")
    project.hook("SessionEnd", name="bye")
    async with running_server(project, telemetry=telemetry, trace_content=True) as h:
        sid = (await h.create(permission_mode="bypassPermissions"))["session_id"]
        await h.send(sid, "$ rm -rf /tmp/nothing-here GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")
        await spans_when(exporter, lambda s: any(x.name.startswith("invoke_agent") for x in s))
        await h.close(sid)
        spans = await spans_when(exporter, lambda s: any(x.name == "session end" for x in s))
    hook = one(spans, "no-rm")
    assert hook.status.status_code is StatusCode.ERROR and "no rm" in (hook.status.description or "")
    assert hook.attributes is not None and hook.attributes["error.type"] == "blocked"
    assert hook.attributes["process.exit.code"] == 2
    event = one(spans, "hooks.fire PreToolUse")
    assert event.status.status_code is StatusCode.ERROR
    assert event.attributes is not None and event.attributes["hook.blocked_count"] == 1
    tool = one(spans, "execute_tool Bash")
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.attributes is not None
    arguments = str(tool.attributes["gen_ai.tool.call.arguments"])
    assert "rm -rf /tmp/nothing-here GITHUB_TOKEN=[REDACTED]" in arguments
    assert "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" not in arguments
    end = one(spans, "session end")
    assert end.context.trace_id == one(spans, "session start").context.trace_id
    assert parent_name(spans, one(spans, "hooks.fire SessionEnd")) == "session end"


async def test_an_event_with_no_hook_to_run_makes_no_span(
    tmp_path: Path, exporter: InMemorySpanExporter, telemetry: Telemetry
) -> None:
    project = make_project(tmp_path)
    project.hook("PreToolUse", name="only-read", matcher="Read")
    async with running_server(project, telemetry=telemetry) as h:
        sid = (await h.create(permission_mode="bypassPermissions"))["session_id"]
        await h.send(sid, "$ echo hi")
        spans = await spans_when(exporter, lambda s: any(x.name.startswith("invoke_agent") for x in s))
    assert not [s.name for s in spans if s.name.startswith("hooks.fire")]
    assert one(spans, "execute_tool Bash")


async def test_metrics_endpoint_answers_in_prometheus_format_behind_the_token(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("PreToolUse", name="guard", matcher="Bash")
    token = "metrics-token-123"
    async with running_server(project, token=token, api_token=token, host="127.0.0.1") as h:
        sid = (await h.create(permission_mode="bypassPermissions"))["session_id"]
        await h.send(sid, "$ echo hi")
        r = await h.client.get("/metrics")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
        text = r.text
        anonymous = await h.client.get("/metrics", headers={"Authorization": ""})
        assert anonymous.status_code == 401
    assert "# TYPE hook_duration_seconds histogram" in text
    assert 'hook_duration_seconds_count{hook_event="PreToolUse",hook_name="guard",hook_status="ok"} 1' in text
    assert 'le="+Inf"' in text


async def test_metrics_endpoint_off_with_the_setting(tmp_path: Path) -> None:
    async with running_server(make_project(tmp_path), metrics_endpoint=False) as h:
        r = await h.client.get("/metrics")
    assert r.status_code == 404 and "AGENT_SERVER_METRICS_ENDPOINT" in r.text


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OTEL_TRACES_EXPORTER", "zipkin"),
        ("OTEL_METRICS_EXPORTER", "statsd"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ("OTEL_METRIC_EXPORT_INTERVAL", "soon"),
        ("OTEL_SDK_DISABLED", "maybe"),
        ("OTEL_RESOURCE_ATTRIBUTES", "team"),
    ],
)
def test_a_malformed_otel_value_is_one_startup_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsInvalid) as info:
        create_app(server_settings(tmp_path))
    assert f"{variable}={value!r}" in str(info.value)


def test_serve_with_a_malformed_otel_value_exits_with_the_message(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "AGENT_SERVER_"))}
    env["OTEL_TRACES_EXPORTER"] = "jaeger"
    res = subprocess.run(
        [sys.executable, "-m", "agent_server._cli", "serve", "--port", "0", "--project", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert res.returncode == 2
    assert "OTEL_TRACES_EXPORTER='jaeger': unknown exporter 'jaeger'" in res.stderr
    assert "Traceback" not in res.stderr


def test_prometheus_metrics_exporter_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "prometheus")
    telemetry = telemetry_from_env()
    try:
        assert telemetry.scrape is not None and telemetry.meter_provider is not None
    finally:
        telemetry.shutdown()


class _Rejecting(BaseHTTPRequestHandler):
    """A collector that takes traces but answers metrics with 405, as Phoenix does."""

    hits: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        type(self).hits.append(self.path)
        self.send_response(405 if self.path == "/v1/metrics" else 200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_a_collector_rejecting_metrics_is_reported_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.metric_exporter")
    _Rejecting.hits = []
    server = HTTPServer(("127.0.0.1", 0), _Rejecting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "otlp")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("OTEL_METRIC_EXPORT_INTERVAL", "50")
    telemetry = telemetry_from_env()
    try:
        counter = telemetry.meter_provider.get_meter("test").create_counter("c")
        counter.add(1)
        with anyio.from_thread.start_blocking_portal() as portal:
            portal.call(_wait_for, lambda: _Rejecting.hits.count("/v1/metrics") >= 3)
    finally:
        telemetry.shutdown()
        server.shutdown()
    failures = [r for r in caplog.records if "Failed to export" in r.getMessage() and "405" in r.getMessage()]
    assert len(failures) == 1, [r.getMessage() for r in failures]
    assert "reported once" in failures[0].getMessage()


async def _wait_for(condition: Callable[[], bool], timeout: float = 20) -> None:
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.02)
