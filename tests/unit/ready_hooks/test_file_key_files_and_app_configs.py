"""secrets_guard on key files known by their name, application settings judged by their
content, and backup copies of credential-bearing configuration.

- Service-account and API key JSON files (``*-sa.json``, ``*-sa-key.json``, ``*-key.json``,
  ``*service-account*.json``, ``firebase-adminsdk-….json``, any JSON in a ``keys/``, ``creds/``
  or ``service-accounts/`` folder) are secret files whichever tool reads them; a schema,
  example, public key set or translation file is not, nor is such a file on this machine that
  holds no key material.
- Files named for the credentials they keep (``credentials.yml``, ``.streamlit/secrets.toml``,
  ``db-credentials.ini``, ``passwords.txt``) are credentials files unless the structured file on
  this machine sets none.
- Applications' settings that may hold a connection string (Airflow's ``airflow.cfg``,
  ``alembic.ini``, dbt's ``profiles.yml``) are read freely when the file on this machine sets no
  password, key or ``user:pass@`` URL; an absent one is still confirmed. Linters' and formatters'
  settings never stop. Jupyter's hand-written ``jupyter_*_config.py`` asks only when it sets a
  token or password; the ``.json`` its password command writes is still confirmed when absent.
- Deleting a backup copy of such configuration (``profiles.yml.orig``, ``database.yml.bak``)
  asks: it may be the only copy. Merge leftovers of code do not.
Commands are written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (tool, path or command, secrets_guard's own decision) with no such file on the machine.
KEY_FILES: list[tuple[str, str, str | None]] = [
    ("Read", "credentials/warehouse-loader-sa.json", "deny"),
    ("Bash", "jq . creds/etl_sa.json", "deny"),
    ("Bash", "base64 -w0 infra/ci-runner-sa-key.json", "deny"),
    ("Bash", "cp deploy/gcp-key.json public/", "deny"),
    ("Bash", "cat config/google-service-account.json", "deny"),
    ("Read", "infra/firebase-adminsdk-x81q.json", "deny"),
    ("Bash", "head -c 300 keys/vertex.json", "deny"),
    ("Bash", "git add service-accounts/scheduler.json", "deny"),
    ("Bash", "cat krb5/etl.keytab", "deny"),
    ("Bash", "openssl pkcs12 -in certs/client.pfx -nodes", "deny"),
    # Benign look-alikes: schemas, docs, keyboard/turkey data, public key sets, translations.
    ("Read", "schemas/service-account.schema.json", None),
    ("Bash", "cat docs/keys.md", None),
    ("Bash", "jq .layout assets/keyboard.json", None),
    ("Bash", "cat data/turkey.json", None),
    ("Bash", "cat keys/jwks.json", None),
    ("Bash", "jq . locales/keys/de.json", None),
    ("Bash", "cat examples/example-sa.json", None),
    ("Bash", "cat .vscode/keybindings.json", None),
]


@pytest.mark.parametrize(("tool", "target", "expected"), KEY_FILES)
def test_key_files_by_name(kit: Any, project: Path, tool: str, target: str, expected: str | None) -> None:
    payload = kit.pre_tool("Read", {"file_path": target}, project) if tool == "Read" else kit.bash(target, project)
    verdict = kit.security(payload)
    assert verdict.own["secrets_guard"] == expected, (target, verdict.reasons)


def test_key_file_judged_by_its_content(kit: Any, project: Path) -> None:
    keys = project / "keys"
    keys.mkdir()
    (keys / "reporting-sa.json").write_text('{"type": "service_account", "private_key_id": "0a1b"}\n')
    (keys / "layout-sa.json").write_text('{"$schema": "x", "properties": {"private_key": {"type": "string"}}}\n')
    hook = kit.load("security/secrets_guard.py")
    real = hook.run(kit.pre_tool("Read", {"file_path": "keys/reporting-sa.json"}, project))
    assert kit.decision(real) == "deny"
    assert "rule secret-file" in kit.reason(real)
    assert kit.decision(hook.run(kit.pre_tool("Read", {"file_path": "keys/layout-sa.json"}, project))) is None
    assert kit.decision(hook.run(kit.bash("jq .properties keys/layout-sa.json", project))) is None
    assert kit.decision(hook.run(kit.bash("cat keys/reporting-sa.json", project))) == "deny"


CREDENTIAL_NAMES: list[tuple[str, str | None]] = [
    ("cat .streamlit/secrets.toml", "deny"),
    ("cat config/credentials.yml", "deny"),
    ("yq . ci/db-credentials.yaml", "deny"),
    ("cat ops/passwords.txt", "deny"),
    ("cat docs/credentials.md", None),
    ("cat src/credentials.py", None),
    ("cat config/credentials.example.yml", None),
    ("cat schemas/credentials.schema.json", None),
]


@pytest.mark.parametrize(("command", "expected"), CREDENTIAL_NAMES)
def test_files_named_for_credentials(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == expected, command


def test_credentials_named_file_with_references_only(kit: Any, project: Path) -> None:
    (project / "config").mkdir()
    (project / "config" / "credentials.yml").write_text("db:\n  password: ${DB_PASSWORD}\n  user: app\n")
    hook = kit.load("security/secrets_guard.py")
    assert kit.decision(hook.run(kit.bash("cat config/credentials.yml", project))) is None
    (project / "config" / "credentials.yml").write_text("db:\n  password: s3cr3t-value\n")
    assert kit.decision(hook.run(kit.bash("cat config/credentials.yml", project))) == "deny"


SETTINGS_READS: list[tuple[str, str | None]] = [
    # Linters' and formatters' settings.
    ("cat .sqlfluff", None),
    ("cat setup.cfg tox.ini", None),
    ("head -40 .pylintrc", None),
    ("bat .prettierrc.json", None),
    ("cat dbt_project.yml", None),
    ("cat .clang-format", None),
    # Application settings that may hold a connection string, absent here: confirmed.
    ("cat airflow/airflow.cfg", "ask"),
    ("cat migrations/alembic.ini", "ask"),
    ("cat profiles/profiles.yml", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), SETTINGS_READS)
def test_settings_reads(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == expected, command


@pytest.mark.parametrize(
    ("relpath", "clean", "with_login"),
    [
        (
            "airflow/airflow.cfg",
            "[core]\nsql_alchemy_conn = sqlite:////tmp/airflow.db\nfernet_key =\n"
            "[webserver]\nauth_backends = airflow.api.auth.backend.session\n",
            "[core]\nsql_alchemy_conn = postgresql+psycopg2://airflow:pw4airflow@pg/airflow\n",
        ),
        (
            "db/alembic.ini",
            "[alembic]\nscript_location = migrations\nsqlalchemy.url = %(DATABASE_URL)s\n",
            "[alembic]\nsqlalchemy.url = postgresql://app:app-pass@localhost/app\n",
        ),
        (
            "profiles/profiles.yml",
            "acme:\n  outputs:\n    dev:\n      type: postgres\n      password: \"{{ env_var('PGPASSWORD') }}\"\n",
            "acme:\n  outputs:\n    dev:\n      type: postgres\n      password: warehouse-pass\n",
        ),
        (
            "airflow/airflow.cfg",
            "[core]\nexecutor = LocalExecutor\n",
            "[core]\nfernet_key = Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==\n",
        ),
    ],
)
def test_app_settings_judged_by_content(kit: Any, project: Path, relpath: str, clean: str, with_login: str) -> None:
    path = project / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    hook = kit.load("security/secrets_guard.py")
    path.write_text(clean)
    assert kit.decision(hook.run(kit.pre_tool("Read", {"file_path": relpath}, project))) is None
    assert kit.decision(hook.run(kit.bash(f"cat {relpath}", project))) is None
    path.write_text(with_login)
    assert kit.decision(hook.run(kit.pre_tool("Read", {"file_path": relpath}, project))) == "ask"
    assert kit.decision(hook.run(kit.bash(f"grep -v '^#' {relpath}", project))) == "ask"


def test_jupyter_settings(kit: Any, project: Path) -> None:
    hook = kit.load("security/secrets_guard.py")
    home = Path.home()
    py = "~/.jupyter/jupyter_lab_config.py"
    assert kit.decision(hook.run(kit.bash(f"cat {py} | grep -v '^#'", project))) is None
    assert kit.decision(hook.run(kit.bash("cat ~/.jupyter/jupyter_server_config.json", project))) == "ask"
    (home / ".jupyter").mkdir()
    (home / ".jupyter" / "jupyter_lab_config.py").write_text("c.ServerApp.token = 'f00dcafe1234'\n")
    assert kit.decision(hook.run(kit.bash(f"cat {py}", project))) == "ask"
    (home / ".jupyter" / "jupyter_lab_config.py").write_text("c.ServerApp.open_browser = False\n")
    assert kit.decision(hook.run(kit.bash(f"cat {py}", project))) is None


CONFIG_COPIES: list[tuple[str, str | None]] = [
    ("rm -f dbt/profiles.yml.orig", "ask"),
    ("rm config/database.yml.bak", "ask"),
    ("shred -u deploy/credentials.yaml.old", "ask"),
    ("rm migrations/alembic.ini~", "ask"),
    ("rm -f src/app.py.orig README.md.orig", None),
    ("rm config/credentials_helper.py.orig", None),
    ("rm tests/fixtures/profiles.yml.bak", None),
]


@pytest.mark.parametrize(("command", "expected"), CONFIG_COPIES)
def test_copies_of_credential_configuration(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == expected, command


DATA_VIEWERS: list[tuple[str, str | None]] = [
    ("python3 -m json.tool keys/ingest-sa.json", "deny"),
    ("gron config/client-credentials.json", "deny"),
    ("fx deploy/gcp-key.json", "deny"),
    ("mlr --ijson --ojson cat .streamlit/secrets.json", "deny"),
    ("python -m json.tool package.json", None),
    ("gron openapi.json | grep paths", None),
    ("mlr --icsv --opprint cat data/orders.csv", None),
]


@pytest.mark.parametrize(("command", "expected"), DATA_VIEWERS)
def test_structured_data_viewers_read_the_file(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == expected, command


ENV_NAMES: list[tuple[str, str | None]] = [
    # Every line cut to its name, then filtered for a credential family: names only (settled: ask).
    ("printenv | cut -d= -f1 | grep -i vault", "ask"),
    ("env | awk -F= '{print $1}' | grep -E '^AWS_'", "ask"),
    ("env | sed 's/=.*//' | grep -i motherduck", "ask"),
    # The values of a data warehouse's variables: denied like env | grep -i stripe.
    ("env | grep -i redshift", "deny"),
    ("printenv | grep -i clickhouse", "deny"),
    # Names or values of variables that are no credentials, and counts.
    ("env | cut -d= -f1 | grep -i cuda", None),
    ("printenv | cut -d= -f1 | grep -c -i token", None),
    ("env | grep -i ^conda_", None),
]


@pytest.mark.parametrize(("command", "expected"), ENV_NAMES)
def test_environment_names_and_warehouse_values(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == expected, command


CI_SEARCHES: list[tuple[str, str | None]] = [
    # CI definitions name their secrets; the values live in the platform's secret store.
    ("cat .github/workflows/publish.yml | grep -n secrets", None),
    ("grep -n -i token .gitlab-ci.yml", None),
    ("rg -n password .circleci/config.yml", None),
    ("grep -n api_key azure-pipelines.yml", None),
    # Configuration that holds values, and env files, still stop.
    ("grep -rn password deploy/", "ask"),
    ("grep -n token charts/api/values.yml", "ask"),
    ("grep -n token .env.ci", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), CI_SEARCHES)
def test_ci_definitions_searched_for_secret_names(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == expected, command


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        (".config/gcloud/legacy_credentials/dev@example.com/adc.json", "deny"),
        (".config/gcloud/access_tokens.db", "deny"),
        (".aws/sso/cache/0f1e2d.json", "deny"),
        (".snowsql/config", "deny"),
        (".snowflake/connections.toml", "deny"),
        (".config/github-copilot/apps.json", "deny"),
        (".codex/auth.json", "deny"),
        (".codex/config.toml", None),
        (".config/gcloud/configurations/config_default", None),
    ],
)
def test_cached_cloud_and_tool_logins(kit: Any, project: Path, rel: str, expected: str | None) -> None:
    payload = kit.pre_tool("Read", {"file_path": str(Path.home() / rel)}, project)
    assert kit.security(payload).own["secrets_guard"] == expected, rel


TOKEN_AND_KEY_EXPORTS: list[tuple[str, str | None]] = [
    # OAuth token files, bare token files, armoured private-key exports, VPN profiles, kubeconfigs.
    ("cat creds/token.json", "deny"),
    ("jq . gmail-oauth-token.json", "deny"),
    ("cat .token", "deny"),
    ("head -1 ci/registry_token.txt", "deny"),
    ("cat gpg/release-secret.asc", "deny"),
    ("cat office/client.ovpn", "deny"),
    ("cat clusters/staging.kubeconfig", "ask"),
    # Look-alikes: ML tokenizers, design tokens, public keys, code about tokens.
    ("cat models/bert/tokenizer.json", None),
    ("jq . models/bert/special_tokens_map.json", None),
    ("cat styles/design-tokens.json", None),
    ("cat KEYS.asc", None),
    ("cat src/auth/refresh_token.py", None),
]


@pytest.mark.parametrize(("command", "expected"), TOKEN_AND_KEY_EXPORTS)
def test_token_files_and_key_exports(kit: Any, project: Path, command: str, expected: str | None) -> None:
    assert kit.security(kit.bash(command, project)).own["secrets_guard"] == expected, command


def test_vpn_profile_judged_by_content(kit: Any, project: Path) -> None:
    hook = kit.load("security/secrets_guard.py")
    profile = project / "vpn.ovpn"
    profile.write_text("client\nremote vpn.example.com 1194\nca ca.crt\ncert me.crt\nkey me.key\n")
    assert kit.decision(hook.run(kit.bash("cat vpn.ovpn", project))) is None
    profile.write_text("client\n<key>\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n</key>\n")
    assert kit.decision(hook.run(kit.bash("cat vpn.ovpn", project))) == "deny"
