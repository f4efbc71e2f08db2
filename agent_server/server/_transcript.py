"""JSONL transcripts: one line per message, shaped like Claude Code's
(``{"type": "user"|"assistant"|"system", "message": {"role", "content"}, ...}``)."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

__all__ = ["COMPACT_BOUNDARY", "Transcript", "load_messages"]

COMPACT_BOUNDARY = "compact_boundary"


class Transcript:
    """Appends messages to ``path`` (created with its parent folders)."""

    def __init__(self, path: Path, session_id: str, agent_id: str | None = None) -> None:
        self.path = path
        self.session_id = session_id
        self.agent_id = agent_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
        self._parent: str | None = None

    def append(self, message: dict[str, Any], *, cwd: str, subtype: str | None = None) -> None:
        """Write one message (``{"role", "content"}``) as a transcript line."""
        entry_id = str(uuid.uuid4())
        line: dict[str, Any] = {
            "type": message["role"],
            "message": {"role": message["role"], "content": message["content"]},
            "uuid": entry_id,
            "parentUuid": self._parent,
            "sessionId": self.session_id,
            "cwd": cwd,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z",
        }
        if subtype:
            line["subtype"] = subtype
        if self.agent_id:
            line["agentId"] = self.agent_id
            line["isSidechain"] = True
        self._parent = entry_id
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")


def load_messages(path: Path) -> list[dict[str, Any]]:
    """Read a transcript back into messages, starting after the last compaction."""
    messages: list[dict[str, Any]] = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or not isinstance(line.get("message"), dict):
            continue
        if line.get("subtype") == COMPACT_BOUNDARY:
            messages = []
            continue
        msg = line["message"]
        if msg.get("role") in ("user", "assistant", "system"):
            messages.append({"role": msg["role"], "content": msg.get("content", "")})
    return messages
