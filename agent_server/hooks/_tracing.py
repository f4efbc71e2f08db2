"""OpenTelemetry spans and metrics for the HookRunner (docs/observability.md).

Plain OpenTelemetry API use: one ``hooks.fire <Event>`` span per fired event that has
hooks to run, one child span per hook named by the hook's short name, both children of
whatever span is current when ``fire()`` is called (the server's turn or tool span). The
hook's span is current while it runs, so ``TRACEPARENT`` in its environment (and the
spans an in-process hook starts) continue the trace. Metrics: a ``hook.duration``
histogram (seconds) by event, hook name and status; its count per status is the number
of runs by outcome.

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

__all__ = ["HookTelemetry"]

log = logging.getLogger("agent_server.hooks.telemetry")

_SCOPE = "agent_server.hooks"
_VERSION = "0.1.0"

# Span attributes: ``hook.*``, OpenTelemetry's general conventions, OpenInference's (Phoenix).
_MAX_TEXT = 2048
_FAILED = (HookStatus.ERROR, HookStatus.TIMEOUT)
# Bucket boundaries (seconds) sized for hooks: a millisecond callback to a 10-minute command.
_DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600)


def _text(value: str) -> str:
    return value if len(value) <= _MAX_TEXT else value[:_MAX_TEXT] + "…"


def _present(attributes: dict[str, Any]) -> dict[str, Any]:
    """``attributes`` without those that have no value (None or empty)."""
    return {k: v for k, v in attributes.items() if v is not None and v != ""}


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
        self._tracer = (tracer_provider or trace.get_tracer_provider()).get_tracer(_SCOPE, _VERSION)
        meter = (meter_provider or metrics.get_meter_provider()).get_meter(_SCOPE, _VERSION)
        self._duration = meter.create_histogram(
            "hook.duration",
            unit="s",
            description="Duration of one hook run",
            explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
        )

    def _warn(self, where: str) -> None:
        if where not in self._warned:
            self._warned.add(where)
            log.warning("telemetry error in %s (ignored; hooks are unaffected)", where, exc_info=True)

    @contextmanager
    def _span(self, name: str, attributes: dict[str, Any]) -> Iterator[Span]:
        """A span, current while the block runs (``use_span`` records an exception on it).
        An OpenTelemetry error is logged, never raised (when starting: a non-recording span);
        a cancellation, which is no failure of the hook, is only marked on the span."""
        try:
            span = self._tracer.start_span(name, attributes=attributes)
        except Exception:
            self._warn(f"starting the span {name!r}")
            span = trace.INVALID_SPAN
        try:
            with trace.use_span(span):
                yield span
        except BaseException as exc:
            if not isinstance(exc, Exception):
                span.set_attribute("hook.cancelled", True)
            raise
        finally:
            try:
                span.end()
            except Exception:
                self._warn(f"ending the span {name!r}")

    def fire_span(self, event: str, payload: Mapping[str, Any], event_id: str) -> AbstractContextManager[Span]:
        """The span of one fired event (a context manager yielding the span)."""
        attributes = {"hook.event": event, "hook.event_id": event_id, "openinference.span.kind": "CHAIN"}
        return self._span(f"hooks.fire {event}", _present(attributes | {"session.id": payload.get("session_id")}))

    def fire_done(self, span: Span, outcome: EventOutcome) -> None:
        """Record the combined outcome on the event's span: counts, decision, and an
        error status when a hook blocked (so a block shows in a trace list)."""
        if not span.is_recording():
            return
        try:
            blocked = [r for r in outcome.hooks if r.status is HookStatus.BLOCKED]
            attributes = {
                "hook.count": sum(r.status is not HookStatus.SKIPPED for r in outcome.hooks),
                "hook.blocked_count": len(blocked),
                "hook.failed_count": sum(r.status in _FAILED for r in outcome.hooks),
                "hook.decision": outcome.decision,
                "hook.reason": _text(outcome.reason or ""),
            }
            span.set_attributes(_present(attributes))
            if blocked:
                why = outcome.reason or blocked[0].reason or "no reason given"
                span.set_status(Status(StatusCode.ERROR, _text(f"blocked by {blocked[0].name}: {why}")))
        except Exception:
            self._warn("recording an event's outcome")

    def hook_span(self, spec: HookSpec, payload: Mapping[str, Any]) -> AbstractContextManager[Span]:
        """The span of one hook run, current while it runs (a context manager yielding
        the span). Named by the hook's short name; the command is an attribute."""
        attributes = {
            "hook.name": spec.display_name,
            "hook.event": spec.event,
            "hook.command": _text(spec.command),
            "hook.source": spec.source,
            "hook.location": spec.location,
            "hook.matcher": spec.matcher_text,
            "openinference.span.kind": "CHAIN",
            "process.command_line": None if spec.argv is None else _text(spec.command),
            "session.id": payload.get("session_id"),
        }
        return self._span(spec.display_name, _present(attributes))

    def hook_done(self, span: Span, result: HookResult) -> None:
        """Record ``result`` on the hook's span (a block or failure is an error status
        with the reason) and in the ``hook.duration`` histogram."""
        labels = {"hook.event": result.event, "hook.name": result.name, "hook.status": result.status.value}
        try:
            self._duration.record(result.duration_ms / 1000.0, labels)
        except Exception:
            self._warn("recording metrics")
        if not span.is_recording():
            return
        try:
            pid = result.extra.get("pid")
            failed = result.status in _FAILED
            error = failed or result.status is HookStatus.BLOCKED
            attributes = {
                "hook.status": result.status.value,
                "process.exit.code": result.exit_code,
                "process.pid": pid if isinstance(pid, int) else None,
                "hook.decision": result.decision,
                "hook.reason": _text(result.reason or ""),
                "error.type": result.status.value if error else None,
            }
            span.set_attributes(_present(attributes))
            if error:
                why = result.error if failed else result.reason
                span.set_status(Status(StatusCode.ERROR, _text(why or result.status.value)))
            result.extra["span_id"] = format(span.get_span_context().span_id, "016x")
        except Exception:
            self._warn("recording a hook's result")

    def inject_env(self, env: MutableMapping[str, str]) -> None:
        """Put the current trace context into a hook's environment as ``TRACEPARENT``
        (and ``TRACESTATE``/``BAGGAGE`` when there are any); leaves ``env`` alone when
        there is no valid current span."""
        carrier: dict[str, str] = {}
        self.inject_headers(carrier)
        if "traceparent" in carrier:
            for name in ("TRACESTATE", "BAGGAGE"):
                env.pop(name, None)  # (the server's own, which belong to another trace)
            env.update({name.upper(): value for name, value in carrier.items()})

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
