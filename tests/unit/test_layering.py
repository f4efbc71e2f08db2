"""Layers only call down, and no module imports itself in a circle.

Both rules are read from the source (an AST scan of every ``import`` statement,
including those inside functions and under ``TYPE_CHECKING``): a lazy or type-only
import is still a dependency someone has to untangle later.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "agent_server"
# The server's side of the line: it may use only the engine's public names.
SERVER_FILES = [*sorted((PACKAGE_ROOT / "server").rglob("*.py")), PACKAGE_ROOT / "_cli.py"]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE_ROOT.rglob("*.py"))}


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with the line it is imported on.

    ``from X import name`` yields ``X.name`` when that is a module of ours (a submodule
    import), else ``X``.
    """
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield node.lineno, sub if sub in MODULES else target


def _private_engine_module(name: str) -> bool:
    parts = name.split(".")
    return parts[:2] == ["agent_server", "hooks"] and any(p.startswith("_") for p in parts[2:])


def test_the_scan_sees_the_server_and_the_engine() -> None:
    # (Guards the test itself: a wrong root would make both checks below pass vacuously.)
    assert "agent_server.server._app" in MODULES and "agent_server.hooks._runner" in MODULES
    imported = {name for path in SERVER_FILES for _, name in _imports(path)}
    assert "agent_server.hooks" in imported
    assert "agent_server.server._settings" in imported  # relative imports resolved
    assert _private_engine_module("agent_server.hooks._config")
    assert not _private_engine_module("agent_server.hooks")


def test_the_server_uses_only_public_names_of_the_engine() -> None:
    offending = [
        f"{path.relative_to(PACKAGE_ROOT.parent)}:{line}: imports {name}"
        for path in SERVER_FILES
        for line, name in _imports(path)
        if _private_engine_module(name)
    ]
    assert offending == []


def test_no_module_imports_another_modules_private_names() -> None:
    offending = []
    for path in MODULES.values():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if private:
                    offending.append(f"{path.relative_to(PACKAGE_ROOT.parent)}:{node.lineno}: {', '.join(private)}")
    assert offending == []


def _graph() -> dict[str, set[str]]:
    return {
        name: {target for _, target in _imports(path) if target in MODULES and target != name}
        for name, path in MODULES.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_among_agent_server_modules() -> None:
    assert _cycles(_graph()) == []
