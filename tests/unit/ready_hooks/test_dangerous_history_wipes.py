"""dangerous_commands: destroying the record of what was run or who logged in — a shell or
REPL history in the home folder deleted, emptied or replaced by a link to /dev/null, a login or
auth log truncated — is denied; reading, counting or appending to them is not this rule's concern,
and files merely named like them inside the project pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("unset HISTFILE; rm -f ~/.zsh_history ~/.bash_history", "deny"),
    ("ln -snf /dev/null $HOME/.zsh_history", "deny"),
    (": > ~/.node_repl_history", "deny"),
    ("shred -zu ~/.local/share/fish/fish_history", "deny"),
    ("sudo truncate --size 0 /var/log/secure", "deny"),
    ("sudo sh -c 'cat /dev/null > /var/log/btmp'", "deny"),
    ("cp /dev/null ~/.sqlite_history", "deny"),
    ("wc -l ~/.bash_history", None),
    ("rm -f tests/fixtures/.bash_history", None),
    ("rm -rf build/history", None),
    ("truncate -s 0 logs/app.log", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "history-wipe")
