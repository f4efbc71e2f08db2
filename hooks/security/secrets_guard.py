"""Keep credentials out of files, commands and the model's context.

Hook: secrets_guard
Event: PreToolUse
Matcher: Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep
Description: Denies writing private keys or API tokens (-----BEGIN … PRIVATE KEY-----,
    AKIA…, ghp_…, github_pat_…, sk-…, xox…-, sk_live_…, AIza…, hf_…, npm_…) with Write/Edit/
    MultiEdit/NotebookEdit or literally in a Bash command; reading or printing secret files
    (.env and .env.*, except .env.example/.sample/.template; SSH private keys; *.key/*.p12;
    ~/.aws/credentials, ~/.netrc, .git-credentials, .npmrc, kube/docker configs,
    /proc/*/environ, browsers' saved passwords and cookies, keyrings and keychains…) with
    Read/Grep or Bash readers (cat, head, grep, cp, sqlite3, curl -d @…, git
    add …); printing secret environment variables (printenv TOKEN, echo $GITHUB_TOKEN,
    env | grep KEY, gh auth token, aws configure get …); platform CLIs that print a stored
    secret, mint a token or print a password-bearing connection string (turso db tokens create,
    neonctl connection-string, pscale password create, fly tokens create, netlify env:get,
    railway variables, supabase projects api-keys, stripe config --list, infisical export,
    pulumi --show-secrets, borg key export, wg showconf) into the transcript or the clipboard;
    platform logins (~/.config/stripe, ~/.wrangler, ~/.fly …) and server key or password files
    (/etc/ssl/private, ssh host keys, /etc/letsencrypt/keys, /etc/wireguard, /etc/restic,
    /etc/mysql/debian.cnf); logs searched for credential values (journalctl | grep bearer),
    printed or sent on to another machine;
    decrypting to the terminal (gpg -d,
    sops -d), setfacl granting read on credentials, Kubernetes Secret values, a database dump
    piped to the network, a file server publishing the home folder, CI run steps that would be
    denied as commands. Answers "ask" for bare env/printenv (dumps every variable), names-only
    filters (cut -d= -f1 .env, sed 's/=.*/=/' .env, env | cut -d= -f1) that print (into a file
    they pass: sed 's/=.*/=/' .env > .env.example, as does a copy whose every value the next
    command cuts in place: cp .env .env.example && sed -i 's/=.*/=/' .env.example), shell
    history, deleting a secret file or a copy, a live-looking key in a test, high-entropy
    values assigned to secret-looking names,
    a platform's secrets pulled into a file (vercel env pull, supabase status -o env), history
    patches searched for credential-looking strings (git log -p -S 'sk_live_') and a unit's
    Environment (systemctl show -p Environment), and a production database's rows dumped into
    a local file (pg_dump/mysqldump/mongodump/bcp naming prod or production, not --schema-only).
    Encrypted files (*.enc, *.gpg, *.age) and public keys are not secrets; a key checked or
    reduced to its public half (openssl rsa -check -noout, -noout -modulus, pkey -pubout; not
    -text) shows nothing of it (workspace_boundary passes the same, outside). Key files named
    with ssh-keygen -f anywhere (id_deploy, id_github_ci, deploy_key, ci-signing-key; no
    extension) are SSH private keys; a bare file named for one secret (approle-secret-id,
    jwt_secret, webhook-secret.txt), ~/.m2/settings.xml and the Azure CLI's token caches are
    secret files, ~/.gradle/gradle.properties may be (reading it asks). Cloud metadata
    endpoints that hand out the instance's credentials (169.254.169.254 …/security-credentials,
    metadata.google.internal …/token, Azure identity/oauth2/token, ECS 169.254.170.2) and
    argocd admin initial-password / account generate-token print credentials. CI script lists
    (GitLab/Bitbucket "script:" with one "- cmd" per line, before_/after_script) are run
    steps. chmod on a secret file is denied when it lets others read it (644, o+r, g+r); an
    absolute mode that leaves the world out (0640, 0440) shares the file with its group the
    way services expect and passes. Interpreter code (python -c, node -e, ruby -e, perl -e, php -r,
    awk, PowerShell, here-documents fed to them) that names a secret file under home or the system
    in any string form (expanduser('~/.ssh/id_rsa'), os.environ['HOME'] + '/.aws/credentials',
    Path.home() / '.netrc', process.env.HOME + …, "$ENV{HOME}/.pgpass", ENVIRON["HOME"] "/…",
    $env:USERPROFILE paths) is judged as cat of it; testing that it exists, listing its folder,
    printing its name, handing a key to a client library (key_filename=) or loading an env file
    without printing pass; a dotenv library's parse of a secret env file that the code prints
    (print(dotenv_values('.env')), p Dotenv.parse(…)) is a read of it (names only: asks; a
    membership test passes). Files given to -c/-e code as operands are its input. Any CLI subcommand
    that returns a secret's value (databricks secrets get-secret, airflow connections get) and
    Perforce tickets print credentials; code walking the environment through a credential-name
    filter prints their values (deny) or names (ask); a PowerShell Env: listing asks. The
    environment filtered for a service whose variables are credentials (env | grep -i stripe,
    printenv | grep -i openai, env | grep ^PG) prints them (deny); grep -q/-c print no line,
    grep -o prints names (ask). Android signing properties (keystore.properties, Flutter's
    key.properties, *signing*.properties) are credentials files. Deleting an encrypted store of
    credentials or its copy (credentials.yml.enc.old, secrets.sops.yaml.bak, vault.kdbx) asks,
    like deleting a plain copy. Rule credential-store: deleting the user's keys and passwords
    from their keychain or keyring (security delete-certificate/-identity/-generic-password,
    delete-keychain of the login or system keychain, gpg --delete-secret-keys, secret-tool
    clear) is denied; a keychain a signing script made (build.keychain) is scratch. airflow
    connections list asks (its table has password and URI columns). Printing the shell history
    asks; filtering it for exports or assignments of secret names (history | grep 'export
    .*TOKEN', fc -l | rg 'PASSWORD=') prints the values and is denied. A reader given a
    listing's output ($(ls …), $(find … -name …), $(readlink -f …), `echo …`, or a listing piped
    through xargs) reads the paths that listing names; a match-everything glob inside a
    credentials folder (~/.gnupg/private-keys-v1.d/*) picks up its keys. An env file named as a
    template the other way round (app.sample.env, example.env, web.template.env) is not secret;
    nor is one on this machine whose every setting is empty or a placeholder (judged by content;
    an absent file with an env file's name stays secret), and an env file copied from a template
    (an in-project file named for an environment that is no credentials file: config/defaults.env)
    may be edited or read by the same command (cp -n only where no env file exists yet). Searches
    of project configuration that drop the credential lines (grep -v password) or match only
    references to secrets by name (!secret, secrets.X, secretKeyRef, ${DB_PASSWORD}, op://) print
    no value and pass. A secret getter or file reduced to a count (| jq '.data | length', | wc -l,
    grep -c, docker inspect -f '{{len .Config.Env}}') prints a number and passes; configuration
    that may hold passwords searched for one named setting that is no credential (grep sdk.dir
    local.properties, cat config/database.yml | grep adapter; no credential word, URL, login or
    signing setting in the pattern, no context lines, no -v) prints that setting and passes. Rule
    personal-data: a file of people's personal data by its name (patient-records.csv,
    customers-export.csv, payroll.xlsx; not test fixtures) uploaded by curl/wget/httpie to a host
    off this machine asks. pip's and helm's user files (~/.config/pip/pip.conf, ~/.pip/pip.conf,
    ~/.config/helm/repositories.yaml) may hold an index login: reading one asks unless it exists
    and holds no user:pass@ URL, password or token. Login-policy system files (sshd_config,
    login.defs, /etc/pam.d, /etc/security) searched for PasswordAuthentication-like settings hold
    no password, and a secret file read into a count (cat .env | wc -l) shows none of it.
    Rule secret-variable is one rule for a secret variable's value printed by the shell (echo
    "$TOKEN", printenv TOKEN) or by interpreter code in any language (print(os.environ[…]),
    cat(Sys.getenv(…)), println(ENV[…]), puts ENV[…], $ENV{…}, getenv(…), System.get_env(…),
    console.log(process.env.…)): shown through an output call (through formatting calls only),
    a bare output statement, a variable printed later, a default (X or 'none'), or an
    interpreter that prints its values (node -p, julia -E, Rscript -e) — denied; tested or
    measured (nchar(…) > 0, len(…), 'X' in os.environ, … if ENV[X], !!process.env.X), handed to
    a client, or piped into a program that takes it (| docker login --password-stdin, | wc -c)
    — passes. A secret getter's output stored by a later pipeline stage (| tee FILE | wc -l,
    | jq . > FILE) is a secret pulled into a file (rule secret-pull, asks); a count written to a
    file is not. A secret variable written into git's configuration (url."https://u:$TOKEN@…"
    .insteadOf, remote URLs) is denied. Package managers' rc files (.npmrc, .yarnrc, .yarnrc.yml)
    are credentials files unless the file on this machine holds no registry login (_authToken,
    npmAuthToken, user:pass@; ${VAR} references are none); R's environment files, Jupyter's
    server settings and Gradle's local.properties are asked unless the file on this machine sets
    no token, password or key; an absent file is never assumed clean. Wi-Fi passphrase files
    (/etc/wpa_supplicant, /var/lib/iwd, /etc/hostapd, a Pi's boot-partition wpa_supplicant.conf)
    and desktop tools' stored logins (~/.p4tickets, ~/.android/adbkey, Steam's config.vdf) are
    secret files. A container's environment filtered for credentials (docker inspect … .Config.Env
    | grep -i pass) is denied like env | grep -i pass. Service-account and API key files are known
    by name whichever tool reads them (*-sa.json, *-sa-key.json, *-key.json, *service-account*.json,
    firebase-adminsdk-….json, token.json, any JSON in keys/, creds/, service-accounts/; not schemas,
    examples, jwks.json or translations), as are files named for the credentials they keep
    (credentials.yml, .streamlit/secrets.toml, passwords.txt), bare token files (.token,
    *_token.txt), armoured private-key exports (*secret*.asc) and OpenVPN profiles; a structured one
    on this machine without key material, a password or a user:pass@ URL is none. Applications'
    settings that may hold a connection string (airflow.cfg, alembic.ini, profiles.yml,
    database.yml) are read freely when the file on this machine sets none (absent: confirmed);
    Jupyter's hand-written jupyter_*_config.py asks only when it sets a token or password. Deleting
    a backup copy of such configuration (profiles.yml.orig, database.yml.bak) asks. CI definitions
    searched for credential words print references and pass. Structured-data viewers (gron, fx,
    jless, dasel, mlr, fq, python -m json.tool) are readers. An environment listing cut to names and
    filtered for a credential family asks; data warehouses' variables (redshift, snow…) are one.
    Cached cloud logins (gcloud access tokens and legacy credentials, AWS SSO/CLI caches, snowsql,
    Snowflake connections, Copilot and Codex OAuth files) are secret files.
    Fails closed on malformed input. (Named secrets_guard, not secrets, so it never shadows
    the standard library's ``secrets`` module on sys.path.)
"""

from __future__ import annotations

import fnmatch
import math
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402
import _shell  # noqa: E402
from _common import Finding  # noqa: E402
from _shell import Cmd, LazyPattern, Word, lazy_compile  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

