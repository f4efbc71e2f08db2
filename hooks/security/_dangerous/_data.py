"""Rule family: data. SQL through database clients, framework consoles and inline code
(:func:`sql_findings`), Redis wipes, hosted data without undo (buckets, managed databases) and ORM
table wipes."""

from __future__ import annotations

import re

import _shell
from _common import Finding
from _shell import Cmd, Word

from ._infra import production, production_host
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
}


_COMPARISON = re.compile(r"^(?P<a>[\w.'\"`]+)\s*(?P<op>=|==|<>|!=|<=|>=|<|>|\bIS\b|\bLIKE\b)\s*(?P<b>[\w.'\"`%]+)$")


def _always_true(condition: str) -> bool:
    """Whether an upper-cased SQL condition holds for every row (``1=1``, ``TRUE``,
    ``'A'='A'``, ``x = x``, ``… OR 1=1``); string literals arrive as ``''``."""
    for disjunct in re.split(r"\bOR\b", condition):
        term = disjunct.strip()
        while term.startswith("(") and term.endswith(")"):
            term = term[1:-1].strip()
        term = term.strip("() ")
        if term in ("TRUE", "1", "NOT FALSE", "NOT 0") or re.fullmatch(r"[\w.\"`]+\s+LIKE\s+'%%?'", term):
            return True
        m = _COMPARISON.match(term)
        if not m:
            continue
        a, op, b = m.group("a"), m.group("op"), m.group("b")
        if a == b and op in ("=", "==", "<=", ">=", "IS", "LIKE"):
            return True
        if a.isdigit() and b.isdigit():
            x, y = int(a), int(b)
            truth = {"<>": x != y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}
            if truth.get(op, x == y):
                return True
    return False


def _real_where(stmt: str) -> bool:
    """Whether a DELETE/UPDATE statement has a WHERE that can exclude rows."""
    m = re.search(r"\bWHERE\b(?P<c>.*?)(?:\bORDER\s+BY\b|\bLIMIT\b|\bRETURNING\b|$)", stmt)
    return m is not None and not _always_true(m.group("c").strip())


def sql_findings(sql: str, where: str) -> list[Finding]:
    """Destructive statements in ``sql`` (comments and string literals ignored)."""
    text = re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)
    # String literals become '' ('%' is kept: LIKE '%' matches every row).
    text = re.sub(r"'(?:[^']|'')*'", lambda m: m.group() if m.group() in ("'%'", "'%%'") else "''", text)
    found: list[Finding] = []
    for statement in text.split(";"):
        stmt = " ".join(statement.split()).upper()
        if not stmt:
            continue
        m = re.search(r"\bDROP\s+(TABLE|DATABASE|SCHEMA|KEYSPACE|MEASUREMENT|SERIES)\b", stmt)
        if m:
            found.append(
                (
                    "deny",
                    f"{where} runs DROP {m.group(1)}, which destroys data. Ask "
                    "the user to run destructive schema changes, or write a migration.",
                )
            )
        elif re.search(r"\bTRUNCATE\b", stmt) and not stmt.startswith("SELECT"):
            found.append(
                (
                    "deny",
                    f"{where} runs TRUNCATE, which deletes every row. Delete the rows meant with a "
                    "WHERE clause, or ask the user to run it.",
                )
            )
        elif re.search(r"\bDELETE\s+FROM\b", stmt) and not _real_where(stmt):
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


_CODE_SQL = re.compile(
    r"""\b(?:execute|executescript|executemany|exec|query|raw|run|prepare)\s*\(\s*[rbuf]?(?P<q>["'`])"""
    r"""(?P<sql>\s*(?:DROP|DELETE|TRUNCATE|UPDATE|ALTER)\b.*?)(?P=q)""",
    re.I | re.S,
)


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


_REDIS_WIPE = re.compile(r"(?i)\bflush(?:all|db)\b")
# keys('*') / KEYS * inside a script: every key.
_REDIS_ALL_KEYS = re.compile(r"""(?i)\bkeys["']?\s*[,(]?\s*["']\*["']|\bkeys\s+\*""")


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


def _rule_redis(cmd: Cmd, found: list[Finding]) -> None:
    """A key-value store wiped through its client: FLUSHALL/FLUSHDB anywhere in the request
    (also inside an EVAL script), or DEL/UNLINK of every key (listed by --scan or KEYS *)."""
    text = " ".join(" ".join(cmd.values(w) or [w.text]) for w in cmd.args) + " " + (cmd.stdin_text or "")
    lits = [(w.literal() or "").lower() for w in cmd.args]
    every_key = (
        any(a in ("del", "unlink") for a in lits) and cmd.xargs and cmd.prev is not None and _redis_lists_all(cmd.prev)
    )
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
    lits = [(w.literal() or "") for w in cmd.args]
    flags = set(lits)
    name = cmd.name
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
    elif name == "gh" and lits[:2] == ["repo", "delete"]:
        what = "deletes a hosted repository with its issues, pull requests and releases"
    elif name == "rclone" and lits[:1] == ["purge"]:
        ask = "deletes a remote path and everything in it"
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


