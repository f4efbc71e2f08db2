"""secrets_guard on interpreter code that names a secret file in any string form: the home folder
spelled by each language (``expanduser``, ``os.environ['HOME']``, ``Path.home() /``,
``process.env.HOME +``, ``File.expand_path``, ``$ENV{HOME}``, ``getenv("HOME").``, awk's
``ENVIRON["HOME"]``, PowerShell's ``$env:USERPROFILE``), a path kept in a variable, a here-document
fed to the interpreter, and files handed to ``-c``/``-e`` code as operands. Such code is judged as
``cat`` of the file; code that only tests that the file exists, prints its name, reads a public
key or keeps a key private passes. Commands are written for these tests, not taken from the
evaluation sets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, secrets_guard's own decision)
CODE_READS: list[tuple[str, str | None]] = [
    # Python: every way of spelling the home folder, a variable, a copy.
    ("python3 -c \"import os; print(open(os.path.join(os.environ['HOME'], '.netrc')).read())\"", "deny"),
    ("python3 -c \"import os; d=open(os.getenv('HOME') + '/.pgpass').read(); print(d)\"", "deny"),
    ("python -c \"from pathlib import Path; print((Path.home() / '.aws' / 'credentials').read_text())\"", "deny"),
    ("python3 -c \"import os; k=os.path.expanduser('~/.ssh/id_ecdsa'); print(open(k).read())\"", "deny"),
    ("python3 -c \"import shutil,os; shutil.copy(os.path.expanduser('~/.git-credentials'), 'dump.txt')\"", "deny"),
    ("python3 -c \"import os; os.chmod(os.path.expanduser('~/.ssh/id_ed25519'), 0o644)\"", "deny"),
    # Python in a here-document.
    (
        "python3 - <<'PY'\nfrom pathlib import Path\nkey = Path.home() / '.ssh' / 'id_ed25519'\n"
        "print(key.read_text())\nPY",
        "deny",
    ),
    # Node, Ruby, Perl, PHP, awk.
    ('node -e \'console.log(require("fs").readFileSync(require("os").homedir() + "/.npmrc", "utf8"))\'', "deny"),
    (
        'node -e \'const fs=require("fs"); console.log(fs.readFileSync(`${process.env.HOME}/.kube/config`, "utf8"))\'',
        "deny",
    ),
    ('ruby -e \'puts File.read(File.join(Dir.home, ".aws", "credentials"))\'', "deny"),
    ("ruby -e 'print IO.read(Dir.home + \"/.netrc\")'", "deny"),
    ('perl -e \'open my $fh, "<", "$ENV{HOME}/.ssh/id_rsa" or die; print <$fh>\'', "deny"),
    ('php -r \'readfile(getenv("HOME") . "/.pgpass");\'', "deny"),
    ('gawk \'BEGIN { f = ENVIRON["HOME"] "/.git-credentials"; while ((getline l < f) > 0) print l }\'', "deny"),
    # PowerShell spells home $env:USERPROFILE and separates with backslashes.
    ("pwsh -NoProfile -c 'Get-Content $env:USERPROFILE\\.aws\\credentials'", "deny"),
    ('powershell -c "cat $HOME\\.ssh\\id_ed25519"', "deny"),
    # Files given to inline code as operands are its input.
    ("python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read())' ~/.netrc", "deny"),
    ("ruby -ne 'print' .env.production", "deny"),
    ("node -e 'process.stdout.write(require(\"fs\").readFileSync(process.argv[1]))' ~/.ssh/id_ed25519", "deny"),
    # Existence tests, names, public keys, tightening, ordinary files: not reads of a secret.
    ("python3 -c \"import os; print(os.path.isfile(os.path.expanduser('~/.ssh/id_ed25519')))\"", None),
    ("python3 -c \"from pathlib import Path; print((Path.home() / '.aws' / 'credentials').exists())\"", None),
    (
        "python3 - <<'PY'\nimport os\np = os.path.expanduser('~/.netrc')\n"
        "print('configured' if os.path.exists(p) else 'missing')\nPY",
        None,
    ),
    ('node -e \'console.log(require("fs").existsSync(require("os").homedir() + "/.npmrc"))\'', None),
    ("ruby -e 'puts File.file?(File.expand_path(\"~/.aws/credentials\"))'", None),
    (
        'node -e \'const p = require("path").resolve(process.env.HOME + "/.npmrc"); console.log(fs.existsSync(p))\'',
        None,
    ),
    (
        'node -e \'const p = require("path").resolve(process.env.HOME + "/.npmrc"); console.log(fs.readFileSync(p))\'',
        "deny",
    ),
    ('perl -e \'print((-e "$ENV{HOME}/.pgpass") ? "yes\\n" : "no\\n")\'', None),
    ("python3 -c \"import os; print(open(os.path.expanduser('~/.ssh/id_ed25519.pub')).read())\"", None),
    ("python3 -c \"import os; print(len(open(os.path.expanduser('~/.ssh/known_hosts')).readlines()))\"", None),
    ("python3 -c \"import os; os.chmod(os.path.expanduser('~/.ssh/id_rsa'), 0o600)\"", None),
    ("python3 -c \"import os; print(os.listdir(os.path.expanduser('~/.ssh')))\"", None),
    ("python3 -c 'import sys; print(open(sys.argv[1]).read())' README.md", None),
    # A key handed to a client library to log in with is used, not printed (as ssh -i uses it).
    (
        'python3 -c "import os, paramiko; c = paramiko.SSHClient(); '
        "c.connect('ci.example.net', key_filename=os.path.expanduser('~/.ssh/id_ed25519'))\"",
        None,
    ),
    # An env file loaded into a program's environment, not printed.
    ("python3 -c \"from dotenv import load_dotenv; load_dotenv('/srv/app/.env'); import worker\"", None),
    ("python3 -c \"import os; print(open(os.path.expanduser('~/.env')).read())\"", "deny"),
    # Listing a credentials folder prints file names, as `ls ~/.ssh` does; a glob that is then read is a read.
    ("python3 -c \"import os; print(sorted(os.listdir(os.path.expanduser('~/.aws/'))))\"", None),
    ('node -e \'console.log(require("fs").readdirSync(require("os").homedir() + "/.ssh/"))\'', None),
    ("ruby -e 'puts Dir.children(File.expand_path(\"~/.ssh/\"))'", None),
    (
        "python3 -c \"import glob,os; [print(open(f).read()) for f in glob.glob(os.path.expanduser('~/.ssh/id_*'))]\"",
        "deny",
    ),
    ("pwsh -c 'Test-Path $env:USERPROFILE\\.ssh\\id_rsa'", None),
    ("pwsh -c 'Get-Content $env:USERPROFILE\\.ssh\\id_rsa.pub'", None),
]


@pytest.mark.parametrize(("command", "expected"), CODE_READS)
def test_code_naming_a_secret_file(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)
    if expected:
        assert any("secret-file" in r for r in verdict.reasons), verdict.reasons


# (command, secrets_guard's own decision)
STORED_LOGINS: list[tuple[str, str | None]] = [
    # Package registries' publishing keys and Perforce tickets print a credential.
    ("cat ~/.gem/credentials", "deny"),
    ("head ~/.cargo/credentials.toml", "deny"),
    ("cat ~/.config/composer/auth.json", "deny"),
    ("p4 tickets", "deny"),
    ("p4 -p ssl:perforce:1666 -u ci login -p", "deny"),
    ("p4 -u ci changes -m 3", None),
    ("p4 login", None),
]


@pytest.mark.parametrize(("command", "expected"), STORED_LOGINS)
def test_stored_logins(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)


# (command, secrets_guard's own decision)
SECRET_VALUES: list[tuple[str, str | None]] = [
    # Any CLI's subcommand that returns a secret's value prints it.
    ("databricks secrets get-secret ml-scope hf-token", "deny"),
    ("infisical secrets get STRIPE_KEY --env=staging", "deny"),
    ("scw secret version access 11111111-2222 revision=latest", "deny"),
    ("airflow connections get postgres_default --output yaml", "deny"),
    # Listing or describing secrets prints names and metadata.
    ("databricks secrets list-secrets ml-scope", None),
    ("aws secretsmanager describe-secret --secret-id staging/api", None),
    # Airflow's connection list has login, password and get_uri columns: confirmed.
    ("airflow connections list", "ask"),
    ("git secret reveal -f", None),
    # Code that walks the environment and prints what a credential-name filter picks.
    ("python3 -c \"import os; [print(k, v) for k, v in os.environ.items() if 'SECRET' in k]\"", "deny"),
    (
        "node -e 'for (const [k, v] of Object.entries(process.env)) if (/PASSWORD|KEY/.test(k)) console.log(k, v)'",
        "deny",
    ),
    ("ruby -e 'ENV.select { |k, v| k =~ /TOKEN/ }.each { |k, v| puts v }'", "deny"),
    ("python3 -c \"import os; print(sorted(k for k in os.environ if 'TOKEN' in k))\"", "ask"),
    ('python3 -c "import os; print(len(os.environ))"', None),
    ("python3 -c \"import os; print('NPM_TOKEN' in os.environ)\"", None),
    ("node -e 'console.log(\"GH_TOKEN\" in process.env)'", None),
    ("python3 -c \"import os; print({k: v for k, v in os.environ.items() if k.startswith('LC_')})\"", None),
]


@pytest.mark.parametrize(("command", "expected"), SECRET_VALUES)
def test_secret_values_printed(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)


# (command, secrets_guard's own decision)
POWERSHELL_ENVIRONMENT: list[tuple[str, str | None]] = [
    ("pwsh -c 'dir env: | Out-String'", "ask"),
    ('powershell -Command "[System.Environment]::GetEnvironmentVariables()"', "ask"),
    ("pwsh -c 'Write-Host $env:NPM_TOKEN'", "deny"),
    ("pwsh -NoProfile -c '$env:AWS_SECRET_ACCESS_KEY'", "deny"),
    ("pwsh -c 'Write-Output $env:JAVA_HOME'", None),
    ("pwsh -c 'if (-not $env:NPM_TOKEN) { exit 1 }'", None),
    ("pwsh -c '$env:CI = \"true\"; dotnet test'", None),
]


@pytest.mark.parametrize(("command", "expected"), POWERSHELL_ENVIRONMENT)
def test_powershell_environment(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)
