"""The server's start-up telemetry (agent_server/server/_otel.py): OTEL_* checks and the
Prometheus text rendering behind GET /metrics."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from agent_server.server import SettingsInvalid
from agent_server.server._otel import check_otel_env, render_prometheus, telemetry_from_env


def test_well_formed_values_are_accepted() -> None:
    plan = check_otel_env(
        {
            "OTEL_TRACES_EXPORTER": "otlp, console",
            "OTEL_METRICS_EXPORTER": "prometheus",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "2.5",
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio",
            "OTEL_TRACES_SAMPLER_ARG": "0.25",
            "OTEL_RESOURCE_ATTRIBUTES": "team=agents,deployment.environment=dev",
        }
    )
    assert plan.traces == ["otlp", "console"] and plan.metrics == ["prometheus"] and not plan.disabled


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, "OTEL_TRACES_SAMPLER_ARG='2'"),
        ({"OTEL_TRACES_SAMPLER": "sometimes"}, "OTEL_TRACES_SAMPLER='sometimes'"),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "collector"}, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT='collector'"),
        ({"OTEL_BSP_SCHEDULE_DELAY": "-1"}, "OTEL_BSP_SCHEDULE_DELAY='-1'"),
    ],
)
def test_a_malformed_value_names_the_variable(env: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsInvalid) as info:
        check_otel_env(env)
    assert named in str(info.value)


def test_sdk_disabled_builds_nothing() -> None:
    telemetry = telemetry_from_env({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"})
    assert telemetry.tracer_provider is None and telemetry.meter_provider is None and telemetry.scrape is None


def test_prometheus_text_escapes_labels_and_names_units() -> None:
    reader = InMemoryMetricReader()
    meter = MeterProvider(metric_readers=[reader]).get_meter("t")
    meter.create_counter("hook.runs", unit="{run}").add(2, {"hook.name": 'say "hi"\\now'})
    meter.create_up_down_counter("queue.size").add(-3)
    meter.create_histogram("hook.duration", unit="s", explicit_bucket_boundaries_advisory=[0.1, 1.0]).record(0.5)
    text = render_prometheus(reader.get_metrics_data())
    assert 'hook_runs_total{hook_name="say \\"hi\\"\\\\now"} 2' in text
    assert "# TYPE queue_size gauge\nqueue_size -3" in text
    assert 'hook_duration_seconds_bucket{le="0.1"} 0' in text
    assert 'hook_duration_seconds_bucket{le="1.0"} 1' in text
    assert 'hook_duration_seconds_bucket{le="+Inf"} 1' in text
    assert "hook_duration_seconds_count 1" in text and "hook_duration_seconds_sum 0.5" in text
    assert render_prometheus(None) == ""
