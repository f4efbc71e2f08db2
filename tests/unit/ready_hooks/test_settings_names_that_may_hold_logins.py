"""workspace_boundary: a settings-like name that may also hold a login is judged only by content.

A rule that looks at the machine must not turn an absent or unreadable file into a pass for names
that often hold credentials: ``config.yml``/``cli.toml`` of a CLI, anything in a CLI's own login
folder (``~/.config/doctl``, ``~/.config/ngrok``), registry *rc files (``npmrc``). Such a file is
read when it is there (nothing credential-like: passes; a token: asks) and stays an outside read
(denied) when it is not. Names that only ever hold settings (an editor's ``settings.json``, a
terminal's theme, a viewer's ``*rc``) show nothing when absent, and are judged by content when
present.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.fixture
def home(project: Path) -> Path:
    return Path(os.environ["HOME"])


def _write(home: Path, rel: str, text: str) -> Path:
    path = home / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


LOGIN_CAPABLE = [
    ".config/doctl/config.yaml",
    ".config/hcloud/cli.toml",
    ".config/scw/config.yaml",
    ".config/glab-cli/config.yml",
    ".config/someapp/config.toml",
    ".config/npm/npmrc",
    ".config/Claude/claude_desktop_config.json",
]


@pytest.mark.parametrize("rel", LOGIN_CAPABLE)
def test_absent_login_capable_name_stays_an_outside_read(kit: Any, project: Path, rel: str) -> None:
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, "deny", "outside-project")
    kit.expect_decision(HOOK, f"less ~/{rel}", project, "deny", "outside-project")


@pytest.mark.parametrize("rel", LOGIN_CAPABLE)
def test_present_login_capable_name_with_a_token_asks(kit: Any, project: Path, home: Path, rel: str) -> None:
    _write(home, rel, "access-token: dop_v1_9f8e7d6c5b4a39281706f5e4d3c2b1a0\ncontext: default\n")
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, "ask", "user-settings-read")


@pytest.mark.parametrize("rel", LOGIN_CAPABLE)
def test_present_login_capable_name_without_credentials_passes(kit: Any, project: Path, home: Path, rel: str) -> None:
    _write(home, rel, "output: text\ncolor: true\n")
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, None)
    kit.expect_decision(HOOK, f"tail -5 ~/{rel}", project, None)


def test_unreadable_login_capable_name_stays_an_outside_read(kit: Any, project: Path, home: Path) -> None:
    # A folder where the file should be cannot be read as one: its content is unknown.
    (home / ".config/doctl/config.yaml").mkdir(parents=True)
    kit.expect_decision(HOOK, "cat ~/.config/doctl/config.yaml", project, "deny", "outside-project")


@pytest.mark.parametrize(
    "rel",
    [
        ".config/Code/User/settings.json",  # an editor's profile folder
        ".config/Cursor/User/keybindings.json",
        ".config/zed/settings.json",
        ".config/kitty/kitty.conf",  # a terminal's own settings
        ".config/helix/config.toml",
        ".config/htop/htoprc",
        ".config/wezterm/wezterm.lua",
    ],
)
def test_plain_settings_names_pass_when_absent_and_are_judged_when_present(
    kit: Any, project: Path, home: Path, rel: str
) -> None:
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, None)
    _write(home, rel, '{"editor.formatOnSave": true, "font_size": 13}\n')
    kit.expect_decision(HOOK, f"cat ~/{rel} | jq .", project, None)
    _write(home, rel, '{"github.token": "ghp_8f7e6d5c4b3a29180f7e6d5c4b3a2918aBcD"}\n')
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, "ask", "user-settings-read")


@pytest.mark.parametrize(
    "rel",
    [
        ".config/Code/Cache/settings.json",  # deeper than a profile folder: the tool's data
        ".config/fly/settings.json",  # a CLI's login folder, whatever the name
        ".config/rclone/rclone.conf",
    ],
)
def test_other_places_stay_outside_reads_when_absent(kit: Any, project: Path, rel: str) -> None:
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, "deny", "outside-project")


def test_read_tool_follows_the_same_rule(kit: Any, project: Path, home: Path) -> None:
    hook = kit.load(HOOK)
    absent = str(home / ".config/doctl/config.yaml")
    assert kit.decision(hook.run(kit.pre_tool("Read", {"file_path": absent}, project))) == "deny"
    plain = str(home / ".config/kitty/kitty.conf")
    assert kit.decision(hook.run(kit.pre_tool("Read", {"file_path": plain}, project))) is None
    _write(home, ".config/doctl/config.yaml", "access-token: dop_v1_9f8e7d6c5b4a39281706f5e4d3c2b1a0\n")
    assert kit.decision(hook.run(kit.pre_tool("Read", {"file_path": absent}, project))) == "ask"


@pytest.mark.parametrize(
    "rel", [".config/nvim/lua/plugins/lsp.lua", ".config/fish/conf.d/abbr.fish", ".config/helix/themes/mine.toml"]
)
def test_files_deeper_in_an_editors_tree_are_settings(kit: Any, project: Path, home: Path, rel: str) -> None:
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, None)
    _write(home, rel, 'api_key = "sk-4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c"\n')
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, "ask", "user-settings-read")


@pytest.mark.parametrize("rel", [".config/nvim/lua/secrets.lua", ".config/fish/fish_variables"])
def test_login_names_in_an_editors_tree_stay_outside_reads(kit: Any, project: Path, rel: str) -> None:
    kit.expect_decision(HOOK, f"cat ~/{rel}", project, "deny", "outside-project")
