"""dangerous_commands: code that runs after all (programs spawned with an argument
list in any language, programs written to a file and run with ``go run``/``deno run``) and
keys written into ``authorized_keys`` where the call cannot show them. Fresh commands, each
with ordinary look-alikes; ``own`` is dangerous_commands' decision alone, ``combined`` what the
four security hooks decide together (any deny → deny, else any ask → ask)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def decide(kit: Any, project: Path, command: str) -> tuple[str | None, str | None]:
    """(dangerous_commands' decision, the strongest decision of the four hooks)."""
    verdict = kit.security(kit.bash(command, project))
    return verdict.own["dangerous_commands"], verdict.combined


# (command, dangerous_commands' own decision)
CASES: dict[str, list[tuple[str, str | None]]] = {
    # A program and its arguments as separate strings: no shell parses them, the program still runs.
    "argv-spawn": [
        ('ruby -e \'system("chown", "-R", "nobody", "/usr")\'', "deny"),
        ('perl -e \'system "rm", "-r", "-f", "/opt"\'', "deny"),
        ('perl -e \'exec("rm", "-rf", $ENV{HOME})\'', "deny"),
        ('node -e \'require("child_process").execFileSync("rm", ["-rf", require("os").homedir()])\'', "deny"),
        ('node -e \'const cp = require("child_process"); cp.spawnSync("chmod", ["-R", "0777", "/var"])\'', "deny"),
        ('ruby -e \'require "open3"; Open3.capture3("rm", "-fr", Dir.home)\'', "deny"),
        ('php -r \'pcntl_exec("/usr/bin/rm", ["-rf", "/srv"]);\'', "deny"),
        ('ruby -e \'system("rake", "db:migrate")\'', None),
        ('perl -e \'system("make", "-j4", "all")\'', None),
        ('node -e \'require("child_process").spawnSync("npx", ["eslint", "src"], {stdio: "inherit"})\'', None),
        ('ruby -e \'system("rm", "-rf", "coverage")\'', None),
        ('perl -e \'system("ls", "-l", "/usr/local")\'', None),
    ],
    # A program written earlier in the line and then compiled and run.
    "written-then-run": [
        (
            "cat > /tmp/purge.go <<'GO'\npackage main\nimport \"os\"\n"
            'func main() { os.RemoveAll("/var/lib/postgresql") }\nGO\ngo run /tmp/purge.go',
            "deny",
        ),
        (
            "cat > /tmp/sh.go <<'GO'\npackage main\nimport \"os/exec\"\n"
            'func main() { exec.Command("rm", "-rf", "/etc").Run() }\nGO\ngo run /tmp/sh.go',
            "deny",
        ),
        (
            "printf 'Deno.removeSync(\"/usr/share\", {recursive: true})\\n' > /tmp/w.ts && deno run -A /tmp/w.ts",
            "deny",
        ),
        (
            'cat > /tmp/hello.go <<\'GO\'\npackage main\nimport ("fmt"; "os")\n'
            'func main() { os.RemoveAll("build/gen"); fmt.Println("ok") }\nGO\ngo run /tmp/hello.go',
            None,
        ),
        ("go run ./cmd/migrate -dry-run", None),
        ("go test ./internal/fs/... -run TestRemoveAll", None),
    ],
    # Whatever lands in authorized_keys may log in, even when the call does not show the key.
    "login-keys": [
        ("cat ~/.ssh/id_rsa.pub | ssh ops@bastion-2 'cat >> .ssh/authorized_keys'", "deny"),
        ("ssh root@build-7 'tee -a /root/.ssh/authorized_keys' < keys/ci.pub", "deny"),
        ("cat team/alice.pub >> ~/.ssh/authorized_keys", "deny"),
        ("install -m 600 keys/robot.pub ~/.ssh/authorized_keys", "deny"),
        ("ssh-keygen -lf ~/.ssh/authorized_keys", None),
        ("chmod 600 ~/.ssh/authorized_keys", None),
        ("wc -l ~/.ssh/authorized_keys", None),
        ("grep -c ssh-ed25519 ~/.ssh/authorized_keys", None),
    ],
}


def test_messages_name_the_rule_and_the_way_out(kit: Any, project: Path) -> None:
    hook = kit.load("security/dangerous_commands.py")
    text = kit.reason(hook.run(kit.bash("cat k.pub | ssh h 'cat >> ~/.ssh/authorized_keys'", project)))
    assert "authorized_keys" in text and "ask the user" in text


# Python argument lists whose elements are worked out (expanduser, Path.home(), environ), and the
# home folder joined to a command string with PHP's ``.`` and Lua's ``..``.
WORKED_OUT: list[tuple[str, str | None]] = [
    ("""python3 -c 'import subprocess, os; subprocess.run(["rm", "-rf", os.path.expanduser("~")])'""", "deny"),
    ("""python3 -c 'import os; os.execvp("rm", ["rm", "-r", "-f", os.environ["HOME"]])'""", "deny"),
    ("""python3 -c 'import subprocess as s, os; s.run(["ls", "-la", os.path.expanduser("~/.config")])'""", None),
    ("""php -r 'passthru("rm -rf " . getenv("HOME"));'""", "deny"),
    ("""lua -e 'os.execute("rm -rf " .. os.getenv("HOME"))'""", "deny"),
    ("""php -r 'system("du -sh " . getenv("HOME"));'""", None),
    ("""lua -e 'print("home: " .. os.getenv("HOME"))'""", None),
]


# Destruction through clients and control planes the rules did not know: Oracle/Hadoop/Trino SQL
# shells, Kafka record deletion, Argo CD applications, Vault's own security switches.
CLIENTS: list[tuple[str, str | None]] = [
    ("sqlplus -s ops/pw@//orders-prod.corp:1521/ORD <<< 'DELETE FROM shipments;'", "deny"),
    ("echo 'DROP TABLE audit_trail;' | sqlplus -s sys/pw@live as sysdba", "deny"),
    ("beeline -u jdbc:hive2://hive-prod:10000 -e 'TRUNCATE TABLE clicks'", "deny"),
    ("trino --server trino-prod:8080 --execute 'DELETE FROM lake.web.sessions'", "deny"),
    ("sqlplus -s app/pw@//localhost:1521/XE <<'SQL'\nSELECT COUNT(*) FROM orders;\nSQL", None),
    ("spark-sql -e 'SELECT count(*) FROM events WHERE dt = current_date()'", None),
    ("kafka-delete-records --bootstrap-server broker-1:9092 --offset-json-file ops/trim.json", "ask"),
    ("kafka-consumer-groups.sh --bootstrap-server localhost:9092 --describe --group billing", None),
    ("argocd app delete checkout-production --cascade --yes", "deny"),
    ("argocd app delete pr-977-preview -y", "ask"),
    ("argocd app sync search-prod --prune", "ask"),
    ("argocd app sync search-staging --prune", None),
    ("argocd app get search-prod --refresh", None),
    ("vault auth disable ldap", "deny"),
    ("vault secrets disable kv-v1", "deny"),
    ("vault audit disable syslog/", "deny"),
    ('vault policy write root-ish - <<\'HCL\'\npath "*" {\n  capabilities = ["sudo", "read"]\n}\nHCL', "deny"),
    ('vault policy write ci-reader - <<\'HCL\'\npath "kv/data/ci/*" { capabilities = ["read"] }\nHCL', None),
    ("vault auth list -detailed", None),
    ("vault secrets list", None),
]


# PowerShell's home folder in a delete statement, and Kafka deletes on a production cluster.
MORE: list[tuple[str, str | None]] = [
    ("pwsh -c 'Remove-Item -Recurse -Force $env:USERPROFILE\\*'", "deny"),
    ("pwsh -NoProfile -Command 'Get-Date; Remove-Item -Recurse ${env:HOME}\\Documents'", "deny"),
    ("pwsh -c 'rd -r -fo $HOME\\Desktop'", "deny"),
    ("pwsh -c 'Get-ChildItem $env:USERPROFILE\\Downloads | Select-Object Name'", None),
    ("pwsh -c 'Remove-Item -Recurse -Force ./bin, ./obj'", None),
    ("kafka-topics --bootstrap-server kafka-prod-2:9092 --delete --topic ledger.v3", "deny"),
    ("rpk topic delete invoices --brokers redpanda.production.svc:9092", "deny"),
    ("kafka-topics.sh --bootstrap-server localhost:9092 --delete --topic it-scratch", "ask"),
    ("kafka-topics.sh --bootstrap-server kafka-prod:9092 --describe --topic ledger.v3", None),
]


# A search index deleted by a name pattern; a production server named in a connection string.
PATTERNS: list[tuple[str, str | None]] = [
    ("curl -s -X DELETE 'http://127.0.0.1:9200/audit-2023.*'", "ask"),
    ("curl --request DELETE https://search.production.corp:9200/orders-*", "deny"),
    ("http DELETE :9200/metrics-*", "ask"),
    ("curl -X DELETE http://localhost:9200/it-scratch-index", None),
    ("curl -s 'http://localhost:9200/_cat/indices/logs-*?v'", None),
    ("dotnet ef database drop -f --connection 'Server=billing-prod;Database=Billing'", "deny"),
    ("dotnet ef database drop -f --connection 'Host=localhost;Database=billing_dev'", "ask"),
    # forward migration on production: a release step, asked (never denied)
    ("dotnet ef database update --connection 'Server=billing-prod;Database=Billing'", "ask"),
    ("dotnet ef database update --connection 'Host=localhost;Database=billing_dev'", None),
]


# A variable whose name says production (not one that merely starts with PROD…).
PROD_VARIABLES: list[tuple[str, str | None]] = [
    ("""mysql --host="$LIVE_DB_HOST" -e 'ALTER TABLE orders DROP COLUMN legacy_ref'""", "deny"),
    ("""psql "${PROD_DSN}" -c 'ALTER TABLE carts DROP COLUMN coupon'""", "deny"),
    ("""psql "$PRODUCT_CATALOG_URL" -c 'ALTER TABLE items DROP COLUMN blurb'""", "ask"),
    ("""psql "$DEV_DB_URL" -c 'ALTER TABLE carts DROP COLUMN coupon'""", "ask"),
    ("""psql "$PROD_DSN" -c 'SELECT count(*) FROM carts'""", None),
]


# Message queues purged or deleted: asked; on a production virtual host or broker, denied.
QUEUES: list[tuple[str, str | None]] = [
    ("rabbitmqctl delete_queue invoices.retry -p live", "deny"),
    ("rabbitmqadmin --vhost=production purge queue name=emails", "deny"),
    ("rabbitmqctl purge_queue local.jobs", "ask"),
    ("rabbitmqadmin list queues name messages", None),
]


# Every case table above, run the same way.
ALL_CASES: dict[str, list[tuple[str, str | None]]] = {
    **CASES,
    "worked-out-arguments": WORKED_OUT,
    "clients-and-control-planes": CLIENTS,
    "powershell-home-and-kafka": MORE,
    "index-patterns-and-connection-strings": PATTERNS,
    "production-variables": PROD_VARIABLES,
    "queue-purges": QUEUES,
}


@pytest.mark.parametrize(
    ("command", "own"),
    [case for cases in ALL_CASES.values() for case in cases],
    ids=[f"{family}:{c[:60]}" for family, cases in ALL_CASES.items() for c, _ in cases],
)
def test_spawned_code_cases(kit: Any, project: Path, command: str, own: str | None) -> None:
    got_own, combined = decide(kit, project, command)
    assert got_own == own, command
    if own is None:
        assert combined is None, command  # the look-alike is ordinary work for every hook
