"""Telemetry set up at start-up: OpenTelemetry SDK providers from the standard ``OTEL_*``
variables, and the Prometheus text rendering behind ``GET /metrics``
(docs/observability.md).

The engine and the agent loop only use the OpenTelemetry API; this module is the one
place that builds SDK providers and exporters. Every ``OTEL_*`` value is checked first:
a malformed one is one :class:`SettingsInvalid` naming the variable.
"""

from __future__ import annotations

import logging
import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._settings import SettingsInvalid

__all__ = ["Telemetry", "check_otel_env", "render_prometheus", "telemetry_from_env"]

log = logging.getLogger("agent_server.server")

_TRACE_EXPORTERS = ("otlp", "console", "none")
_METRIC_EXPORTERS = ("otlp", "console", "prometheus", "none")
_PROTOCOLS = ("http/protobuf", "grpc")
_SAMPLERS = (
    "always_on",
    "always_off",
    "traceidratio",
    "parentbased_always_on",
    "parentbased_always_off",
    "parentbased_traceidratio",
)
_NUMBERS = (
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT",
    "OTEL_METRIC_EXPORT_INTERVAL",
    "OTEL_METRIC_EXPORT_TIMEOUT",
    "OTEL_BSP_SCHEDULE_DELAY",
    "OTEL_BSP_EXPORT_TIMEOUT",
    "OTEL_BSP_MAX_QUEUE_SIZE",
    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
)
# The OTLP exporters' loggers: an export that fails the same way every 60 s is logged once.
_EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.common.http",
    "opentelemetry.exporter.otlp.proto.http.metric_exporter",
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.grpc.exporter",
    "opentelemetry.sdk.metrics._internal.export",
    "opentelemetry.sdk.trace.export",
)


def _bad(variable: str, value: str, problem: str) -> SettingsInvalid:
    return SettingsInvalid(f"invalid settings:\n  {variable}={value!r}: {problem}")


def _names(env: Mapping[str, str], variable: str, allowed: tuple[str, ...]) -> list[str]:
    raw = env.get(variable, "")
    names = [n.strip().lower() for n in raw.split(",") if n.strip()]
    for name in names:
        if name not in allowed:
            raise _bad(variable, raw, f"unknown exporter {name!r} (use {', '.join(allowed)})")
    return [n for n in names if n != "none"]


def _protocol(env: Mapping[str, str], signal: str) -> str:
    for variable in (f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        if env.get(variable):
            return env[variable].strip().lower()
    return "http/protobuf"


@dataclass
class _Plan:
    """What the ``OTEL_*`` variables ask for, checked."""

    disabled: bool = False
    traces: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)


def check_otel_env(env: Mapping[str, str] | None = None) -> _Plan:
    """Check every ``OTEL_*`` variable this server reads; raises :class:`SettingsInvalid`
    naming the first malformed one."""
    env = os.environ if env is None else env
    disabled = env.get("OTEL_SDK_DISABLED", "").strip().lower()
    if disabled not in ("", "true", "false"):
        raise _bad("OTEL_SDK_DISABLED", env["OTEL_SDK_DISABLED"], "expected true or false")
    plan = _Plan(
        disabled=disabled == "true",
        traces=_names(env, "OTEL_TRACES_EXPORTER", _TRACE_EXPORTERS),
        metrics=_names(env, "OTEL_METRICS_EXPORTER", _METRIC_EXPORTERS),
    )
    for signal in ("", "TRACES_", "METRICS_"):
        variable = f"OTEL_EXPORTER_OTLP_{signal}PROTOCOL"
        value = env.get(variable, "")
        if value and value.strip().lower() not in _PROTOCOLS:
            raise _bad(variable, value, f"unsupported protocol (use {' or '.join(_PROTOCOLS)})")
        variable = f"OTEL_EXPORTER_OTLP_{signal}ENDPOINT"
        value = env.get(variable, "")
        if value and not re.match(r"^https?://[^/\s]+", value.strip()):
            raise _bad(variable, value, "expected an http(s) URL such as http://localhost:4318")
    for variable in _NUMBERS:
        value = env.get(variable, "")
        try:
            ok = not value or (math.isfinite(float(value)) and float(value) >= 0)
        except ValueError:
            ok = False
        if not ok:
            raise _bad(variable, value, "expected a number >= 0")
    sampler = env.get("OTEL_TRACES_SAMPLER", "")
    if sampler and sampler.strip().lower() not in _SAMPLERS:
        raise _bad("OTEL_TRACES_SAMPLER", sampler, f"unknown sampler (use {', '.join(_SAMPLERS)})")
    arg = env.get("OTEL_TRACES_SAMPLER_ARG", "")
    if arg and "ratio" in sampler.lower():
        try:
            ratio_ok = 0.0 <= float(arg) <= 1.0
        except ValueError:
            ratio_ok = False
        if not ratio_ok:
            raise _bad("OTEL_TRACES_SAMPLER_ARG", arg, "expected a ratio between 0 and 1")
    attributes = env.get("OTEL_RESOURCE_ATTRIBUTES", "")
    for pair in filter(None, (p.strip() for p in attributes.split(","))):
        if "=" not in pair or not pair.split("=", 1)[0].strip():
            raise _bad("OTEL_RESOURCE_ATTRIBUTES", attributes, f"{pair!r} is not key=value")
    if not plan.disabled:
        for signal, names in (("TRACES", plan.traces), ("METRICS", plan.metrics)):
            if "otlp" in names:
                _otlp_module(env, signal)  # (installed? checked now, not at the first export)
    return plan


