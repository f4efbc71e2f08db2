"""Rule family: cloud and data platforms. What their CLIs do to data and machines that the
database-client and infrastructure families do not see:

* SQL sent through a data platform or a job rather than a database client
  (``databricks sql execute --statement``, ``aws athena start-query-execution --query-string``,
  ``aws redshift-data execute-statement --sql``, ``gcloud spanner databases execute-sql --sql``,
  ``dbt run-operation run_query --args '{sql: …}'``, a project script or ``spark-submit`` job given
  ``--sql "DROP …"``, a program told ``sql "UPDATE …"``, ``-e`` inside EMR/Dataproc steps,
  ``spark.sql("…")`` in code) is judged by :func:`sql_findings` like ``psql -c`` (asks become
  denials on production); a Delta ``VACUUM … RETAIN 0 HOURS`` with the retention check switched off
  destroys the table's whole history (denied; asked while the check is still on);
* production data deleted through a cloud CLI: a table, container or recursive prefix whose
  bucket, account, dataset or project names production (``bq rm -t acme-prod:core.t``, ``az storage
  container delete --account-name acmeprodlake``, ``gsutil rm -r gs://x-prod/events/``, ``mc rm -r
  prod/lake``); Databricks workspace/DBFS trees deleted recursively (denied at the top or in
  production, asked elsewhere); Kafka consumer offsets reset with ``--execute``, a topic's retention
  shrunk to purge it, an SQS queue purged (denied on production, asked on a shared cluster);
* networks opened to the world: a firewall rule / security group / NSG rule admitting 0.0.0.0/0
  (``::/0``, ``*``, ``Internet``) on every port or an administration or database port (denied; other
  ports asked, web ports 80/443 pass), a managed database's or cluster API's authorized networks
  opened to every address, cluster-admin bound to every authenticated user, public bucket policies
  (write: denied, read of a bucket not named as a site: asked), public snapshots, AllUsers ACLs; a
  database port behind a LoadBalancer or a port-forward on 0.0.0.0 asks;
* code installed on machines: a VM's startup script (or a script URL fetched at boot), user data,
  an Azure CustomScript extension's ``commandToExecute``/``fileUris``, ``aws ssm send-command``
  commands are judged like the same text run here (``check``): what would be denied is denied,
  what would be asked is asked (enabling or restarting services is what boot scripts do and passes);
  ``kubectl apply -f URL`` outside the well-known projects is denied for a branch head, plain http or
  a bare address and asked for a versioned release; a manifest piped from a download or a Helm
  chart from an unknown URL asks.
"""

from __future__ import annotations

import itertools
import json
import re

import _shell
from _common import Finding
from _shell import Cmd, lazy_compile

from ._data import SQL_ALIASES, SQL_CLIENTS, sql_findings
from ._infra import PREVIEW_NAME, option_values, production, production_host

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._infra import Check