NAME = "secrets_guard"
EVENTS = frozenset({"PreToolUse"})
MATCHER = "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep"
TOOLS = frozenset({"Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "Read", "Grep"})

TOKEN_PATTERNS: list[tuple[str, LazyPattern]] = [
    (
        "a private key",
        lazy_compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\s|\\n)*[A-Za-z0-9+/=:\-]{16,}"),
    ),
    (
        "an AWS access key id",
        lazy_compile(
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)"
            r"[0-9A-Z]{16}\b"
        ),
    ),
    (
        "an AWS secret access key",
        lazy_compile(r"(?i)aws_?secret_?access_?key[\"']?\s*[=:]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})\b"),
    ),
    (
        "a GitHub token",
        lazy_compile(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|"
            r"github_pat_[A-Za-z0-9_]{22,255})\b"
        ),
    ),
    ("a GitLab token", lazy_compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    (
        "an OpenAI/Anthropic API key",
        lazy_compile(
            r"\bsk-(?:ant-|proj-|svcacct-)?"
            r"[A-Za-z0-9_\-]{20,}"
        ),
    ),
    ("a Slack token", lazy_compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    ("a Slack webhook URL", lazy_compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}")),
    ("a Stripe live key", lazy_compile(r"\b[rs]k_live_[0-9A-Za-z]{20,}")),
    ("a Google API key", lazy_compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("an npm token", lazy_compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("a PyPI token", lazy_compile(r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}")),
    ("a Hugging Face token", lazy_compile(r"\bhf_[A-Za-z0-9]{34,}\b")),
    ("a SendGrid key", lazy_compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b")),
]
GENERIC_ASSIGNMENT = lazy_compile(
    r"(?i)\b(?P<k>[A-Za-z0-9_.\-]*(?:secret|token|passw(?:or)?d|api[_\-]?key|access[_\-]?key|"
    r"private[_\-]?key|client[_\-]?secret|auth[_\-]?key)[A-Za-z0-9_\-]*)[\"']?\s*[:=]\s*"
    r"(?P<q>[\"'])(?P<v>[^\"'\s]{16,})(?P=q)"
)
PLACEHOLDER = lazy_compile(
    r"(?i)example|sample|placeholder|dummy|fake|redacted|changeme|your[_\-]|<|\$\{|\{\{|"
    r"xxxx|0000000|1234567|test[_\-]?(key|token|secret)|abcdef|insecure|change[_\-]?me|"
    r"not[_\-]?(a[_\-]?)?(real|secret)|dev[_\-]?only|for[_\-]?tests?"
)
SAFE_ENV_SUFFIXES = frozenset({"example", "sample", "template", "dist", "defaults", "default", "schema", "tpl", "tmpl"})
SSH_KEY_NAMES = frozenset({"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "identity"})
# ssh-keygen -f names outside ~/.ssh: id_deploy, id_github_ci, deploy_key, ci-deploy-key,
# signing_key. Extensionless only (id_map.json, deploy_key.pub, primary_key.rb are not keys).
SSH_KEY_LIKE = lazy_compile(r"id_[a-z0-9]+(?:[_-][a-z0-9]+)*|[a-z0-9_-]*(?:deploy|ssh|private|signing)[_-]key")
SSH_PUBLIC_FILES = frozenset({"known_hosts", "known_hosts.old", "config", "authorized_keys", "environment"})
KEY_EXTENSIONS = frozenset({".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".p8"})
SECRET_PATH_SUFFIXES = (
    ".aws/credentials", "/.netrc", "/_netrc", "/.pgpass", "/.git-credentials", "/.npmrc",
    "/.pypirc", ".docker/config.json", ".kube/config", ".config/gh/hosts.yml", "/.vault-token",
    "/.my.cnf", "/.boto", "/.s3cfg", "gcloud/credentials.db",
    "gcloud/application_default_credentials.json", "/etc/shadow", "/etc/gshadow",
    "/etc/sudoers", "/environ",
    # Build tools' and cloud CLIs' stored logins: Maven's <server> passwords, Azure CLI tokens.
    ".m2/settings.xml", ".m2/settings-security.xml",
    # Package registries' publishing keys: RubyGems, crates.io, Composer, pub.dev, NuGet.
    ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml", ".composer/auth.json",
    ".config/composer/auth.json", ".pub-cache/credentials.json", ".config/dart/pub-credentials.json",
    ".local/share/gem/credentials", ".azure/accessTokens.json",
    ".azure/msal_token_cache.json", ".azure/msal_token_cache.bin", ".azure/service_principal_entries.json",
    # Platform CLIs' stored logins (API or OAuth tokens, live keys).
    ".config/stripe/config.toml", ".wrangler/config/default.toml", ".fly/config.yml", ".config/flyctl/config.yml",
    ".config/wrangler/config/default.toml", ".config/containers/auth.json", ".config/ngrok/ngrok.yml",
    ".ngrok2/ngrok.yml", "Library/Application Support/ngrok/ngrok.yml", ".config/twilio-cli/config.json",
    ".twilio-cli/config.json", ".config/tea/config.yml", ".config/railway/config.json", ".config/cachix/cachix.dhall",
    ".config/netlify/config.json", ".netlify/config.json", "com.vercel.cli/auth.json",
    # Desktop tools' stored logins and keys: Perforce tickets, adb's private key (adbkey.pub is
    # the public half), Steam's cached login tokens.
    "/.p4tickets", "/p4tickets.txt", ".android/adbkey", "/Steam/config/config.vdf", ".steam/steam/config/config.vdf",
    ".codex/auth.json",
    ".config/turso/settings.json", ".config/neonctl/credentials.json", ".config/planetscale/access-token",
    ".supabase/access-token", ".railway/config.json", ".doppler/.doppler.yaml", ".config/glab-cli/config.yml",
    ".config/hub", ".terraform.d/credentials.tfrc.json", ".config/configstore/firebase-tools.json",
    ".infisical/infisical-config.json", ".config/doctl/config.yaml", ".config/hcloud/cli.toml",
    ".config/rclone/rclone.conf", ".config/restic/password", ".config/borg/keys",
    # Machine-learning hubs' and platforms' API tokens.
    ".cache/huggingface/token", ".huggingface/token", ".kaggle/kaggle.json", "/.databrickscfg", "/.modal.toml",
    # Servers' credential files: database maintenance logins, Kubernetes admin configs.
    "/etc/mysql/debian.cnf", "/etc/rancher/k3s/k3s.yaml", "/etc/kubernetes/admin.conf",
    "/etc/ipsec.secrets",
)  # fmt: skip
# Server folders whose files are private keys or passwords (the public certificates sit elsewhere).
SECRET_SYSTEM_DIRS = (
    "/etc/ssl/private/", "/etc/pki/tls/private/", "/etc/letsencrypt/keys/", "/etc/letsencrypt/accounts/",
    "/etc/wireguard/", "/etc/NetworkManager/system-connections/", "/etc/restic/", "/etc/borgmatic/",
    "/etc/borgmatic.d/", "/root/.ssh/", "/var/lib/docker/secrets/", "/etc/gitlab-runner/",
    # Wi-Fi passphrases: wpa_supplicant's networks (a Raspberry Pi's boot-partition copy too),
    # iwd's saved networks, an access point's hostapd settings.
    "/etc/wpa_supplicant/", "/boot/wpa_supplicant.conf", "/boot/firmware/wpa_supplicant.conf", "/var/lib/iwd/",
    "/etc/hostapd/",
)  # fmt: skip
SECRET_BASENAMES = frozenset(
    {
        "credentials.json",
        "secrets.json",
        "secrets.yml",
        "secrets.yaml",
        ".secrets",
        "master.key",
        ".htpasswd",
        "terraform.tfstate",
        "terraform.tfstate.backup",
        ".netrc",
        ".pgpass",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        ".vault-token",
    }
)
SECRET_BASENAME_GLOBS = (
    "client_secret*.json",
    "service-account*.json",
    "service_account*.json",
    "*-sa-key.json",
    "*privkey*.pem",
    "*private*.pem",
    "*-key.pem",
    "*_key.pem",
    "key.pem",
    "ssh_host_*_key",
    "*.keytab",
    "*-secrets",
    # A bare file named for one secret: Vault's approle-secret-id, jwt_secret, webhook-secret.txt.
    "*secret[-_]id",
    "*secret[-_]id.txt",
    "*[-_]secret",
    "*[-_]secret.txt",
    # A bare token file: github-token.txt, .token, registry_token (not tokens.json, tokenizer.json).
    "token.txt",
    ".token",
    "*[-_]token",
    "*[-_]token.txt",
    # Armoured exports of a private key (gpg --export-secret-keys -a > signing-secret.asc).
    "*secret*.asc",
    "*private*.asc",
    # Android release signing: keystore.properties, Flutter's android/key.properties, signing.properties
    # hold storePassword/keyPassword beside the keystore's path.
    "key.properties",
    "*keystore*.properties",
    "*signing*.properties",
)
READERS = frozenset({
    "plutil",
    "cat", "tac", "nl", "head", "tail", "less", "more", "most", "bat", "batcat", "view", "xxd",
    "hexdump", "od", "strings", "base64", "base32", "sed", "awk", "gawk", "mawk", "grep",
    "egrep", "fgrep", "rg", "ag", "ack", "cut", "sort", "uniq", "diff", "comm", "paste",
    "column", "jq", "yq", "scp", "rsync", "tar", "zip", "7z", "gzip", "bzip2", "xz",
    "openssl", "nc", "ncat", "socat", "mail", "vim", "vi", "nano", "emacs", "code", "subl",
    "iconv", "pbcopy", "xclip", "xsel", "fold", "fmt", "pr", "expand", "rev",
    "cp", "install", "dd", "split", "csplit", "md5sum", "sha1sum", "sha256sum", "sha512sum",
    "b2sum", "cksum", "shasum", "sqlite3",
    # Structured-data viewers print the whole file too.
    "gron", "fx", "jless", "dasel", "mlr", "fq", "jaq", "gojq",
})  # fmt: skip
# Copy-like commands: only their source arguments are read.
COPIERS = frozenset({"cp", "scp", "rsync", "install"})
ENV_DUMPERS = frozenset({"env", "printenv", "set", "export", "declare", "typeset", "compgen"})
PRINTERS = frozenset({"echo", "printf", "print", "cat", "tee", "logger", "wall", "write"})
# Programs that send what they read to another machine.
SENDERS = frozenset(
    {
        "curl",
        "wget",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "ssh",
        "scp",
        "http",
        "xh",
        "mail",
        "sendmail",
        "mutt",
        "telnet",
        "openssl",
    }
)
FILTERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "awk", "sed", "ack"})
SECRET_NAME_TOKENS = frozenset(
    {
        "SECRET",
        "SECRETS",
        "TOKEN",
        "TOKENS",
        "PASSWORD",
        "PASSWORDS",
        "PASSWD",
        "PASS",
        "APIKEY",
        "KEY",
        "KEYS",
        "CREDENTIAL",
        "CREDENTIALS",
        "CREDS",
        "PAT",
        "DSN",
        "PRIVATE",
        "PASSPHRASE",
        "COOKIE",
        "SESSION",
    }
)
SECRET_URL_NAMES = frozenset(
    {
        "DATABASE_URL",
        "DB_URL",
        "REDIS_URL",
        "MONGODB_URI",
        "MONGO_URL",
        "MONGO_URI",
        "AMQP_URL",
        "CELERY_BROKER_URL",
        "POSTGRES_URL",
        "MYSQL_URL",
    }
)
# One environment variable read by code, in any language: os.environ["X"] / .get("X"), getenv("X")
# (C, PHP, Lua, R's Sys.getenv, Go's os.Getenv, Elixir's System.get_env, Java's System.getenv),
# process.env.X / ["X"], Bun.env.X, Deno.env.get("X"), Ruby's ENV["X"] / ENV.fetch("X"), Perl's
# $ENV{X}, PHP's $_ENV["X"], Julia's ENV["X"] / get(ENV, "X", …), Rust's env::var("X"), .NET's
# GetEnvironmentVariable("X"), PowerShell's $env:X.
_CODE_ENV_READ = lazy_compile(
    r"(?:\benviron(?:\.get)?\s*[\[(]|\b[Gg]et_?[Ee]nv\s*\(|\bGetEnvironmentVariable\s*\(|\bprocess\.env(?:\.|\s*\[)"
    r"|\bBun\.env\.|\bDeno\.env\.get\s*\(|\bENV\s*(?:\[|\.fetch\s*\(|\{)|\$ENV\s*\{|\$_(?:ENV|SERVER)\s*\["
    r"|\bget\s*\(\s*ENV\s*,|\benv::var(?:_os)?\s*\(|\$env:)"
    r"\s*\\?[\"'`]?(?P<n>[A-Za-z_][A-Za-z0-9_]*)"
)
# Calls that show their arguments: print/println/printf/puts/p/pp/echo/say/write/writeLines/cat/
# message/display/@show/console.*/IO.puts/fmt.Print*/System.out.*/Write-Output/var_dump, loggers.
_CODE_OUTPUT_CALL = lazy_compile(
    r"(?:@(?:show|info|warn|debug|error)|\b(?:print(?:ln|f|_r)?|puts|pp?|echo|say|write(?:ln|Lines)?|cat|message|"
    r"display|show|warn|die|stop|var_dump|var_export|dump|inspect|console\.\w+|IO\.\w+|fmt\.\w*Print\w*|"
    r"System\.(?:out|err)\.\w+|Write-(?:Output|Host)|(?:sys\.)?std(?:out|err)\.write|\$std(?:out|err)\.\w+|"
    r"STD(?:OUT|ERR)\.\w+|logging\.\w+|logger\.\w+|log\.\w+))$"
)
# Calls and words that turn a value into whether it is set or how long it is: nothing of it shows.
_CODE_TESTS_VALUE = lazy_compile(
    r"(?i)(?:\b(?:len|length|nchar|nzchar|bool|boolean|isempty|is\.null|is\.na|isnothing|isset|empty|defined|"
    r"exists|haskey|has_key|typeof|count|size|sizeof|strlen|mb_strlen|is_empty|blank|present|if|unless|not)"
    r"|!)\W*$"
)
# What follows a read that compares or measures it (X != "", X is None, X.length, X ? … : …, X and
# "set"); never X or "default", which shows X when it is set.
_CODE_TESTED_AFTER = lazy_compile(
    r"[\"'`]?\s*(?:,\s*(?:\"[^\"]*\"|'[^']*'|\w+)\s*)?[\])}]?\s*(?:[!=]==?|[<>]=?|\bis\b|\bin\b|%in%|\?|\.(?:length|size|empty|nil|blank|present|"
    r"startswith|startsWith|start_with|isEmpty|is_empty|len)\b|&&|\band\b)"
)
# Calls that only format or convert a value on its way to an output call.
_CODE_FORMATTERS = frozenset({
    "str", "repr", "format", "paste", "paste0", "sprintf", "string", "String", "toString", "join", "concat",
    "strip", "trim", "upper", "lower", "toupper", "tolower", "f", "fstring", "JSON.stringify", "json.dumps",
    "encodeURIComponent", "quote", "shQuote", "dQuote", "sQuote", "interpolate", "Text", "to_s", "chomp",
})  # fmt: skip
# Interpreters (and their flags) that print the value of the code they are given: node -p,
# julia -E, Rscript -e (R prints each top-level value that is not assigned).
_AUTO_PRINT_FLAGS = {"node": ("-p", "--print"), "nodejs": ("-p", "--print"), "bun": ("-p", "--print"),
                     "julia": ("-E", "--print"), "rscript": ("-e",), "r": ("-e",)}  # fmt: skip


def _enclosing_calls(code: str, start: int) -> list[str]:
    """The names of the calls whose open parenthesis encloses ``code[start]``, innermost first
    (``print(str(os.environ["X"]))`` at the read: ``["str", "print"]``); a call without a name
    (a grouping parenthesis) is ``""``. Stops at the statement's start (``;`` or a new line
    outside parentheses)."""
    names: list[str] = []
    depth = 0
    i = start - 1
    while i >= 0:
        ch = code[i]
        if ch in ")]}":
            depth += 1
        elif ch in "([{":
            if depth:
                depth -= 1
            elif ch == "(":
                m = re.search(r"[@$]?[\w.:-]*$", code[:i].rstrip())
                names.append(m.group().lstrip("$") if m else "")
        elif ch in ";\n" and not depth and not names:
            break
        i -= 1
    return names


def _statement_head(code: str, start: int, stops: str = ";\n{") -> str:
    """The text of the statement before ``code[start]`` (from the last ``;``, new line or ``{``)."""
    cut = max(code.rfind(c, 0, start) for c in stops)
    return code[cut + 1 : start]


def _read_shown(code: str, start: int, end: int, auto_print: bool) -> bool:
    """Whether the environment read (or the variable) at ``code[start:end]`` reaches the output: it is an argument
    of an output call (through formatting calls only), the operand of a bare output statement
    (``puts ENV["X"]``, ``print $ENV{X}``, ``echo getenv("X")``), or a statement of its own in
    code whose values the interpreter prints (``node -p``, ``Rscript -e``). A read that is only
    tested or measured (``nchar(…) > 0``, ``len(…)``, ``… is None``, ``!!process.env.X``) shows
    nothing of the value."""
    if _CODE_TESTED_AFTER.match(code, end):
        return False
    head = _statement_head(code, start)
    # The read's own qualifier (os., Sys., System.) is not what comes before it.
    if _CODE_TESTS_VALUE.search(re.sub(r"[\w.:]*$", "", head)):
        return False
    calls = _enclosing_calls(code, start)
    for name in calls:
        if _CODE_OUTPUT_CALL.search(name):
            return True
        if name and name.split(".")[-1] not in _CODE_FORMATTERS and name not in _CODE_FORMATTERS:
            return False  # handed to another call (a client, a header): used, not shown
    if calls:
        return False
    # A bare output statement: puts ENV["X"], print $ENV{X}, echo getenv("X"), IO.puts …, @show …
    # (in a block, or with the read inside a quote-like literal: print qq{key=$ENV{X}}).
    for bare in (head.strip(), _statement_head(code, start, ";\n").strip()):
        verb = re.match(r"[@$]?[\w.:-]+", bare)
        if verb and _CODE_OUTPUT_CALL.search(verb.group()) and not re.match(r"\s*(?:=(?!=)|<-)", bare[verb.end() :]):
            return True
    bare = head.strip()
    # node -p 'process.env.X', Rscript -e 'Sys.getenv("X")': the statement's value is printed.
    return auto_print and not re.search(r"[=(,]|<-|\breturn\b|\bif\b", bare)


def code_shown_secret_var(code: str, auto_print: bool = False) -> str | None:
    """The secret environment variable that interpreter ``code`` prints, if any: read and shown
    directly (``print(os.environ["X"])``, ``cat(Sys.getenv("X"))``, ``println(ENV["X"])``), or
    assigned to a name the code then shows (``t = os.getenv("X"); print(t)``)."""
    for m in _CODE_ENV_READ.finditer(code):
        name = m.group("n")
        if not is_secret_name(name):
            continue
        if _read_shown(code, m.start(), m.end(), auto_print):
            return name
        bound = re.search(r"([A-Za-z_]\w*)\s*(?:=|<-|:=)\s*[\w.:$]*$", _statement_head(code, m.start()))
        if bound and not _enclosing_calls(code, m.start()):
            var = re.escape(bound.group(1))
            for use in re.finditer(rf"(?<![\w.$]){var}\b|\$(?:\{{)?{var}\b", code[m.end() :]):
                at = m.end() + use.start()
                if re.match(r"\s*(?:=(?!=)|<-)", code[at + len(use.group()) :]):
                    break  # rebound: later uses are another value
                if _read_shown(code, at, at + len(use.group()), auto_print):
                    return name
    return None


# print(os.environ), console.log(process.env), puts ENV.to_h: the whole environment, like `env`.
CODE_PRINTS_ALL_ENV = lazy_compile(
    r"(?:print|console\.log|console\.dir|puts|pp|p|say|dump|json\.dumps|JSON\.stringify)\s*\(?\s*"
    r"(?:dict\(\s*)?(?:os\.environ|process\.env|ENV(?:\.to_h|\.inspect)?|%ENV)\s*\)*\s*(?:[;,\n]|$)"
)
# require('dotenv').config(), import 'dotenv/config', load_dotenv(), Dotenv.load: the .env file's
# values are put into the environment the code then prints.
CODE_LOADS_DOTENV = lazy_compile(r"dotenv['\"]?\)?\.config\(|dotenv/config|load_dotenv\(|Dotenv\.load|dotenv_values\(")
# Code that walks the whole environment (os.environ.items(), Object.entries(process.env), ENV.each,
# %ENV), and the forms that reach the values rather than only the names.
_ENV_ITERATED = _shell.lazy_compile(
    r"os\.environ\.(?:items|keys|values|copy)\(\)|\bfor\s+\w+(?:\s*,\s*\w+)?\s+in\s+os\.environ\b"
    r"|Object\.(?:entries|keys|values)\(\s*process\.env\s*\)"
    r"|\bfor\s*\(\s*(?:const|let|var)?\s*\w+\s+in\s+process\.env\b|\bENV\.(?:each|select|filter|to_h|keys|map|find_all)\b"
    r"|\bkeys\s*\(?\s*%ENV\b|\beach\s*\(?\s*%ENV\b"
)
_ENV_VALUES = _shell.lazy_compile(
    r"\.items\(\)|Object\.(?:entries|values)|\.values\(\)|os\.environ\[\s*\w+\s*\]|os\.environ\.get\(\s*\w+\s*\)"
    r"|process\.env\[\s*\w+\s*\]|\bENV\[\s*\w+\s*\]|\$ENV\{\s*\$\w+\s*\}|\|\s*\w+\s*,\s*\w+\s*\||ENV\.to_h"
)
_CODE_PRINTS = _shell.lazy_compile(
    r"\b(?:print|pprint|console\.(?:log|dir|table)|puts|pp|say|printf|echo|json\.dumps|JSON\.stringify)\b"
)
_QUOTED_WORD = _shell.lazy_compile(r"[\"'/]([^\"'/\n]{2,40})[\"'/]")


def _filters_secret_names(code: str) -> bool:
    """Whether the code's string literals name credentials (a filter on 'KEY', 'TOKEN', 'SECRET' …)."""
    return any(SECRET_PATTERN_WORDS.search(m.group(1)) for m in _QUOTED_WORD.finditer(code))


SECRET_PATTERN_WORDS = lazy_compile(r"(?i)key|token|secret|pass|auth|cred|aws|api|private|pat\b")
# Services whose environment variables are credentials or URLs with passwords in them: a filter
# of the environment for one of them (env | grep -i stripe) prints STRIPE_SECRET_KEY=… too.
_CREDENTIAL_VENDORS = lazy_compile(
    r"(?i)stripe|openai|anthropic|github|gitlab|\bgh_|slack|twilio|sendgrid|mailgun|postmark|sentry|datadog|"
    r"\bdd_|\bhf_|hugging|cloudflare|heroku|vercel|netlify|supabase|firebase|paypal|braintree|algolia|"
    r"pusher|database|\bdb_|\bpg|postgres|mysql|mongo|redis|rabbit|amqp|azure|\bgcp|gcloud|google|vault|jwt|"
    r"session|smtp|oauth|bearer|signing|\bdsn|\bsk_|\bsnow|databricks|pinecone|mistral|cohere|groq|"
    # Data warehouses and brokers: SNOWFLAKE_PASSWORD, REDSHIFT_PASSWORD, MOTHERDUCK_TOKEN, SASL logins.
    r"redshift|clickhouse|motherduck|confluent|sasl"
)


# Hosting, deployment and cloud CLIs keep their login (an API or OAuth token) in a config,
# credentials, auth, hosts or token file in their own folder (~/.config/fly/config.yml,
# ~/.render/cli.yaml is not named so and stays a setting); editors' and shells' settings are
# neither in such a folder nor named so.
_PLATFORM_LOGIN = lazy_compile(
    r"(?i)/\.(?:config/)?(?:fly|flyctl|render|railway|heroku|vercel|netlify|doctl|digitalocean|linode|vultr|"
    r"hcloud|hetzner|scw|scaleway|pulumi|sentry|sentry-cli|circleci|fastly|cloudflare|wrangler|koyeb|deno|"
    r"upstash|aiven|confluent|snyk|tailscale|ngrok|replicate|wandb|runpod|vast|lambda|civo|exoscale|upcloud|"
    r"ovh|akamai|linode-cli|atlas|mongodb|planetscale|neon|turso|supabase|firebase|appwrite|convex|okta|auth0|"
    r"stripe|twilio|sendgrid|datadog|newrelic|pagerduty|grafana|openai|anthropic|huggingface|kaggle|"
    # Data warehouses' clients (snowsql's config, Snowflake's connections) and Copilot's OAuth login.
    r"snowsql|snowflake|github-copilot)/"
    r"(?:config|credentials?|auth|hosts|apps|connections|tokens?|access[-_]tokens?|session)"
    r"(?:\.(?:ya?ml|json|toml|ini|cfg|conf))?$"
    # Cloud CLIs' cached logins: gcloud's access tokens and legacy credentials, AWS SSO/CLI caches.
    r"|/\.config/gcloud/(?:access_tokens\.db|legacy_credentials/.+)$|/\.aws/(?:sso|cli)/cache/[^/]+\.json$"
)


# --------------------------------------------------------------------------- detectors


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    if not text:
        return 0.0
    counts = {c: text.count(c) for c in set(text)}
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _placeholder(value: str) -> bool:
    return bool(PLACEHOLDER.search(value)) or entropy(value) < 3.0


def find_tokens(text: str) -> list[str]:
    """Kinds of live-looking credentials in ``text`` (placeholders and examples ignored)."""
    kinds: list[str] = []
    for kind, pattern in TOKEN_PATTERNS:
        for m in pattern.finditer(text):
            value = m.groupdict().get("v") or m.group()
            if kind != "a private key" and _placeholder(value):
                continue
            if kind not in kinds:
                kinds.append(kind)
            break
    return kinds


def find_generic(text: str) -> list[str]:
    """Secret-looking names assigned high-entropy literal values (``API_KEY = "…"``)."""
    names: list[str] = []
    for m in GENERIC_ASSIGNMENT.finditer(text):
        value = m.group("v")
        classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
        if classes >= 2 and entropy(value) >= 3.5 and not _placeholder(value):
            names.append(m.group("k"))
    return names


def redact(text: str) -> str:
    """``text`` with what :func:`find_tokens` and :func:`find_generic` detect replaced by
    ``[REDACTED]`` (the server uses it for tool input it records in traces)."""
    for kind, pattern in TOKEN_PATTERNS:

        def hide(m: re.Match[str], kind: str = kind) -> str:
            value = m.groupdict().get("v") or m.group()
            if kind != "a private key" and _placeholder(value):
                return m.group()
            return m.group().replace(value, "[REDACTED]")

        text = pattern.sub(hide, text)

    def hide_generic(m: re.Match[str]) -> str:
        value = m.group("v")
        if find_generic(m.group()) and value:
            return m.group().replace(value, "[REDACTED]")
        return m.group()

    return GENERIC_ASSIGNMENT.sub(hide_generic, text)


# Program source: a file of code in a folder named "secrets" is the code that handles them.
SOURCE_EXTENSIONS = frozenset({
    ".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rb", ".java", ".kt", ".rs", ".cs", ".php",
    ".swift", ".scala", ".ex", ".exs", ".c", ".h", ".cpp", ".hpp", ".m", ".dart", ".vue", ".svelte",
})  # fmt: skip
TEST_FOLDERS = frozenset({"tests", "test", "fixtures", "__fixtures__", "testdata", "test_data", "spec", "__tests__"})


# Extensions and name parts of encrypted files: their bytes are ciphertext, useless without a
# key kept elsewhere (config/credentials.yml.enc needs config/master.key), so showing them shows
# no secret. Decrypting them to the terminal is judged separately (_prints_credential).
ENCRYPTED_EXTENSIONS = frozenset({".enc", ".gpg", ".pgp", ".age", ".kdbx", ".sealed"})
ENCRYPTED_PARTS = frozenset({"enc", "sops", "encrypted", "sealed", "vault-encrypted"})


def encrypted_file(path: str) -> bool:
    """Whether ``path`` names an encrypted file: ``credentials.yml.enc``, ``.env.gpg``,
    ``secrets.enc.yaml`` / ``secrets.sops.json`` (sops), ``backup.age``, ``vault.kdbx``."""
    lower = os.path.basename(path.replace("\\", "/").rstrip("/")).lower()
    parts = lower.lstrip(".").split(".")
    return os.path.splitext(lower)[1] in ENCRYPTED_EXTENSIONS or bool(ENCRYPTED_PARTS & set(parts[1:-1]))


def secret_file(path: str, cwd: str | None = None) -> str | None:
    """What kind of secret file ``path`` is, or None. A relative path's file on this machine is
    found from ``cwd`` where its content decides (a key file's name on a JSON without a key)."""
    norm = path.replace("\\", "/")
    if "/./" in norm or "//" in norm[1:]:
        norm = os.path.normpath(norm)  # /etc/./shadow, /etc//shadow name /etc/shadow
    base = os.path.basename(norm.rstrip("/"))
    lower = base.lower()
    if encrypted_file(norm):
        return None
    folders = norm.lower().split("/")[:-1]
    if TEST_FOLDERS & set(folders) and "/.ssh/" not in "/" + norm and not lower.startswith(".env"):
        # tests/fixtures/server.key, testdata/client.pem: keys made for the tests, committed with
        # them, protecting nothing (a .env is still someone's environment).
        return None
    if ("secrets" in folders or ".secrets" in folders) and not (
        SAFE_ENV_SUFFIXES & set(lower.split("."))
        or lower.endswith((".md", ".rst"))
        or lower.startswith("readme")
        # src/secrets/manager.py, internal/secrets/vault.go: the code of a secrets module.
        or os.path.splitext(lower)[1] in SOURCE_EXTENSIONS
    ):
        # /run/secrets/db_password (Docker), /var/run/secrets/…/token (Kubernetes), secrets/prod.json
        return "a file in a secrets folder"
    if lower == ".env" or (lower.endswith(".env") and len(lower) > 4):
        if SAFE_ENV_SUFFIXES & set(re.split(r"[._-]", lower[:-4])):
            return None  # settings.example.env, sample-app.env: templates named the other way round
        return "an environment file with credentials"
    if lower.startswith(".env."):
        # .env.example, .env.example.bak: templates without real values.
        if SAFE_ENV_SUFFIXES & set(lower[5:].split(".")):
            return None
        return "an environment file with credentials"
    if lower in SSH_KEY_NAMES or SSH_KEY_LIKE.fullmatch(lower):
        return "an SSH private key"
    if "/.ssh/" in "/" + norm and not lower.endswith(".pub") and lower not in SSH_PUBLIC_FILES:
        return "an SSH private key"
    if os.path.splitext(lower)[1] in KEY_EXTENSIONS:
        return "a private key"
    if lower.endswith(".ovpn") and not _holds_none(norm, _VPN_KEY, cwd):
        return "a VPN profile with its private key"
    if lower in _PACKAGE_MANAGER_RCS and os.path.isabs(norm):
        # ~/.npmrc holding registry=, save-exact=, ${NPM_TOKEN} references: settings; one holding
        # a registry login (whatever its name says) is a credentials file.
        text = _common.read_text(norm, 65536)
        if text is not None:
            return "a credentials file" if _PACKAGE_MANAGER_LOGIN.search(text) else None
    key_json = lower.endswith(".json") and (
        _KEY_JSON_NAMES.fullmatch(lower) or (_KEY_FOLDERS & set(folders) and not _TRANSLATION_FOLDERS & set(folders))
    )
    not_a_key = bool(_KEY_JSON_NOT_KEYS & set(re.split(r"[._-]", lower)))
    if key_json and not not_a_key and not _holds_none(norm, _KEY_MATERIAL, cwd, limit=262144):
        return "a service-account or API key file"
    if (
        _CREDENTIALS_NAMED.fullmatch(lower)
        and not SAFE_ENV_SUFFIXES & set(re.split(r"[._-]", lower))
        and (lower.endswith(".txt") or not _holds_none(norm, _CONFIG_LOGIN, cwd))
    ):
        return "a credentials file"
    if lower in SECRET_BASENAMES or (not key_json and any(fnmatch.fnmatch(lower, g) for g in SECRET_BASENAME_GLOBS)):
        return "a credentials file"
    if any(("/" + norm).endswith(s) for s in SECRET_PATH_SUFFIXES):
        return "a credentials file"
    if _PLATFORM_LOGIN.search(norm):
        return "a platform CLI's stored login (its API token)"
    if "/.git-crypt/keys/" in "/" + norm or "/.git/git-crypt/keys/" in "/" + norm:
        return "a git-crypt key"
    if norm.startswith(SECRET_SYSTEM_DIRS) and not lower.endswith((".pub", ".md")) and lower != "readme":
        return "a server's private key or password file"
    if _CREDENTIAL_STORE.search(norm):
        return "a browser's or the desktop's credential store (saved passwords, cookies, keyring)"
    return None


# Service-account and API key files by their name (GCP's loader-sa.json, deploy-sa-key.json,
# gcp-key.json, firebase-adminsdk-….json, ci-runner-credentials.json) or any JSON in a folder of
# keys (keys/, creds/, service-accounts/). Schemas, examples and public key sets (jwks.json)
# are none, nor is such a file on this machine that holds no key material.
_KEY_JSON_NAMES = lazy_compile(
    r"(?:.*[-_.])?(?:sa|sa[-_]key|key|creds|credentials|token)\.json|.*service[-_]?account.*\.json|.*adminsdk.*\.json"
)
_KEY_FOLDERS = frozenset({"keys", ".keys", "creds", "credentials", "service-accounts", "service_accounts", "sa-keys"})
# i18n/keys/en.json, locales/keys/de.json: translation keys, not credentials.
_TRANSLATION_FOLDERS = frozenset({"i18n", "l10n", "locale", "locales", "lang", "langs", "translations", "messages"})
_KEY_JSON_NOT_KEYS = frozenset(
    {"schema", "example", "sample", "template", "public", "pub", "jwks", "mock", "fake", "dummy", "design"}
)
_KEY_MATERIAL = lazy_compile(
    r"(?i)PRIVATE KEY-----|\"type\"\s*:\s*\"(?:service_account|authorized_user|external_account)\""
    r"|\"(?:private_key(?:_id)?|client_secret|refresh_token|access_token|secret(?:_key)?|api_?key|access_key|token|password)\""
    r"\s*:\s*\"[^\"]"
)


# OpenVPN profiles embed the client's key (<key>, <tls-auth>, <tls-crypt>) or a login
# (auth-user-pass with a file beside it); one on this machine without them only points elsewhere.
_VPN_KEY = lazy_compile(
    r"(?i)<(?:key|tls-auth|tls-crypt|tls-crypt-v2|pkcs12)>|PRIVATE KEY-----|^\s*auth-user-pass\s+\S"
)


# A file named for the credentials it keeps: config/credentials.yml, .streamlit/secrets.toml,
# deploy/db-credentials.ini, passwords.txt (not credentials_helper.py, docs/credentials.md,
# credentials.example.yml). A structured one on this machine that sets no password, key or
# user:pass@ URL (only ${VAR} references) holds none.
_CREDENTIALS_NAMED = lazy_compile(
    r"(?:[\w-]*[._-])?(?:credentials?|secrets|passwords)\.(?:ya?ml|json|toml|ini|cfg|conf|properties|txt|xml)"
)


# Where browsers and desktops keep saved passwords, session cookies and the keys that decrypt
# them: Firefox/Thunderbird profiles, Chromium-family profiles, GNOME/KDE keyrings, macOS keychains.
_CREDENTIAL_STORE = lazy_compile(
    r"(?i)/(?:\.mozilla/firefox|\.thunderbird|Library/Application Support/(?:Firefox|Thunderbird)(?:/Profiles)?)/"
    r"[^/]+/(?:logins\.json|logins-backup\.json|key[34]\.db|signons\.sqlite|cookies\.sqlite)$"
    r"|/(?:\.config/(?:google-chrome[^/]*|chromium|BraveSoftware/Brave-Browser[^/]*|microsoft-edge[^/]*|vivaldi|opera)"
    r"|Library/Application Support/(?:Google/Chrome[^/]*|Chromium|BraveSoftware/Brave-Browser|Microsoft Edge))/"
    r"(?:[^/]+/)*(?:Login Data(?: For Account)?|Cookies|Web Data|Local State)$"
    r"|/\.local/share/keyrings/[^/]+\.keyring$|/\.local/share/kwalletd/[^/]+\.kwl$"
    r"|/Library/Keychains/(?:[^/]+/)?[^/]+\.keychain(?:-db)?$"
)


# Configuration that often, but not always, holds passwords: reading it is confirmed.
MAYBE_SECRET_BASENAMES = frozenset({
    "database.yml", "wp-config.php", "local_settings.py", "settings_local.py",
    "application-prod.properties", "application-production.properties", "application-prod.yml",
    "application-production.yml", "appsettings.production.json", ".bash_history", ".zsh_history",
    ".psql_history", ".mysql_history", ".python_history", "htpasswd", "vault.yml",
    "terraform.tfvars", ".envrc", "kubeconfig", "kubeconfig.yaml", "kubeconfig.yml", "rclone.conf",
    "sftp-config.json", ".ftpconfig", "airflow.cfg",
    "alembic.ini", "odbc.ini", "pgpass.conf", "my.cnf", ".my.cnf", "profiles.yml",
})  # fmt: skip
# Settings modules per deployment or machine (Django's config/settings/local.py, production.py).
SETTINGS_MODULES = lazy_compile(r"(?:local|production|prod|staging|secrets?)\.py")


def maybe_secret_file(path: str, cwd: str | None = None) -> bool:
    """Whether ``path`` is configuration that may hold passwords (``config/database.yml``). A
    relative path's file on this machine is found from ``cwd``."""
    norm = path.replace("\\", "/").rstrip("/")
    base = os.path.basename(norm).lower()
    full = _shell.normalize(os.path.expanduser(norm), cwd) or norm
    return not encrypted_file(norm) and (
        (base in MAYBE_SECRET_BASENAMES and not (base in _APP_CONFIGS and _holds_none(full, _CONFIG_LOGIN)))
        # The user's Gradle properties hold repository logins and signing passwords, or not.
        or norm.endswith(".gradle/gradle.properties")
        or base.endswith(".kubeconfig")  # prod.kubeconfig: a cluster login, or only a pointer to one
        or base.endswith(".auto.tfvars")
        or MAYBE_SECRET_OVERRIDES.fullmatch(base) is not None
        or (os.path.basename(os.path.dirname(norm)) == "config" and CONFIG_DIR_OVERRIDES.fullmatch(base) is not None)
        or (os.path.basename(os.path.dirname(norm)) == "settings" and SETTINGS_MODULES.fullmatch(base) is not None)
        or (("/" + norm).endswith(_INDEX_LOGIN_FILES) and not _holds_none(norm, _URL_LOGIN, cwd))
        or (
            _TOOL_LOGIN_SETTINGS.fullmatch(base) is not None
            and not _holds_none(full, _SETTING_WITH_LOGIN)
            # Jupyter's start-up .py is written by hand and generated all comments (its password
            # goes to the .json `jupyter server password` writes): asked only when it sets one.
            and (_HAND_WRITTEN_SETTINGS.fullmatch(base) is None or _common.read_text(full, 65536) is not None)
        )
    )


# Applications' settings files that hold a connection string or password only where the
# deployment puts one there (Airflow's sql_alchemy_conn and fernet_key, Alembic's
# sqlalchemy.url, dbt's profiles, Rails' database.yml): the file on this machine that sets no
# password, key or user:pass@ URL (env_var()/${VAR}/%(here)s references are none) is read
# freely; an absent or unreadable one is still confirmed.
_APP_CONFIGS = frozenset({
    "airflow.cfg", "alembic.ini", "profiles.yml", "database.yml", "odbc.ini", "local_settings.py", "settings_local.py",
})  # fmt: skip
_CONFIG_LOGIN = lazy_compile(
    r"(?im)^\s*[\"']?[\w.-]*(?:pass(?:word|wd)?|pwd|secret(?:_key)?|token|api_?key|fernet_key|private_key"
    r"|access_key(?:_id)?|credentials?)[\"']?[ \t]*[=:][ \t]*(?![\"']{0,2}[ \t]*,?[ \t]*$)"
    r"(?![\"']?(?:\$\{|\{\{|%\(|<%|ENV\[|os\.environ|env\())\S"
    r"|://[^/\s:@'\"]+:[^/\s@'\"]+@"
)
_HAND_WRITTEN_SETTINGS = lazy_compile(r"jupyter_(?:server|notebook|lab)_config\.py")


# Package managers' settings files that keep the registry login beside ordinary settings
# (npm's //host/:_authToken=…, yarn's npmAuthToken): a credentials file unless the file on this
# machine holds no login (an absent or unreadable one is never assumed clean).
_PACKAGE_MANAGER_RCS = frozenset({".npmrc", ".yarnrc", ".yarnrc.yml"})
_PACKAGE_MANAGER_LOGIN = lazy_compile(
    r"(?im)^\s*(?:\S*:)?(?:_authToken|_auth|_password|npmAuthToken|npmAuthIdent|npmPassword)\s*[=:]\s*"
    r"[\"']?(?!\$\{|[\"'])\S|://[^/\s:@]+:[^/\s@]+@"
)
# Tools' settings that may hold a login beside the settings: R's environment files
# (GITHUB_PAT=…), Jupyter's server settings (a token, a password hash). Asked, unless the file
# on this machine sets no such value; their start-up code (.Rprofile, startup.jl, ipython_config.py)
# holds none and is ordinary settings.
_TOOL_LOGIN_SETTINGS = lazy_compile(
    r"(?i)\.?renviron(?:\.site)?|jupyter_(?:server|notebook|lab)_config\.(?:json|py)"
    # Gradle's machine-local properties: sdk.dir, and often API keys and signing passwords.
    r"|local\.properties"
)
# A setting named like a credential and given a literal value (not empty, not a ${VAR} reference).
_SETTING_WITH_LOGIN = lazy_compile(
    r"(?i)(?:token|secret|passw|\bpat\b|_pat\b|api_?key|credential|auth)[\w.\"']*\s*[=:]\s*[\"']?(?!\$\{|[\"'])\S"
    r"|://[^/\s:@]+:[^/\s@]+@"
)


def _holds_none(path: str, pattern: LazyPattern, cwd: str | None = None, limit: int = 65536) -> bool:
    """Whether the file at ``path`` (``~`` expanded, a relative one found from ``cwd``) exists on
    this machine and ``pattern`` (a login, key material) matches nothing in it. An absent or
    unreadable file, or a relative one whose folder is unknown, is not assumed to be clean."""
    full = _shell.normalize(os.path.expanduser(path), cwd)
    text = _common.read_text(full, limit) if full else None
    return text is not None and pattern.search(text) is None


# Package indexes' user files, which often carry a user:password@ index URL or a token: pip's
# (~/.config/pip/pip.conf, ~/.pip/pip.conf, /etc/pip.conf, pip.ini) and helm's repository list.
_INDEX_LOGIN_FILES = (
    "/.config/pip/pip.conf", "/.pip/pip.conf", "/etc/pip.conf", "/pip/pip.ini", "/.config/helm/repositories.yaml",
)  # fmt: skip
_URL_LOGIN = lazy_compile(r"(?i)://[^/\s:@]+:[^/\s@]+@|password|passwd|token|secret|auth")


# node-config / config-rs style folders: config/default.yaml is committed, while
# config/local.yaml and config/production.json hold the machine's or the deployment's values.
CONFIG_DIR_OVERRIDES = lazy_compile(r"(?:local|production|prod|staging)(?:-[\w-]+)?\.(?:json|ya?ml|toml|ini)")


# Per-environment and per-machine overrides are where real connection strings and passwords
# go (the committed base file holds placeholders): appsettings.Development.json,
# application-staging.yml, docker-compose.override.yml, settings.local.py, local.settings.json.
MAYBE_SECRET_OVERRIDES = lazy_compile(
    r"appsettings\.[\w-]+\.json|application-[\w-]+\.(?:properties|ya?ml)|"
    r"(?:docker-)?compose\.override\.ya?ml|[\w-]+\.local\.(?:json|ya?ml|toml|ini|php|py|js|ts|rb|conf|cfg)|"
    r"local\.settings\.json|settings[._]local\.\w+"
)


# Names a glob could pick up (cat .e*, head ~/.ssh/id_*), checked with bash's rule that a
# leading dot must be matched explicitly.
SECRET_SAMPLES = (
    ".env",
    ".env.local",
    ".env.production",
    "id_rsa",
    "id_ed25519",
    "credentials.json",
    "secrets.yml",
    "server.key",
    ".netrc",
    ".pgpass",
)


def secret_glob(path: str) -> str | None:
    """What secret file a glob such as ``.e*`` or ``config/*.key`` could expand to."""
    head, base = os.path.split(path)
    if not _shell.has_glob(base) or base in _shell.MATCH_ALL_GLOBS:
        return None
    if re.fullmatch(r"\*(\.[\w.\-]+)", base):
        # Extension-only glob: secret only if the extension itself is (*.key, *.env).
        return secret_file(os.path.join(head, "x" + base[1:]))
    for sample in SECRET_SAMPLES:
        if sample.startswith(".") and not base.startswith("."):
            continue
        if fnmatch.fnmatchcase(sample, base):
            return secret_file(os.path.join(head, sample))
    return None


def is_secret_name(name: str) -> bool:
    """Whether an environment variable name looks like it holds a credential."""
    upper = name.upper()
    if upper in SECRET_URL_NAMES:
        return True
    tokens = set(re.split(r"[_\W]+", upper))
    if "PUBLIC" in tokens or "PATH" in tokens or "FILE" in tokens or "DIR" in tokens:
        return False
    return bool(tokens & SECRET_NAME_TOKENS) or bool(re.search(r"APIKEY|ACCESSKEY", upper))


def _secret_vars(word: Word) -> list[str]:
    names: list[str] = []
    for part in word.parts:
        # ${#TOKEN} (its length) and ${TOKEN:+set} (a fixed word when set) print nothing of it.
        if isinstance(part, _shell.Var) and is_secret_name(part.name) and part.op not in ("length", ":+", "+"):
            names.append(part.name)
        elif isinstance(part, _shell.Var) and part.arg is not None:
            names.extend(_secret_vars(part.arg))
    return names


# Names of values no API takes in a URL (API keys and tokens sometimes are; these never).
_NEVER_IN_URL = frozenset(
    {"SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASS", "PRIVATE", "CREDENTIAL", "CREDENTIALS", "PASSPHRASE"}
)


def _secret_in_query(word: Word) -> str | None:
    """A secret variable placed after the ``?`` of a URL (``https://h/x?k=$AWS_SECRET_ACCESS_KEY``)."""
    seen_query = False
    url = False
    for part in word.parts:
        if isinstance(part, _shell.Lit):
            url = url or "://" in part.text
            seen_query = seen_query or (url and "?" in part.text)
        elif (
            isinstance(part, _shell.Var) and seen_query and set(re.split(r"[_\W]+", part.name.upper())) & _NEVER_IN_URL
        ):
            return part.name
    return None


# --------------------------------------------------------------------------- Bash


_PYTHONS = frozenset({"python", "python3", "py"})


def _read_targets(cmd: Cmd) -> list[Word]:
    """Arguments a reading command reads (sources only for copy-like commands)."""
    name = cmd.name
    lits = [w.literal() or "" for w in cmd.args]
    if name in _PYTHONS and lits[:2] == ["-m", "json.tool"]:
        return [w for w in cmd.args[2:] if not (w.literal() or "").startswith("-")][:1]  # prints the file
    if name not in READERS:
        return []
    if name == "openssl":  # single-dash long options: only -in/-key name files it reads
        checked = _shell.checked_key_words(cmd)  # rsa -check -noout: nothing of the key is shown
        return [
            cmd.args[i + 1]
            for i, lit in enumerate(lits[:-1])
            if lit in ("-in", "-key") and not any(w is cmd.args[i + 1] for w in checked)
        ]
    _flags, positionals, values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS.get(name, frozenset()))
    extra: list[Word] = []
    for lit in lits:
        if lit.startswith("if="):
            extra.append(Word([_shell.Lit(lit[3:], True)], lit[3:]))
    if name in COPIERS:
        return extra + (positionals if values.get("t") else positionals[:-1])
    if name in _shell.PATTERN_FIRST and not ({"e", "f", "regexp", "file", "expression"} & set(values)):
        positionals = positionals[1:]  # the first word is the pattern/program, not a file
    return extra + positionals + values.get("f", []) + values.get("file", [])


# Folders that exist to hold credentials: archiving, copying or searching one whole reads them all.
SECRET_DIRS = (
    ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".password-store",
    ".config/gcloud", ".config/gh", ".config/op", ".local/share/keyrings",
)  # fmt: skip
SECRET_SEARCH_DIRS = (".config", ".local/share", "/etc")


# Server folders that hold private keys beside public certificates (a domain's folder in
# letsencrypt's live/ and archive/ holds its privkey.pem).
SERVER_KEY_FOLDERS = frozenset(
    {d.rstrip("/") for d in SECRET_SYSTEM_DIRS}
    | {"/etc/letsencrypt", "/etc/letsencrypt/live", "/etc/letsencrypt/archive", "/etc/ssl", "/etc/ssh", "/etc/pki"}
)


def secret_dir(path: str) -> bool:
    """Whether ``path`` is (or is inside, as a folder) a credentials folder such as ``~/.aws``,
    or a server folder that holds private keys (``/etc/letsencrypt/live``, ``/etc/ssl/private``)."""
    norm = "/" + path.replace("\\", "/").strip("/")
    return server_key_folder(norm) or any(norm.endswith("/" + d) for d in SECRET_DIRS)


def server_key_folder(path: str) -> bool:
    """Whether ``path`` is a server folder that holds private keys (``/etc/ssl/private``, a
    domain's folder under ``/etc/letsencrypt/live``)."""
    norm = "/" + path.strip("/")
    return norm in SERVER_KEY_FOLDERS or os.path.dirname(norm) in ("/etc/letsencrypt/live", "/etc/letsencrypt/archive")


def _searches_for_secrets(cmd: Cmd, value: str) -> bool:
    """``grep -r password ~/.config``: a search for credential words through the user's or the
    system's configuration prints whatever secrets it finds (in the project it finds code)."""
    if cmd.name not in FILTERS or cmd.name in ("awk", "sed"):
        return False
    pattern = next((w.literal() or w.text for w in cmd.args if not (w.literal() or "").startswith("-")), "")
    if not SECRET_PATTERN_WORDS.search(pattern) or _auth_policy_file(value):
        return False
    return _configuration_folder(value, cmd.ctx.home)


# System files that set how logins work (password ageing, PAM modules, sshd's allowed methods)
# and hold no password: a security review greps them for PasswordAuthentication or pam_pwquality.
_AUTH_POLICY_FILES = frozenset(
    {"sshd_config", "ssh_config", "login.defs", "pwquality.conf", "faillock.conf", "access.conf", "nsswitch.conf"}
)
_AUTH_POLICY_FOLDERS = ("/etc/pam.d/", "/etc/ssh/sshd_config.d/", "/etc/ssh/ssh_config.d/", "/etc/security/")


def _auth_policy_file(value: str) -> bool:
    """Whether ``value`` names one login-policy file (``/etc/ssh/sshd_config``, ``/etc/pam.d/sshd``)."""
    norm = os.path.normpath("/" + value.strip("/"))
    if _shell.has_glob(norm) and not norm.startswith(_AUTH_POLICY_FOLDERS):
        return False
    return os.path.basename(norm) in _AUTH_POLICY_FILES or norm.startswith(_AUTH_POLICY_FOLDERS)


def _configuration_folder(value: str, home: str | None) -> bool:
    """Whether ``value`` is the system's or the user's configuration (``/etc``, ``~/.config``,
    the home folder itself), where a search for credential words finds stored passwords."""
    norm = "/" + value.strip("/")
    home = "/" + home.strip("/") if home else None
    if norm == "/etc" or norm.startswith("/etc/"):
        return True
    return home is not None and (
        norm == home or any(norm == f"{home}/{d}" or norm.startswith(f"{home}/{d}/") for d in SECRET_SEARCH_DIRS)
    )


# Credential words (not bare "key" or "auth", which name code too) and configuration files.
_CREDENTIAL_WORDS = lazy_compile(r"(?i)pass(?:word|wd)|secret|token|api[_-]?key|private[_-]?key|credential")
_CONFIG_EXTENSIONS = (
    ".properties", ".gradle", ".kts", ".yml", ".yaml", ".ini", ".cfg", ".conf", ".toml", ".xml", ".json",
    ".tfvars", ".plist", ".env",
)  # fmt: skip
_CONFIG_FOLDERS = frozenset({"config", "configs", "conf", "settings", "deploy", "k8s", "helm", "charts", "secrets"})
_SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})
# How configuration refers to a secret by name instead of holding it: Home Assistant's
# ``!secret db_pass``, GitHub Actions' ``${{ secrets.NPM_TOKEN }}``, Kubernetes' ``secretKeyRef``,
# placeholders ``${DB_PASSWORD}`` filled from the environment, 1Password's ``op://``, SSM/Vault
# lookups. A search for such a reference prints names; a pattern with alternatives (``|``) may
# match a value too, so it never counts as one.
_SECRET_REFERENCE = lazy_compile(
    r"!secret\b|\bsecrets\\?\.|secret(?:Key)?Ref\b|\bvalueFrom\b|\bop://|\\?\$\\?\{(?!\s*\.)|\{\{|"
    r"\b(?:ssm|vault|secretsmanager|aws-secrets?):"
)


def _names_references(pattern: str) -> bool:
    r"""``grep -n '!secret'``, ``rg 'secrets\.[A-Z_]+'``: a pattern whose every match is a
    reference to a secret by name (see ``_SECRET_REFERENCE``), not a stored value."""
    return "|" not in pattern and bool(_SECRET_REFERENCE.search(pattern))


def _searches_references(cmd: Cmd) -> bool:
    """``grep -n '${' src/main/resources/application-prod.yml``: a search (not inverted) whose every
    pattern matches only references to secrets by name, so it prints no stored value."""
    if cmd.name not in _SEARCHERS:
        return False
    flags, positionals, values = _shell.split_options(
        cmd.args, frozenset({"-e", "--regexp", "-f", "--file", "-g", "--glob", "-t", "--type", "-m", "-A", "-B", "-C"})
    )
    if {"v", "invert-match", "A", "B", "C"} & set(flags) or {"f", "file", "A", "B", "C"} & set(values):
        return False  # -v prints the other lines; -A/-B/-C print neighbouring lines too
    patterns = values.get("e", []) + values.get("regexp", []) or positionals[:1]
    return bool(patterns) and all(_names_references(w.literal() or w.text) for w in patterns)


def _config_search(cmd: Cmd) -> str | None:
    """``grep -rn api_key configs/``, ``git grep -n password -- '*.properties'``: a search for
    credential words through configuration files prints every line that holds one, values
    included (through source code it finds code, and a count or file list prints no value).
    Returns the configuration searched, or None."""
    args = cmd.args
    if cmd.name == "git":
        _flags, positionals, _values = _shell.split_options(args, frozenset({"-C", "-c"}), stop_at_first=True)
        if not positionals or positionals[0].literal() != "grep":
            return None
        args = positionals[1:]
    elif cmd.name not in _SEARCHERS:
        return None
    flags, positionals, values = _shell.split_options(
        args, frozenset({"-e", "--regexp", "-f", "--file", "-g", "--glob", "-t", "--type", "-m", "-A", "-B", "-C"})
    )
    # -v prints every line but the matching ones: a filter that removes the secrets' lines.
    if _NO_LINES & set(flags) or "f" in values or "file" in values or {"v", "invert-match"} & set(flags):
        return None
    patterns = values.get("e", []) + values.get("regexp", [])
    if not patterns:
        patterns, positionals = positionals[:1], positionals[1:]
    texts = [w.literal() or w.text for w in patterns]
    if not any(_CREDENTIAL_WORDS.search(t) for t in texts) or all(_names_references(t) for t in texts):
        return None
    recursive = cmd.name in ("rg", "ag", "ack", "git") or bool({"r", "R", "recursive"} & set(flags))
    searched = positionals + values.get("g", []) + values.get("glob", [])
    if not searched and cmd.prev is not None and cmd.prev.name in READERS:
        searched = _read_targets(cmd.prev)  # plutil -p GoogleService-Info.plist | grep -i api_key
    for word in searched:
        text = (word.literal() or word.text).rstrip("/")
        base = os.path.basename(text).lower()
        # CI definitions name their secrets (${{ secrets.NPM_TOKEN }}, $CI_JOB_TOKEN); the values
        # live in the platform's secret store, so a search of them prints references.
        if (
            (base.endswith(_CONFIG_EXTENSIONS) or (recursive and base in _CONFIG_FOLDERS))
            and not _auth_policy_file(text)
            and not _CI_FILE.search(text)
        ):
            return text
    return None


def _uploaded(cmd: Cmd) -> list[Word]:
    """Local files a command uploads somewhere else: ``gh gist create .env``, ``aws s3 cp .env
    s3://…``, ``gsutil cp``, ``gcloud storage cp``, ``rclone copy``, ``az storage blob upload -f``."""
    lits = [w.literal() or "" for w in cmd.args]
    name = cmd.name
    _flags, positionals, values = _shell.split_options(
        cmd.args, frozenset({"-d", "--desc", "--filename", "-f", "--file", "-c", "--container-name", "-n", "--name"})
    )

    def remote(w: Word) -> bool:
        return re.match(r"[a-z0-9]+://|[\w-]+:", w.literal() or w.text) is not None

    def sources(skip: int) -> list[Word]:
        # SRC… DEST: local sources count only when the destination is elsewhere. The value of an
        # option after the destination (--acl public-read) is not a source.
        ops = [w for w in positionals[skip:] if (w.literal() or "") not in ("-m",)]
        last = max((i for i, w in enumerate(ops) if remote(w)), default=-1)
        return [w for w in ops[:last] if not remote(w)] if last > 0 else []

    if name == "gh" and lits[:2] == ["gist", "create"]:
        return [w for w in positionals[2:] if not remote(w)]
    if name == "aws" and lits[:1] == ["s3"] and len(lits) > 1 and lits[1] in ("cp", "mv", "sync"):
        return sources(2)
    if name == "gsutil" and any(a in ("cp", "mv", "rsync") for a in lits[:3]):
        return sources(1)
    if name == "gcloud" and lits[:2] == ["storage", "cp"]:
        return sources(2)
    if name == "rclone" and lits[:1] and lits[0] in ("copy", "copyto", "sync", "move"):
        return sources(1)
    if name == "az" and lits[:3] == ["storage", "blob", "upload"]:
        return values.get("f", []) + values.get("file", [])
    return []


def _check_chmod(cmd: Cmd, found: list[Finding]) -> None:
    """``chmod 644 ~/.ssh/id_rsa``, ``chmod a+r ~/.aws/credentials``: a mode that lets the group
    or the world read a credentials file exposes it as surely as printing it."""
    flags, positionals, values = _shell.split_options(cmd.args, frozenset({"--reference"}))
    if "reference" in values or len(positionals) < 2:
        return
    mode = positionals[0].literal()
    if mode is None or "others" not in _shell.chmod_grants(mode):
        return
    if re.fullmatch(r"0*[0-7]{3,4}", mode) and not int(mode, 8) & 0o007:
        # An absolute mode that leaves the world out is how services share a key with their
        # group (0640 root:ssl-cert, sudoers 0440, /etc/shadow 0640): it sets, not loosens.
        # g+r, 644 and o+r still expose the file.
        return
    recursive = bool({"R", "recursive"} & set(flags))
    for word in positionals[1:]:
        for value in cmd.values(word) or [word.text]:
            # chmod 755 /etc/letsencrypt/live/x opens the folder, not its keys (certbot's own mode);
            # chmod -R o+r over it opens every private key inside.
            folder = secret_dir(value) and (recursive or not server_key_folder(value))
            kind = secret_file(value) or ("a folder of credentials" if folder else None)
            if kind:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` lets other users read {value}, {kind}. Keep it private "
                        "(chmod 600, or 700 for a folder) instead.",
                    )
                )
                return


# grep/rg options after which the output is a count, file names or only the exit status.
_NO_LINES = frozenset({"c", "count", "l", "files-with-matches", "L", "files-without-match", "q", "quiet", "silent"})
_FIRST_FIELD = frozenset({"1", "-1"})
# Anchored at the line start, ending at "=", and built only of name characters: no ".", no
# negated class and no "=" inside, so a match can never run past the first "=" into a value.
_NAME_ONLY_PATTERN = lazy_compile(r"\^(?:export\s*)?(?:[\w\[\]*+-]|\\w)+=")
_AWK_FIRST_FIELD = lazy_compile(r"\{print\$1;?\}")  # matched with the spaces removed
# Checksums print a fingerprint, awk's END{print NR} a line count, jq/yq 'keys' the names only.
_CHECKSUMS = frozenset(
    {"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "shasum"}
)
_AWK_COUNTS = lazy_compile(r"END\{print(?:NR|\(NR\))?;?\}")
_KEYS_PROGRAMS = frozenset({"keys", "keys[]", ".|keys", "keys_unsorted", "keys_unsorted[]", ".|keys[]", "keys|.[]"})
# sed 's/=.*//': everything from the first "=" on is cut away.
# s/=.*// and s/=.*/=/ (or a fixed placeholder: s/=.*/=changeme/): the value is replaced by text
# that holds no part of it (no backreference, no &).
_SED_CUTS_VALUE = lazy_compile(r"s(?P<d>[/|#:,])=\.[*+]\$?(?P=d)(?:(?!(?P=d))[^\\&])*(?P=d)g?")


# jq/yq programs that select named fields only: .client_email, .project_id,.type, .a.b
_FIELD_PATHS = lazy_compile(r"\.[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*(?:,\.[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)*")
# Variables that hold the path of a credentials file.
CREDENTIAL_FILE_VARS = frozenset({
    "GOOGLE_APPLICATION_CREDENTIALS", "AWS_SHARED_CREDENTIALS_FILE", "KUBECONFIG", "NETRC", "PGPASSFILE",
    "GIT_SSH_KEY", "SSH_KEY_PATH", "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE", "DOCKER_CERT_PATH",
})  # fmt: skip


def _projection(cmd: Cmd) -> str | None:
    """What ``cmd`` prints of the files it reads, when not their lines: ``"count"`` for
    ``grep -c``/``-l``/``-q`` (a count, file names or nothing), ``"names"`` for ``cut -d= -f1``,
    ``awk -F= '{print $1}'``, ``sed 's/=.*//'`` and ``grep -o '^[A-Z_]*='`` over an environment
    file (the variable names, not what they are set to), else None."""
    name = cmd.name
    if name in _CHECKSUMS:
        return "count"  # a fingerprint of the file, none of its content
    flags, positionals, values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS.get(name, frozenset()))
    files = positionals[1:] if name in _shell.PATTERN_FIRST else positionals
    program = (positionals[0].literal() or "").replace(" ", "") if positionals else ""
    if name in ("awk", "gawk", "mawk") and _AWK_COUNTS.fullmatch(program):
        return "count"  # awk 'END { print NR }' .env
    if name in ("jq", "yq", "gojq", "jaq") and "," not in program and _JQ_COUNTS.fullmatch(program):
        return "count"  # jq '.tokens | length' secrets.json: how many, none of them
    if name in ("jq", "yq", "gojq") and program in _KEYS_PROGRAMS:
        return "names"  # jq 'keys' secrets.json: the names of the secrets, not their values
    if name in ("jq", "yq", "gojq") and _FIELD_PATHS.fullmatch(program) and not SECRET_PATTERN_WORDS.search(program):
        # jq -r .client_email key.json: named fields that are not secrets; a slip prints one.
        return "names"
    # NAME=value lines: only environment files split into a name and a value at "=" (a key
    # file's base64 lines can end in "=" too).
    env_files = all(".env" in os.path.basename(w.literal() or "") for w in files) and not [
        r for r in cmd.redirects if r.op == "<" and ".env" not in os.path.basename(r.target.text if r.target else "")
    ]
    if name in ("grep", "egrep", "fgrep", "rg", "ag", "ack"):
        if {"o", "only-matching"} & set(flags) and positionals and "e" not in values:
            # grep -o '^[A-Z_]*=' .env: the match stops at the first "=", so only names print.
            pattern = positionals[0].literal()
            names = pattern is not None and _NAME_ONLY_PATTERN.fullmatch(pattern) is not None
            return "names" if names and env_files else None
        return "count" if _NO_LINES & set(flags) else None
    if not env_files:
        return None
    if name in ("sed", "gsed"):
        scripts = [w.literal() for w in values.get("e", []) + values.get("expression", [])] or [
            w.literal() for w in positionals[:1]
        ]
        quiet = {"n", "quiet", "silent", "i", "in-place"} & set(flags)
        cuts = bool(scripts) and all(t is not None and _SED_CUTS_VALUE.fullmatch(t.strip()) for t in scripts)
        return "names" if cuts and not quiet else None
    delim = "".join(w.literal() or "?" for w in values.get("d", []) + values.get("F", []))
    if delim != "=":
        return None
    if name == "cut":
        fields = [w.literal() for w in values.get("f", [])]
        first = len(fields) == 1 and fields[0] in _FIRST_FIELD and not set(flags) - {"d", "f", "s"}
        return "names" if first else None
    if name in ("awk", "gawk", "mawk"):
        return "names" if _AWK_FIRST_FIELD.fullmatch(program) is not None else None
    return None


def acl_grants_read(spec: str) -> bool:
    """Whether a ``setfacl -m`` spec lets someone other than the owner read: ``u:www-data:r``,
    ``g:staff:rw``, ``o::r``, ``d:u:ci:rX`` (versus ``u::rw``, the owner, or a mask)."""
    for entry in spec.split(","):
        fields = entry.strip().split(":")
        if fields and fields[0] in ("d", "default"):
            fields = fields[1:]
        if len(fields) < 2:
            continue
        tag, qualifier, perms = fields[0], fields[1] if len(fields) > 2 else "", fields[-1]
        if tag in ("m", "mask") or (tag in ("u", "user") and not qualifier):
            continue
        if "r" in perms or re.fullmatch(r"0*[4-7]", perms):
            return True
    return False


def _check_acl(cmd: Cmd, found: list[Finding]) -> None:
    """``setfacl -m u:www-data:r ~/.ssh/id_rsa``: an access-control entry that lets another
    user or group read a credentials file is a permission change like ``chmod o+r``."""
    _flags, positionals, values = _shell.split_options(
        cmd.args, frozenset({"-m", "--modify", "-M", "--modify-file", "-x", "--remove", "--set", "--set-file"})
    )
    specs = values.get("m", []) + values.get("modify", []) + values.get("set", [])
    if not any(acl_grants_read(w.literal() or w.text) for w in specs):
        return
    for word in positionals:
        for value in cmd.values(word) or [word.text]:
            kind = secret_file(value) or ("a folder of credentials" if secret_dir(value) else None)
            if kind:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` grants another user or group read access to {value}, {kind}. "
                        "Keep it private to its owner (remove the entry with `setfacl -x`), or give "
                        "the service its own credential.",
                    )
                )
                return


# Suffixes of copies: .env.bak, id_rsa.orig, credentials.json.old, secrets.yml~.
_COPY_SUFFIX = lazy_compile(r"(?:\.(?:bak|backup|old|orig|save|sav|prev|copy|\d+)|~)+$", re.IGNORECASE)


# Names that say a key was made for tests, not to protect anything.
_TEST_MATERIAL = lazy_compile(r"(?i)test|dummy|fake|sample|example|mock|fixture|throwaway")


# Names of stores of credentials, kept encrypted: Rails' config/credentials.yml.enc (and
# config/credentials/production.yml.enc), sops' secrets.enc.yaml, a KeePass vault.kdbx, .env.gpg.
_SECRET_STORE = lazy_compile(
    r"(?i)(?:^|[._-])(?:credentials?|secrets?|passwords?|vault|keyring|keystore|env)(?:[._-]|$)|\.kdbx$"
)


def _encrypted_secret_store(value: str) -> str | None:
    """``credentials.yml.enc.old``, ``secrets.sops.yaml.bak``, ``vault.kdbx``: an encrypted store of
    credentials (or a copy of one). Showing its ciphertext shows nothing, but deleting it loses the
    credentials as surely as deleting them in the clear (fixtures of tests excepted)."""
    path = _COPY_SUFFIX.sub("", value.replace("\\", "/")).lower()
    if not encrypted_file(path) or TEST_FOLDERS & set(path.split("/")[:-1]):
        return None
    base = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(path))
    if _SECRET_STORE.search(base) or _SECRET_STORE.search(parent):
        return "an encrypted store of credentials"
    return None


def _credential_config_copy(value: str) -> str | None:
    """``profiles.yml.orig``, ``config/database.yml.bak``, ``credentials.yml.old``: a backup copy
    of configuration that holds credentials (settled: deleting such a copy is confirmed, it may be
    the only one). Merge leftovers of ordinary files (app.py.orig) are not."""
    stem = _COPY_SUFFIX.sub("", value)
    norm = stem.replace("\\", "/")
    if stem == value or TEST_FOLDERS & set(norm.lower().split("/")[:-1]):
        return None
    base = os.path.basename(norm)
    if _CREDENTIALS_NAMED.fullmatch(base) or base.lower() in MAYBE_SECRET_BASENAMES:
        return "a copy of configuration that holds credentials"
    return None


def _check_delete(cmd: Cmd, found: list[Finding]) -> None:
    """``rm .env.bak``, ``rm -f id_rsa.orig``: a copy of a secret may be the only one left
    (LABELLING.md's settled calls: confirm); the secret files themselves likewise."""
    _flags, positionals, _values = _shell.split_options(cmd.args)
    for word in positionals:
        for value in cmd.values(word) or [word.text]:
            path = _shell.normalize(value, cmd.ctx.cwd)
            kind = (
                secret_file(value)
                or secret_file(_COPY_SUFFIX.sub("", value))
                or _encrypted_secret_store(value)
                or _credential_config_copy(value)
            )
            if (
                path is not None
                and _shell.build_output(path, cmd.ctx.project)
                and (kind != "a private key" or _TEST_MATERIAL.search(os.path.basename(path)))
            ):
                # tmp/test-key.pem, build/…: scratch and generated files. A private key exported
                # into a build folder (build/tmp/signing-export.p12) may be the only copy.
                continue
            if kind:
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}` deletes {value} ({kind} or a copy of one), which may be the only "
                        "copy of those credentials; confirm, or move it out of the way instead.",
                    )
                )
                return


def _template_copy(cmd: Cmd) -> str | None:
    """``cp .env.example .env.test``: the file a command copies from a template (placeholders,
    no credentials), as an absolute path; None for any other command."""
    if cmd.name not in ("cp", "install"):
        return None
    _flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-t", "--target-directory", "-m"}))
    if len(positionals) != 2 or values.get("t") or values.get("target-directory"):
        return None
    sources = cmd.values(positionals[0]) or []
    dests = cmd.values(positionals[1]) or []
    if not sources or not all(_env_template(v, cmd) for v in sources) or len(dests) != 1:
        return None
    dest = _shell.normalize(dests[0], cmd.ctx.cwd)
    no_clobber = {"-n", "--no-clobber", "--update=none"} & {w.literal() for w in cmd.args}
    if dest is not None and no_clobber and os.path.lexists(dest):
        return None  # cp -n leaves an existing env file (and its values) in place
    return dest


def _env_template(value: str, cmd: Cmd) -> bool:
    """Whether ``value`` is an env template: named as one (``.env.example``; a project file named
    for an environment that is no credentials file: ``config/defaults.env``, ``env/dev.env.dist``),
    or, whatever its name, a file on this machine whose every setting is empty or a placeholder
    (an absent file with a credentials name is not assumed to be one)."""
    if _shell.has_glob(value) or (secret_file(value) is not None and not _holds_no_values(value, cmd.ctx.cwd)):
        return False
    if secret_file(value) is not None:
        return True  # config/app.env that holds only API_KEY= lines: a template by content
    path = _shell.normalize(value, cmd.ctx.cwd)
    base = os.path.basename(value).lower()
    if base.startswith(".env") or (
        "env" in re.split(r"[._-]", base) and path is not None and _shell.is_within(path, cmd.ctx.project)
    ):
        return True
    return _holds_no_values(value, cmd.ctx.cwd)


# One line of an env template: a comment, or a setting that is empty or a placeholder.
_TEMPLATE_LINE = lazy_compile(r"\s*(?:#.*)?|\s*(?:export\s+)?[A-Za-z_][\w.-]*\s*[=:]\s*(?P<v>.*?)\s*")


def _holds_no_values(value: str, cwd: str | None) -> bool:
    """Whether the file ``value`` names exists on this machine and every setting in it is empty or
    a placeholder (``API_KEY=``, ``SECRET_KEY=change-me``, ``DB_URL=${DATABASE_URL}``)."""
    path = _shell.normalize(value, cwd)
    text = _common.read_text(path, 65536) if path is not None and os.path.isfile(path) else None
    if text is None:
        return False
    for line in text.splitlines():
        m = _TEMPLATE_LINE.fullmatch(line)
        if m is None:
            return False
        setting = (m.group("v") or "").strip("\"'")
        if setting and not PLACEHOLDER.search(setting):
            return False
    return True


def _check_dump_sent(cmd: Cmd, dumps: set[str], found: list[Finding]) -> None:
    """``printenv > /tmp/e && curl -F f=@/tmp/e https://…``: the environment written to a file and
    that file sent elsewhere in the same command is the environment sent over the network."""
    name = cmd.name
    if _dumps_environment(cmd):
        targets = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.fd in ("", "1")]
        if name == "tee":
            targets += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
        for target in targets:
            if target is not None:
                dumps.update(p for v in cmd.values(target) or [] if (p := _shell.normalize(v, cmd.ctx.cwd)))
        return
    if not dumps or not (name in SENDERS or _uploaded(cmd)):
        return
    sent: set[str] = set()
    for w in cmd.args:
        for value in cmd.values(w) or []:
            for part in re.split(r"[@<=]", value):
                path = _shell.normalize(part, cmd.ctx.cwd) if part else None
                if path in dumps:
                    sent.add(path)
    for r in cmd.redirects:
        if r.op == "<" and r.target is not None:
            sent.update(p for v in cmd.values(r.target) or [] if (p := _shell.normalize(v, cmd.ctx.cwd)) in dumps)
    if sent:
        found.append(
            (
                "deny",
                f"`{cmd.display}` sends {sorted(sent)[0]}, which this command filled with every environment "
                "variable, credentials included. Send only the values the service needs, named one by one.",
            )
        )


_DUMPERS = frozenset({
    "pg_dump", "pg_dumpall", "mysqldump", "mariadb-dump", "mongodump", "mongoexport", "sqlcmd", "bcp", "expdp",
})  # fmt: skip
_DUMP_FILE_OPTIONS = frozenset({"-f", "--file", "-o", "--out", "--output", "-r", "--result-file", "--archive"})
_PRODUCTION = lazy_compile(r"(?i)(?:^|[^a-z])prod(?:uction)?(?:[^a-z]|$)")


def _check_production_dump(cmd: Cmd, found: list[Finding]) -> None:
    """``pg_dump -h db-prod … > /tmp/x.sql``, ``mongodump --uri mongodb://…prod… --out dump/``: a
    production database copied into a file on this machine holds its customers' data outside
    production's controls; the user confirms (a dump piped to the network is denied elsewhere).
    Dumps of local, staging or test databases pass."""
    if cmd.name not in _DUMPERS or (cmd.name in ("sqlcmd", "bcp") and not _bcp_out(cmd)):
        return
    words = [w.literal() or w.text for w in cmd.args]
    if not any(_PRODUCTION.search(w) for w in words if not w.startswith("-") or "=" in w):
        return
    schema_only = {"--schema-only", "-s"} if cmd.name in ("pg_dump", "pg_dumpall") else {"--no-data"}
    if cmd.name in ("mysqldump", "mariadb-dump"):
        schema_only.add("-d")
    if schema_only & set(words):
        return  # the tables' definitions, no rows
    to_file = any(r.op in (">", ">>", ">|", "&>") and r.fd in ("", "1") for r in cmd.redirects) or any(
        w.split("=", 1)[0] in _DUMP_FILE_OPTIONS for w in words
    )
    if cmd.name == "mongodump" and not any(w.startswith("--archive") and "=" not in w for w in words):
        to_file = True  # mongodump writes ./dump/ unless told to stream an archive to stdout
    if to_file:
        found.append(
            (
                "ask",
                f"`{cmd.display}` copies a production database into a local file: its customers' data "
                "outside production. Confirm with the user, or dump a staging copy or only the schema.",
            )
        )


# File names of people's personal data: words that name it alone, or a word for people together
# with one for a bulk extract (customers-export.csv, members_dump.sql, user-records.json).
_PERSONAL_DATA = lazy_compile(
    r"(?i)(?:^|[^a-z])(?:patients?|medical|ssns?|pii|payroll|salar(?:y|ies)|passports?|cardholders?|"
    r"(?:customers?|users?|members?|employees?|clients?|contacts|subscribers?|students?)"
    r"[^/]*(?:export|dump|records|emails|addresses|personal)|(?:export|dump)[^/]*(?:customers?|users?|members?|employees?)"
    r")"
)
_HTTP_UPLOADERS = frozenset({"curl", "wget", "http", "https", "xh"})


def _check_personal_data_upload(cmd: Cmd, found: list[Finding]) -> None:
    """``curl -F 'file=@exports/patient-records.csv' https://files.example.net``: a file of people's
    personal data (by its name; not test fixtures) sent to a host off this machine. Asks."""
    if cmd.name not in _HTTP_UPLOADERS:
        return
    lits = [w.literal() or w.text for w in cmd.args]
    urls = [a for a in lits if "://" in a or a.startswith("www.")]
    if not urls or all(_LOOPBACK.match(u.split("://", 1)[-1].split("/", 1)[0]) for u in urls):
        return
    sent: list[str] = []
    for i, arg in enumerate(lits):
        if "@" in arg and "://" not in arg:
            sent.append(arg.rsplit("@", 1)[1].split(";", 1)[0])
        elif arg.startswith(("--post-file=", "--body-file=", "--upload-file=")):
            sent.append(arg.split("=", 1)[1])
        elif arg in ("-T", "--upload-file") and i + 1 < len(lits):
            sent.append(lits[i + 1])
    for path in sent:
        folders = set(path.lower().split("/")[:-1])
        if path and path != "-" and not TEST_FOLDERS & folders and _PERSONAL_DATA.search(os.path.basename(path)):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` uploads {path}, which by its name holds people's personal data, to a host "
                    "off this machine; confirm the recipient may have it, or send an anonymised extract.",
                )
            )
            return


