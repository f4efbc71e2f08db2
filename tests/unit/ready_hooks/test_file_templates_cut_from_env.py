"""secrets_guard: a template made from the real env file with every value cut shows nothing.

``cp .env .env.example && sed -i 's/=.*/=/' .env.example`` copies the file and, right after,
replaces each value by nothing in the copy: names reach the new file, values reach nothing. The
same holds for a names-only filter whose output goes into a file. A cut that can fail to run, a
backup of the copy, a backreference, or anything reading the copy first is still a read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/secrets_guard.py"


@pytest.mark.parametrize(
    "command",
    [
        "cp .env.local .env.template && sed -i 's/=.*$/=/' .env.template",
        "cp config/.env.production config/.env.sample; sed -i -e 's|=.*|=|' config/.env.sample",
        "cp .env .env.dist\nsed -Ei 's/=.+$/=<fill-me>/' .env.dist",
        "cp .env .env.example && sed -i '' 's#=.*#=#' .env.example",
        "sed 's/=.*/=/' .env.staging > .env.staging.example",
        "cut -d= -f1 .env > docs/env-names.txt",
        "grep -o '^[A-Z_]*=' .env.local > .env.example",
    ],
)
def test_values_cut_into_a_file_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # The cut runs only when the copy failed, in the background, or not at all.
        ("cp .env .env.example || sed -i 's/=.*/=/' .env.example", "deny"),
        ("cp .env .env.example & sed -i 's/=.*/=/' .env.example", "deny"),
        ("cp .env .env.example", "deny"),
        # sed -i.orig keeps a copy with the values; a backreference puts them back.
        ("cp .env .env.example && sed -i.orig 's/=.*/=/' .env.example", "deny"),
        ("cp .env .env.example && sed -i 's/=\\(.*\\)/=\\1/' .env.example", "deny"),
        # The copy is read, or only some values are cut, before or instead of the cut.
        ("cp .env .env.example && cat .env.example && sed -i 's/=.*/=/' .env.example", "deny"),
        ("cp .env .env.example && sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=/' .env.example", "deny"),
        # Printed, names only are still the settled `warn`.
        ("sed 's/=.*/=/' .env", "ask"),
    ],
)
def test_copies_that_keep_or_show_values_stay_reads(kit: Any, project: Path, command: str, expected: str) -> None:
    kit.expect_decision(HOOK, command, project, expected, "secret-file")
