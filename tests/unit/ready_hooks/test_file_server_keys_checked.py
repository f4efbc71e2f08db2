"""secrets_guard and workspace_boundary: a server's private key checked, not shown.

``openssl rsa -in /etc/ssl/private/web.key -check -noout`` answers "RSA key ok"; ``-noout
-modulus`` prints the public modulus (compared with the certificate's to see they match);
``-pubout`` prints the public half. Nothing of the private key is printed or written, so both
hooks let it pass. ``-text``, no ``-noout``, or ``-out`` of the private key stay refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.mark.parametrize(
    "command",
    [
        "sudo openssl rsa -check -noout -in /etc/pki/tls/private/web.key",
        "openssl ec -in /etc/letsencrypt/keys/0001_key-certbot.pem -noout -check",
        "sudo openssl rsa -noout -modulus -in /etc/ssl/private/mail.key | openssl sha256",
        "openssl pkey -in /etc/ssl/private/mail.key -pubout | openssl sha256",
    ],
)
def test_checking_a_key_passes_both_hooks(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] is None and verdict.own["workspace_boundary"] is None, verdict.reasons


@pytest.mark.parametrize(
    "command",
    [
        "sudo openssl rsa -in /etc/pki/tls/private/web.key -text -noout",
        "openssl pkey -in /etc/ssl/private/mail.key",
        "openssl rsa -in /etc/ssl/private/mail.key -out /tmp/mail-plain.key",
        "openssl ec -in /etc/letsencrypt/keys/0001_key-certbot.pem -text",
    ],
)
def test_printing_or_writing_the_key_stays_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision("security/secrets_guard.py", command, project, "deny", "secret-file")
