"""secrets_guard: a secret environment variable printed by interpreter code is judged by the one
rule the shell's ``echo "$TOKEN"`` and ``printenv TOKEN`` follow — denied when its value reaches
the output, passed when the code only tests or measures it, or hands it to a program that takes
it. Every case runs all four hooks the way ``dispatch.py`` combines them; the commands are
written for these tests (other languages, variables and call shapes than the evaluation sets)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

SHOWN = [
    # The value is an argument of an output call, directly or through formatting.
    "Rscript -e 'writeLines(Sys.getenv(\"CODECOV_TOKEN\"))'",
    'Rscript --vanilla -e \'print(sprintf("pat: %s", Sys.getenv("GITLAB_PAT")))\'',
    "julia --startup-file=no -e 'print(ENV[\"HF_TOKEN\"])'",
    'julia -e \'display(get(ENV, "WANDB_API_KEY", ""))\'',
    "ruby -e 'STDOUT.write ENV.fetch(\"SHOPIFY_API_SECRET\")'",
    "ruby -e '$stdout.puts ENV[\"TWILIO_AUTH_TOKEN\"]'",
    "node -e 'process.stdout.write(process.env[\"VERCEL_TOKEN\"])'",
    "bun -e 'console.error(Bun.env.CLERK_SECRET_KEY)'",
    "python3 -c \"import os; print('db=' + os.environ['POSTGRES_PASSWORD'])\"",
    "python3 -c \"import os, logging; logging.warning(os.getenv('SENDGRID_API_KEY'))\"",
    "perl -le 'print qq{key=$ENV{MAILGUN_API_KEY}}'",
    "php -r 'print_r(getenv(\"PUSHER_APP_SECRET\"));'",
    "lua5.4 -e 'io.write(os.getenv(\"REDIS_PASSWORD\"))'",
    # A bare output statement (no parentheses).
    "ruby -e 'puts ENV[\"DOCKERHUB_TOKEN\"]'",
    "elixir -e 'IO.inspect System.get_env(\"HEX_API_KEY\")'",
    # A default that prints the value whenever it is set.
    "python3 -c \"import os; print(os.getenv('MAILGUN_API_KEY') or '<unset>')\"",
    "node -e 'console.log(process.env.SENTRY_AUTH_TOKEN || \"none\")'",
    # Assigned first, then printed.
    "python3 -c \"import os; secret = os.environ.get('JWT_SECRET'); print(secret)\"",
    'Rscript -e \'tok <- Sys.getenv("GITHUB_PAT"); cat(tok, "\\n")\'',
    # Interpreters that print the value of what they evaluate.
    "node --print 'process.env.NPM_AUTH_TOKEN'",
    "Rscript -e 'Sys.getenv(\"CONNECT_API_KEY\")'",
    "julia -E 'ENV[\"JULIA_PKG_SERVER_TOKEN\"]'",
]


@pytest.mark.parametrize("command", SHOWN)
def test_secret_variable_printed_by_interpreter_code_is_denied(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == "deny", (command, verdict.reasons)
    reason = next(r for r in verdict.reasons if "[secrets_guard]" in r)
    assert "rule secret-variable" in reason and "test -n" in reason, reason


NOT_SHOWN = [
    # Tested or measured: only whether it is set, or how long it is, reaches the output.
    "Rscript -e 'stopifnot(nzchar(Sys.getenv(\"CODECOV_TOKEN\")))'",
    'Rscript -e \'cat(nchar(Sys.getenv("GITLAB_PAT")) > 0, "\\n")\'',
    'Rscript -e \'Sys.getenv("CONNECT_API_KEY") != ""\'',
    'julia -e \'println(haskey(ENV, "HF_TOKEN") ? "set" : "unset")\'',
    'julia -e \'println(length(get(ENV, "WANDB_API_KEY", "")))\'',
    'ruby -e \'puts ENV.fetch("SHOPIFY_API_SECRET", "").empty? ? "missing" : "ok"\'',
    "node -p 'Boolean(process.env.VERCEL_TOKEN)'",
    "node -e 'console.log(process.env.CLERK_SECRET_KEY?.length ?? 0)'",
    "python3 -c \"import os; print('POSTGRES_PASSWORD' in os.environ)\"",
    "python3 -c \"import os; print(bool(os.getenv('SENDGRID_API_KEY')))\"",
    "perl -e 'print exists $ENV{MAILGUN_API_KEY} ? 1 : 0'",
    'php -r \'echo isset($_ENV["PUSHER_APP_SECRET"]) ? "yes" : "no";\'',
    # Only used in a condition: a fixed word is printed.
    "python3 -c \"import os; print('ok' if os.getenv('MAILGUN_API_KEY') else 'missing')\"",
    'ruby -e \'puts "configured" unless ENV["TWILIO_AUTH_TOKEN"].nil?\'',
    "perl -e 'print \"set\\n\" if $ENV{GITLAB_TOKEN}'",
    'node -e \'console.log(!process.env.SENTRY_AUTH_TOKEN ? "missing" : "ok")\'',
    # Handed to a client or a header: used, not shown.
    "python3 -c \"import os, stripe; stripe.api_key = os.environ['STRIPE_API_KEY']; print(stripe.Balance.list())\"",
    'Rscript -e \'gh::gh("/user", .token = Sys.getenv("GITHUB_PAT"))$login\'',
    # Not secret names.
    'Rscript -e \'cat(Sys.getenv("R_LIBS_USER"), "\\n")\'',
    "julia -e 'println(ENV[\"JULIA_NUM_THREADS\"])'",
    "node -p process.env.NODE_OPTIONS",
    "ruby -e 'puts ENV[\"GEM_HOME\"]'",
    # Piped into a program that takes it as input, like echo "$TOKEN" | docker login --password-stdin.
    "python3 -c \"import os; print(os.environ['GHCR_TOKEN'])\" | docker login ghcr.io -u bot --password-stdin",
    "node -p process.env.NPM_TOKEN | wc -c",
]


@pytest.mark.parametrize("command", NOT_SHOWN)
def test_secret_variable_tested_used_or_piped_in_passes(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] is None, (command, verdict.reasons)


def test_shell_and_code_prints_follow_one_rule(kit: Any, project: Path) -> None:
    """printenv NAME and echo "$NAME" pass when fed to a consumer and are denied when shown,
    exactly like the interpreter forms."""
    for command in (
        "printenv NETLIFY_AUTH_TOKEN",
        'echo "$NETLIFY_AUTH_TOKEN"',
        "printenv NETLIFY_AUTH_TOKEN > out.txt",
    ):
        assert kit.security(kit.bash(command, project)).own["secrets_guard"] == "deny", command
    for command in ("printenv NETLIFY_AUTH_TOKEN | wc -c", "printenv NPM_TOKEN | npm login --auth-type=legacy"):
        assert kit.security(kit.bash(command, project)).own["secrets_guard"] is None, command


STORED_BY_PIPELINE = [
    # A secret store's or platform's secret copied into a file by a later stage, whatever the
    # pipeline prints at the end.
    "vault read -format=json database/creds/readonly | tee creds.json | jq length",
    "vault kv get -mount=kv -field=api_key apps/billing | tee -a .env.local | wc -c",
    "aws ssm get-parameter --name /prod/stripe --with-decryption | tee param.json > /dev/null",
    "op item get Stripe --fields credential --reveal | tee stripe.txt | head -c 0",
    "gcloud secrets versions access 3 --secret=smtp-password | jq -R . > smtp.json",
    "gh auth token | tee ~/.config/ci-token | wc -l",
    "doppler secrets download --no-file --format env | tee .env.doppler | grep -c =",
]


@pytest.mark.parametrize("command", STORED_BY_PIPELINE)
def test_secret_stored_by_a_pipeline_stage_is_confirmed(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] in ("ask", "deny"), (command, verdict.reasons)


NOT_STORED = [
    # Only a count reaches a file or the screen; or the stream is taken by a consumer.
    "vault kv get -format=json kv/apps/billing | wc -l > line-count.txt",
    "aws secretsmanager list-secrets --query 'SecretList[].Name' | tee secret-names.json",
    "vault kv get -field=token kv/ci | docker login registry.example.org -u ci --password-stdin > login.log",
    "op read op://dev/npm/token | wc -c",
    "gh auth status | tee auth-status.txt",
]


@pytest.mark.parametrize("command", NOT_STORED)
def test_counts_consumers_and_names_are_not_stored_secrets(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] is None, (command, verdict.reasons)
