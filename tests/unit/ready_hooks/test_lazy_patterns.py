"""The security hooks compile their regular expressions on first use, not at import.

A hook run as a fresh process pays for every module-level ``re.compile`` before it reads its
payload; ``lazy_compile`` moves that cost to the first call that needs the pattern.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

SECURITY = Path(__file__).resolve().parents[3] / "hooks" / "security"


def _module_level_compiles(source: str) -> list[int]:
    """Line numbers of ``re.compile(...)`` calls evaluated when the module is imported."""
    tree = ast.parse(source)
    lines: list[int] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return  # bodies run on call, not at import
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "compile"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
        ):
            lines.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return lines


@pytest.mark.parametrize(
    "path",
    sorted(
        str(p.relative_to(SECURITY))
        for p in SECURITY.rglob("*.py")
        if p.name != "_lazy_re.py" and "__pycache__" not in p.parts
    ),
)
def test_no_pattern_is_compiled_at_import(path: str) -> None:
    found = _module_level_compiles((SECURITY / path).read_text())
    assert found == [], f"{path} lines {found}: use _shell.lazy_compile for module-level patterns"


def test_the_check_finds_module_level_compiles_only() -> None:
    source = "import re\nA = re.compile('a')\nB = [(1, re.compile('b'))]\ndef f():\n    return re.compile('c')\n"
    assert _module_level_compiles(source) == [2, 3]


def test_lazy_pattern_compiles_on_first_use_and_answers_like_re(kit: Any) -> None:
    shell = kit.load("security/_shell")
    source = r"(?P<word>[a-z]+)-(\d+)"
    lazy = shell.lazy_compile(source, re.I)
    eager = re.compile(source, re.I)
    assert lazy._compiled is None
    text = "Alpha-1 beta-22 GAMMA-333"
    assert lazy.search(text).group("word") == eager.search(text).group("word") == "Alpha"  # type: ignore[union-attr]
    assert lazy._compiled is not None
    assert lazy.match(text, 8).span() == eager.match(text, 8).span()  # type: ignore[union-attr]
    assert lazy.fullmatch("x-9") is not None and lazy.fullmatch("x-9 ") is None
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazy.findall(text) == eager.findall(text)
    assert lazy.sub(r"\2", text) == eager.sub(r"\2", text) == "1 22 333"
    assert lazy.pattern == source
