"""dangerous_commands: a shell or interpreter running a file kept as a suspicious specimen
(a folder named malware, suspicious, quarantine, infected, untrusted), or code made from one,
is asked; reading, hashing or handing the specimen to the project's own tool passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("node malware/loader.js", "ask"),
    ("python3 quarantine/2026-11/stage2.py --c2 203.0.113.9", "ask"),
    ('sh -c "$(cat ir/infected/host7/cron.sh)"', "ask"),
    ("source untrusted/env.sh", "ask"),
    ('ruby -e "$(cat cases/suspicious/loader.rb)"', "ask"),
    ("python tools/scan.py samples/malware/x.bin", None),
    ("bash scripts/analyze.sh samples/suspicious/dropper.sh", None),
    ("sha256sum samples/malware/*", None),
    ("python -c \"print(open('samples/suspicious/obf.pl').read())\"", None),
    ("strings -n 8 quarantine/stage2.bin | head -50", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_specimens_run(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "opaque-exec")
