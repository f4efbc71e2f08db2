"""dangerous_commands: SQL handed to a database client library inside an interpreter one-liner
is judged like ``psql -c`` (one SQL judgement): R's DBI (``dbExecute(con, "…")``), Julia's
LibPQ/DBInterface (``execute(conn, "…")``), PHP's ``mysqli_query($c, "…")``/``pg_query``, Perl
DBI's ``$dbh->do("…")``, SQLAlchemy's ``exec_driver_sql``, Python triple quotes, SQL held in a
variable and then executed, schema builders dropping a table (``knex.schema.dropTable``).
SELECTs, CREATE TABLE IF NOT EXISTS, a DELETE on a key, and scratch tables on a project database
file pass; a test database file kept with the tests is asked (settled warn)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None, str]] = [
    # R (DBI with RSQLite/RPostgres/RMariaDB)
    (
        'Rscript -e \'library(DBI); k <- dbConnect(RMariaDB::MariaDB(), dbname="lims"); dbExecute(k,'
        ' "DROP TABLE plates")\'',
        "deny",
        "sql",
    ),
    (
        "Rscript -e 'k <- DBI::dbConnect(RPostgres::Postgres()); DBI::dbSendStatement(k, \"TRUNCATE assays\")'",
        "deny",
        "sql",
    ),
    (
        "Rscript -e 'k <- DBI::dbConnect(RPostgres::Postgres()); DBI::dbGetQuery(k, \"SELECT id FROM"
        " assays LIMIT 3\")'",
        None,
        "",
    ),
    (
        'Rscript -e \'k <- DBI::dbConnect(RSQLite::SQLite(), "notes.sqlite"); DBI::dbExecute(k, "CREATE'
        " TABLE IF NOT EXISTS tags (id INTEGER)\")'",
        None,
        "",
    ),
    # Julia (LibPQ, SQLite.jl through DBInterface)
    (
        'julia -e \'using LibPQ; h = LibPQ.Connection("dbname=telemetry"); LibPQ.execute(h, "DELETE FROM readings")\'',
        "deny",
        "sql",
    ),
    (
        'julia -e \'using SQLite, DBInterface; h = SQLite.DB("/srv/shared/catalog.db");'
        ' DBInterface.execute(h, "DROP TABLE items")\'',
        "deny",
        "sql",
    ),
    (
        'julia -e \'using LibPQ; h = LibPQ.Connection("dbname=telemetry"); execute(h, "DELETE FROM'
        " readings WHERE id = 12\")'",
        None,
        "",
    ),
    (
        'julia -e \'using LibPQ; h = LibPQ.Connection("dbname=telemetry"); execute(h, "SELECT max(ts)'
        " FROM readings\")'",
        None,
        "",
    ),
    # PHP, Perl, Python, Node, Ruby
    (
        'php -r \'$h = mysqli_connect("127.0.0.1", "app", "", "blog"); mysqli_query($h, "TRUNCATE comments");\'',
        "deny",
        "sql",
    ),
    ('php -r \'$h = pg_connect("dbname=blog"); pg_query($h, "UPDATE posts SET draft = true");\'', "deny", "sql"),
    ('perl -MDBI -e \'$h = DBI->connect("dbi:mysql:blog"); $h->do("DELETE FROM sessions")\'', "deny", "sql"),
    ('perl -MDBI -e \'$h = DBI->connect("dbi:mysql:blog"); $h->do("DELETE FROM sessions WHERE id = 44")\'', None, ""),
    (
        'python3 -c \'import psycopg; h = psycopg.connect("dbname=blog"); h.execute("""DROP TABLE posts""")\'',
        "deny",
        "sql",
    ),
    (
        "python3 -c 'import sqlalchemy as s;"
        ' s.create_engine("mysql://db/blog").connect().exec_driver_sql("DROP DATABASE blog")\'',
        "deny",
        "sql",
    ),
    (
        'python3 -c \'import pymysql; h = pymysql.connect(db="blog").cursor(); stmt = "DELETE FROM'
        " tags\"; h.execute(stmt)'",
        "deny",
        "sql",
    ),
    ("python3 -c 'q = \"DELETE FROM tags\"; print(q)'", None, ""),
    (
        'node -e \'const sql = require("postgres")(); sql.unsafe("TRUNCATE audit").then(() => sql.end())\'',
        "deny",
        "sql",
    ),
    (
        'node -e \'require("knex")({client: "mysql2"}).schema.dropTable("invoices").then(() => process.exit())\'',
        "deny",
        "orm-wipe",
    ),
    (
        'node -e \'require("knex")({client:'
        ' "mysql2"}).schema.dropTableIfExists("scratch_invoices").then(() => process.exit())\'',
        None,
        "",
    ),
    ("elixir -e 'Ecto.Adapters.SQL.query!(MyApp.Repo, \"TRUNCATE audit_events\", [])'", "deny", "sql"),
    ("Rscript -e 'k <- DBI::dbConnect(RPostgres::Postgres()); DBI::dbRemoveTable(k, \"visits\")'", "deny", "orm-wipe"),
    ("Rscript -e 'k <- DBI::dbConnect(RPostgres::Postgres()); DBI::dbRemoveTable(k, \"visits_tmp\")'", None, ""),
    (
        'ruby -e \'require "sequel"; DB = Sequel.connect(ENV["DATABASE_URL"]); DB[:visits].truncate\'',
        "deny",
        "orm-wipe",
    ),
    (
        'ruby -e \'require "sequel"; DB = Sequel.connect(ENV["DATABASE_URL"]); DB[:visits].where(id: 8).delete\'',
        None,
        "",
    ),
    (
        'python manage.py shell -c \'from django.core import management; management.call_command("flush", '
        "interactive=False)'",
        "deny",
        "orm-wipe",
    ),
    # Scratch tables and database files in the project
    (
        'python3 -c \'import sqlite3; sqlite3.connect("var/cache.sqlite3").execute("DROP TABLE IF'
        " EXISTS import_tmp\")'",
        None,
        "",
    ),
    (
        'python3 -c \'import sqlite3; sqlite3.connect("var/cache.sqlite3").execute("DROP TABLE customers")\'',
        "deny",
        "sql",
    ),
    (
        'ruby -e \'require "sqlite3"; SQLite3::Database.new("spec/fixtures/shop.db").execute("DELETE FROM carts")\'',
        "ask",
        "sql",
    ),
]


@pytest.mark.parametrize(("command", "expected", "rule"), CASES, ids=[c for c, _, _ in CASES])
def test_client_library_sql(kit: Any, project: Path, command: str, expected: str | None, rule: str) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule)