# A broker on this machine: moving its offsets or retention touches nobody else's data.
_LOOPBACK = lazy_compile(r"(?:localhost|127\.|\[?::1)")
# Tools whose arguments are text, never run: a grep pattern or an echo is data.
_TEXT_TOOLS = frozenset(
    {
        "echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "cat", "tee", "git",
        "jq", "yq", "sqlfluff", "sqlformat", "pg_format", "sql-formatter", "sqlfmt", "less", "head", "tail",
        "wc", "sort", "diff", "touch", "mkdir", "ls", "cp", "mv", "read", "export", "test", "[",
    }
)  # fmt: skip
# Options that carry SQL to any job or script (spark-submit job.py --sql, a project script).
_SQL_OPTIONS = frozenset(
    {"--sql", "--statement", "--query-string", "--sql-query", "--sql-statement", "--sql-text", "--query", "--execute"}
)
# Short or generic options that carry SQL only for data platforms' own CLIs.
_PLATFORM_SQL_OPTIONS = frozenset({"-e", "-q", "-c", "--command", "--query-text", "--script"})
_DATA_PLATFORMS = frozenset(
    {"databricks", "dbsqlcli", "snow", "vsql", "bteq", "nzsql", "exaplus", "aws", "gcloud", "az", "bq", "spark-submit"}
)
# Keys of a JSON/YAML argument that hold SQL ({sql: "…"}, {"statement": "…"}, QueryString=…).
_SQL_KEYS = _shell.lazy_compile(
    r"""(?i)["']?\b(?:sql|query|statement|stmt|query_?string|sql_?statement|ddl|dml)["']?\s*[:=]\s*"""
    r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^,}\n]+))"""
)
_SQL_START = _shell.lazy_compile(
    r"(?is)^\s*(?:/\*.*?\*/\s*|--[^\n]*\n\s*)*\(?\s*(?:DROP|DELETE|TRUNCATE|UPDATE|ALTER|GRANT|VACUUM|MERGE|REPLACE|CREATE|INSERT)\b"
)
_KEYED_ARGS = frozenset(
    {"--args", "--vars", "--json", "--body", "--data", "-d", "--data-raw", "--parameters", "--arguments",
     "--default-arguments"}
)  # fmt: skip
_SENDERS = frozenset({"dbt", "curl", "http", "https", "xh", "databricks", "aws", "gcloud", "az", "snow"})
_PROGRAM_RUNNERS = frozenset(
    {"cargo", "go", "dotnet", "deno", "bun", "uv", "poetry", "pipenv", "npx", "java", "spark-submit", "rails",
     "python3", "php", "gradle", "mvn"}
)  # fmt: skip
# A whole destructive statement as one argument (keywords upper-case, as SQL is written; prose
# such as "delete from the cache" is not).
_SQL_STATEMENT_WORD = _shell.lazy_compile(
    r"^\s*(?:DROP\s+(?:TABLE|SCHEMA|DATABASE|VIEW)\b|TRUNCATE\b|DELETE\s+FROM\b|UPDATE\s+[\w.\"`\[\]]+\s+SET\b)"
)
_EMBEDDED_SQL = _shell.lazy_compile(
    r"""(?:^|[,\[\s])(?:-e|-q|--execute|--query|--sql)[,=\s]\s*["']?"""
    r"""((?:DROP\s+(?:TABLE|SCHEMA|DATABASE|VIEW)|TRUNCATE|DELETE\s+FROM|UPDATE\s+[\w.`]+\s+SET)\b[^"'\]}]*)"""
)
_SQL_VERB = _shell.lazy_compile(r"(?i)^(?:[\w-]*:)?(?:sql|exec|execute|query|run[-_]?sql|raw|db[-_]?exec)$")
_SPARK_SHELLS = frozenset({"pyspark", "spark-shell", "sparkR", "databricks-connect"})
_CODE_DOT_SQL = _shell.lazy_compile(
    r"""\.sql\(\s*[rbuf]?("{3}|'{3}|["'])(\s*(?:DROP|DELETE|TRUNCATE|UPDATE|ALTER|VACUUM)\b.*?)\1""", re.I | re.S
)
_VACUUM = _shell.lazy_compile(r"(?is)\bVACUUM\b[^;]*?\bRETAIN\s+(\d+(?:\.\d+)?)\s+HOURS\b")
_RETENTION_CHECK_OFF = _shell.lazy_compile(r"(?i)retentionDurationCheck\.enabled\s*[= ]\s*['\"]?false")


# Roles that administer a whole cloud account, subscription or project (and its access rules).
_ADMIN_POLICY = lazy_compile(r"(?:^|[:/])(?:AdministratorAccess|IAMFullAccess)$")
_ADMIN_ROLE = lazy_compile(
    r"(?i)^(?:owner|user access administrator|role based access control administrator)$"
    r"|^roles/(?:owner|editor|resourcemanager\.(?:organization|project)IamAdmin|iam\.securityAdmin)$"
)
_WILDCARD_POLICY = lazy_compile(r'"Action"\s*:\s*(?:\[\s*)?"\*".*"Resource"\s*:\s*(?:\[\s*)?"\*"', re.S)


def _admin_grant(name: str, words: list[str]) -> str:
    """An identity given administrator rights over a cloud account: AWS's AdministratorAccess or a
    policy allowing "*" on "*", Azure's Owner / User Access Administrator, GCP's roles/owner,
    roles/editor or IAM-admin roles. Read-only and single-service roles pass."""
    ops = [w for w in words if not w.startswith("-")]
    verb = ops[1] if name == "aws" and ops[:1] == ["iam"] and len(ops) > 1 else ""
    if re.fullmatch(r"attach-(?:user|role|group)-policy", verb) and any(
        _ADMIN_POLICY.search(v) for v in option_values(words, frozenset({"--policy-arn"}))
    ):
        return "an AWS identity administrator rights over the whole account"
    if re.fullmatch(r"put-(?:user|role|group)-policy", verb) and any(
        _WILDCARD_POLICY.search(v) for v in option_values(words, frozenset({"--policy-document"}))
    ):
        return 'an AWS identity a policy allowing every action ("*") on every resource'
    roles = option_values(words, frozenset({"--role"}))
    if name == "az" and ops[:3] == ["role", "assignment", "create"] and any(_ADMIN_ROLE.search(v) for v in roles):
        return "an Azure identity owner or access-administrator rights over the scope"
    if name == "gcloud" and "add-iam-policy-binding" in ops and any(_ADMIN_ROLE.search(v) for v in roles):
        return "a Google Cloud identity owner, editor or IAM-admin rights"
    return ""


def _words(cmd: Cmd) -> list[str]:
    """Each argument's value (variables resolved where the parser can), one string per word."""
    return [" ".join(cmd.values(w) or [w.literal() or w.text]) for w in cmd.args]


def _list_option(words: list[str], names: frozenset[str]) -> list[str]:
    """Values of an option that takes a list (az ``--source-address-prefixes A B``): every word up
    to the next option, or the ``=`` value."""
    got: list[str] = []
    for i, word in enumerate(words):
        if word in names:
            for value in words[i + 1 :]:
                if value.startswith("-"):
                    break
                got.append(value)
        elif "=" in word and word.partition("=")[0] in names:
            got.append(word.partition("=")[2])
    return got


def _keyed_sql(text: str) -> list[str]:
    """SQL held under a sql/query/statement key of a JSON or YAML argument."""
    return [next(g for g in m.groups() if g is not None) for m in _SQL_KEYS.finditer(text)]


def _platform_sql(cmd: Cmd, words: list[str]) -> list[str]:
    """SQL a data platform, job or script is given to run (not a database client: rule_sql)."""
    name = cmd.name
    if name in SQL_CLIENTS or name in SQL_ALIASES or name in _TEXT_TOOLS:
        return []
    if name == "bq" and words[:1] == ["query"]:
        return []  # rule_sql reads bq query
    names = _SQL_OPTIONS | (_PLATFORM_SQL_OPTIONS if name in _DATA_PLATFORMS else frozenset())
    texts = [t for t in option_values(words, names) if _SQL_START.match(t)]
    if name in _SENDERS:
        for value in option_values(words, _KEYED_ARGS):
            texts.extend(t for t in _keyed_sql(value) if _SQL_START.match(t))
    if name in _SENDERS or name in _DATA_PLATFORMS:
        # A statement given to -e/--sql inside a job's argument list (EMR/Dataproc steps:
        # Args=[spark-sql,-e,DROP TABLE …]): the job runs it on the cluster.
        texts.extend(m.group(1) for w in words for m in _EMBEDDED_SQL.finditer(w))
    # A project program told to run a whole statement (cargo run -- sql "UPDATE …", ./bin/console
    # db:exec "DELETE FROM …", python tools/db.py query "DROP TABLE …"): the program runs it.
    if _runs_program(cmd):
        # (only after a word that says "run this SQL": a test binary fed sample strings is data)
        texts.extend(
            w for prev, w in itertools.pairwise(words) if _SQL_VERB.match(prev) and _SQL_STATEMENT_WORD.match(w)
        )
    # spark.sql("DROP …"), session.sql(…) (Snowpark), duckdb.sql(…): SQL run from code.
    codes = _shell.code_of(cmd) if name in _shell.INTERPRETERS else []
    if name in _SPARK_SHELLS or name in _shell.INTERPRETERS:
        codes.append(cmd.stdin_text or "")
    texts.extend(m.group(2) for code in codes for m in _CODE_DOT_SQL.finditer(code))
    return texts


def _runs_program(cmd: Cmd) -> bool:
    """Whether ``cmd`` starts a program of the project: an interpreter or build tool's run, a
    script or binary called by path."""
    first = cmd.argv[0].literal() or "" if cmd.argv else ""
    return (
        cmd.name in _shell.INTERPRETERS
        or cmd.name in _PROGRAM_RUNNERS
        or "/" in first
        or cmd.name.endswith((".py", ".sh", ".js", ".ts", ".rb", ".pl", ".php"))
    )


def _vacuum_findings(cmd: Cmd, words: list[str]) -> list[Finding]:
    """Delta's VACUUM with a retention under the 7-day safety floor: the files older versions need
    are deleted, so the table's history (time travel, readers still on it) is gone."""
    if cmd.name in _TEXT_TOOLS:
        return []
    texts = [*words, cmd.stdin_text or ""]
    if cmd.name in _shell.INTERPRETERS:
        texts.extend(_shell.code_of(cmd))
    for text in texts:
        m = _VACUUM.search(text)
        if m is None or float(m.group(1)) >= 168:
            continue
        if any(_RETENTION_CHECK_OFF.search(t) for t in texts):
            return [
                (
                    "deny",
                    f"`{cmd.display}` vacuums a Delta table below the 7-day retention floor with the safety "
                    "check switched off, deleting every older version (time travel and running readers "
                    "break). Keep the default retention (RETAIN 168 HOURS or more), or ask the user.",
                )
            ]
        return [
            (
                "ask",
                f"`{cmd.display}` vacuums a Delta table below the 7-day retention floor (older versions "
                "are deleted); confirm, or keep the default retention.",
            )
        ]
    return []


def rule_platform_sql(cmd: Cmd, found: list[Finding]) -> None:
    """SQL through data platforms and jobs, and Delta history vacuumed away (see the module)."""
    words = _words(cmd)
    start = len(found)
    for sql in _platform_sql(cmd, words):
        found.extend(sql_findings(sql, f"`{cmd.display}`"))
    found.extend(_vacuum_findings(cmd, words))
    if production(cmd) or production_host(cmd):
        for i in range(start, len(found)):
            if found[i][0] == "ask":
                found[i] = ("deny", found[i][1].split("; confirm")[0] + " on production. Ask the user to run it.")


# A production name inside one word without separators (Azure storage accounts allow only
# lower-case letters and digits: acmeprodlake); "product" is not production.
_PROD_SQUASHED = _shell.lazy_compile(r"(?i)production|prod(?!uc)")
_PROD_WORD = _shell.lazy_compile(r"(?i)(?:^|[@/.=_:;${-])(?:prod|production|live)(?:$|[.:/_;}-])")
_TOP_WORKSPACE = _shell.lazy_compile(
    r"(?i)^(?:dbfs:)?/*(?:Shared|Users|Repos|Workspace|mnt|user|FileStore)?/*$|^(?:dbfs:)?/+mnt/[^/]+/*$"
)


def _prod_words(words: list[str]) -> bool:
    return any(_PROD_WORD.search(w) for w in words)


def _kafka_offsets(cmd: Cmd, words: list[str]) -> Finding | None:
    """Consumer offsets reset (``--reset-offsets … --execute``) or deleted: messages are skipped or
    re-read by a live consumer. Denied on a production cluster, asked on a remote one."""
    name = cmd.name.removesuffix(".sh")
    resets = "--reset-offsets" in words and "--execute" in words
    deletes = {"--delete", "--delete-offsets"} & set(words) and "--group" in words
    if name == "rpk" and words[:2] == ["group", "seek"]:
        resets = True
    if name not in ("kafka-consumer-groups", "rpk") or not (resets or deletes):
        return None
    servers = option_values(words, frozenset({"--bootstrap-server", "--brokers", "-X"}))
    what = "resets" if resets else "deletes"
    if _prod_words(servers) or _prod_words(option_values(words, frozenset({"--group"}))):
        return (
            "deny",
            f"`{cmd.display}` {what} a consumer group's offsets on a production cluster: unprocessed "
            "messages are skipped (or replayed) for good. Run it with --dry-run and ask the user.",
        )
    if servers and not all(_LOOPBACK.match(s) for s in servers):
        return ("ask", f"`{cmd.display}` {what} a consumer group's offsets on a shared cluster; confirm.")
    return None


def _kafka_retention_purge(cmd: Cmd, words: list[str]) -> Finding | None:
    """``kafka-configs --alter --add-config retention.ms=1000``: the broker deletes every message
    older than a second, the usual way to empty a topic. Denied on production, asked elsewhere
    (a local broker passes)."""
    if cmd.name.removesuffix(".sh") != "kafka-configs" or "--alter" not in words:
        return None
    configs = ",".join(option_values(words, frozenset({"--add-config"})))
    m = re.search(r"retention\.(ms|bytes)=(\d+)", configs)
    if m is None or int(m.group(2)) >= (3_600_000 if m.group(1) == "ms" else 1_048_576):
        return None
    servers = option_values(words, frozenset({"--bootstrap-server", "--zookeeper"}))
    if _prod_words(servers) or _prod_words(option_values(words, frozenset({"--entity-name", "--topic"}))):
        return (
            "deny",
            f"`{cmd.display}` shrinks a production topic's retention so the broker deletes its messages. "
            "Ask the user to purge production topics.",
        )
    if servers and not all(_LOOPBACK.match(s) for s in servers):
        return ("ask", f"`{cmd.display}` shrinks a topic's retention so its messages are deleted; confirm.")
    return None


def _storage_accounts(words: list[str]) -> list[str]:
    return option_values(words, frozenset({"--account-name", "--connection-string"}))


def rule_cloud_deletes(cmd: Cmd, found: list[Finding]) -> None:
    """Production data deleted through cloud and data-platform CLIs (see the module). Deletes on
    other targets keep the verdict of the hosted-data and infrastructure rules."""
    words = _words(cmd)
    ops = [w for w in words if not w.startswith("-")]
    name = cmd.name
    what = ""
    ask = ""
    whole_store = ops[2:3] == ["delete"] and ops[1:2] in (["container"], ["share"], ["account"], ["fs"], ["table"])
    if (
        name == "az"
        and ops[:1] == ["storage"]
        and (whole_store or "delete-batch" in ops[1:4] or ops[1:4] == ["fs", "directory", "delete"])
    ):
        accounts = _storage_accounts(words) + (ops[3:4] if ops[1:2] == ["account"] else [])
        accounts += option_values(words, frozenset({"-n", "--name"})) if ops[1:2] == ["account"] else []
        if any(_PROD_SQUASHED.search(a) for a in accounts) or _prod_words(words):
            what = "deletes a production storage account, container, share or its blobs"
    elif name == "bq" and ops[:1] == ["rm"] and _prod_words(ops[1:]):
        what = "deletes a production BigQuery table or dataset"
    elif name in ("mc", "mcli") and (ops[:1] == ["rb"] or (ops[:1] == ["rm"] and {"-r", "--recursive"} & set(words))):
        # mc rm -r --force ALIAS/BUCKET/…: the alias or bucket names the deployment.
        if _prod_words(ops[1:]) or any(_PROD_WORD.search(o.split("/")[0]) for o in ops[1:]):
            what = "deletes a production MinIO/S3 bucket or everything under a path of it"
    elif (
        (
            name in ("gsutil", "gcloud")
            and "rm" in ops[:3]
            and ({"-r", "-R", "--recursive", "-a"} & set(words) or any(o.endswith("/**") for o in ops))
        )
        or (name == "aws" and ops[:2] == ["s3", "rm"] and "--recursive" in words)
        or (name == "azcopy" and ops[:1] in (["rm"], ["remove"]) and "--recursive" in " ".join(words))
    ):
        urls = [w for w in ops if re.match(r"(?:s3|gs|https)://", w)]
        buckets = [re.sub(r"^\w+://", "", u).split("/")[0] for u in urls]
        if any(
            _PROD_WORD.search(b) or _PROD_SQUASHED.search(b.replace("-", "").replace(".", "")) for b in buckets
        ) and not any(PREVIEW_NAME.search(part) for u in urls for part in u.split("/")[3:]):
            what = "deletes every object under a path of a production bucket"
    elif name == "databricks" and ops[:1] in (["workspace"], ["fs"], ["repos"]) and ({"delete", "rm"} & set(ops[1:2])):
        paths = [o for o in ops[2:] if o.startswith(("/", "dbfs:"))]
        recursive = {"-r", "--recursive"} & set(words)
        if recursive and (any(_TOP_WORKSPACE.match(p) for p in paths) or _prod_words(paths)):
            what = "deletes a shared or production Databricks workspace or DBFS tree with everything in it"
        elif recursive:
            ask = "deletes a Databricks workspace or DBFS folder with everything in it"
    elif (
        name == "databricks"
        and len(ops) > 1
        and ops[0] in ("catalogs", "schemas", "tables", "volumes")
        and ops[1] == "delete"
    ):
        if _prod_words(ops[2:]) or production(cmd):
            what = f"deletes a production Unity Catalog {ops[0][:-1]} with its data"
        else:
            ask = f"deletes a Unity Catalog {ops[0][:-1]} with its data"
    elif name == "aws" and ops[:2] == ["sqs", "purge-queue"]:
        if _prod_words(words):
            what = "purges every message of a production queue"
        else:
            ask = "purges every message of a queue"
    offsets = _kafka_offsets(cmd, words) or _kafka_retention_purge(cmd, words)
    if offsets is not None:
        found.append(offsets)
    if what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what}; production data has no undo. Delete a staging or preview copy, "
                "or ask the user to run it.",
            )
        )
    elif ask:
        found.append(("ask", f"`{cmd.display}` {ask}; confirm this is intended."))


