"""``agent-server hooks log | stats | explain`` as a user runs them, and OTEL_* end to end."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_server.hooks import EventOutcome, HookLedger, HookRunner
from agent_server.hooks._cli_observe import parse_since
from tests.support import cmd, run_cli

ROOT = Path(__file__).parents[2]
BASH = {
    "session_id": "aaaa-1111",
    "transcript_path": "",
    "cwd": "/tmp",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
}


def cli(
    *args: str, stdin: str = "", cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    home = (cwd or Path.cwd()) / "home"  # an empty home: no ~/.claude/settings.json
    full = {**base, "HOME": str(home), "PYTHONPATH": str(ROOT), **(env or {})}
    return run_cli(*args, env=full, stdin=stdin, cwd=cwd)


def write_settings(root: Path, settings: dict[str, Any], name: str = "settings.json") -> Path:
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude" / name).write_text(json.dumps(settings))
    return root


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose default ledger holds a few sessions' worth of events."""
    root = tmp_path_factory.mktemp("recorded")
    write_settings(
        root,
        {
            "hooks": {
                "PreToolUse": [cmd("true"), cmd("grep -q rm && { echo no rm >&2; exit 2; } || true", matcher="Bash")],
                "Stop": [cmd("exit 1"), cmd("sleep 30", timeout=0.2)],
            }
        },
    )

    async def go() -> None:
        async with HookRunner.from_project(root, user_settings=None, ledger=True, kill_grace=0.2) as r:
            for command in ("ls", "rm -rf x", "cat y", "rm z"):
                await r.fire("PreToolUse", {**BASH, "tool_input": {"command": command}})
            await r.fire("Stop", {"session_id": "bbbb-2222"})

    anyio.run(go)
    return root


def test_log_prints_events_with_their_hooks(recorded: Path) -> None:
    res = cli("hooks", "log", "--project-dir", str(recorded))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["TIME", "EVENT", "SESSION", "TOOL", "RESULT", "MS", "HOOKS"]
    events = [line for line in lines[1:] if not line.startswith(" ")]
    assert len(events) == 5
    assert "PreToolUse" in events[0] and "allowed" in events[0] and "aaaa-1111" in events[0]
    assert "BLOCKED (deny)" in events[1]
    assert "Stop" in events[4]  # oldest first: the newest is last
    assert any(line.strip().startswith("timeout") and "timed out after 0.2s" in line for line in lines)
    assert any("— [grep -q rm" in line and "]: no rm" in line for line in lines)


def test_log_filters_and_json(recorded: Path) -> None:
    base = ("hooks", "log", "--project-dir", str(recorded), "--json")
    everything = json.loads(cli(*base).stdout)
    assert [e["event"] for e in everything] == ["PreToolUse"] * 4 + ["Stop"]
    assert everything[1]["blocked"] is True
    assert [h["status"] for h in everything[1]["hooks"]] == ["ok", "blocked"]
    assert everything[0]["time"].startswith(time.strftime("%Y-"))
    by_session = json.loads(cli(*base, "--session", "bbbb").stdout)
    assert [e["session_id"] for e in by_session] == ["bbbb-2222"]
    by_event = json.loads(cli(*base, "--event", "PreToolUse", "--limit", "2").stdout)
    assert [e["tool_name"] for e in by_event] == ["Bash", "Bash"]
    assert by_event[-1]["event_id"] == everything[3]["event_id"]  # the 2 most recent
    assert len(json.loads(cli(*base, "--since", "1d").stdout)) == 5
    future = time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() + 3600))
    assert json.loads(cli(*base, "--since", future).stdout) == []
    empty = cli("hooks", "log", "--project-dir", str(recorded), "--session", "nobody")
    assert empty.returncode == 0 and empty.stdout.strip() == "no events recorded that match"


@pytest.mark.parametrize("value", ["yesterday", "10x", "-5m", "2025-13-45"])
def test_log_bad_since_is_a_clear_error(recorded: Path, value: str) -> None:
    res = cli("hooks", "log", "--project-dir", str(recorded), f"--since={value}")
    assert res.returncode == 1
    assert f"--since {value!r}: expected an ISO time" in res.stderr
    assert "Traceback" not in res.stderr


def test_parse_since_accepts_ages_and_iso_times() -> None:
    now = 1_700_000_000.0
    assert parse_since("10m", now) == now - 600
    assert parse_since("2h", now) == now - 7200
    assert parse_since("1d", now) == now - 86400
    assert parse_since("1.5s", now) == now - 1.5
    assert parse_since("2023-11-14T22:13:20+00:00") == now
    assert parse_since("2023-11-14T22:13:20Z") == now