def _bcp_out(cmd: Cmd) -> bool:
    """``bcp db.dbo.t out file.dat`` or ``sqlcmd … -o file``: SQL Server data written to a file."""
    lits = [w.literal() for w in cmd.args]
    return "out" in lits or "queryout" in lits or "-o" in lits


def _dumps_environment(cmd: Cmd) -> bool:
    """Whether ``cmd``'s output is the whole environment: ``env``, ``printenv``, ``export -p``,
    or one of them passed on whole (``env | sort``, ``printenv | tee``)."""
    lits = [w.literal() or "" for w in cmd.args]
    if (cmd.name in ("env", "printenv") and not [a for a in lits if not a.startswith("-")]) or (
        cmd.name in ("set", "export", "declare", "typeset") and lits in ([], ["-p"], ["-x"], ["-px"])
    ):
        return True
    return cmd.name in ("sort", "cat", "tee", "uniq") and cmd.prev is not None and _dumps_environment(cmd.prev)


def _written_whole(cmd: Cmd) -> set[str]:
    """Files whose whole content ``cmd`` sets to text shown in the command
    (``echo 'source .venv/bin/activate' > .envrc``, ``cat > .env.test <<EOF``) or to a template's
    placeholders (``cp .env.example .env.test``): reading them later shows nothing secret."""
    paths: set[str] = set()
    copied = _template_copy(cmd)
    if copied is not None:
        paths.add(copied)
    targets = [r.target for r in cmd.redirects if r.op in (">", ">|") and r.target is not None]
    if cmd.name == "tee" and not any(w.literal() in ("-a", "--append") for w in cmd.args):
        targets += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    for word in targets:
        values = cmd.values(word) or []
        path = _shell.normalize(values[0], cmd.ctx.cwd) if len(values) == 1 else None
        if path is not None and cmd.ctx.written(word) is not None:
            paths.add(path)
    return paths


