"""Per-session event log: everything that happens is recorded in order and fanned out to
any number of subscribers (the SSE stream, tests, the chat page). Late subscribers get
the history first; events older than the log keeps are reported as dropped, never
skipped silently."""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

import anyio

__all__ = ["EventLog"]


class EventLog:
    """An ordered, bounded record of a session's events with live subscriptions.

    Each event is a JSON-able dict with ``seq`` (1, 2, ...), ``type``, ``time`` and the
    event's own fields.
    """

    def __init__(self, maxlen: int = 20_000) -> None:
        self._events: deque[dict[str, Any]] = deque(maxlen=maxlen)
        self._seq = 0
        self._changed = anyio.Event()
        self.closed = False

    @property
    def last_seq(self) -> int:
        """The sequence number of the newest event (0 when none)."""
        return self._seq

    def emit(self, type_: str, **data: Any) -> dict[str, Any]:
        """Record an event and wake subscribers. Returns the event."""
        self._seq += 1
        event = {"seq": self._seq, "type": type_, "time": round(time.time(), 6), **data}
        self._events.append(event)
        self._wake()
        return event

    def _wake(self) -> None:
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    def close(self) -> None:
        """No more events; subscriptions end after the history is delivered."""
        self.closed = True
        self._wake()

    def history(self, since: int = 0) -> list[dict[str, Any]]:
        """Events with ``seq > since`` that are still kept (see :meth:`dropped`)."""
        # Taken from the end: a follower asks for the last few of up to maxlen events.
        count = min(self._seq - max(since, 0), len(self._events))
        if count <= 0:
            return []
        newest_first = list(itertools.islice(reversed(self._events), count))
        newest_first.reverse()
        return newest_first

    def dropped(self, since: int = 0) -> tuple[int, int] | None:
        """``(first, last)`` seq of the events after ``since`` that the log no longer
        keeps (it holds the newest ``maxlen``), or None when none are missing."""
        since = max(since, 0)
        first_kept = self._events[0]["seq"] if self._events else self._seq + 1
        if since + 1 >= first_kept:
            return None
        return since + 1, first_kept - 1

    async def subscribe(
        self, since: int = 0, stop: anyio.Event | None = None, heartbeat: float | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Yield events with ``seq > since``, then live ones, until the log closes or
        ``stop`` is set (what was emitted by then is still delivered). With
        ``heartbeat``, a ``{"type": "ping"}`` (not recorded) is yielded after that many
        idle seconds. Events no longer kept (asked for too late, or missed by a
        subscriber that fell ``maxlen`` events behind) are announced in their place by
        ``{"type": "events_dropped", "from_seq", "to_seq"}`` (not recorded), whose
        ``seq`` is ``to_seq``: everything up to it is accounted for."""
        last = since
        final = False
        while True:
            changed = self._changed
            gap = self.dropped(last)
            if gap is not None:
                last = gap[1]
                yield {
                    "seq": last,
                    "type": "events_dropped",
                    "time": round(time.time(), 6),
                    "from_seq": gap[0],
                    "to_seq": gap[1],
                }
            for event in self.history(last):
                last = event["seq"]
                yield event
            if final:
                return
            if stop is not None and stop.is_set():
                final = True  # one more pass: what came while the consumer held an event
                continue
            if last < self._seq:
                continue  # emitted while the consumer held an event (session_ended...)
            if self.closed:
                return
            woke = await self._wait(changed, stop, heartbeat)
            if not woke:
                yield {"type": "ping", "time": round(time.time(), 6)}

    @staticmethod
    async def _wait(changed: anyio.Event, stop: anyio.Event | None, timeout: float | None) -> bool:
        """Wait for ``changed`` (or ``stop``); False if ``timeout`` passed first."""
        with anyio.move_on_after(timeout) as scope:
            if stop is None:
                await changed.wait()
            else:
                async with anyio.create_task_group() as tg:

                    async def _watch_stop() -> None:
                        await stop.wait()
                        tg.cancel_scope.cancel()

                    tg.start_soon(_watch_stop)
                    await changed.wait()
                    tg.cancel_scope.cancel()
        return not scope.cancelled_caught

    async def wait_for(self, predicate: Any, timeout: float) -> dict[str, Any]:
        """The first event (history included) for which ``predicate(event)`` is true.

        Raises ``TimeoutError`` after ``timeout`` seconds.
        """
        with anyio.fail_after(timeout):
            async for event in self.subscribe(0):
                if predicate(event):
                    return event
        raise LookupError("event log closed before a matching event")
