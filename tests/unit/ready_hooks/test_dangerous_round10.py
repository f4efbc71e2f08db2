"""dangerous_commands, round 10: a production target named inside an option value
(``--context ProdDbContext``, ``--database=live``) and forward migrations applied to production
(asked). Fresh commands, each with ordinary look-alikes; ``own`` is dangerous_commands' decision
alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, dangerous_commands' own decision)
CASES: dict[str, list[tuple[str, str | None]]] = {
    # A destructive database task whose target option names production is denied.
    "prod-option-value": [
        ("dotnet ef database drop -f --context LiveOrdersContext", "deny"),
        ("rake db:schema:load --environment=Production", "deny"),
        ("npx sequelize-cli db:drop --env PROD", "deny"),
        ("dotnet ef database drop --force --context ReportingDbContext", "ask"),
        ("dotnet ef database drop --force --context ProductCatalogContext", "ask"),
        ("npx sequelize-cli db:drop --env development", "ask"),
    ],
    # Forward migrations are routine, but against production they are confirmed.
    "forward-migration-production": [
        ("RAILS_ENV=production bin/rails db:migrate", "ask"),
        ("python manage.py migrate --settings=config.settings.production", "ask"),
        ("dotnet ef database update --context ProdAppContext", "ask"),
        ("npx knex migrate:latest --env production", "ask"),
        ("php artisan migrate", None),
        ("bin/rails db:migrate", None),
        ("python manage.py migrate --settings=config.settings.test", None),
        ("npx knex migrate:latest --env staging", None),
    ],
}


@pytest.mark.parametrize(
    ("command", "own"),
    [case for cases in CASES.values() for case in cases],
    ids=[f"{cls}-{i}" for cls, cases in CASES.items() for i in range(len(cases))],
)
def test_round10_cases(kit: Any, project: Path, command: str, own: str | None) -> None:
    """Each command gets the decision its class calls for from dangerous_commands."""
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["dangerous_commands"] == own, (command, verdict.reasons)


def test_migration_message_names_the_rule_and_the_way_out(kit: Any, project: Path) -> None:
    """The ask says production migrations and what to do instead."""
    verdict = kit.security(kit.bash("MIX_ENV=prod mix ecto.migrate", project))
    text = " ".join(verdict.reasons)
    assert "migrations to a production database" in text
    assert "staging" in text
