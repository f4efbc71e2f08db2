"""Rule family: data. SQL through database clients, hosted databases' own shells (``turso db
shell``, ``pscale shell``, ``wrangler d1 execute``, ``heroku pg:psql``, ``fly postgres connect``),
framework consoles and inline code (:func:`sql_findings`: DROP/TRUNCATE, DELETE/UPDATE without a
real WHERE, row-level security switched off, writes granted to PUBLIC, accounts without a
password or administrators with a guessable one); Redis wipes; hosted data without undo (buckets,
managed databases, a hosting platform's whole app/site/worker/KV store — a preview's only asked —,
database branches, live-mode Stripe deletes, InfluxDB buckets, backup repositories and snapshots
picked by a computed list; retention policies pass); ORM table wipes; framework tasks that reset
a database or roll migrations back (asked; denied against production, also through ``pnpm exec``,
``python -m``, ``go run``)."""

from __future__ import annotations

import os
import re

import _shell
from _common import Finding
from _shell import Cmd, LazyPattern, Word, lazy_compile

from ._infra import PREVIEW_NAME, option_values, production, production_host
from ._paths import is_match_all

SQL_CLIENTS: dict[str, tuple[frozenset[str], frozenset[str], bool]] = {
    # client: (options holding SQL, options taking a value, SQL in positionals after the db)
    "psql": (
        frozenset({"c", "command"}),
        frozenset(
            {
                "-c",
                "--command",
                "-h",
                "--host",
                "-p",
                "--port",
                "-U",
                "--username",
                "-d",
                "--dbname",
                "-f",
                "--file",
                "-o",
                "--output",
                "-v",
                "--set",
                "--variable",
                "-P",
                "--pset",
                "-T",
                "-F",
                "-R",
                "-L",
                "--log-file",
            }
        ),
        False,
    ),
    "mysql": (
        frozenset({"e", "execute"}),
        frozenset(
            {"-e", "--execute", "-h", "--host", "-P", "--port", "-u", "--user", "-D", "--database", "-S", "--socket"}
        ),
        False,
    ),
    "sqlite3": (frozenset({"cmd"}), frozenset({"-cmd", "-separator", "-nullvalue", "-init", "-newline"}), True),
    "duckdb": (frozenset({"c", "cmd"}), frozenset({"-c", "-cmd", "-separator", "-init"}), True),
    "sqlcmd": (frozenset({"Q", "q"}), frozenset({"-Q", "-q", "-S", "-U", "-P", "-d", "-i", "-o"}), False),
    "clickhouse-client": (
        frozenset({"q", "query"}),
        frozenset({"-q", "--query", "-h", "--host", "-u", "--user", "-d", "--database"}),
        False,
    ),
    "usql": (frozenset({"c", "command"}), frozenset({"-c", "--command", "-f", "--file"}), True),
    "cqlsh": (frozenset({"e", "execute"}), frozenset({"-e", "--execute", "-u", "-p", "-k", "-f", "--file"}), False),
}
SQL_ALIASES = {
    "mariadb": "mysql",
    "sqlite": "sqlite3",
    "litecli": "sqlite3",
    "mycli": "mysql",
    "pgcli": "psql",
    "clickhouse": "clickhouse-client",
    "cockroach": "mysql",
    "snowsql": "clickhouse-client",
    # Oracle, Hadoop/Spark, Trino/Presto and Impala shells: the same SQL, sent with -e / -q / stdin.
    "sqlplus": "psql",
    "sql": "psql",  # Oracle SQLcl
    "spark-sql": "mysql",
    "hive": "mysql",
    "beeline": "mysql",
    "trino": "mysql",
    "presto": "mysql",
    "impala-shell": "clickhouse-client",
    "mssql-cli": "sqlcmd",
}


_COMPARISON = lazy_compile(r"^(?P<a>[\w.'\"`]+)\s*(?P<op>=|==|<>|!=|<=|>=|<|>|\bIS\b|\bLIKE\b)\s*(?P<b>[\w.'\"`%]+)$")
# A surrogate key (id, t.id, rowid): auto-numbered from 1, never NULL.
_KEY_COLUMN = lazy_compile(r"^(?:[\w\"`]+\.)?[\"`]?(?P<c>ID|\w+_ID|PK|ROWID|_ROWID_|OID)[\"`]?$")


def _is_key(column: str, table: str) -> bool:
    """Whether ``column`` is the table's own surrogate key: ``id``, ``rowid``, or ``order_id`` in
    ``orders`` (a foreign key such as ``user_id`` in ``carts`` may be NULL, so it is a condition)."""
    m = _KEY_COLUMN.match(column)
    if not m:
        return False
    name = m.group("c")
    if not name.endswith("_ID") or name == "_ROWID_":
        return True
    base = table.split(".")[-1].strip('"`[]')
    singular = {base, base.removesuffix("S"), base.removesuffix("ES"), base.removesuffix("IES") + "Y"}
    return bool(base) and name[:-3] in singular


_NULL_TEST = lazy_compile(r"^(?P<a>[\w.\"`]+)\s+IS\s+(?P<not>NOT\s+)?NULL$")
_SELF_SUBQUERY = lazy_compile(
    r"^(?P<a>[\w.\"`]+)\s+IN\s*\(\s*SELECT\s+(?P<b>[\w.\"`]+)\s+FROM\s+(?P<t>[\w.\"`]+)\s*\)?$"
)


def _term_always_true(term: str, table: str) -> bool:
    """One disjunct of a WHERE that every row satisfies: ``1=1``, ``x = x``, ``id > 0`` on a
    surrogate key, ``id IN (SELECT id FROM <same table>)``."""
    if term in ("TRUE", "1", "NOT FALSE", "NOT 0") or re.fullmatch(r"[\w.\"`]+\s+LIKE\s+'%%?'", term):
        return True
    sub = _SELF_SUBQUERY.match(term)
    if sub and sub.group("a").split(".")[-1] == sub.group("b").split(".")[-1] and sub.group("t") == table:
        return True
    null = _NULL_TEST.match(term)
    if null and null.group("not") and _is_key(null.group("a"), table):
        return True  # id IS NOT NULL: a key is never NULL
    m = _COMPARISON.match(term)
    if not m:
        return False
    a, op, b = m.group("a"), m.group("op"), m.group("b")
    if a == b and op in ("=", "==", "<=", ">=", "IS", "LIKE"):
        return True
    if a.isdigit() and b.isdigit():
        x, y = int(a), int(b)
        truth = {"<>": x != y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}
        return truth.get(op, x == y)
    # id > 0, id >= 1, id <> 0, 0 < id: every auto-numbered key passes.
    if _is_key(a, table) and b in ("0", "1"):
        return (op in (">", "<>", "!=") and b == "0") or (op == ">=" and b in ("0", "1"))
    if _is_key(b, table) and a in ("0", "1"):
        return (op in ("<", "<>", "!=") and a == "0") or (op == "<=" and a in ("0", "1"))
    return False


def _always_true(condition: str, table: str = "") -> bool:
    """Whether an upper-cased SQL condition holds for every row (``1=1``, ``TRUE``,
    ``'A'='A'``, ``x = x``, ``… OR 1=1``, ``TRUE AND 'a'='a'``, ``x IS NULL OR x IS NOT NULL``, ``id > 0``);
    string literals arrive reduced to their word characters."""
    terms: list[str] = []
    for disjunct in re.split(r"\bOR\b", condition):
        term = disjunct.strip()
        while term.startswith("(") and term.endswith(")"):
            term = term[1:-1].strip()
        terms.append(term.strip("() "))
    if any(_term_always_true(term, table) for term in terms):
        return True
    # 'a'='a' AND 1: a conjunction of terms that all hold for every row holds for every row.
    if any(
        " AND " in f" {term} "
        and all(_term_always_true(part.strip("() "), table) for part in re.split(r"\bAND\b", term))
        for term in terms
    ):
        return True
    # x IS NULL OR x IS NOT NULL: the two halves cover every row.
    nulls = [m for m in map(_NULL_TEST.match, terms) if m]
    return any(
        m.group("a") == n.group("a") and bool(m.group("not")) != bool(n.group("not")) for m in nulls for n in nulls
    )


def _real_where(stmt: str) -> bool:
    """Whether a DELETE/UPDATE statement has a WHERE that can exclude rows."""
    table = re.search(r"\b(?:DELETE\s+FROM|UPDATE|ALTER\s+TABLE)\s+(?P<t>[\w.\"`]+)", stmt)
    m = re.search(r"\bWHERE\b(?P<c>.*?)(?:\bORDER\s+BY\b|\bLIMIT\b|\bRETURNING\b|$)", stmt)
    return m is not None and not _always_true(m.group("c").strip(), table.group("t") if table else "")


# Quoted text and comments, scanned left to right so that '--' inside a string stays data and a
# quote inside a comment does not open a string.
_SQL_TOKENS = lazy_compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.S)


def _sql_skeleton(sql: str) -> str:
    """``sql`` with comments removed and quoted text made safe to split on ``;``: string literals
    keep only their word characters (``'%'`` is kept: LIKE '%' matches every row)."""

    def token(m: re.Match[str]) -> str:
        text = m.group()
        if text.startswith(("--", "/*")):
            return " "
        if text.startswith('"'):
            return '"' + re.sub(r"\W", "_", text[1:-1]) + '"'
        if text in ("'%'", "'%%'"):
            return text
        # Equal literals stay equal ('a' = 'a'), an empty one stays empty (PASSWORD '').
        return "'" + re.sub(r"\W", "_", text[1:-1]) + "'"

    return _SQL_TOKENS.sub(token, sql)


# Password hashes of the server's accounts: MySQL's mysql.user, PostgreSQL's pg_shadow/pg_authid.
_HASH_READ = lazy_compile(
    r"^SELECT\b(?=.*\b(?:AUTHENTICATION_STRING|PASSWORD|PASSWD|ROLPASSWORD)\b|\s+\*).*\bFROM\s+"
    r"(?:MYSQL\.USER|PG_SHADOW|PG_AUTHID|PG_CATALOG\.PG_(?:SHADOW|AUTHID)|SYS\.SQL_LOGINS)\b"
)
# A database account left without a password: anyone who reaches the server logs in as it.
_NO_PASSWORD = lazy_compile(
    r"\b(?:ALTER|CREATE)\s+(?:USER|ROLE)\b.*\b(?:PASSWORD\s+NULL|PASSWORD\s+''|IDENTIFIED\s+(?:\w+\s+)*BY\s+'')"
    r"|\bSET\s+PASSWORD\b[^=]*=\s*(?:''|PASSWORD\s*\(\s*''\s*\)|NULL)"
)


# Row-level security switched off, a role allowed to bypass it, or write rights granted to every
# role (PUBLIC). (Grants to Supabase's ``anon`` role are its defaults: row-level policies guard them.)
_ACCESS_OPENED = lazy_compile(
    r"\bALTER\s+TABLE\b.*\b(?:DISABLE|NO\s+FORCE)\s+ROW\s+LEVEL\s+SECURITY\b"
    r"|\bALTER\s+(?:USER|ROLE)\b.*\bBYPASSRLS\b"
    r"|\bGRANT\s+(?:ALL|[\w\s,]*\b(?:INSERT|UPDATE|DELETE|TRUNCATE)\b).*\bTO\s+(?:[\w\s,]*\b)?PUBLIC\b"
)
# Rights over the whole server: MySQL's global level (ON *.*), PostgreSQL's SUPERUSER and the
# roles that read server files or run programs, SQL Server's sysadmin.
_GLOBAL_GRANT = lazy_compile(r"\bGRANT\s+(?P<what>.*?)\s+ON\s+\*\.\*\s+TO\b(?P<to>.*)")
_ADMIN_RIGHTS = lazy_compile(r"\bALL\b|\bSUPER\b|\bGRANT\s+OPTION\b|\bFILE\b|\bSHUTDOWN\b|\bCREATE\s+USER\b")
_SUPERUSER = lazy_compile(
    r"\b(?:ALTER|CREATE)\s+(?:USER|ROLE)\b.*\bSUPERUSER\b"
    r"|\bGRANT\s+(?:[\w\s,]*\b)?(?:PG_EXECUTE_SERVER_PROGRAM|PG_READ_SERVER_FILES|PG_WRITE_SERVER_FILES|RDS_SUPERUSER)\b"
    r"|\bSERVER\s+ROLE\s+SYSADMIN\s+ADD\s+MEMBER\b|\bSP_ADDSRVROLEMEMBER\b.*\bSYSADMIN\b"
)