def _otlp_module(env: Mapping[str, str], signal: str) -> Any:
    """The OTLP exporter module for ``signal`` (TRACES or METRICS)."""
    import importlib

    protocol = _protocol(env, signal)
    kind = "trace_exporter" if signal == "TRACES" else "metric_exporter"
    transport = "grpc" if protocol == "grpc" else "http"
    try:
        return importlib.import_module(f"opentelemetry.exporter.otlp.proto.{transport}.{kind}")
    except ImportError:
        extra = (
            "pip install opentelemetry-exporter-otlp-proto-grpc"
            if transport == "grpc"
            else "pip install 'agent-server[otlp]'"
        )
        raise _bad(f"OTEL_{signal}_EXPORTER", "otlp", f"the OTLP exporter is not installed ({extra})") from None


class _Once(logging.Filter):
    """Lets each distinct exporter failure through once: a collector that rejects every
    export (Phoenix answers metrics with 405) is reported once, not every minute."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[str, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        args = record.args if isinstance(record.args, tuple) else ()
        # (The message and its first two arguments: what failed and how, not when.)
        key = (str(record.msg), repr(args[:2]))
        if key in self.seen:
            return False
        self.seen.add(key)
        record.msg = f"{record.msg} (reported once; repeats are not logged)"
        return True


_ONCE = _Once()


def _report_exporter_errors_once() -> None:
    for name in _EXPORTER_LOGGERS:
        logger = logging.getLogger(name)
        if _ONCE not in logger.filters:
            logger.addFilter(_ONCE)


@dataclass
class Telemetry:
    """The providers the server hands to its HookRunner and agent loop. ``None``
    providers mean the global ones (no-ops unless the host installed real ones);
    ``scrape`` is the reader behind ``GET /metrics`` (None: the endpoint is off)."""

    tracer_provider: Any = None
    meter_provider: Any = None
    scrape: Any = None

    def render_metrics(self) -> str:
        """The current metrics in Prometheus text format."""
        if self.scrape is None:
            return ""
        return render_prometheus(self.scrape.get_metrics_data())

    def shutdown(self) -> None:
        """Flush and stop the providers built here (bounded by the exporters' timeouts)."""
        for provider in (self.tracer_provider, self.meter_provider):
            if provider is not None:
                try:
                    provider.shutdown()
                except Exception:
                    log.warning("telemetry shutdown failed", exc_info=True)


def telemetry_from_env(env: Mapping[str, str] | None = None, *, metrics_endpoint: bool = False) -> Telemetry:
    """SDK providers for what the ``OTEL_*`` variables ask for (checked first, see
    :func:`check_otel_env`), plus a pull reader for ``GET /metrics`` when
    ``metrics_endpoint`` is on or ``OTEL_METRICS_EXPORTER`` lists ``prometheus``."""
    env = os.environ if env is None else env
    plan = check_otel_env(env)
    telemetry = Telemetry()
    if plan.disabled:
        return telemetry
    _report_exporter_errors_once()
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "agent-server"}))
    if plan.traces:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

        # (Shut down by Telemetry.shutdown() when the server stops, not at interpreter exit.)
        tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        for name in plan.traces:
            exporter = (
                ConsoleSpanExporter(out=sys.stderr)  # stderr: a CLI's --json stdout stays parseable
                if name == "console"
                else _otlp_module(env, "TRACES").OTLPSpanExporter()
            )
            # Batching: exports run on the processor's thread, never on a hook's path.
            tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
        telemetry.tracer_provider = tracer_provider
    readers: list[Any] = []
    if plan.metrics or metrics_endpoint:
        from opentelemetry.sdk.metrics.export import (
            ConsoleMetricExporter,
            InMemoryMetricReader,
            PeriodicExportingMetricReader,
        )

        for name in plan.metrics:
            if name == "console":
                readers.append(PeriodicExportingMetricReader(ConsoleMetricExporter(out=sys.stderr)))
            elif name == "otlp":
                readers.append(PeriodicExportingMetricReader(_otlp_module(env, "METRICS").OTLPMetricExporter()))
        if metrics_endpoint or "prometheus" in plan.metrics:
            telemetry.scrape = InMemoryMetricReader()
            readers.append(telemetry.scrape)
    if readers:
        from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider

        # Exemplars (a sampled trace id per bucket) cost a look at the current span on
        # every hook run and /metrics does not show them: off unless asked for.
        exemplars = None if env.get("OTEL_METRICS_EXEMPLAR_FILTER") else AlwaysOffExemplarFilter()
        telemetry.meter_provider = MeterProvider(
            metric_readers=readers, resource=resource, exemplar_filter=exemplars, shutdown_on_exit=False
        )
    return telemetry


