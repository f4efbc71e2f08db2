"""OpenTelemetry spans and metrics for the HookRunner (docs/observability.md).

One span per fired event (``hooks.fire <Event>``) with one child span per hook that ran
(``hook <name>``); a histogram of hook durations (``hook.duration``, ms) and a counter of
hook runs by hook and status (``hook.runs``). The hook's span is the current span while
its process environment is built, so ``TRACEPARENT``/``TRACESTATE`` let the hook continue
the trace.

Where telemetry goes, in order of precedence:

1. ``HookRunner(tracer_provider=..., meter_provider=...)``;
2. the standard variables ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER``
   (``console``, ``otlp``, ``none``), ``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_SERVICE_NAME``
   — the runner then builds an SDK provider with a batching processor (shared by every
   runner in the process);
3. otherwise the global OpenTelemetry providers, which are no-ops unless the host
   installed real ones.

Telemetry never fails or slows a hook: every call into OpenTelemetry is guarded, real
exporters run behind a batching processor on its own thread, and exporter errors are
caught and logged once. On the fire's path only the spans' ids and sampling decision are
fixed (the ids go into ``TRACEPARENT``). With the SDK's tracer the spans themselves are
made a moment later, with those ids, their real start and end times, attributes, status
and events; other tracers get their spans started on the path and finished later. That
deferred work and the metrics run when the event loop has a moment (while the next hook
process starts, or 1 ms after the fire), and ``HookRunner.aclose()`` finishes whatever
is still queued (docs/observability.md).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from ._outcome import BLOCKING_DECISIONS, EventOutcome, HookResult, HookStatus
from ._spec import HookSpec

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

__all__ = [
    "ATTR_BLOCKED",
    "ATTR_COMMAND",
    "ATTR_DECISION",
    "ATTR_DURATION_MS",
    "ATTR_EVENT",
    "ATTR_EVENT_ID",
    "ATTR_EXIT_CODE",
    "ATTR_MATCHER",
    "ATTR_NAME",
    "ATTR_REASON",
    "ATTR_SESSION_ID",
    "ATTR_SOURCE",
    "ATTR_STATUS",
    "ATTR_TIMED_OUT",
    "ATTR_TOOL_CALL_ID",
    "ATTR_TOOL_NAME",
    "BLOCKED_EVENT",
    "DURATION_METRIC",
    "RUNS_METRIC",
    "FireScope",
    "HookScope",
    "HookTelemetry",
]

log = logging.getLogger("agent_server.hooks.telemetry")

_SCOPE = "agent_server.hooks"
_VERSION = "0.1.0"

# GenAI semantic-convention names where one exists; the rest under ``hook.``.
ATTR_SESSION_ID = "gen_ai.conversation.id"
ATTR_TOOL_NAME = "gen_ai.tool.name"
ATTR_TOOL_CALL_ID = "gen_ai.tool.call.id"
ATTR_EVENT = "hook.event"
ATTR_EVENT_ID = "hook.event_id"
ATTR_NAME = "hook.name"
ATTR_COMMAND = "hook.command"
ATTR_SOURCE = "hook.source"
ATTR_LOCATION = "hook.location"
ATTR_DIALECT = "hook.dialect"
ATTR_MATCHER = "hook.matcher"
ATTR_STATUS = "hook.status"
ATTR_EXIT_CODE = "hook.exit_code"
ATTR_DECISION = "hook.decision"
ATTR_REASON = "hook.reason"
ATTR_ERROR = "hook.error"
ATTR_TIMED_OUT = "hook.timed_out"
ATTR_DURATION_MS = "hook.duration_ms"
ATTR_BLOCKED = "hook.blocked"
ATTR_HOOK_COUNT = "hook.count"
ATTR_CANCELLED = "hook.cancelled"

#: Span event added to a hook's span when the hook blocked (carries the reason).
BLOCKED_EVENT = "hook.blocked"
DURATION_METRIC = "hook.duration"
RUNS_METRIC = "hook.runs"

_MAX_TEXT = 2048
# Bucket boundaries (ms) sized for hooks: sub-millisecond callbacks to 10-minute commands.
_DURATION_BUCKETS = (1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 120000, 600000)
# Span ends, attributes and metrics are finished this long (seconds) after fire()
# returns: off the caller's path, while the loop waits for the agent's next step.
_DRAIN_DELAY = 0.001
# At most this many queued items are finished while one hook process starts (about one
# fire's worth: its event span and a few hook spans), so a burst's backlog never delays it.
_DRAIN_BATCH = 4


def _finish_all(pending: deque[Callable[[], None]]) -> None:
    """Run every queued item of a telemetry object that is gone."""
    while pending:
        try:
            pending.popleft()()
        except Exception:
            _warn("finishing a span")


def _text(value: str) -> str:
    return value if len(value) <= _MAX_TEXT else value[:_MAX_TEXT] + "…"


class _Warned:
    """Log each kind of telemetry failure once, then stay quiet."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, where: str) -> None:
        if where not in self.seen:
            self.seen.add(where)
            log.warning("telemetry error in %s (ignored; hooks are unaffected)", where, exc_info=True)


