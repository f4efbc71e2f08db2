"""The audit ledger: what it stores, durability under SIGKILL, group commits, failures."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_server.hooks import (
    EventOutcome,
    HookLedger,
    HookResult,
    HookRunner,
    HookStatus,
    LedgerError,
)
from agent_server.hooks._ledger import pending_folder
from agent_server.hooks._ledger_query import open_ledger, recent_events
from agent_server.hooks._ledger_store import SCHEMA_VERSION, LedgerStore, SQLiteStore
from tests.support import bash_payload, cmd, project

pytestmark = pytest.mark.anyio

PAYLOAD = bash_payload()


def rows(db: Path, sql: str) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


async def test_every_event_and_hook_result_is_recorded(tmp_path: Path) -> None:
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
    async with HookRunner.from_project(p, user_settings=None, ledger=True) as r:
        outcome = await r.fire("PreToolUse", PAYLOAD)
        assert r.ledger is not None
        db = r.ledger.path
    assert db == p / ".agent-server" / "hooks.db"  # ledger=True: the default path
    [event] = rows(db, "SELECT * FROM events")
    assert (event["event"], event["session_id"], event["tool_name"], event["tool_use_id"]) == (
        "PreToolUse",
        "sess-1",
        "Bash",
        "toolu_1",
    )
    assert event["blocked"] == 1 and event["decision"] == "deny"
    assert event["reason"] == outcome.reason == "[echo nope >&2; exit 2]: nope"
    assert event["hook_count"] == 3 and event["ended_at"] >= event["started_at"] > 0
    assert event["trace_id"] is None  # no tracer configured: nothing to link
    hooks = rows(db, "SELECT * FROM hook_runs ORDER BY position")
    assert [(h["name"], h["status"], h["exit_code"]) for h in hooks] == [
        ("echo", "ok", 0),
        ("echo#2", "blocked", 2),
        ("echo#3", "skipped", None),
    ]
    ok, blocker, skipped = hooks
    assert ok["stdout"] == "fine\n" and ok["source"] == ".claude/settings.json"
    assert ok["command"] == "echo fine" and ok["duration_ms"] > 0 and ok["timed_out"] == 0
    assert blocker["matcher"] == "Bash" and blocker["decision"] == "deny"
    assert blocker["stderr"] == "nope\n" and blocker["reason"] == outcome.reason
    assert skipped["error"] == "an earlier hook blocked"
    assert {h["event_ref"] for h in hooks} == {event["id"]}
    assert len(event["event_id"]) == 32
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


async def test_output_is_bounded(tmp_path: Path) -> None:
    script = "import sys; sys.stdout.write('o' * 20000 + 'END'); sys.stderr.write('START' + 'e' * 20000)"
    p = project(tmp_path, {"Stop": [cmd(f'{sys.executable} -c "{script}"')]})
    ledger = HookLedger(tmp_path / "ledger.db", output_limit=8192)
    async with HookRunner.from_project(p, user_settings=None, ledger=ledger) as r:
        outcome = await r.fire("Stop", {"session_id": "s"})
    ledger.close()
    assert len(outcome.hooks[0].stdout) == 20003  # the outcome itself is not cut
    [hook] = rows(ledger.path, "SELECT stdout, stderr, truncated FROM hook_runs")
    assert len(hook["stdout"].encode()) == 8192 and hook["stdout"].startswith("ooo")
    assert len(hook["stderr"].encode()) == 8192 and hook["stderr"].endswith("eee")
    assert hook["truncated"] == 1


async def test_timeouts_and_errors_are_recorded(tmp_path: Path) -> None:
    p = project(tmp_path, {"Stop": [cmd("exit 1"), cmd("sleep 30", timeout=0.3)]})
    db = tmp_path / "l.db"
    async with HookRunner.from_project(p, user_settings=None, ledger=db, kill_grace=0.2) as r:
        await r.fire("Stop", {"session_id": "s"})
    hooks = rows(db, "SELECT status, timed_out, error FROM hook_runs ORDER BY position")
    assert [(h["status"], h["timed_out"]) for h in hooks] == [("error", 0), ("timeout", 1)]
    assert hooks[1]["error"] == "timed out after 0.3s"


async def test_trace_and_span_ids_link_records_to_traces(tmp_path: Path) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    p = project(tmp_path, {"Stop": [cmd("true")]})
    db = tmp_path / "l.db"
    async with HookRunner.from_project(p, user_settings=None, ledger=db, tracer_provider=provider) as r:
        await r.fire("Stop", {"session_id": "s"})
    spans = {s.name: s for s in exporter.get_finished_spans()}
    [event] = rows(db, "SELECT trace_id, event_id FROM events")
    [hook] = rows(db, "SELECT span_id FROM hook_runs")
    assert event["trace_id"] == format(spans["hooks.fire Stop"].context.trace_id, "032x")
    assert hook["span_id"] == format(spans["true"].context.span_id, "016x")
    root_attrs = spans["hooks.fire Stop"].attributes
    assert root_attrs is not None and root_attrs["hook.event_id"] == event["event_id"]


async def test_concurrent_sessions_share_commits(tmp_path: Path) -> None:
    """Records go to the journal at once and into SQLite in batches (many per commit)."""
    db = tmp_path / "l.db"
    ledger = HookLedger(db)
    runner = HookRunner(project_dir=tmp_path, ledger=ledger)

    async def hook(payload: dict[str, Any]) -> None:
        await anyio.sleep(0)

    runner.register("PreToolUse", hook, name="cb")
    fires = 200
    async with runner:

        async def session(i: int) -> None:
            for _ in range(fires // 20):
                await runner.fire("PreToolUse", {**PAYLOAD, "session_id": f"s{i}"})

        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(session, i)
    ledger.flush()  # what is still in the journal, into SQLite now
    assert ledger.records == fires and 1 <= ledger.commits < fires / 4
    [[count, sessions]] = rows(db, "SELECT count(*), count(DISTINCT session_id) FROM events")
    assert (count, sessions) == (fires, 20)
    ledger.close()


CHILD = textwrap.dedent("""
    import sys, anyio
    from agent_server.hooks import HookLedger, HookRunner

    async def main(project: str, db: str) -> None:
        runner = HookRunner.from_project(project, user_settings=None, ledger=HookLedger(db))
        done = 0
        async with runner:
            async def session(i: int) -> None:
                nonlocal done
                while True:
                    await runner.fire("PreToolUse", {"session_id": f"s{i}", "tool_name": "Bash",
                                                     "tool_input": {"command": "ls"}})
                    done += 1  # fire() returned: its record must already be durable
                    sys.stdout.write(f"{done}\\n")
                    sys.stdout.flush()

            async with anyio.create_task_group() as tg:
                for i in range(8):
                    tg.start_soon(session, i)

    anyio.run(main, sys.argv[1], sys.argv[2])
