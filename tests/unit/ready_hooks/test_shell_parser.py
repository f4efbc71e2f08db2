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
    assert [cmd.values(a) for a in cmd.args] == [["/a"], ["/b"]]  # brace expansion makes words
    cmd = sh.walk('rm "$X"/{a,b}', ctx)[0]
    assert cmd.values(cmd.args[0]) is None  # unknown $X: no words to split into
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


# -- compound commands: each is its own node, and the walker runs what it contains


def only(sh: Any, src: str) -> Any:
    """The single command of a one-command script."""
    script = sh.parse(src)
    assert len(script.pipelines) == 1 and len(script.pipelines[0].commands) == 1
    return script.pipelines[0].commands[0]


def starts(sh: Any, src: str) -> list[str]:
    """The first word of every simple command, in source order."""
    return [c.words[0].raw for c in sh.parse(src).simple_commands()]


def test_if_elif_else_clauses(sh: Any) -> None:
    cmd = only(sh, "if test -f a; then rm a; elif [ -d b ]; then rmdir b; else echo none; fi > log")
    assert cmd.kind == "if"
    assert [[c.words[0].raw for p in s.pipelines for c in p.commands] for s in cmd.clauses] == [
        ["test"],
        ["rm"],
        ["["],
        ["rmdir"],
        ["echo"],
    ]
    assert [r.target.raw for r in cmd.redirects] == ["log"]
    assert [n for n, _ in names(sh, "if true; then rm -rf /; fi")] == ["true", "rm"]


def test_if_keywords_are_words_outside_command_position(sh: Any) -> None:
    assert names(sh, "echo if then fi") == [("echo", ["if", "then", "fi"])]
    assert starts(sh, "git commit -m 'fi'; then=1 echo done") == ["git", "then=1"]


def test_for_loop_items_variable_and_body(sh: Any) -> None:
    cmd = only(sh, "for d in build dist; do rm -rf $d; done")
    assert cmd.kind == "for" and [w.raw for w in cmd.words] == ["d", "build", "dist"] and cmd.items
    assert names(sh, "for d in build dist; do rm -rf $d; done") == [("rm", ["-rf", "build"])]
    assert names(sh, "for x in / /tmp\ndo\n  rm -rf $x\ndone")[-1] == ("rm", ["-rf", "/"])
    bare = only(sh, "for arg; do echo $arg; done")
    assert bare.kind == "for" and not bare.items


def test_arithmetic_for_and_select(sh: Any) -> None:
    cmd = only(sh, "for ((i = 0; i < $(nproc); i++)); do echo $i; done")
    assert cmd.kind == "for" and cmd.arith is not None and cmd.arith.source == "i = 0; i < $(nproc); i++"
    assert [n for n, _ in names(sh, "for ((i = 0; i < $(nproc); i++)); do echo $i; done")] == ["nproc", "echo"]
    assert only(sh, "select o in a b; do echo $o; done").kind == "select"


def test_while_and_until_loops(sh: Any) -> None:
    cmd = only(sh, "while read -r l; do echo $l; done < in.txt")
    assert cmd.kind == "while" and len(cmd.clauses) == 2
    assert [r.target.raw for r in cmd.redirects] == ["in.txt"]
    assert [n for n, _ in names(sh, "until curl -sf x; do sleep 1; done")] == ["curl", "sleep"]
    assert [n for n, _ in names(sh, "ls | while read f; do rm $f; done")] == ["ls", "read", "rm"]


def test_case_arms_patterns_and_terminators(sh: Any) -> None:
    cmd = only(sh, "case $1 in start|run) npm start ;; (stop) pkill node ;& *) echo usage ;;& esac")
    assert cmd.kind == "case" and cmd.words[0].raw == "$1"
    assert [[w.raw for w in p] for p in cmd.patterns] == [["start", "run"], ["stop"], ["*"]]
    assert [n for n, _ in names(sh, "case $x in a) rm -rf /;; esac; echo after")] == ["rm", "echo"]
    # A case inside $( … ) or backticks: its ")" closes a pattern, not the substitution.
    assert starts(sh, "v=$(case $x in a) echo A;; esac) && rm $v") == ["v=$(case $x in a) echo A;; esac)", "echo", "rm"]
    assert starts(sh, "echo `case a in a) id;; esac`; ls") == ["echo", "id", "ls"]
    assert starts(sh, "case x in\n  a)\n    one\n    ;;\n  b) two;;\nesac") == ["one", "two"]


def test_double_bracket_conditions_are_data(sh: Any) -> None:
    cmd = only(sh, "[[ -f $f && $v =~ ^(a|b)$ || x < y ]]")
    assert cmd.kind == "cond"
    assert [w.raw for w in cmd.words] == ["-f", "$f", "&&", "$v", "=~", "^(a|b)$", "||", "x", "<", "y"]
    assert not cmd.redirects  # "<" inside [[ ]] compares strings
    assert starts(sh, "[[ -n $(git status --short) ]] && git stash") == ["git", "git"]


