"""Remind the user about unfinished work when the agent stops.

Hook: completion_check
Event: Stop, SubagentStop
Matcher: *
Description: Adds an advisory systemMessage (shown to the user, never to the model) when
    the last assistant message mentions TODO/FIXME/unfinished/not implemented/still need
    to…, or when the working tree has uncommitted changes. Never blocks.
"""

from __future__ import annotations

import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402

NAME = "completion_check"
EVENTS = frozenset({"Stop", "SubagentStop"})
MATCHER = "*"
UNFINISHED = re.compile(
    r"(?i)\b(TODO|FIXME|XXX|unfinished|incomplete|not (?:yet )?implemented|still need(?:s)? to"
    r"|left to do|remaining (?:work|steps|tasks|items)|(?:I'll|I will) (?:finish|complete|do)"
    r" (?:this|it|that|the rest) later|stub(?:bed)? out|placeholder implementation)\b"
)


def unfinished_hint(message: str) -> str | None:
    """A short excerpt around the first 'unfinished work' phrase in ``message``."""
    m = UNFINISHED.search(message)
    if not m:
        return None
    start = max(0, m.start() - 40)
    excerpt = " ".join(message[start : m.end() + 40].split())
    return f"the last reply mentions unfinished work (“…{excerpt}…”)"


def run(payload: _common.Payload) -> _common.Result:
    """Return an advisory systemMessage, or None."""
    notes: list[str] = []
    message = payload.get("last_assistant_message")
    if isinstance(message, str):
        hint = unfinished_hint(message)
        if hint:
            notes.append(hint)
    dirty = _common.git_dirty(_common.project_dir(payload))
    if dirty:
        shown = ", ".join(line[3:] for line in dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        notes.append(f"{len(dirty)} uncommitted change(s) in the working tree ({shown})")
    if not notes:
        return None
    return {"systemMessage": f"[{NAME}] " + "; ".join(notes) + "."}


if __name__ == "__main__":
    _common.main(run)