""")


def wait_until_unlocked(path: Path, timeout: float) -> None:
    """Wait (bounded) until nobody holds ``path``'s flock."""
    deadline = time.monotonic() + timeout
    fd = os.open(path, os.O_RDONLY)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{path} still locked after {timeout}s") from None
                time.sleep(0.01)
    finally:
        os.close(fd)


def test_nothing_returned_is_lost_when_the_process_is_killed(tmp_path: Path) -> None:
    p = project(tmp_path, {"PreToolUse": [cmd("true")]})
    db = tmp_path / "ledger.db"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(p), str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert proc.stdout is not None
    reported = 0
    try:
        for line in proc.stdout:
            reported = max(reported, int(line))
            if reported >= 150:
                break  # mid-burst: 8 sessions are firing right now
        else:
            pytest.fail(f"child ended early: {proc.wait()} {proc.stderr.read() if proc.stderr else ''}")
        os.kill(proc.pid, signal.SIGKILL)
        # Lines the child wrote before it died are reported too.
        for line in proc.stdout:
            reported = max(reported, int(line))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    # The dead process's journal still holds what it had not moved into SQLite yet; the
    # next reader (here `hooks log`'s open_ledger) replays it, then removes it.
    journals = list(pending_folder(db).glob("*.jsonl"))
    assert journals
    # A hook process the child forked just before it died holds the journal's lock (its
    # fd, inherited) until that process execs; under load that can take a while. Until
    # then a reader copies the journal but leaves it in place (see replay_journals).
    for journal in journals:
        wait_until_unlocked(journal, timeout=10)
    open_ledger(db).close()
    assert not list(pending_folder(db).glob("*.jsonl"))
    [[count, distinct]] = rows(db, "SELECT count(*), count(DISTINCT event_id) FROM events")
    assert count == distinct >= reported >= 150
    [[hooks]] = rows(db, "SELECT count(*) FROM hook_runs")
    assert hooks == count  # an event and its hook results are one row


