"""Give a new session (or subagent) a short picture of the repository.

Hook: session_context
Event: SessionStart, SubagentStart
Matcher: *
Description: Returns additionalContext with the git branch, uncommitted files, the 5 most
    recent commits and the open TODO/FIXME count with the first few locations. When the
    session restarts after compaction (source "compact") it also re-injects
    .claude/compact-context.md written by preserve_context. Subagents get the branch and
    dirty files only. Works without git (says so). Advisory, never blocks.
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

NAME = "session_context"
EVENTS = frozenset({"SessionStart", "SubagentStart"})
MATCHER = "*"
COMPACT_FILE = os.path.join(".claude", "compact-context.md")
MAX_CONTEXT = 6000
MAX_LISTED = 15
TODO_RE = r"\b(TODO|FIXME|XXX|HACK)\b"
SKIP_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        "dist",
        "build",
        "target",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)


def _listed(lines: list[str], limit: int = MAX_LISTED) -> str:
    shown = "\n".join(f"  {line}" for line in lines[:limit])
    return shown + (f"\n  … and {len(lines) - limit} more" if len(lines) > limit else "")


def todos(project: str, in_git: bool) -> list[str]:
    """``path:line: text`` for TODO/FIXME/XXX/HACK comments (bounded)."""
    if in_git:
        out = _common.git(
            ["grep", "-n", "-I", "-E", TODO_RE, "--", ".", ":(exclude)*.lock", ":(exclude)*lock.json"],
            project,
            timeout=4,
        )
        lines = (out or "").splitlines()
    else:
        lines = _walk_todos(project)
    return [line if len(line) <= 140 else line[:137] + "..." for line in lines]


def _walk_todos(project: str, max_files: int = 500) -> list[str]:
    pattern = re.compile(TODO_RE)
    found: list[str] = []
    seen = 0
    for root, dirs, files in os.walk(project):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        for name in files:
            seen += 1
            if seen > max_files:
                return found
            path = os.path.join(root, name)
            text = _common.read_text(path, 100_000) if os.path.getsize(path) < 500_000 else None
            if text is None or "\0" in text:
                continue
            rel = os.path.relpath(path, project)
            found.extend(
                f"{rel}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)
            )
    return found


def summary(project: str, full: bool = True) -> str:
    """The repository summary text."""
    branch = _common.git_branch(project)
    if branch is None:
        parts = ["Not a git repository (or git is unavailable)."]
    else:
        parts = [f"Git branch: {branch}"]
        dirty = _common.git_dirty(project) or []
        parts.append(f"Uncommitted changes ({len(dirty)}):\n{_listed(dirty)}" if dirty else "Working tree clean.")
        if full:
            log = _common.git(["log", "-5", "--pretty=format:%h %s (%cr, %an)"], project)
            if log and log.strip():
                parts.append("Recent commits:\n" + _listed(log.strip().splitlines()))
    if full:
        found = todos(project, branch is not None)
        if found:
            parts.append(f"Open TODO/FIXME markers: {len(found)}\n" + _listed(found, 10))
        else:
            parts.append("Open TODO/FIXME markers: 0")
    return "\n".join(parts)


def run(payload: _common.Payload) -> _common.Result:
    """Return the context for SessionStart/SubagentStart."""
    event = payload.get("hook_event_name")
    event = event if event in EVENTS else "SessionStart"
    project = _common.project_dir(payload)
    text = summary(project, full=event == "SessionStart")
    if event == "SessionStart" and payload.get("source") == "compact":
        saved = _common.read_text(os.path.join(project, COMPACT_FILE), MAX_CONTEXT)
        if saved:
            text += "\n\nContext saved before compaction (.claude/compact-context.md):\n" + saved
    return _common.additional_context(str(event), _common.truncate(text, MAX_CONTEXT, "context"))


if __name__ == "__main__":
    _common.main(run)