# Commands whose output is a list of paths (the ones they were given, or found under them):
# ``cat $(ls ~/.ssh/id_*)``, ``ls ~/.gnupg/*.key | xargs cat`` read what the listing names.
PATH_LISTERS = frozenset({"ls", "find", "fd", "fdfind", "echo", "printf", "realpath", "readlink"})


def _lister_paths(name: str, words: list[Word], values: Callable[[Word], list[str] | None]) -> list[str]:
    """Paths a listing command ``name`` given ``words`` (its arguments) prints: the paths and
    globs it names; for ``find START -name PAT`` the ``START/PAT`` it filters down to."""
    named: list[str] = []
    filtered: list[str] = []
    in_expr = False
    for i, w in enumerate(words):
        lit = w.literal()
        if lit is not None and (lit.startswith("-") or lit in ("(", "!")):
            in_expr = name == "find"  # find's expression follows its start folders
            if in_expr and lit in ("-name", "-iname") and i + 1 < len(words):
                pattern = words[i + 1].literal() or ""
                filtered.extend(f"{start.rstrip('/')}/{pattern}" for start in named if pattern)
            continue
        if not in_expr:
            named.extend(values(w) or [])
    return filtered or named


def _glob_in_secret_dir(path: str) -> str | None:
    """``~/.gnupg/private-keys-v1.d/*``, ``~/.ssh/*``: a match-everything glob inside a
    credentials folder picks up its keys."""
    head, base = os.path.split(path.replace("\\", "/").rstrip("/"))
    if base not in _shell.MATCH_ALL_GLOBS:
        return None
    inside = "/" + head.strip("/") + "/"
    if any(f"/{d}/" in inside for d in SECRET_DIRS) or server_key_folder("/" + head.strip("/")):
        return "a folder of credentials"
    return None


