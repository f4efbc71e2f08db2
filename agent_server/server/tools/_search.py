"""Glob and Grep: find files and text inside the project."""

from __future__ import annotations

import fnmatch
import os
import re
import time
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import ConfigDict, Field

from ._base import Tool, ToolContext, ToolError, ToolInput, ToolOutcome, clip

__all__ = ["GlobTool", "GrepTool"]

_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".agent-server",
    }
)
_MAX_RESULTS = 100
_MAX_FILE_BYTES = 2 << 20


class GlobInput(ToolInput):
    """Input of the Glob tool."""

    pattern: str = Field(min_length=1, description="Glob pattern, e.g. `**/*.py`.")
    path: str | None = Field(None, description="Folder to search (default: the cwd).")


class GrepInput(ToolInput):
    """Input of the Grep tool."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    pattern: str = Field(min_length=1, description="Regular expression (Python syntax).")
    path: str | None = Field(None, description="File or folder to search (default: the cwd).")
    glob: str | None = Field(None, description="Only files whose name matches this glob.")
    output_mode: Literal["files_with_matches", "content", "count"] = Field(
        "files_with_matches", description="What to return."
    )
    case_insensitive: bool = Field(False, alias="-i", description="Ignore case.")
    head_limit: int | None = Field(None, ge=1, description="Return at most this many entries.")


def _walk(base: Path, ctx: ToolContext) -> list[Path]:
    if base.is_file():
        return [base]
    found: list[Path] = []
    for root, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(files):
            path = Path(root) / name
            if ctx.confine and not ctx.inside(Path(os.path.realpath(path))):
                continue
            found.append(path)
    return found


def _glob(ctx: ToolContext, inp: GlobInput) -> tuple[list[str], bool]:
    base = ctx.resolve(inp.path, what="path") if inp.path else ctx.cwd
    if not base.is_dir():
        raise ToolError(f"Directory does not exist: {inp.path}")
    if inp.pattern.startswith("/") or ".." in Path(inp.pattern).parts:
        raise ToolError(f"pattern {inp.pattern!r} must be relative to the search folder, without '..'")
    matches: list[str] = []
    for path in sorted(base.glob(inp.pattern)):
        if any(part in _SKIP_DIRS for part in path.relative_to(base).parts[:-1]):
            continue
        real = Path(os.path.realpath(path))
        if not path.is_file() or (ctx.confine and not ctx.inside(real)):
            continue
        matches.append(str(path))
    return matches[:_MAX_RESULTS], len(matches) > _MAX_RESULTS


class GlobTool(Tool):
    """Find files by name pattern."""

    name = "Glob"
    description = "Find files whose path matches a glob pattern such as `**/*.py`."
    kind = "read"
    input_model = GlobInput

    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """List matching files."""
        assert isinstance(tool_input, GlobInput)
        t0 = time.perf_counter()
        files, truncated = await anyio.to_thread.run_sync(_glob, ctx, tool_input)
        content = "\n".join(files) if files else "No files found"
        if truncated:
            content += f"\n(Results are truncated to the first {_MAX_RESULTS} files.)"
        response = {
            "filenames": files,
            "numFiles": len(files),
            "truncated": truncated,
            "durationMs": round((time.perf_counter() - t0) * 1000),
        }
        return ToolOutcome(ok=True, content=clip(content, ctx.output_limit), response=response)


def _grep(ctx: ToolContext, inp: GrepInput) -> dict[str, Any]:
    try:
        regex = re.compile(inp.pattern, re.IGNORECASE if inp.case_insensitive else 0)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {inp.pattern!r}: {exc}") from None
    base = ctx.resolve(inp.path, what="path") if inp.path else ctx.cwd
    if not base.exists():
        raise ToolError(f"Path does not exist: {inp.path}")
    limit = inp.head_limit or (_MAX_RESULTS if inp.output_mode != "content" else 500)
    files: list[str] = []
    lines: list[str] = []
    counts: list[str] = []
    for path in _walk(base, ctx):
        if inp.glob and not fnmatch.fnmatch(path.name, inp.glob):
            continue
        try:
            if path.stat().st_size > _MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if b"\x00" in data[:4096]:
            continue
        text = data.decode("utf-8", errors="replace")
        hits = [(n, line) for n, line in enumerate(text.splitlines(), 1) if regex.search(line)]
        if not hits:
            continue
        files.append(str(path))
        counts.append(f"{path}:{len(hits)}")
        lines += [f"{path}:{n}:{line}" for n, line in hits]
        if inp.output_mode != "content" and len(files) >= limit:
            break
        if inp.output_mode == "content" and len(lines) >= limit:
            break
    return {"files": files[:limit], "lines": lines[:limit], "counts": counts[:limit]}


class GrepTool(Tool):
    """Search file contents with a regular expression."""

    name = "Grep"
    description = (
        "Search file contents with a regular expression. output_mode: "
        "files_with_matches (default), content (path:line:text) or count."
    )
    kind = "read"
    input_model = GrepInput

    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """Search and report."""
        assert isinstance(tool_input, GrepInput)
        found = await anyio.to_thread.run_sync(_grep, ctx, tool_input)
        mode = tool_input.output_mode
        if mode == "content":
            content = "\n".join(found["lines"]) or "No matches found"
        elif mode == "count":
            content = "\n".join(found["counts"]) or "No matches found"
        else:
            files = found["files"]
            content = (
                f"Found {len(files)} file{'s' if len(files) != 1 else ''}\n" + "\n".join(files)
                if files
                else "No files found"
            )
        response: dict[str, Any] = {"mode": mode, "filenames": found["files"], "numFiles": len(found["files"])}
        if mode == "content":
            response.update(content="\n".join(found["lines"]), numLines=len(found["lines"]))
        return ToolOutcome(ok=True, content=clip(content, ctx.output_limit), response=response)
