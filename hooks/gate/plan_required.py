"""Require a written plan before files are edited.

Hook: plan_required
Event: PreToolUse
Matcher: Write|Edit|MultiEdit|NotebookEdit
Description: Denies Write/Edit/MultiEdit/NotebookEdit until a non-empty plan file exists in
    the project (PLAN.md or .claude/plan.md). Writing the plan file itself is always
    allowed. Bypass: create the marker file .skip-plan in the project directory.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402

NAME = "plan_required"
EVENTS = frozenset({"PreToolUse"})
MATCHER = "Write|Edit|MultiEdit|NotebookEdit"
PLAN_FILES = ("PLAN.md", os.path.join(".claude", "plan.md"))
MARKER = ".skip-plan"


def has_plan(project: str) -> bool:
    """Whether a plan file with some content exists."""
    for name in PLAN_FILES:
        text = _common.read_text(os.path.join(project, name), 4096)
        if text and text.strip():
            return True
    return False


def run(payload: _common.Payload) -> _common.Result:
    """Deny edits while there is no plan (unless bypassed)."""
    if payload.get("hook_event_name", "PreToolUse") != "PreToolUse":
        return None
    if payload.get("tool_name") not in _common.WRITE_TOOLS:
        return None
    project = _common.project_dir(payload)
    if _common.marker_exists(project, MARKER) or has_plan(project):
        return None
    tool_input = payload.get("tool_input")
    target = ""
    if isinstance(tool_input, dict):
        raw = tool_input.get("file_path") or tool_input.get("notebook_path")
        target = raw if isinstance(raw, str) else ""
    full = os.path.normpath(os.path.join(_common.session_cwd(payload), target))
    if any(full == os.path.normpath(os.path.join(project, name)) for name in PLAN_FILES):
        return None  # writing the plan is how the gate is satisfied
    return _common.deny(
        f"[{NAME}] No plan yet: before editing files, write the plan to PLAN.md (or "
        ".claude/plan.md) in the project: the goal, the files to change and how you will "
        f"test it. To skip this gate, create the marker file {MARKER} in the project "
        f"directory (`touch {MARKER}`)."
    )


if __name__ == "__main__":
    _common.main(run)