# Ports whose exposure to the internet is an incident: remote administration and data stores.
_ADMIN_PORTS = frozenset(
    {22, 23, 135, 139, 445, 1433, 1521, 2375, 2376, 2379, 3306, 3389, 5432, 5601, 5900, 5984, 6379, 6443, 7000,
     7001, 8020, 8088, 9000, 9042, 9092, 9200, 9300, 10250, 11211, 27017, 27018, 50070}
)  # fmt: skip
_WEB_PORTS = frozenset({80, 443})
_WORLD = _shell.lazy_compile(r"^(?:0\.0\.0\.0/0|::/0|\*|0\.0\.0\.0|internet|any)$", re.I)


def _port_ranges(specs: list[str]) -> list[tuple[int, int]]:
    """Port ranges of ``tcp:0-65535``, ``5432``, ``22,3389``, ``all``, ``-1``, ``*``."""
    ranges: list[tuple[int, int]] = []
    for spec in specs:
        for part in re.split(r"[,\s]+", spec.strip("[]'\"")):
            part = part.rpartition(":")[2] if ":" in part else part
            if part.lower() in ("all", "-1", "*", "tcp", "udp", "icmp", "any"):
                ranges.append((0, 65535))
            elif m := re.fullmatch(r"(\d+)(?:-(\d+))?", part):
                ranges.append((int(m.group(1)), int(m.group(2) or m.group(1))))
    return ranges