def _server_rights(stmt: str) -> str | None:
    """ "deny" for rights over every database given to an account that may log in from any
    host (``GRANT ALL ON *.* TO 'app'@'%'``), "ask" for administrator rights given to one account
    (``GRANT ALL ON *.* TO 'dev'@'localhost'``, ``ALTER ROLE app SUPERUSER``), else None.
    Grants on one database or schema, and monitoring rights (PROCESS, REPLICATION CLIENT), pass."""
    m = _GLOBAL_GRANT.search(stmt)
    if m is not None:
        if re.search(r"@\s*'%+'", m.group("to")):
            return "deny"
        if _ADMIN_RIGHTS.search(m.group("what")) or "GRANT OPTION" in m.group("to"):
            return "ask"
    return "ask" if _SUPERUSER.search(stmt) else None


# Accounts that administer the server, and passwords anyone would try first.
_ADMIN_ACCOUNTS = frozenset({"POSTGRES", "ROOT", "SA", "ADMIN", "MYSQL", "SYSTEM", "SYS", "ADMINISTRATOR"})
_GUESSABLE = frozenset({"PASSWORD", "PASSWD", "POSTGRES", "ROOT", "ADMIN", "SECRET", "CHANGEME", "123456",
                        "12345678", "1234", "PASS", "TOOR", "QWERTY", "LETMEIN", "DEFAULT", "MYSQL"})  # fmt: skip
_SET_PASSWORD = lazy_compile(
    r"\b(?:ALTER|CREATE)\s+(?:USER|ROLE)\s+(?:IF\s+NOT\s+EXISTS\s+)?['\"`]?(?P<user>\w+)['\"`]?(?:@\S+)?\b.*?"
    r"\b(?:PASSWORD|IDENTIFIED(?:\s+WITH\s+\w+)?\s+BY)\s+'(?P<pw>\w*)'"
    r"|\bSET\s+PASSWORD\s+FOR\s+['\"`]?(?P<user2>\w+)['\"`]?(?:@\S+)?\s*=\s*(?:PASSWORD\s*\(\s*)?'(?P<pw2>\w*)'"
)


def _weak_admin_password(stmt: str) -> bool:
    """``ALTER USER postgres WITH PASSWORD 'postgres'``, ``ALTER USER 'root'@'%' IDENTIFIED BY
    'root'``, ``CREATE ROLE lab WITH SUPERUSER PASSWORD 'lab'``: an administrator account (by its
    name, or made one by the same statement) given its own name or a default as its password."""
    m = _SET_PASSWORD.search(stmt)
    if not m:
        return False
    user, pw = (m.group("user"), m.group("pw")) if m.group("user") else (m.group("user2"), m.group("pw2"))
    admin = user in _ADMIN_ACCOUNTS or _SUPERUSER.search(stmt) is not None
    return admin and bool(pw) and (pw == user or pw in _GUESSABLE)


# DELETE FROM t, and the forms without FROM or with a join: DELETE t (SQL Server, Oracle),
# DELETE TOP (n) FROM t, DELETE t1 FROM t1 JOIN t2 (MySQL), WITH … DELETE.
_DELETE_STATEMENT = lazy_compile(r"\bDELETE\s+FROM\b|(?:^|\)\s*)DELETE\s+(?:TOP\s*\(\s*\d+\s*\)\s+)?[\w.\"`\[\]]+")


_HISTORY_PURGE = lazy_compile(r"\bVACUUM\b.*\bRETAIN\s+0+(?:\.0+)?\s+HOURS?\b")


def sql_findings(sql: str, where: str) -> list[Finding]:
    """Destructive statements in ``sql`` (comments and string literals ignored)."""
    text = _sql_skeleton(sql)
    found: list[Finding] = []
    for statement in text.split(";"):
        stmt = " ".join(statement.split()).upper()
        if not stmt:
            continue
        if re.search(r"\bCOPY\b.*\b(?:TO|FROM)\s+PROGRAM\b", stmt):
            found.append(
                (
                    "deny",
                    f"{where} runs a shell command on the database server (COPY … PROGRAM), as the "
                    "database's own user. Export to a file or to STDOUT (\\copy … TO STDOUT) instead.",
                )
            )
            continue
        if _HASH_READ.search(stmt):
            found.append(
                (
                    "deny",
                    f"{where} prints the database accounts' password hashes, which can be cracked offline. "
                    "Select the user names only (e.g. SELECT user, host FROM mysql.user).",
                )
            )
            continue
        if _ACCESS_OPENED.search(stmt):
            found.append(
                (
                    "deny",
                    f"{where} switches row-level security off or gives write access to every role "
                    "(PUBLIC): anyone who reaches the database can read or change any row. "
                    "Grant to one named role and keep the policies; ask the user to change access.",
                )
            )
            continue
        if _weak_admin_password(stmt):
            found.append(
                (
                    "deny",
                    f"{where} gives a database administrator account a guessable password (its own "
                    "name, or a default such as 'password'). Use a generated password kept in the "
                    "secret store, or ask the user to change accounts.",
                )
            )
            continue
        if _NO_PASSWORD.search(stmt) or re.search(r"\bGRANT\s+ALL\b.*\bTO\s+PUBLIC\b", stmt):
            found.append(
                (
                    "deny",
                    f"{where} leaves a database account without a password (or grants everything to "
                    "every role), so anyone who reaches the server gets in. Set a strong password or "
                    "grant to one role, or ask the user to change accounts.",
                )
            )
            continue
        rights = _server_rights(stmt)
        if rights == "deny":
            found.append(
                (
                    "deny",
                    f"{where} gives an account rights over every database, to log in from any host: "
                    "anyone who gets its password owns the server. Grant the rights the app needs on "
                    "its own database, to its own host, or ask the user to change accounts.",
                )
            )
            continue
        if rights == "ask":
            found.append(
                (
                    "ask",
                    f"{where} makes an account an administrator of the whole database server "
                    "(global rights, SUPERUSER, sysadmin, server file or program access). Confirm it is "
                    "intended; an application account needs rights on its own database only.",
                )
            )
            continue
        m = re.search(r"\bDROP\s+(TABLE|DATABASE|SCHEMA|KEYSPACE|MEASUREMENT|SERIES)\b", stmt)
        if _HISTORY_PURGE.search(stmt):
            # Delta/Iceberg VACUUM … RETAIN 0 HOURS, expire_snapshots to now: the table's history
            # (time travel, the only undo of a bad write) is deleted for good.
            found.append(
                (
                    "deny",
                    f"{where} deletes the table's whole history (VACUUM with no retention), so no earlier "
                    "version can be restored. Keep the default retention; ask the user to purge history.",
                )
            )
        elif m:
            found.append(
                (
                    "deny",
                    f"{where} runs DROP {m.group(1)}, which destroys data. Ask "
                    "the user to run destructive schema changes, or write a migration.",
                )
            )
        elif re.search(r"\bTRUNCATE\s+(?!\()", stmt) and not stmt.startswith("SELECT"):
            # (TRUNCATE(x, 2) is MySQL's number function, not the statement)
            found.append(
                (
                    "deny",
                    f"{where} runs TRUNCATE, which deletes every row. Delete the rows meant with a "
                    "WHERE clause, or ask the user to run it.",
                )
            )
        elif _DELETE_STATEMENT.search(stmt) and not _real_where(stmt):
            found.append(
                (
                    "deny",
                    f"{where} runs DELETE without a real WHERE (none, or one that is always true), "
                    "deleting every row. Add a WHERE clause on a key.",
                )
            )
        elif re.search(r"\bALTER\s+TABLE\s+\S+\s+(?:ON\s+CLUSTER\s+\S+\s+)?(?:DELETE|UPDATE)\b", stmt) and not (
            _real_where(stmt)
        ):
            # ClickHouse mutations: ALTER TABLE t DELETE WHERE 1 empties the table.
            found.append(
                (
                    "deny",
                    f"{where} runs ALTER TABLE … DELETE/UPDATE without a real WHERE, changing every row. "
                    "Add a WHERE clause on a key.",
                )
            )
        elif re.search(r"(^|\s)UPDATE\s+\S+\s+SET\b", stmt) and not _real_where(stmt):
            found.append(
                (
                    "deny",
                    f"{where} runs UPDATE without a real WHERE (none, or one that is always true), "
                    "changing every row. Add a WHERE clause on a key.",
                )
            )
        elif re.search(r"\bDROP\s+(INDEX|VIEW|COLUMN|USER|ROLE|FUNCTION|TRIGGER)\b", stmt) or (
            re.search(r"\bALTER\s+TABLE\b.*\bDROP\b", stmt)
        ):
            found.append(("ask", f"{where} drops a database object; confirm."))
    return found


# SQL handed to a client library's call in interpreter code, whatever the language names it:
# cursor.execute("…"), DBI::dbExecute(con, "…") (R), execute(conn, "…") (Julia LibPQ/DBInterface),
# mysqli_query($c, "…") / pg_query (PHP), $dbh->do("…") (Perl DBI), conn.exec_driver_sql("…"),
# duckdb.sql("…"), knex.raw("…"), sql`…` / $executeRaw`…` (tagged templates). One plain argument
# (the connection) may come before the SQL; Python's triple quotes count as quotes.
_SQL_CALL = (
    r"(?:\b\w*(?:execute|exec|query|statement|sql)\w*|\b(?:raw|run|prepare|unprepared|unsafe|do))[!?]?"
    r"(?:\s*\(\s*(?:[$@]?[\w.:\[\]>-]+\s*,\s*)?"
)
_SQL_START = r"(?:DROP|DELETE|TRUNCATE|UPDATE|ALTER)\b"
_QUOTE = r"""(?P<q>\"\"\"|'''|["'`])"""
_CODE_SQL = lazy_compile(
    _SQL_CALL + r"(?:[\w.]*\btext\(\s*)?[rbuf]?|(?=`))" + _QUOTE + r"(?P<sql>\s*" + _SQL_START + r".*?)(?P=q)",
    re.I | re.S,
)
# q = "DELETE FROM orders"; cur.execute(q): SQL held in a variable, then handed to such a call.
_CODE_SQL_VARIABLE = lazy_compile(
    r"(?P<var>\b[A-Za-z_]\w*)\s*(?:=|<-)\s*[rbuf]?" + _QUOTE + r"(?P<sql>\s*" + _SQL_START + r".*?)(?P=q)",
    re.I | re.S,
)
# A database file named in the code (sqlite3.connect("data/app.db"), SQLite.DB("runs.db")).
_CODE_DB_FILE = lazy_compile(r"""["']([^"'\s]+\.(?:sqlite3?|db|duckdb))["']""", re.I)
# A database server named in the code (host=, dbname=, a URL): not a project file.
_CODE_DB_SERVER = lazy_compile(r"(?i)\b(?:host|dbname|database|server)\s*[=:]|://")


def code_sql(code: str) -> list[str]:
    """The destructive-looking SQL statements interpreter code hands to a database call: as a
    string argument, or through a variable assigned such a string and passed to the call."""
    found = [m.group("sql") for m in _CODE_SQL.finditer(code)]
    for m in _CODE_SQL_VARIABLE.finditer(code):
        call = _SQL_CALL + re.escape(m.group("var")) + r"\s*[,)])"
        if re.search(call, code[m.end() :], re.I):
            found.append(m.group("sql"))
    return found


def _code_database_kind(cmd: Cmd, codes: list[str]) -> str:
    """``test``/``dev`` when every database interpreter code names is a file inside the project
    (kept with the tests or named as a test one / any other), else ``""`` (a server, unknown)."""
    if cmd.ctx.cwd is None or any(_CODE_DB_SERVER.search(c) for c in codes):
        return ""
    paths = [_shell.normalize(m.group(1), cmd.ctx.cwd) for c in codes for m in _CODE_DB_FILE.finditer(c)]
    inside = [p for p in paths if p is not None and p != cmd.ctx.project and _shell.is_within(p, cmd.ctx.project)]
    if not paths or len(inside) != len(paths):
        return ""
    rels = [os.path.relpath(p, cmd.ctx.project).split("/") for p in inside]
    tests = all(bool(_TEST_DIRS & set(r[:-1])) or bool(_TEST_NAME.search(r[-1])) for r in rels)
    return "test" if tests else "dev"


