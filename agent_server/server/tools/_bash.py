"""The Bash tool: runs a command in the session's cwd, follows ``cd``, ends the whole
process tree on timeout (via the process runner the hook engine uses too, ``agent_server._proc``)."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

from pydantic import Field

from agent_server._proc import run_process

from ._base import Tool, ToolContext, ToolInput, ToolOutcome, clip

__all__ = ["BashInput", "BashTool"]

# The command is read from a file named in the environment, never from the command line.
_WRAPPER = 'trap \'pwd -P > "$AGENT_SERVER_CWD_FILE" 2>/dev/null\' EXIT\n. "$AGENT_SERVER_SCRIPT"\n'
_SHELL = shutil.which("bash") or "/bin/sh"


class BashInput(ToolInput):
    """Input of the Bash tool."""

    command: str = Field(min_length=1, description="The shell command to run.")
    description: str | None = Field(None, description="What the command does, in a few words.")
    timeout: float | None = Field(None, gt=0, description="Timeout in milliseconds.")


class BashTool(Tool):
    """Run a shell command."""

    name = "Bash"
    description = (
        "Run a bash command in the session's working directory. `cd` persists "
        "between calls. Output is truncated when long."
    )
    kind = "exec"
    input_model = BashInput

    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """Run the command and report stdout/stderr like Claude Code."""
        assert isinstance(tool_input, BashInput)
        timeout = ctx.bash_timeout
        if tool_input.timeout is not None:
            timeout = min(tool_input.timeout / 1000.0, ctx.bash_max_timeout)
        tmp = tempfile.mkdtemp(prefix="agent-server-bash-")
        try:
            script = Path(tmp) / "command.sh"
            cwd_file = Path(tmp) / "cwd"
            script.write_text(tool_input.command + "\n", encoding="utf-8")
            env = ctx.process_env()
            env["AGENT_SERVER_SCRIPT"] = str(script)
            env["AGENT_SERVER_CWD_FILE"] = str(cwd_file)
            cwd = ctx.cwd if ctx.cwd.is_dir() else ctx.project_dir
            proc = await run_process(
                [_SHELL, "-c", _WRAPPER],
                stdin=b"",
                env=env,
                cwd=str(cwd),
                timeout=timeout,
                grace=1.0,
                output_limit=max(ctx.output_limit * 4, 1 << 16),
                marker=f"bash-{uuid.uuid4().hex}",
            )
            new_cwd_text = cwd_file.read_text(encoding="utf-8").strip() if cwd_file.exists() else ""
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

        if proc.spawn_error:
            return ToolOutcome.failure(proc.spawn_error)
        stdout = proc.stdout.decode("utf-8", errors="replace").rstrip("\n")
        stderr = proc.stderr.decode("utf-8", errors="replace").rstrip("\n")
        notes: list[str] = []
        new_cwd: Path | None = None
        if new_cwd_text and not proc.timed_out:
            candidate = Path(os.path.realpath(new_cwd_text))
            if ctx.confine and not ctx.inside(candidate):
                new_cwd = ctx.project_dir
                notes.append(f"Shell cwd was reset to {ctx.project_dir}")
            elif candidate != ctx.cwd:
                new_cwd = candidate
        response = {
            "stdout": stdout,
            "stderr": stderr,
            "interrupted": proc.timed_out,
            "isImage": False,
            "noOutputExpected": False,
        }
        if proc.timed_out:
            error = "\n".join(p for p in (f"Command timed out after {timeout:g}s", stdout, stderr) if p)
            out = ToolOutcome.failure(clip(error, ctx.output_limit), interrupted=True)
            out.response = response
            return out
        if proc.exit_code != 0:
            code = proc.exit_code
            label = f"Exit code {code}" if code is not None and code >= 0 else f"Killed by signal {-(code or 0)}"
            error = "\n".join(p for p in (label, stdout, stderr, *notes) if p)
            out = ToolOutcome.failure(clip(error, ctx.output_limit))
            out.response = response
            out.new_cwd = new_cwd
            return out
        content = "\n".join(p for p in (stdout, stderr, *notes) if p)
        return ToolOutcome(ok=True, content=clip(content, ctx.output_limit), response=response, new_cwd=new_cwd)
