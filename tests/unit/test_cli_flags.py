"""One spelling per option across ``agent-server`` subcommands; former spellings still work."""

from __future__ import annotations

import re

import pytest

from agent_server._cli import build_parser

# Every subcommand that takes a project folder, with the arguments it also needs.
PROJECT_COMMANDS = [
    ["serve"],
    ["init"],
    ["hooks", "list"],
    ["hooks", "validate"],
    ["hooks", "fire", "Stop"],
    ["hooks", "explain", "Stop"],
    ["hooks", "log"],
    ["hooks", "stats"],
    ["hooks", "prune", "--older-than", "1d"],
]
LEDGER_COMMANDS = [["hooks", "log"], ["hooks", "stats"], ["hooks", "prune", "--older-than", "1d"]]


@pytest.mark.parametrize("command", PROJECT_COMMANDS, ids=" ".join)
def test_the_project_folder_is_project_dir_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--help"])
    shown = capsys.readouterr().out
    assert "--project-dir DIR" in shown
    assert not re.search(r"--project(?!-dir)", shown)  # the old spelling is not advertised
    assert build_parser().parse_args([*command, "--project-dir", "/p/new"]).project_dir == "/p/new"
    assert build_parser().parse_args([*command, "--project", "/p/old"]).project_dir == "/p/old"


@pytest.mark.parametrize("command", LEDGER_COMMANDS, ids=" ".join)
def test_the_ledger_file_is_ledger_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``hooks fire --ledger PATH`` writes the ledger; the commands reading it spell it the same."""
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args([*command, "--help"])
    shown = capsys.readouterr().out
    assert "--ledger PATH" in shown and "--db" not in shown
    assert build_parser().parse_args([*command, "--ledger", "/l/new.db"]).db == "/l/new.db"
    assert build_parser().parse_args([*command, "--db", "/l/old.db"]).db == "/l/old.db"
    fire = build_parser().parse_args(["hooks", "fire", "Stop", "--ledger", "/l/new.db"])
    assert fire.ledger == "/l/new.db"