def _sql_files(cmd: Cmd) -> list[str]:
    """SQL files a client runs (``< drop_all.sql``, ``-f reset.sql``) named for destruction."""
    words = [r.target for r in cmd.redirects if r.op == "<" and r.target is not None]
    _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"-f", "--file", "-i"}))
    words += values.get("f", []) + values.get("file", []) + values.get("i", [])
    names = [(cmd.values(w) or [w.text])[0] for w in words if cmd.ctx.written(w) is None]
    return [n for n in names if re.search(r"(?i)drop|truncate|wipe|purge|reset|destroy|delete|nuke", n)]


def _db_console(cmd: Cmd) -> bool:
    """Framework database shells that pass SQL to the client: ``manage.py dbshell``,
    ``rails dbconsole``, ``php artisan db``."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "python" or cmd.name.endswith("manage.py") or cmd.name == "django-admin":
        return "dbshell" in lits
    if cmd.name in ("rails", "rake") or cmd.name.endswith("/rails"):
        return bool(lits) and lits[0] in ("dbconsole", "db")
    if cmd.name == "php" or cmd.name == "artisan":
        return "db" in lits
    return False


def _db_console_sql(cmd: Cmd) -> list[str]:
    """SQL given to a database shell: on stdin, or as ``-- -c "…"`` / ``-- -e "…"``."""
    texts: list[str] = []
    args = cmd.args
    lits = [w.literal() for w in args]
    if "--" in lits:
        after = args[lits.index("--") + 1 :]
        for i, w in enumerate(after[:-1]):
            if w.literal() in ("-c", "--command", "-e", "--execute", "-cmd"):
                texts.append(" ".join(cmd.values(after[i + 1]) or [after[i + 1].text]))
    return texts


_REDIS_WIPE = lazy_compile(r"(?i)\bflush(?:all|db)\b")
# keys('*') / KEYS * inside a script: every key.
_REDIS_ALL_KEYS = lazy_compile(r"""(?i)\bkeys["']?\s*[,(]?\s*["']\*["']|\bkeys\s+\*""")


def _redis_lists_all(cmd: Cmd) -> bool:
    """``redis-cli --scan`` (no pattern or ``*``) or ``redis-cli KEYS '*'``: every key name."""
    if cmd.name not in ("redis-cli", "valkey-cli", "keydb-cli"):
        return False
    lits = [(w.literal() or "") for w in cmd.args]
    if "--scan" in lits:
        i = lits.index("--pattern") if "--pattern" in lits else -1
        return i < 0 or (i + 1 < len(lits) and is_match_all(lits[i + 1]))
    low = [a.lower() for a in lits]
    return "keys" in low and low.index("keys") + 1 < len(low) and is_match_all(low[low.index("keys") + 1])


# Key-name words for state that users or workers depend on and nothing rebuilds (unlike cache,
# rate-limit or lock keys, which refill or expire by themselves).
_LIVE_KEY_WORDS = frozenset({
    "session", "sessions", "sess", "token", "tokens", "auth", "login", "logins", "user", "users",
    "account", "accounts", "queue", "queues", "job", "jobs", "order", "orders", "cart", "carts",
    "payment", "payments", "bull", "sidekiq", "celery", "resque", "rq",
})  # fmt: skip


def _redis_live_state(lister: Cmd) -> str | None:
    """The --scan/KEYS pattern of ``lister`` when it names live state (``session:*``,
    ``bull:emails:*``) rather than cache, rate-limit or lock keys; None otherwise."""
    lits = [(w.literal() or "") for w in lister.args]
    low = [a.lower() for a in lits]
    pattern = ""
    if "--pattern" in low and low.index("--pattern") + 1 < len(low):
        pattern = low[low.index("--pattern") + 1]
    elif "keys" in low and low.index("keys") + 1 < len(low):
        pattern = low[low.index("keys") + 1]
    words = set(re.split(r"[^a-z]+", pattern))
    if words & {"cache", "cached", "caches", "tmp", "temp", "test", "tests", "stale", "lock", "locks"}:
        return None
    return f"'{pattern}'" if words & _LIVE_KEY_WORDS else None


_REDIS_VALUES = frozenset({"-h", "-p", "-n", "-a", "-u", "--user", "--pass", "-s", "--sni", "--cacert"})
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def _local_numbered_flush(cmd: Cmd, text: str) -> bool:
    """``redis-cli -n 15 FLUSHDB``, ``redis-cli -h 127.0.0.1 -p 6380 -n 9 flushdb``: FLUSHDB (not
    FLUSHALL) of an explicitly numbered database other than 0 on this machine's server."""
    if re.search(r"(?i)\bflushall\b", text) or production_host(cmd):
        return False
    _flags, positionals, values = _shell.split_options(cmd.args, _REDIS_VALUES)
    number = [w.literal() for w in values.get("n", [])]
    hosts = [w.literal() for w in values.get("h", [])]
    return (
        len(number) == 1
        and (number[0] or "").isdigit()
        and number[0] != "0"
        and not values.get("u")
        and not values.get("s")
        and all(h in _LOCAL_HOSTS for h in hosts)
        and [(w.literal() or "").lower() for w in positionals]
        in (["flushdb"], ["flushdb", "async"], ["flushdb", "sync"])
    )


