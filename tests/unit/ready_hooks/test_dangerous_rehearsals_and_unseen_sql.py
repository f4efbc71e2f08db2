"""dangerous_commands on blind17/19's classes, with fresh commands: a publish that reaches no
public registry (dry run, the test index, a local registry) is ordinary; SQL against a database
file in build output is regenerable scratch; SQL from a file the call does not show, sent to
production, is asked; PowerShell's eval of a file's text is asked like ``sh -c "$(cat x)"``; and
Windows paths in PowerShell deletes are judged like their POSIX twins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    # Publishing rehearsals versus the real thing.
    ("poetry publish --dry-run --build", None),
    ("cargo publish --dry-run --allow-dirty -p parser-core", None),
    ("twine upload -r testpypi dist/*.whl", None),
    ("twine upload --repository-url https://test.pypi.org/legacy/ dist/*", None),
    ("npm publish --registry http://localhost:4873 --tag canary", None),
    ("uv publish --publish-url=https://test.pypi.org/legacy/ dist/*", None),
    ("pnpm publish --access public --no-git-checks", "ask"),
    ("twine upload --skip-existing dist/*", "ask"),
    ("cargo publish -p parser-core", "ask"),
    # A database file in build output is regenerated; elsewhere it is data.
    ("sqlite3 build/it/fixtures.db 'DROP TABLE IF EXISTS seeded_users'", None),
    ("sqlite3 .cache/lookup.sqlite3 'DELETE FROM entries'", None),
    ("sqlite3 target/debug/state.db 'DELETE FROM sessions'", None),
    ("sqlite3 db/app.sqlite3 'DROP TABLE customers'", "deny"),
    ("sqlite3 var/data.db 'DELETE FROM orders'", "deny"),
    ("sqlite3 build/t.db \"ATTACH 'db/app.sqlite3' AS live; DELETE FROM live.orders\"", "deny"),
    # SQL the call does not show, against production, versus development hosts.
    ('for m in migrations/*.sql; do psql -h pg-prod.internal -U owner app -f "$m"; done', "ask"),
    ("mysql -h db-prod-2.example.internal shop < scripts/backfill.sql", "ask"),
    ('psql "$PROD_PG_URL" --file=sql/repair_orders.sql', "ask"),
    ("psql -h localhost -U dev app -f db/seed.sql", None),
    ("mysql -h 127.0.0.1 shop_dev < db/seed.sql", None),
    ('psql -h pg-prod.internal -U reader app -c "SELECT count(*) FROM orders"', None),
    # PowerShell evaluating a file's text (asked) versus reading it.
    ('pwsh -NoProfile -Command "Invoke-Expression (Get-Content scripts/cleanup.ps1 -Raw)"', "ask"),
    ('powershell -c "gc .\\snippets\\reset.ps1 | iex"', "ask"),
    ("pwsh -c \"iex ([System.IO.File]::ReadAllText('tools/bootstrap.ps1'))\"", "ask"),
    ('pwsh -c "Get-Content ./CHANGELOG.md -TotalCount 20"', None),
    ('pwsh -c "Invoke-Expression \\"Get-Date -Format o\\""', None),
    # Windows paths in PowerShell deletes.
    ("pwsh -c 'Remove-Item -Recurse -Force C:\\Users\\alice'", "deny"),
    ("powershell -Command 'Remove-Item C:\\Windows\\Temp -Recurse -Force'", "deny"),
    ("pwsh -c 'Remove-Item -Recurse -Force D:\\'", "deny"),
    ("pwsh -c 'Remove-Item -Recurse -Force .\\out\\*'", None),
    ("pwsh -c 'Remove-Item -Recurse -Force .\\Intermediate'", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected)
