"""workspace_boundary: sqlite3 queries that only show a simulator's or SDK's database are reads.

``sqlite3 ~/Library/Developer/CoreSimulator/…/app.sqlite .tables`` inspects what an app wrote in
its simulator; without ``-readonly`` the SQL on the command line decides: dot commands that print
and SELECT queries change nothing. SQL that writes, dot commands that write files or run a shell,
and a session with no SQL on the line (statements from stdin) stay outside-project changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"
DB = "~/Library/Developer/CoreSimulator/Devices/3F2A/data/Containers/Data/Application/*/Library/db.sqlite3"


@pytest.mark.parametrize(
    "sql",
    [
        "'.schema notes'",
        "'.headers on' '.mode column' 'SELECT id, title FROM notes ORDER BY id DESC LIMIT 5;'",
        '"select count(*) from ZEVENT"',
        "'.indexes' '.dbinfo'",
        "'WITH recent AS (SELECT * FROM logs) SELECT count(*) FROM recent'",
    ],
)
def test_queries_that_only_show_pass(kit: Any, project: Path, sql: str) -> None:
    kit.expect_decision(HOOK, f"sqlite3 {DB} {sql}", project, None)


@pytest.mark.parametrize(
    "sql",
    [
        "'DELETE FROM notes'",
        "'UPDATE ZUSER SET ZNAME = NULL'",
        "'.output /home/eval/notes.txt' 'select * from notes'",
        "'.shell touch /tmp/x'",
        "'SELECT 1; DROP TABLE notes'",
        "",  # statements come from a terminal or stdin
        "< fix.sql",
    ],
)
def test_sql_that_writes_or_is_unseen_stays_refused(kit: Any, project: Path, sql: str) -> None:
    kit.expect_decision(HOOK, f"sqlite3 {DB} {sql}".strip(), project, "deny", "outside-project")


def test_only_tool_data_folders_are_read_this_way(kit: Any, project: Path) -> None:
    # A database elsewhere in the home folder is the user's own data, not a simulator's.
    kit.expect_decision(HOOK, "sqlite3 ~/notes.db '.tables'", project, "deny", "outside-project")
