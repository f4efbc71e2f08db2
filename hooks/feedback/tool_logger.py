"""Append one JSON line per tool call to the project's tool log.

Hook: tool_logger
Event: PreToolUse, PostToolUse, PostToolUseFailure
Matcher: *
Description: Appends a JSONL record (time, event, session, agent, tool, tool_use_id, the
    input with long strings clipped and obvious credentials redacted, duration, error, size
    of the response) to <project>/.claude/logs/tools.jsonl, rotating it to tools.jsonl.1 past
    10 MB. Advisory: never blocks, never fails the call (errors are swallowed).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "tool_logger"
EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
MATCHER = "*"
LOG_FILE = os.path.join(".claude", "logs", "tools.jsonl")
MAX_STRING = 2000
MAX_LOG_BYTES = 10 * 1024 * 1024
# Redact the obvious credential shapes so the log does not become a secret store.
_SECRETS = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{22,}"
    r"|\bsk-[A-Za-z0-9_\-]{20,}|\bxox[abposr]-[A-Za-z0-9\-]{10,}|\b[rs]k_live_[0-9A-Za-z]{20,}",
    re.S,
)


def clip(value: Any, limit: int = MAX_STRING) -> Any:
    """Copy of ``value`` with long strings shortened and credentials redacted."""
    if isinstance(value, str):
        value = _SECRETS.sub("[REDACTED]", value)
        return value if len(value) <= limit else value[:limit] + f"…[+{len(value) - limit} chars]"
    if isinstance(value, dict):
        return {str(k): clip(v, limit) for k, v in list(value.items())[:50]}
    if isinstance(value, list):
        return [clip(v, limit) for v in value[:50]]
    return value


def record(payload: _common.Payload) -> dict[str, Any]:
    """The log record for one payload."""
    entry: dict[str, Any] = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
        "event": payload.get("hook_event_name"),
        "session_id": payload.get("session_id"),
        "tool_name": payload.get("tool_name"),
        "tool_use_id": payload.get("tool_use_id"),
        "input": clip(payload.get("tool_input")),
    }
    for key in ("agent_id", "agent_type", "duration_ms", "is_interrupt"):
        if key in payload:
            entry[key] = payload[key]
    if "error" in payload:
        entry["error"] = clip(payload["error"], 500)
    if "tool_response" in payload:
        entry["response_chars"] = len(json.dumps(payload["tool_response"], default=str))
    return entry


def run(payload: _common.Payload) -> _common.Result:
    """Append the record; always returns None."""
    try:
        path = os.path.join(_common.project_dir(payload), LOG_FILE)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        line = json.dumps(record(payload), ensure_ascii=False, default=str) + "\n"
        try:
            if os.path.getsize(path) > MAX_LOG_BYTES:
                os.replace(path, path + ".1")
        except OSError:
            pass  # no log yet
        # One write on an O_APPEND descriptor: concurrent hooks do not interleave lines.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except Exception:  # advisory hook: logging must never disturb the session
        pass
    return None


if __name__ == "__main__":
    _common.main(run)