def test_missing_or_foreign_db_is_a_clear_error(tmp_path: Path) -> None:
    res = cli("hooks", "log", "--project-dir", str(tmp_path))
    assert res.returncode == 1
    assert f"no hook ledger at {tmp_path / '.agent-server' / 'hooks.db'}" in res.stderr
    assert "Traceback" not in res.stderr
    junk = tmp_path / "junk.db"
    junk.write_text("this is not sqlite")
    for command in ("log", "stats"):
        res = cli("hooks", command, "--db", str(junk))
        assert res.returncode == 1 and "not a hook ledger" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr


def test_stats_per_hook(recorded: Path) -> None:
    res = cli("hooks", "stats", "--project-dir", str(recorded))
    assert res.returncode == 0, res.stderr
    header, *lines = res.stdout.splitlines()
    assert header.split() == ["EVENT", "HOOK", "RUNS", "P50", "MS", "P95", "MS", "BLOCK", "ERROR", "TIMEOUT"]
    grep = next(line for line in lines if line.split()[1] == "grep")  # the hooks' short names
    assert grep.split()[-3:] == ["50.0%", "0.0%", "0.0%"]
    stats = {s["name"]: s for s in json.loads(cli("hooks", "stats", "--project-dir", str(recorded), "--json").stdout)}
    assert stats["true"]["runs"] == 4 and stats["true"]["block_rate"] == 0
    assert 0 < stats["true"]["p50_ms"] <= stats["true"]["p95_ms"]
    assert stats["exit"]["error_rate"] == 1.0 and stats["exit"]["event"] == "Stop"
    assert stats["sleep"]["timeout_rate"] == 1.0
    assert stats["sleep"]["p50_ms"] >= 200
    only_stop = json.loads(cli("hooks", "stats", "--project-dir", str(recorded), "--json", "--event", "Stop").stdout)
    assert {s["name"] for s in only_stop} == {"exit", "sleep"}