def _listed_paths(cmd: Cmd, word: Word, cmds: list[Cmd] | None = None) -> list[str]:
    """Paths that ``word`` stands for when a listing produces it: a substitution of a listing
    command (``$(ls -t ~/.gnupg/private-keys-v1.d/* | head -1)``), or, for a command run by
    ``xargs``, the listing piped into it."""
    paths: list[str] = []
    for sub in word.subs():
        for inner in sub.script.simple_commands():
            name = os.path.basename(inner.words[0].literal() or "") if inner.words else ""
            if name in PATH_LISTERS:
                paths.extend(_lister_paths(name, inner.words[1:], cmd.values))
    return paths


def _substituted_listing(word: Word, ctx: _shell.Ctx) -> list[str]:
    """The paths a listing inside ``word``'s command substitutions prints (``$(ls ~/.ssh/id_*)``)."""
    return [
        path
        for sub in word.subs()
        for listed in sub.script.simple_commands()
        if listed.words and os.path.basename(listed.words[0].literal() or "") in PATH_LISTERS
        for path in _lister_paths(
            os.path.basename(listed.words[0].literal() or ""),
            listed.words[1:],
            lambda w: _shell.expand(w, ctx),
        )
    ]


def _listing_vars(command: str, ctx: _shell.Ctx) -> dict[str, list[str]]:
    """Variables the command sets to a listing's output (``KEY=$(ls ~/.gnupg/*.key | head -1)``)
    and the paths that listing names."""
    try:
        script = _shell.parse(command)
    except _shell.ShellParseError:
        return {}
    found: dict[str, list[str]] = {}
    for loop in _loops(script):
        # for f in $(ls ~/.ssh/id_*): the loop variable takes each listed path in turn.
        name = loop.words[0].literal() or ""
        paths = [path for item in loop.words[1:] for path in _substituted_listing(item, ctx)]
        if name and paths:
            found[name] = paths
    for inner in script.simple_commands():
        for w in inner.words:
            if _shell.is_assignment(w):
                name, value = _shell.split_assignment(w)
                paths = _substituted_listing(value, ctx)
                if paths:
                    found[name] = paths
    return found


def _loops(script: _shell.Script) -> list[_shell.Command]:
    """The ``for``/``select`` loops of ``script``, nested ones included."""
    loops: list[_shell.Command] = []
    for pipe in script.pipelines:
        for command in pipe.commands:
            if command.kind in ("for", "select") and command.words:
                loops.append(command)
            for inner in command.scripts():
                loops.extend(_loops(inner))
    return loops


def _var_listing(cmd: Cmd, word: Word, listings: dict[str, list[str]] | None) -> list[str]:
    """The paths ``"$KEY"`` stands for when the command set KEY to a listing's output."""
    first = word.parts[0] if len(word.parts) == 1 else None
    if not listings or not isinstance(first, _shell.Var) or cmd.ctx.vars.get(first.name) is not None:
        return []
    return listings.get(first.name, [])


def _xargs_listed(cmd: Cmd) -> list[str]:
    """Paths an ``xargs``-run command gets from a listing earlier in its pipeline."""
    if not cmd.xargs:
        return []
    paths: list[str] = []
    upstream = cmd.prev
    while upstream is not None:
        if upstream.name in PATH_LISTERS:
            paths.extend(_lister_paths(upstream.name, upstream.args, upstream.values))
        upstream = upstream.prev
    return paths


def _check_bash_files(
    cmd: Cmd, found: list[Finding], known: set[str] | None = None, listings: dict[str, list[str]] | None = None
) -> None:
    start = len(found)
    _check_secret_files(cmd, found, listings)
    if known and len(found) > start:
        # Reading or editing a file this command wrote whole shows only what the command shows.
        words = list(cmd.args) + [r.target for r in cmd.redirects if r.op in ("<", "<>") and r.target is not None]
        named = {
            _shell.normalize(v, cmd.ctx.cwd)
            for w in words
            for v in cmd.values(w) or []
            if secret_file(v) or maybe_secret_file(v)
        }
        if named and named <= known:
            del found[start:]


_MAYBE_SECRET_READ = "configuration that may hold passwords"
_SEARCHES = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})
# Search patterns that could match a line holding a credential: credential words, signing
# settings, connection URLs and logins (url: postgres://u:p@…), or everything (., .*, '').
_CREDENTIAL_LINE_PATTERN = lazy_compile(r"(?i)url|uri|dsn|conn|user|login|sign|://|@|\.[*+]|^\W*$")
# grep options that print more than the matching lines, or every other line.
_WIDENING = frozenset({"v", "invert-match", "A", "B", "C", "context", "after-context", "before-context"})


def _one_setting_search(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """Whether ``cmd`` (a search, or a reader whose output goes straight into one) prints only the
    lines of named settings that are no credentials (``grep sdk.dir local.properties``, ``cat
    config/database.yml | grep adapter``): no credential word, URL or login in the pattern, no
    context lines, no inverted match, and nothing after it but programs that show."""
    search = cmd
    downstream = _downstream(cmd, cmds)
    if cmd.name not in _SEARCHES:
        if not downstream or downstream[0].name not in _SEARCHES:
            return False
        search, downstream = downstream[0], downstream[1:]
    if not all(c.name in _SHOWS for c in downstream):
        return False
    flags, positionals, values = _shell.split_options(search.args, _shell.VALUE_OPTIONS.get(search.name, frozenset()))
    if _WIDENING & (set(flags) | set(values)):
        return False
    patterns = [w.literal() for w in values.get("e", []) + values.get("regexp", [])] or [
        w.literal() for w in positionals[:1]
    ]
    return bool(patterns) and all(
        p is not None and not SECRET_PATTERN_WORDS.search(p) and not _CREDENTIAL_LINE_PATTERN.search(p)
        for p in patterns
    )


def _check_secret_files(cmd: Cmd, found: list[Finding], listings: dict[str, list[str]] | None = None) -> None:
    searched = _config_search(cmd)
    if searched is not None:
        found.append(
            (
                "ask",
                f"`{cmd.display}` searches {searched} for credential words: every matching line, a stored "
                "password included, would be printed. Confirm, or list the files (`-l`) instead.",
            )
        )
    if cmd.name == "chmod":
        _check_chmod(cmd, found)
    if cmd.name == "setfacl":
        _check_acl(cmd, found)
    if cmd.name in ("rm", "unlink", "shred", "srm", "wipe"):
        _check_delete(cmd, found)
    projection = _projection(cmd)
    words = [] if projection == "count" else list(_read_targets(cmd))
    name = cmd.name
    if name in ("curl", "wget", "http", "xh"):
        for w in cmd.args:
            for value in cmd.values(w) or []:
                at = value.split("@", 1)[1] if "@" in value and not value.startswith("http") else ""
                if at:
                    words.append(Word([_shell.Lit(at, True)], at))
        _flags, _pos, values = _shell.split_options(
            cmd.args, frozenset({"-T", "--upload-file", "--post-file", "--body-file"})
        )
        for key in ("T", "upload-file", "post-file", "body-file"):
            words.extend(values.get(key, []))
    words.extend(_uploaded(cmd))
    if name == "git":
        _flags, positionals, _values = _shell.split_options(
            cmd.args, frozenset({"-C", "-c", "--git-dir", "--work-tree"}), stop_at_first=True
        )
        sub = positionals[0].literal() if positionals else None
        _flags, rest, _values = _shell.split_options(
            positionals[1:],
            frozenset({"-m", "--message", "-n", "--format", "--pretty", "-U", "--author", "--since", "--until", "-L"}),
        )
        if sub in ("add", "diff", "log", "show", "cat-file", "blame"):
            for w in rest:
                text = w.literal() or w.text
                # git show HEAD:.env prints the file as committed.
                path = text.split(":", 1)[1] if ":" in text and sub in ("show", "cat-file") else text
                words.append(Word([_shell.Lit(path, True)], path))
    for r in cmd.redirects:
        if r.op in ("<", "<>", "<&") and r.target is not None and name not in ("source", ".") and projection != "count":
            words.append(r.target)
    listed = _xargs_listed(cmd) if name in READERS and projection != "count" else []
    for word in [*words, None] if listed else words:
        if word is None:  # the paths xargs takes from a listing (ls ~/.ssh/id_* | xargs cat)
            candidates = listed
            first = None
        else:
            # Unknown parts keep their ${NAME} form: /proc/$$/environ still ends in /environ.
            # $(ls ~/.ssh/*.pub) stands for what the listing names, not for its own text.
            candidates = (
                cmd.values(word) or _listed_paths(cmd, word) or _var_listing(cmd, word, listings) or [word.text]
            )
            first = word.parts[0] if word.parts else None
        credential_var = isinstance(first, _shell.Var) and first.name in CREDENTIAL_FILE_VARS
        for value in candidates:
            kind = secret_file(value, cmd.ctx.cwd) or secret_glob(value) or _glob_in_secret_dir(value)
            if not kind and credential_var and cmd.ctx.vars.get(first.name) is None:  # type: ignore[union-attr]
                kind = "a credentials file (the path a credentials variable names)"
            if not kind and secret_dir(value):
                kind = "a folder of credentials"
            if not kind and _searches_for_secrets(cmd, value):
                kind = "configuration searched for credential words"
            if kind == "an environment file with credentials" and _holds_no_values(value, cmd.ctx.cwd):
                kind = None  # config/app.env on this machine sets only API_KEY= and placeholders
            if kind and os.path.basename(value) in _PACKAGE_MANAGER_RCS and not os.path.isabs(value):
                # cat .npmrc: the project's file on this machine, judged by its registry login.
                kind = secret_file(_shell.normalize(value, cmd.ctx.cwd) or value)
            if not kind and maybe_secret_file(value, cmd.ctx.cwd) and name != "git" and not _searches_references(cmd):
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}` reads {value}, {_MAYBE_SECRET_READ}; "
                        "confirm, or read the example/template version instead.",
                    )
                )
            if not kind:
                continue
            if projection == "names" and _stdout_to_file(cmd):
                continue  # sed 's/=.*/=/' .env > .env.example: the names go into a file, nothing is shown
            if projection == "names":
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}` prints only the names or chosen fields of {value} ({kind}), but a "
                        "slip in the filter would print the values; confirm, or compare against the "
                        ".env.example instead.",
                    )
                )
            elif name == "git":
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` stages {value} ({kind}) for commit; "
                        "secrets must not enter the repository. Add it to .gitignore.",
                    )
                )
            else:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` reads {value}, {kind}, which would "
                        "expose its secrets. Use the values through the environment "
                        "instead, or read the matching .env.example.",
                    )
                )


def _downstream(cmd: Cmd, cmds: list[Cmd]) -> list[Cmd]:
    chain: list[Cmd] = []
    current = cmd
    while True:
        nxt = next((c for c in cmds if c.prev is current), None)
        if nxt is None:
            return chain
        chain.append(nxt)
        current = nxt