def _exposure(ranges: list[tuple[int, int]]) -> str:
    """ "all" (every port or an admin/database port), "some" (other ports) or "" (web only)."""
    if not ranges:
        return "all"
    if any(hi - lo > 1000 or any(lo <= p <= hi for p in _ADMIN_PORTS) for lo, hi in ranges):
        return "all"
    if all(lo == hi and lo in _WEB_PORTS for lo, hi in ranges):
        return ""
    return "some"


def _world_ingress(cmd: Cmd, words: list[str]) -> str | None:
    """The exposure ("all"/"some"/"") of a firewall rule that admits the whole internet, or None."""
    name = cmd.name
    ops = [w for w in words if not w.startswith("-")]
    if name == "gcloud" and ops[:2] == ["compute", "firewall-rules"] and ops[2:3] in (["create"], ["update"]):
        if any(w.lower() in ("--direction=egress", "egress") for w in words) or "--action=deny" in words:
            return None
        sources = ",".join(option_values(words, frozenset({"--source-ranges"})))
        tagged = option_values(words, frozenset({"--source-tags", "--source-service-accounts"}))
        world = any(_WORLD.match(s) for s in sources.split(",")) or (ops[2] == "create" and not sources and not tagged)
        if not world:
            return None
        return _exposure(_port_ranges(option_values(words, frozenset({"--allow", "--rules"}))))
    if name == "aws" and ops[:2] in (
        ["ec2", "authorize-security-group-ingress"],
        ["ec2", "modify-security-group-rules"],
    ):
        joined = " ".join(words)
        if not re.search(r"(?:--cidr(?:-ipv6)?[= ]|CidrIp(?:v6)?\W+)(?:0\.0\.0\.0/0|::/0)", joined):
            return None
        ports = option_values(words, frozenset({"--port"}))
        ports += [f"{a}-{b}" for a, b in re.findall(r"FromPort\W+(-?\d+)\W+.*?ToPort\W+(-?\d+)", joined)]
        if any(p in ("-1", "all") for p in option_values(words, frozenset({"--protocol"}))) or re.search(
            r"IpProtocol\W+-1", joined
        ):
            ports.append("all")
        return _exposure(_port_ranges(ports))
    if name == "az" and ops[:3] == ["network", "nsg", "rule"] and ops[3:4] in (["create"], ["update"]):
        access = option_values(words, frozenset({"--access"}))
        direction = option_values(words, frozenset({"--direction"}))
        if any(a.lower() == "deny" for a in access) or any(d.lower() == "outbound" for d in direction):
            return None
        prefixes = _list_option(words, frozenset({"--source-address-prefixes", "--source-address-prefix"}))
        if not any(_WORLD.match(s) for s in prefixes):
            return None
        ports = _list_option(words, frozenset({"--destination-port-ranges", "--destination-port-range"}))
        return _exposure(_port_ranges(ports))
    return None


