"""secrets_guard on the shell history: printing it asks (it often holds typed tokens); filtering it
for exports or assignments of secret names digs out the values themselves and is refused. A
count, or a search for a command, stays asked. Commands are written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, secrets_guard's own decision)
HISTORY: list[tuple[str, str | None]] = [
    ("history | grep -iE 'export +[A-Z_]*(SECRET|KEY)'", "deny"),
    ("history 2000 | rg -i 'db_password='", "deny"),
    ("fc -ln 1 | egrep 'export .*_TOKEN'", "deny"),
    ("history | grep -i 'set .*apikey'", "deny"),
    ("history | grep -i secret", "ask"),
    ("history | grep 'docker compose'", "ask"),
    ("history | grep -c 'export .*_TOKEN'", "ask"),
    ("history | grep -n 'export NODE_OPTIONS='", "ask"),
    ("history 20", "ask"),
    ("history -c", None),
]


@pytest.mark.parametrize(("command", "expected"), HISTORY)
def test_history_searched_for_secret_values(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)
    if expected == "deny":
        assert any("shell history" in r and "Ask the user" in r for r in verdict.reasons), verdict.reasons
