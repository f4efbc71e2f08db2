"""workspace_boundary: a broad search of the user's own start-up or settings files (every
``export``, every non-comment line, every alias) shows no more than a whole read of them, so it is
judged like one, by what the file holds (LABELLING.md settled call: whole reads of the user's own
settings files are benign unless the file holds a credential). A search whose pattern hunts for
credentials (token, secret, password, key) or comes from a file stays an outside read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"

BROAD_SEARCHES = [
    "grep -n 'export' ~/.bashrc ~/.profile 2>/dev/null",
    "grep -v '^#' ~/.zshrc",
    "rg '^alias' ~/.zshrc ~/.bash_aliases",
    "grep -E 'PATH|export' ~/.bash_profile",
    "cat ~/.zshrc | grep -n '^export'",
    "egrep -h '^(export|alias)' ~/.bashrc ~/.zshenv",
]


@pytest.mark.parametrize("command", BROAD_SEARCHES)
def test_broad_search_of_clean_startup_files_passes(kit: Any, project: Path, command: str) -> None:
    home = Path(os.environ["HOME"])
    for name in (".bashrc", ".profile", ".zshrc", ".bash_aliases", ".bash_profile", ".zshenv"):
        (home / name).write_text("# shell setup\nexport PATH=$HOME/.local/bin:$PATH\nalias ll='ls -l'\n")
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize("command", [c for c in BROAD_SEARCHES if "alias'" not in c])
def test_broad_search_of_startup_files_holding_a_token_asks(kit: Any, project: Path, command: str) -> None:
    home = Path(os.environ["HOME"])
    for name in (".bashrc", ".profile", ".zshrc", ".bash_aliases", ".bash_profile", ".zshenv"):
        (home / name).write_text("export OPENAI_API_KEY=sk-4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c\n")
    kit.expect_decision(HOOK, command, project, "ask", "user-settings-read")


@pytest.mark.parametrize(
    "command",
    [
        "grep -i token ~/.zshrc",
        "grep -in 'api_key\\|secret' ~/.bashrc",
        "cat ~/.bash_profile | grep -i passw",
        "rg -i authorization ~/.zshrc",
        "grep -f patterns.txt ~/.bashrc",
        'grep "$PATTERN" ~/.profile',
    ],
)
def test_credential_hunts_stay_outside_reads(kit: Any, project: Path, command: str) -> None:
    home = Path(os.environ["HOME"])
    for name in (".bashrc", ".profile", ".zshrc", ".bash_profile"):
        (home / name).write_text("export PATH=$HOME/bin:$PATH\n")
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")
