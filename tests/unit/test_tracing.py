"""Spans, trace context and metrics of fired events (agent_server/hooks/_tracing.py)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, StatusCode, TraceFlags, TraceState

from agent_server.hooks import HookRunner, HookStatus
from agent_server.hooks import _tracing as tracing
from agent_server.hooks._tracing import HookTelemetry
from tests.support import cmd, project

pytestmark = pytest.mark.anyio

PAYLOAD = {
    "session_id": "sess-1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
    "tool_use_id": "toolu_1",
}


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def provider(exporter: InMemorySpanExporter) -> Iterator[TracerProvider]:
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    yield tp
    tp.shutdown()


def runner(path: Path, **kw: Any) -> HookRunner:
    return HookRunner.from_project(path, user_settings=None, **kw)


def by_name(spans: Sequence[ReadableSpan]) -> dict[str, ReadableSpan]:
    return {s.name: s for s in spans}


async def test_event_span_with_a_child_span_per_hook(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(
        tmp_path,
        {
            "PreToolUse": [
                cmd("echo fine"),
                cmd("echo nope >&2; exit 2", matcher="Bash"),
                cmd("echo never"),
            ]
        },
    )
    async with runner(p, tracer_provider=provider) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    assert outcome.blocked
    spans = by_name(exporter.get_finished_spans())
    # The hook skipped after the block never ran: no span for it.
    assert set(spans) == {"hooks.fire PreToolUse", "hook echo fine", "hook echo nope >&2; exit 2"}
    root, ok, blocker = (spans["hooks.fire PreToolUse"], spans["hook echo fine"], spans["hook echo nope >&2; exit 2"])
    assert root.parent is None
    for child in (ok, blocker):
        assert child.parent is not None and child.parent.span_id == root.context.span_id
        assert child.context.trace_id == root.context.trace_id
    assert root.attributes is not None and ok.attributes is not None
    assert blocker.attributes is not None
    assert dict(root.attributes) == {
        "hook.event": "PreToolUse",
        "hook.event_id": root.attributes["hook.event_id"],
        "gen_ai.conversation.id": "sess-1",
        "gen_ai.tool.name": "Bash",
        "gen_ai.tool.call.id": "toolu_1",
        "hook.blocked": True,
        "hook.count": 3,
        "hook.decision": "deny",
        "hook.reason": "[echo nope >&2; exit 2]: nope",
    }
    assert ok.attributes["hook.name"] == "echo fine"
    assert ok.attributes["hook.command"] == "echo fine"
    assert ok.attributes["hook.source"] == ".claude/settings.json"
    assert ok.attributes["hook.event"] == "PreToolUse"
    assert ok.attributes["hook.status"] == "ok" and ok.attributes["hook.exit_code"] == 0
    assert ok.attributes["hook.timed_out"] is False
    assert ok.attributes["gen_ai.conversation.id"] == "sess-1"
    assert ok.attributes["gen_ai.tool.name"] == "Bash"
    duration = ok.attributes["hook.duration_ms"]
    assert isinstance(duration, float) and duration > 0
    assert "hook.matcher" not in ok.attributes
    assert ok.status.status_code is StatusCode.UNSET and not ok.events
    assert blocker.attributes["hook.matcher"] == "Bash"
    assert blocker.attributes["hook.status"] == "blocked"
    assert blocker.attributes["hook.exit_code"] == 2
    assert blocker.attributes["hook.decision"] == "deny"
    assert blocker.attributes["hook.reason"] == "[echo nope >&2; exit 2]: nope"
    assert blocker.status.status_code is StatusCode.UNSET  # a block is not a failure
    [event] = blocker.events
    assert event.name == "hook.blocked"
    assert event.attributes is not None
    assert event.attributes["hook.reason"] == "[echo nope >&2; exit 2]: nope"
    assert blocker.end_time is not None and event.timestamp <= blocker.end_time
    assert root.end_time is not None and blocker.end_time <= root.end_time


async def test_failed_and_timed_out_hooks_set_status_error(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"Stop": [cmd("echo boom >&2; exit 1"), cmd("sleep 30", timeout=0.3)]})
    async with runner(p, tracer_provider=provider, kill_grace=0.2) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
    assert [h.status for h in outcome.hooks] == [HookStatus.ERROR, HookStatus.TIMEOUT]
    spans = by_name(exporter.get_finished_spans())
    failed, slow = spans["hook echo boom >&2; exit 1"], spans["hook sleep 30"]
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.status.description == "exit 1: boom"
    assert failed.attributes is not None and failed.attributes["hook.status"] == "error"
    assert failed.attributes["hook.exit_code"] == 1
    assert slow.status.status_code is StatusCode.ERROR
    assert slow.attributes is not None and slow.attributes["hook.timed_out"] is True
    assert slow.attributes["hook.status"] == "timeout"
    assert "gen_ai.tool.name" not in slow.attributes  # not a tool event
    root = spans["hooks.fire Stop"]
    assert root.attributes is not None and root.attributes["hook.blocked"] is False


async def test_fail_closed_failure_is_an_error_and_a_block(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"PreToolUse": [cmd("exit 3", onFailure="block")]})
    async with runner(p, tracer_provider=provider) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    assert outcome.blocked
    span = by_name(exporter.get_finished_spans())["hook exit 3"]
    assert span.status.status_code is StatusCode.ERROR
    assert [e.name for e in span.events] == ["hook.blocked"]


def parse_traceparent(value: str) -> tuple[int, int, str]:
    version, trace_id, parent_id, flags = value.strip().split("-")
    assert version == "00" and len(trace_id) == 32 and len(parent_id) == 16
    return int(trace_id, 16), int(parent_id, 16), flags


async def test_each_hook_sees_its_own_span_in_traceparent(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(
        tmp_path,
        {
            "PostToolUse": [
                cmd('echo "A $TRACEPARENT"'),
                cmd('echo "B $TRACEPARENT"'),
            ]
        },
    )
    async with runner(p, tracer_provider=provider, env={"PATH": "/usr/bin:/bin"}) as r:
        outcome = await r.fire("PostToolUse", PAYLOAD)
    spans = by_name(exporter.get_finished_spans())
    root = spans["hooks.fire PostToolUse"]
    seen = {}
    for result in outcome.hooks:
        label, value = result.stdout.split(" ", 1)
        seen[label] = parse_traceparent(value)
    for label in ("A", "B"):
        span = spans[f'hook echo "{label} $TRACEPARENT"']
        trace_id, parent_id, flags = seen[label]
        assert trace_id == span.context.trace_id == root.context.trace_id
        assert parent_id == span.context.span_id  # the hook's own span, not the event's
        assert int(flags, 16) & 1  # sampled
    assert seen["A"][1] != seen["B"][1]


async def test_parallel_hooks_are_children_of_the_event_span(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    settings = {
        "hooks": {"Stop": [cmd('echo "$TRACEPARENT"'), cmd('echo "$TRACEPARENT" #2')]},
        "hookRunner": {"order": "parallel"},
    }
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    async with runner(tmp_path, tracer_provider=provider) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
    spans = exporter.get_finished_spans()
    root = next(s for s in spans if s.name == "hooks.fire Stop")
    children = [s for s in spans if s.name.startswith("hook ")]
    assert len(children) == 2
    assert all(c.parent is not None and c.parent.span_id == root.context.span_id for c in children)
    assert {parse_traceparent(h.stdout)[1] for h in outcome.hooks} == {c.context.span_id for c in children}


async def test_trace_continues_from_the_callers_context_with_tracestate(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"Stop": [cmd('echo "$TRACEPARENT|$TRACESTATE"')]})
    remote = SpanContext(
        trace_id=0x1234_5678_9ABC_DEF0_1234_5678_9ABC_DEF0,
        span_id=0x0102_0304_0506_0708,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TraceState([("vendor", "v1")]),
    )
    async with runner(p, tracer_provider=provider) as r:
        with trace.use_span(NonRecordingSpan(remote)):
            outcome = await r.fire("Stop", {"session_id": "s"})
    parent, state = outcome.hooks[0].stdout.strip().split("|")
    trace_id, _, _ = parse_traceparent(parent)
    assert trace_id == remote.trace_id
    assert state == "vendor=v1"
    root = by_name(exporter.get_finished_spans())["hooks.fire Stop"]
    assert root.parent is not None and root.parent.span_id == remote.span_id


async def test_no_tracing_configured_means_no_traceparent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    p = project(tmp_path, {"Stop": [cmd('echo "[$TRACEPARENT]"')]})
    # The global provider is the API's no-op default in this test process.
    async with runner(p, env={"PATH": "/usr/bin:/bin"}) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
    assert outcome.hooks[0].stdout.strip() == "[]"
    assert "span_id" not in outcome.hooks[0].extra


async def test_metrics_duration_histogram_and_runs_counter(tmp_path: Path) -> None:
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    p = project(tmp_path, {"PreToolUse": [cmd("true"), cmd("exit 2", matcher="Bash")]})
    async with runner(p, meter_provider=meters) as r:
        for _ in range(3):
            await r.fire("PreToolUse", PAYLOAD)
        await r.fire("PreToolUse", {**PAYLOAD, "tool_name": "Read"})
    data = reader.get_metrics_data()
    assert data is not None
    found = {m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert set(found) == {"hook.duration", "hook.runs"}
    assert found["hook.duration"].unit == "ms"
    runs = {
        (dict(dp.attributes or {})["hook.name"], dict(dp.attributes or {})["hook.status"]): dp.value
        for dp in found["hook.runs"].data.data_points
    }  # type: ignore[union-attr]
    assert runs == {("true", "ok"): 4, ("exit 2", "blocked"): 3}
    hist = {dict(dp.attributes or {})["hook.name"]: dp for dp in found["hook.duration"].data.data_points}
    assert hist["true"].count == 4 and hist["true"].sum > 0  # type: ignore[attr-defined]
    assert dict(hist["exit 2"].attributes or {})["hook.event"] == "PreToolUse"
    meters.shutdown()


class ExplodingProcessor(SpanProcessor):
    """A broken span processor: every call raises."""

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        raise RuntimeError("processor on_start broke")

    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError("processor on_end broke")


async def test_broken_telemetry_never_fails_a_hook(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    tp = TracerProvider()
    tp.add_span_processor(ExplodingProcessor())
    p = project(tmp_path, {"PreToolUse": [cmd("echo ok"), cmd("exit 2")]})
    with caplog.at_level(logging.WARNING, logger="agent_server.hooks.telemetry"):
        async with runner(p, tracer_provider=tp) as r:
            outcome = await r.fire("PreToolUse", PAYLOAD)
            again = await r.fire("PreToolUse", PAYLOAD)
    assert outcome.blocked and again.blocked
    assert [h.status for h in outcome.hooks] == [HookStatus.OK, HookStatus.BLOCKED]
    assert "telemetry error" in caplog.text


class FailingExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        raise ConnectionError("collector down")

    def shutdown(self) -> None:
        raise ConnectionError("collector down")


def test_exporter_errors_are_contained() -> None:
    safe = tracing._safe_exporter(FailingExporter())
    assert safe.export([]) is SpanExportResult.FAILURE
    safe.shutdown()  # does not raise


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in (
        "OTEL_TRACES_EXPORTER",
        "OTEL_METRICS_EXPORTER",
        "OTEL_SDK_DISABLED",
        "OTEL_SERVICE_NAME",
        "OTEL_RESOURCE_ATTRIBUTES",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    ):
        monkeypatch.delenv(name, raising=False)
    saved_t = dict(tracing._env_tracer_providers)
    saved_m = dict(tracing._env_meter_providers)
    yield monkeypatch
    for cache, saved in ((tracing._env_tracer_providers, saved_t), (tracing._env_meter_providers, saved_m)):
        for key, built in list(cache.items()):
            if key not in saved and built is not None:
                built.shutdown()  # type: ignore[attr-defined]
        cache.clear()
        cache.update(saved)  # type: ignore[arg-type]


def test_env_none_turns_tracing_off(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("OTEL_TRACES_EXPORTER", "none")
    clean_env.setenv("OTEL_METRICS_EXPORTER", "none")
    telemetry = HookTelemetry()
    assert not telemetry.tracing
    assert telemetry._runs is None


def test_env_unset_uses_the_global_provider(clean_env: pytest.MonkeyPatch) -> None:
    telemetry = HookTelemetry()
    assert telemetry.tracing  # a proxy to the global provider: no-op unless the host set one
    assert not trace.get_current_span().get_span_context().is_valid


def test_env_console_builds_a_batching_provider(clean_env: pytest.MonkeyPatch) -> None:
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    clean_env.setenv("OTEL_TRACES_EXPORTER", "console")
    clean_env.setenv("OTEL_SERVICE_NAME", "hooks-under-test")
    first, second = HookTelemetry(), HookTelemetry()
    assert first.tracing and second.tracing
    [built] = [p for p in tracing._env_tracer_providers.values() if p is not None]
    assert isinstance(built, TracerProvider)  # one provider shared by every runner
    assert built.resource.attributes["service.name"] == "hooks-under-test"
    processors = built._active_span_processor._span_processors
    assert [type(sp) for sp in processors] == [BatchSpanProcessor]


def test_env_default_service_name(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("OTEL_TRACES_EXPORTER", "console")
    HookTelemetry()
    [built] = [p for p in tracing._env_tracer_providers.values() if p is not None]
    assert isinstance(built, TracerProvider)
    assert built.resource.attributes["service.name"] == "agent-server"


def test_env_unknown_exporter_is_reported_and_off(
    clean_env: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    clean_env.setenv("OTEL_TRACES_EXPORTER", "zipkin-ish")
    with caplog.at_level(logging.WARNING, logger="agent_server.hooks.telemetry"):
        telemetry = HookTelemetry()
    assert not telemetry.tracing
    assert "unknown exporter 'zipkin-ish'" in caplog.text


def test_exporters_and_the_sdk_are_imported_only_when_asked() -> None:
    code = (
        "import sys; from agent_server.hooks._tracing import HookTelemetry; HookTelemetry();"
        "print(sorted({m.split('.')[1] for m in sys.modules"
        " if m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter'))}))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, timeout=60
    ).stdout
    assert out.strip() == "[]"


def test_env_otlp_builds_an_exporter(clean_env: pytest.MonkeyPatch) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    clean_env.setenv("OTEL_TRACES_EXPORTER", "otlp")
    clean_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
    assert HookTelemetry().tracing


async def test_without_tracing_the_callers_context_reaches_the_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    p = project(tmp_path, {"Stop": [cmd('echo "$TRACEPARENT"')]})
    remote = SpanContext(trace_id=0xABC, span_id=0xDEF, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    async with runner(p, env={"PATH": "/usr/bin:/bin"}) as r:
        with trace.use_span(NonRecordingSpan(remote)):
            outcome = await r.fire("Stop", {"session_id": "s"})
    assert parse_traceparent(outcome.hooks[0].stdout)[:2] == (0xABC, 0xDEF)


GLOBAL_PROVIDER = """
import anyio, json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from agent_server.hooks import HookRunner

