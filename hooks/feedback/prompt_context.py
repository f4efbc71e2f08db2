"""Add small, useful facts to each user prompt.

Hook: prompt_context
Event: UserPromptSubmit
Matcher: *
Description: Returns additionalContext with the current local time, the git branch and,
    for files the prompt mentions that exist inside the project (e.g. "fix src/app.py" or
    `README.md`), their project-relative path, size and line count. Paths outside the
    project are never looked at. Advisory, never blocks.
"""

from __future__ import annotations

import os
import re
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402

NAME = "prompt_context"
EVENTS = frozenset({"UserPromptSubmit"})
MATCHER = "*"
MAX_FILES = 10
# A word that looks like a path: has a slash, or ends in a file extension.
PATH_LIKE = re.compile(r"/|\.[A-Za-z0-9]{1,8}$")


def mentioned_files(prompt: str, project: str) -> list[str]:
    """Existing project files/folders the prompt mentions, as lines for the context."""
    root = os.path.realpath(project)
    lines: list[str] = []
    seen: set[str] = set()
    for raw in prompt.split():
        token = raw.strip(".,:;!?)(['\"`<>{}]")
        if not token or token in seen or "://" in token or not PATH_LIKE.search(token):
            continue
        seen.add(token)
        path = os.path.realpath(token if token.startswith("/") else os.path.join(root, token))
        if not (path == root or path.startswith(root + os.sep)) or not os.path.exists(path):
            continue  # outside the project or missing: never looked at
        rel = os.path.relpath(path, root)
        if os.path.isdir(path):
            lines.append(f"- {rel}/ (directory, {len(os.listdir(path))} entries)")
        else:
            size = os.path.getsize(path)
            text = _common.read_text(path, 2_000_000) if size < 2_000_000 else None
            count = f", {text.count(chr(10)) + 1} lines" if text and "\0" not in text else ""
            lines.append(f"- {rel} ({size} bytes{count})")
        if len(lines) >= MAX_FILES:
            break
    return lines


def run(payload: _common.Payload) -> _common.Result:
    """Return the context for UserPromptSubmit."""
    project = _common.project_dir(payload)
    parts = [f"Current time: {time.strftime('%Y-%m-%d %H:%M:%S %Z (%z)')}"]
    branch = _common.git_branch(project)
    if branch:
        parts.append(f"Git branch: {branch}")
    prompt = payload.get("prompt")
    if isinstance(prompt, str):
        files = mentioned_files(prompt, project)
        if files:
            parts.append("Files mentioned in the prompt:\n" + "\n".join(files))
    return _common.additional_context("UserPromptSubmit", "\n".join(parts))


if __name__ == "__main__":
    _common.main(run)