def _database_open_to_all(cmd: Cmd, words: list[str]) -> bool:
    """A managed database's firewall opened to every address (start 0.0.0.0, end 255.255.255.255;
    ``--authorized-networks=0.0.0.0/0``)."""
    ops = [w for w in words if not w.startswith("-")]
    if cmd.name == "az" and "firewall-rule" in ops and {"create", "update"} & set(ops):
        ends = option_values(words, frozenset({"--end-ip-address", "--end-ip"}))
        starts = option_values(words, frozenset({"--start-ip-address", "--start-ip"}))
        return any(e == "255.255.255.255" for e in ends) and any(s.startswith("0.") for s in starts)
    if cmd.name == "gcloud" and ops[:2] in (["sql", "instances"], ["container", "clusters"]):
        nets = option_values(words, frozenset({"--authorized-networks", "--master-authorized-networks"}))
        nets = ",".join(nets).split(",")
        return any(n in ("0.0.0.0/0", "::/0") for n in nets)
    return False


def _cluster_port_exposed(cmd: Cmd, words: list[str]) -> str:
    """``kubectl port-forward --address 0.0.0.0`` (every interface of this machine) or ``kubectl
    expose … --type=LoadBalancer`` of an administration or database port (the internet)."""
    if cmd.name != "kubectl":
        return ""
    if "port-forward" in words and any("0.0.0.0" in a for a in option_values(words, frozenset({"--address"}))):
        return "forwards a cluster port on every network interface of this machine"
    balanced = any(t.lower() == "loadbalancer" for t in option_values(words, frozenset({"--type"})))
    ports = option_values(words, frozenset({"--port", "--target-port"}))
    if "expose" in words[:2] and balanced and _exposure(_port_ranges(ports)) == "all" and ports:
        return "exposes a database or administration port to the internet through a load balancer"
    return ""


