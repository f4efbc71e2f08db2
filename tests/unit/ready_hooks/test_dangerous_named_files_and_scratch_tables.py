"""dangerous_commands: a ``find -exec chmod`` that picks source files or scripts by name inside
the project changes those files one by one (like ``chmod 777 deploy.sh``), not every file below
the folder (``.env`` and keys included); dropping a table named as scratch (``tmp_…``,
``…_scratch``) on a database named as a development one, or in a database file of the project,
is routine clean-up (also when the same SQL rebuilds it); xargs fed by an in-project listing
through line filters (``ls -t … | tail -n +6 | xargs rm``) deletes part of that listing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    # find … -name '*.<code>' -exec chmod: the named files only.
    ("find bin -type f -iname '*.py' -exec chmod 0777 {} +", None),
    ("find tools -name '*.rb' -o -name '*.pl' -exec chmod a+rwx {} \\;", None),
    ("find . -maxdepth 2 -name '*.bash' -exec chmod ugo+w {} +", None),
    # … but not keys, env files, everything, folders, or outside the project.
    ("find . -name '*.key' -exec chmod 666 {} +", "deny"),
    ("find config -name 'secrets*' -exec chmod 777 {} \\;", "deny"),
    ("find . -type d -exec chmod 777 {} +", "deny"),
    ("find . ! -name '*.py' -exec chmod 777 {} +", "deny"),
    ("find . -name '*.sh' -o -name '*.p12' -exec chmod a+w {} +", "deny"),
    ("find ~/bin -name '*.sh' -exec chmod 777 {} +", "deny"),
    ("find /usr/local/bin -name '*.py' -exec chmod 777 {} +", "deny"),
    # Scratch tables on a development database.
    ("psql -h 127.0.0.1 -d crm_dev -c 'DROP TABLE IF EXISTS tmp_dedupe_0412'", None),
    ("mysql -e 'DROP TABLE orders_scratch' shop_development", None),
    ("psql postgresql://localhost:5432/billing_local -c 'DROP TABLE temp_invoices'", None),
    # … but a real table, a truncate, a database not named as development, or production.
    ("psql -d crm_dev -c 'DROP TABLE customers'", "deny"),
    ("psql -d crm_dev -c 'DROP TABLE tmp_a; DROP TABLE invoices'", "deny"),
    ("psql -d crm -c 'DROP TABLE tmp_a'", "deny"),
    ("psql -h db.prod.internal -d crm_dev -c 'DROP TABLE tmp_a'", "deny"),
    # Project database files; a rebuild of the scratch table in the same SQL.
    ("sqlite3 var/cache.sqlite3 'DROP TABLE IF EXISTS import_tmp'", None),
    ("duckdb lake/dev.duckdb -c 'DROP TABLE tmp_events; CREATE TABLE tmp_events AS SELECT 1 AS x'", None),
    ("psql -d crm_dev -c 'DROP TABLE IF EXISTS tmp_q; CREATE TABLE tmp_q AS SELECT id FROM leads'", None),
    ("psql -d crm_dev -c 'DROP TABLE IF EXISTS tmp_q; DELETE FROM leads'", "deny"),
    ("sqlite3 var/cache.sqlite3 'DROP TABLE accounts'", "deny"),
    ("duckdb /srv/shared/lake.duckdb -c 'DROP TABLE tmp_events'", "deny"),
]

# BigQuery tables named as scratch: one pipeline leftover, not a dataset or a real table.
BQ_CASES: list[tuple[str, str | None]] = [
    ("bq rm -f -t research:sandbox.tmp_features_0412", None),
    ("bq rm -t warehouse.orders_scratch", None),
    ("bq rm -f -t research:core.customers", "ask"),
    ("bq rm -f research:tmp", "ask"),
    ("bq rm -r -f research:sandbox", "deny"),
    ("bq rm -f -t prod-data:sandbox.tmp_x", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), BQ_CASES, ids=[c for c, _ in BQ_CASES])
def test_bigquery_scratch_tables(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.decision(kit.load("security/dangerous_commands.py").run(kit.bash(command, project))) == expected


XARGS_CASES: list[tuple[str, str | None]] = [
    ("ls -1t logs/*.log | tail -n +6 | xargs -r rm --", None),
    ("ls dumps/*.sql.gz | sort -r | tail -n +4 | xargs rm -f", None),
    ("ls -d runs/exp-* | grep -v keep | head -n -3 | xargs rm -rf", None),
    ("ls -d ../*/ | tail -2 | xargs rm -rf", "deny"),
    ("head -n 20 paths.txt | xargs rm -rf", "ask"),
    ("ls -d /opt/* | sort | head -2 | xargs rm -rf", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), XARGS_CASES, ids=[c for c, _ in XARGS_CASES])
def test_xargs_through_line_filters(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "" if expected is None else "rm")


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None) -> None:
    sql = any(client in command for client in ("psql", "mysql", "sqlite3", "duckdb"))
    rule = "" if expected is None else ("sql" if sql else "find-delete")
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule)
