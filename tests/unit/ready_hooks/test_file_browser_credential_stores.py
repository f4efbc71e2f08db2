"""secrets_guard: browsers' and desktops' credential stores are secret files, whatever reads them.

Saved passwords (Firefox logins.json + key4.db, Chromium "Login Data"), session cookies, the
key that decrypts them (Chromium "Local State"), GNOME/KDE keyrings and macOS keychains: read
with strings, sqlite3, a hex dump or a copy, they hand over the user's logins. Listing or sizing
the folders shows names only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/secrets_guard.py"


@pytest.mark.parametrize(
    "command",
    [
        "strings ~/.thunderbird/x1y2.default-release/logins.json | grep -i hostname",
        "sqlite3 ~/.config/BraveSoftware/Brave-Browser/Default/'Login Data' 'SELECT password_value FROM logins'",
        "cp ~/.config/microsoft-edge/Default/Cookies /tmp/c.db",
        "xxd ~/.local/share/kwalletd/kdewallet.kwl | head",
        "cat ~/Library/Application\\ Support/Google/Chrome/Local\\ State",
        "od -c ~/Library/Keychains/login.keychain-db | head -50",
        "base64 ~/.mozilla/firefox/*.default-release/key4.db",
    ],
)
def test_credential_stores_are_secret(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "secret-file")


@pytest.mark.parametrize(
    "command",
    [
        "ls -la ~/.mozilla/firefox/",
        "du -sh ~/.config/google-chrome/Default",
        "cat ~/.mozilla/firefox/profiles.ini",
        "sqlite3 data/app.sqlite3 '.tables'",
    ],
)
def test_listings_and_other_files_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)
