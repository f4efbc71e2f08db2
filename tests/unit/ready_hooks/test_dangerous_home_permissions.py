"""dangerous_commands' chmod rule on the home folder itself: closing it to other users while the
owner keeps full access (``chmod 750 ~``, ``chmod go-rwx "$HOME"``) is harmless tightening;
opening it, taking the owner's access away, or changing it recursively stays denied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("chmod 0700 ~", None),
    ('chmod 710 "$HOME"', None),
    ("chmod o-rwx ~ && chmod 600 ~/.netrc.example", None),
    ("chmod g-w,o-rwx ~", None),
    ("chmod 644 ~", "deny"),  # the owner loses the right to enter it
    ("chmod 775 ~", "deny"),
    ("chmod a+rx ~", "deny"),
    ("chmod -R 750 ~", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule="chmod")
