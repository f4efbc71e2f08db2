"""secrets_guard on reads of what a listing names, and on env files named as templates.

A reader given ``$(ls …)``, ``$(find …)``, ``$(readlink -f …)`` or fed by ``… | xargs`` reads
the paths that listing prints: a listing of keys or credentials is a read of them, a listing of
project files or public keys is not. A match-everything glob inside a credentials folder
(``~/.gnupg/private-keys-v1.d/*``) picks up its keys. An env file whose name marks it as a
template the other way round (``deploy/app.sample.env``, ``example.env``) holds placeholders.
Commands are written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, secrets_guard's own decision)
LISTED_READS: list[tuple[str, str | None]] = [
    ("less $(ls -t ~/.gnupg/private-keys-v1.d/* | head -n1)", "deny"),
    ("xxd $(readlink -f ~/.ssh/id_ecdsa)", "deny"),
    ("base64 -w0 `find ~/.ssh -type f -name 'id_*' | sort | head -1`", "deny"),
    ("head -c 200 $(echo ~/.aws/credentials)", "deny"),
    ("ls -d ~/.aws/* | xargs cat", "deny"),
    ("fd . ~/.kube | xargs -n1 cat", "deny"),
    ("strings $(realpath .env.production)", "deny"),
    ("cat ~/.password-store/*", "deny"),
    # A variable set to a listing's output stands for what the listing names.
    ('TOKEN_FILE=$(ls ~/.config/gh/hosts.yml) && cat "$TOKEN_FILE"', "deny"),
    ('K=$(ls -t ~/.ssh/id_* | head -1); od -c "$K"', "deny"),
    ('K=$(ls ~/.ssh/*.pub | head -1); cat "$K"', None),
    ('LATEST=$(ls -t build/reports/*.xml | head -1); cat "$LATEST"', None),
    ('F=$(ls ~/.aws/credentials); test -s "$F" && echo present', None),
    # So does a loop variable over a listing.
    ('for f in $(ls -d ~/.docker/*); do head "$f"; done', "deny"),
    ('for k in $(find ~/.ssh -name "id_*"); do ssh-keygen -y -f "$k" >/dev/null; cat "$k"; done', "deny"),
    ('for f in $(ls ~/.ssh/*.pub); do cat "$f"; done', None),
    ('for f in $(ls reports/*.csv); do head -2 "$f"; done', None),
    ('for f in $(ls ~/.ssh/id_*); do echo "found $f"; done', None),
    # Listings of project files or public halves only.
    ("cat $(ls -t logs/*.log | head -1)", None),
    ("head -20 $(find src -name '*.toml' | head -1)", None),
    ("cat $(ls ~/.ssh/*.pub)", None),
    ("find ~/.ssh -name '*.pub' | xargs cat", None),
    ("ls docs/*.md | xargs wc -l", None),
    ("cat $(realpath .env.example)", None),
]


@pytest.mark.parametrize(("command", "expected"), LISTED_READS)
def test_reads_of_what_a_listing_names(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)


# (command, secrets_guard's own decision)
TEMPLATE_NAMED_ENVS: list[tuple[str, str | None]] = [
    ("grep -n REDIS_URL deploy/app.sample.env", None),
    ("cat example.env", None),
    ("sed -n '1,20p' config/defaults.env", None),
    ("diff docker/web.template.env docker/web.env.example", None),
    ("cat config/staging.env", "deny"),
    ("grep PASSWORD docker/web.env", "deny"),
    ("cat sampler.env", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), TEMPLATE_NAMED_ENVS)
def test_env_files_named_as_templates(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)


def test_template_named_env_read_with_the_read_tool(kit: Any, project: Path) -> None:
    sample = kit.security(kit.pre_tool("Read", {"file_path": str(project / "deploy" / "api.example.env")}, project))
    real = kit.security(kit.pre_tool("Read", {"file_path": str(project / "deploy" / "api.env")}, project))
    assert sample.own["secrets_guard"] is None, sample.reasons
    assert real.own["secrets_guard"] == "deny", real.reasons