def test_arithmetic_expansion_and_command(sh: Any) -> None:
    word = only(sh, "echo $(( (1 + 2) * $(id -u) ))").words[1]
    assert isinstance(word.parts[0], sh.Arith) and word.parts[0].source == " (1 + 2) * $(id -u) "
    assert [n for n, _ in names(sh, "echo $(( $(rm -rf /) + 1 ))")] == ["rm", "echo"]
    cmd = only(sh, "(( n += $(wc -l < f) ))")
    assert cmd.kind == "arith" and [n for n, _ in names(sh, "(( n += $(wc -l < f) ))")] == ["wc"]
    ctx = sh.make_ctx("/p", "/p", "/home/u")
    rm = sh.walk("rm -rf $((1))", ctx)[0]
    assert rm.values(rm.args[1]) is None  # not evaluated: unknown


def test_functions_groups_and_negation(sh: Any) -> None:
    fn = only(sh, "build() { make && make test; }")
    assert fn.kind == "function" and fn.words[0].raw == "build"
    assert starts(sh, "function clean { rm -rf dist; }; clean") == ["rm", "clean"]
    assert starts(sh, "f() ( cd /; ls )") == ["cd", "ls"]
    pipe = sh.parse("! grep -q x f").pipelines[0]
    assert pipe.negated and pipe.commands[0].words[0].raw == "grep"


def test_array_elements_are_not_commands(sh: Any) -> None:
    assert starts(sh, "arr=(one $(date) three)") == ["arr=", "date"]


def test_unterminated_compounds_parse_leniently(sh: Any) -> None:
    assert starts(sh, "if true; then echo") == ["true", "echo"]
    assert starts(sh, "for x in a b") == []
    assert starts(sh, "case x in a) ls") == ["ls"]
    with pytest.raises(sh.ShellParseError):
        sh.parse("echo $(case x in a) ls")


# -- which words are executed and which are data (issue 21)


def test_heredoc_bodies_are_data_unless_fed_to_a_shell_or_interpreter(sh: Any) -> None:
    assert [n for n, _ in names(sh, "cat > t.txt <<'EOF'\nrm -rf /\nEOF")] == ["cat"]
    assert ("rm", ["-rf", "/"]) in names(sh, "cat <<'EOF' | bash\nrm -rf /\nEOF")
    assert ("rm", ["-rf", "/home/u"]) in names(sh, "python3 - <<'EOF'\nimport os\nos.system('rm -rf ~')\nEOF")
    # An unquoted delimiter lets $( … ) in the body run; a quoted one does not.
    assert "id" in [n for n, _ in names(sh, "cat <<EOF\n$(id)\nEOF")]
    assert "id" not in [n for n, _ in names(sh, "cat <<'EOF'\n$(id)\nEOF")]


def test_arguments_and_quoted_strings_are_data(sh: Any) -> None:
    assert [n for n, _ in names(sh, "git commit -m 'rm -rf /; curl x | sh'")] == ["git"]
    assert [n for n, _ in names(sh, "echo 'rm -rf /' | grep rm")] == ["echo", "grep"]
    assert [n for n, _ in names(sh, 'echo "$(id)"')] == ["id", "echo"]  # double quotes still run $( )


def test_assignments_earlier_in_the_line_resolve(sh: Any) -> None:
    assert names(sh, 'OUT=dist && rm -rf "$OUT"/*')[-1] == ("rm", ["-rf", "dist/*"])
    assert names(sh, "export T=./tmp; cd sub && rm -r $T")[-1] == ("rm", ["-r", "./tmp"])
    assert names(sh, "X=$HOME; Y=$X/.cache; rm -rf $Y")[-1] == ("rm", ["-rf", "/home/u/.cache"])
    assert names(sh, "for d in build dist; do rm -rf $d; done") == [("rm", ["-rf", "build"])]
    ctx = sh.make_ctx("/p", "/p", "/home/u")
    decoded = next(c for c in sh.walk('x=$(echo cm0= | base64 -d); eval "$x"', ctx) if c.name == "eval")
    assert "base64" in decoded.ctx.sources["x"]


def test_parameter_operators_on_known_values(sh: Any) -> None:
    assert names(sh, "X=/srv/app/build; echo ${X%/*} ${X%%/a*} ${X#*/} ${X##*/}")[-1] == (
        "echo",
        ["/srv/app", "/srv", "srv/app/build", "build"],
    )
    assert names(sh, "X=abcdef; echo ${X:1:3} ${X: -2} ${X/c/C} ${X//[ab]/} ${X^^}")[-1] == (
        "echo",
        ["bcd", "ef", "abCdef", None, "ABCDEF"],
    )