def _scratch_database(positionals: list[Word], texts: list[str]) -> bool:
    """``sqlite3 :memory: '…'`` or ``duckdb -c '…'`` with no file: the database lives only as long
    as the command, so deleting from it loses nothing (unless the SQL ATTACHes a real file)."""
    memory = not positionals or positionals[0].literal() == ":memory:"
    return memory and not any(re.search(r"(?i)\battach\b|^\s*\.open\b", t, re.MULTILINE) for t in texts)


def rule_sql(cmd: Cmd, found: list[Finding]) -> None:
    """SQL run through a database client, a framework's database console or interpreter code:
    DROP/TRUNCATE, DELETE/UPDATE without a real WHERE, changes against production."""
    name = SQL_ALIASES.get(cmd.name, cmd.name)
    texts: list[str] = []
    if name in SQL_CLIENTS:
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
        if name in ("sqlite3", "duckdb") and _scratch_database(positionals, [*texts, cmd.stdin_text or ""]):
            return
        # psql -f FILE / sqlcmd -i FILE: a file this command wrote earlier is inspected.
        for key in ("f", "file", "i"):
            for word in values.get(key, []):
                written = cmd.ctx.written(word)
                if written is not None:
                    texts.append(written)
    elif _db_console(cmd):
        texts.extend(_db_console_sql(cmd))
    elif cmd.name in _shell.INTERPRETERS:
        # sqlite3.connect(…).execute("DROP TABLE …"), cursor.execute('DELETE FROM …')
        texts.extend(m.group("sql") for code in _shell.code_of(cmd) for m in _CODE_SQL.finditer(code))
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
        _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"--eval"}))
        code = " ".join(w.text for w in values.get("eval", [])) + (cmd.stdin_text or "")
        if re.search(r"dropDatabase\s*\(|\.drop\s*\(\s*\)|(deleteMany|remove)\s*\(\s*\{\s*\}", code):
            found.append(
                ("deny", f"`{cmd.display}` drops or empties a MongoDB database or collection. Ask the user to run it.")
            )
        return
    elif cmd.name in ("redis-cli", "valkey-cli", "keydb-cli"):
        _rule_redis(cmd, found)
        return
    elif cmd.name in ("dropdb", "dropuser") or (
        cmd.name == "mysqladmin" and any(w.literal() == "drop" for w in cmd.args)
    ):
        found.append(("deny", f"`{cmd.display}` drops a database. Ask the user to run it."))
        return
    else:
        return
    if cmd.stdin_text:
        texts.append(cmd.stdin_text)
    for sql_file in _sql_files(cmd) if name in SQL_CLIENTS or _db_console(cmd) else []:
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
    if production(cmd) or production_host(cmd):
        # A change that only asks on a development database destroys live data in production.
        for i in range(start, len(found)):
            if found[i][0] == "ask":
                found[i] = (
                    "deny",
                    found[i][1].split("; confirm")[0]
                    + " on a production database. Ask the user to run it; try it on a development copy first.",
                )


# Object-relational mappers emptying a whole table: Django, Rails, SQLAlchemy, Mongoose, Sequelize.
_ORM_WIPE = re.compile(
    r"\.objects(?:\.all\(\))?\.delete\(\)|\b[A-Z]\w*(?:\.all)?\.(?:delete_all|destroy_all)\b(?!\s*\()"
    r"|\b(?:drop_all|truncate_table)\s*\(|\.query\(\s*\w+\s*\)\.delete\(\)"
    r"|\.(?:deleteMany|remove)\(\s*\{\s*\}\s*\)|\.destroy\(\s*\{\s*(?:where:\s*\{\s*\}\s*,?\s*)?truncate:\s*true"
)


def _orm_code(cmd: Cmd) -> list[str]:
    """Code run through a framework console: ``manage.py shell -c``, ``rails runner``,
    ``rails console`` / ``manage.py shell`` fed on stdin, interpreter ``-c``/``-e``."""
    lits = [w.literal() or "" for w in cmd.args]
    codes = _shell.code_of(cmd) if cmd.name in _shell.INTERPRETERS else []
    if cmd.name in ("rails", "rake") and lits[:1] in (["runner"], ["r"]) and len(cmd.args) > 1:
        codes.append(" ".join(cmd.values(cmd.args[1]) or [cmd.args[1].text]))
    console = ("shell" in lits and any(a.endswith("manage.py") for a in lits)) or (
        cmd.name == "rails" and lits[:1] in (["console"], ["c"])
    )
    if console and cmd.stdin_text:
        codes.append(cmd.stdin_text)
    return codes


def rule_orm(cmd: Cmd, found: list[Finding]) -> None:
    """ORM code that deletes every row of a table (``Model.objects.all().delete()``, ``drop_all()``)."""
    for code in _orm_code(cmd):
        if _ORM_WIPE.search(code):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every row of a table through the ORM. Filter the "
                    "query to the rows meant (or ask the user to reset the data).",
                )
            )
            return
