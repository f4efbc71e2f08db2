"""OpenTelemetry spans and metrics for the HookRunner (docs/observability.md).

Plain OpenTelemetry API use: one ``hooks.fire <Event>`` span per fired event that has
hooks to run, one child span per hook named by the hook's short name, both children of
whatever span is current when ``fire()`` is called (the server's turn or tool span). The
hook's span is current while it runs, so ``TRACEPARENT`` in its environment (and the
spans an in-process hook starts) continue the trace. Metrics: a ``hook.duration``
histogram (seconds) and a ``hook.runs`` counter, by event, hook name and status.

The engine imports only the OpenTelemetry API. Providers come from the caller
(``HookRunner(tracer_provider=..., meter_provider=...)``) or are the global ones, which
are no-ops until the host installs real ones; building them from ``OTEL_*`` variables is
the host's start-up work (the server's ``agent_server/server/_otel.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import Span, Status, StatusCode

from ._outcome import EventOutcome, HookResult, HookStatus
from ._spec import HookSpec

__all__ = [
    "ATTR_BLOCKED_COUNT",
    "ATTR_EVENT",
    "ATTR_FAILED_COUNT",
    "ATTR_NAME",
    "ATTR_STATUS",
    "DURATION_METRIC",
    "RUNS_METRIC",
    "HookTelemetry",
]

log = logging.getLogger("agent_server.hooks.telemetry")

_SCOPE = "agent_server.hooks"
_VERSION = "0.1.0"

ATTR_EVENT = "hook.event"
ATTR_EVENT_ID = "hook.event_id"
ATTR_NAME = "hook.name"
ATTR_COMMAND = "hook.command"
ATTR_SOURCE = "hook.source"
ATTR_LOCATION = "hook.location"
ATTR_MATCHER = "hook.matcher"
ATTR_STATUS = "hook.status"
ATTR_DECISION = "hook.decision"
ATTR_REASON = "hook.reason"
ATTR_COUNT = "hook.count"
ATTR_BLOCKED_COUNT = "hook.blocked_count"
ATTR_FAILED_COUNT = "hook.failed_count"
ATTR_CANCELLED = "hook.cancelled"
# OpenTelemetry's general semantic conventions, and OpenInference's (read by Phoenix).
ATTR_ERROR_TYPE = "error.type"
ATTR_EXIT_CODE = "process.exit.code"
ATTR_COMMAND_LINE = "process.command_line"
ATTR_PID = "process.pid"
ATTR_SPAN_KIND = "openinference.span.kind"
ATTR_SESSION = "session.id"

DURATION_METRIC = "hook.duration"
RUNS_METRIC = "hook.runs"

_MAX_TEXT = 2048
_FAILED = (HookStatus.ERROR, HookStatus.TIMEOUT)
# Bucket boundaries (seconds) sized for hooks: a millisecond callback to a 10-minute command.
_DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600)


def _text(value: str) -> str:
    return value if len(value) <= _MAX_TEXT else value[:_MAX_TEXT] + "…"


class HookTelemetry:
    """Spans and metrics of one :class:`~agent_server.hooks.HookRunner`.

    Every method is safe to call: an error inside OpenTelemetry (a broken span processor
    or meter) is logged once and never reaches the hook or its siblings.
    """

    def __init__(
        self,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self._warned: set[str] = set()
        self._tracer = (
            trace.get_tracer(_SCOPE, _VERSION)
            if tracer_provider is None
            else tracer_provider.get_tracer(_SCOPE, _VERSION)
        )
        meter = (
            metrics.get_meter(_SCOPE, _VERSION)
            if meter_provider is None
            else meter_provider.get_meter(_SCOPE, _VERSION)
        )
        self._duration = meter.create_histogram(
            DURATION_METRIC,
            unit="s",
            description="Duration of one hook run",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )
        self._runs = meter.create_counter(RUNS_METRIC, unit="{run}", description="Hook runs, by event, hook and status")

    def _warn(self, where: str) -> None:
        if where not in self._warned:
            self._warned.add(where)
            log.warning("telemetry error in %s (ignored; hooks are unaffected)", where, exc_info=True)

    @contextmanager
    def _span(self, name: str, attributes: dict[str, Any]) -> Iterator[Span]:
        """``start_as_current_span``, except that an OpenTelemetry error on entry gives a
        non-recording span instead of failing the fire."""
        try:
            manager = self._tracer.start_as_current_span(name, attributes=attributes)
            span = manager.__enter__()
        except Exception:
            self._warn(f"starting the span {name!r}")
            yield trace.INVALID_SPAN
            return
        try:
            yield span
        except BaseException as exc:
            # The span ends now, with what ended it (an exception is recorded by the SDK;
            # a cancellation, which is no failure of the hook, is only marked).
            if isinstance(exc, Exception):
                self._exit(manager, name, type(exc), exc)
            else:
                try:
                    span.set_attribute(ATTR_CANCELLED, True)
                except Exception:
                    self._warn(f"marking the span {name!r}")
                self._exit(manager, name, None, None)
            raise
        self._exit(manager, name, None, None)

    def _exit(
        self,
        manager: AbstractContextManager[Span],
        name: str,
        kind: type[BaseException] | None,
        exc: BaseException | None,
    ) -> None:
        try:
            manager.__exit__(kind, exc, None if exc is None else exc.__traceback__)
        except Exception:
            self._warn(f"ending the span {name!r}")

    # -- spans ---------------------------------------------------------------
    def fire_span(self, event: str, payload: Mapping[str, Any], event_id: str) -> AbstractContextManager[Span]:
        """The span of one fired event (a context manager yielding the span)."""
        attributes: dict[str, Any] = {ATTR_EVENT: event, ATTR_EVENT_ID: event_id, ATTR_SPAN_KIND: "CHAIN"}
        session = payload.get("session_id")
        if isinstance(session, str) and session:
            attributes[ATTR_SESSION] = session
        return self._span(f"hooks.fire {event}", attributes)

    def fire_done(self, span: Span, outcome: EventOutcome) -> None:
        """Record the combined outcome on the event's span: counts, decision, and an
        error status when a hook blocked (so a block shows in a trace list)."""
        if not span.is_recording():
            return
        try:
            blocked = [r for r in outcome.hooks if r.status is HookStatus.BLOCKED]
            failed = sum(r.status in _FAILED for r in outcome.hooks)
            attributes: dict[str, Any] = {
                ATTR_COUNT: sum(r.status is not HookStatus.SKIPPED for r in outcome.hooks),
                ATTR_BLOCKED_COUNT: len(blocked),
                ATTR_FAILED_COUNT: failed,
            }
            if outcome.decision:
                attributes[ATTR_DECISION] = outcome.decision
            if outcome.reason:
                attributes[ATTR_REASON] = _text(outcome.reason)
            span.set_attributes(attributes)
            if blocked:
                why = outcome.reason or blocked[0].reason or "no reason given"
                span.set_status(Status(StatusCode.ERROR, _text(f"blocked by {blocked[0].name}: {why}")))
        except Exception:
            self._warn("recording an event's outcome")

    def hook_span(self, spec: HookSpec, payload: Mapping[str, Any]) -> AbstractContextManager[Span]:
        """The span of one hook run, current while it runs (a context manager yielding
        the span). Named by the hook's short name; the command is an attribute."""
        attributes: dict[str, Any] = {
            ATTR_NAME: spec.display_name,
            ATTR_EVENT: spec.event,
            ATTR_COMMAND: _text(spec.command),
            ATTR_SOURCE: spec.source,
            ATTR_LOCATION: spec.location,
            ATTR_SPAN_KIND: "CHAIN",
        }
        if spec.argv is not None:
            attributes[ATTR_COMMAND_LINE] = _text(spec.command)
        matcher = spec.matcher_text
        if matcher:
            attributes[ATTR_MATCHER] = matcher
        session = payload.get("session_id")
        if isinstance(session, str) and session:
            attributes[ATTR_SESSION] = session
        return self._span(spec.display_name, attributes)

    def hook_done(self, span: Span, result: HookResult) -> None:
        """Record ``result`` on the hook's span (a block or failure is an error status
        with the reason) and in the metrics."""
        self.record_metrics(result)
        if not span.is_recording():
            return
        try:
            attributes: dict[str, Any] = {ATTR_STATUS: result.status.value}
            if result.exit_code is not None:
                attributes[ATTR_EXIT_CODE] = result.exit_code
            pid = result.extra.get("pid")
            if isinstance(pid, int):
                attributes[ATTR_PID] = pid
            if result.decision:
                attributes[ATTR_DECISION] = result.decision
            if result.reason:
                attributes[ATTR_REASON] = _text(result.reason)
            failed = result.status in _FAILED
            if failed or result.status is HookStatus.BLOCKED:
                attributes[ATTR_ERROR_TYPE] = result.status.value
                why = result.error if failed else result.reason
                span.set_status(Status(StatusCode.ERROR, _text(why or result.status.value)))
            span.set_attributes(attributes)
            context = span.get_span_context()
            result.extra["span_id"] = format(context.span_id, "016x")
            result.extra["trace_id"] = format(context.trace_id, "032x")
        except Exception:
            self._warn("recording a hook's result")

    # -- metrics -------------------------------------------------------------
    def record_metrics(self, result: HookResult) -> None:
        """Add one run of ``result``'s hook to ``hook.duration`` and ``hook.runs``."""
        attributes = {ATTR_EVENT: result.event, ATTR_NAME: result.name, ATTR_STATUS: result.status.value}
        try:
            self._runs.add(1, attributes)
            self._duration.record(result.duration_ms / 1000.0, attributes)
        except Exception:
            self._warn("recording metrics")

    # -- trace context for the hook ------------------------------------------
    def inject_env(self, env: MutableMapping[str, str]) -> None:
        """Put the current trace context into a hook's environment as ``TRACEPARENT``
        (and ``TRACESTATE``/``BAGGAGE`` when there are any); leaves ``env`` alone when
        there is no valid current span."""
        carrier: dict[str, str] = {}
        try:
            propagate.inject(carrier)
        except Exception:
            self._warn("injecting the trace context")
            return
        if "traceparent" not in carrier:
            return
        for name in ("TRACESTATE", "BAGGAGE"):
            env.pop(name, None)  # (the server's own, which belong to another trace)
        for name, value in carrier.items():
            env[name.upper()] = value

    def inject_headers(self, headers: MutableMapping[str, str]) -> None:
        """Put the current trace context into HTTP request headers (``traceparent``)."""
        try:
            propagate.inject(headers)
        except Exception:
            self._warn("injecting the trace context")

    @staticmethod
    def trace_id(span: Span) -> str | None:
        """``span``'s trace id (32 hex digits), or None when it is not valid."""
        context = span.get_span_context()
        return format(context.trace_id, "032x") if context.is_valid else None
