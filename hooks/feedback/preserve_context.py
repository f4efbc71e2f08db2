"""Save the essentials before the conversation is compacted.

Hook: preserve_context
Event: PreCompact
Matcher: *
Description: Writes <project>/.claude/compact-context.md with the time, trigger, git branch,
    uncommitted files, the last user prompts read from the transcript JSONL
    (transcript_path) and any custom compaction instructions. session_context re-injects
    the file when the session restarts with source "compact". Advisory, never blocks.
"""

from __future__ import annotations

import json
import os
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

NAME = "preserve_context"
EVENTS = frozenset({"PreCompact"})
MATCHER = "*"
OUT_FILE = os.path.join(".claude", "compact-context.md")
MAX_PROMPTS = 5
MAX_PROMPT_CHARS = 600
TAIL_BYTES = 2 * 1024 * 1024


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        # Only typed text blocks: tool_result blocks are tool output, not the user's words.
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def last_user_prompts(transcript_path: str, limit: int = MAX_PROMPTS) -> list[str]:
    """The last ``limit`` prompts the user typed, oldest first, from a transcript JSONL."""
    try:
        with open(transcript_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            data = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    prompts: list[str] = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # the first line of a tail may be cut
        if not isinstance(entry, dict) or entry.get("type") != "user" or entry.get("isMeta"):
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        text = _text_of(message.get("content")).strip()
        if not text or text.startswith(("<command-", "<local-command", "<system-reminder")):
            continue
        prompts.append(_common.truncate(text, MAX_PROMPT_CHARS, "prompt"))
    return prompts[-limit:]


def render(payload: _common.Payload, project: str) -> str:
    """The markdown document to save."""
    lines = [
        "# Context preserved before compaction",
        "",
        f"_Saved {time.strftime('%Y-%m-%d %H:%M:%S %Z')} (trigger: {payload.get('trigger') or 'unknown'})._",
        "",
    ]
    branch = _common.git_branch(project)
    lines.append("## Repository")
    if branch is None:
        lines.append("- Not a git repository.")
    else:
        dirty = _common.git_dirty(project) or []
        lines.append(f"- Branch: {branch}")
        lines.append(f"- Uncommitted changes: {len(dirty)}")
        lines.extend(f"  - `{d}`" for d in dirty[:20])
    transcript = payload.get("transcript_path")
    prompts = last_user_prompts(transcript) if isinstance(transcript, str) else []
    lines += ["", "## Recent user requests"]
    lines += [f"{i}. " + p.replace("\n", "\n   ") for i, p in enumerate(prompts, 1)] or ["- none"]
    instructions = payload.get("custom_instructions")
    if isinstance(instructions, str) and instructions.strip():
        lines += ["", "## Compaction instructions", instructions.strip()]
    return "\n".join(lines) + "\n"


def run(payload: _common.Payload) -> _common.Result:
    """Write the file; always returns None."""
    try:
        project = _common.project_dir(payload)
        path = os.path.join(project, OUT_FILE)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(render(payload, project))
        os.replace(tmp, path)  # atomic: a reader never sees half a file
    except OSError:
        pass  # advisory hook: never disturb compaction
    return None


if __name__ == "__main__":
    _common.main(run)
