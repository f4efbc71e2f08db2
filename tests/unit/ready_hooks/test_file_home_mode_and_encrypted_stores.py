"""Two classes of file work judged by their real effect.

* Closing the home folder itself to other users (``chmod 750 ~``, ``chmod go-w "$HOME"``, which
  ssh demands before it trusts keys under it) keeps its owner's full access: ordinary hardening,
  like tightening ``~/.ssh``. Opening it, locking the owner out (``600``, ``a-rwx``) or changing
  it recursively stays refused.
* Deleting an encrypted store of credentials or a copy of it (Rails' ``credentials.yml.enc``,
  sops files, a KeePass vault) loses the credentials as surely as deleting them in the clear:
  secrets_guard asks, as it does for ``rm .env.bak``. Encrypted files that hold no credentials
  (an encrypted report, a backup archive) and test fixtures pass.

Commands are written for these tests, not taken from the evaluation sets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, combined decision of the four security hooks)
HOME_MODES: list[tuple[str, str | None]] = [
    ("chmod 700 ~", None),
    ("chmod 0750 $HOME", None),
    ('chmod go-w "$HOME" && chmod 700 ~/.ssh', None),
    ("chmod g-w,o-rwx ~/", None),
    ("chmod 710 ~ && chmod 600 ~/.ssh/config", None),
    # Opened, owner locked out, recursive, or someone else's home folder.
    ("chmod 755 ~", "deny"),
    ("chmod 770 ~", "deny"),
    ("chmod 711 ~", "deny"),
    ("chmod o+rx ~", "deny"),
    ("chmod 600 ~", "deny"),
    ("chmod a-rwx ~", "deny"),
    ("chmod -R 700 ~", "deny"),
    ("chmod 750 /home/someone-else", "deny"),
    ("sudo chmod 750 /home", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), HOME_MODES)
def test_closing_the_home_folder_passes(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.combined == expected, (command, verdict.reasons)


# (command, secrets_guard's own decision)
ENCRYPTED_STORES: list[tuple[str, str | None]] = [
    ("rm config/credentials.yml.enc.orig", "ask"),
    ("rm -f config/credentials/staging.yml.enc", "ask"),
    ("shred -u deploy/secrets.sops.yaml.bak", "ask"),
    ("unlink ops/passwords.kdbx.old", "ask"),
    ("rm -f .env.production.gpg~", "ask"),
    # Encrypted files that hold no credentials, and fixtures of the tests.
    ("rm -f reports/q3-summary.pdf.gpg", None),
    ("rm dumps/nightly.tar.age", None),
    ("rm -f environment.yml.enc", None),
    ("rm spec/fixtures/credentials.yml.enc", None),
]


@pytest.mark.parametrize(("command", "expected"), ENCRYPTED_STORES)
def test_deleting_encrypted_credentials_asks(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == expected, (command, verdict.reasons)
    if expected:
        assert "only copy" in kit.reason(kit.load("security/secrets_guard.py").run(kit.bash(command, project)))
