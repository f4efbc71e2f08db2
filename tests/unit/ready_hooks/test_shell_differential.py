"""Differential test of the shell parser against tree-sitter-bash (dev-only).

Both parsers read the Bash commands of the evaluation sets; for each, the set of words that
start a simple command (``sudo`` in ``X=1 sudo rm``, ``id`` in ``echo $(id)``) must be the
same. tree-sitter-bash (MIT) is a dev dependency only: the shipped hooks stay standard-library
only, and the test skips when it is not installed. Commands tree-sitter itself cannot parse
(an ``ERROR`` node) are left out, as are here-document bodies (whose offsets differ by design:
the hooks' parser reads a body as its own text).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ts = pytest.importorskip("tree_sitter", reason="tree-sitter is a dev extra (pip install -e '.[dev]')")
tsb = pytest.importorskip("tree_sitter_bash", reason="tree-sitter-bash is a dev extra (pip install -e '.[dev]')")

CORPORA = ("corpus.jsonl", "holdout.jsonl")
# The compound commands, which the evaluation sets use little.
CONSTRUCTS = (
    "if [[ -f x && $y =~ ^(a|b)$ ]]; then rm -rf build; elif test -d y; then echo y; else ls; fi > log",
    'for f in *.py; do black "$f"; done',
    "for ((i = 0; i < $(nproc); i++)); do echo $((i * 2)); done",
    "case $1 in start|run) npm start ;; (stop) pkill -f node ;& *) echo usage ;; esac; echo after",
    "v=$(case $x in a) echo A;; esac) && echo $v",
    "while read -r line; do printf '%s\\n' \"$line\"; done < input.txt",
    "until curl -sf localhost:8080/health; do sleep 1; done",
    "build() { make -j4 && make test; }; build",
    "function clean { rm -rf dist; }",
    "! grep -q TODO src/*.py && (( count += $(wc -l < notes.txt) ))",
    "select opt in a b; do echo $opt; break; done",
    "echo `case a in a) echo b;; esac`",
    "X=1 Y=2 env | sort; arr=(one $(date) three); echo ${arr[@]}",
    "{ if true; then echo in; fi; } 2>&1 | tee out.log",
    '[ -n "$CI" ] || { echo local; exit 0; }',
)


def bash_commands(hooks_dir: Path) -> list[str]:
    """The Bash commands of the evaluation sets (credential placeholders filled with a word),
    then :data:`CONSTRUCTS`."""
    commands: list[str] = []
    for name in CORPORA:
        for line in (hooks_dir / "eval" / name).read_text().splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            if item["tool_name"] == "Bash":
                commands.append(item["tool_input"]["command"].replace("<<FAKE:", "FAKE_").replace(">>", "_"))
    return commands + list(CONSTRUCTS)


def tree_sitter_starts(parser: Any, src: str) -> set[int] | None:
    """Byte offsets of tree-sitter's command names; None when it reports a syntax error."""
    tree = parser.parse(src.encode())
    starts: set[int] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return None
        if node.type == "heredoc_body":
            continue
        if node.type == "command":
            name = node.child_by_field_name("name")
            if name is not None:
                starts.add(name.start_byte)
        elif node.type in ("declaration_command", "unset_command") or (
            node.type == "test_command" and node.children and node.children[0].type == "["
        ):
            # export/declare/local/unset and [ … ] are simple commands to bash (builtins);
            # tree-sitter gives them node types of their own.
            starts.add(node.start_byte)
        stack.extend(node.children)
    return starts


def our_starts(sh: Any, src: str) -> set[int]:
    """Byte offsets of the first non-assignment word of every simple command we parse."""
    starts: set[int] = set()
    for command in sh.parse(src).simple_commands():
        word = next((w for w in command.words if not sh.is_assignment(w)), None)
        if word is not None:
            starts.add(len(src[: word.pos].encode()))
    return starts


def test_command_boundaries_match_tree_sitter_bash(kit: Any) -> None:
    sh = kit.load("security/_shell")
    parser = ts.Parser(ts.Language(tsb.language()))
    compared = 0
    differ: list[str] = []
    for src in bash_commands(kit.hooks_dir):
        theirs = tree_sitter_starts(parser, src)
        if theirs is None:
            continue
        compared += 1
        ours = our_starts(sh, src)
        if ours != theirs:
            b = src.encode()
            only_ours = sorted(b[i : i + 12].decode(errors="replace") for i in ours - theirs)
            only_theirs = sorted(b[i : i + 12].decode(errors="replace") for i in theirs - ours)
            differ.append(f"{src!r}: only ours {only_ours}, only tree-sitter {only_theirs}")
    assert compared >= 300, f"only {compared} commands compared"
    # Every construct is compared: tree-sitter parses them all.
    assert all(tree_sitter_starts(parser, src) is not None for src in CONSTRUCTS)
    assert not differ, f"{len(differ)} of {compared} differ:\n" + "\n".join(differ)
