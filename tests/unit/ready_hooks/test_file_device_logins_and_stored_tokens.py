"""secrets_guard on the classes the embedded and studio development sets showed: Wi-Fi
passphrases on a device (read locally or over ssh), a container's environment filtered for
credentials, a secret variable's value written into git's configuration, desktop tools' stored
logins and keys. Commands written for these tests (other devices, tools and names)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DENIED = [
    # Wi-Fi passphrases: wpa_supplicant (per interface too), iwd's saved networks, hostapd, a Pi's boot copy.
    "ssh admin@gateway-02 'sudo cat /etc/wpa_supplicant/wpa_supplicant-wlan1.conf'",
    "sudo grep -A4 network= /etc/wpa_supplicant/wpa_supplicant.conf",
    "ssh root@172.16.0.5 cat /var/lib/iwd/LabNet.psk",
    "sudo sed -n '/wpa_passphrase/p' /etc/hostapd/hostapd.conf",
    "cat /boot/wpa_supplicant.conf",
    # A container's or pod's environment picked for credentials, like env | grep -i pass.
    "docker inspect broker --format '{{range .Config.Env}}{{println .}}{{end}}' | grep -iE 'secret|token'",
    "podman inspect cache --format '{{.Config.Env}}' | grep -i password",
    # A secret variable stored in clear text in git's configuration.
    'git config --global url."https://build:${BITBUCKET_APP_PASSWORD}@bitbucket.org/".insteadOf "https://bitbucket.org/"',
    'git config remote.upstream.url "https://bot:$GH_PAT@github.com/acme/fw.git"',
    # Desktop tools' stored logins and keys.
    "cat ~/.p4tickets",
    "xxd ~/.android/adbkey | head",
    "grep -i connectcache ~/Library/Application\\ Support/Steam/config/config.vdf",
]


@pytest.mark.parametrize("command", DENIED)
def test_device_logins_and_stored_tokens_are_denied(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] == "deny", (command, verdict.reasons)
    assert any("[secrets_guard]" in r and "instead" in r for r in verdict.reasons), verdict.reasons


PASSED = [
    "ls -l /etc/wpa_supplicant/",
    "ssh admin@gateway-02 'wpa_cli -i wlan1 status'",
    "grep -c network= /etc/wpa_supplicant/wpa_supplicant.conf",
    "cat /etc/hostapd/README",
    "cat ~/.android/adbkey.pub",
    "git config --global url.'git@github.com:'.insteadOf 'https://github.com/'",
    'git config remote.origin.url "https://github.com/acme/fw.git"',
    "git config --get remote.origin.url",
]


@pytest.mark.parametrize("command", PASSED)
def test_public_parts_and_settings_pass(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["secrets_guard"] is None, (command, verdict.reasons)


def test_container_environment_unfiltered_is_still_asked(kit: Any, project: Path) -> None:
    for command in (
        "docker inspect broker --format '{{.Config.Env}}'",
        "docker inspect broker --format '{{.Config.Env}}' | grep -i tz",
    ):
        assert kit.security(kit.bash(command, project)).own["secrets_guard"] == "ask", command
