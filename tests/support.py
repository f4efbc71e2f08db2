"""Helpers shared by tests (importable as ``tests.support``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


def load_payload(name: str, project_dir: Path | None = None) -> dict[str, Any]:
    """A recorded Claude Code payload, with its placeholders filled in."""
    text = (FIXTURES / "payloads" / f"{name}.json").read_text()
    project = str(project_dir or "/tmp")
    text = text.replace("<PROJECT_DIR>", project).replace("<TRANSCRIPT_PATH>", f"{project}/t.jsonl")
    data: dict[str, Any] = json.loads(text)
    return data