# -- Prometheus text format (version 0.0.4) -------------------------------------------

_UNITS = {"s": "seconds", "ms": "milliseconds", "By": "bytes", "1": "ratio"}


def _metric_name(name: str, unit: str) -> str:
    base = re.sub(r"[^a-zA-Z0-9_:]", "_", name)
    suffix = _UNITS.get(unit, "")
    return f"{base}_{suffix}" if suffix and not base.endswith(suffix) else base


def _labels(attributes: Mapping[str, Any], extra: str = "") -> str:
    parts = []
    for key, value in attributes.items():
        text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        parts.append(f'{re.sub(r"[^a-zA-Z0-9_]", "_", key)}="{text}"')
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _number(value: float) -> str:
    if isinstance(value, float) and math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(value) if isinstance(value, float) else str(value)


def render_prometheus(data: Any) -> str:
    """``MetricsData`` from an SDK reader as Prometheus text: counters (``_total``),
    gauges and histograms (``_bucket``/``_sum``/``_count``), units as name suffixes."""
    from opentelemetry.sdk.metrics.export import Gauge, Histogram, Sum

    lines: list[str] = []
    for resource_metrics in getattr(data, "resource_metrics", None) or ():
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                name = _metric_name(metric.name, metric.unit or "")
                points = metric.data.data_points
                if isinstance(metric.data, Sum) and metric.data.is_monotonic:
                    kind, name = "counter", name.removesuffix("_total")
                elif isinstance(metric.data, (Sum, Gauge)):
                    kind = "gauge"
                elif isinstance(metric.data, Histogram):
                    kind = "histogram"
                else:
                    continue
                if metric.description:
                    lines.append(f"# HELP {name} {metric.description}")
                lines.append(f"# TYPE {name} {kind}")
                for point in points:
                    attributes = dict(point.attributes or {})
                    if kind == "counter":
                        lines.append(f"{name}_total{_labels(attributes)} {_number(point.value)}")
                    elif kind == "gauge":
                        lines.append(f"{name}{_labels(attributes)} {_number(point.value)}")
                    else:
                        cumulative = 0
                        bounds = [*point.explicit_bounds, math.inf]
                        for bound, count in zip(bounds, point.bucket_counts, strict=True):
                            cumulative += count
                            le = f'le="{_number(float(bound))}"'
                            lines.append(f"{name}_bucket{_labels(attributes, le)} {cumulative}")
                        lines.append(f"{name}_sum{_labels(attributes)} {_number(float(point.sum))}")
                        lines.append(f"{name}_count{_labels(attributes)} {point.count}")
    return "\n".join(lines) + "\n" if lines else ""
