"""dangerous_commands: the text of a test fixture, corpus or sample named as a payload fed to a
shell as commands (piped, through ``xargs sh -c '{}'``) is denied — such files hold dangerous
commands as data to be checked; other generated text piped into a shell is still asked, and a
fixture script run by name is ordinary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None, str]] = [
    ("sed -n 5p spec/fixtures/commands.txt | sh", "deny", "remote-code"),
    ("head -3 testdata/inputs.sh | zsh", "deny", "remote-code"),
    ("awk 'NR==2' samples/exploit_lines.txt | bash -s", "deny", "remote-code"),
    ("xargs -0 -I% sh -c '%' < __fixtures__/cmds.bin", "deny", "hidden-code"),
    ("jq -r '.cases[].cmd' test/fixtures/blocklist.json | xargs -I{} bash -c '{}'", "deny", "hidden-code"),
    ("grep '^make ' docs/cheatsheet.txt | sh", "ask", "remote-code"),
    ("xargs -I{} sh -c '{}' < ops/steps.txt", "ask", "hidden-code"),
    ("sh tests/fixtures/build_sample_repo.sh", None, ""),
    ("grep -c 'rm -rf' tests/fixtures/commands.txt", None, ""),
]


@pytest.mark.parametrize(("command", "expected", "rule"), CASES, ids=[c for c, _, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None, rule: str) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule)