_warn = _Warned()


# -- providers from OTEL_* variables -----------------------------------------------

_env_lock = threading.Lock()
_env_tracer_providers: dict[tuple[str, ...], trace.TracerProvider | None] = {}
_env_meter_providers: dict[tuple[str, ...], metrics.MeterProvider | None] = {}
_ENV_KEYS = (
    "OTEL_SDK_DISABLED",
    "OTEL_SERVICE_NAME",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
)


def _exporter_names(variable: str) -> list[str] | None:
    """Names listed in ``variable``; None when it is unset or empty."""
    raw = os.environ.get(variable, "")
    names = [n.strip().lower() for n in raw.split(",") if n.strip()]
    return names or None


def _resource() -> Any:
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "agent-server"}))
    return resource


def _otlp_protocol(signal: str) -> str:
    return (
        os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL")
        or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    ).lower()


def _span_exporter(name: str) -> SpanExporter | None:
    """The exporter called ``name`` (OTLP is imported only when asked for)."""
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        # stderr, so a CLI's --json stdout stays parseable.
        return ConsoleSpanExporter(out=sys.stderr)
    if name == "otlp":
        try:
            if _otlp_protocol("TRACES") == "grpc":
                from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found,unused-ignore]
                    OTLPSpanExporter,
                )
            else:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[import-not-found,unused-ignore]
                    OTLPSpanExporter,
                )
        except ImportError:
            log.warning(
                "OTEL_TRACES_EXPORTER=otlp but the OTLP exporter is not installed; "
                "install it with: pip install 'agent-server[otlp]'. Tracing is off."
            )
            return None
        exporter: SpanExporter = OTLPSpanExporter()
        return exporter
    log.warning("OTEL_TRACES_EXPORTER: unknown exporter %r ignored (use console, otlp or none)", name)
    return None