async def test_a_ledger_that_cannot_be_written_never_breaks_fire(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    p = project(tmp_path, {"Stop": [cmd("true")]})
    with caplog.at_level(logging.ERROR, logger="agent_server.hooks.ledger"):
        async with HookRunner.from_project(p, user_settings=None, ledger=blocker / "hooks.db") as r:
            outcome = await r.fire("Stop", {"session_id": "s"})
            again = await r.fire("Stop", {"session_id": "s"})
    assert outcome.hooks[0].status.value == "ok" and again.hooks[0].status.value == "ok"
    assert "could not be written" in caplog.text


async def test_a_newer_schema_is_refused(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "l.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version=99")
    conn.execute("CREATE TABLE events (x)")
    conn.execute("CREATE TABLE hook_runs (x)")
    conn.close()
    ledger = HookLedger(db)
    runner = HookRunner(project_dir=tmp_path, ledger=ledger)
    with caplog.at_level(logging.ERROR, logger="agent_server.hooks.ledger"):
        async with runner:
            await runner.fire("Stop", {"session_id": "s"})
        await ledger.aclose()  # the record stays in the journal, the reason logged
    assert "schema version 99 is newer" in caplog.text
    with pytest.raises(LedgerError, match="schema version 99 is newer"):
        open_ledger(db)


async def test_reader_sees_records_while_the_writer_is_open(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    async with HookLedger(db, synchronous="FULL") as ledger:
        runner = HookRunner(project_dir=tmp_path, ledger=ledger)
        async with runner:
            await runner.fire("Stop", {"session_id": "abc-123"})
            conn = open_ledger(db)  # read-only, concurrently with the open writer
            try:
                [event] = recent_events(conn, session="abc")  # a session-id prefix
            finally:
                conn.close()
    assert event["session_id"] == "abc-123" and event["hooks"] == []


def test_synchronous_must_be_normal_or_full(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        HookLedger(tmp_path / "l.db", synchronous="OFF")  # type: ignore[arg-type]


def sample_outcome() -> Any:
    from agent_server.hooks import EventOutcome, HookResult, HookStatus

    result = HookResult(
        name="h",
        command="h",
        source="s",
        event="Stop",
        status=HookStatus.OK,
        exit_code=0,
        stdout="out",
        duration_ms=1.0,
    )
    return EventOutcome.combine("Stop", [result])


async def test_a_cancelled_fire_still_leaves_its_record(tmp_path: Path) -> None:
    ledger = HookLedger(tmp_path / "l.db")
    with anyio.CancelScope() as scope:
        scope.cancel()  # cancelled before it can wait: the record was queued synchronously
        await ledger.record("Stop", {"session_id": "s"}, sample_outcome(), event_id="e1", started_at=1.0, ended_at=2.0)
    await ledger.aclose()  # commits whatever is queued
    assert [r["event_id"] for r in rows(ledger.path, "SELECT event_id FROM events")] == ["e1"]


def test_a_journal_removed_by_someone_else_is_reported_as_gone_not_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ledger = HookLedger(tmp_path / "l.db")
    assert ledger.record_sync(
        "Stop", {"session_id": "s"}, sample_outcome(), event_id="e1", started_at=1.0, ended_at=2.0
    )
    (journal,) = pending_folder(ledger.path).iterdir()
    journal.unlink()  # (a clean-up script, say): the open journal still has the record
    with caplog.at_level(logging.WARNING):
        ledger.close()
    assert "was already gone at close" in caplog.text and " kept" not in caplog.text
    assert [r["event_id"] for r in rows(ledger.path, "SELECT event_id FROM events")] == ["e1"]


def test_records_from_threads_and_successive_event_loops(tmp_path: Path) -> None:
    ledger = HookLedger(tmp_path / "l.db")

    async def one(event_id: str) -> bool:
        return await ledger.record(
            "Stop", {"session_id": "s"}, sample_outcome(), event_id=event_id, started_at=1.0, ended_at=2.0
        )

    assert anyio.run(one, "loop-1") and anyio.run(one, "loop-2")  # one ledger, two loops
    oks: list[bool] = []
    threads = [
        threading.Thread(
            target=lambda i=i: oks.append(
                ledger.record_sync("Stop", {}, sample_outcome(), event_id=f"t{i}", started_at=1.0, ended_at=2.0)
            )
        )
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ledger.close()
    assert oks == [True] * 4
    ids = sorted(r["event_id"] for r in rows(ledger.path, "SELECT event_id FROM events"))
    assert ids == ["loop-1", "loop-2", "t0", "t1", "t2", "t3"]


# The schema-1 layout (hook results in their own table), as early 0.1.0 development builds wrote it.
_SCHEMA_1 = """
CREATE TABLE events (id INTEGER PRIMARY KEY, event_id TEXT NOT NULL, event TEXT NOT NULL,
    session_id TEXT, tool_name TEXT, tool_use_id TEXT, started_at REAL NOT NULL,
    ended_at REAL NOT NULL, duration_ms REAL NOT NULL, blocked INTEGER NOT NULL, decision TEXT,
    reason TEXT, hook_count INTEGER NOT NULL, trace_id TEXT);
CREATE TABLE hook_runs (id INTEGER PRIMARY KEY, event_ref INTEGER NOT NULL REFERENCES events (id),
    position INTEGER NOT NULL, event TEXT NOT NULL, name TEXT NOT NULL, command TEXT NOT NULL,
    source TEXT NOT NULL, matcher TEXT, status TEXT NOT NULL, exit_code INTEGER, started_at REAL,
    duration_ms REAL NOT NULL, decision TEXT, reason TEXT, error TEXT, timed_out INTEGER NOT NULL,
    stdout TEXT NOT NULL, stderr TEXT NOT NULL, truncated INTEGER NOT NULL, span_id TEXT);
CREATE INDEX hook_runs_event ON hook_runs (event_ref);
INSERT INTO events VALUES (1, 'e1', 'PreToolUse', 's1', 'Bash', 't1', 10.0, 10.5, 500.0, 1,
    'deny', 'no', 2, NULL);
INSERT INTO hook_runs VALUES (1, 1, 1, 'PreToolUse', 'second', 'b', 'src', 'Bash', 'blocked', 2,
    10.1, 3.0, 'deny', 'no', NULL, 0, '', 'no', 0, NULL);
INSERT INTO hook_runs VALUES (2, 1, 0, 'PreToolUse', 'first', 'a', 'src', NULL, 'ok', 0,
    10.0, 1.5, NULL, NULL, NULL, 0, 'out', '', 1, 'abcd');
PRAGMA user_version=1;
"""


@pytest.mark.parametrize("version", [1, 2, 3, 4])
async def test_a_ledger_of_an_early_development_build_is_refused_with_what_to_do(
    tmp_path: Path, version: int, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript(_SCHEMA_1.replace("user_version=1", f"user_version={version}"))
    conn.close()
    expected = re.escape(f"{db}: ledger schema version {version} is from an early development build") + ".*delete"
    with pytest.raises(LedgerError, match=expected):
        open_ledger(db)  # the CLI's path
    # A server's path: the record waits in the journal, the reason is logged.
    with caplog.at_level(logging.ERROR, logger="agent_server.hooks.ledger"), HookLedger(db) as ledger:
        assert ledger.record_sync("Stop", {}, sample_outcome(), event_id="e2", started_at=1.0, ended_at=2.0)
    assert re.search(expected, caplog.text)
    assert [tuple(r) for r in rows(db, "SELECT event_id FROM events")] == [("e1",)]  # the file is untouched


def test_an_unreadable_ledger_is_reported_with_its_path(tmp_path: Path) -> None:
    db = tmp_path / "junk.db"
    db.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LedgerError, match=str(db)):
        open_ledger(db)


def test_a_torn_journal_line_is_skipped_and_the_rest_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A line cut short (disk full) or edited by hand costs that line only, with a warning
    naming the journal; the records around it still reach the database."""
    db = tmp_path / "l.db"
    outcome = EventOutcome.combine("Stop", [])
    with HookLedger(db) as ledger:
        for i in range(3):
            assert ledger.record_sync(
                "Stop", {"session_id": f"s{i}", "note": "é ✓"}, outcome, event_id=f"e{i}", started_at=1.0, ended_at=2.0
            )
        journal = ledger.journal
        assert journal is not None
        torn_at = journal.stat().st_size
        with open(journal, "ab") as f:  # what a short write leaves, then one more record
            f.write(b'{"event_id":"e9","event":"Stop","session_id":nul\n')
        assert ledger.record_sync("Stop", {"session_id": "s3"}, outcome, event_id="e3", started_at=1.0, ended_at=2.0)
        with caplog.at_level(logging.WARNING, logger="agent_server.hooks.ledger"):
            ledger.flush()
    assert f"{journal.name}: the line at byte {torn_at} is not a record, skipped" in caplog.text
    assert [
        tuple(r)
        for r in rows(
            db, "SELECT event_id, session_id, hooks, started_at, ended_at, duration_ms FROM events ORDER BY event_id"
        )
    ] == [(f"e{i}", f"s{i}", "[]", 1.0, 2.0, 1000.0) for i in range(4)]


async def test_text_survives_the_journal_exactly(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    p = project(tmp_path, {"Stop": [cmd("printf 'caf\\303\\251 \\342\\234\\223 \"q\"\\\\n' >&2; exit 2")]})
    async with HookRunner.from_project(p, user_settings=None, ledger=db) as r:
        t0 = time.time()
        outcome = await r.fire("Stop", {"session_id": "sé"})
        t1 = time.time()
    [[session, hooks, started, ended, ms]] = rows(
        db, "SELECT session_id, hooks, started_at, ended_at, duration_ms FROM events"
    )
    assert session == "sé"
    assert t0 <= started <= ended <= t1 + 1e-6
    assert ms == pytest.approx((ended - started) * 1000.0, abs=0.002)
    [hook] = json.loads(hooks)
    result = outcome.hooks[0]
    assert hook["started_at"] == pytest.approx(result.started_at, abs=1e-6)
    assert hook["duration_ms"] == pytest.approx(result.duration_ms, abs=0.001)
    assert hook["stderr"] == outcome.hooks[0].stderr and 'café ✓ "q"' in hook["stderr"]
    assert hook["reason"] == outcome.hooks[0].reason


async def test_async_hooks_results_replace_their_placeholders(tmp_path: Path) -> None:
    """An ``async: true`` hook's final result lands in its event's row once it finishes:
    both ordering modes, a fast and a slow one, and the rest of the row unchanged."""
    db = tmp_path / "l.db"
    for order in ("sequential", "parallel"):
        p = project(
            tmp_path,
            {
                "PostToolUse": [
                    cmd("echo sync"),
                    {"hooks": [{"type": "command", "command": "echo quick; exit 3", "async": True}]},
                    {"hooks": [{"type": "command", "command": "sleep 0.3; echo slow", "async": True}]},
                ]
            },
            hookRunner={"order": order},
        )
        async with HookRunner.from_project(p, user_settings=None, ledger=db) as r:
            outcome = await r.fire("PostToolUse", {"session_id": order})
            assert [h.status for h in outcome.hooks] == [HookStatus.OK, HookStatus.SKIPPED, HookStatus.SKIPPED]
            with anyio.fail_after(10):  # until both background hooks are in the ledger
                while True:
                    assert r.ledger is not None
                    r.ledger.flush()
                    [[hooks]] = rows(db, f"SELECT hooks FROM events WHERE session_id = '{order}'")
                    if all(h["status"] != "skipped" for h in json.loads(hooks)):
                        break
                    await anyio.sleep(0.05)
        sync, quick, slow = json.loads(hooks)
        assert (sync["status"], sync["stdout"]) == ("ok", "sync\n")
        assert (quick["status"], quick["exit_code"], quick["stdout"]) == ("error", 3, "quick\n")
        assert (slow["status"], slow["exit_code"], slow["stdout"]) == ("ok", 0, "slow\n")
        assert slow["duration_ms"] >= 250
        [[count]] = rows(db, f"SELECT hook_count FROM events WHERE session_id = '{order}'")
        assert count == 3


async def test_an_async_hook_cut_off_by_closing_is_recorded_as_such(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    p = project(tmp_path, {"Stop": [{"hooks": [{"type": "command", "command": "sleep 30", "async": True}]}]})
    async with HookRunner.from_project(p, user_settings=None, ledger=db, kill_grace=0.2) as r:
        await r.fire("Stop", {"session_id": "s"})
    [[hooks]] = rows(db, "SELECT hooks FROM events")
    [hook] = json.loads(hooks)
    assert hook["status"] == "error"
    assert "runner closed before the hook finished" in hook["error"]


def test_async_results_survive_the_fallback_parser(tmp_path: Path) -> None:
    """A batch with a torn line goes through Python's parser: results still apply."""
    db = tmp_path / "l.db"
    spec = HookRunner(project_dir=tmp_path).register("Stop", _noop, name="bg")
    placeholder = HookResult.for_spec(spec, HookStatus.SKIPPED, error="async: …")
    final = HookResult.for_spec(spec, HookStatus.OK)
    final.stdout, final.duration_ms, final.started_at = "done", 12.5, 1700000000.25
    with HookLedger(db) as ledger:
        ledger.record_sync(
            "Stop", {}, EventOutcome.combine("Stop", [placeholder]), event_id="e1", started_at=1.0, ended_at=2.0
        )
        journal = ledger.journal
        assert journal is not None
        with open(journal, "ab") as f:
            f.write(b'{"torn\n')
        assert anyio.run(ledger.record_result, "e1", 0, final)
        ledger.flush()
    [[hooks]] = rows(db, "SELECT hooks FROM events")
    [hook] = json.loads(hooks)
    assert (hook["status"], hook["stdout"], hook["duration_ms"], hook["started_at"]) == (
        "ok",
        "done",
        12.5,
        1700000000.25,
    )


async def _noop(payload: dict[str, Any]) -> None:
    return None


def test_a_locked_database_is_retried_until_the_records_get_in(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "l.db"
    outcome = EventOutcome.combine("Stop", [])
    ledger = HookLedger(db, busy_timeout=0.05)

    def record(event_id: str) -> None:
        assert ledger.record_sync("Stop", {}, outcome, event_id=event_id, started_at=1.0, ended_at=2.0)

    def wait_for(condition: Any) -> None:
        deadline = time.monotonic() + 10
        while not condition():
            assert time.monotonic() < deadline
            time.sleep(0.02)

    record("e0")
    ledger.flush()
    locker = sqlite3.connect(db, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    with caplog.at_level(logging.WARNING, logger="agent_server.hooks.ledger"):
        record("e1")  # durable in the journal all the same
        wait_for(lambda: "cannot move records into the database yet" in caplog.text)
        locker.execute("ROLLBACK")
        locker.close()
        # No new record, no close(): the writer retries on its own.
        wait_for(lambda: rows(db, "SELECT count(*) FROM events")[0][0] == 2)
        wait_for(lambda: "records reach the database again" in caplog.text)
    assert caplog.text.count("cannot move records into the database yet") == 1  # not spam
    t0 = time.monotonic()
    ledger.close()
    assert time.monotonic() - t0 < 1.0  # the writer's waits end at once


def test_close_ends_the_writers_wait_at_once(tmp_path: Path) -> None:
    """close() while the writer waits out its batch delay (made endless here) must end
    that wait and move the record in itself (CI once hung forever on such a wait)."""
    ledger = HookLedger(tmp_path / "l.db", batch_delay=3600)
    assert ledger.record_sync(
        "Stop", {"session_id": "s"}, sample_outcome(), event_id="e1", started_at=1.0, ended_at=2.0
    )
    closer = threading.Thread(target=ledger.close, daemon=True)
    closer.start()
    closer.join(10)
    assert not closer.is_alive(), "close() hangs: the writer thread never ended"
    assert ledger.commits == 1
    assert [r["event_id"] for r in rows(tmp_path / "l.db", "SELECT event_id FROM events")] == ["e1"]


def test_the_writer_moves_records_in_on_its_own(tmp_path: Path) -> None:
    """No flush() or close(): the writer thread commits a record after its batch delay."""
    ledger = HookLedger(tmp_path / "l.db", batch_delay=0.01)
    for event_id in ("e1", "e2"):
        assert ledger.record_sync(
            "Stop", {"session_id": "s"}, sample_outcome(), event_id=event_id, started_at=1.0, ended_at=2.0
        )
    deadline = time.monotonic() + 10
    while ledger.commits < 1 or _event_ids(ledger.path) != ["e1", "e2"]:
        assert time.monotonic() < deadline, "the writer never moved the records in"
        time.sleep(0.01)
    assert 1 <= ledger.commits <= 2
    ledger.close()


def test_concurrent_closes_end_together(tmp_path: Path) -> None:
    ledger = HookLedger(tmp_path / "l.db")
    for i in range(20):
        assert ledger.record_sync(
            "Stop", {"session_id": "s"}, sample_outcome(), event_id=f"e{i}", started_at=1.0, ended_at=2.0
        )
        closers = [threading.Thread(target=ledger.close, daemon=True) for _ in range(3)]
        for t in closers:
            t.start()
        for t in closers:
            t.join(10)
        assert not any(t.is_alive() for t in closers)
    [[count]] = rows(tmp_path / "l.db", "SELECT count(*) FROM events")
    assert count == 20


def _event_ids(db: Path) -> list[str]:
    return [r["event_id"] for r in rows(db, "SELECT event_id FROM events ORDER BY started_at")]


def test_prune_deletes_older_events_including_journaled_ones(tmp_path: Path) -> None:
    db, now = tmp_path / "l.db", time.time()
    with HookLedger(db) as ledger:
        for i, age in enumerate((30, 20, 2, 0.5)):  # days
            ledger.record_sync(
                "Stop",
                {"session_id": "s"},
                sample_outcome(),
                event_id=f"e{i}",
                started_at=now - age * 86400,
                ended_at=now - age * 86400 + 1,
            )
        ledger.flush()
        ledger.record_sync(
            "Stop", {}, sample_outcome(), event_id="journaled", started_at=now - 40 * 86400, ended_at=now - 40 * 86400
        )
        # Still only in the journal: prune moves it in first, so it cannot come back later.
        assert ledger.prune(now - 7 * 86400) == 3
        assert ledger.prune(now - 7 * 86400) == 0
    assert _event_ids(db) == ["e2", "e3"]


def test_prune_works_in_chunks(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    with HookLedger(db) as ledger:
        for i in range(5):
            ledger.record_sync("Stop", {}, sample_outcome(), event_id=f"e{i}", started_at=float(i), ended_at=float(i))
        assert ledger.prune(4.0, chunk=2) == 4
    assert _event_ids(db) == ["e4"]


def test_retention_deletes_old_events_on_the_writer_thread(tmp_path: Path) -> None:
    db, now = tmp_path / "l.db", time.time()
    with HookLedger(db) as ledger:  # an earlier run, without a retention
        ledger.record_sync(
            "Stop", {}, sample_outcome(), event_id="old", started_at=now - 3 * 86400, ended_at=now - 3 * 86400
        )
    ledger = HookLedger(db, retention=86400)
    try:
        ledger.record_sync("Stop", {}, sample_outcome(), event_id="new", started_at=now, ended_at=now)
        deadline = time.monotonic() + 10
        while _event_ids(db) != ["new"]:  # the writer thread prunes, then moves "new" in
            assert time.monotonic() < deadline, _event_ids(db)
            time.sleep(0.02)
    finally:
        ledger.close()


@pytest.mark.parametrize("value", [0, -1.0, float("nan")])
def test_retention_must_be_positive(tmp_path: Path, value: float) -> None:
    with pytest.raises(ValueError, match="retention must be a positive number of seconds"):
        HookLedger(tmp_path / "l.db", retention=value)


def test_a_record_racing_close_is_stored_or_refused_never_dropped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A record appended while close() moves the journal into the store either gets in or
    is refused (False, logged); it is never acknowledged and then lost with the journal."""
    db = tmp_path / "l.db"
    returned: dict[str, bool] = {}
    closing = threading.Event()

    class RacingStore(SQLiteStore):
        def write(self, events: Any, updates: Any) -> None:
            super().write(events, updates)
            if closing.is_set() and "late" not in returned:  # close() is ingesting
                returned["late"] = ledger.record_sync(
                    "Stop", {}, sample_outcome(), event_id="late", started_at=3.0, ended_at=4.0
                )

    ledger = HookLedger(db, store=lambda: RacingStore(db), batch_delay=3600)
    assert ledger.record_sync("Stop", {}, sample_outcome(), event_id="first", started_at=1.0, ended_at=2.0)
    closing.set()
    with caplog.at_level(logging.ERROR, logger="agent_server.hooks.ledger"):
        ledger.close()
    assert "late" in returned  # the race happened
    ledger.close()  # (a record accepted after the first close is in a new journal)
    assert ("late" in _event_ids(db)) == returned["late"]
    assert _event_ids(db)[0] == "first"
    if not returned["late"]:
        assert "the ledger is closed" in caplog.text


# -- races and failures found by a concurrency review ------------------------------

WAIT = 5.0  # bound on every wait below


def _rec(ledger: HookLedger, event_id: str, started_at: float = 1.0) -> bool:
    return ledger.record_sync(
        "Stop", {"session_id": "s"}, sample_outcome(), event_id=event_id, started_at=started_at, ended_at=started_at + 1
    )


@pytest.mark.parametrize("other", ["close", "flush"])
def test_first_records_racing_close_or_flush_never_hang(tmp_path: Path, other: str) -> None:
    """First records (each may start a journal and a writer) and close()/flush() at the
    same moment, many times over: nothing hangs, every accepted record is stored."""
    db = tmp_path / "l.db"
    ledger = HookLedger(db, batch_delay=0)
    accepted: list[str] = []
    for round_ in range(30):
        start = threading.Barrier(2)

        def recorder(i: int = round_, start: threading.Barrier = start) -> None:
            start.wait(WAIT)
            if _rec(ledger, f"e{i}"):
                accepted.append(f"e{i}")

        def closer(start: threading.Barrier = start) -> None:
            start.wait(WAIT)
            getattr(ledger, other)()

        threads = [threading.Thread(target=recorder, daemon=True), threading.Thread(target=closer, daemon=True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT + 5)
        assert not any(t.is_alive() for t in threads), "deadlock"
    ledger.close()
    assert sorted(_event_ids(db)) == sorted(accepted) and accepted


def test_a_writer_started_while_close_runs_is_joined(tmp_path: Path) -> None:
    """close() while the writer thread is still opening the store waits for it, then
    moves the record in: no thread or connection is left behind."""
    db = tmp_path / "l.db"
    in_open, release = threading.Event(), threading.Event()

    def open_store() -> LedgerStore:
        if threading.current_thread().name.startswith("hook-ledger"):
            in_open.set()
            release.wait(WAIT)
        return SQLiteStore(db)

    ledger = HookLedger(db, store=open_store, batch_delay=0)
    assert _rec(ledger, "e1", time.time())
    assert in_open.wait(WAIT)
    closer = threading.Thread(target=ledger.close, name="closer", daemon=True)
    closer.start()
    release.set()
    closer.join(WAIT)
    assert not closer.is_alive()
    assert not [t for t in threading.enumerate() if t.name == f"hook-ledger {db}"]
    assert ledger.journal is None
    assert _event_ids(db) == ["e1"]


def test_a_writer_that_cannot_start_leaves_no_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "l.db"
    ledger = HookLedger(db)
    real_start = threading.Thread.start
    failures = [RuntimeError("can't start new thread")]

    def start(thread: threading.Thread) -> None:
        if thread.name.startswith("hook-ledger") and failures:
            raise failures.pop()
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    assert _rec(ledger, "e0") is False  # refused, logged
    assert not pending_folder(db).exists() or not list(pending_folder(db).iterdir())
    assert _rec(ledger, "e1") is True  # the next one starts a writer
    ledger.close()
    assert _event_ids(db) == ["e1"]


def test_full_a_failed_fdatasync_does_not_shift_later_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "l.db"
    ledger = HookLedger(db, synchronous="FULL")
    assert _rec(ledger, "e0")
    real = os.fdatasync
    failures = [OSError(5, "Input/output error")]

    def fdatasync(fd: int) -> None:
        if failures:
            raise failures.pop()
        real(fd)

    monkeypatch.setattr(os, "fdatasync", fdatasync)
    assert _rec(ledger, "e1") is False  # not known to be on disk: reported as not written
    assert _rec(ledger, "e2") is True
    ledger.close()
    assert "e2" in _event_ids(db)  # (e1 is in the file, so it may be stored too)


@pytest.mark.parametrize("journal", ["live", "orphan"])
def test_a_pruned_event_does_not_come_back_from_a_journal(tmp_path: Path, journal: str) -> None:
    db, now = tmp_path / "l.db", time.time()
    ledger = HookLedger(db)
    assert _rec(ledger, "old", now - 40 * 86400)
    assert _rec(ledger, "new", now)
    assert ledger.prune(now - 7 * 86400) == 1
    if journal == "orphan":  # its owner died: the journal (with "old") stays behind
        assert ledger.journal is not None
        kept = ledger.journal.read_bytes()
        ledger.close()
        (pending_folder(db) / "999999-dead.jsonl").write_bytes(kept)
    open_ledger(db).close()  # `hooks log` replays journals
    assert _event_ids(db) == ["new"]
    assert not list(pending_folder(db).glob("999999-*"))  # an orphan is replayed, then gone
    ledger.close()
    assert _event_ids(db) == ["new"]


def test_full_commits_sync_the_wal_and_orphans_are_synced_before_removal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FULL: the journal may be emptied once its records are committed, so commits must
    reach the disk (synchronous=FULL; a checkpoint syncs nothing while a reader holds a
    snapshot). A replayed orphan journal goes only after the WAL is fsynced."""
    for mode, level in (("FULL", 2), ("NORMAL", 1)):
        store = SQLiteStore(tmp_path / f"{mode}.db", synchronous=mode)  # type: ignore[arg-type]
        assert store.rows("PRAGMA synchronous", [])[0]["synchronous"] == level
        store.close()
    db = tmp_path / "o.db"
    with HookLedger(db) as ledger:
        assert _rec(ledger, "e0")
    (pending_folder(db) / "999999-dead.jsonl").write_text(
        json.dumps(
            {"event_id": "e9", "event": "Stop", "started_at": 1, "ended_at": 2, "duration_ms": 1000}
            | {"blocked": False, "hook_count": 0, "hooks": []}
        )
        + "\n"
    )
    calls: list[str] = []
    real_fsync, real_unlink = os.fsync, os.unlink

    def fsync(fd: int) -> None:
        calls.append("fsync " + os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        calls.append(f"unlink {path}")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "unlink", unlink)
    open_ledger(db).close()
    assert sorted(_event_ids(db)) == ["e0", "e9"]
    removal = calls.index(f"unlink {pending_folder(db) / '999999-dead.jsonl'}")
    assert f"fsync {db}-wal" in calls[:removal]


async def test_full_a_cancelled_fire_still_leaves_its_record(tmp_path: Path) -> None:
    ledger = HookLedger(tmp_path / "l.db", synchronous="FULL")
    with anyio.CancelScope() as scope:
        scope.cancel()
        await ledger.record("Stop", {"session_id": "s"}, sample_outcome(), event_id="e1", started_at=1.0, ended_at=2.0)
    await ledger.aclose()
    assert _event_ids(ledger.path) == ["e1"]