def _public_copies(cmd: Cmd, words: list[str]) -> str:
    """Data or machine images shared with everyone: an inline bucket policy whose principal is
    ``*`` (any action but reads), an EBS/RDS snapshot or AMI shared with ``all``, a Cloud Storage
    ACL granting AllUsers/AllAuthenticatedUsers or ``public-read``."""
    ops = [w for w in words if not w.startswith("-")]
    joined = " ".join(words)
    if cmd.name == "aws" and ops[:2] == ["s3api", "put-bucket-policy"]:
        policy = " ".join(option_values(words, frozenset({"--policy"})))
        if not policy.startswith("file://") and re.search(r'"Principal"\s*:\s*(?:"\*"|\{\s*"AWS"\s*:\s*"\*")', policy):
            actions = re.findall(r'"(s3:[\w*]+)"', policy)
            if any(not a.startswith(("s3:Get", "s3:List")) for a in actions) or not actions:
                return 'lets anyone on the internet change or delete the bucket\'s objects (Principal "*")'
    if (
        cmd.name == "aws"
        and ops[:2]
        in (
            ["ec2", "modify-snapshot-attribute"],
            ["rds", "modify-db-snapshot-attribute"],
            ["rds", "modify-db-cluster-snapshot-attribute"],
        )
        and re.search(r"(?:--group-names|--values-to-add)[= ]all\b|Group=all", joined)
    ):
        return "makes a disk or database snapshot public: anyone can restore a copy of its data"
    acl_public = re.search(r"(?i)\ball(?:authenticated)?users\b|\bpublic-read(?:-write)?\b", joined)
    if cmd.name == "gsutil" and ops[:1] in (["acl"], ["defacl"]) and acl_public:
        return "grants everyone on the internet access to Cloud Storage objects"
    return ""


