"""workspace_boundary on recursive deletes through a variable set to an unset variable and a
slash: ``D="$UNSET/"`` is ``/`` when UNSET is empty, so ``rm -rf "$D"*`` empties the root. A
variable guarded with ``${X:?}``, set from a folder the command names, or deleted below a named
subfolder is judged as before. Commands are written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, workspace_boundary's own decision)
ROOT_PRONE: list[tuple[str, str | None]] = [
    ('TARGET="${OUTPUT_BASE}/"; rm -rf "$TARGET"', "deny"),
    ("export STAGE=$PREFIX/ && sudo rm -rf ${STAGE}*", "deny"),
    ('CLEAN="$ARTIFACT_HOME/" && rm -fr -- "$CLEAN".*', "deny"),
    # Guarded, set in the command, or pointing below a named folder.
    ('TARGET="${OUTPUT_BASE:?}/"; rm -rf "$TARGET"*', None),
    ('OUTPUT_BASE=out; TARGET="$OUTPUT_BASE/"; rm -rf "$TARGET"*', None),
    ('TARGET="$OUTPUT_BASE/cache"; rm -rf "$TARGET"', None),
    ('OUT=dist/ && rm -rf "$OUT"*', None),
    ('TARGET="$OUTPUT_BASE/"; rm -f "$TARGET"report.txt', None),
    ('TARGET="$OUTPUT_BASE/"; ls -la "$TARGET"', None),
]


@pytest.mark.parametrize(("command", "expected"), ROOT_PRONE)
def test_deletes_through_root_prone_variables(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["workspace_boundary"] == expected, (command, verdict.reasons)
    if expected == "deny":
        assert "rule unset-root" in " ".join(verdict.reasons)