def _rule_redis(cmd: Cmd, found: list[Finding]) -> None:
    """A key-value store wiped through its client: FLUSHALL/FLUSHDB anywhere in the request
    (also inside an EVAL script), or DEL/UNLINK of every key (listed by --scan or KEYS *)."""
    text = " ".join(" ".join(cmd.values(w) or [w.text]) for w in cmd.args) + " " + (cmd.stdin_text or "")
    lits = [(w.literal() or "").lower() for w in cmd.args]
    every_key = (
        any(a in ("del", "unlink") for a in lits) and cmd.xargs and cmd.prev is not None and _redis_lists_all(cmd.prev)
    )
    if (
        "config" in lits
        and "set" in lits
        and (re.search(r"(?i)\brequirepass\s+(?:''|\"\"|$)", text) or re.search(r"(?i)\bprotected-mode\s+no\b", text))
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` switches the data store's authentication or protected mode off, so anyone "
                "who reaches it can read and change every key. Ask the user to change server security.",
            )
        )
        return
    lister = cmd.prev if cmd.xargs and any(a in ("del", "unlink") for a in lits) else None
    by_pattern = (
        lister is not None
        and lister.name in ("redis-cli", "valkey-cli", "keydb-cli")
        and any((w.literal() or "").lower() in ("--scan", "keys") for w in lister.args)
    )
    if lister is not None and by_pattern and not every_key and (production_host(cmd) or production_host(lister)):
        # redis-cli -h cache.prod… --scan --pattern 'sess:*' | xargs redis-cli -h cache.prod… DEL: every
        # session (or cache entry) of the live service is gone; on a development cache it is routine.
        found.append(
            (
                "deny",
                f"`{cmd.display}` deletes every key matching a pattern on a production data store "
                "(live sessions, queues or cache entries users depend on). Ask the user to run it, or "
                "do it on a development instance.",
            )
        )
        return
    live = _redis_live_state(lister) if lister is not None and by_pattern and not every_key else None
    if live:
        # --scan --pattern 'session:*' | xargs redis-cli DEL: every user's session (or queued job,
        # cart, token) is gone, not a cache that refills itself.
        found.append(
            (
                "ask",
                f"`{cmd.display}` deletes every key matching {live}: live state (sessions, queued jobs, "
                "tokens, carts) that does not come back, unlike cache entries. Delete the specific keys "
                "meant, or confirm with the user.",
            )
        )
        return
    if _local_numbered_flush(cmd, text):
        # Settled: redis-cli -n 15 FLUSHDB empties one numbered database of a local server (a
        # test or scratch one by convention): warn. Database 0, FLUSHALL or another host: denied.
        found.append(
            (
                "ask",
                f"`{cmd.display}` empties one numbered database of the local data store; confirm it "
                "is a test or scratch database (delete one key pattern instead if unsure).",
            )
        )
        return
    if _REDIS_WIPE.search(text) or every_key or ("eval" in lits and _REDIS_ALL_KEYS.search(text)):
        found.append(
            (
                "deny",
                f"`{cmd.display}` wipes the data store (FLUSHALL/FLUSHDB, or deletes every key). "
                "Delete the keys of one narrow pattern instead, or ask the user to run it.",
            )
        )


def rule_hosted_data(cmd: Cmd, found: list[Finding]) -> None:
    """Hosted data deleted through a cloud or store CLI: a bucket emptied recursively or
    removed with its contents, a managed database, table or cluster deleted, every key of
    etcd/consul. None of it has an undo; a single object or an empty bucket only asks."""
    # (pnpm dlx vercel remove …: the tool a package manager starts)
    name, lits = _inner_tool(cmd.name, [(w.literal() or "") for w in cmd.args])
    flags = set(lits) | {a[: -len("=true")] for a in lits if a.endswith("=true")}  # --prefix=true reads as --prefix
    what = ""
    ask = ""
    urls = [a for a in lits if re.match(r"(?:s3|gs)://", a)]
    whole = any(re.fullmatch(r"(?:s3|gs)://[^/]+/?", u) or u.endswith(("/*", "/**")) for u in urls)
    if name == "aws" and lits[:2] == ["s3", "rm"] and "--recursive" in flags:
        what, ask = (
            ("deletes every object of an S3 bucket", "") if whole else ("", "deletes every object under an S3 prefix")
        )
    elif name == "aws" and lits[:2] == ["s3", "rb"]:
        what, ask = (
            ("removes an S3 bucket with its contents", "") if "--force" in flags else ("", "removes an S3 bucket")
        )
    elif (
        name == "aws"
        and len(lits) > 1
        and re.fullmatch(
            r"delete-(?:table|db-instance|db-cluster|cluster|database|file-system|bucket|repository|stream|backup-vault)",
            lits[1],
        )
    ):
        what = f"deletes a hosted {lits[1][7:].replace('-', ' ')} ({lits[0]})"
    elif name in ("gsutil", "gcloud") and ("rm" in lits[:3]) and ({"-r", "-R", "--recursive"} & flags or "-a" in flags):
        if whole:
            what = "deletes every object of a Cloud Storage bucket"
        else:
            ask = "deletes every object under a Cloud Storage path"
    elif name == "gsutil" and lits[:1] == ["rb"]:
        ask = "removes a Cloud Storage bucket"
    elif (
        name == "gcloud"
        and "delete" in lits
        and any(a in ("sql", "spanner", "bigtable", "firestore", "redis", "filestore", "container") for a in lits[:2])
    ):
        what = f"deletes a hosted {lits[0]} resource"
    elif name == "az" and (
        lits[:3] == ["storage", "blob", "delete-batch"]
        or (lits[:1] in (["sql"], ["cosmosdb"], ["postgres"], ["mysql"]) and "delete" in lits)
        or lits[:2] == ["group", "delete"]
    ):
        what = "deletes hosted data or a resource group (az)"
    elif name == "etcdctl" and "del" in lits and ("--prefix" in flags or "--from-key" in flags):
        keys = [a for a in lits[lits.index("del") + 1 :] if not a.startswith("-")]
        if not keys or keys[0] in ("", "/", "\\0"):
            what = "deletes every key of etcd"
    elif name == "consul" and lits[:3] == ["kv", "delete", "-recurse"]:
        keys = [a for a in lits[3:] if not a.startswith("-")]
        if not keys or keys[0] in ("", "/"):
            what = "deletes every key of consul"
    elif (
        name == "bq"
        and lits[:1] == ["rm"]
        and ({"-r", "--recursive"} & flags or any(re.fullmatch(r"-\w*r\w*", a) for a in lits[1:]))
    ):
        what = "deletes a BigQuery dataset with every table in it"
    elif (
        name == "firebase" and lits[:1] == ["firestore:delete"] and ({"--all-collections", "-r", "--recursive"} & flags)
    ):
        paths = [a for a in _operands_after(lits[1:], _FIREBASE_VALUE) if a.strip("/")]
        if "--all-collections" in flags or not paths or any(len(p.strip("/").split("/")) % 2 for p in paths):
            what = "deletes Firestore collections with every document in them"
        elif production_host(cmd):
            # users/u1 -r: one document and the subcollections under it, on production.
            ask = "deletes a production Firestore document with its subcollections"
    elif (
        name == "firebase"
        and lits[:1] == ["database:remove"]
        and [a for a in lits[1:] if not a.startswith("-")][:1] in ([], ["/"])
    ):
        what = "deletes the whole Realtime Database"
    elif name == "supabase" and lits[:2] == ["db", "reset"] and ({"--linked", "--db-url"} & flags):
        what = "resets the linked (remote) project's database"
    elif name == "bq" and lits[:1] == ["rm"]:
        tables = [a for a in lits[1:] if not a.startswith("-")]
        # bq rm -f -t proj:ds.tmp_join_0311: one table named as scratch (a pipeline's leftover).
        scratch = bool(tables) and all("." in t and _SCRATCH_TABLE.fullmatch(t.rsplit(".", 1)[1]) for t in tables)
        if not scratch:
            ask = "deletes a BigQuery table or dataset"
    elif (
        (name == "pscale" and lits[:2] == ["database", "delete"])
        or (name == "turso" and lits[:2] in (["db", "destroy"], ["group", "destroy"]))
        or (name in ("neonctl", "neon") and lits[:1] in (["projects"], ["databases"]) and "delete" in lits[1:2])
        or (name in ("fly", "flyctl") and lits[:2] in (["postgres", "destroy"], ["volumes", "destroy"]))
    ):
        what = f"deletes a hosted database ({name})"
    elif name == "gh" and lits[:2] == ["repo", "delete"]:
        what = "deletes a hosted repository with its issues, pull requests and releases"
    elif name == "rclone" and lits[:1] in (["purge"], ["delete"]):
        paths = [a for a in lits[1:] if not a.startswith("-")]
        # remote: or remote:bucket is the whole store or bucket; remote:bucket/prefix is a part.
        if paths and re.fullmatch(r"[\w.-]+:(?:[\w.-]+/?)?", paths[0]):
            what = "deletes a whole remote bucket or store with everything in it"
        else:
            ask = "deletes a remote path and everything in it"
    if not what and not ask:
        what, ask = _platform_delete(name, lits)
    if not what and not ask:
        what, ask = _backup_delete(cmd, lits)
    if what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what}; hosted data has no undo. Delete the specific objects "
                "needed, or ask the user to run it.",
            )
        )
    elif ask:
        found.append(("ask", f"`{cmd.display}` {ask}; confirm this is intended."))


# firebase options that take a value (the rest are paths).
_FIREBASE_VALUE = frozenset({"--project", "-P", "--config", "-c", "--token", "--account", "--database"})


def _operands_after(args: list[str], with_value: frozenset[str]) -> list[str]:
    """The operands among ``args``: not options, nor the values of ``with_value`` options."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in with_value:
            skip = True
        elif not a.startswith("-"):
            out.append(a)
    return out


# Hosting platforms' commands that delete a whole app, site, worker or store with its
# deployments and data: (program names, leading operands).
_PLATFORM_DESTROYS: list[tuple[frozenset[str], tuple[str, ...]]] = [
    (frozenset({"fly", "flyctl"}), ("apps destroy", "apps delete", "destroy", "apps rm")),
    (frozenset({"vercel"}), ("remove", "rm", "project rm", "project remove", "projects rm", "projects remove")),
    (frozenset({"netlify"}), ("sites:delete", "sites delete")),
    (
        frozenset({"wrangler"}),
        (
            "delete",
            "d1 delete",
            "kv namespace delete",
            "kv:namespace delete",
            "r2 bucket delete",
            "queues delete",
            "vectorize delete",
            "hyperdrive delete",
            "pages project delete",
        ),
    ),
    (frozenset({"supabase"}), ("projects delete", "orgs delete")),
    (frozenset({"railway"}), ("delete", "environment delete", "service delete", "volume delete")),
    (frozenset({"render"}), ("services delete",)),
    (frozenset({"dokku"}), ("apps:destroy", "postgres:destroy", "redis:destroy", "mysql:destroy")),
    (frozenset({"upstash"}), ("redis delete", "kafka delete", "vector delete", "qstash delete")),
    (frozenset({"atlas", "mongocli"}), ("clusters delete", "atlas clusters delete", "projects delete")),
    (frozenset({"amplify"}), ("delete",)),
    (frozenset({"firebase"}), ("hosting:disable", "apps:delete")),
    (frozenset({"convex"}), ("delete",)),
    (frozenset({"influx"}), ("bucket delete", "org delete")),
    (frozenset({"influxdb3"}), ("delete database", "delete table")),
    (frozenset({"meilisearch", "typesense"}), ("delete-index", "indexes delete")),
]
# Database branches (PlanetScale, Neon, Supabase, Xata): a copy of the data for one feature.
_BRANCH_TOOLS = {
    "pscale": ("branch",),
    "neonctl": ("branches", "branch"),
    "neon": ("branches", "branch"),
    "supabase": ("branches",),
    "xata": ("branch",),
}
_MAIN_BRANCH = lazy_compile(r"(?i)^(?:main|master|prod|production|live|primary|default)$")


def _platform_delete(name: str, lits: list[str]) -> tuple[str, str]:
    """(denied, asked) for a hosting platform's delete: a whole app, site, worker, KV namespace,
    bucket or hosted store is denied (its deployments and data go with it) unless it is named as
    one pull request's preview (asked); a database branch deleted is asked (its main or production
    branch denied), a branch reset to its parent loses its writes; a live-mode payment object
    (``stripe customers delete … --live``) is asked; ``influx delete`` with no predicate empties
    the bucket; deleting a message-queue topic is asked."""
    ops = [a for a in lits if not a.startswith("-")]
    line = " ".join(ops)
    for names, verbs in _PLATFORM_DESTROYS:
        if name not in names:
            continue
        verb = next((v for v in verbs if line == v or line.startswith(v + " ")), None)
        if verb is None:
            continue
        targets = line[len(verb) :].split() + [a.partition("=")[2] for a in lits if a.startswith("--name=")]
        targets += [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("--name", "-a", "--app", "--project")]
        if name == "vercel" and all(re.search(r"\.vercel\.app$|^https?://|^dpl_", t) for t in targets if t) and targets:
            return "", "removes Vercel deployments"  # single deployments by URL or id
        if targets and all(PREVIEW_NAME.search(t) for t in targets) and not any(_MAIN_BRANCH.match(t) for t in targets):
            return "", f"deletes a preview's {name} resource"
        return f"deletes a whole hosted app, site or store with its deployments and data ({name} {verb})", ""
    if name in _BRANCH_TOOLS and ops[:1] and ops[0] in _BRANCH_TOOLS[name] and len(ops) > 1:
        action, branches = ops[1], ops[2:]
        if name == "pscale":
            branches = ops[3:4]  # pscale branch delete DATABASE BRANCH
        if action in ("delete", "rm", "remove", "reset", "restore"):
            if any(_MAIN_BRANCH.match(b) or _PROD_TARGET.search(b) for b in branches):
                return f"{'resets' if action != 'delete' else 'deletes'} the main or production database branch", ""
            return "", f"{'resets' if action in ('reset', 'restore') else 'deletes'} a database branch and its data"
    if name == "stripe" and ("--live" in lits or any("sk_live_" in a for a in lits)) and "delete" in ops[:3]:
        return "", "deletes a live-mode Stripe object (real customers and payments; no undo)"
    predicate = {"--predicate", "-p"} & set(lits) or any(a.startswith("--predicate=") for a in lits)
    if name == "influx" and ops[:1] == ["delete"] and not predicate:
        return "deletes every point of an InfluxDB bucket in the time range (no --predicate)", ""
    if name == "virsh" and "undefine" in ops and ({"--remove-all-storage", "--storage"} & set(lits)):
        return "", "deletes a virtual machine together with its disks"
    # Kafka: a topic or its records deleted are asked; on a production cluster (the broker or
    # cluster named prod/production/live) denied, since the messages have no other copy.
    kafka = ""
    if (name in ("kafka-topics", "kafka-topics.sh") and "--delete" in lits) or (
        name == "rpk" and ops[:2] == ["topic", "delete"]
    ):
        kafka = "deletes a Kafka topic with its messages"
    elif name in ("kafka-delete-records", "kafka-delete-records.sh") or (
        name == "rpk" and ops[:2] == ["topic", "trim-prefix"]
    ):
        kafka = "deletes the messages of a Kafka topic up to an offset"
    elif (
        name in ("kafka-consumer-groups", "kafka-consumer-groups.sh")
        and "--reset-offsets" in lits
        and "--execute" in lits
        and ({"--to-latest", "--to-offset", "--shift-by", "--to-datetime", "--by-duration"} & set(lits))
    ) or (name == "rpk" and ops[:2] == ["group", "seek"] and "--to" in lits and "end" in lits):
        # Moving a consumer group's offsets forward skips the messages in between: they are never
        # processed (a --dry-run, or a rewind --to-earliest that reprocesses, loses nothing).
        kafka = "moves a consumer group's offsets, so the messages skipped are never processed"
    elif (name == "rabbitmqctl" and ops[:1] in (["purge_queue"], ["delete_queue"], ["delete_vhost"])) or (
        name == "rabbitmqadmin" and ops[:2] in (["purge", "queue"], ["delete", "queue"], ["delete", "vhost"])
    ):
        kafka = "purges or deletes a RabbitMQ queue or virtual host with its messages"
    if kafka:
        # The broker (Kafka bootstrap server) or RabbitMQ virtual host (-p /prod, --vhost=live).
        servers = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("--bootstrap-server", "--brokers", "-X")]
        servers += [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-p", "--vhost", "-V", "-H", "--host")]
        servers += [a.partition("=")[2] for a in lits if a.startswith(("--vhost=", "--host="))]
        servers += [a.partition("=")[2] for a in lits if a.startswith(("--bootstrap-server=", "--brokers="))]
        on_prod = any(_PROD_TARGET.search(s) for s in servers)
        return (kafka + " on a production cluster", "") if on_prod else ("", kafka)
    return "", ""


def _backup_delete(cmd: Cmd, lits: list[str]) -> tuple[str, str]:
    """(denied, asked) for a backup tool removing backups: a whole repository (``borg delete
    REPO``, ``borg rdelete``, ``tarsnap --nuke``) or snapshots picked by a computed list
    (``restic forget $(restic snapshots …)``) is denied, since the backups are the last copy;
    named snapshots or archives are asked. Retention policies (``forget --keep-daily 7``, ``borg
    prune --keep-…``) pass: they keep the recent backups."""
    name = cmd.name
    ops = [a for a in lits if a and not a.startswith("-")]
    if name == "restic" and "forget" in ops:
        at = next(i for i, w in enumerate(cmd.args) if w.literal() == "forget")
        snaps = [w for w in cmd.args[at + 1 :] if not (w.literal() or "").startswith("-")]
        if any(a.startswith("--keep-") for a in lits):
            return "", ""
        if any(w.subs() or w.literal() is None for w in snaps):
            return "deletes restic snapshots chosen by a computed list (possibly every backup)", ""
        return ("", "deletes restic snapshots") if snaps else ("", "")
    if name == "borg" and ("rdelete" in ops or "delete" in ops):
        at = ops.index("rdelete" if "rdelete" in ops else "delete")
        repos = ops[at + 1 :]
        archives = any(a.startswith(("-a", "--glob-archives", "--match-archives", "--prefix")) for a in lits)
        if "rdelete" in ops or (not archives and not any("::" in r and not r.endswith("::") for r in repos)):
            return "deletes a whole borg repository with every archive in it", ""
        return "", "deletes borg archives"
    if name == "tarsnap" and "--nuke" in lits:
        return "deletes every tarsnap archive", ""
    if name == "tarsnap" and "-d" in lits:
        return "", "deletes tarsnap archives"
    if name == "kopia" and ops[:2] in (["snapshot", "delete"], ["snap", "delete"]):
        return "", "deletes kopia snapshots"
    if name == "kopia" and ops[:2] == ["repository", "delete"]:
        return "deletes the whole kopia repository", ""
    return "", ""


def _scratch_database(positionals: list[Word], texts: list[str]) -> bool:
    """``sqlite3 :memory: '…'`` or ``duckdb -c '…'`` with no file: the database lives only as long
    as the command, so deleting from it loses nothing (unless the SQL ATTACHes a real file)."""
    memory = not positionals or positionals[0].literal() == ":memory:"
    return memory and not any(re.search(r"(?i)\battach\b|^\s*\.open\b", t, re.MULTILINE) for t in texts)


def _unseen_sql(cmd: Cmd) -> bool:
    """Whether a database client reads its SQL from a file this call neither wrote nor shows
    (``psql -f "$f"``, ``mysql db < seed.sql``, ``sqlcmd -i x.sql``)."""
    args = cmd.args
    for i, word in enumerate(args):
        lit = word.literal() or ""
        value = args[i + 1] if lit in ("-f", "--file", "-i", "--input-file") and i + 1 < len(args) else None
        if value is None and lit.startswith("--file="):
            value = word
        if value is not None and cmd.ctx.written(value) is None:
            return True
    if any(r.op == "<" and r.target is not None and cmd.ctx.written(r.target) is None for r in cmd.redirects):
        return True
    return _piped_file_reader(cmd.prev)


# Programs that pass a file's text (decompressed) to the next stage of a pipeline unchanged.
_FILE_READERS = frozenset({"cat", "zcat", "gzcat", "bzcat", "xzcat", "zstdcat", "lz4cat", "pv", "gunzip", "gzip"})


def _piped_file_reader(prev: Cmd | None) -> bool:
    """``cat fixtures/x.sql | psql …``, ``zcat dump.sql.gz | mysql …``: the stage before a
    client prints files this call did not write — the same unseen SQL as ``psql … < x.sql``."""
    if prev is None or prev.name not in _FILE_READERS:
        return False
    _flags, operands, _values = _shell.split_options(prev.args)
    if prev.name in ("gunzip", "gzip") and not any(w.literal() in ("-c", "-dc", "-cd", "--stdout") for w in prev.args):
        return False
    return bool(operands) and all(prev.ctx.written(w) is None for w in operands)


# Subcommands and options that hand their operand to a database: a project's own admin tool
# (cargo run -p admin -- sql "…", ./bin/console query "…", npm run db -- --execute "…").
_SQL_OPERAND_KEYS = frozenset({
    "sql", "query", "exec", "execute", "run-sql", "raw", "db:query", "db:exec", "sql:exec",
    "--sql", "--query", "--execute", "--exec", "--statement",
})  # fmt: skip
_SQL_STATEMENT = lazy_compile(r"(?is)^\s*(?:DROP|TRUNCATE|DELETE\s+FROM|UPDATE\s+\S+\s+SET|ALTER\s+TABLE)\b")
_EMBEDDED_SQL = lazy_compile(
    r"(?is)\b(?:sql|query|statement|stmt)[\"']?\s*[:=]\s*[\"']?"
    r"(?P<sql>(?:DROP|TRUNCATE|DELETE\s+FROM|UPDATE\s+\S+\s+SET|ALTER\s+TABLE)\b[^\"'}]*)"
)
# Programs that only show, search, store or lint text: SQL in their arguments is data.
_TEXT_TOOLS = frozenset({
    "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "jq", "yq", "sed", "awk",
    "tee", "cat", "sqlfluff", "sql-formatter", "pg_format", "sqlformat", "gh", "glab", "curl",
})  # fmt: skip


def _sql_operands(cmd: Cmd) -> list[str]:
    """A destructive SQL statement given as the operand of a ``sql``/``query``/``--execute``
    word to a program that is not a database client this module knows (those are read above):
    the project's own admin CLI runs it against its database."""
    if cmd.name in _TEXT_TOOLS or cmd.name in SQL_CLIENTS:
        return []
    args = cmd.args
    found: list[str] = []
    for word in args:
        # dbt run-operation run_query --args '{sql: "DROP SCHEMA x"}', --vars 'query=TRUNCATE t'
        found.extend(m.group("sql") for m in _EMBEDDED_SQL.finditer(" ".join(cmd.values(word) or [word.text])))
    for i, word in enumerate(args):
        lit = (word.literal() or "").lower()
        key, eq, _value = lit.partition("=")
        value = " ".join(cmd.values(args[i + 1]) or [args[i + 1].text]) if i + 1 < len(args) else ""
        if eq and key in _SQL_OPERAND_KEYS:
            value = (word.literal() or "").partition("=")[2]
        elif lit not in _SQL_OPERAND_KEYS:
            continue
        if _SQL_STATEMENT.match(value):
            found.append(value)
    return found


def _generated_database(cmd: Cmd, positionals: list[Word]) -> bool:
    """``sqlite3 target/test.db 'DROP TABLE …'``: a database file inside the project's build
    output (``build/``, ``target/``, ``tmp/``, ``.cache/``) is regenerated by the build or the
    tests, like the rest of that folder (unless the SQL ATTACHes another file)."""
    if not positionals or cmd.ctx.cwd is None:
        return False
    got = cmd.values(positionals[0])
    path = _shell.normalize(got[0], cmd.ctx.cwd) if got and len(got) == 1 else None
    attaches = re.search(
        r"(?i)\battach\b|^\s*\.open\b", " ".join(w.text for w in positionals[1:]) + (cmd.stdin_text or "")
    )
    return path is not None and _shell.build_output(path, cmd.ctx.project) and attaches is None


def _hosted_shell_sql(cmd: Cmd) -> list[str] | None:
    """SQL given to a hosted database's own shell command, as an argument (stdin is read by the
    caller), or None when ``cmd`` is not one: ``turso db shell DB "SQL"``, ``pscale shell DB
    BRANCH``, ``wrangler d1 execute DB --command "SQL"``, ``heroku pg:psql -c "SQL"``, ``fly
    postgres connect``, ``supabase db query "SQL"``, ``atlas sql``… These reach a remote
    database; the same SQL rules apply as to psql."""
    lits = [w.literal() or "" for w in cmd.args]
    ops = [a for a in lits if not a.startswith("-")]

    def option(*names: str) -> list[str]:
        got: list[str] = []
        for i, lit in enumerate(lits):
            if lit in names and i + 1 < len(cmd.args):
                got.append(" ".join(cmd.values(cmd.args[i + 1]) or [cmd.args[i + 1].text]))
            elif lit.partition("=")[0] in names and "=" in lit:
                got.append(lit.partition("=")[2])
        return got

    if cmd.name == "turso" and ops[:2] == ["db", "shell"]:
        # turso db shell DB [SQL]: the words after the database name are the statement.
        at = lits.index("shell")
        rest = [w for w in cmd.args[at + 1 :] if not (w.literal() or "").startswith("-")]
        return [" ".join(cmd.values(w) or [w.text]) for w in rest[1:]]
    if cmd.name == "pscale" and ops[:1] == ["shell"]:
        return []
    if cmd.name == "wrangler" and ops[:2] == ["d1", "execute"]:
        return option("--command")
    if cmd.name == "heroku" and ops[:1] in (["pg:psql"], ["psql"]):
        return option("-c", "--command")
    if cmd.name in ("fly", "flyctl") and ops[:2] in (["postgres", "connect"], ["pg", "connect"], ["mpg", "connect"]):
        return []
    if cmd.name in ("supabase", "neonctl", "neon", "railway", "atlas", "render") and (
        {"query", "sql", "execute", "psql", "connect"} & set(ops[:2])
    ):
        return option("-c", "--command", "--sql", "--query", "-e", "--execute") + [
            " ".join(cmd.values(w) or [w.text])
            for w in cmd.args
            if re.match(r"(?is)\s*(?:DROP|DELETE|TRUNCATE|UPDATE|ALTER|GRANT)\b", w.literal() or "")
        ]
    return None


# Encodings that hide text from a reader (tr, rev, gunzip also decode, but mostly clean up text).
_ENCODINGS = frozenset({"base64", "base32", "basenc", "xxd", "uudecode"})


def _decoded_argument(cmd: Cmd) -> bool:
    """Whether an argument or the input is the output of a decoder: ``"$(echo … | base64 -d)"``,
    a variable that holds it (``q=$(… | xxd -r -p); psql -c "$q"``), ``… | base64 -d | psql``."""
    if any(stage & _ENCODINGS for stage in cmd.stage_names[: cmd.stage]):
        return True
    for word in cmd.args:
        produced = [_shell.names_in(sub.script, cmd.ctx) for sub in word.subs()]
        produced += [cmd.ctx.sources.get(p.name, set()) for p in word.parts if isinstance(p, _shell.Var)]
        if any(inner & _ENCODINGS for inner in produced):
            return True
    return False


def rule_sql(cmd: Cmd, found: list[Finding]) -> None:
    """SQL run through a database client, a framework's database console or interpreter code:
    DROP/TRUNCATE, DELETE/UPDATE without a real WHERE, changes against production."""
    name = SQL_ALIASES.get(cmd.name, cmd.name)
    texts: list[str] = []
    hosted = _hosted_shell_sql(cmd)
    if name in SQL_CLIENTS:
        if _decoded_argument(cmd):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` sends SQL that is decoded on the spot (base64, hex), so nobody can "
                    "review what it changes. Write the plain SQL statement in the command instead.",
                )
            )
            return
        sql_opts, with_value, positional_sql = SQL_CLIENTS[name]
        # sqlite3/duckdb use single-dash long options (-cmd): split them by hand.
        args = cmd.args
        _flags, positionals, values = _shell.split_options(
            [w for w in args if (w.literal() or "") not in ("-cmd",)], with_value
        )
        for key in sql_opts:
            texts.extend(" ".join(cmd.values(w) or [w.text]) for w in values.get(key, []))
        lits = [w.literal() for w in args]
        for i, lit in enumerate(lits):
            if lit == "-cmd" and i + 1 < len(args):
                texts.append(args[i + 1].text)
        if positional_sql:
            texts.extend(" ".join(cmd.values(w) or [w.text]) for w in positionals[1:])
        if name in ("sqlite3", "duckdb") and (
            _scratch_database(positionals, [*texts, cmd.stdin_text or ""]) or _generated_database(cmd, positionals)
        ):
            return
        # psql -f FILE / sqlcmd -i FILE: a file this command wrote earlier is inspected.
        for key in ("f", "file", "i"):
            for word in values.get(key, []):
                written = cmd.ctx.written(word)
                if written is not None:
                    texts.append(written)
    elif _db_console(cmd):
        texts.extend(_db_console_sql(cmd))
    elif hosted is not None:
        texts.extend(hosted)
    elif cmd.name in _shell.INTERPRETERS:
        # sqlite3.connect(…).execute("DROP TABLE …"), cursor.execute('DELETE FROM …')
        # (_orm_code: the interpreter's own code, plus php artisan tinker --execute, manage.py shell -c)
        texts.extend(sql for code in _orm_code(cmd) for sql in code_sql(code))
        texts.extend(_sql_operands(cmd))  # python tools/admin.py --sql "…"
    elif cmd.name == "bq" and cmd.args and cmd.args[0].literal() == "query":
        # bq query [flags] 'SQL' (BigQuery): the SQL is the positional, flags use --name=value.
        texts.extend(" ".join(cmd.values(w) or [w.text]) for w in cmd.args[1:] if not w.text.startswith("-"))
        texts.append(cmd.stdin_text or "")
    elif cmd.name == "influx":
        # InfluxQL through influx -execute '…' (single-dash long option) or on stdin.
        lits = [w.literal() for w in cmd.args]
        texts.extend(
            " ".join(cmd.values(cmd.args[i + 1]) or [cmd.args[i + 1].text])
            for i, lit in enumerate(lits[:-1])
            if lit in ("-execute", "--execute", "-e")
        )
    elif cmd.name == "cypher-shell":
        _flags, positionals, _values = _shell.split_options(
            cmd.args, frozenset({"-u", "-p", "-a", "-d", "--address", "--database", "--username", "--password", "-f"})
        )
        query = " ".join(" ".join(cmd.values(w) or [w.text]) for w in positionals) + " " + (cmd.stdin_text or "")
        if re.search(
            r"(?is)\bMATCH\s*\(\s*\w*(?:\s*:\s*\w+)?\s*\)(?:(?!\bWHERE\b|\{).)*?\b(?:DETACH\s+)?DELETE\b", query
        ):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every node of the graph or of a label (MATCH (n) … DELETE "
                    "without a filter). Match the nodes meant by a property or WHERE instead.",
                )
            )
        return
    elif cmd.name in ("mongo", "mongosh"):
        _flags, positionals, values = _shell.split_options(cmd.args, _MONGO_VALUES)
        code = " ".join(w.text for w in values.get("eval", [])) + (cmd.stdin_text or "")
        every = r"\{\s*(?:_id\s*:\s*\{\s*\$(?:exists\s*:\s*(?:true|1)|ne\s*:\s*null)\s*\}\s*)?\}"
        if re.search(r"dropDatabase\s*\(|\.drop\s*\(\s*\)|(deleteMany|remove|updateMany)\s*\(\s*" + every, code):
            if _mongo_test_database(cmd, positionals, code):
                # Settled: dropping or emptying a test database is warn.
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}` drops or empties a collection or database of a test database; "
                        "confirm it is a disposable one.",
                    )
                )
                return
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` drops, empties or rewrites every document of a MongoDB database or "
                    "collection. Filter on the documents meant, or ask the user to run it.",
                )
            )
        return
    elif cmd.name in ("redis-cli", "valkey-cli", "keydb-cli"):
        _rule_redis(cmd, found)
        return
    elif _orm_code(cmd):
        # rails runner 'ActiveRecord::Base.connection.execute("TRUNCATE users")', tinker's DB::statement
        texts.extend(sql for code in _orm_code(cmd) for sql in code_sql(code))
    elif cmd.name == "prisma" and [w.literal() for w in cmd.args[:2]] == ["db", "execute"]:
        # prisma db execute --stdin <<< "SQL" (stdin is added below) or --file FILE written earlier
        _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"--file", "--url", "--schema"}))
        texts.extend(w for w in (cmd.ctx.written(f) for f in values.get("file", [])) if w is not None)
    elif _sql_operands(cmd):
        texts.extend(_sql_operands(cmd))
    elif cmd.name in ("dropdb", "dropuser", "pg_dropcluster") or (
        cmd.name == "mysqladmin" and any(w.literal() == "drop" for w in cmd.args)
    ):
        if _drops_test_database(cmd):
            # Settled: dropping a test database (dropdb app_test && createdb app_test) is warn.
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` drops a test database (its data is lost); confirm it is a disposable one.",
                )
            )
            return
        found.append(("deny", f"`{cmd.display}` drops a database. Ask the user to run it."))
        return
    else:
        return
    if cmd.stdin_text:
        texts.append(cmd.stdin_text)
    for sql_file in _sql_files(cmd) if name in SQL_CLIENTS or _db_console(cmd) or hosted is not None else []:
        found.append(
            (
                "ask",
                f"`{cmd.display}` runs the SQL file {sql_file}, whose name says it destroys data "
                "and whose content is not known here; read it first, then confirm.",
            )
        )
    start = len(found)
    for sql in texts:
        found.extend(sql_findings(sql, f"`{cmd.display}`"))
    # psql "$PROD_DB_URL": a variable whose name says production is the production database.
    prod = production(cmd) or production_host(cmd) or any(_PROD_VARIABLE.search(w.text) for w in cmd.args)
    # python -c 'sqlite3.connect("tests/fixtures/app.db")…': the database file the code names.
    code_db = _code_database_kind(cmd, _orm_code(cmd)) if texts and cmd.name in _shell.INTERPRETERS else ""
    if not prod and (_test_database(cmd, name, texts) or code_db == "test"):
        # Settled: dropping or emptying a test database is warn; a scratch table in one is routine.
        scratch = _all_scratch_drops(texts)
        kept = (
            [] if scratch else [("ask", r[1].split(". ")[0] + " in a test database; confirm.") for r in found[start:]]
        )
        found[start:] = kept
    elif not prod and texts and _all_scratch_drops(texts) and (code_db == "dev" or _dev_database(cmd, name)):
        # DROP TABLE IF EXISTS tmp_import_0612 on app_dev: a scratch table on the developer's own
        # database is routine clean-up (a real table dropped there is still judged above).
        found[start:] = []
    if prod:
        # A change that only asks on a development database destroys live data in production.
        for i in range(start, len(found)):
            if found[i][0] == "ask":
                found[i] = (
                    "deny",
                    found[i][1].split("; confirm")[0]
                    + " on a production database. Ask the user to run it; try it on a development copy first.",
                )
    if prod and len(found) == start and name in SQL_CLIENTS and _unseen_sql(cmd):
        found.append(
            (
                "ask",
                f"`{cmd.display}` runs SQL from a file the call does not show against a production "
                "database; read the file first, try it on a development copy, then confirm.",
            )
        )


def _all_scratch_drops(texts: list[str]) -> bool:
    """Whether the SQL texts drop only tables named as temporary, and their other statements
    destroy nothing (``DROP TABLE staging_tmp; CREATE TABLE staging_tmp AS SELECT …``: a rebuild)."""
    statements = [" ".join(part.split()) for t in texts for part in t.split(";") if part.strip()]
    drops = [st for st in statements if _SCRATCH_DROP.fullmatch(st.upper())]
    return bool(drops) and all(st in drops or not sql_findings(st, "") for st in statements)


# DROP TABLE [IF EXISTS] of tables named as temporary (tmp_x, x_tmp, scratch_y).
_SCRATCH_DROP = lazy_compile(
    r"DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:[\w\"`]+\.)?[\"`]?(?:\w*_)?(?:TMP|TEMP|SCRATCH)(?:_\w*)?[\"`]?"
    r"(?:\s*,\s*(?:[\w\"`]+\.)?[\"`]?(?:\w*_)?(?:TMP|TEMP|SCRATCH)(?:_\w*)?[\"`]?)*"
)
_SCRATCH_TABLE = lazy_compile(r"(?i)(?:\w*_)?(?:tmp|temp|scratch)(?:_\w*)?")
_TEST_NAME = lazy_compile(r"(?i)(?:^|[_\-/.])test(?:s|ing)?(?:$|[_\-.])")
_DEV_NAME = lazy_compile(r"(?i)(?:^|[_\-.])(?:dev|development|local)(?:$|[_\-.])")
# Folders that hold a project's tests and their data.
_TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "__tests__", "testdata", "fixtures", "test_data"})


