"""File and credential classes of round 12, each with fresh variants.

* ``cd -`` returns to the directory before the last ``cd`` of the same command (the project, when
  the command left it for a scratch folder); before any ``cd`` it may be anywhere, so it is judged
  as the home folder, as before.
* A temp path named with the shell's own process id (``/tmp/e2e-$$``) is this command's scratch
  space: clearing it passes; other temp paths still ask.
* Provisioning profiles are public (every app ships one): reading or decoding them passes,
  deleting or writing them does not.
* The logs and crash reports the user's tools keep in the home folder (``~/.npm/_logs``,
  ``~/Library/Logs``) may be read; not written or deleted, and not the tool's other files.
* Tool settings that hold no credentials (``~/.tool-versions``, ``~/.condarc``, gh's
  ``config.yml``): a search for one named setting passes, a whole read asks.
* ``git clone URL ../lib`` adds a checkout beside the project (like ``git worktree add ../x``);
  cloning into a dot-folder of the home folder or a system folder stays refused.
* Deleting credentials from the user's keychain or keyring (``security delete-certificate``,
  ``gpg --delete-secret-keys``, ``secret-tool clear``) is refused; a keychain a signing script
  made (``build.keychain``) is scratch.
* Android signing properties (``keystore.properties``, Flutter's ``key.properties``) hold the
  keystore's passwords: reading them is refused; templates, permissions and counts pass.
* ``airflow connections list`` prints every connection's login, password and URI: confirmed.
* Deleting the CI workflow that scans for vulnerabilities or leaked secrets disables a security
  check (protected_files' rule security-check); other workflows and docs are ordinary files.
* ``op item get … --fields password`` prints the secret field.
* Code in a folder named ``secrets`` (``src/secrets/manager.py``) is the module that handles them,
  not a secret; data files there still are.
* Appending a setting to a test env file (``>> .env.test``, ``tee -a .env.ci``) loses nothing;
  overwriting it, or appending to ``.env`` / ``.env.local``, stays refused. Appending a pattern to
  ``.git/info/exclude`` (git's local ignore list) passes; other ``.git`` files stay protected.
* Filtering the environment for a service whose variables are credentials (``env | grep -i
  stripe``) prints them; ``grep -q``/``-c`` print none; ``grep -o`` prints names (asks).

Commands are written for these tests, not taken from the evaluation sets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, combined decision of the four security hooks)
CASES: list[tuple[str, str | None]] = [
    # cd - after a cd returns inside the command's own places.
    ('S=$(mktemp -d) && cd "$S" && unzip -q /PROJECT/build/site.zip && cd - && rm -rf "$S"', None),
    ("cd docs && mkdocs build && cd - && git status --short", None),
    ("cd - && rm -rf ./*", "deny"),
    ("cd ~/.aws; cd /PROJECT; cd -; cat credentials", "deny"),
    # The shell's own process id names its scratch space.
    ('rm -rf "/tmp/playwright-$$" && mkdir -p "/tmp/playwright-$$" && npx playwright test', None),
    ("trap 'rm -rf /tmp/gen.$BASHPID' EXIT; mkdir /tmp/gen.$BASHPID", None),
    ("rm -rf /tmp/$$/..", "deny"),
    ("rm -rf /tmp/job-$$ /tmp/shared-cache", "ask"),
    # Provisioning profiles: public, read or decoded; not deleted.
    ("security cms -D -i ~/Library/MobileDevice/Provisioning\\ Profiles/0a1b.mobileprovision | grep -A1 Name", None),
    ("grep -a -A1 ExpirationDate ~/Library/MobileDevice/Provisioning\\ Profiles/*.mobileprovision", None),
    ("rm -f ~/Library/MobileDevice/Provisioning\\ Profiles/*.mobileprovision", "deny"),
    # Tools' own logs in the home folder.
    ("tail -n 80 ~/.npm/_logs/*-debug-0.log", None),
    ("grep -n 'ERR!' ~/.npm/_logs/2025-01-02T03_04_05_678Z-debug-0.log", None),
    ("head -40 ~/Library/Logs/DiagnosticReports/MyApp-2025-01-02-030405.ips", None),
    ("rm -rf ~/.npm/_logs", "deny"),
    ("cat ~/.npm/_cacache/index-v5/00/aa", "deny"),
    ("cat ~/.npm/_logs/../../.npmrc", "deny"),
    # Tool settings in the home folder.
    ("grep -n nodejs ~/.tool-versions", None),
    ("grep git_protocol ~/.config/gh/config.yml", None),
    ("cat ~/.condarc", None),  # no such file: nothing to show (test_settings_reads_by_content)
    ("grep -i token ~/.config/gh/config.yml", "deny"),
    ("cat ~/.config/gh/hosts.yml", "deny"),
    # Clones beside the project.
    ("git clone --filter=blob:none https://github.com/acme/sdk.git ../sdk", None),
    ("git clone https://github.com/acme/zsh-theme ~/.oh-my-zsh/custom/themes/acme", "deny"),
    ("git clone https://github.com/acme/tool ../../usr/local/tool", "deny"),
    # Keychains and keyrings.
    ('security delete-identity -c "Apple Development: Sam Lee"', "deny"),
    ("security delete-internet-password -s registry.example.com", "deny"),
    ("gpg --batch --yes --delete-secret-and-public-keys 0x1234ABCD", "deny"),
    ("secret-tool clear application acme-cli", "deny"),
    ("security delete-keychain ~/Library/Keychains/login.keychain-db", "deny"),
    ("security delete-keychain ci-signing.keychain", None),
    ("gpg --delete-keys 0x1234ABCD", None),
    # Android signing properties.
    ("cat mobile/android/key.properties", "deny"),
    ("grep -i password app/upload-keystore.properties", "deny"),
    ("head android/release-signing.properties", "deny"),
    ("cat app/keystore.properties.sample", None),
    ("chmod 600 android/key.properties", None),
    ("wc -l android/key.properties", None),
    # Security scanning workflows deleted; other workflows and files.
    ("rm .github/workflows/semgrep.yml", "deny"),
    ("git rm .github/workflows/dependency-review.yml", "deny"),
    ("rm -f .github/workflows/snyk-scan.yaml && git commit -qam 'ci: drop snyk'", "deny"),
    ("rm .github/workflows/nightly-e2e.yml", None),
    ("rm docs/security-model.md", None),
    # 1Password fields.
    ("op item get 'Stripe live' --fields label=secret_key", "deny"),
    ("op item get 'Stripe live' --fields label=username", None),
    # Code in a secrets folder; data there.
    ("cat lib/secrets/rotation.rb", None),
    ("head -50 pkg/secrets/provider.go", None),
    ("cat config/secrets/staging.yml", "deny"),
    ("cat .secrets/api_token", "deny"),
    # Test env files: appends pass.
    ("echo 'REDIS_URL=redis://localhost:6380/1' >> .env.test", None),
    ("printf 'E2E_BASE_URL=http://localhost:4173\n' | tee -a web/.env.ci >/dev/null", None),
    ("echo 'REDIS_URL=redis://localhost:6380/1' > .env.test", "deny"),
    ("echo 'LOG_LEVEL=debug' >> .env.local", "deny"),
    # The repository's local ignore list.
    ("echo 'coverage/' >> .git/info/exclude", None),
    ("printf '%s\\n' .idea/ '*.swp' | tee -a .git/info/exclude", None),
    ("echo 'coverage/' > .git/info/exclude", "deny"),
    ("echo '[core] bare = true' >> .git/config", "deny"),
    # Airflow's connection list.
    ("airflow connections list --output yaml", "ask"),
    ("airflow dags list-import-errors", None),
    # The environment filtered for a service's credentials.
    ("printenv | grep -i anthropic", "deny"),
    ("env | sort | grep -i sendgrid", "deny"),
    ("env | grep -E '^(PG|MYSQL)'", "deny"),
    ("env | grep -q STRIPE_SECRET_KEY && echo configured", None),
    ("printenv | grep -ci openai", None),
    ("env | grep -o '^SENTRY[A-Z_]*'", "ask"),
    ("env | grep -i java_home", None),
    ("printenv | grep -i ^lc_", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES)
def test_round12_file_classes(kit: Any, project: Path, command: str, expected: str | None) -> None:
    command = command.replace("/PROJECT", str(project))
    verdict = kit.security(kit.bash(command, project))
    assert verdict.combined == expected, (command, verdict.reasons)


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("Read", {"file_path": "~/.npm/_logs/2025-debug-0.log"}, None),
        ("Grep", {"pattern": "Exception Type", "path": "~/Library/Logs/DiagnosticReports"}, None),
        ("Write", {"file_path": "~/.npm/_logs/x.log", "content": "x"}, "deny"),
    ],
)
def test_tool_logs_read_by_file_tools(
    kit: Any, project: Path, tool: str, tool_input: dict[str, str], expected: str | None
) -> None:
    home = str(project.parent / "home")
    filled = {k: v.replace("~", home) for k, v in tool_input.items()}
    verdict = kit.security(kit.pre_tool(tool, filled, project))
    assert verdict.combined == expected, (tool, filled, verdict.reasons)


def test_keychain_delete_names_rule_and_alternative(kit: Any, project: Path) -> None:
    result = kit.load("security/secrets_guard.py").run(kit.bash("security delete-certificate -c Acme", project))
    text = kit.reason(result)
    assert "rule credential-store" in text and "ask the user" in text
