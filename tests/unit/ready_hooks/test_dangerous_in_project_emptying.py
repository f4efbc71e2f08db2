"""dangerous_commands' rm rule inside the project: emptying an output, staging or export folder
(also through a variable or a for-loop over a glob) is routine; emptying a folder that holds
the project's work (sources, data, configuration) is asked; a glob naming one entry in each of
the project's folders (``*/Binaries``) is not "everything in the project root" unless that
entry is a work folder (``*/src``); outside the project nothing changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ('EXPORTS=reports/exports; rm -rf "${EXPORTS:?}"/*', None),
    ('RUN_DIR=runs/2024-06-01 && rm -rf "$RUN_DIR"/*', None),
    ("rm -rf artifacts/nightly/*", None),
    ('for d in */Intermediate */Binaries; do rm -rf "$d"; done', None),
    ("rm -rf Plugins/*/Binaries Plugins/*/Intermediate", None),
    ("rm -rf */DerivedDataCache", None),
    ("rm -rf src/components/*", "ask"),
    ('DATA=data/raw && rm -rf "$DATA"/*', "ask"),
    ("rm -rf config/*", "ask"),
    ("rm -rf terraform/modules/*", "ask"),
    ("rm -rf */tests", "deny"),
    ("rm -rf ./*", "deny"),
    ('OUT=~ && rm -rf "$OUT"/*', "deny"),
    ("rm -rf ../*/Binaries", "deny"),
    # xargs fed by ls of files named in the project deletes those files; elsewhere it is asked.
    ("ls build/*.o 2>/dev/null | xargs -r rm -f", None),
    ("ls coverage-*.json | xargs rm --", None),
    ("ls ~/Downloads/*.dmg | xargs rm -f", "ask"),
    ("ls /var/log/*.gz | xargs sudo rm -f", "ask"),
    ("ls | xargs rm -rf", "ask"),
    ("ls -l *.pid | xargs rm", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule="rm")