async def main() -> None:
    runner = HookRunner(project_dir=sys.argv[1])  # created before the host sets up tracing
    async def cb(payload):
        return None
    runner.register("Stop", cb, name="cb")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    async with runner:
        await runner.fire("Stop", {"session_id": "s"})
    print(json.dumps(sorted(s.name for s in exporter.get_finished_spans())))

anyio.run(main)
"""


def test_a_global_provider_installed_by_the_host_is_used(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    res = subprocess.run(
        [sys.executable, "-c", GLOBAL_PROVIDER, str(tmp_path)], capture_output=True, text=True, env=env, timeout=60
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == ["hook cb", "hooks.fire Stop"]


# -- spans made after the fact (SDK tracers) -------------------------------------------


async def test_spans_keep_their_real_times_though_made_after_the_fire(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"Stop": [cmd("sleep 0.2")]})
    async with runner(p, tracer_provider=provider) as r:
        t0 = time.time_ns()
        outcome = await r.fire("Stop", {"session_id": "s"})
        t1 = time.time_ns()
        r.flush_telemetry()
    spans = by_name(exporter.get_finished_spans())
    root, hook = spans["hooks.fire Stop"], spans["hook sleep 0.2"]
    assert root.start_time is not None and root.end_time is not None
    assert hook.start_time is not None and hook.end_time is not None
    assert t0 <= root.start_time <= hook.start_time < hook.end_time <= root.end_time <= t1
    assert hook.end_time - hook.start_time >= 150_000_000  # the hook's 0.2 s, not a blip
    assert outcome.hooks[0].extra["span_id"] == format(hook.context.span_id, "016x")


async def test_a_sampler_that_drops_gives_unsampled_context_and_no_spans(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    provider = TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    p = project(tmp_path, {"Stop": [cmd('echo "$TRACEPARENT"')]})
    async with runner(p, tracer_provider=provider, env={"PATH": "/usr/bin:/bin"}) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
    _, _, flags = parse_traceparent(outcome.hooks[0].stdout)
    assert not int(flags, 16) & 1  # the hook is told not to record either
    assert exporter.get_finished_spans() == ()
    provider.shutdown()


async def test_a_callback_hook_continues_the_trace_under_its_own_span(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    tracer = provider.get_tracer("my-callback")

    async def cb(payload: dict[str, Any]) -> None:
        with tracer.start_as_current_span("inside the hook"):
            return None

    async with runner(tmp_path, tracer_provider=provider) as r:
        r.register("Stop", cb, name="cb")
        await r.fire("Stop", {"session_id": "s"})
    spans = by_name(exporter.get_finished_spans())
    inner, hook, root = spans["inside the hook"], spans["hook cb"], spans["hooks.fire Stop"]
    assert inner.parent is not None and inner.parent.span_id == hook.context.span_id
    assert hook.parent is not None and hook.parent.span_id == root.context.span_id
    assert inner.context.trace_id == hook.context.trace_id == root.context.trace_id


async def test_other_tracers_of_the_same_provider_get_fresh_ids(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"Stop": [cmd("true")]})
    other = provider.get_tracer("host")
    async with runner(p, tracer_provider=provider) as r:
        for _ in range(3):
            with other.start_as_current_span("host step"):
                await r.fire("Stop", {"session_id": "s"})
    spans = exporter.get_finished_spans()
    assert len(spans) == 9
    assert len({s.context.span_id for s in spans}) == 9  # no id handed out twice
    for host in (s for s in spans if s.name == "host step"):
        children = [s for s in spans if s.parent is not None and s.parent.span_id == host.context.span_id]
        assert [c.name for c in children] == ["hooks.fire Stop"]


# -- found by a review of the deferred telemetry ------------------------------------


def test_a_cancelled_span_ends_when_it_was_cancelled_not_when_drained(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"Stop": [cmd("sleep 5")]})

    async def main() -> int:
        async with runner(p, tracer_provider=provider, kill_grace=0.2) as r:
            with anyio.move_on_after(0.3):
                await r.fire("Stop", {"session_id": "s"})
            cancelled_at = time.time_ns()
            time.sleep(0.3)  # holds the loop: the queued span ends cannot run before this
            r.flush_telemetry()
        return cancelled_at

    cancelled_at = anyio.run(main)
    spans = by_name(exporter.get_finished_spans())
    assert spans["hooks.fire Stop"].attributes["hook.cancelled"] is True  # type: ignore[index]
    for span in spans.values():
        assert span.end_time is not None and span.end_time <= cancelled_at


def test_runners_sharing_a_meter_provider_count_every_run(tmp_path: Path) -> None:
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = project(tmp_path / "a", {"Stop": [cmd("true")]})
    b = project(tmp_path / "b", {"Stop": [cmd("true")]})

    async def main() -> None:
        async with runner(a, meter_provider=meters) as r1, runner(b, meter_provider=meters) as r2:
            await r1.fire("Stop", {"session_id": "s"})
            await r2.fire("Stop", {"session_id": "s"})
            await r2.fire("Stop", {"session_id": "s"})

    anyio.run(main)
    data = reader.get_metrics_data()
    assert data is not None
    found = {m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    meters.shutdown()
    assert sum(dp.count for dp in found["hook.duration"].data.data_points) == 3  # type: ignore[attr-defined]
    assert sum(dp.value for dp in found["hook.runs"].data.data_points) == 3  # type: ignore[attr-defined]


def test_spans_of_a_loop_that_ended_without_aclose_are_not_stuck(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"Stop": [cmd("true")]})
    r = runner(p, tracer_provider=provider)

    async def main() -> None:
        await r.__aenter__()
        await r.fire("Stop", {"session_id": "s"})  # its span ends wait for a 1 ms timer

    anyio.run(main)  # ... that never runs: the loop is gone
    ran: list[int] = []
    r._telemetry.defer(lambda: ran.append(1))  # outside a loop: now, with the rest
    assert ran == [1]
    assert len(exporter.get_finished_spans()) == 2


def test_a_tracer_switched_off_by_its_provider_plans_no_ids(tmp_path: Path) -> None:
    try:  # the SDK's tracer configurator is experimental (private names)
        from opentelemetry.sdk.trace import _TracerConfig  # type: ignore[attr-defined]

        provider = TracerProvider(
            _tracer_configurator=lambda scope: _TracerConfig(  # type: ignore[call-arg]
                is_enabled=scope.name != "agent_server.hooks"
            )
        )
    except (ImportError, TypeError):
        pytest.skip("this opentelemetry-sdk has no tracer configurator")
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    p = project(tmp_path, {"Stop": [cmd('echo "[$TRACEPARENT]"')]})

    async def main() -> Any:
        async with runner(p, tracer_provider=provider) as r:
            return await r.fire("Stop", {"session_id": "s"})

    outcome = anyio.run(main)
    assert exporter.get_finished_spans() == ()
    assert outcome.hooks[0].stdout.strip() == "[]"  # no span, so no TRACEPARENT of ours


class _StartSeen(SpanProcessor):
    """Records the attributes each span had when it started."""

    def __init__(self) -> None:
        self.at_start: dict[str, dict[str, Any]] = {}

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        self.at_start[span.name] = dict(span.attributes or {})


async def test_with_the_default_sampler_attributes_are_given_at_span_start(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    # (Cheaper than setting them after; processors' on_start sees them too.)
    seen = _StartSeen()
    provider.add_span_processor(seen)
    p = project(tmp_path, {"PreToolUse": [cmd("exit 0", matcher="Bash")]})
    async with runner(p, tracer_provider=provider) as r:
        await r.fire("PreToolUse", PAYLOAD)
    finished = by_name(exporter.get_finished_spans())
    for name in ("hooks.fire PreToolUse", "hook exit 0"):
        assert seen.at_start[name] == dict(finished[name].attributes or {})
    assert seen.at_start["hook exit 0"]["hook.status"] == "ok"


async def test_a_custom_sampler_decides_without_attributes_both_times(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    # The decision is made when the hook starts (its TRACEPARENT), with no attributes
    # yet; the span made later must get the same question, or the answers could differ.
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased, SamplingResult

    asked: list[Any] = []

    class Recording(ParentBased):
        def should_sample(
            self,
            parent_context: Any,
            trace_id: int,
            name: str,
            kind: Any = None,
            attributes: Any = None,
            links: Any = None,
            trace_state: Any = None,
        ) -> SamplingResult:
            asked.append(dict(attributes or {}))
            return super().should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    provider = TracerProvider(sampler=Recording(ALWAYS_ON))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    p = project(tmp_path, {"PreToolUse": [cmd("exit 0", matcher="Bash")]})
    async with runner(p, tracer_provider=provider) as r:
        await r.fire("PreToolUse", PAYLOAD)
    provider.shutdown()
    assert len(asked) == 4 and all(a == {} for a in asked)  # planned + made, two spans
    hook = by_name(exporter.get_finished_spans())["hook exit 0"]
    assert hook.attributes is not None and hook.attributes["hook.status"] == "ok"
