"""dangerous_commands: ``rm -rf`` of a pattern in the last component (``/usr/lib/python3*``,
``~/.config*``) whose every match is itself a folder the rm rule protects by name is denied like
that folder; patterns under scratch or project folders are judged as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# A pattern whose every match is a folder the rm rule protects by name.
GLOB_CASES: list[tuple[str, str | None]] = [
    ("sudo rm -rf /usr/share/python3*", "deny"),
    ("rm -rf /etc/apache2*", "deny"),
    ("sudo rm -rf /var/lib/mysql*", "deny"),
    ("rm -rf ~/.local*", "deny"),
    ("rm -rf /tmp/pytest-of-*", None),
    ("rm -rf dist/lib*", None),
]


@pytest.mark.parametrize(("command", "expected"), GLOB_CASES, ids=[c for c, _ in GLOB_CASES])
def test_globs_naming_protected_folders(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "rm")