_DROP_VALUES = frozenset({"-h", "--host", "-p", "--port", "-U", "--username", "--maintenance-db", "-u", "--user"})


def _drops_test_database(cmd: Cmd) -> bool:
    """``dropdb --if-exists app_test``, ``mysqladmin -uroot -f drop shop_test``: every database
    the drop names is a test one by its name, on a server that is not production."""
    if cmd.name not in ("dropdb", "mysqladmin") or production(cmd) or production_host(cmd):
        return False
    _flags, positionals, _values = _shell.split_options(cmd.args, _DROP_VALUES)
    names = [w.literal() for w in positionals]
    if cmd.name == "mysqladmin":
        names = names[names.index("drop") + 1 :] if "drop" in names else []
    return bool(names) and all(n is not None and _TEST_NAME.search(n) for n in names)


_MONGO_VALUES = frozenset({
    "--eval", "--host", "--port", "-u", "--username", "-p", "--password", "--authenticationDatabase",
    "--file", "-f", "--tlsCAFile", "--tlsCertificateKeyFile",
})  # fmt: skip


def _mongo_test_database(cmd: Cmd, positionals: list[Word], code: str) -> bool:
    """``mongosh app_test --eval …``, ``mongosh mongodb://localhost/shop_test``: every database
    the call names (operand, URL path, getSiblingDB) is a test one, on a server not production."""
    if production(cmd) or production_host(cmd):
        return False
    names = []
    for word in positionals:
        lit = word.literal() or ""
        names.append(
            lit.split("://", 1)[1].split("/", 1)[1].split("?")[0]
            if "://" in lit and "/" in lit.split("://", 1)[1]
            else lit
        )
    names += re.findall(r"getSiblingDB\(\s*['\"]([^'\"]+)['\"]", code)
    return bool(names) and all(n and _TEST_NAME.search(n) for n in names)