def test_stats_reads_a_ledger_given_with_db(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere.db"

    async def go() -> None:
        async with HookLedger(db) as ledger, HookRunner(project_dir=tmp_path, ledger=ledger) as r:

            async def cb(payload: dict[str, Any]) -> dict[str, Any]:
                return {"decision": "block", "reason": "no"}

            r.register("Stop", cb, name="blocker")
            await r.fire("Stop", {"session_id": "s"})

    anyio.run(go)
    [row] = json.loads(cli("hooks", "stats", "--db", str(db), "--json").stdout)
    assert (row["name"], row["runs"], row["block_rate"]) == ("blocker", 1, 1.0)


def test_explain_names_every_reason_a_hook_would_not_run(tmp_path: Path) -> None:
    (tmp_path / "hooks").mkdir()
    script = tmp_path / "hooks" / "edit-guard.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    write_settings(
        tmp_path,
        {
            "hooks": {
                "PreToolUse": [
                    cmd("echo runs"),
                    cmd("echo edits", matcher="Edit|Write"),
                    {"hooks": [{"type": "command", "command": "echo git", "if": "Bash(git *)"}]},
                    {"path": "hooks/edit-guard.sh", "matcher": {"tool_name": "Edit"}},
                    cmd("echo runs"),
                    {"hooks": [{"type": "agent", "prompt": "is this ok?"}]},
                    {"matcher": "(", "hooks": [{"type": "command", "command": "echo bad"}]},
                    cmd("echo later", **{"async": True}),
                ]
            }
        },
    )
    (tmp_path / ".mentu").mkdir()
    (tmp_path / ".mentu" / "genesis.key").write_text(
        "hooks:\n  pre_tool_use:\n    - matcher: 'Read(*.env)'\n      type: deny\n"
    )
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps(BASH))
    res = cli(
        "hooks",
        "explain",
        "PreToolUse",
        "--payload",
        str(payload),
        "--project-dir",
        str(tmp_path),
        "--json",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    verdicts = json.loads(res.stdout)["hooks"]
    got = {(v["command"], v["skip"]) for v in verdicts}
    assert got == {
        ("echo runs", None),
        ("echo edits", "matcher"),
        ("echo git", "if"),
        ("hooks/edit-guard.sh", "object matcher"),
        ("echo runs", "duplicate"),
        ("is this ok?", "unsupported"),
        ("(invalid entry)", "invalid"),
        ("echo later", None),
        ("genesis:deny", "pattern"),
    }
    assert [v["name"] for v in verdicts if v["would_run"]] == ["echo", "echo#4"]  # short names
    later = next(v for v in verdicts if v["command"] == "echo later")
    assert later["would_run"] and "background" in later["note"]
    invalid = next(v for v in verdicts if v["skip"] == "invalid")
    assert invalid["location"] == "hooks.PreToolUse[6].matcher"
    assert "invalid regular expression" in invalid["why"]
    edits = next(v for v in verdicts if v["command"] == "echo edits")
    assert edits["why"] == "matcher 'Edit|Write' does not match 'Bash'"

    text = cli(
        "hooks", "explain", "PreToolUse", "--payload", str(payload), "--project-dir", str(tmp_path), cwd=tmp_path
    )
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("PreToolUse (Bash): 2 of 9 configured hook(s) would run")
    assert "  SKIP echo#3: echo git\n" in text.stdout and "if: if 'Bash(git *)'" in text.stdout


def test_explain_reports_disabled_hooks(tmp_path: Path) -> None:
    write_settings(tmp_path, {"hooks": {"Stop": [cmd("echo stop")]}})
    write_settings(tmp_path, {"disableAllHooks": True}, name="settings.local.json")
    res = cli(
        "hooks",
        "explain",
        "Stop",
        "--project-dir",
        str(tmp_path),
        "--json",
        stdin=json.dumps({"session_id": "s"}),
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    [verdict] = json.loads(res.stdout)["hooks"]
    assert verdict["skip"] == "disabled" and "disableAllHooks" in verdict["why"]


def test_console_exporter_goes_to_stderr_and_keeps_json_stdout(tmp_path: Path) -> None:
    write_settings(tmp_path, {"hooks": {"PreToolUse": [cmd('echo "$TRACEPARENT" >&2')]}})
    res = cli(
        "hooks",
        "fire",
        "PreToolUse",
        "--project-dir",
        str(tmp_path),
        "--json",
        stdin=json.dumps(BASH),
        cwd=tmp_path,
        env={"OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "cli-test"},
    )
    assert res.returncode == 0, res.stderr
    outcome = json.loads(res.stdout)
    traceparent = outcome["hooks"][0]["stderr"].strip()
    assert traceparent.startswith("00-")
    assert '"name": "hooks.fire PreToolUse"' in res.stderr
    assert '"name": "echo"' in res.stderr  # the hook's short name
    assert traceparent.split("-")[2] in res.stderr  # the hook's span id was exported
    assert '"service.name": "cli-test"' in res.stderr


def test_unreachable_otlp_collector_does_not_fail_hooks(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    write_settings(tmp_path, {"hooks": {"Stop": [cmd("true")]}})
    t0 = time.monotonic()
    res = cli(
        "hooks",
        "fire",
        "Stop",
        "--project-dir",
        str(tmp_path),
        "--json",
        stdin="{}",
        cwd=tmp_path,
        env={
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_METRICS_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "1",
        },
    )
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["hooks"][0]["status"] == "ok"
    assert time.monotonic() - t0 < 30


def test_prune_deletes_old_events_and_dry_run_only_counts(tmp_path: Path) -> None:
    db, now = tmp_path / "hooks.db", time.time()
    outcome = EventOutcome.combine("Stop", [])
    with HookLedger(db) as ledger:
        for name, age in (("ancient", 90), ("old", 10), ("recent", 1)):  # days
            ledger.record_sync(
                "Stop",
                {"session_id": name},
                outcome,
                event_id=name,
                started_at=now - age * 86400,
                ended_at=now - age * 86400,
            )

    def sessions() -> list[str]:
        return [e["session_id"] for e in json.loads(cli("hooks", "log", "--db", str(db), "--json").stdout)]

    res = cli("hooks", "prune", "--db", str(db), "--older-than", "1w", "--dry-run")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("2 events older than ") and "would be deleted" in res.stdout
    assert sessions() == ["ancient", "old", "recent"]
    res = cli("hooks", "prune", "--db", str(db), "--older-than", "1w")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("deleted 2 events older than ") and str(db) in res.stdout
    assert sessions() == ["recent"]


def test_prune_errors_name_the_value_and_the_file(tmp_path: Path) -> None:
    res = cli("hooks", "prune", "--db", str(tmp_path / "none.db"), "--older-than", "30d")
    assert res.returncode == 1
    assert f"no hook ledger at {tmp_path / 'none.db'}" in res.stderr
    res = cli("hooks", "prune", "--db", str(tmp_path / "none.db"), "--older-than", "soon")
    assert res.returncode == 1
    assert "--older-than 'soon': expected an ISO time" in res.stderr
    assert "Traceback" not in res.stderr
    res = cli("hooks", "prune", "--db", str(tmp_path / "none.db"))
    assert res.returncode == 2 and "--older-than" in res.stderr


def test_explain_without_a_payload_says_so(tmp_path: Path) -> None:
    write_settings(tmp_path, {"hooks": {"PreToolUse": [cmd("echo hi", matcher="Bash")], "Stop": [cmd("true")]}})
    res = cli("hooks", "explain", "PreToolUse", "--project-dir", str(tmp_path), cwd=tmp_path)
    assert res.returncode == 1
    assert "hooks explain PreToolUse: no payload: pass --payload FILE or pipe the event's JSON on stdin" in res.stderr
    assert "does not match" not in res.stdout + res.stderr and "Traceback" not in res.stderr
    stop = cli("hooks", "explain", "Stop", "--project-dir", str(tmp_path), cwd=tmp_path)  # (no tool to match)
    assert stop.returncode == 0 and "1 of 1 configured hook(s) would run" in stop.stdout


@pytest.mark.parametrize(
    ("given", "hint"), [("PreTooluse", "'PreToolUse'"), ("pretooluse", "'PreToolUse'"), ("Stp", "'Stop'")]
)
def test_a_misspelt_event_is_a_warning_with_the_closest_name(recorded: Path, given: str, hint: str) -> None:
    for args in (("log", "--event", given), ("stats", "--event", given), ("explain", given, "--payload", "-")):
        res = cli("hooks", *args, "--project-dir", str(recorded), stdin="{}", cwd=recorded)
        assert res.returncode == 0, res.stderr
        assert f"warning: unknown event {given!r}: did you mean {hint}?" in res.stderr


def test_log_ran_and_blocked_and_trace_ids(tmp_path: Path) -> None:
    from opentelemetry.sdk.trace import TracerProvider

    write_settings(tmp_path, {"hooks": {"PreToolUse": [cmd("grep -q rm && exit 2 || true", matcher="Bash")]}})

    async def go() -> None:
        provider = TracerProvider()
        async with HookRunner.from_project(tmp_path, user_settings=None, ledger=True, tracer_provider=provider) as r:
            for tool, command in (("Bash", "ls"), ("Bash", "rm -rf /"), ("Read", "")):
                await r.fire("PreToolUse", {**BASH, "tool_name": tool, "tool_input": {"command": command}})
        provider.shutdown()

    anyio.run(go)
    base = ("hooks", "log", "--project-dir", str(tmp_path), "--json")
    assert [e["tool_name"] for e in json.loads(cli(*base, cwd=tmp_path).stdout)] == ["Bash", "Bash", "Read"]
    assert [e["hook_count"] for e in json.loads(cli(*base, "--ran", cwd=tmp_path).stdout)] == [1, 1]
    [blocked] = json.loads(cli(*base, "--blocked", cwd=tmp_path).stdout)
    assert blocked["blocked"] is True and len(blocked["trace_id"]) == 32
    text = cli("hooks", "log", "--project-dir", str(tmp_path), "--blocked", cwd=tmp_path).stdout
    assert f"    trace {blocked['trace_id']}" in text and "BLOCKED" in text


def test_log_finds_the_servers_ledger_in_its_data_dir_or_says_what_to_do(tmp_path: Path) -> None:
    data = tmp_path / "data"

    async def go() -> None:
        async with HookLedger(data / "hooks.db") as ledger, HookRunner(project_dir=tmp_path, ledger=ledger) as r:
            r.register("Stop", lambda payload: None, name="cb")
            await r.fire("Stop", {"session_id": "in-data-dir"})

    anyio.run(go)
    env = {"AGENT_SERVER_DATA_DIR": str(data)}
    res = cli("hooks", "log", "--json", cwd=tmp_path, env=env)  # as the server was started
    assert res.returncode == 0, res.stderr
    assert [e["session_id"] for e in json.loads(res.stdout)] == ["in-data-dir"]
    flag = cli("hooks", "log", "--json", "--data-dir", str(data), cwd=tmp_path)
    assert [e["session_id"] for e in json.loads(flag.stdout)] == ["in-data-dir"]
    missing = cli("hooks", "stats", cwd=tmp_path)  # no server ran here
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert f"no hook ledger at {tmp_path / '.agent-server' / 'hooks.db'}" in missing.stderr
    assert "AGENT_SERVER_DATA_DIR" in missing.stderr and "--ledger-url" in missing.stderr