def _fed_to_consumer(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """``echo "$PASSWORD" | docker login --password-stdin``: output piped into a program that
    takes it as input (not one that shows it, nor one that sends it elsewhere), and written to
    no file."""
    downstream = _downstream(cmd, cmds)
    if not downstream or any(r.op in (">", ">>", ">|", "&>", "&>>") for r in cmd.redirects):
        return False
    return all(c.name not in _SHOWS and c.name not in SENDERS and c.name not in ("tee", "xargs") for c in downstream)


# kubectl options that take a value and may come before the verb (kubectl -n prod get …).
_KUBECTL_VALUE = frozenset(
    {"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-l", "--selector", "--user", "-o", "--output"}
)
# Output formats that print only names, types and ages, never the data.
_KUBECTL_NAME_OUTPUTS = lazy_compile(r"name|wide|custom-columns=(?:(?!\.data|\.stringData)[^ ])*")


def _kubectl_shows_secret_values(cmd: Cmd) -> bool:
    """``kubectl get secret web -o yaml``, ``kubectl -n staging get secret web -o
    jsonpath='{.data.URL}'``: a Secret's data printed. ``-o name``, ``-o wide`` and custom
    columns of names and types show none of it."""
    _flags, positionals, values = _shell.split_options(cmd.args, _KUBECTL_VALUE)
    ops = [w.literal() or w.text for w in positionals]
    if len(ops) < 2 or ops[0] != "get" or not any(o.split("/")[0] in ("secret", "secrets") for o in ops[1:3]):
        return False
    outputs = [w.literal() or w.text for w in values.get("o", []) + values.get("output", [])]
    return bool(outputs) and not all(_KUBECTL_NAME_OUTPUTS.fullmatch(o) for o in outputs)


DB_DUMPERS = frozenset({"pg_dump", "pg_dumpall", "mysqldump", "mariadb-dump", "mongodump", "mongoexport"})
_LOOPBACK = lazy_compile(r"(?:tcp://)?(?:127\.0\.0\.1|localhost|\[?::1\]?)(?::\d+)?")


def _served_folder(cmd: Cmd) -> str | None:
    """The folder a static file server or notebook server publishes when it is the home folder
    or the root (``cd ~ && python3 -m http.server``, ``npx serve ~``, ``jupyter lab --ip=0.0.0.0
    --notebook-dir=~``), bound to more than loopback, or the project root explicitly bound to
    every interface (``--bind 0.0.0.0``); None otherwise."""
    name = cmd.name
    lits = [w.literal() or w.text for w in cmd.args]
    folder: str | None = None
    binds: list[str] = []

    def value(words: list[Word]) -> str | None:
        return next(((cmd.values(w) or [w.text])[0] for w in words), None)

    if name in _shell.INTERPRETERS and lits[:2] == ["-m", "http.server"]:
        _f, _p, values = _shell.split_options(cmd.args[2:], frozenset({"-d", "--directory", "-b", "--bind"}))
        folder = value(values.get("d", []) + values.get("directory", [])) or "."
        binds = [w.literal() or "" for w in values.get("b", []) + values.get("bind", [])]
    elif name in ("serve", "http-server"):
        _f, positionals, values = _shell.split_options(
            cmd.args, frozenset({"-l", "--listen", "-a", "--address", "-p", "--port"})
        )
        folder = value(positionals) or "."
        binds = [w.literal() or "" for w in values.get("l", []) + values.get("listen", []) + values.get("a", [])]
    elif name in ("jupyter", "jupyter-lab", "jupyter-notebook"):
        dirs = [a.split("=", 1)[1] for a in lits if a.startswith(("--notebook-dir=", "--ServerApp.root_dir="))]
        folder = dirs[0] if dirs else "."
        binds = [a.split("=", 1)[1] for a in lits if a.startswith(("--ip=", "--ServerApp.ip="))] or ["localhost"]
    if folder is None or any(_LOOPBACK.fullmatch(b) for b in binds):
        return None
    everywhere = any(re.fullmatch(r"(?:tcp://)?(?:0\.0\.0\.0|::|\[::\])(?::\d+)?", b) for b in binds)
    if folder == "~" or folder.startswith("~/"):
        folder = cmd.ctx.home + folder[1:]
    path = _shell.normalize(folder, cmd.ctx.cwd)
    home = os.path.normpath(cmd.ctx.home)
    if path is not None and everywhere and path == os.path.normpath(cmd.ctx.project):
        return cmd.ctx.project  # bound to every interface on purpose, .env and all
    if path is None or not (path in (home, "/") or secret_dir(path)):
        return None
    return path


def _loaded_secret_file(cmd: Cmd, cmds: list[Cmd]) -> str | None:
    """The secret file an earlier command of the same command line loaded into the environment
    (``set -a; source .env``, ``export $(cat .env | xargs)``), or None."""
    for earlier in cmds[: cmds.index(cmd)] if cmd in cmds else []:
        words: list[Word] = []
        if earlier.name in ("source", "."):
            words = earlier.args[:1]
        elif earlier.name == "export":
            words = [w for w in earlier.args for sub in w.subs() for c in sub.script.simple_commands() for w in c.words]
        for word in words:
            for value in earlier.values(word) or [word.text]:
                if secret_file(value):
                    return value
    return None


def _filters_out(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """Whether ``cmd``'s output goes through a filter that keeps only some lines or fields
    (``env | grep ^NODE_``, ``env | cut -d= -f1``)."""
    return any(c.name in FILTERS or c.name in ("cut", "head", "tail", "wc") for c in _downstream(cmd, cmds))


def _unauthenticated_code_server(cmd: Cmd) -> bool:
    """``jupyter lab --ip=0.0.0.0 --NotebookApp.token=''``, ``code-server --auth none --bind-addr
    0.0.0.0:8080``: a server that runs code for whoever reaches it, on more than loopback."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name in ("jupyter", "jupyter-lab", "jupyter-notebook"):
        binds = [a.split("=", 1)[1] for a in lits if a.startswith(("--ip=", "--ServerApp.ip=", "--NotebookApp.ip="))]
        no_auth = any(
            re.fullmatch(r"--(?:NotebookApp|ServerApp|IdentityProvider)\.token=(?:''|\"\")?", a) for a in lits
        ) and not any(
            re.fullmatch(r"--(?:NotebookApp|ServerApp|PasswordIdentityProvider)\.(?:hashed_)?password=.+", a)
            and not a.endswith(("=", "=''", '=""'))
            for a in lits
        )
        return no_auth and any(not _LOOPBACK.fullmatch(b) for b in binds)
    if cmd.name == "code-server":
        _f, _p, values = _shell.split_options(cmd.args, frozenset({"--auth", "--bind-addr"}))
        auth = [w.literal() for w in values.get("auth", [])]
        binds = [w.literal() or "" for w in values.get("bind-addr", [])]
        return auth == ["none"] and any(not _LOOPBACK.fullmatch(b) for b in binds)
    return False


def _prints_history(name: str, lits: list[str]) -> bool:
    """``history``, ``history 50 | grep -i token``, ``fc -l``: the shell's command history is
    printed (``history -c``/``-w``/``-d N`` only clear, save or delete)."""
    if name == "history":
        return not any(a.startswith("-") and set(a[1:]) & set("cdwanrps") for a in lits)
    return name == "fc" and any(a.startswith("-") and "l" in a for a in lits)


# A search pattern aimed at the values of credentials: an export or assignment of a secret name.
_ASSIGNMENT_PATTERN = lazy_compile(r"(?i)\bexport\b|=|\bset\b")


def _digs_for_secret_values(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """``history | grep -i 'export .*TOKEN'``, ``history | rg 'PASSWORD='``: the history filtered
    for assignments of secret names, i.e. for the values themselves (a search for a word like
    ``token`` alone may be for a command, and is asked instead)."""
    for nxt in _downstream(cmd, cmds):
        if nxt.name not in FILTERS or nxt.name in ("sed", "awk"):
            continue
        if _prints_no_line(nxt):
            continue
        for word in nxt.args:
            lit = word.literal() or ""
            if lit.startswith("-") and "=" not in lit:
                continue
            if SECRET_PATTERN_WORDS.search(lit) and _ASSIGNMENT_PATTERN.search(lit):
                return True
    return False


def _prints_no_line(cmd: Cmd) -> bool:
    """``grep -q``, ``grep -c``: a filter that answers whether (or how often) something matched
    without printing the matching lines."""
    if cmd.name not in ("grep", "egrep", "fgrep", "rg"):
        return False
    flags, _pos, _vals = _shell.split_options(cmd.args, frozenset({"-e", "-f", "-m", "-A", "-B", "-C"}))
    return bool({"q", "quiet", "silent", "c", "count"} & set(flags))


def _only_matching(cmd: Cmd) -> bool:
    """``grep -o '^AWS_[A-Z_]*'``: prints only what the pattern matches (usually the names)."""
    if cmd.name not in ("grep", "egrep", "fgrep", "rg"):
        return False
    flags, _pos, _vals = _shell.split_options(cmd.args, frozenset({"-e", "-f", "-m", "-A", "-B", "-C"}))
    return bool({"o", "only-matching"} & set(flags))


def _inverted(cmd: Cmd) -> bool:
    """``grep -v PATTERN`` keeps every other line: it does not narrow what is printed."""
    flags, _pos, _vals = _shell.split_options(cmd.args, frozenset({"-e", "-f", "-m", "-A", "-B", "-C"}))
    return "v" in flags or "invert-match" in flags


def _names_secret_field(lits: list[str]) -> bool:
    """``--fields password``, ``--fields=label=api_key,username``: a requested field names a secret."""
    for i, arg in enumerate(lits):
        if arg == "--fields" and i + 1 < len(lits):
            value = lits[i + 1]
        elif arg.startswith("--fields="):
            value = arg.split("=", 1)[1]
        else:
            continue
        if SECRET_PATTERN_WORDS.search(value):
            return True
    return False


def _secret_store_read(name: str, lits: list[str]) -> bool:
    """``vault kv get``, ``aws secretsmanager get-secret-value``, ``op read``, ``heroku config`` …"""
    return (
        (name == "vault" and (lits[:2] == ["kv", "get"] or lits[:1] == ["read"]))
        or (name == "aws" and lits[:2] == ["secretsmanager", "get-secret-value"])
        or (name == "aws" and lits[:1] == ["ssm"] and "--with-decryption" in lits)
        or (name == "gcloud" and lits[:3] == ["secrets", "versions", "access"])
        or (name == "op" and lits[:1] in (["read"], ["inject"]))
        or (name == "op" and lits[:2] == ["item", "get"] and "--reveal" in lits)
        # op item get ID --fields password (--fields=label=password): the named secret field's value.
        or (name == "op" and lits[:2] == ["item", "get"] and _names_secret_field(lits))
        or (name == "doppler" and lits[:1] == ["secrets"] and (len(lits) == 1 or lits[1] in ("get", "download")))
        or (name == "heroku" and lits[:1] in (["config"], ["config:get"]))
        or (name == "az" and lits[:3] == ["keyvault", "secret", "show"])
        or (name == "airflow" and lits[:2] == ["connections", "get"])
        or _generic_secret_get(name, lits)
    )


# Any CLI's "get a secret's value" subcommand (databricks secrets get-secret, akeyless
# get-secret-value, infisical secrets get, scw secret version access, oci secrets secret-bundle get):
# a word naming secrets and a verb that returns a value among its leading subcommand words.
_SECRET_GETTERS = frozenset({
    "get", "get-secret", "get-secret-value", "getsecret", "access", "show", "read", "reveal", "view",
    "download", "value", "print", "cat", "decrypt",
})  # fmt: skip
# Their own rules (kubectl get secret prints names unless -o) or no values to print (docker secret).
# git secret reveal decrypts into the working tree, like a build step.
_SECRET_GETTER_EXEMPT = frozenset({"kubectl", "oc", "docker", "podman", "gh", "glab", "git"})


def _generic_secret_get(name: str, lits: list[str]) -> bool:
    if name in _SECRET_GETTER_EXEMPT:
        return False
    words = [w.lower() for w in lits if not w.startswith("-")][:4]
    if "metadata" in words[:3]:
        return False  # vault kv metadata get PATH: versions and timestamps, never the value
    return any("secret" in w for w in words) and any(w in _SECRET_GETTERS for w in words)


# Cloud instance metadata endpoints that hand out the machine's role credentials or tokens
# (AWS IMDS and ECS, Google, Azure managed identity); instance-id or region lookups are not.
_METADATA_CREDENTIALS = lazy_compile(
    r"(?:169\.254\.169\.254|\[?fd00:ec2::254\]?|metadata\.google\.internal|metadata)/.*"
    r"(?:security-credentials|identity-credentials|service-accounts/[^/]+/(?:token|identity)|identity/oauth2/token)"
    r"|169\.254\.170\.2/"
)
_URL_FETCHERS = frozenset(
    {"curl", "wget", "http", "https", "xh", "httpie", "Invoke-RestMethod", "Invoke-WebRequest", "irm", "iwr"}
)


_P4_VALUE_OPTIONS = frozenset({"-c", "-C", "-d", "-H", "-L", "-p", "-P", "-r", "-u", "-x", "-z", "-Q"})


def _p4_subcommand(lits: list[str]) -> list[str]:
    """A Perforce call's subcommand and its words, after the global options (p4 -u builder tickets)."""
    i = 0
    while i < len(lits) and lits[i].startswith("-"):
        i += 2 if lits[i] in _P4_VALUE_OPTIONS else 1
    return lits[i:]


def _prints_credential(name: str, lits: list[str], printer_editor: bool = False) -> str | None:
    """What credential a command prints as its output (a token, a password), or None:
    ``gcloud auth print-access-token``, ``az account get-access-token``, ``aws ecr
    get-login-password``, ``kubectl create token``, ``pass show`` …"""
    if name in _URL_FETCHERS and any(_METADATA_CREDENTIALS.search(a) for a in lits):
        return "the cloud instance's role credentials"
    if name == "gcloud" and any(a in ("print-access-token", "print-identity-token") for a in lits):
        return "a Google Cloud access token"
    if name == "az" and lits[:2] == ["account", "get-access-token"]:
        return "an Azure access token"
    if name == "aws" and (
        lits[:2] in (["ecr", "get-login-password"], ["sts", "get-session-token"], ["sts", "assume-role"])
        or lits[:2] == ["codeartifact", "get-authorization-token"]
        or lits[:2] == ["ecr-public", "get-login-password"]
    ):
        return "temporary AWS credentials"
    if name in ("rails", "bin/rails") and any(a.startswith("credentials:show") for a in lits):
        return "the application's decrypted credentials"
    if name in ("rails", "bin/rails") and any(a.startswith("credentials:edit") for a in lits) and printer_editor:
        return "the application's decrypted credentials (the editor only prints them)"
    if name in ("sops",) and ({"-d", "--decrypt"} & set(lits) or lits[:1] == ["decrypt"]):
        return "decrypted secrets"
    if name == "ansible-vault" and lits[:1] in (["view"], ["decrypt"]) and "--output" not in lits:
        return "decrypted vault secrets"
    if name in ("gpg", "gpg2") and any(a.startswith("--export-secret") for a in lits):
        return "a private key"
    if _decrypts_to_stdout(name, lits):
        return "a decrypted file"
    if name == "p4" and _p4_subcommand(lits) in (["tickets"], ["login", "-p"], ["login", "-a", "-p"]):
        return "Perforce login tickets"
    if name == "getent" and lits[:1] in (["shadow"], ["gshadow"]):
        return "password hashes"
    if name == "aws" and lits[:2] == ["iam", "create-access-key"]:
        return "a new AWS secret access key"
    if name == "kubectl" and (lits[:2] == ["create", "token"] or (lits[:2] == ["config", "view"] and "--raw" in lits)):
        return "a Kubernetes credential"
    if name == "heroku" and lits[:1] == ["auth:token"]:
        return "the Heroku API token"
    if name in ("pass", "gopass") and (
        lits[:1] == ["show"]
        or (
            lits
            and not lits[0].startswith("-")
            and lits[0] not in ("ls", "list", "find", "insert", "edit", "generate", "rm", "init", "git", "mv")
        )
    ):
        return "a password from the password store"
    if (
        name == "security"
        and lits[:1] in (["find-generic-password"], ["find-internet-password"])
        and {"-w", "-g"} & set(lits)
    ):
        return "a password from the macOS keychain"
    if name == "security" and lits[:1] == ["dump-keychain"] and "-d" in lits:
        return "the keychain's decrypted secrets"
    if name == "rclone" and lits[:2] in (["config", "show"], ["config", "dump"]):
        return "the rclone remotes' keys and tokens"
    if name == "s3cmd" and "--dump-config" in lits:
        return "the S3 access keys"
    if name == "gcloud" and lits[:2] == ["config", "config-helper"]:
        return "a Google Cloud access token"
    if name == "npm" and lits[:2] == ["token", "create"]:
        return "a new npm token"
    if name == "az" and lits[:3] == ["ad", "sp", "create-for-rbac"]:
        return "a new service principal's password"
    if name == "aws" and lits[:2] == ["configure", "export-credentials"]:
        return "the AWS credentials"
    if name == "firebase" and lits[:1] == ["login:ci"]:
        return "a Firebase CI token"
    if name == "databricks" and lits[:2] == ["auth", "token"]:
        return "a Databricks token"
    if name == "secret-tool" and lits[:1] == ["lookup"]:
        return "a password from the keyring"
    if name == "keyring" and lits[:1] == ["get"]:
        return "a password from the keyring"
    if name == "bw" and lits[:2] in (["get", "password"], ["get", "totp"]):
        return "a password from Bitwarden"
    if name == "lpass" and lits[:1] == ["show"] and "--password" in lits:
        return "a password from LastPass"
    if name == "vault" and (lits[:1] == ["print"] or lits[:2] == ["token", "create"]):
        return "a Vault token"
    if name == "doctl" and lits[:2] == ["auth", "token"]:
        return "a DigitalOcean token"
    if name.startswith("docker-credential-") and lits[:1] == ["get"]:
        return "a registry password"
    return _platform_secret(name, lits)


# Hosting, database and payment platforms' CLIs whose command prints a stored secret, a new
# token or a password-bearing connection string: (programs, subcommand words, any of these
# flags or None, what is printed). Listing names (``fly secrets list``, ``wrangler secret list``,
# ``vercel env ls``) shows no values and is not here.
_PLATFORM_SECRETS: tuple[tuple[frozenset[str], tuple[str, ...], frozenset[str] | None, str], ...] = (
    (frozenset({"argocd"}), ("admin", "initial-password"), None, "the Argo CD admin password"),
    (frozenset({"argocd"}), ("account", "generate-token"), None, "a new Argo CD API token"),
    (frozenset({"turso"}), ("db", "tokens", "create"), None, "a new database token"),
    (frozenset({"turso"}), ("auth", "token"), None, "the Turso API token"),
    (frozenset({"turso"}), ("auth", "api-tokens", "mint"), None, "a new Turso API token"),
    (frozenset({"neonctl", "neon"}), ("connection-string",), None, "a connection string with its password"),
    (frozenset({"neonctl", "neon"}), ("cs",), None, "a connection string with its password"),
    (frozenset({"neonctl", "neon"}), ("roles", "reset-password"), None, "a new database password"),
    (frozenset({"pscale"}), ("password", "create"), None, "a new database password"),
    (frozenset({"pscale"}), ("service-token", "create"), None, "a new service token"),
    (frozenset({"fly", "flyctl"}), ("auth", "token"), None, "the Fly.io access token"),
    (frozenset({"fly", "flyctl"}), ("tokens", "create"), None, "a new Fly.io token"),
    (frozenset({"netlify"}), ("env:get",), None, "an environment secret"),
    (frozenset({"netlify"}), ("env:list",), frozenset({"--plain", "--json"}), "every environment value"),
    (frozenset({"railway"}), ("variables",), None, "every service variable's value"),
    (frozenset({"railway"}), ("variable", "list"), None, "every service variable's value"),
    (frozenset({"supabase"}), ("projects", "api-keys"), None, "the project's API keys (service role included)"),
    (frozenset({"stripe"}), ("config",), frozenset({"--list"}), "the stored Stripe API keys"),
    (frozenset({"infisical"}), ("export",), None, "every secret of the environment"),
    (frozenset({"infisical"}), ("secrets",), None, "secret values"),
    (frozenset({"doppler"}), ("configure", "get"), frozenset({"token"}), "the Doppler token"),
    (frozenset({"pulumi"}), ("config",), frozenset({"--show-secrets"}), "the stack's decrypted secrets"),
    (frozenset({"pulumi"}), ("stack", "output"), frozenset({"--show-secrets"}), "the stack's decrypted secrets"),
    (frozenset({"glab"}), ("auth", "status"), frozenset({"-t", "--show-token"}), "the GitLab token"),
    (frozenset({"cloudflared"}), ("tunnel", "token"), None, "a tunnel's credentials"),
    (frozenset({"mc", "mcli"}), ("alias", "list"), None, "the object store's access and secret keys"),
    (frozenset({"mc", "mcli"}), ("alias", "ls"), None, "the object store's access and secret keys"),
    (frozenset({"borg"}), ("key", "export"), None, "the backup repository's key"),
    (frozenset({"wg"}), ("showconf",), None, "a WireGuard private key"),
    (frozenset({"wg"}), ("show",), frozenset({"private-key", "preshared-keys"}), "a WireGuard private key"),
    # Data platforms (tune-cloud11): secret scopes, orchestrator connections, engine keys.
    (frozenset({"databricks"}), ("secrets", "get-secret"), None, "a Databricks secret's value"),
    (frozenset({"databricks"}), ("secrets", "get"), None, "a Databricks secret's value"),
    (frozenset({"airflow"}), ("connections", "get"), None, "an Airflow connection with its password"),
    (frozenset({"airflow"}), ("connections", "export"), frozenset({"-", "/dev/stdout"}), "every Airflow connection"),
    (
        frozenset({"airflow"}),
        ("config", "get-value"),
        frozenset({"fernet_key", "secret_key", "sql_alchemy_conn", "broker_url", "result_backend"}),
        "Airflow's encryption key or a database URL with its password",
    ),
    (frozenset({"az"}), ("storage", "account", "keys", "list"), None, "the storage account's access keys"),
    (frozenset({"az"}), ("storage", "account", "show-connection-string"), None, "a connection string with its key"),
    (frozenset({"az"}), ("cosmosdb", "keys", "list"), None, "the Cosmos DB account keys"),
    (frozenset({"az"}), ("redis", "list-keys"), None, "the Redis access keys"),
    (frozenset({"az"}), ("acr", "credential", "show"), None, "the registry's passwords"),
    (frozenset({"aws"}), ("rds", "generate-db-auth-token"), None, "a database login token"),
    (frozenset({"aws"}), ("redshift", "get-cluster-credentials"), None, "temporary database credentials"),
    (frozenset({"aws"}), ("secretsmanager", "batch-get-secret-value"), None, "secret values"),
    (frozenset({"databricks"}), ("tokens", "create"), None, "a new Databricks token"),
    (frozenset({"confluent"}), ("api-key", "create"), None, "a new Confluent API secret"),
    (frozenset({"az"}), ("ad", "sp", "credential", "reset"), None, "a new service principal's password"),
    (frozenset({"az"}), ("webapp", "deployment", "list-publishing-profiles"), None, "the app's deployment passwords"),
    (frozenset({"az"}), ("functionapp", "keys", "list"), None, "the function app's keys"),
)


def _pulls_secrets_to_file(cmd: Cmd, cmds: list[Cmd], name: str, lits: list[str], prints_secrets: bool) -> bool:
    """``vercel env pull .env.local``, ``supabase status -o env``, ``infisical export > .env``,
    ``vault kv get … | tee out.json | wc -l``: a platform's secrets written into a file (or the
    dev stack's keys printed as an env file); the user confirms, since the file is overwritten and
    now holds the values."""
    words = [a for a in lits if not a.startswith("-")]
    if (
        name == "vercel"
        and words[:2] in (["env", "pull"], ["pull"])
        and (words[:1] == ["env"] or "--environment" in lits)
    ):
        return True
    if (
        name == "supabase"
        and words[:1] == ["status"]
        and ({"-o", "--output"} & set(lits) or any(a.startswith("--output=") for a in lits))
    ):
        return True
    return prints_secrets and (
        any(r.op in (">", ">>", ">|", "&>") and r.fd in ("", "1") and r.target is not None for r in cmd.redirects)
        or _stream_stored(_downstream(cmd, cmds))
    )


# Files that are a terminal or another stream, not storage.
_STREAM_FILES = frozenset({"/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/null", "-"})


def _stream_stored(downstream: list[Cmd]) -> bool:
    """Whether a pipeline stores the stream it is given in a file before anything reduces it:
    ``… | tee out.json | wc -l``, ``… | tee -a log >/dev/null``, ``… | jq .data > secret.json``.
    A count written to a file (``… | wc -l > n.txt``) or the output of a program that takes the
    stream as its input (``… | docker login --password-stdin > log``) holds none of it."""
    for stage in downstream:
        if stage.name == "tee":
            _flags, files, _values = _shell.split_options(stage.args, frozenset())
            if any((w.literal() or w.text) not in _STREAM_FILES for w in files):
                return True
            continue
        if _counts(stage) or stage.name not in _SHOWS:
            return False
        if _stdout_to_file(stage):
            return True
    return False


def _platform_secret(name: str, lits: list[str]) -> str | None:
    """What a platform CLI prints (``turso db tokens create``, ``neonctl connection-string``,
    ``netlify env:list --plain``, ``borg key export REPO -``), or None. Options before and
    between the subcommand words are skipped (``pscale password create db main x``)."""
    words = [a for a in lits if not a.startswith("-")]
    flags = {a.split("=", 1)[0] for a in lits if a.startswith("-")} | set(lits)
    for programs, sub, needed, what in _PLATFORM_SECRETS:
        if name not in programs or tuple(words[: len(sub)]) != sub:
            continue
        if needed is not None and not needed & flags:
            continue
        if name == "borg" and len(words) > 3 and words[3] != "-":
            continue  # borg key export REPO FILE writes the key to a file (a backup of it)
        if name == "infisical" and words[1:2] and words[1] in ("set", "delete", "folders"):
            continue
        return what
    return None


_KEYCHAIN_DELETES = {
    "delete-certificate": "a certificate (and the signing identity it completes) from the keychain",
    "delete-identity": "a signing identity (certificate and private key) from the keychain",
    "delete-generic-password": "a password stored in the keychain",
    "delete-internet-password": "a password stored in the keychain",
    "delete-keychain": "a keychain with every key and password in it",
}
_DEFAULT_KEYCHAIN = lazy_compile(r"(?i)(?:login|system|icloud|metadata|local-items)(?:[.-]|$)")
_GPG_SECRET_DELETES = frozenset({
    "--delete-secret-key", "--delete-secret-keys", "--delete-secret-and-public-key", "--delete-secret-and-public-keys",
})  # fmt: skip


def _deletes_stored_credentials(cmd: Cmd, name: str, lits: list[str]) -> str | None:
    """``security delete-certificate -c 'Apple Distribution: …'``, ``gpg --batch --yes
    --delete-secret-keys ID``, ``secret-tool clear service x``: the user's keys and passwords
    deleted from their store — a private key never leaves it, so nothing restores it. A
    keychain a signing script made (``security delete-keychain build.keychain``, the CI
    routine) is scratch; the login and system keychains are not."""
    if name == "security" and lits[:1] and lits[0] in _KEYCHAIN_DELETES:
        _flags, positionals, _values = _shell.split_options(
            cmd.args[1:], frozenset({"-c", "-Z", "-t", "-a", "-s", "-l", "-r", "-d", "-D", "-j", "-k", "-p", "-P"})
        )
        # Without a keychain named, the default search list (the login keychain); a bare name
        # other than the user's or the system's own is one a signing script created.
        named = [
            os.path.basename(v) for w in positionals[-1:] for v in cmd.values(w) or [_shell.expand_pattern(w, cmd.ctx)]
        ]
        if named and not any(_DEFAULT_KEYCHAIN.match(b) or not b.strip("*") for b in named):
            return None
        return _KEYCHAIN_DELETES[lits[0]]
    if name in ("gpg", "gpg2") and _GPG_SECRET_DELETES & {lit for lit in lits if lit}:
        return "a GPG private key"
    if name == "secret-tool" and lits[:1] == ["clear"]:
        return "passwords stored in the desktop keyring"
    return None


def _exports_private_keys(name: str, lits: list[str]) -> str | None:
    """``security export -t identities -f pkcs12 -o out.p12``: the keychain's private keys written
    out of it, wherever the file goes (with ``-P ''`` unprotected)."""
    if name == "security" and lits[:1] == ["export"]:
        kinds = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-t", "--type")]
        if not kinds or set(kinds) & {"identities", "privKeys", "all"}:
            return "the keychain's private keys"
    return None


# SQL clients, and a SELECT that prints an application's password hashes or tokens: columns named
# for credentials (the server's own account tables, mysql.user and pg_shadow, are judged by
# dangerous_commands' sql rule).
SQL_CLIENTS = frozenset({
    "psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "clickhouse-client", "duckdb", "cockroach", "mongosh",
})  # fmt: skip
_SQL_SELECT = lazy_compile(r"(?is)\bselect\b(?P<cols>.*?)\bfrom\s+(?P<table>[`\"\w.$]+)")
_ACCOUNT_TABLES = lazy_compile(
    r"(?i)[`\"]?(?:mysql[`\"]?\.[`\"]?user|(?:pg_catalog\.)?pg_(?:shadow|authid)|sys\.sql_logins|dba_users)[`\"]?"
)
_CREDENTIAL_COLUMN = lazy_compile(
    r"(?i)\b\w*(?:password|passwd|authentication_string|rolpassword|pass_hash|pwd_hash|api_?key|secret|"
    # A suffix naming the stored form (``password_hash``, ``api_key_digest``) is still the
    # credential; other suffixes are facts about it (``password_updated_at``).
    r"access_token|refresh_token|auth_token|private_key)(?:_(?:hash|digest|encrypted|enc|salt|ciphertext))?\b"
    r"|\btoken\b"
)
_SQL_HARMLESS = lazy_compile(
    r"(?is)\b(?:count|length|char_length|octet_length|bit_length)\s*\([^)]*\)|\b\w+\s+is\s+(?:not\s+)?null\b"
)


def _selects_credentials(cmd: Cmd) -> bool:
    """``psql -c "SELECT email, password_hash FROM users"``, ``sqlite3 app.db "SELECT token FROM
    sessions"``: the query prints an application's password hashes or tokens. Counting them or
    testing that they are set (``count(api_key)``, ``password IS NULL``) prints none."""
    if cmd.name not in SQL_CLIENTS:
        return False
    texts = [w.literal() or "" for w in cmd.args] + [cmd.stdin_text or ""]
    for text in texts:
        for m in _SQL_SELECT.finditer(text):
            if _ACCOUNT_TABLES.fullmatch(m.group("table")):
                continue  # the server's own accounts: dangerous_commands' sql rule
            if _CREDENTIAL_COLUMN.search(_SQL_HARMLESS.sub("", m.group("cols"))):
                return True
    return False


def _decrypts_to_stdout(name: str, lits: list[str]) -> bool:
    """``gpg -d .env.gpg``, ``age -d -i key.txt secrets.age``, ``openssl enc -d -in x.enc``:
    decryption whose plaintext goes to standard output (``-o FILE`` writes it elsewhere)."""
    writes_file = any(a in ("-o", "--output", "-out") or a.startswith("--output=") for a in lits)
    if writes_file:
        return False
    if name in ("gpg", "gpg2"):
        return any(a in ("-d", "--decrypt") or (re.fullmatch(r"-[a-zA-Z]*d[a-zA-Z]*", a) is not None) for a in lits)
    if name in ("age", "rage"):
        return any(a in ("-d", "--decrypt") for a in lits)
    return name == "openssl" and lits[:1] == ["enc"] and "-d" in lits


# Programs that only show what they are given: a credential piped into them still reaches the transcript.
_SHOWS = (
    PRINTERS
    | FILTERS
    | frozenset(
        {
            "head",
            "tail",
            "cut",
            "tr",
            "jq",
            "yq",
            "base64",
            "xxd",
            "sort",
            "less",
            "more",
            "column",
            "od",
            "hexdump",
            "rev",
            "fold",
            "bat",
            "cat",
            # The clipboard: any program (and the next paste) can read it.
            "pbcopy",
            "xclip",
            "xsel",
            "wl-copy",
            "clip.exe",
        }
    )
)


def _reaches_transcript(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """Whether ``cmd``'s output is shown: not captured into a variable (``T=$(…)``), not written
    to a file, not piped into a program that consumes it (``| docker login --password-stdin``),
    not reduced to a count (``| jq '.data | length'``, ``| wc -l``)."""
    if cmd.origin == "subst" or _stdout_to_file(cmd):
        return False
    downstream = _downstream(cmd, cmds)
    return all(c.name in _SHOWS for c in downstream) and not _ends_in_count(downstream)


# A jq/yq program whose last step is ``length``: it prints a number (``.events | length``,
# ``[.items[] | select(.type == "tls")] | length``, ``length``), never the data it counted
# (unless a step writes to stderr: ``debug``, ``stderr``, ``error``).
_JQ_COUNTS = lazy_compile(r"(?!.*\b(?:debug|stderr|error|halt_error)\b)(?:.*\|)?\s*length\s*", re.DOTALL)


def _counts(cmd: Cmd) -> bool:
    """Whether ``cmd`` prints only a count of what it reads: ``wc``, ``grep -c``/``-q``, ``awk
    'END {print NR}'``, a jq/yq program ending in ``| length``; nothing else on its standard output
    (no ``tee`` copy, no second program)."""
    if cmd.name == "wc":
        return True
    if _prints_no_line(cmd):
        return True
    _flags, positionals, _values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS.get(cmd.name, frozenset()))
    program = (positionals[0].literal() or "") if positionals else ""
    if cmd.name in _AWKS:
        return _AWK_COUNTS.fullmatch(program.replace(" ", "")) is not None
    if cmd.name in ("jq", "gojq", "yq", "jaq"):
        return "," not in program and _JQ_COUNTS.fullmatch(program) is not None
    return False


def _ends_in_count(downstream: list[Cmd]) -> bool:
    """``kubectl get secret app -o json | jq '.data | length'``, ``vault kv get … | wc -l``: a
    pipeline whose last stage prints only a count, with no stage before it writing a copy
    (``tee``) or sending the data on."""
    if not downstream or not _counts(downstream[-1]):
        return False
    return all(c.name in _SHOWS and c.name != "tee" and not _stdout_to_file(c) for c in downstream[:-1])


def _stdout_to_file(cmd: Cmd) -> bool:
    """Whether ``cmd``'s standard output is redirected into a file (not a terminal or stdout)."""
    for r in cmd.redirects:
        shown = r.target is None or (r.target.literal() or "") in ("/dev/stdout", "/dev/tty", "/dev/stderr")
        if r.op in (">", ">>", ">|", "&>") and r.fd in ("", "1") and not shown:
            return True
    return False


# What joins two commands so that the second always runs after the first succeeded.
_THEN_RUNS = lazy_compile(r"\s*(?:&&|;|\n)\s*")
_IN_PLACE_NO_BACKUP = lazy_compile(r"-[A-Za-z]*i|--in-place")


def _redacted_copy(cmd: Cmd, later: list[Cmd], source: str) -> bool:
    """``cp .env .env.example && sed -i 's/=.*/=/' .env.example``: an environment file copied to a
    new name whose every value the same command then cuts in place (``sed -i`` with a
    names-only script) right after (``&&``, ``;`` or a new line) — a template is made, nothing of
    the values is shown or kept."""
    if cmd.name != "cp" or cmd.ctx.remote or cmd.origin != "top" or cmd.stage or not cmd.argv or not later:
        return False
    _flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-t", "--target-directory", "-S"}))
    if values or len(positionals) != 2:
        return False
    src, dst = ([_shell.normalize(v, cmd.ctx.cwd) for v in cmd.values(w) or []] for w in positionals)
    if len(src) != 1 or len(dst) != 1 or src[0] is None or dst[0] is None:
        return False
    if not os.path.basename(src[0]).startswith(".env") or _shell.glob_split(src[0])[1] is not None:
        return False
    following = later[0]
    if following.origin != "top" or not following.argv or cmd.args[-1].pos < 0 or following.argv[0].pos < 0:
        return False
    between = source[cmd.args[-1].pos + len(cmd.args[-1].raw) : following.argv[0].pos]
    if not _THEN_RUNS.fullmatch(between):
        return False  # cp … || sed …: the cut runs only when the copy failed
    for other in later:
        named = {_shell.normalize(v, other.ctx.cwd) for w in other.args for v in other.values(w) or []}
        named |= {
            _shell.normalize(v, other.ctx.cwd)
            for r in other.redirects
            if r.target is not None
            for v in other.values(r.target) or []
        }
        if dst[0] not in named:
            continue
        if other.name not in ("sed", "gsed") or other.origin != "top" or other.stage or _stdout_to_file(other):
            return False
        _flags, positionals, values = _shell.split_options(
            other.args, _shell.VALUE_OPTIONS.get(other.name, frozenset())
        )
        lits = [w.literal() or "" for w in other.args]
        # -i / --in-place without a backup suffix (sed -i.bak would keep a copy with the values).
        in_place = any(_IN_PLACE_NO_BACKUP.fullmatch(lit) for lit in lits)
        if positionals and positionals[0].literal() == "" and "-i" in lits:
            positionals = positionals[1:]  # BSD sed -i '': no backup either
        scripts = [w.literal() for w in values.get("e", []) + values.get("expression", [])] or [
            w.literal() for w in positionals[:1]
        ]
        return in_place and all(t is not None and _SED_CUTS_VALUE.fullmatch(t.strip()) for t in scripts)
    return False


# The environment in inspect output: docker's .Config.Env, a pod spec's env/envFrom.
_ENV_FIELD = lazy_compile(r"\.Config\.Env\b|\.env\b|\bEnv\b|\benvFrom\b")


def _container_env_dump(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """``docker inspect api | jq '.[0].Config.Env'``, ``docker inspect -f '{{.Config.Env}}' api``,
    ``docker exec api env``: the environment a container or pod was started with."""
    lits = [w.literal() or w.text for w in cmd.args]
    if cmd.name not in ("docker", "podman", "kubectl") or not lits:
        return False
    if lits[0] not in ("inspect", "container", "get"):
        return False
    if _ends_in_count(_downstream(cmd, cmds)):
        return False  # docker inspect api | jq '.[0].Config.Env | length': how many variables
    texts = lits[1:] + [w.literal() or w.text for c in _downstream(cmd, cmds) for w in c.args]
    # --format '{{len .Config.Env}}' prints how many variables there are, not what they hold.
    return any(_ENV_FIELD.search(t) and not _GO_TEMPLATE_COUNT.fullmatch(t) for t in texts)


_GO_TEMPLATE_COUNT = lazy_compile(r"\s*\{\{\s*len\s+[^{}|]*\}\}\s*")


# Secret scanners: their JSON reports carry each finding's secret in clear text (trufflehog's Raw,
# gitleaks' Secret and Match, ggshield's match, detect-secrets' secret), next to where it was found.
_SECRET_SCANNERS = frozenset(
    {"trufflehog", "gitleaks", "ggshield", "detect-secrets", "noseyparker", "kingfisher", "secretlint", "talisman"}
)
_RAW_SECRET_FIELD = lazy_compile(r"\.(?:Raw|RawV2|Secret|Match|match|secret|secrets|raw|matched_secret|value)\b")


def _scanner_secrets_shown(cmd: Cmd, cmds: list[Cmd]) -> bool:
    """``trufflehog git file://. --json | jq -r .Raw``, ``gitleaks detect -r - | jq '.[].Secret'``:
    a scanner's report filtered down to the secrets it found, and shown."""
    if cmd.origin == "subst" or _stdout_to_file(cmd):
        return False
    downstream = _downstream(cmd, cmds)
    if any(c.name not in _SHOWS for c in downstream):
        return False
    programs = [w.literal() or w.text for c in downstream if c.name in ("jq", "gojq", "yq", "jaq") for w in c.args]
    return any(_RAW_SECRET_FIELD.search(p) for p in programs)


def _printed_secret_var(cmd: Cmd, cmds: list[Cmd], name: str, found: list[Finding]) -> None:
    """The one rule for a secret environment variable's value printed by a command, whether by
    the shell (``echo "$TOKEN"``, ``printenv TOKEN``) or by interpreter code (``python -c
    'print(os.environ["TOKEN"])'``, ``Rscript -e 'cat(Sys.getenv("TOKEN"))'``): denied, unless
    the output is piped into a program that takes it as input (``| docker login
    --password-stdin``, ``| wc -c``) and written to no file."""
    if _fed_to_consumer(cmd, cmds):
        return
    found.append(
        (
            "deny",
            f"`{cmd.display}` prints the secret variable ${name}; its value would land in the transcript. "
            f'Check it is set with `test -n "${name}"` (or a length/presence test in the code) instead.',
        )
    )


def _env_filters(cmd: Cmd, cmds: list[Cmd]) -> tuple[list[Cmd], bool, bool, bool]:
    """How the pipeline after an environment dump filters it: the filter stages, whether they
    print no line (``grep -q``), whether one prints only the matched names (``grep -o``), and
    whether their patterns pick credentials (``grep -i pass``, ``grep STRIPE``)."""
    filters = [c for c in _downstream(cmd, cmds) if c.name in FILTERS and not _inverted(c)]
    patterns = [w.literal() or w.text for c in filters for w in c.args]
    quiet = bool(filters) and all(_prints_no_line(c) for c in filters)
    # grep -o '^AWS[A-Z_]*', or a stage that cut every line to its name first (env | cut -d= -f1
    # | grep -i vault, env | awk -F= '{print $1}' | grep AWS): the names, not the values.
    names_only = bool(filters) and (
        any(_only_matching(c) for c in filters) or any(_projection(c) == "names" for c in _downstream(cmd, cmds))
    )
    credential = any(_CREDENTIAL_VENDORS.search(p) or SECRET_PATTERN_WORDS.search(p) for p in patterns)
    return filters, quiet, names_only, credential


def _secret_stored_in_git_config(cmd: Cmd) -> str | None:
    """``git config --global url."https://oauth2:$GITLAB_TOKEN@host/".insteadOf …``: a secret
    variable's value written in clear text into git's configuration (a remote or rewrite URL
    that carries it), where every ``git config --list`` and ``git remote -v`` prints it; the
    secret variable's name, or None."""
    if cmd.name != "git":
        return None
    words = [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    if not words or words[0].literal() != "config":
        return None
    for word in words[1:]:
        if "://" in word.text and "@" in word.text:
            names = _secret_vars(word)
            if names:
                return names[0]
    return None


def _check_bash_env(cmd: Cmd, cmds: list[Cmd], found: list[Finding]) -> None:
    name = cmd.name
    lits = [w.literal() or "" for w in cmd.args]
    stored = _secret_stored_in_git_config(cmd)
    if stored:
        found.append(
            (
                "deny",
                f"`{cmd.display}` writes the value of ${stored} in clear text into git's configuration, where "
                "`git config --list` and `git remote -v` print it. Use a credential helper "
                "(`git config credential.helper …`, `gh auth setup-git`) or pass it per command "
                "(`git -c http.extraHeader=…`) instead.",
            )
        )
    if name in PRINTERS or name in ENV_DUMPERS:
        secret = [n for w in cmd.args for n in _secret_vars(w)]
        for r in cmd.redirects:
            if r.op == "<<<" and r.target is not None:
                secret.extend(_secret_vars(r.target))
        if secret:
            _printed_secret_var(cmd, cmds, secret[0], found)
    if (
        name in ("declare", "typeset", "export", "readonly")
        and any(a.startswith("-") and "p" in a for a in lits)
        and any(is_secret_name(a) for a in lits if not a.startswith("-"))
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints a secret variable's value."
                " Use it where it is needed without printing it (e.g. pass it to the tool through the environment).",
            )
        )
    if name == "printenv":
        named = [a for a in lits if not a.startswith("-") and is_secret_name(a)]
        if named:
            _printed_secret_var(cmd, cmds, named[0], found)
            return
    dumps = (name in ("env", "printenv") and not [a for a in lits if not a.startswith("-")]) or (
        name in ("set", "export", "declare", "typeset") and lits in ([], ["-p"], ["-x"], ["-px"])
    )
    loaded = _loaded_secret_file(cmd, cmds) if dumps else None
    if loaded is not None and _reaches_transcript(cmd, cmds) and not _filters_out(cmd, cmds):
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints the environment after this command loaded {loaded} into it, so "
                "that file's secrets reach the transcript. Print only the names you need, or check "
                "they are set.",
            )
        )
        return
    if dumps and any(c.name in SENDERS for c in _downstream(cmd, cmds)):
        found.append(
            (
                "deny",
                f"`{cmd.display} | …` sends every environment variable, credentials included, over the "
                "network. Send only the values the service needs, named one by one, instead.",
            )
        )
        return
    if dumps:
        filters, quiet, names_only, credential = _env_filters(cmd, cmds)
        # awk -F= '{print $1}' and sed 's/=.*//' reshape every line rather than pick some: the
        # names of all variables still print, and a slip in the program prints their values.
        narrowing = [c for c in filters if c.name not in ("awk", "gawk", "mawk", "sed", "gsed")] + [
            c for c in _downstream(cmd, cmds) if c.name == "wc"
        ]
        if filters and not quiet and names_only and credential:
            # env | grep -o '^STRIPE[A-Z_]*': the names, not the values (settled: confirm).
            found.append(
                (
                    "ask",
                    f"`{cmd.display} | …` prints the names of credential variables; a slip in the pattern "
                    'prints their values. Confirm, or test the one you need with `test -n "$NAME"`.',
                )
            )
        elif filters and not quiet and credential:
            found.append(
                (
                    "deny",
                    f"`{cmd.display} | …` filters the environment for "
                    "credentials and prints them. Check single variables with "
                    '`test -n "$NAME"` instead.',
                )
            )
        elif not narrowing:
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` prints every environment variable, "
                    "including credentials; confirm (or print the one you need).",
                )
            )
    if name in _SECRET_SCANNERS and _scanner_secrets_shown(cmd, cmds):
        found.append(
            (
                "deny",
                f"`{cmd.display} | …` picks the raw secrets a scanner found out of its report and prints "
                "them into the transcript. Print where they are instead (file, line, rule: "
                "`jq -r '.SourceMetadata'`, gitleaks `--redact`), and let the user look at the values.",
            )
        )
    if name == "compgen" and any(a.startswith("-") and ("e" in a or "v" in a) for a in lits):
        found.append(
            (
                "ask",
                f"`{cmd.display}` lists the names of every variable, credentials' names included; "
                'confirm, or test the one you need with `test -n "$NAME"`.',
            )
        )
    if name == "terraform" and "output" in lits:
        named = [a for a in lits[lits.index("output") + 1 :] if not a.startswith("-")]
        if any(is_secret_name(a) for a in named) and ({"-raw", "-json"} & set(lits)):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` prints the Terraform output {named[0]} in clear text. Pass it to the "
                    "program that needs it (`$(terraform output -raw …)` inside that command) instead.",
                )
            )
        elif "-json" in lits and not named and not any(_projection(c) for c in _downstream(cmd, cmds)):
            # terraform output -json | jq 'keys' (or | wc -l): the outputs' names or a count only.
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` prints every Terraform output, sensitive ones in clear text; confirm, or "
                    "print the one non-secret output you need.",
                )
            )
    if name == "helm" and lits[:1] == ["get"] and len(lits) > 1 and lits[1] in ("values", "all", "manifest"):
        found.append(
            (
                "ask",
                f"`{cmd.display}` prints a release's values or manifests, which often hold passwords and "
                "Secrets; confirm, or read the chart's values file in the project instead.",
            )
        )
    if name in DB_DUMPERS and any(c.name in SENDERS for c in _downstream(cmd, cmds)):
        found.append(
            (
                "deny",
                f"`{cmd.display} | …` sends a database dump, every row and credential in it, over the "
                "network. Keep dumps on this machine (`> backups/…`) and let the user move them.",
            )
        )
    served = _served_folder(cmd)
    if _unauthenticated_code_server(cmd):
        found.append(
            (
                "deny",
                f"`{cmd.display}` runs a code server without a token or password on more than loopback: "
                "anyone who reaches the port can run commands as the user. Keep the token, or bind it "
                "to 127.0.0.1.",
            )
        )
    elif served == cmd.ctx.project:
        # LABELLING.md's settled call: binding a folder that holds secrets to every interface.
        found.append(
            (
                "deny",
                f"`{cmd.display}` publishes the project folder, its environment files included, on every "
                "network interface. Serve only the build output (`dist/`, `docs/_build/html`), or bind "
                "to 127.0.0.1.",
            )
        )
    elif served is not None:
        found.append(
            (
                "deny",
                f"`{cmd.display}` serves {served} — the home folder's keys and credentials — to other "
                "machines. Serve only the folder that holds the files to share (e.g. `--directory "
                "docs/_build/html`), bound to 127.0.0.1.",
            )
        )
    if _prints_history(name, lits) and _digs_for_secret_values(cmd, cmds):
        found.append(
            (
                "deny",
                f"`{cmd.display}` searches the shell history for exported or assigned credentials (export "
                "…TOKEN=, PASSWORD=): it prints their values. Ask the user for the setting you need, or "
                "search for the command by its name only.",
            )
        )
    elif _prints_history(name, lits):
        found.append(
            (
                "ask",
                f"`{cmd.display}` shows the shell history, which often holds tokens and passwords "
                "typed on the command line; confirm, or ask the user for the command you need.",
            )
        )
    if _container_env_dump(cmd, cmds):
        filters, quiet, names_only, credential = _env_filters(cmd, cmds)
        if filters and not quiet and not names_only and credential:
            # docker inspect … {{.Config.Env}} | grep -i pass: picked like env | grep -i pass.
            found.append(
                (
                    "deny",
                    f"`{cmd.display} | …` filters a container's or pod's environment for credentials and "
                    "prints them. Check single variables are set instead (`… sh -c 'test -n \"$NAME\"'`).",
                )
            )
        else:
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` prints a container's or pod's environment, which often holds its "
                    "credentials; confirm (or print the one non-secret variable you need).",
                )
            )
    if name in SENDERS and any(
        _shell.names_in(sub.script, cmd.ctx) & {"env", "printenv"} for w in cmd.args for sub in w.subs()
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` sends every environment variable, credentials included, over the "
                "network. Send only the values the service needs, named one by one, instead.",
            )
        )
    if name in ("curl", "wget", "http", "https", "xh"):
        for word in cmd.args:
            leaked = _secret_in_query(word)
            if leaked:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` puts the secret ${leaked} into a URL's query string, where "
                        "servers, proxies and shell history log it. Send it in a header "
                        '(`-H "Authorization: …"`) or the request body instead.',
                    )
                )
                break
    if _secret_store_read(name, lits) and _reaches_transcript(cmd, cmds):
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints secrets from a secret store into the transcript. Pass them "
                "to the program that needs them (e.g. through the environment) instead.",
            )
        )
    gh_token = name == "gh" and (
        lits[:2] == ["auth", "token"] or (lits[:2] == ["auth", "status"] and ("-t" in lits or "--show-token" in lits))
    )
    editor = cmd.env.get("EDITOR") or cmd.env.get("VISUAL") or ""
    printed = _prints_credential(name, lits, os.path.basename(editor.split(" ")[0]) in _SHOWS)
    if printed is None and name in _URL_FETCHERS and any(_METADATA_CREDENTIALS.search(w.text) for w in cmd.args):
        # …/security-credentials/$(curl …/security-credentials/): the role name filled in by a substitution.
        printed = "the cloud instance's role credentials"
    if printed is not None and _reaches_transcript(cmd, cmds):
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints {printed} into the transcript. Capture it where it is used "
                "(`T=$(…)`, or pipe it into the tool: `… | docker login --password-stdin`) instead.",
            )
        )
    elif _pulls_secrets_to_file(
        cmd, cmds, name, lits, printed is not None or _secret_store_read(name, lits) or gh_token
    ):
        found.append(
            (
                "ask",
                f"rule secret-pull: `{cmd.display}` writes a platform's stored secrets into a local file (it may "
                "overwrite one). Confirm; keep the file git-ignored and never print it.",
            )
        )
    if name == "airflow" and [a for a in lits if not a.startswith("-")][:2] == ["connections", "list"]:
        found.append(
            (
                "ask",
                f"`{cmd.display}` lists every Airflow connection with its login, password and URI fields; "
                "confirm, or get the one connection's host with `airflow connections get ID -o json | jq .host`.",
            )
        )
    destroyed = _deletes_stored_credentials(cmd, name, lits)
    if destroyed is not None:
        found.append(
            (
                "deny",
                f"rule credential-store: `{cmd.display}` deletes {destroyed}, which cannot be restored from "
                "the project. Leave it in place; if it must go, ask the user to remove it (or sign with a "
                "keychain the task creates).",
            )
        )
    exported = _exports_private_keys(name, lits)
    if exported is not None:
        found.append(
            (
                "deny",
                f"`{cmd.display}` exports {exported} into a file. Sign or use them through the keychain "
                "instead (codesign, xcodebuild and fastlane match read it directly).",
            )
        )
    if _selects_credentials(cmd):
        found.append(
            (
                "deny",
                f"`{cmd.display}` selects password hashes or tokens, which would print credentials. Select "
                "the other columns, or count them (`count(col)`, `col IS NULL`) instead.",
            )
        )
    if gh_token and _reaches_transcript(cmd, cmds):
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints the GitHub token."
                " Use it where it is needed without printing it (e.g. pass it to the tool through the environment).",
            )
        )
    if (
        name == "aws"
        and lits[:2] == ["configure", "get"]
        and any(re.search(r"(?i)secret|key|token", a) for a in lits[2:])
    ):
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints an AWS credential."
                " Use it where it is needed without printing it (e.g. pass it to the tool through the environment).",
            )
        )
    if name == "aws" and lits[:2] == ["configure", "export-credentials"]:
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints AWS credentials."
                " Use it where it is needed without printing it (e.g. pass it to the tool through the environment).",
            )
        )
    if name == "git" and lits[:2] == ["credential", "fill"]:
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints stored git credentials."
                " Use it where it is needed without printing it (e.g. pass it to the tool through the environment).",
            )
        )
    if name == "security" and lits[:1] and lits[0].startswith("find-") and "-w" in lits:
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints a keychain password."
                " Use it where it is needed without printing it (e.g. pass it to the tool through the environment).",
            )
        )
    if name == "kubectl" and _kubectl_shows_secret_values(cmd) and not _ends_in_count(_downstream(cmd, cmds)):
        found.append(
            (
                "deny",
                f"`{cmd.display}` prints Kubernetes secret values."
                " Use it where it is needed without printing it (e.g. pass it to the tool through the environment).",
            )
        )


def check_bash(command: str, ctx: _shell.Ctx) -> list[Finding]:
    """Findings for one Bash command string."""
    found: list[Finding] = []
    kinds = find_tokens(command)
    if kinds:
        found.append(
            (
                "deny",
                f"the command contains {kinds[0]} in clear text; it would be "
                "stored in logs and transcripts. Read it from an environment variable "
                "or a secret store instead.",
            )
        )
    generic = find_generic(command)
    if generic and not kinds:
        found.append(
            (
                "ask",
                f"the command contains a literal value for {generic[0]} that "
                "looks like a real secret; confirm it is not a credential (prefer an environment variable).",
            )
        )
    _common.tag_rule("credential-literal", found)
    try:
        cmds = _shell.walk(command, ctx)
    except _shell.ShellParseError as exc:
        found.append(
            (
                "deny",
                f"could not parse the command safely ({exc}); blocked (fail "
                "closed). Fix the quoting or split it into simpler commands.",
            ),
        )
        _common.tag_rule("parse", found)
        return found
    known: set[str] = set()  # files whose whole content this command wrote or copied from a template
    listings = _listing_vars(command, ctx)  # variables set to a listing's output: KEY=$(ls …)
    dumps: set[str] = set()  # files this command filled with the environment (env > /tmp/e)
    for index, cmd in enumerate(cmds):
        if _redacted_copy(cmd, cmds[index + 1 :], command):
            continue  # cp .env .env.example && sed -i 's/=.*/=/' .env.example: a template, no values
        start = len(found)
        _check_dump_sent(cmd, dumps, found)
        _common.tag_rule("secret-variable", found, start)
        start = len(found)
        for target in _ci_files_written(cmd):
            found.extend(_ci_step_findings(target, _bash_new_text(cmd), ctx.project))
        _common.tag_rule("ci-secrets", found, start)
        start = len(found)
        _check_bash_files(cmd, found, known, listings)
        if (
            len(found) > start
            and cmd.name in READERS
            and cmd.name not in COPIERS
            and not _stdout_to_file(cmd)
            and _ends_in_count(_downstream(cmd, cmds))
        ):
            del found[start:]  # cat ~/.netrc | wc -l: how many lines, none of them shown
        elif (
            len(found) > start
            and all(level == "ask" and _MAYBE_SECRET_READ in reason for level, reason in found[start:])
            and _one_setting_search(cmd, cmds)
        ):
            del found[start:]  # grep -n '^adapter:' config/database.yml: that setting, no password
        _common.tag_rule("secret-file", found, start)
        known |= _written_whole(cmd)
        start = len(found)
        _check_bash_env(cmd, cmds, found)
        _common.tag_rule("secret-variable", found, start)
        start = len(found)
        _check_inline_code(cmd, cmds, found)
        _common.tag_rule("secret-file", found, start)
        start = len(found)
        _check_log_search(cmd, cmds, found)
        _common.tag_rule("log-credentials", found, start)
        start = len(found)
        _check_history_search(cmd, found)
        _common.tag_rule("history-search", found, start)
        start = len(found)
        _check_production_dump(cmd, found)
        _common.tag_rule("production-dump", found, start)
        start = len(found)
        _check_personal_data_upload(cmd, found)
        _common.tag_rule("personal-data", found, start)
        start = len(found)
        _check_unit_environment(cmd, found)
        _common.tag_rule("unit-environment", found, start)
    return found


# Words of a credential *value* in a log line or a diff: a header, a key=value, a known token
# prefix. "Failed password for root" (a failed login) names no value and does not match.
_CREDENTIAL_VALUE = lazy_compile(
    r"(?i)authori[sz]ation|bearer|api[_-]?key|x-api-key|access[_-]?token|refresh[_-]?token|client[_-]?secret|"
    r"secret[_-]?key|cookie|passw(?:or)?d\W{0,3}[=:]|token\W{0,3}[=:]|sk_live|sk_test|ghp_|xox[bp]-|AKIA|AWS_SECRET|"
    r"PRIVATE KEY"
)
LOG_READERS = frozenset({"journalctl", "dmesg"})
_LOG_SUBCOMMANDS = {"docker": "logs", "podman": "logs", "kubectl": "logs", "fly": "logs", "flyctl": "logs"}


def _log_source(cmd: Cmd) -> bool:
    """Whether ``cmd`` prints logs: journalctl, ``docker logs``, ``kubectl logs``, or a reader of
    a ``*.log`` file or a file under /var/log."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name in LOG_READERS or (cmd.name in _LOG_SUBCOMMANDS and _LOG_SUBCOMMANDS[cmd.name] in lits[:2]):
        return True
    if cmd.name in READERS or cmd.name in FILTERS or cmd.name in ("zcat", "zgrep", "tail", "head", "cat"):
        return any(a.startswith("/var/log/") or re.search(r"\.log(?:\.\d+)?(?:\.gz)?$", a) for a in lits)
    return False


def _check_log_search(cmd: Cmd, cmds: list[Cmd], found: list[Finding]) -> None:
    """``journalctl -u api | grep -i 'authorization: bearer'``, ``grep -h 'api_key=' /var/log/nginx/
    access.log``: searching logs for credential values prints every token a request carried.
    Counting (``-c``) or listing files (``-l``) prints none."""
    if cmd.name not in _SEARCHERS | {"zgrep", "zegrep", "xzgrep", "zstdgrep"} or _inverted(cmd):
        return
    flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-e", "--regexp", "-m", "-A", "-B", "-C"}))
    if _NO_LINES & set(flags):
        return
    patterns = [w.literal() or w.text for w in values.get("e", []) + values.get("regexp", [])] or [
        w.literal() or w.text for w in positionals[:1]
    ]
    if not any(_CREDENTIAL_VALUE.search(p) for p in patterns):
        return
    upstream = [c for c in cmds if any(d is cmd for d in _downstream(c, cmds))]
    if not (_log_source(cmd) or any(_log_source(c) for c in upstream)):
        return
    # An unnamed stage is one the parser could not name: ssh host '…' runs its words elsewhere.
    if any(c.name in SENDERS or not c.name or c.ctx.remote for c in _downstream(cmd, cmds)):
        found.append(
            (
                "deny",
                f"`{cmd.display}` searches logs for credentials (headers, keys, tokens) and sends the matching "
                "lines to another machine: every token a request carried would leave it. Send a count or a "
                "request id instead.",
            )
        )
        return
    if not _reaches_transcript(cmd, cmds):
        return
    found.append(
        (
            "deny",
            f"`{cmd.display}` searches logs for credentials (headers, keys, tokens): every value a "
            "request or a program logged would be printed. Count the lines (`grep -c`) or search for a "
            "request id instead.",
        )
    )


_HISTORY_DIFF_FLAGS = frozenset({"-p", "-u", "--patch"})


def _check_history_search(cmd: Cmd, found: list[Finding]) -> None:
    """``git log -p -S 'sk_live_'``, ``git log -G 'PASSWORD=' -p``: the patches that added or
    removed a credential-looking string are printed, a committed key with them; the user
    confirms (``--stat``/``--oneline`` without ``-p`` lists commits only)."""
    if cmd.name != "git":
        return
    lits = [w.literal() or "" for w in cmd.args]
    if not lits or lits[0] not in ("log", "show", "whatchanged"):
        return
    searched = [lits[i + 1] for i, a in enumerate(lits[:-1]) if a in ("-S", "-G")]
    searched += [a[2:] for a in lits if a.startswith(("-S", "-G")) and len(a) > 2]
    if not any(SECRET_PATTERN_WORDS.search(p) or _CREDENTIAL_VALUE.search(p) for p in searched):
        return
    if lits[0] == "log" and not (_HISTORY_DIFF_FLAGS & set(lits)):
        return
    found.append(
        (
            "ask",
            f"`{cmd.display}` prints the history's patches that contain a credential-looking string; a key "
            "that was ever committed would be shown. Confirm, or list the commits only (`--oneline`, no `-p`).",
        )
    )


def _check_unit_environment(cmd: Cmd, found: list[Finding]) -> None:
    """``systemctl show -p Environment api.service``, ``systemctl show-environment``: a unit's
    Environment= lines often carry passwords and tokens; the user confirms."""
    if cmd.name != "systemctl":
        return
    lits = [w.literal() or "" for w in cmd.args]
    shows_env = "show-environment" in lits or (
        "show" in lits and any(a in ("Environment", "-pEnvironment", "--property=Environment") for a in lits)
    )
    if shows_env:
        found.append(
            (
                "ask",
                f"`{cmd.display}` prints a unit's environment, where passwords and tokens are often set. "
                "Confirm, or read the unit's other properties instead.",
            )
        )


_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})


def _code_named_secrets(cmd: Cmd, found: list[Finding]) -> None:
    """Interpreter code that names a secret file under home or the system in any string form
    (``expanduser('~/.ssh/id_rsa')``, ``Path.home() / '.aws' / 'credentials'``,
    ``process.env.HOME + '/.netrc'``, ``"$ENV{HOME}/.pgpass"``) and does more with it than test
    that it exists: judged as ``cat`` of that file. Files named after inline code (``ruby -e
    'puts File.read(ARGV[0])' ~/.netrc``, ``perl -ne print .env``) are its input, read too."""
    if cmd.name in _shell.POWERSHELLS:
        _powershell_secrets(cmd, found)
        return
    if cmd.name in _AWKS:
        program = _shell.awk_program(cmd)
        codes = [] if program is None else [program]
    else:
        codes = _shell.code_of(cmd)
    seen: set[str] = set()
    for code in codes:
        for path, use in _shell.code_paths(code, python=cmd.name == "python"):
            kind = secret_file(path)
            if not kind or use == _shell.NAME_ONLY or path in seen:
                continue
            if kind == "an environment file with credentials" and use == _shell.USED and not _CODE_PRINTS.search(code):
                continue  # load_dotenv('/srv/app/.env') loads the values for the program, printing none
            seen.add(path)
            if use == _shell.OPENED_UP:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` opens {path}, {kind}, to other users from inline code. Keep it "
                        "private (mode 600).",
                    )
                )
            else:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` reads {path}, {kind}, in inline code; its secrets would be exposed. "
                        "Use the values through the environment, or only test that the file exists.",
                    )
                )
    if cmd.name in _shell.INTERPRETERS:
        # Operands after -c/-e code are its input files (sys.argv[1], ARGV[0], perl -n's <>).
        flag = r"-[A-Za-z]*[ceE]|--eval" + ("|-r" if cmd.name == "php" else "")
        lits = [w.literal() for w in cmd.args]
        at = [i for i, lit in enumerate(lits) if lit is not None and re.fullmatch(flag, lit)]
        for w in cmd.args[at[-1] + 2 :] if at else []:
            kind = next((k for v in _shell.expand(w, cmd.ctx) or [] if (k := secret_file(v))), None)
            if kind:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` gives {w.raw}, {kind}, to inline code as its input; its secrets "
                        "would be exposed. Use the values through the environment instead.",
                    )
                )
                return