def _dev_database(cmd: Cmd, client: str) -> bool:
    """Whether a SQL client's database is a development one: by its name (``psql app_dev``, ``-d
    shop_development``, a URL ending in ``/app_local``), or a database file inside the project."""
    if client in ("sqlite3", "duckdb"):
        # sqlite3 data/app.db, duckdb warehouse.duckdb: a database file kept in the project.
        _flags, positionals, _values = _shell.split_options(cmd.args, SQL_CLIENTS[client][1])
        path = _shell.normalize(positionals[0].literal() or "", cmd.ctx.cwd) if positionals else None
        return path is not None and path != cmd.ctx.project and _shell.is_within(path, cmd.ctx.project)
    names = _database_names(cmd, client, [])
    return bool(names) and all(_DEV_NAME.search(n) for n in names)


def _database_names(cmd: Cmd, client: str, texts: list[str]) -> list[str]:
    """The database names a server SQL client is pointed at (options, first positional, URLs,
    ``DROP DATABASE x`` in its SQL)."""
    _flags, positionals, values = _shell.split_options(
        cmd.args, SQL_CLIENTS.get(client, (frozenset(), frozenset(), False))[1]
    )
    names = [w.literal() or "" for k in ("d", "dbname", "D", "database") for w in values.get(k, [])]
    if client in ("psql", "mysql", "clickhouse-client", "cqlsh") and positionals:
        names.append(positionals[0].literal() or "")
    names += [(w.literal() or "").rsplit("/", 1)[-1].split("?")[0] for w in cmd.args if "://" in (w.literal() or "")]
    for text in texts:
        names += re.findall(r"(?i)\bDROP\s+DATABASE\s+(?:IF\s+EXISTS\s+)?[`\"]?([\w-]+)", text)
    return [n for n in names if n]


def _test_database(cmd: Cmd, client: str, texts: list[str]) -> bool:
    """Whether a SQL client's database is a test one by its name (``-d app_test``, ``mysql
    shop_test``, a URL ending in ``/app_test``, ``DROP DATABASE shop_test``)."""
    _flags, positionals, values = _shell.split_options(
        cmd.args, SQL_CLIENTS.get(client, (frozenset(), frozenset(), False))[1]
    )
    names = [w.literal() or "" for k in ("d", "dbname", "D", "database") for w in values.get(k, [])]
    if client in ("psql", "mysql", "clickhouse-client", "cqlsh") and positionals:
        names.append(positionals[0].literal() or "")
    if client in ("sqlite3", "duckdb") and positionals:
        # sqlite3 tests/fixtures/app.db, sqlite3 db/test.sqlite3: a database file kept with the
        # tests (or named as a test one) inside the project is a test database.
        path = _shell.normalize(positionals[0].literal() or "", cmd.ctx.cwd)
        if path is None or not _shell.is_within(path, cmd.ctx.project):
            return False
        parts = os.path.relpath(path, cmd.ctx.project).split("/")
        return bool(_TEST_DIRS & set(parts[:-1])) or bool(_TEST_NAME.search(parts[-1]))
    names += [(w.literal() or "").rsplit("/", 1)[-1].split("?")[0] for w in cmd.args if "://" in (w.literal() or "")]
    for text in texts:
        names += re.findall(r"(?i)\bDROP\s+DATABASE\s+(?:IF\s+EXISTS\s+)?[`\"]?([\w-]+)", text)
    return bool(names) and all(_TEST_NAME.search(n) for n in names if n) and any(names)


# Object-relational mappers emptying a whole table: Django, Rails, SQLAlchemy, Mongoose, Sequelize.
_ORM_WIPE = lazy_compile(
    r"\.objects(?:\.all\(\))?\.delete\(\)|\b[A-Z]\w*(?:\.all)?\.(?:delete_all|destroy_all)\b(?!\s*\()"
    r"|\b(?:drop_all|truncate_table)\s*\(|\.query\(\s*\w+\s*\)\.delete\(\)"
    r"|\.(?:deleteMany|remove)\(\s*\{\s*\}\s*\)|\.destroy\(\s*\{\s*(?:where:\s*\{\s*\}\s*,?\s*)?truncate:\s*true"
    # Prisma/Mongoose deleteMany() with no filter, Sequelize destroy({where: {}}), Model.truncate(),
    # knex('t').del(), TypeORM repository.clear(), peewee delete().execute(), SQLAlchemy delete(M)
    r"|\.deleteMany\(\s*(?:\{\s*(?:where\s*:\s*\{\s*\}\s*)?\})?\s*\)|\.destroy\(\s*\{\s*where\s*:\s*\{\s*\}\s*\}\s*\)"
    r"|\b[A-Z]\w*\.truncate\b|\)\.truncate\(\s*\)|\bknex\(\s*['\"]\w+['\"]\s*\)\.del(?:ete)?\(\s*\)"
    r"|getRepository\([^()]*\)\.clear\(\s*\)|\b[A-Z]\w*\.delete\(\s*\)\.execute\(\s*\)"
    r"|\bexecute\(\s*delete\(\s*\w+\s*\)\s*\)|\.objects\.filter\(\s*\)\.delete\(\)"
    # updateMany / update_all with no filter rewrites every row.
    r"|\.updateMany\(\s*\{\s*\}|\.updateMany\(\s*\{\s*data\s*:(?:(?!where)[^;])*\}\s*\)\s*(?:[;.)]|$)"
    r"|\b[A-Z]\w*(?:\.all)?\.update_all\b|\.objects(?:\.all\(\))?\.update\("
    # Laravel: User::truncate(), DB::table('users')->delete(), User::query()->delete(); Ecto: Repo.delete_all(User)
    r"|\b[A-Z]\w*::truncate\(|DB::table\([^()]*\)->(?:delete|truncate)\(\s*\)|\b[A-Z]\w*::query\(\)->delete\(\s*\)"
    r"|\bRepo\.delete_all\(\s*[A-Z][\w.]*\s*\)|\b[A-Z]\w*\.query\.delete\(\s*\)"
    # Schema builders dropping a table (knex.schema.dropTable, queryInterface.dropTable, Rails'
    # connection.drop_table); tables named as scratch ones (tmp_*, *_scratch) are left alone.
    r"|(?:\bschema|\bqueryInterface|\bconnection)\.(?:dropTable|dropTableIfExists|drop_table)\b\s*\(?\s*[:'\"]"
    r"(?!(?:\w*_)?(?:tmp|temp|scratch)(?:_\w*)?['\"])|\.dropAllTables\(|\bsequelize\.drop\("
    # R's DBI dbRemoveTable(con, "t"); Django's call_command("flush"); Sequel's DB[:t].delete
    r"|\bdbRemoveTable\(\s*\w+\s*,\s*['\"](?!(?:\w*_)?(?:tmp|temp|scratch)(?:_\w*)?['\"])"
    r"|\bcall_command\(\s*['\"](?:flush|reset_db|sqlflush)['\"]|\b[A-Z]\w*\[:\w+\]\.(?:delete|truncate)\b(?!\s*\()"
)


