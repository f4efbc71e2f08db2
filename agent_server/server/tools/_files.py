"""Read, Write and Edit: file tools confined to the project directory."""

from __future__ import annotations

from typing import Any

import anyio
from pydantic import Field

from ._base import Tool, ToolContext, ToolError, ToolInput, ToolOutcome, clip

__all__ = ["EditTool", "ReadTool", "WriteTool"]

_MAX_READ_BYTES = 10 << 20


class ReadInput(ToolInput):
    """Input of the Read tool."""

    file_path: str = Field(description="Path of the file (absolute, or relative to the cwd).")
    offset: int | None = Field(None, ge=1, description="First line to read (1-based).")
    limit: int | None = Field(None, ge=1, description="How many lines to read (default 2000).")


class WriteInput(ToolInput):
    """Input of the Write tool."""

    file_path: str = Field(description="Path of the file to create or overwrite.")
    content: str = Field(description="The complete new content.")


class EditInput(ToolInput):
    """Input of the Edit tool."""

    file_path: str = Field(description="Path of the file to edit.")
    old_string: str = Field(description="Exact text to replace.")
    new_string: str = Field(description="Replacement text.")
    replace_all: bool = Field(False, description="Replace every occurrence.")


def _read_text(ctx: ToolContext, raw: str) -> tuple[str, str]:
    path = ctx.resolve(raw, what="file_path")
    if not path.exists():
        raise ToolError(f"File does not exist: {raw}")
    if path.is_dir():
        raise ToolError(f"{raw} is a directory, not a file")
    if path.stat().st_size > _MAX_READ_BYTES:
        raise ToolError(f"{raw} is larger than {_MAX_READ_BYTES >> 20} MiB; read it with Bash")
    return str(path), path.read_text(encoding="utf-8", errors="replace")


class ReadTool(Tool):
    """Read a text file with line numbers."""

    name = "Read"
    description = "Read a text file. Lines are numbered like `cat -n`."
    kind = "read"
    input_model = ReadInput

    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """Return the requested lines."""
        assert isinstance(tool_input, ReadInput)
        path, text = await anyio.to_thread.run_sync(_read_text, ctx, tool_input.file_path)
        lines = text.splitlines()
        start = (tool_input.offset or 1) - 1
        chosen = lines[start : start + (tool_input.limit or 2000)]
        numbered = "\n".join(f"{start + i + 1:>6}\t{line}" for i, line in enumerate(chosen))
        if not text:
            numbered = "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
        response = {
            "type": "text",
            "file": {
                "filePath": path,
                "content": "\n".join(chosen),
                "numLines": len(chosen),
                "startLine": start + 1,
                "totalLines": len(lines),
            },
        }
        return ToolOutcome(ok=True, content=clip(numbered, ctx.output_limit), response=response)


def _write(ctx: ToolContext, raw: str, content: str) -> tuple[str, str | None]:
    path = ctx.resolve(raw, what="file_path")
    if path.is_dir():
        raise ToolError(f"{raw} is a directory, not a file")
    original = path.read_text(encoding="utf-8", errors="replace") if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    return str(path), original


class WriteTool(Tool):
    """Create or overwrite a file."""

    name = "Write"
    description = "Write a file (creating folders as needed), replacing any previous content."
    kind = "edit"
    input_model = WriteInput

    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """Write the content."""
        assert isinstance(tool_input, WriteInput)
        path, original = await anyio.to_thread.run_sync(_write, ctx, tool_input.file_path, tool_input.content)
        kind = "create" if original is None else "update"
        response: dict[str, Any] = {
            "type": kind,
            "filePath": path,
            "content": tool_input.content,
            "structuredPatch": [],
            "originalFile": original,
        }
        message = f"File created successfully at: {path}" if original is None else f"The file {path} has been updated."
        return ToolOutcome(ok=True, content=message, response=response)


def _edit(ctx: ToolContext, inp: EditInput) -> tuple[str, str]:
    if inp.old_string == inp.new_string:
        raise ToolError("No changes to make: old_string and new_string are exactly the same.")
    path, text = _read_text(ctx, inp.file_path)
    count = text.count(inp.old_string) if inp.old_string else 0
    if count == 0:
        raise ToolError(f"String to replace not found in file.\nString: {inp.old_string}")
    if count > 1 and not inp.replace_all:
        raise ToolError(
            f"Found {count} matches of the string to replace, but replace_all is false. To "
            "replace all occurrences, set replace_all to true. To replace only one occurrence, "
            f"please provide more context to uniquely identify the instance.\nString: {inp.old_string}"
        )
    updated = text.replace(inp.old_string, inp.new_string, -1 if inp.replace_all else 1)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(updated)
    return path, text


class EditTool(Tool):
    """Replace exact text in a file."""

    name = "Edit"
    description = "Replace `old_string` with `new_string` in a file (exact match; unique unless replace_all)."
    kind = "edit"
    input_model = EditInput

    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """Apply the replacement."""
        assert isinstance(tool_input, EditInput)
        path, original = await anyio.to_thread.run_sync(_edit, ctx, tool_input)
        response = {
            "filePath": path,
            "oldString": tool_input.old_string,
            "newString": tool_input.new_string,
            "originalFile": original,
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": tool_input.replace_all,
        }
        return ToolOutcome(ok=True, content=f"The file {path} has been updated.", response=response)