# PowerShell names the home folder $env:USERPROFILE, $env:HOME, $HOME or ~, and separates with \.
_PS_HOME = _shell.lazy_compile(r"(?i)(?:\$env:USERPROFILE|\$env:HOME|\$HOME|\$\{env:USERPROFILE\}|~)(?=[\\/])")
# Get-ChildItem Env:, gci env:*, dir env:, [Environment]::GetEnvironmentVariables(): the whole environment.
_PS_ENV_DUMP = _shell.lazy_compile(
    r"(?i)\b(?:Get-ChildItem|gci|dir|ls|Get-Item|gi)\s+Env:[\\/]?\*?(?=\s|$|\||;|\))"
    r"|\[(?:System\.)?Environment\]::GetEnvironmentVariables\(\s*\)"
)
# Write-Output $env:TOKEN, echo $env:TOKEN, a bare $env:TOKEN statement: prints the value.
_PS_PRINTS_VAR = _shell.lazy_compile(
    r"(?i)^\s*(?:(?:Write-Output|Write-Host|echo|Write-Information|Out-Host)\s+)?[\"']?\$env:(?P<n>\w+)[\"']?\s*(?:\||$)"
)
_PS_ONLY_TESTS = _shell.lazy_compile(
    r"(?i)^\s*(?:Test-Path|Get-Item\s[^|;]*\|\s*Select-Object\s+(?:Name|Length|LastWriteTime))"
)