def _orm_code(cmd: Cmd) -> list[str]:
    """Code run through a framework console: ``manage.py shell -c``, ``rails runner``,
    ``rails console`` / ``manage.py shell`` fed on stdin, interpreter ``-c``/``-e``."""
    lits = [w.literal() or "" for w in cmd.args]
    codes = _shell.code_of(cmd) if cmd.name in _shell.INTERPRETERS else []
    if cmd.name in ("rails", "rake") and lits[:1] in (["runner"], ["r"]):
        # rails runner [-e production | --environment=production] CODE: options come first.
        i = 1
        while i < len(cmd.args) and lits[i].startswith("-"):
            i += 2 if lits[i] in ("-e", "--environment") else 1
        if i < len(cmd.args):
            codes.append(" ".join(cmd.values(cmd.args[i]) or [cmd.args[i].text]))
    tinker = cmd.name in ("php", "artisan") and "tinker" in lits
    if tinker or (cmd.name == "mix" and lits[:1] == ["run"]):
        # php artisan tinker --execute="…", mix run -e "…"
        for i, lit in enumerate(lits):
            if lit.startswith("--execute="):
                codes.append(lit.partition("=")[2])
            elif lit in ("--execute", "-e") and i + 1 < len(cmd.args):
                codes.append(" ".join(cmd.values(cmd.args[i + 1]) or [cmd.args[i + 1].text]))
    console = (
        ("shell" in lits and any(a.endswith("manage.py") for a in lits))
        or (cmd.name == "rails" and lits[:1] in (["console"], ["c"]))
        or (cmd.name == "flask" and lits[:1] == ["shell"])
        or tinker
    )
    if console and cmd.stdin_text:
        codes.append(cmd.stdin_text)
    return codes


def rule_orm(cmd: Cmd, found: list[Finding]) -> None:
    """ORM code that deletes every row of a table (``Model.objects.all().delete()``, ``drop_all()``)."""
    for code in _orm_code(cmd):
        # A wipe written inside a string literal (echo '…->delete()', puts "…") is printed, not run.
        if any(not _shell.only_in_literals(code, *m.span()) for m in _ORM_WIPE.finditer(code)):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes or rewrites every row of a table through the ORM. Filter "
                    "the query to the rows meant (or ask the user to reset the data).",
                )
            )
            return
        m = next((m for m in _SDK_BULK_DELETE.finditer(code) if not _shell.only_in_literals(code, *m.span())), None)
        if m:
            listing = m.group("listing") or m.group("listing2") or ""
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` deletes every item a listing returns ({listing.strip()[:60]}) "
                    "one by one through an API, with no filter: runs, objects or records that cannot be "
                    "restored. Filter the listing to the items meant and print them first, then confirm.",
                )
            )
            return


# A loop that deletes every item an unfiltered listing call returns (the API form of a DELETE
# without WHERE): [r.delete() for r in api.runs("team/proj")], for b in bucket.objects.all():
# b.delete(), items.forEach(x => x.delete()). A listing given keyword filters is not matched.
_SDK_BULK_DELETE = lazy_compile(
    r"\[\s*(?P<v>\w+)\.(?:delete|destroy)\(\s*\)\s+for\s+(?P=v)\s+in\s+(?P<listing>(?:[\w.]|\(\s*\))+\(\s*(?:[\"'][^\"',]*[\"'])?\s*\))\s*\]"
    r"|\bfor\s+(?P<v2>\w+)\s+in\s+(?P<listing2>(?:[\w.]|\(\s*\))+\(\s*(?:[\"'][^\"',]*[\"'])?\s*\))\s*:\s*(?P=v2)\.(?:delete|destroy)\(\s*\)"
)


# Framework and migration-tool commands that empty or recreate the configured database:
# (program names, the words that name the task, extra words required) → what it does.
_DB_TASKS: list[tuple[frozenset[str], LazyPattern, str]] = [
    (
        frozenset({"rails", "rake"}),
        lazy_compile(
            r"db:(?:drop|reset|purge|schema:load|structure:load|migrate:reset|seed:replant|truncate_all"
            r"|fixtures:load)(?::all)?"
        ),
        "drops or reloads the database",
    ),
    (frozenset({"php", "artisan"}), lazy_compile(r"migrate:(?:fresh|reset|refresh)|db:wipe"), "drops every table"),
    (
        frozenset({"prisma"}),
        lazy_compile(r"migrate reset|db push .*--(?:force-reset|accept-data-loss)"),
        "drops or rewrites tables, losing their data",
    ),
    (frozenset({"sequelize", "sequelize-cli"}), lazy_compile(r"db:drop|db:migrate:undo:all"), "drops every table"),
    (frozenset({"knex"}), lazy_compile(r"migrate:rollback .*--all"), "undoes every migration"),
    (
        frozenset({"typeorm", "typeorm-ts-node-commonjs", "typeorm-ts-node-esm"}),
        lazy_compile(r"schema:drop"),
        "drops every table",
    ),
    (frozenset({"alembic", "flask"}), lazy_compile(r"downgrade base"), "undoes every migration"),
    (frozenset({"mix"}), lazy_compile(r"ecto\.(?:drop|reset)|ecto\.rollback .*--all"), "drops or resets the database"),
    (frozenset({"diesel", "sqlx"}), lazy_compile(r"database (?:reset|drop)"), "drops or resets the database"),
    (frozenset({"dotnet"}), lazy_compile(r"ef database drop"), "drops the database"),
    (frozenset({"flyway"}), lazy_compile(r"(?:^| )clean\b"), "drops every object in the schemas"),
    (frozenset({"liquibase"}), lazy_compile(r"drop-?all", re.I), "drops every object in the schema"),
    (frozenset({"airflow", "superset", "supabase"}), lazy_compile(r"db reset"), "resets its database"),
    (frozenset({"goose", "dbmate", "migrate"}), lazy_compile(r"(?:^| )(?:reset|drop)\b"), "drops the database"),
    (frozenset({"wp"}), lazy_compile(r"db (?:reset|drop|clean)|site empty"), "empties the site's database"),
    (
        frozenset({"gradle", "gradlew", "mvn", "mvnw"}),
        lazy_compile(r"(?i)(?:^| )(?:flywayClean|flyway:clean|liquibaseDropAll|liquibase:dropAll|dropAll)\b"),
        "drops every object in the database's schemas",
    ),
    (frozenset({"xcrun"}), lazy_compile(r"simctl erase"), "erases the simulators' apps and data"),
    # Rolling migrations back drops the columns and tables they added, with their data.
    (
        frozenset({"alembic", "flask"}),
        lazy_compile(r"(?:^| )downgrade\b"),
        "rolls migrations back (dropping the tables and columns they added, with their data)",
    ),
    (
        frozenset({"rails", "rake", "php", "artisan", "knex", "sequelize", "sequelize-cli", "mix"}),
        lazy_compile(
            r"db:rollback|migrate:rollback|migrate:down|db:migrate:undo|ecto\.rollback|db:migrate:down|db:migrate:redo"
        ),
        "rolls migrations back (dropping the tables and columns they added, with their data)",
    ),
    (
        frozenset({"goose", "dbmate", "migrate", "sql-migrate", "diesel", "sqlx", "typeorm", "atlas", "refinery"}),
        # diesel migration redo reverts the latest migration (dropping what it added) and reapplies it.
        lazy_compile(
            r"(?:^| )(?:down|down-to|rollback|revert|redo|migration:revert|migration revert|migrate revert)\b"
        ),
        "rolls migrations back (dropping the tables and columns they added, with their data)",
    ),
    (
        frozenset({"sea-orm-cli"}),
        lazy_compile(r"migrate (?:down|refresh|reset|fresh)\b"),
        "rolls migrations back or drops the tables (with their data)",
    ),
    (
        frozenset({"dotnet"}),
        lazy_compile(r"ef database update 0(?:$| )"),
        "rolls every migration back (dropping the tables they added, with their data)",
    ),
    (
        frozenset({"python", "manage.py", "django-admin"}),
        lazy_compile(r"(?:^| )(?:flush|reset_db)\b|migrate \S+ zero"),
        "deletes all data in the database",
    ),
]
# Forward schema migrations, by the tools that run them: harmless on a development database,
# a release step on production (asked there, see rule_db_tasks).
_MIGRATE_FORWARD: list[tuple[frozenset[str], LazyPattern]] = [
    (frozenset({"rails", "rake"}), lazy_compile(r"(?:^| )db:(?:migrate|prepare|setup)(?:$| |:up)")),
    (frozenset({"php", "artisan"}), lazy_compile(r"(?:^| )migrate(?:$| )")),
    (frozenset({"python", "manage.py", "django-admin"}), lazy_compile(r"(?:^| )migrate(?:$| )")),
    (frozenset({"alembic", "flask"}), lazy_compile(r"(?:^| )upgrade(?:$| )")),
    (frozenset({"prisma"}), lazy_compile(r"migrate deploy|db push")),
    (frozenset({"sequelize", "sequelize-cli"}), lazy_compile(r"db:migrate(?:$| )")),
    (frozenset({"knex"}), lazy_compile(r"migrate:(?:latest|up)")),
    (frozenset({"typeorm", "typeorm-ts-node-commonjs", "typeorm-ts-node-esm"}), lazy_compile(r"migration:run")),
    (frozenset({"mix"}), lazy_compile(r"ecto\.migrate")),
    (frozenset({"diesel", "sqlx"}), lazy_compile(r"migrat\w* run")),
    (frozenset({"dotnet"}), lazy_compile(r"ef database update")),
    (frozenset({"flyway", "goose", "dbmate", "migrate", "atlas"}), lazy_compile(r"(?:^| )(?:migrate|up|apply)(?:$| )")),
    (frozenset({"liquibase"}), lazy_compile(r"(?:^| )update(?:$| )")),
]


def _migrates_forward(tool: str, args: list[str]) -> bool:
    """Whether ``tool args`` applies schema migrations (``rails db:migrate``, ``php artisan
    migrate``, ``alembic upgrade head``, ``prisma migrate deploy``…); status and plans do not."""
    line = " ".join(args)
    for names, task in _MIGRATE_FORWARD:
        if tool in names or tool.endswith(tuple("/" + n for n in names)):
            if tool == "python" and not any(a.endswith("manage.py") for a in args[:1]):
                continue
            if task.search(line):
                return True
    return False


# Signs that the configured database is a throwaway test copy (settings, --database, env).
_TEST_DB = lazy_compile(r"(?i)(?:^|[._=/:-])test(?:s|ing)?(?:$|[._/-])")
# Package scripts and task targets whose name says they reset or drop a database.
_SCRIPT_RUNNERS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "deno", "make", "just", "task", "mise", "composer", "nx", "turbo"}
)
_DB_WORD = lazy_compile(r"(?i)^(?:db|database|schema|tables?|data)$")
_WIPE_WORD = lazy_compile(r"(?i)^(?:reset|drop|wipe|truncate|purge|nuke|destroy|flush|fresh|clear|empty|teardown)$")
_SHARED_WORD = lazy_compile(r"(?i)^(?:deploy|deployment|prod|production|infra|cluster|cloud)$")


# $PROD_DSN, ${PRODUCTION_DATABASE_URL}: a variable whose name says it holds the production target.
_PROD_VARIABLE = lazy_compile(r"\$\{?(?:\w*_)?(?:PROD|PRODUCTION|LIVE)(?:_\w*)?(?!\w)\}?")
_PACKAGE_EXEC = frozenset({"pnpm", "yarn", "npm", "bun"})
_PACKAGE_EXEC_VALUE = frozenset({"--filter", "-F", "-C", "--dir", "--cwd", "-w", "--workspace", "--prefix"})


def _inner_tool(name: str, lits: list[str]) -> tuple[str, list[str]]:
    """The tool a package manager, ``python -m`` or ``go run`` starts, with its arguments:
    ``pnpm --filter db exec prisma migrate reset`` → prisma, ``yarn workspace db prisma …``,
    ``python -m alembic downgrade -1`` → alembic, ``go run ./cmd/migrate down`` → migrate."""
    if name in _PACKAGE_EXEC:
        rest: list[str] = []
        skip = False
        for a in lits:
            if skip:
                skip = False
            elif a in _PACKAGE_EXEC_VALUE:
                skip = True
            elif not a.startswith("-") or rest:
                rest.append(a)
        if name == "yarn" and rest[:1] == ["workspace"]:
            rest = rest[2:]
        if rest[:1] in (["exec"], ["dlx"], ["x"]) and len(rest) > 1:
            rest = [a for a in rest[1:] if a != "--"]
            return rest[0].rsplit("/", 1)[-1], rest[1:]
        if name == "yarn" and rest and rest[0] not in ("run", "install", "add", "remove", "test", "build"):
            return rest[0], rest[1:]  # yarn prisma migrate reset: yarn runs a package's binary
    if name.startswith("python") and lits[:1] == ["-m"] and len(lits) > 1:
        return lits[1], lits[2:]
    if name == "go" and lits[:1] == ["run"] and len(lits) > 1:
        target = next((a for a in lits[1:] if not a.startswith("-")), "")
        return target.rstrip("/").rsplit("/", 1)[-1].removesuffix(".go"), lits[lits.index(target) + 1 :]
    return name, lits


def _script_targets(cmd: Cmd, lits: list[str]) -> list[str]:
    """The scripts or targets a package manager or task runner is asked to run (``npm run X``,
    ``yarn X``, ``make X Y``, ``mise run X``)."""
    ops = [a for a in lits if not a.startswith("-") and "=" not in a]
    if ops[:1] in (["run"], ["run-script"]) or (cmd.name == "deno" and ops[:1] == ["task"]):
        return ops[1:2]
    if cmd.name in ("npm", "mise", "bun", "deno"):
        return []  # npm test, npm install …: built-in commands, not project scripts
    if cmd.name in ("pnpm", "yarn", "composer"):
        return ops[:1]
    return ops


def _wipes_by_name(target: str) -> bool:
    """``db:reset``, ``reset-db``, ``drop_database``: a name saying it empties a database."""
    words = [w for w in re.split(r"[:_\-./ ]+", target) if w]
    # deploy:reset, infra-destroy, prod:teardown: a deployed environment reset or torn down.
    target_word = any(map(_DB_WORD.match, words)) or any(map(_SHARED_WORD.match, words))
    return target_word and any(map(_WIPE_WORD.match, words))


def rule_db_tasks(cmd: Cmd, found: list[Finding]) -> None:
    """Framework tasks that drop, reset or reload the configured database (``rails db:reset``,
    ``manage.py flush``, ``prisma migrate reset``, ``airflow db reset``, ``dbt run-operation
    drop_schema``, ``npm run db:reset``, ``pg_restore --clean``…). Against production (also an
    option value naming it, ``--context ProdDbContext``): denied.
    ``manage.py flush`` with no sign of a test database: denied (it empties whatever the settings
    point at). Otherwise a development database is lost: asked."""
    if cmd.name in _RESTORE_CLEAN:
        _rule_restore(cmd, found)
        return
    db_files = _database_files(cmd)
    if db_files:
        found.append(
            (
                "ask",
                f"`{cmd.display}` deletes the database file {db_files[0]}; its data is lost. Confirm it "
                "is a disposable (test or scratch) database.",
            )
        )
        return
    lits = [(w.literal() or "") for w in cmd.args]
    tool, tool_args = _inner_tool(cmd.name, lits)
    line = " ".join(tool_args)
    what = ""
    for names, task, does in _DB_TASKS:
        if (tool in names or tool.endswith(tuple("/" + n for n in names))) and task.search(line):
            if tool == "python" and not any(a.endswith("manage.py") for a in tool_args[:1]):
                continue
            what = does
            break
    if not what and cmd.name == "dbt":
        ops = [a for a in lits if not a.startswith("-")]
        if ops[:1] == ["run-operation"] and len(ops) > 1 and re.search(r"(?i)drop|truncate|delete|purge|wipe", ops[1]):
            what = f"runs the macro {ops[1]}, which drops or empties warehouse objects"
        elif ops[:1] in (["run"], ["build"], ["seed"]) and "--full-refresh" in lits and production_host(cmd):
            what = "rebuilds production tables from scratch (--full-refresh)"
    if not what and cmd.name in _SCRIPT_RUNNERS:
        wipes = [t for t in _script_targets(cmd, lits) if _wipes_by_name(t)]
        if wipes:
            what = (
                f"runs the project's `{wipes[0]}` task, whose name says it drops or resets a database "
                "(or tears down a deployed environment)"
            )
    prod = (
        production(cmd)
        or production_host(cmd)
        or any(re.search(r"(?i):(?:prod|production)\b", a) for a in lits)
        or any(_PROD_VARIABLE.search(w.text) for w in cmd.args)
        or _prod_option(lits)
    )
    if not what:
        if prod and _migrates_forward(tool, tool_args):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` applies schema migrations to the production database; a failed or "
                    "slow migration there is what users meet. Confirm the release step is intended "
                    "(or run it against a development or staging database).",
                )
            )
        return
    env_text = [*lits, *(f"{k}={v}" for k, v in cmd.env.items())]
    test_db = not prod and any(_TEST_DB.search(t) for t in env_text)
    flush = cmd.name in ("python", "manage.py", "django-admin") and "flush" in lits
    if prod or (flush and not test_db):
        where = "production" if prod else "no sign of a test database: it empties whatever the settings point at"
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what} ({where}). Ask the user to run it; work on a development "
                "or test database instead (e.g. a test settings module or --database test).",
            )
        )
    else:
        found.append(("ask", f"`{cmd.display}` {what}; the data in it is lost. Confirm this is a disposable database."))


