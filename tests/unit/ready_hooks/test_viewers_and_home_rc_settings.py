"""workspace_boundary: viewers that only print, and tools' own settings files in the home folder.

``plutil -p``, ``plutil -lint``, ``yq`` without ``-i``, ``xmllint --noout`` and checksums print what
they read, like ``cat``: they may look where ``cat`` may (a launch agent under
~/Library/LaunchAgents, system configuration), never at secrets, and their writing forms stay
writes. Interactive shells', debuggers' and formatters' settings in the home folder (``~/.psqlrc``,
``~/.gdbinit``, ``~/.irbrc``) are judged by content like ``~/.vimrc``; password files beside them
(``~/.pgpass``, ``~/.my.cnf``) are not settings.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.mark.parametrize(
    "command",
    [
        "plutil -p ~/Library/LaunchAgents/com.vendor.sync.plist",
        "plutil -lint ~/Library/LaunchAgents/org.example.agent.plist",
        "yq '.spec.containers[0].image' /etc/kubernetes/manifests/etcd.yaml",
        "xmllint --noout /etc/fonts/fonts.conf",
        "sha512sum /usr/bin/ssh && cksum /etc/hosts",
        "cmp /etc/nginx/nginx.conf deploy/nginx.conf",
    ],
)
def test_print_only_viewers_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "plutil -convert xml1 ~/Library/LaunchAgents/com.vendor.sync.plist",
        "plutil -replace RunAtLoad -bool YES ~/Library/LaunchAgents/com.vendor.sync.plist",
        "yq -i '.spec.replicas = 3' /etc/kubernetes/manifests/etcd.yaml",
        "xmllint --output /etc/fonts/fonts.conf other.xml",
        "sha512sum ~/.ssh/id_ecdsa",
        "plutil -p ~/Library/Keychains/login.keychain-db",
    ],
)
def test_writing_forms_and_secrets_stay_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny")


@pytest.mark.parametrize("name", [".psqlrc", ".gdbinit", ".irbrc", ".sqliterc", ".Rprofile"])
def test_tool_rc_in_home_is_judged_by_content(kit: Any, project: Path, name: str) -> None:
    kit.expect_decision(HOOK, f"cat ~/{name}", project, None)
    path = Path(os.environ["HOME"]) / name
    path.write_text("\\set HISTSIZE 2000\nset pagination off\n")
    kit.expect_decision(HOOK, f"cat ~/{name}", project, None)
    path.write_text("# key: sk-4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c\n")
    kit.expect_decision(HOOK, f"cat ~/{name}", project, "ask", "user-settings-read")


@pytest.mark.parametrize("name", [".pgpass", ".my.cnf"])
def test_password_files_beside_them_are_not_settings(kit: Any, project: Path, name: str) -> None:
    kit.expect_decision(HOOK, f"cat ~/{name}", project, "deny", "outside-project")
