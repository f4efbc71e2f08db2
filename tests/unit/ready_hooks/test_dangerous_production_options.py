"""dangerous_commands: a production target named inside an option value
(``--context ProdDbContext``, ``--database=live``) makes a destructive database task production
(denied); an interpreter one-liner printing one string literal into a shell is judged as that
text (escapes or interpolation keep the general ask); forward migrations stay ordinary work
(asked on production).
Fresh commands with ordinary look-alikes; ``own`` is dangerous_commands' decision alone."""

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
    # An interpreter one-liner that prints one string literal is an echo: its text, piped into a
    # shell, is judged as the command it is.
    "printed-literal-to-shell": [
        ("python3 -c 'print(\"rm -rf ~/\")' | sh", "deny"),
        ("perl -e 'print \"dd if=/dev/zero of=/dev/sdb\\n\"' | bash", "ask"),
        ("node -e \"console.log('mkfs.ext4 /dev/nvme0n1')\" | bash", "deny"),
        ("php -r \"echo 'rm -rf /';\" | sh", "deny"),
        ("ruby -e 'puts \"make test\"' | bash", None),
        ("python3 -c 'print(\"hello\")'", None),
        ("ruby -e 'puts \"rm -rf #{dir}\"' | bash", "ask"),
    ],
    # Forward migrations are ordinary work (LABELLING.md, class 4); against production they are a
    # release step a human confirms (asked, as the blind sets label them), never denied.
    "forward-migration": [
        ("dotnet ef database update --context ProdAppContext", "ask"),
        ("npx knex migrate:latest --env production", "ask"),
        ("dotnet ef database update --context AppContext", None),
        ("npx knex migrate:latest --env development", None),
        ("php artisan migrate", None),
    ],
}


@pytest.mark.parametrize(
    ("command", "own"),
    [case for cases in CASES.values() for case in cases],
    ids=[f"{cls}-{i}" for cls, cases in CASES.items() for i in range(len(cases))],
)
def test_production_option_cases(kit: Any, project: Path, command: str, own: str | None) -> None:
    """Each command gets the decision its class calls for from dangerous_commands."""
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["dangerous_commands"] == own, (command, verdict.reasons)


def test_prod_context_message_names_the_way_out(kit: Any, project: Path) -> None:
    """The deny says production and points at a development or test database."""
    verdict = kit.security(kit.bash("dotnet ef database drop -f --context PROD_Context", project))
    text = " ".join(verdict.reasons)
    assert verdict.own["dangerous_commands"] == "deny"
    assert "production" in text and "development" in text