# A production name inside an option value: ProdDbContext, --connection=production_ro, LIVE.
_PROD_WORD = lazy_compile(r"(?:^|[^A-Za-z])(?:[Pp]rod(?:uction)?|PROD(?:UCTION)?|[Ll]ive|LIVE)(?:$|[^a-z])")
_TARGET_OPTIONS = ("--context", "--connection", "--database", "--env", "--environment", "--target", "--profile")


def _prod_option(lits: list[str]) -> bool:
    """Whether an option naming the target database (``--context ProdDbContext``,
    ``--database=live``) names production."""
    return any(_PROD_WORD.search(value) for value in option_values(lits, _TARGET_OPTIONS))


_DB_FILE = lazy_compile(r"(?i)\.(?:sqlite3?|db|duckdb|mdb|accdb)(?:-wal|-shm|-journal)?$")


def _database_files(cmd: Cmd) -> list[str]:
    """Database files an ``rm`` or ``find -delete`` removes (``rm db/dev.sqlite3``, ``find . -name
    '*.db' -delete``): a local database is dropped (settled: dev or test data loss is asked)."""
    words = [(w.literal() or w.text) for w in cmd.args]
    if cmd.name == "rm":
        return [
            w
            for w in words
            if not w.startswith("-")
            and _DB_FILE.search(w)
            and "cache" not in w.lower()
            and not _shell.build_output(_shell.normalize(w, cmd.ctx.cwd) or w, cmd.ctx.project)
        ]
    if cmd.name == "find" and ("-delete" in words or "-exec" in words):
        names = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-name", "-iname")]
        return [n for n in names if _DB_FILE.search(n.rstrip("*"))]
    return []


_RESTORE_CLEAN = {"pg_restore": frozenset({"-c", "--clean"}), "mongorestore": frozenset({"--drop"})}


def _rule_restore(cmd: Cmd, found: list[Finding]) -> None:
    """``pg_restore --clean``, ``mongorestore --drop``: the target's objects are dropped and
    replaced by the dump. Into production: denied; elsewhere: asked."""
    flags, _pos, values = _shell.split_options(
        cmd.args,
        frozenset({"-d", "--dbname", "--db", "-h", "--host", "--uri", "-U", "--username", "-p", "--port", "-n", "-t"}),
    )
    lits = {(w.literal() or "") for w in cmd.args}
    if not (lits & _RESTORE_CLEAN[cmd.name] or "c" in flags or "clean" in flags or "drop" in flags):
        return
    target = [
        v
        for k in ("d", "dbname", "db", "h", "host", "uri")
        for w in values.get(k, [])
        for v in cmd.values(w) or [w.text]
    ]
    target += [v.split("=", 1)[1] for v in lits if v.startswith(("--dbname=", "--db=", "--host=", "--uri="))]
    if production(cmd) or any(_PROD_TARGET.search(t) for t in target):
        found.append(
            (
                "deny",
                f"`{cmd.display}` drops the objects of a production database and replaces them with the "
                "dump. Ask the user to run it; restore into a scratch database instead.",
            )
        )
    else:
        found.append(("ask", f"`{cmd.display}` drops the target database's objects before restoring; confirm."))


_PROD_TARGET = lazy_compile(r"(?i)(?:^|[@/.=_-])(?:prod|production|live)(?:$|[.:/_-])")
_DUMPERS = frozenset({"pg_dump", "pg_dumpall", "mysqldump", "mariadb-dump", "mongodump", "sqlite3", "redis-cli"})


def rule_dump_upload(cmd: Cmd, found: list[Finding]) -> None:
    """A database dump piped straight to a network upload (``pg_dump | curl -T -``, ``mysqldump
    | nc host``): the whole database leaves the machine."""
    upstream = {n for stage in cmd.stage_names[: cmd.stage] for n in stage}
    if not upstream & _DUMPERS or not uploads(cmd):
        return
    found.append(
        (
            "deny",
            f"`{cmd.display}` sends a database dump to a network host (data leaves the machine). "
            "Write the dump to a local file and let the user move it.",
        )
    )


_UPLOAD_FLAGS = frozenset({"-T", "--upload-file", "-d", "--data", "--data-binary", "--data-raw", "--data-urlencode",
                           "-F", "--form", "--json", "--post-file", "--body-file"})  # fmt: skip


def uploads(cmd: Cmd) -> bool:
    """Whether ``cmd`` sends stdin or a file to a network host: ``curl -T -``, ``curl
    --data-binary @file``, ``wget --post-file``, ``nc host port``."""
    if cmd.name in ("nc", "ncat", "netcat", "socat"):
        return not any((w.literal() or "") in ("-l", "--listen") for w in cmd.args)
    if cmd.name not in ("curl", "wget", "http", "https", "xh"):
        return False
    lits = [(w.literal() or w.text) for w in cmd.args]
    for i, lit in enumerate(lits):
        opt, eq, value = lit.partition("=")
        if re.fullmatch(r"-[A-Za-z]{2,}", lit) and lit[-1] in "TdF":
            opt, eq, value = "-" + lit[-1], "", ""  # curl -sT -, -fsSd @f: the last flag takes the value
        elif re.fullmatch(r"-[dF]\S+", lit):
            opt, eq, value = lit[:2], "=", lit[2:]  # -d@file
        if opt in _UPLOAD_FLAGS:
            value = value if eq else (lits[i + 1] if i + 1 < len(lits) else "")
            if opt in ("-T", "--upload-file", "--post-file", "--body-file") or "@" in value or value.startswith("$("):
                return True
    return False
