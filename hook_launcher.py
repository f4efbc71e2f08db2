#!/usr/bin/env python3
"""Run a Python hook module: ``hook_launcher.py X.py`` (payload JSON on stdin).

Imports ``X.py`` (relative to ``$CLAUDE_PROJECT_DIR/.claude/hooks/`` unless absolute),
calls its ``run(payload)`` (plain or async) and prints the result: a dict as JSON, a
string as text, None as nothing. ``sys.exit(2)`` with a message on stderr blocks; an
exception exits 1 with the traceback on stderr.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import os
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["load_module", "main", "resolve_module"]


def resolve_module(name: str, project_dir: str | None = None) -> Path:
    """The file a module argument names: absolute, or relative to ``.claude/hooks/``."""
    path = Path(os.path.expanduser(name))
    if path.is_absolute():
        return path
    base = Path(project_dir or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd())
    candidate = base / ".claude" / "hooks" / path
    if candidate.exists():
        return candidate
    return Path.cwd() / path if (Path.cwd() / path).exists() else candidate


def load_module(path: Path) -> ModuleType:
    """Import a module from a file path (its folder goes first on sys.path)."""
    if not path.is_file():
        raise FileNotFoundError(f"hook module not found: {path}")
    spec = importlib.util.spec_from_file_location(f"hook_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec.loader.exec_module(module)
    return module


def call_run(module: ModuleType, payload: Any) -> Any:
    """Call ``module.run(payload)``, awaiting it when it is a coroutine function."""
    run = getattr(module, "run", None)
    if not callable(run):
        raise AttributeError(f"{module.__file__} has no run(payload) function")
    value = run(payload)
    if inspect.isawaitable(value):
        value = asyncio.run(_await(value))
    return value


async def _await(value: Any) -> Any:
    return await value


def emit(value: Any) -> None:
    """Print a hook's return value the way the runner reads it."""
    if value is None:
        return
    if isinstance(value, (dict, list)):
        sys.stdout.write(json.dumps(value))
    else:
        sys.stdout.write(str(value))
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``hook_launcher.py MODULE.py [ARGS...]``."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        sys.stderr.write("usage: hook_launcher.py MODULE.py [ARGS...]  (payload JSON on stdin)\n")
        return 1
    path = resolve_module(args[0])
    sys.argv = [str(path), *args[1:]]
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        sys.stderr.write(f"hook_launcher: payload on stdin is not JSON: {exc}\n")
        return 1
    try:
        module = load_module(path)
        emit(call_run(module, payload))
    except SystemExit:
        sys.stdout.flush()
        raise
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
