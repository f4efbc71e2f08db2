"""The per-session event log (agent_server/server/_events.py): order, bounded history,
and gaps reported instead of skipped."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from agent_server.server._events import EventLog

pytestmark = pytest.mark.anyio


def fill(log: EventLog, n: int) -> None:
    for i in range(n):
        log.emit("message", i=i)


def test_history_is_everything_after_since_while_nothing_is_dropped() -> None:
    log = EventLog(maxlen=10)
    fill(log, 7)
    assert [e["seq"] for e in log.history(0)] == [1, 2, 3, 4, 5, 6, 7]
    assert [e["seq"] for e in log.history(5)] == [6, 7]
    assert log.history(7) == [] and log.history(99) == []
    assert log.dropped(0) is None


def test_events_beyond_maxlen_are_reported_as_dropped() -> None:
    log = EventLog(maxlen=5)
    fill(log, 12)  # keeps 8..12
    assert [e["seq"] for e in log.history(0)] == [8, 9, 10, 11, 12]
    assert [e["seq"] for e in log.history(9)] == [10, 11, 12]
    assert log.dropped(0) == (1, 7)
    assert log.dropped(5) == (6, 7)
    assert log.dropped(7) is None and log.dropped(10) is None
    assert log.dropped(-5) == (1, 7)


def test_a_negative_since_is_from_the_start_not_a_gap() -> None:
    log = EventLog(maxlen=5)
    assert log.dropped(-1) is None  # empty
    fill(log, 3)
    assert log.dropped(-1) is None
    assert [e["seq"] for e in log.history(-1)] == [1, 2, 3]


async def test_a_late_subscriber_is_told_what_it_missed_then_gets_the_rest() -> None:
    log = EventLog(maxlen=5)
    fill(log, 12)
    log.close()
    got = [e async for e in log.subscribe(3)]
    assert got[0]["type"] == "events_dropped"
    assert (got[0]["from_seq"], got[0]["to_seq"]) == (4, 7)
    assert [e["seq"] for e in got[1:]] == [8, 9, 10, 11, 12]


async def test_a_subscriber_that_falls_behind_gets_the_gap_in_place() -> None:
    log = EventLog(maxlen=4)
    fill(log, 2)
    got: list[dict[str, Any]] = []
    with anyio.fail_after(5):
        async for event in log.subscribe(0):
            got.append(event)
            if event.get("seq") == 2:
                fill(log, 10)  # 3..12 while it holds event 2: 3..8 fall out
                log.close()
    # The gap's seq is its last dropped event's: consumers comparing seqs keep working.
    assert [e["seq"] for e in got] == [1, 2, 8, 9, 10, 11, 12]
    assert (got[2]["type"], got[2]["from_seq"], got[2]["to_seq"]) == ("events_dropped", 3, 8)


async def test_events_emitted_while_a_subscriber_holds_one_reach_it_before_close() -> None:
    # The last events of a session (session_ended) are emitted, then the log closes, while
    # the SSE writer is still sending an earlier one: they must still be delivered.
    log = EventLog()
    log.emit("turn_ended")
    got: list[str] = []
    with anyio.fail_after(5):
        async for event in log.subscribe(0):
            got.append(event["type"])
            if event["type"] == "turn_ended":
                log.emit("session_ended")
                log.close()
    assert got == ["turn_ended", "session_ended"]


async def test_a_stopped_subscription_still_delivers_what_was_emitted_by_then() -> None:
    # Shutdown: session_ended is emitted, then the streams are told to stop, while the
    # SSE writer still holds an earlier event.
    log = EventLog()
    stop = anyio.Event()
    log.emit("turn_ended")
    got: list[str] = []
    with anyio.fail_after(5):
        async for event in log.subscribe(0, stop=stop):
            got.append(event["type"])
            if event["type"] == "turn_ended":
                log.emit("session_ended")
                stop.set()
    assert got == ["turn_ended", "session_ended"]
