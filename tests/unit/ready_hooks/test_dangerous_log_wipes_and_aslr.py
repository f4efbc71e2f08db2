"""Security switched off by other routes than its tool: ASLR written off through
/proc/sys (``echo 0 > …``, ``… | tee``), and a ``find`` over the login/audit log folders that
empties, shreds or deletes the current logs (``-exec truncate -s0``, ``-delete``). Reading
those files, restoring the default, and age-based rotation clean-ups are not this rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("sudo bash -c 'printf 0 > /proc/sys/kernel/randomize_va_space'", "deny"),
    ("echo 1 | sudo tee /proc/sys/kernel/randomize_va_space >/dev/null", "deny"),
    ("sudo find /var/log -name 'secure*' -exec truncate --size=0 {} +", "deny"),
    ("sudo find /var/log/ -type f -exec shred -u {} \\;", "deny"),
    ("sudo find /var/log/audit -name '*.log' -delete", "deny"),
    ("cat /proc/sys/kernel/randomize_va_space", None),
    ("find /var/log -name 'wtmp*' -ls", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_security_switched_off(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule="security-off")


@pytest.mark.parametrize(
    "command",
    [
        "echo 2 | sudo tee /proc/sys/kernel/randomize_va_space",  # the default: randomisation on
        "sudo find /var/log/nginx -name '*.log' -exec truncate -s0 {} +",  # an application's logs
    ],
)
def test_not_security_off(kit: Any, project: Path, command: str) -> None:
    result = kit.load("security/dangerous_commands.py").run(kit.bash(command, project))
    assert result is None or "rule security-off" not in kit.reason(result)