# Buckets named for what the public is meant to read (a static site, its assets, downloads).
_SITE_BUCKET = _shell.lazy_compile(
    r"(?i)(?:^|[-_.])(?:www|site|web|static|public|assets|cdn|docs|downloads?)(?:$|[-_.])"
)


def _public_read_policy(cmd: Cmd, words: list[str]) -> bool:
    """An inline bucket policy letting anyone (Principal "*") read a bucket that is not named as
    a public site or asset store."""
    ops = [w for w in words if not w.startswith("-")]
    if cmd.name != "aws" or ops[:2] != ["s3api", "put-bucket-policy"]:
        return False
    policy = " ".join(option_values(words, frozenset({"--policy"})))
    buckets = option_values(words, frozenset({"--bucket"}))
    return bool(
        re.search(r'"Principal"\s*:\s*(?:"\*"|\{\s*"AWS"\s*:\s*"\*")', policy)
        and '"Condition"' not in policy
        and not any(_SITE_BUCKET.search(b) for b in buckets)
    )


def rule_world_open(cmd: Cmd, found: list[Finding]) -> None:
    """Networks and clusters opened to everyone (see the module)."""
    words = _words(cmd)
    exposure = _world_ingress(cmd, words)
    if exposure == "all" or _database_open_to_all(cmd, words):
        found.append(
            (
                "deny",
                f"`{cmd.display}` opens every port, or a remote-administration or database port, to the "
                "whole internet (0.0.0.0/0). Allow the office or VPN range only (e.g. 203.0.113.0/24), or "
                "reach the service through a bastion, IAP or a private endpoint.",
            )
        )
    elif exposure == "some":
        found.append(
            (
                "ask",
                f"`{cmd.display}` opens ports to the whole internet (0.0.0.0/0); confirm, or allow one "
                "address range only.",
            )
        )
    exposed = _cluster_port_exposed(cmd, words)
    if exposed:
        found.append(
            (
                "ask",
                f"`{cmd.display}` {exposed}; confirm, or keep it on localhost (the default) or a ClusterIP service.",
            )
        )
    public = _public_copies(cmd, words)
    if public:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {public}. Share with named accounts or principals only, or ask the user.",
            )
        )
    elif _public_read_policy(cmd, words):
        found.append(
            (
                "ask",
                f'`{cmd.display}` lets anyone on the internet read the bucket (Principal "*"); confirm it '
                "holds only public files, or share single objects with signed URLs.",
            )
        )
    admin = _admin_grant(cmd.name, words)
    if admin:
        found.append(
            (
                "ask",
                f"`{cmd.display}` gives {admin}: it can then read every secret and change or delete any "
                "resource. Confirm it is intended; grant a narrower role (read-only, one service) otherwise.",
            )
        )
    if (
        cmd.name == "kubectl"
        and {"clusterrolebinding", "rolebinding"} & set(words)
        and any(re.search(r"system:(?:authenticated|serviceaccounts)$", w) for w in words)
        and any(re.search(r"(?:cluster-admin|^admin|=admin|edit)$", w) for w in words)
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` gives every authenticated identity (on managed clusters, any account of "
                "the cloud provider) administrative rights. Bind the role to one named user or service "
                "account instead.",
            )
        )


# Where a VM's boot script, an extension's command or a fleet command hides its text.
_SCRIPT_KEYS = _shell.lazy_compile(
    r"(?:^|,)(?:startup-script|windows-startup-script-\w+|user-data|shutdown-script)=(.*)", re.S
)
_KNOWN_MANIFEST_HOSTS = _shell.lazy_compile(
    r"(?i)^(?:https://)?(?:(?:raw\.githubusercontent\.com|github\.com)/(?:kubernetes|kubernetes-sigs|cert-manager|"
    r"jetstack|prometheus-operator|projectcalico|argoproj|istio|fluxcd|knative|tektoncd|kedacore|cilium|"
    r"metallb|strimzi|rancher|grafana|aws|Azure|GoogleCloudPlatform|open-telemetry|kubeflow|spark-on-k8s|"
    r"kubeflow|apache|bitnami-labs|external-secrets|kyverno|open-policy-agent|longhorn|traefik|helm)/|"
    r"(?:[\w-]+\.)*(?:k8s\.io|kubernetes\.io|projectcalico\.org|cert-manager\.io|istio\.io|"
    r"storage\.googleapis\.com/tekton-releases|docs\.tigera\.io)/)"
)


def _machine_scripts(cmd: Cmd, words: list[str]) -> tuple[str, list[str]]:
    """(where, texts) of shell text a cloud CLI installs on machines to run as root."""
    name = cmd.name
    ops = [w for w in words if not w.startswith("-")]
    if (
        name == "gcloud"
        and ops[:1] == ["compute"]
        and ops[1:2] in (["instances"], ["instance-templates"], ["project-info"])
    ):
        texts: list[str] = []
        for value in option_values(words, frozenset({"--metadata"})):
            texts.extend(m.group(1) for m in _SCRIPT_KEYS.finditer(value))
            # startup-script-url=https://…: the script is fetched at every boot (gs:// is the project's own).
            texts.extend(f"curl -fsSL {u} | sh" for u in re.findall(r"startup-script-url=(https?://[^,\s]+)", value))
        return "a VM's startup script (runs as root at every boot)", texts
    if name == "aws" and ops[:2] in (["ec2", "run-instances"], ["ec2", "modify-instance-attribute"]):
        values = option_values(words, frozenset({"--user-data"}))
        return "an instance's user data (runs as root at boot)", [v for v in values if not v.startswith("file://")]
    if name == "aws" and ops[:2] == ["ssm", "send-command"]:
        texts = []
        for value in option_values(words, frozenset({"--parameters"})):
            try:
                data = json.loads(value)
            except ValueError:
                data = None
            if isinstance(data, dict):
                texts.extend(str(c) for c in data.get("commands", []) if isinstance(c, str))
            else:
                m = re.search(r"commands=\[?(.*?)\]?$", value, re.S)
                texts.extend(t.strip("\"' ") for t in (m.group(1).split('","') if m else []))
        return "managed instances (SSM runs it as root)", texts
    if name == "az" and ops[:3] in (["vm", "extension", "set"], ["vmss", "extension", "set"]):
        texts = []
        for value in option_values(words, frozenset({"--settings", "--protected-settings"})):
            try:
                data = json.loads(value)
            except ValueError:
                data = None
            if isinstance(data, dict):
                texts.extend(
                    str(v) for k, v in data.items() if k in ("commandToExecute", "script") and isinstance(v, str)
                )
                uris = [u for u in data.get("fileUris", []) if isinstance(u, str)]
                if any(not re.match(r"https://[\w-]+\.blob\.core\.windows\.net/", u) for u in uris):
                    texts.append("curl -fsSL " + " ".join(uris) + " | sh")  # downloaded scripts that it runs
        return "a VM extension (runs as root on the machine)", texts
    return "", []


def rule_machine_code(cmd: Cmd, check: Check, found: list[Finding]) -> None:
    """Code installed on machines through a cloud CLI (see the module): the text is judged like
    the same command run here; whatever would be stopped is denied, since it runs as root."""
    words = _words(cmd)
    where, texts = _machine_scripts(cmd, words)
    for text in texts:
        got = check(text, cmd.ctx.child(remote=True))
        denied = [r for d, r in got if d == "deny"]
        # Enabling and restarting services is what boot scripts are for: those asks do not count.
        asked = [r for d, r in got if d == "ask" and not r.startswith(("rule persistence:", "rule risky-tool:"))]
        if denied or asked:
            found.append(
                (
                    "deny" if denied else "ask",
                    f"`{cmd.display}` installs code on {where}: {(denied or asked)[0].split(': ', 1)[-1][:200]} "
                    "Put a reviewed script from the project in place instead, or ask the user.",
                )
            )
            return
    upstream: set[str] = set(cmd.stdin_sources)
    for stage in cmd.stage_names[: cmd.stage]:
        upstream |= stage
    applies = cmd.name == "kubectl" and {"apply", "create", "replace"} & set(words[:3])
    if applies and "-" in option_values(words, frozenset({"-f", "--filename"})) and upstream & _shell.DOWNLOADERS:
        found.append(
            (
                "ask",
                f"`{cmd.display}` applies a manifest piped from a download, unread: whatever it holds runs in "
                "the cluster. Save it, read it, and apply the reviewed file; confirm.",
            )
        )
    if cmd.name == "helm" and words[:1] in (["install"], ["upgrade"]):
        charts = [w for w in words[1:4] if re.match(r"https?://", w) and not _KNOWN_MANIFEST_HOSTS.match(w)]
        if charts:
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` installs a chart downloaded from {charts[0]}, outside the well-known "
                    "projects: its templates decide what runs in the cluster. Pull it, read it, and install "
                    "the reviewed copy; confirm.",
                )
            )
    if applies:
        urls = [
            u
            for u in option_values(words, frozenset({"-f", "--filename", "-k", "--kustomize"}))
            if "://" in u or u.startswith("github.com/")
        ]
        unknown = [u for u in urls if not _KNOWN_MANIFEST_HOSTS.match(u)]
        if unknown:
            # A release asset pinned to a version is what install guides use; a branch head
            # (main, master), plain http or a bare address can change under the user at any time.
            pinned = all(re.search(r"^https://.*/(?:releases/download|v?\d+\.\d+[\w.-]*)/", u) for u in unknown)
            found.append(
                (
                    "ask" if pinned else "deny",
                    f"`{cmd.display}` applies a manifest fetched from {unknown[0]}, outside the well-known "
                    "projects: whatever it holds (DaemonSets, cluster roles) runs in the cluster. Download it, "
                    "read it, and apply the reviewed file from the project" + ("; confirm." if pinned else "."),
                )
            )
