"""Spans, trace context and metrics of fired events (agent_server/hooks/_tracing.py)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, StatusCode, TraceFlags, TraceState

from agent_server.hooks import HookRunner, HookSpec, HookStatus, load_config
from agent_server.hooks._spec import derive_name
from tests.support import bash_payload, cmd, project

pytestmark = pytest.mark.anyio

PAYLOAD = bash_payload()


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


async def test_event_span_with_a_child_span_per_hook_named_by_its_short_name(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(
        tmp_path,
        {
            "PreToolUse": [
                cmd("echo fine"),
                cmd("echo nope >&2; exit 2", matcher="Bash", name="no-nope"),
                cmd("echo never"),
            ]
        },
    )
    async with runner(p, tracer_provider=provider) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
    assert outcome.blocked
    spans = by_name(exporter.get_finished_spans())
    # The hook skipped after the block never ran: no span for it.
    assert set(spans) == {"hooks.fire PreToolUse", "echo", "no-nope"}
    root, ok, blocker = spans["hooks.fire PreToolUse"], spans["echo"], spans["no-nope"]
    assert root.parent is None
    for child in (ok, blocker):
        assert child.parent is not None and child.parent.span_id == root.context.span_id
        assert child.context.trace_id == root.context.trace_id
    assert root.attributes is not None and ok.attributes is not None and blocker.attributes is not None
    assert dict(root.attributes) == {
        "hook.event": "PreToolUse",
        "hook.event_id": root.attributes["hook.event_id"],
        "openinference.span.kind": "CHAIN",
        "session.id": "sess-1",
        "hook.count": 2,
        "hook.blocked_count": 1,
        "hook.failed_count": 0,
        "hook.decision": "deny",
        "hook.reason": "[echo nope >&2; exit 2]: nope",
    }
    assert root.status.status_code is StatusCode.ERROR  # a block shows in a trace list
    assert root.status.description == "blocked by no-nope: [echo nope >&2; exit 2]: nope"
    assert ok.attributes["hook.name"] == "echo"
    assert ok.attributes["hook.command"] == ok.attributes["process.command_line"] == "echo fine"
    assert ok.attributes["hook.source"] == ".claude/settings.json"
    assert ok.attributes["hook.status"] == "ok" and ok.attributes["process.exit.code"] == 0
    assert isinstance(ok.attributes["process.pid"], int) and ok.attributes["process.pid"] > 0
    assert "error.type" not in ok.attributes and "hook.matcher" not in ok.attributes
    assert ok.status.status_code is StatusCode.UNSET
    assert blocker.attributes["hook.matcher"] == "Bash"
    assert blocker.attributes["hook.status"] == "blocked" and blocker.attributes["error.type"] == "blocked"
    assert blocker.attributes["process.exit.code"] == 2
    assert blocker.status.status_code is StatusCode.ERROR
    assert blocker.status.description == "[echo nope >&2; exit 2]: nope"
    for span in spans.values():  # hooks are not tools
        assert not [k for k in span.attributes or {} if k.startswith("gen_ai.tool")], span.name
    assert outcome.hooks[0].extra["span_id"] == format(ok.context.span_id, "016x")


async def test_failed_and_timed_out_hooks_set_status_error(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"Stop": [cmd("echo boom >&2; exit 1"), cmd("sleep 30", timeout=0.3)]})
    async with runner(p, tracer_provider=provider, kill_grace=0.2) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
    assert [h.status for h in outcome.hooks] == [HookStatus.ERROR, HookStatus.TIMEOUT]
    spans = by_name(exporter.get_finished_spans())
    failed, slow = spans["echo"], spans["sleep"]
    assert failed.status.status_code is StatusCode.ERROR and failed.status.description == "exit 1: boom"
    assert failed.attributes is not None and failed.attributes["error.type"] == "error"
    assert slow.status.status_code is StatusCode.ERROR
    assert slow.attributes is not None and slow.attributes["error.type"] == "timeout"
    root = spans["hooks.fire Stop"]
    assert root.attributes is not None and root.attributes["hook.failed_count"] == 2
    assert root.attributes["hook.blocked_count"] == 0
    assert root.status.status_code is StatusCode.UNSET  # failures show on the hooks' spans


async def test_an_event_with_no_hook_to_run_makes_no_span(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"PreToolUse": [cmd("true", matcher="Read")]})
    async with runner(p, tracer_provider=provider) as r:
        await r.fire("PreToolUse", PAYLOAD)  # Bash: the Read hook does not apply
        await r.fire("Stop", {"session_id": "s"})  # nothing configured
    assert exporter.get_finished_spans() == ()


def parse_traceparent(value: str) -> tuple[int, int, str]:
    version, trace_id, parent_id, flags = value.strip().split("-")
    assert version == "00" and len(trace_id) == 32 and len(parent_id) == 16
    return int(trace_id, 16), int(parent_id, 16), flags


async def test_each_hook_sees_its_own_span_in_traceparent(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(tmp_path, {"PostToolUse": [cmd('echo "A $TRACEPARENT"'), cmd('echo "B $TRACEPARENT"')]})
    async with runner(p, tracer_provider=provider, env={"PATH": "/usr/bin:/bin"}) as r:
        outcome = await r.fire("PostToolUse", PAYLOAD)
    spans = by_name(exporter.get_finished_spans())
    root = spans["hooks.fire PostToolUse"]
    for result, name in zip(outcome.hooks, ("echo", "echo#2"), strict=True):
        trace_id, parent_id, flags = parse_traceparent(result.stdout.split(" ", 1)[1])
        assert trace_id == root.context.trace_id
        assert parent_id == spans[name].context.span_id  # the hook's own span, not the event's
        assert int(flags, 16) & 1  # sampled


async def test_parallel_hooks_are_children_of_the_event_span(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    p = project(
        tmp_path,
        {"Stop": [cmd('echo "$TRACEPARENT"'), cmd('echo "$TRACEPARENT" #2')]},
        hookRunner={"order": "parallel"},
    )
    async with runner(p, tracer_provider=provider) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
    spans = exporter.get_finished_spans()
    root = next(s for s in spans if s.name == "hooks.fire Stop")
    children = [s for s in spans if s.name.startswith("echo")]
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
    async with runner(p, tracer_provider=provider, env={"PATH": "/usr/bin:/bin", "TRACESTATE": "stale=1"}) as r:
        with trace.use_span(NonRecordingSpan(remote)):
            outcome = await r.fire("Stop", {"session_id": "s"})
    parent, state = outcome.hooks[0].stdout.strip().split("|")
    assert parse_traceparent(parent)[0] == remote.trace_id
    assert state == "vendor=v1"
    root = by_name(exporter.get_finished_spans())["hooks.fire Stop"]
    assert root.parent is not None and root.parent.span_id == remote.span_id


async def test_no_tracing_configured_means_no_traceparent_but_the_callers_passes(tmp_path: Path) -> None:
    p = project(tmp_path, {"Stop": [cmd('echo "[$TRACEPARENT]"')]})
    # The global provider is the API's no-op default in this test process.
    async with runner(p, env={"PATH": "/usr/bin:/bin"}) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
        remote = SpanContext(trace_id=0xABC, span_id=0xDEF, is_remote=True, trace_flags=TraceFlags(1))
        with trace.use_span(NonRecordingSpan(remote)):
            inside = await r.fire("Stop", {"session_id": "s"})
    assert outcome.hooks[0].stdout.strip() == "[]"
    assert parse_traceparent(inside.hooks[0].stdout.strip("[]\n"))[:2] == (0xABC, 0xDEF)


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
    inner, hook, root = spans["inside the hook"], spans["cb"], spans["hooks.fire Stop"]
    assert inner.parent is not None and inner.parent.span_id == hook.context.span_id
    assert hook.parent is not None and hook.parent.span_id == root.context.span_id
    assert hook.attributes is not None and "process.command_line" not in hook.attributes  # no process


async def test_metrics_duration_histogram_in_seconds_counts_runs_by_outcome(tmp_path: Path) -> None:
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
    assert set(found) == {"hook.duration"}
    assert found["hook.duration"].unit == "s"
    points = found["hook.duration"].data.data_points
    runs = {(dict(dp.attributes or {})["hook.name"], dict(dp.attributes or {})["hook.status"]): dp for dp in points}
    # Runs by outcome: the histogram's count per label set (Prometheus: hook_duration_seconds_count).
    assert {key: dp.count for key, dp in runs.items()} == {("true", "ok"): 4, ("exit", "blocked"): 3}  # type: ignore[attr-defined]
    hist = {name: dp for (name, _status), dp in runs.items()}
    assert 0 < hist["true"].sum < 4 * 5  # type: ignore[attr-defined]  # seconds, not milliseconds
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


ENGINE_ONLY = """
import sys
import agent_server.hooks
from agent_server.hooks import _tracing
print(sorted(m for m in sys.modules if m.startswith("opentelemetry.sdk") or m.startswith("opentelemetry.exporter")))
"""


def test_the_engine_imports_only_the_opentelemetry_api() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    res = subprocess.run([sys.executable, "-c", ENGINE_ONLY], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


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
    assert json.loads(res.stdout) == ["cb", "hooks.fire Stop"]


# -- short names ------------------------------------------------------------------------


def spec(command: str, **kw: Any) -> HookSpec:
    return HookSpec(event="Stop", kind="command", command=command, dialect="claude", source="s", location="l", **kw)


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("true", "true"),
        ("echo fine", "echo"),
        ("/usr/bin/python3 /p/.claude/hooks/no-rm.py --strict", "no-rm"),
        ("$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh", "check"),
        ("uv run python script.py", "script"),
        ("FOO=1 node tools/audit.js", "audit"),
        ("bash -c 'cd x && make'", "bash"),
        ("/usr/local/bin/jq -e .ok", "jq"),
    ],
)
def test_a_hook_without_a_name_gets_one_from_its_command(command: str, name: str) -> None:
    assert derive_name(spec(command)) == name


def test_python_hooks_are_named_by_their_module_and_names_are_unique_per_event(tmp_path: Path) -> None:
    p = project(
        tmp_path,
        {
            "PreToolUse": [
                cmd("python hook_launcher.py security/secrets_guard.py"),
                cmd("echo a"),
                cmd("echo b"),
                cmd("echo c", name="explicit"),
            ],
            "Stop": [cmd("echo a")],
        },
    )
    config = load_config(p, user_settings=None)
    assert [s.display_name for s in config.hooks["PreToolUse"]] == ["secrets_guard", "echo", "echo#2", "explicit"]
    assert [s.display_name for s in config.hooks["Stop"]] == ["echo"]
    assert [i.path for i in config.issues] == ["hooks.PreToolUse[0].hooks[0]"]  # (module missing here)
    assert "unknown" not in config.issues[0].message  # "name" is a known field


async def test_a_cancelled_fire_still_ends_its_spans_marked_with_the_cancellation(
    tmp_path: Path, provider: TracerProvider, exporter: InMemorySpanExporter
) -> None:
    import anyio

    started = tmp_path / "started"
    p = project(tmp_path, {"Stop": [cmd(f"touch {started}; sleep 30")]})
    async with runner(p, tracer_provider=provider, kill_grace=0.2) as r, anyio.create_task_group() as tg:
        tg.start_soon(r.fire, "Stop", {"session_id": "s"})
        with anyio.fail_after(20):
            while not started.exists():  # the hook is running
                await anyio.sleep(0.02)
        tg.cancel_scope.cancel()
    spans = by_name(exporter.get_finished_spans())
    assert set(spans) == {"hooks.fire Stop", "touch"}
    for span in spans.values():  # ended when cancelled, marked so; not a failure of the hook
        assert span.attributes is not None and span.attributes["hook.cancelled"] is True
        assert span.status.status_code is StatusCode.UNSET
