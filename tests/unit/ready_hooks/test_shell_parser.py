"""The shared shell parser (the ``hooks/security/_shell`` package)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def sh(kit: Any) -> Any:
    return kit.load("security/_shell")


def names(sh: Any, command: str, cwd: str = "/p") -> list[tuple[str, list[str | None]]]:
    ctx = sh.make_ctx(cwd, "/p", "/home/u")
    return [(c.name, [(c.values(w) or [None])[0] for w in c.args]) for c in sh.walk(command, ctx)]


def test_quotes_escapes_and_ansi_c(sh: Any) -> None:
    assert names(sh, "'rm' \"-rf\" \\/") == [("rm", ["-rf", "/"])]
    assert names(sh, "r\"\"m -rf $'\\x2f'") == [("rm", ["-rf", "/"])]


def test_operators_split_commands(sh: Any) -> None:
    got = [n for n, _ in names(sh, "a; b && c || d | e & f\ng")]
    assert got == ["a", "b", "c", "d", "e", "f", "g"]


def test_wrappers_are_stripped(sh: Any) -> None:
    cmd = "sudo -u root env X=1 nice -n 5 timeout -s KILL 5 command /bin/rm -rf /"
    assert names(sh, cmd) == [("rm", ["-rf", "/"])]


def test_substitutions_run_before_their_command(sh: Any) -> None:
    assert [n for n, _ in names(sh, "echo $(ls) `pwd` <(cat x)")] == ["ls", "pwd", "cat", "echo"]


def test_bash_c_eval_and_heredoc_bodies_are_walked(sh: Any) -> None:
    assert ("rm", ["-rf", "/"]) in names(sh, "bash -lc 'rm -rf /'")
    assert ("rm", ["-rf", "/"]) in names(sh, "eval 'rm -rf /'")
    assert ("rm", ["-rf", "/"]) in names(sh, "bash <<'EOF'\nrm -rf /\nEOF")
    assert ("rm", ["-rf", "/"]) in names(sh, "echo 'rm -rf /' | sh")


def test_heredoc_with_apostrophes_inside_substitution(sh: Any) -> None:
    command = "git commit -m \"$(cat <<'EOF'\nIt's fine\nEOF\n)\" && echo done"
    assert [n for n, _ in names(sh, command)] == ["cat", "git", "echo"]


def test_variables_defaults_tilde_and_braces(sh: Any) -> None:
    assert names(sh, "D=/etc; rm -rf $D")[-1] == ("rm", ["-rf", "/etc"])
    assert names(sh, "rm -rf ${X:-/}") == [("rm", ["-rf", "/"])]
    assert names(sh, "rm ~ $HOME") == [("rm", ["/home/u", "/home/u"])]
    ctx = sh.make_ctx("/p", "/p", "/home/u")
    cmd = sh.walk("rm /{a,b}", ctx)[0]
    assert cmd.values(cmd.args[0]) == ["/a", "/b"]
    assert cmd.values(sh.walk("rm $UNKNOWN", ctx)[0].args[0]) is None


def test_cd_changes_the_directory_of_later_commands(sh: Any) -> None:
    ctx = sh.make_ctx("/p", "/p", "/home/u")
    cmds = sh.walk("cd sub && ls; cd /etc; cat x", ctx)
    assert [c.ctx.cwd for c in cmds] == ["/p", "/p/sub", "/p/sub", "/etc"]


def test_written_script_is_inspected_when_run(sh: Any) -> None:
    assert ("rm", ["-rf", "/"]) in names(sh, "echo 'rm -rf /' > x.sh && bash x.sh")
    assert ("rm", ["-rf", "/"]) in names(sh, "printf 'rm -rf /' > y; chmod +x y; ./y")


@pytest.mark.parametrize("bad", ["echo 'unterminated", 'echo "x', "echo $(ls", "echo `ls", "cat <<", "{ echo"])
def test_parse_errors(sh: Any, bad: str) -> None:
    with pytest.raises(sh.ShellParseError):
        sh.parse(bad)


def test_nesting_is_bounded(sh: Any) -> None:
    with pytest.raises(sh.ShellParseError):
        sh.parse("echo " + "$(" * 40 + "x" + ")" * 40)


def test_split_options(sh: Any) -> None:
    words = sh.parse("x -rf --force=yes -n 3 -- -a b").pipelines[0].commands[0].words[1:]
    flags, positionals, values = sh.split_options(words, frozenset({"-n"}))
    assert flags == ["r", "f", "force", "n"]
    assert [w.literal() for w in positionals] == ["-a", "b"]
    assert values["n"][0].literal() == "3" and values["force"][0].literal() == "yes"


def test_python_code_is_analysed(sh: Any, tmp_path: Path) -> None:
    got = names(sh, "python3 -c \"import shutil, os; shutil.rmtree('/x'); os.system('ls /')\"")
    assert ("rm", ["-rf", "/x"]) in got and ("ls", ["/"]) in got
