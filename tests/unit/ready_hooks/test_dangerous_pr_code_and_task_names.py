"""dangerous_commands: code run after checking out someone else's pull request in the same
command (its scripts, tests, install hooks) is asked, while reading the diff passes; a project
task whose name says it resets or tears down a deployed environment is asked like a database
reset task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("gh pr checkout 311 && pnpm install --frozen-lockfile", "ask"),
    ("gh pr checkout 311 && cargo test --workspace", "ask"),
    ("git fetch upstream pull/77/head:review-77 && git switch review-77 && pytest -q", "ask"),
    ("gh pr checkout 311 && ./gradlew check", "ask"),
    ("gh pr checkout 311 && python tools/gen_schema.py", "ask"),
    ("gh pr checkout 311 && git log --oneline main..HEAD", None),
    ("gh pr checkout 311 && gh pr diff 311 --name-only", None),
    ("gh pr checkout 311 && python -m venv .venv", None),
    ("git checkout -b fix/typo && make test", None),
    ("pnpm install && pnpm test", None),
    # Task names: a deployed environment torn down or reset.
    ("pnpm run infra:teardown", "ask"),
    ("yarn deploy:destroy", "ask"),
    ("npm run cluster-reset", "ask"),
    ("npm run deploy", None),
    ("make env-reset", None),
    ("npm run cache:clear", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected)
