"""protected_files on git's example hooks and secrets_guard on what a secret store or Terraform
says about its secrets without their values. ``.git/hooks/*.sample`` files are examples git never
runs: deleting them is harmless, deleting an active hook is not. ``vault kv metadata get`` prints
versions and timestamps; ``terraform output -json | jq 'keys'`` prints the outputs' names. The
values themselves stay refused. Commands are written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, protected_files' own decision)
SAMPLE_HOOKS: list[tuple[str, str | None]] = [
    ("rm .git/hooks/*.sample", None),
    ("rm -f .git/hooks/pre-push.sample .git/hooks/commit-msg.sample", None),
    ("rm -rf .git/hooks/fsmonitor-watchman.sample .git/hooks/*.sample", None),
    ("unlink .git/hooks/pre-rebase.sample", None),
    ("rm .git/hooks/pre-commit", "deny"),
    ("rm -rf .git/hooks", "deny"),
    ("rm .git/hooks/*", "deny"),
    ("rm .git/hooks/update.sample .git/hooks/pre-receive", "deny"),
    ("mv .git/hooks/pre-commit.sample .git/hooks/pre-commit", "deny"),
    ("rm -rf .git/hooks/x.sample/../../config", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), SAMPLE_HOOKS)
def test_sample_hooks(kit: Any, project: Path, command: str, expected: str | None) -> None:
    (project / ".git" / "hooks").mkdir(parents=True, exist_ok=True)
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["protected_files"] == expected, (command, verdict.reasons)


# (command, secrets_guard's own decision)
SECRET_METADATA: list[tuple[str, str | None]] = [
    ("vault kv metadata get -mount=kv payments/stripe", None),
    ("vault kv metadata get secrets/ci/deploy-key | grep -i version", None),
    ("terraform -chdir=infra/staging output -json | jq -r 'keys[]'", None),
    ("terraform output -json | yq 'keys'", None),
    ("terraform output -json | jq -r .cluster_endpoint.value", None),
    ("vault kv get -mount=kv payments/stripe", "deny"),
    ("vault kv get -field=api_key secrets/ci/deploy", "deny"),
    ("infisical secrets get STRIPE_KEY", "deny"),
    ("terraform output -json", "ask"),
    ("terraform output -json | jq -r '.[].value'", "ask"),
    ("terraform output -json | jq '.admin_password.value'", "ask"),
]


@pytest.mark.parametrize(("command", "expected"), SECRET_METADATA)
def test_secret_metadata(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)


# Env files written from names typed on the command line with no values: a template, so the
# settled call on making an env file from its template applies (nothing is lost where none exists).
INLINE_TEMPLATES: list[tuple[str, str | None]] = [
    ("echo 'export SENTRY_DSN=' > .env.local", None),
    ("printf 'DATABASE_URL=\\nREDIS_URL=\\n# filled in by ops\\n' > services/api/.env", None),
    ("echo -e 'GRAFANA_TOKEN=\\nPAGERDUTY_KEY=' > .env", None),
    ("echo 'GRAFANA_TOKEN=glsa_live_1234' > .env", "deny"),
    ("echo 'LOG_LEVEL=debug' > .env.local", "deny"),
    ("printf 'API_KEY=%s\\n' \"$KEY\" > .env", "deny"),
    ("echo 'A= B=x' > .env", "deny"),
    ("echo '' > .env", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), INLINE_TEMPLATES)
def test_env_file_from_inline_template(kit: Any, project: Path, command: str, expected: str | None) -> None:
    (project / "services" / "api").mkdir(parents=True, exist_ok=True)
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["protected_files"] == expected, (command, verdict.reasons)


@pytest.mark.parametrize("name", [".env", ".env.local"])
def test_inline_template_over_existing_env_file(kit: Any, project: Path, name: str) -> None:
    (project / name).write_text("SENTRY_DSN=https://abc@o1.ingest.example.io/2\n")
    verdict = kit.security(kit.bash(f"echo 'SENTRY_DSN=' > {name}", project))
    assert verdict.own["protected_files"] == "deny", verdict.reasons
    assert "would overwrite" in verdict.reasons[-1]


# (command, secrets_guard's own decision): hosting and cloud CLIs' stored logins by their folder
# and name, whether or not the file exists here; editors', shells' and viewers' settings are not.
PLATFORM_LOGINS: list[tuple[str, str | None]] = [
    ("cat ~/.config/doctl/config.yaml", "deny"),
    ("less ~/.config/vercel/auth.json", "deny"),
    ("head ~/.config/pulumi/credentials.json", "deny"),
    ("bat ~/.railway/config.json", "deny"),
    ("cat ~/.config/sentry/token", "deny"),
    ("cat ~/.config/starship.toml", None),
    ("cat ~/.config/lazygit/config.yml", None),
    ("cat ~/.config/k9s/config.yaml", None),
    ("cat deploy/fly/config.yml", None),
    ("ls ~/.config/vercel", None),
]


@pytest.mark.parametrize(("command", "expected"), PLATFORM_LOGINS)
def test_platform_cli_logins(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)


# (command, secrets_guard's own decision): a secret scanner's report filtered down to the secrets
# it found is those secrets; where they were found (file, line, rule) is the report's purpose.
SCANNER_REPORTS: list[tuple[str, str | None]] = [
    ("trufflehog filesystem ./services --json | jq -r '.RawV2'", "deny"),
    ("gitleaks dir . -f json -r /dev/stdout | jq '.[] | .Match'", "deny"),
    ("ggshield secret scan path -r . --json | jq '.entities_with_incidents[].incidents[].occurrences[].match'", "deny"),
    ('gitleaks detect -f json -r - | jq -r \'.[] | .File + ":" + (.StartLine|tostring) + " " + .RuleID\'', None),
    ("trufflehog git file://. --json | jq -r '.DetectorName' | sort | uniq -c", None),
    ("trufflehog git file://. --json > reports/th.json", None),
    ("gitleaks detect --redact -v", None),
]


@pytest.mark.parametrize(("command", "expected"), SCANNER_REPORTS)
def test_secret_scanner_reports(kit: Any, project: Path, command: str, expected: str | None) -> None:
    (project / "reports").mkdir(exist_ok=True)
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)


# (command, secrets_guard's own decision): instance credentials whose role name a substitution fills in.
METADATA_ROLES: list[tuple[str, str | None]] = [
    ('wget -qO- "http://169.254.169.254/latest/meta-data/iam/security-credentials/${ROLE}"', "deny"),
    ("curl -sf http://169.254.169.254/latest/meta-data/iam/security-credentials/$(cat /tmp/role)", "deny"),
    ('curl -s "http://169.254.169.254/latest/meta-data/placement/$(echo region)"', None),
    ("curl -s http://169.254.169.254/latest/meta-data/instance-id", None),
]


@pytest.mark.parametrize(("command", "expected"), METADATA_ROLES)
def test_metadata_role_by_substitution(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)