def _safe_exporter(inner: SpanExporter) -> SpanExporter:
    """Wrap ``inner`` so an exporter error is logged once and never propagates."""
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class SafeSpanExporter(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            try:
                return inner.export(spans)
            except Exception:
                _warn(f"span exporter {type(inner).__name__}")
                return SpanExportResult.FAILURE

        def shutdown(self) -> None:
            try:
                inner.shutdown()
            except Exception:
                _warn(f"span exporter {type(inner).__name__} shutdown")

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            try:
                return inner.force_flush(timeout_millis)
            except Exception:
                _warn(f"span exporter {type(inner).__name__} flush")
                return False

    return SafeSpanExporter()


def _build_tracer_provider(names: list[str]) -> trace.TracerProvider | None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    exporters = [e for e in (_span_exporter(n) for n in names if n != "none") if e is not None]
    if not exporters:
        return None
    provider = TracerProvider(resource=_resource())
    for exporter in exporters:
        # Batching: export runs on the processor's thread, never on a hook's path.
        provider.add_span_processor(BatchSpanProcessor(_safe_exporter(exporter)))
    return provider


def _metric_exporter(name: str) -> Any:
    if name == "console":
        from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

        return ConsoleMetricExporter(out=sys.stderr)
    if name == "otlp":
        try:
            if _otlp_protocol("METRICS") == "grpc":
                from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (  # type: ignore[import-not-found,unused-ignore]
                    OTLPMetricExporter,
                )
            else:
                from opentelemetry.exporter.otlp.proto.http.metric_exporter import (  # type: ignore[import-not-found,unused-ignore]
                    OTLPMetricExporter,
                )
        except ImportError:
            log.warning(
                "OTEL_METRICS_EXPORTER=otlp but the OTLP exporter is not installed; "
                "install it with: pip install 'agent-server[otlp]'. Metrics are off."
            )
            return None
        return OTLPMetricExporter()
    log.warning("OTEL_METRICS_EXPORTER: unknown exporter %r ignored (use console, otlp or none)", name)
    return None


def _build_meter_provider(names: list[str]) -> metrics.MeterProvider | None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

    exporters = [e for e in (_metric_exporter(n) for n in names if n != "none") if e is not None]
    if not exporters:
        return None
    readers = [PeriodicExportingMetricReader(e) for e in exporters]
    return MeterProvider(metric_readers=readers, resource=_resource())


def _env_key(variable: str) -> tuple[str, ...]:
    return (os.environ.get(variable, ""), *(os.environ.get(k, "") for k in _ENV_KEYS))


def _env_disabled() -> bool:
    return os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"


def _from_env(variable: str, cache: dict[Any, Any], build: Callable[[list[str]], Any], what: str) -> Any:
    """A provider built once from ``OTEL_*`` variables; False: not configured here,
    None: turned off (or it failed to build, which is logged once)."""
    names = _exporter_names(variable)
    if names is None:
        return False
    if _env_disabled() or names == ["none"]:
        return None
    key = _env_key(variable)
    with _env_lock:
        if key not in cache:
            try:
                cache[key] = build(names)
            except Exception:
                _warn(f"building the {what} provider from OTEL_* variables")
                cache[key] = None
        return cache[key]


def resolve_tracer(provider: trace.TracerProvider | None) -> trace.Tracer | None:
    """The tracer to use, or None when tracing is off (see the module docstring)."""
    if provider is None:
        provider = _from_env("OTEL_TRACES_EXPORTER", _env_tracer_providers, _build_tracer_provider, "tracer")
        if provider is False:
            # Not configured here: the global provider (a no-op unless the host set one).
            return trace.get_tracer(_SCOPE, _VERSION)
    return None if provider is None else provider.get_tracer(_SCOPE, _VERSION)


def resolve_meter(provider: metrics.MeterProvider | None) -> metrics.Meter | None:
    """The meter to use, or None when metrics are off."""
    if provider is None:
        provider = _from_env("OTEL_METRICS_EXPORTER", _env_meter_providers, _build_meter_provider, "meter")
        if provider is False:
            return metrics.get_meter(_SCOPE, _VERSION)
    return None if provider is None else provider.get_meter(_SCOPE, _VERSION)


# -- scopes ----------------------------------------------------------------------
#
# Only what a hook needs before it starts is done on the fire's path: the ids of its
# span and of the event's span (they go into TRACEPARENT), made current. With the
# OpenTelemetry SDK the spans themselves are made later, with those very ids, their real
# start and end times and every attribute at once: when the event loop next has a
# moment (while the next hook process starts, or 1 ms after the fire returned). Other
# tracers get their spans started on the path and finished later. A runner's
# ``aclose()`` finishes anything still queued.

_RANDOM_TRACE_ID = int(getattr(trace.TraceFlags, "RANDOM_TRACE_ID", 0))
# Spans planned for later (SDK tracers), found without OpenTelemetry's context machinery:
# the fire's span (the parent of its hooks' spans) and the span a command hook's
# TRACEPARENT names. Only in-process (callback) hooks get theirs made OpenTelemetry's
# current span, since only they can start spans of their own under it.
_fire_plan: contextvars.ContextVar[_SpanPlan | None] = contextvars.ContextVar("agent_server_fire_plan", default=None)
_hook_plan: contextvars.ContextVar[_SpanPlan | None] = contextvars.ContextVar("agent_server_hook_plan", default=None)


class _PresetIds:
    """Wraps an SDK tracer's id generator so that a span made after the fact gets the
    ids its hook was already given in ``TRACEPARENT`` (per thread; anything not preset
    comes from the wrapped generator)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._local = threading.local()
        self.random_trace_ids = bool(getattr(inner, "is_trace_id_random", lambda: False)())

    def preset(self, trace_id: int | None, span_id: int | None) -> None:
        self._local.ids = [trace_id, span_id]

    def _take(self, which: int) -> int | None:
        """The preset id (0: trace, 1: span), used up; None when there is none."""
        ids: list[int | None] | None = getattr(self._local, "ids", None)
        if ids is None:
            return None
        value, ids[which] = ids[which], None
        return value

    def generate_trace_id(self) -> int:
        preset = self._take(0)
        return int(self.inner.generate_trace_id()) if preset is None else preset

    def generate_span_id(self) -> int:
        preset = self._take(1)
        return int(self.inner.generate_span_id()) if preset is None else preset

    def is_trace_id_random(self) -> bool:
        return self.random_trace_ids

    def __getattr__(self, name: str) -> Any:  # whatever a later SDK asks of a generator
        return getattr(self.inner, name)


# Held while an SDK tracer's id generator is wrapped (two runners set up at once).
_WRAPPING = threading.Lock()


def _late_ids(tracer: trace.Tracer) -> _PresetIds | None:
    """The preset-id generator of an SDK tracer (installed once), or None for a tracer
    whose spans cannot be made after the fact."""
    if type(tracer).__module__ != "opentelemetry.sdk.trace":
        return None
    with _WRAPPING:  # two runners set up at once on one tracer: one wrapper
        ids = getattr(tracer, "id_generator", None)
        if ids is None or getattr(tracer, "sampler", None) is None:
            return None
        if not isinstance(ids, _PresetIds):
            ids = _PresetIds(ids)
            tracer.id_generator = ids  # type: ignore[attr-defined]
        return ids


def _enabled(tracer: trace.Tracer) -> bool:
    """False for an SDK tracer switched off by its provider's (experimental) tracer
    configurator: it makes no spans, so no ids may be planned for it."""
    check = getattr(tracer, "_is_enabled", None)
    return True if check is None else bool(check())


class _SpanPlan:
    """One span of a fire: started now (``span``; other tracers), or made later by
    ``make()`` with the ids and sampling decision fixed now (SDK tracers)."""

    __slots__ = (
        "_current",
        "attributes_at_start",
        "flags",
        "ids",
        "name",
        "parent",
        "parent_plan",
        "payload_attrs",
        "recording",
        "root",
        "span",
        "span_id",
        "start",
        "state",
        "trace_id",
        "tracer",
    )

    def __init__(
        self, tracer: trace.Tracer, ids: _PresetIds | None, name: str, parent_plan: _SpanPlan | None = None
    ) -> None:
        self.tracer = tracer
        self.ids = ids
        self.name = name
        self.start = time.time_ns()
        self.span: trace.Span | None = None
        self._current: trace.Span | None = None
        self.parent: otel_context.Context | None = None
        self.parent_plan = parent_plan
        self.root = False
        self.state: trace.TraceState | None = None
        #: The span's attributes may go to start_span (cheaper than set_attributes
        #: after): only when the sampler ignores them, as it did when this plan was made.
        self.attributes_at_start = False
        #: A fire's span attributes from its payload, shared with its hooks' spans (the
        #: payload a hook gets keeps the fire's session, tool and tool call).
        self.payload_attrs: dict[str, Any] | None = None
        if ids is None:
            span = tracer.start_span(name, kind=SpanKind.INTERNAL, start_time=self.start)
            self.span = self._current = span
            self.recording = span.is_recording()
            ctx = span.get_span_context()
            self.trace_id, self.span_id = ctx.trace_id, ctx.span_id
            self.flags, self.state = int(ctx.trace_flags), ctx.trace_state
            return
        state: trace.TraceState | None
        # What the SDK's Tracer.start_span would decide, decided now: the ids go into
        # TRACEPARENT before the hook starts.
        sampling = sys.modules["opentelemetry.sdk.trace.sampling"]  # loaded: an SDK tracer
        sampler = tracer.sampler  # type: ignore[attr-defined]
        default = sampler is sampling.DEFAULT_ON
        self.attributes_at_start = default
        if parent_plan is not None:
            trace_id = parent_plan.trace_id
            parent_sampled = bool(parent_plan.flags & trace.TraceFlags.SAMPLED)
            state = parent_plan.state
            random_id = bool(parent_plan.flags & _RANDOM_TRACE_ID)
            if not default:
                self.parent = parent_plan.context()
        else:
            self.parent = otel_context.get_current()
            parent = trace.get_current_span(self.parent).get_span_context()
            self.root = not parent.is_valid
            if self.root:
                trace_id = ids.inner.generate_trace_id()
                parent_sampled, state, random_id = True, None, ids.random_trace_ids
            else:
                trace_id = parent.trace_id
                parent_sampled, state = parent.trace_flags.sampled, parent.trace_state
                random_id = bool(getattr(parent.trace_flags, "random_trace_id", False))
        if default:  # parent-based, always on: answered without a call
            self.recording = sampled = parent_sampled
        else:
            result = sampler.should_sample(self.parent, trace_id, name, SpanKind.INTERNAL, None, ())
            self.recording = bool(result.decision.is_recording())
            sampled = bool(result.decision.is_sampled())
            state = result.trace_state
        self.trace_id, self.span_id = trace_id, int(ids.inner.generate_span_id())
        self.state = state
        self.flags = (trace.TraceFlags.SAMPLED if sampled else 0) | (_RANDOM_TRACE_ID if random_id else 0)

    @property
    def current(self) -> trace.Span:
        """The span as OpenTelemetry sees it now (a non-recording stand-in until made)."""
        if self._current is None:
            self._current = trace.NonRecordingSpan(
                trace.SpanContext(
                    self.trace_id,
                    self.span_id,
                    is_remote=False,
                    trace_flags=trace.TraceFlags(self.flags),
                    trace_state=self.state,
                )
            )
        return self._current

    def context(self) -> otel_context.Context:
        """The OpenTelemetry context with this span current (a child's parent)."""
        return trace.set_span_in_context(self.current, self.parent)

    def make(self, attributes: dict[str, Any] | None = None) -> trace.Span | None:
        """The span, made now if it was planned (None when sampled out); ``attributes``
        are given to start_span (only when :attr:`attributes_at_start`)."""
        if self.span is not None or not self.recording:
            return self.span
        ids = self.ids
        assert ids is not None
        parent = self.parent_plan.context() if self.parent_plan is not None else self.parent
        ids.preset(self.trace_id if self.root else None, self.span_id)
        try:
            span = self.tracer.start_span(
                self.name, context=parent, kind=SpanKind.INTERNAL, attributes=attributes, start_time=self.start
            )
        finally:
            ids.preset(None, None)
        made = span.get_span_context()
        if span.is_recording() and (made.span_id, made.trace_id) != (self.span_id, self.trace_id):
            _warn("making a span with the ids given to its hook")  # a hook saw other ids
        self.span = span
        return span


def _payload_values(payload: Mapping[str, Any]) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    session = payload.get("session_id")
    if session:
        attrs[ATTR_SESSION_ID] = str(session)
    tool = payload.get("tool_name")
    if isinstance(tool, str) and tool:
        attrs[ATTR_TOOL_NAME] = tool
    call = payload.get("tool_use_id")
    if isinstance(call, str) and call:
        attrs[ATTR_TOOL_CALL_ID] = call
    return attrs


def _end(plan: _SpanPlan, attrs: dict[str, Any], end: int, more: Callable[[trace.Span], None] | None = None) -> None:
    """Deferred work: make the span if planned, record ``attrs`` (and ``more``), end it."""
    at_start = plan.span is None and plan.attributes_at_start
    span = plan.make(attrs if at_start else None)
    if span is None:
        return
    if span.is_recording():
        if not at_start:
            span.set_attributes(attrs)
        if more is not None:
            more(span)
    span.end(end_time=end)


def _with_exception(exc: BaseException | None) -> Callable[[trace.Span], None] | None:
    if exc is None:
        return None

    def record(span: trace.Span) -> None:
        if isinstance(exc, Exception):
            span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
        else:
            span.set_attribute(ATTR_CANCELLED, True)

    return record


class _Scope:
    """What the event and hook scopes share: a planned span, current while in use."""

    __slots__ = ("_finished", "_plan", "_plan_token", "_plan_var", "_telemetry", "_token")

    def __init__(self, telemetry: HookTelemetry, plan: _SpanPlan | None) -> None:
        self._telemetry = telemetry
        self._plan = plan
        self._token: object | None = None
        self._plan_var: contextvars.ContextVar[_SpanPlan | None] | None = None
        self._plan_token: contextvars.Token[_SpanPlan | None] | None = None
        self._finished = False

    def _enter(self, what: str, var: contextvars.ContextVar[_SpanPlan | None], *, otel: bool = False) -> None:
        """Make the span current: in OpenTelemetry's context when it was started now or
        when ``otel`` (code may start spans under it), else only in ``var``."""
        plan = self._plan
        if plan is None:
            return
        try:
            if otel or plan.ids is None:
                self._token = otel_context.attach(trace.set_span_in_context(plan.current))
            else:
                self._plan_var, self._plan_token = var, var.set(plan)
        except Exception:
            _warn(f"activating the {what} span")

    def _exit(self, what: str, attrs: Callable[[], dict[str, Any]], exc: BaseException | None) -> None:
        plan = self._plan
        if plan is None:
            return
        try:
            if self._token is not None:
                otel_context.detach(self._token)  # type: ignore[arg-type]
            if self._plan_var is not None and self._plan_token is not None:
                self._plan_var.reset(self._plan_token)
            if not self._finished and plan.recording:
                # Cancelled or failed before finish(): the span still ends (now, not
                # when the queue drains), marked so.
                end, extra = time.time_ns(), _with_exception(exc)
                self._telemetry.defer(lambda: _end(plan, attrs(), end, extra))
        except Exception:
            _warn(f"ending the {what} span")


class FireScope(_Scope):
    """The span of one fired event; the current span while the event's hooks run."""

    __slots__ = ("_attrs",)

    def __init__(self, telemetry: HookTelemetry, plan: _SpanPlan | None, attrs: dict[str, Any]) -> None:
        super().__init__(telemetry, plan)
        self._attrs = attrs

    @property
    def trace_id(self) -> str | None:
        """The trace id (32 hex digits) when the span is valid, else None."""
        if self._plan is None or not self._plan.trace_id:
            return None
        return format(self._plan.trace_id, "032x")

    def __enter__(self) -> FireScope:
        self._enter("event", _fire_plan)
        return self

    def finish(self, outcome: EventOutcome) -> None:
        """Record the combined outcome on the event's span and end it (deferred)."""
        plan = self._plan
        if plan is None:
            return
        self._finished = True
        if not plan.recording:
            return  # a no-op or sampled-out span: nothing to record
        end = time.time_ns()
        attrs = self._attrs
        attrs[ATTR_BLOCKED] = outcome.blocked
        attrs[ATTR_HOOK_COUNT] = len(outcome.hooks)
        if outcome.decision:
            attrs[ATTR_DECISION] = outcome.decision
        if outcome.reason:
            attrs[ATTR_REASON] = _text(outcome.reason)
        self._telemetry.defer(lambda: _end(plan, attrs, end))

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._exit("event", lambda: self._attrs, exc)


class HookScope(_Scope):
    """The span of one hook run (current while the hook's environment is built) and
    the place its metrics are recorded."""

    __slots__ = ("_end", "_payload_attrs", "_result", "_spec")

    def __init__(
        self, telemetry: HookTelemetry, plan: _SpanPlan | None, spec: HookSpec, payload_attrs: dict[str, Any]
    ) -> None:
        super().__init__(telemetry, plan)
        self._spec = spec
        self._payload_attrs = payload_attrs
        self._result: HookResult | None = None
        self._end = 0

    def __enter__(self) -> HookScope:
        # In-process hooks may start spans of their own, under this one.
        self._enter("hook", _hook_plan, otel=self._spec.kind == "callback")
        return self

    def _spec_attributes(self) -> dict[str, Any]:
        spec = self._spec
        attrs: dict[str, Any] = {
            ATTR_EVENT: spec.event,
            ATTR_NAME: spec.display_name,
            ATTR_COMMAND: _text(spec.command),
            ATTR_SOURCE: spec.source,
            ATTR_LOCATION: spec.location,
            ATTR_DIALECT: spec.dialect,
            **self._payload_attrs,
        }
        matcher = spec.matcher_text
        if matcher:
            attrs[ATTR_MATCHER] = matcher
        return attrs

    def finish(self, result: HookResult) -> None:
        """Record ``result`` on the span (status, block event) and in the metrics; end
        the span (deferred)."""
        plan = self._plan
        telemetry = self._telemetry
        self._finished = True
        if plan is None or not plan.recording:
            # No span to finish: only metrics (inline when they go to the global no-op
            # proxy, which is cheaper than deferring them).
            if telemetry.metrics_deferred:
                telemetry.defer(functools.partial(telemetry.record_metrics, result))
            else:
                telemetry.record_metrics(result)
            return
        self._end = time.time_ns()
        self._result = result
        result.extra["span_id"] = format(plan.span_id, "016x")
        result.extra["trace_id"] = format(plan.trace_id, "032x")
        # A bound method, not closures: this runs on the fire's path, caches cold.
        telemetry.defer(self._complete)

    def _complete(self) -> None:
        """Deferred: metrics, the span's attributes, status and block event; its end."""
        result, plan = self._result, self._plan
        assert result is not None and plan is not None
        self._telemetry.record_metrics(result)
        attrs = self._spec_attributes()
        attrs[ATTR_STATUS] = result.status.value
        attrs[ATTR_TIMED_OUT] = result.timed_out
        attrs[ATTR_DURATION_MS] = round(result.duration_ms, 3)
        if result.exit_code is not None:
            attrs[ATTR_EXIT_CODE] = result.exit_code
        if result.decision:
            attrs[ATTR_DECISION] = result.decision
        if result.reason:
            attrs[ATTR_REASON] = _text(result.reason)
        if result.error:
            attrs[ATTR_ERROR] = _text(result.error)
        _end(plan, attrs, self._end, self._status_and_block)

    def _status_and_block(self, span: trace.Span) -> None:
        result = self._result
        assert result is not None
        if result.status in (HookStatus.ERROR, HookStatus.TIMEOUT):
            span.set_status(Status(StatusCode.ERROR, _text(result.error or result.status.value)))
        if result.decision in BLOCKING_DECISIONS:
            span.add_event(
                BLOCKED_EVENT,
                {ATTR_DECISION: result.decision, ATTR_REASON: _text(result.reason or "")},
                timestamp=self._end,
            )

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._exit("hook", self._spec_attributes, exc)


class HookTelemetry:
    """Tracing and metrics for one :class:`~agent_server.hooks.HookRunner`.

    ``tracer_provider`` / ``meter_provider`` override the ``OTEL_*`` variables and the
    global providers. Every method is safe to call: telemetry errors are logged once and
    swallowed.
    """

    def __init__(
        self,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self._tracer: trace.Tracer | None = None
        self._duration: metrics.Histogram | None = None
        # A plain counter (added to in the deferred work): an observable one would be
        # registered once per meter, so a second runner sharing the provider lost its runs.
        self._runs: metrics.Counter | None = None
        self._metric_attrs: dict[tuple[str, str, str], dict[str, str]] = {}
        self._pending: deque[Callable[[], None]] = deque()
        # The event loop a drain is scheduled on (None: none is); a loop that ended
        # before its timer ran is not waited for (see defer()).
        self._drain_loop: asyncio.AbstractEventLoop | None = None
        # A runner dropped without aclose() still ends its queued spans (at the latest
        # when the interpreter exits).
        weakref.finalize(self, _finish_all, self._pending)
        #: Metrics go to a real SDK provider (given, or built from OTEL_* variables), so
        #: recording them is worth moving off the fire's path.
        self.metrics_deferred = meter_provider is not None or (_exporter_names("OTEL_METRICS_EXPORTER") is not None)
        # SDK tracers: spans are made after the fact with preset ids (see "scopes").
        self._ids: _PresetIds | None = None
        try:
            self._tracer = resolve_tracer(tracer_provider)
            if self._tracer is not None:
                self._ids = _late_ids(self._tracer)
        except Exception:
            _warn("setting up tracing")
        # The global provider (nothing configured here): while the host has not installed
        # one, skip span work entirely; the hook still gets the caller's TRACEPARENT.
        self._global_tracer = tracer_provider is None and (_exporter_names("OTEL_TRACES_EXPORTER") is None)
        try:
            meter = resolve_meter(meter_provider)
            if meter is not None:
                self._duration = meter.create_histogram(
                    DURATION_METRIC,
                    unit="ms",
                    description="Duration of one hook run",
                    explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
                )
                self._runs = meter.create_counter(
                    RUNS_METRIC,
                    unit="{run}",
                    description="Hook runs, by event, hook and status",
                )
        except Exception:
            _warn("setting up metrics")
            self._duration = self._runs = None
        if self._runs is None:
            self.metrics_deferred = False

    @property
    def tracing(self) -> bool:
        """False when tracing is switched off (``OTEL_TRACES_EXPORTER=none``)."""
        return self._tracer is not None

    @property
    def metrics(self) -> bool:
        """False when metrics are switched off (``OTEL_METRICS_EXPORTER=none``)."""
        return self._runs is not None

    # -- deferred work ---------------------------------------------------
    def defer(self, work: Callable[[], None]) -> None:
        """Run ``work`` in a moment, after fire() has returned (now, outside asyncio)."""
        self._pending.append(work)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.drain()
            return
        if self._drain_loop is loop:
            return  # this loop's timer will take it
        self._drain_loop = loop  # (another loop's timer may never run: it ended)
        try:
            loop.call_later(_DRAIN_DELAY, self._drain_timer)
        except RuntimeError:  # the loop is closing
            self._drain_loop = None
            self.drain()

    def _drain_timer(self) -> None:
        self._drain_loop = None
        self.drain()

    def drain_some(self, limit: int = _DRAIN_BATCH) -> None:
        """Finish up to ``limit`` queued items now: called while a hook process runs,
        when the event loop would otherwise only wait."""
        pending = self._pending
        for _ in range(min(limit, len(pending))):
            work = pending.popleft()
            try:
                work()
            except Exception:
                _warn("finishing a span")

    def drain(self) -> None:
        """Finish every queued span end and metric now."""
        _finish_all(self._pending)  # (including items that finishing one queues)

    # -- scopes ----------------------------------------------------------
    def _active_tracer(self) -> trace.Tracer | None:
        if self._global_tracer and isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            return None  # the API default: every span would be a no-op
        return self._tracer

    def _plan(self, name: str, *, child: bool = False) -> _SpanPlan | None:
        tracer = self._active_tracer()
        if tracer is None:
            return None
        try:
            if tracer is self._tracer and self._ids is not None and _enabled(tracer):
                # A hook's span: the child of its fire's span, when that is planned too.
                parent = _fire_plan.get() if child else None
                if parent is not None and parent.tracer is not tracer:
                    parent = None  # another runner's fire (a nested one): use the context
                return _SpanPlan(tracer, self._ids, name, parent)
            return _SpanPlan(tracer, None, name)
        except Exception:
            _warn(f"starting the span {name!r}")
            return None

    def fire_span(self, event: str, payload: Mapping[str, Any], event_id: str) -> FireScope:
        """A scope for firing ``event``: use as ``with telemetry.fire_span(...) as scope``."""
        plan = self._plan(f"hooks.fire {event}")
        if plan is None:
            return FireScope(self, None, {})
        plan.payload_attrs = _payload_values(payload)
        return FireScope(self, plan, {ATTR_EVENT: event, ATTR_EVENT_ID: event_id, **plan.payload_attrs})

    def hook_span(self, spec: HookSpec, payload: Mapping[str, Any]) -> HookScope:
        """A scope for running one hook, a child of the current (event) span."""
        plan = self._plan(f"hook {spec.display_name}", child=True)
        if plan is None:
            return HookScope(self, None, spec, {})
        parent = plan.parent_plan
        attrs = parent.payload_attrs if parent is not None else None
        return HookScope(self, plan, spec, _payload_values(payload) if attrs is None else attrs)

    def record_metrics(self, result: HookResult) -> None:
        """Add one run of ``result``'s hook to ``hook.duration`` and ``hook.runs``."""
        if self._runs is None or self._duration is None:
            return
        key = (result.event, result.name, result.status.value)
        attrs = self._metric_attrs.get(key)
        if attrs is None:
            attrs = self._metric_attrs[key] = {ATTR_EVENT: key[0], ATTR_NAME: key[1], ATTR_STATUS: key[2]}
        try:
            self._runs.add(1, attrs)
            self._duration.record(result.duration_ms, attrs)
        except Exception:
            _warn("recording metrics")

    @staticmethod
    def inject(env: dict[str, str]) -> None:
        """Put the current span's ``TRACEPARENT``/``TRACESTATE`` into ``env``.

        Leaves ``env`` alone when there is no valid current span.
        """
        plan = _hook_plan.get()  # a command hook's planned span, else OpenTelemetry's
        try:
            if plan is not None:
                trace_id, span_id, flags, state = (plan.trace_id, plan.span_id, plan.flags, plan.state)
            else:
                ctx = trace.get_current_span().get_span_context()
                if not ctx.is_valid:
                    return
                trace_id, span_id, flags, state = (ctx.trace_id, ctx.span_id, int(ctx.trace_flags), ctx.trace_state)
            header = state.to_header() if state else ""
        except Exception:
            _warn("injecting the trace context")
            return
        # The W3C traceparent header, as TraceContextTextMapPropagator writes it.
        env["TRACEPARENT"] = f"00-{trace_id:032x}-{span_id:016x}-{flags & 0xFF:02x}"
        if header:
            env["TRACESTATE"] = header
        else:
            env.pop("TRACESTATE", None)
