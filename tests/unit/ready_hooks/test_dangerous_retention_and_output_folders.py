"""dangerous_commands on clean-ups of generated output inside the project, as other writers word
them: a retention clean-up (``find DIR -name PATTERN -mtime +N -delete``: only files older than
an age, never source code or hand-written documents, never the project root or a hidden folder);
MSBuild's ``bin``/``obj`` pair found by name; code generators' folders (``generated/``,
``__generated__``) cleaned with ``git clean``; permissions opened on build output. Their twins
outside the project, on the root, on sources or with a setuid bit are still stopped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None, str]] = [
    # Retention clean-ups of old run output inside the project.
    ("find exports/daily -name '*.csv' -mtime +14 -delete", None, "find-delete"),
    ("find logs/archive -name '*.gz' -mtime +90 -delete", None, "find-delete"),
    ("find out/traces -name '*.zip' -ctime +3 -exec rm -f {} \\;", None, "find-delete"),
    ("find runs -name 'events.out.tfevents.*' -mtime +30 -delete", None, "find-delete"),
    ("find qa/screens -type f -name 'shot-*.png' -mmin +600 -exec rm {} +", None, "find-delete"),
    ("find src -mtime +30 -delete", "ask", "find-delete"),  # no name: everything old in the sources
    ("find src -name '*.py' -mtime +30 -delete", "ask", "find-delete"),
    ("find notebooks -mtime +30 -name '*.ipynb' -delete", "ask", "find-delete"),
    ("find paper -name '*.tex' -mtime +9 -delete", "ask", "find-delete"),
    ("find . -name '*.json' -mtime +7 -delete", "ask", "find-delete"),  # the whole project
    ("find .git -name '*.pack' -mtime +3 -delete", "ask", "find-delete"),
    ("find exports -name '*.csv' -mtime -2 -delete", "ask", "find-delete"),  # the recent ones
    ("find ~/exports -name '*.csv' -mtime +7 -delete", "deny", "find-delete"),
    # MSBuild's output pair, found by name.
    ("find . -type d \\( -name obj -o -name bin \\) -prune -exec rm -rf {} +", None, "find-delete"),
    ("find src -iname BIN -o -iname OBJ | xargs rm -rf", None, "rm"),
    ("find . -type d -name bin -exec rm -rf {} +", "ask", "find-delete"),  # bin/ alone: scripts?
    ("find /srv/app -type d \\( -name bin -o -name obj \\) -exec rm -rf {} +", "deny", "find-delete"),
    # Code generators' folders.
    ("git clean -fdx -- web/src/__generated__", None, "git"),
    ("git clean -fd api/generated build", None, "git"),
    ("git clean -fd -- src", "ask", "git"),
    ("git clean -fd -- gen/ proto/", "ask", "git"),
    # Permissions opened on build output.
    ("chmod -R a+rwX dist/", None, "chmod"),
    ("chmod -R 0777 target/release", None, "chmod"),
    ("chmod -R o+w out/site", None, "chmod"),
    ("chmod -R 777 .", "deny", "chmod"),
    ("chmod -R 777 src", "deny", "chmod"),
    ("chmod -R 777 build/..", "deny", "chmod"),
]


@pytest.mark.parametrize(("command", "expected", "rule"), CASES, ids=[c for c, _, _ in CASES])
def test_output_clean_ups(kit: Any, project: Path, command: str, expected: str | None, rule: str) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule=rule)


def test_setuid_on_build_output_is_still_stopped(kit: Any, project: Path) -> None:
    hook = kit.load("security/dangerous_commands.py")
    assert kit.decision(hook.run(kit.bash("chmod -R 4777 build", project))) is not None


# SQL a pipeline stage reads from a file the call does not show, fed to a database client: the
# same unseen SQL as ``client < file`` — asked against production, routine on a local database.
PIPED_SQL: list[tuple[str, str | None]] = [
    ("cat sql/patch_0913.sql | psql -h pg-main.prod.example.com -U svc billing", "ask"),
    ("zcat dumps/orders.sql.gz | mysql -h mysql.production.corp -u app shop", "ask"),
    ('gunzip -c nightly.sql.gz | psql "$PROD_DATABASE_URL"', "ask"),
    ("cat fixtures/seed.sql | psql -h localhost -U dev dev_db", None),
    ("pv big_seed.sql | mysql -u root app_dev", None),
    ("echo 'SELECT count(*) FROM invoices' | psql -h pg-main.prod.example.com billing", None),
]


@pytest.mark.parametrize(("command", "expected"), PIPED_SQL, ids=[c for c, _ in PIPED_SQL])
def test_sql_piped_from_a_file(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule="sql")