def _powershell_secrets(cmd: Cmd, found: list[Finding]) -> None:
    """``pwsh -c 'Get-Content $env:USERPROFILE\\.ssh\\id_rsa'``: a PowerShell script that names
    a secret file (other than to test that it exists) reads it."""
    for text in _shell.powershell_code(cmd)[0]:
        if _PS_ENV_DUMP.search(text):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` prints every environment variable, credentials included; confirm "
                    "(or print the one you need).",
                )
            )
        for statement in re.split(r"[;\n]", text):
            printed = _PS_PRINTS_VAR.match(statement)
            if printed and is_secret_name(printed.group("n")):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` prints the secret variable {printed.group('n')}. Check it is set "
                        "without printing it (Test-Path Env:NAME).",
                    )
                )
            if _PS_ONLY_TESTS.search(statement):
                continue
            normal = _PS_HOME.sub("~", statement).replace("\\", "/")
            for token in re.findall(r"[^\s'\"(),|]+", normal):
                kind = secret_file(token) if token.startswith(("~/", "/")) or re.match(r"[A-Za-z]:/", token) else None
                if kind:
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` reads {token}, {kind}, in a PowerShell script; its secrets would be "
                            "exposed. Use the values through the environment, or only Test-Path it.",
                        )
                    )
                    return


# A dotenv library parsing a named file into a mapping (python-dotenv, Ruby's and Node's dotenv):
# the file's values, as open(path).read() would give them.
_DOTENV_PARSED = lazy_compile(
    r"(?:dotenv_values|Dotenv\.parse|Dotenv\.load|DotEnv)\(\s*(?:dotenv_path\s*=\s*)?[\"']([^\"']+)[\"']"
)
# Only the names of the parsed mapping: list(…), sorted(…), .keys().
_NAMES_OF = lazy_compile(
    r"(?:list|sorted|set|len)\(\s*(?:dotenv\.)?dotenv_values\(|dotenv_values\([^)]*\)\s*\)?\.keys\("
)


def _check_env_file_parsed(cmd: Cmd, code: str, found: list[Finding]) -> None:
    """``python -c "print(dotenv_values('.env'))"``, ``ruby -e 'p Dotenv.parse(".env.production")'``:
    a dotenv library reading a secret env file whose result the code prints shows its values
    (only its names, through list()/.keys(): asks, as a names-only filter does)."""
    if not _CODE_PRINTS.search(code) and not re.search(r"\bp\s", code):
        return
    for match in _DOTENV_PARSED.finditer(code):
        kind = secret_file(match.group(1))
        before = code[: match.start()].rstrip().removesuffix("dotenv.").rstrip()
        if not kind or re.search(r"\bin$", before):
            continue  # 'DB_URL' in dotenv_values('.env'): True or False, no value
        if _NAMES_OF.search(code):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` prints the names parsed from {match.group(1)} ({kind}), but a slip "
                    "would print the values; confirm, or compare against the .env.example instead.",
                )
            )
        else:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` parses {match.group(1)}, {kind}, and prints what it holds; its secrets "
                    "would be exposed. Check that a name is set (`'KEY' in dotenv_values(…)`) instead.",
                )
            )
        return


def _auto_prints(cmd: Cmd) -> bool:
    """Whether the interpreter prints the values of the code it is given (``node -p``,
    ``julia -E``, ``Rscript -e``)."""
    flags = _AUTO_PRINT_FLAGS.get(cmd.name.lower(), ())
    return any((w.literal() or "") in flags for w in cmd.args)


def _check_inline_code(cmd: Cmd, cmds: list[Cmd], found: list[Finding]) -> None:
    """Inline interpreter code (``python -c …``) that opens a secret file or prints secrets."""
    _code_named_secrets(cmd, found)
    if cmd.name not in _shell.INTERPRETERS:
        return
    before = len(found)
    for path, writes in _shell.code_file_refs(cmd):
        kind = secret_file(path)
        if kind and not writes and len(found) == before:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` opens {path}, {kind}, from inline code; its secrets would be "
                    "exposed. Use the values through the environment instead.",
                )
            )
    preloads = " ".join(w.literal() or "" for w in cmd.args)  # node -r dotenv/config -e '…'
    for code in _shell.code_of(cmd):
        _check_env_file_parsed(cmd, code, found)
        if CODE_PRINTS_ALL_ENV.search(code) and CODE_LOADS_DOTENV.search(code + " " + preloads):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` loads the .env file into the environment and prints all of it, its "
                    "secrets included. Print only the names you need, or check they are set.",
                )
            )
        elif CODE_PRINTS_ALL_ENV.search(code):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` prints every environment variable, credentials included; "
                    "confirm (or print the one you need).",
                )
            )
        if _ENV_ITERATED.search(code) and _CODE_PRINTS.search(code) and _filters_secret_names(code):
            # {k: v for k, v in os.environ.items() if 'TOKEN' in k}: the credentials' values, or
            # (keys only) their names, which a slip in the filter turns into values.
            values = _ENV_VALUES.search(code) is not None
            found.append(
                (
                    "deny" if values else "ask",
                    f"`{cmd.display}` prints the environment's "
                    + ("credential values" if values else "credential names")
                    + " picked by a name filter. Check that the variables you need are set without printing them.",
                )
            )
        shown = code_shown_secret_var(code, _auto_prints(cmd))
        if shown:
            start = len(found)
            _printed_secret_var(cmd, cmds, shown, found)
            _common.tag_rule("secret-variable", found, start)


# --------------------------------------------------------------------------- file tools


def _content_fields(tool: str, tool_input: dict[str, Any]) -> list[str] | dict[str, Any]:
    """Text a write tool would put into a file; a deny answer if the input is malformed."""
    if tool == "Write":
        content = _common.str_field(tool_input, "content", NAME)
        return [content] if isinstance(content, str) else content or {}
    if tool == "Edit":
        new = _common.str_field(tool_input, "new_string", NAME)
        return [new] if isinstance(new, str) else new or {}
    if tool == "NotebookEdit":
        source = tool_input.get("new_source", "")
        if not isinstance(source, str):
            return _common.malformed(NAME, "'new_source' is not a string")
        return [source]
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits:
        return _common.malformed(NAME, "'edits' is not a non-empty list")
    texts: list[str] = []
    for edit in edits:
        if not isinstance(edit, dict) or not isinstance(edit.get("new_string"), str):
            return _common.malformed(NAME, "an edit has no string 'new_string'")
        texts.append(edit["new_string"])
    return texts


# CI configuration: its run steps execute on every push with the project's secrets in the
# environment, so they are judged like the same command typed now.
_CI_FILE = lazy_compile(
    r"(?:^|/)(?:\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|\.circleci/config\.ya?ml|Jenkinsfile|"
    r"azure-pipelines\.ya?ml|bitbucket-pipelines\.ya?ml|\.buildkite/[^/]+\.ya?ml)$"
)
_RUN_STEP = lazy_compile(r"^(?P<indent>\s*)(?:-\s*)?(?:run|(?:before_|after_)?script|command|sh)\s*:\s*(?P<cmd>.*)$")
_LIST_ITEM = lazy_compile(r"^(?P<indent>\s*)-\s+(?P<cmd>\S.*)$")


# Jenkinsfile / Groovy steps (sh 'cmd', sh(script: "cmd"), bat '…'), and run steps written as
# a flow mapping inside an edit expression (yq -i '… += [{"run": "cmd"}]').
_GROOVY_STEP = lazy_compile(
    r"""\b(?:sh|bat|powershell)\s*\(?\s*(?:script\s*:\s*)?(?P<q>'''|\"\"\"|'|")(?P<cmd>.*?)(?P=q)""", re.S
)
_FLOW_STEP = lazy_compile(r"""[{,]\s*["']?(?:run|script|command)["']?\s*:\s*(?P<q>["'])(?P<cmd>.*?)(?P=q)""")


def ci_run_steps(text: str) -> list[str]:
    """The shell commands of a CI file's text: ``run: cmd`` lines, ``run: |`` blocks and
    ``script:`` lists (GitLab, one ``- cmd`` per line), Groovy
    ``sh '…'`` steps and ``{"run": "…"}`` mappings."""
    steps: list[str] = [m.group("cmd") for m in _GROOVY_STEP.finditer(text)]
    steps += [m.group("cmd") for m in _FLOW_STEP.finditer(text)]
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _RUN_STEP.match(line)
        if m is None:
            continue
        cmd = m.group("cmd").strip()
        if cmd in ("|", ">", "|-", ">-", "|+"):
            indent = len(m.group("indent"))
            block = [b.strip() for b in lines[i + 1 :]]
            body: list[str] = []
            for raw, stripped in zip(lines[i + 1 :], block, strict=True):
                if stripped and len(raw) - len(raw.lstrip()) <= indent:
                    break
                body.append(stripped)
            steps.append("\n".join(body))
        elif not cmd:
            # GitLab's script: as a list of commands, one "- cmd" per line.
            indent = len(m.group("indent"))
            for raw in lines[i + 1 :]:
                item = _LIST_ITEM.match(raw)
                if not raw.strip():
                    continue
                if item is None or len(item.group("indent")) < indent:
                    break
                steps.append(item.group("cmd").strip().strip("'\""))
        elif cmd:
            steps.append(cmd.strip("'\""))
    return steps


def _ci_files_written(cmd: Cmd) -> list[str]:
    """The CI files a Bash command writes: redirect and ``tee`` targets, files edited in place
    (``yq -i``, ``sed -i``, ``perl -pi``)."""
    words = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.target is not None]
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "tee" or any(a == "-i" or a.startswith(("-i", "--in-place", "-pi")) for a in lits):
        words += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    paths = {_shell.normalize(v, cmd.ctx.cwd) for w in words for v in cmd.values(w) or []}
    return sorted(p for p in paths if p is not None and _CI_FILE.search(p))


def _bash_new_text(cmd: Cmd) -> list[str]:
    """The text a Bash command may put into a file: its literal arguments (an edit expression, an
    echo's words) and what it reads on stdin (a here-document)."""
    texts = [w.literal() or "" for w in cmd.args]
    return [t for t in [*texts, cmd.stdin_text or ""] if t]


def _ci_step_findings(target: str, texts: list[str], project: str) -> list[Finding]:
    """A CI run step that would be denied as a command now (``curl -d "$(env)" …``, ``echo
    "$NPM_TOKEN" | curl -d @- …``): denied in the file too, since it runs on every push."""
    if not _CI_FILE.search(target.replace("\\", "/")):
        return []
    ctx = _shell.make_ctx(project, project)
    found: list[Finding] = []
    for text in texts:
        for step in ci_run_steps(text):
            # ${{ secrets.X }} is the CI's substitution, not the shell's: read it as $X.
            step = re.sub(r"\$\{\{\s*secrets\.(\w+)\s*\}\}", r"$\1", step)
            for level, reason in check_bash(step, ctx):
                if level == "deny" and not reason.startswith(("rule parse", "rule credential-literal")):
                    found.append(
                        ("deny", f"{target}: the CI step `{step[:80]}` runs with the project's secrets: {reason}")
                    )
    return found


def check_write(tool: str, tool_input: dict[str, Any], project: str = "") -> list[Finding] | dict[str, Any]:
    """Findings for a Write/Edit/MultiEdit/NotebookEdit call (or a malformed-input deny)."""
    texts = _content_fields(tool, tool_input)
    if isinstance(texts, dict):
        return texts
    target = tool_input.get("file_path") or tool_input.get("notebook_path") or "the file"
    found: list[Finding] = []
    in_tests = isinstance(target, str) and bool(
        TEST_FOLDERS & set(target.replace("\\", "/").lower().split("/")[:-1])
        or re.match(r"(?:test_.*|.*_test|.*\.(?:test|spec))\.\w+$", os.path.basename(target))
    )
    for text in texts:
        kinds = find_tokens(text)
        if kinds and in_tests:
            # LABELLING.md's settled calls: a key in a test or fixture may be fake or real; the
            # watcher cannot tell, so the user confirms.
            found.append(
                (
                    "ask",
                    f"{target} would get {kinds[0]} in a test; confirm it is a fake generated for the "
                    'test, or use an obviously fake placeholder ("ghp_test", "sk-test-xxx") instead.',
                )
            )
        elif kinds:
            found.append(
                (
                    "deny",
                    f"writing {kinds[0]} into {target} would leak a live "
                    "credential. Load it from an environment variable or secret store "
                    "(e.g. os.environ[...]) and keep the value out of files.",
                )
            )
        generic = find_generic(text)
        if generic and not kinds:
            found.append(
                (
                    "ask",
                    f"{target} would get a literal value for {generic[0]} that "
                    "looks like a real secret; confirm it is not a credential (prefer an "
                    "environment variable).",
                )
            )
    _common.tag_rule("credential-literal", found)
    if isinstance(target, str) and project:
        start = len(found)
        found.extend(_ci_step_findings(target, texts, project))
        _common.tag_rule("ci-secrets", found, start)
    return found


def check_read(tool: str, tool_input: dict[str, Any], cwd: str | None = None) -> list[Finding] | dict[str, Any]:
    """Findings for Read/Grep on secret files (or a malformed-input deny); relative paths are
    found from ``cwd`` where a file's content decides."""
    if tool == "Read":
        path = _common.str_field(tool_input, "file_path", NAME)
        if not isinstance(path, str):
            return path or {}
        paths = [path]
    else:
        path = _common.str_field(tool_input, "path", NAME, required=False)
        if isinstance(path, dict):
            return path
        paths = [path] if path else []
        glob = tool_input.get("glob")
        if (
            isinstance(glob, str)
            and "env" in glob
            and glob != "*"
            and (fnmatch.fnmatch(".env", glob) or fnmatch.fnmatch(".env.local", glob))
        ):
            paths.append(".env")
    found: list[Finding] = []
    pattern = tool_input.get("pattern") if tool == "Grep" else None
    mode = tool_input.get("output_mode") if tool == "Grep" else None
    for p in paths:
        kind = secret_file(p, cwd)
        if (
            not kind
            and isinstance(pattern, str)
            and SECRET_PATTERN_WORDS.search(pattern)
            and mode not in ("files_with_matches", "count")
            and (
                _configuration_folder(os.path.expanduser(p), os.path.expanduser("~"))
                or secret_dir(os.path.expanduser(p))  # Grep aws_secret_access_key in ~/.aws
            )
        ):
            kind = "configuration searched for credential words"
        if not kind and maybe_secret_file(p, cwd):
            found.append(
                (
                    "ask",
                    f"{tool} of {p}: configuration that may hold passwords; confirm, or read "
                    "the example/template version instead.",
                )
            )
        if kind:
            found.append(
                (
                    "deny",
                    f"{tool} of {p} ({kind}) would put its secrets into the "
                    "conversation. Read the .env.example / documentation instead, or "
                    "ask the user for the specific non-secret value you need.",
                )
            )
    _common.tag_rule("secret-file", found)
    return found


@_common.fail_closed(NAME)
def run(payload: _common.Payload) -> _common.Result:
    """PreToolUse entry point: deny/ask/None."""
    got = _common.tool_call(payload, NAME, TOOLS)
    if not isinstance(got, tuple):
        return got
    tool, tool_input = got
    if tool == "Bash":
        command = _common.str_field(tool_input, "command", NAME)
        if not isinstance(command, str):
            return command
        ctx = _shell.make_ctx(_common.session_cwd(payload), _common.project_dir(payload))
        return _common.verdict(NAME, check_bash(command, ctx))
    result = (
        check_read(tool, tool_input, _common.session_cwd(payload))
        if tool in ("Read", "Grep")
        else check_write(tool, tool_input, _common.project_dir(payload))
    )
    if isinstance(result, dict):
        return result
    return _common.verdict(NAME, result)


if __name__ == "__main__":
    _common.main(run, fail_closed_on_bad_input=True)
