"""The tools the model can call: Bash, Read, Write, Edit, Glob, Grep and Task.

File tools are confined to the project directory (plus configured extra folders);
paths that escape it are refused with an error naming the path.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ._base import InvalidToolInput, Tool, ToolContext, ToolError, ToolInput, ToolKind, ToolOutcome, clip
from ._bash import BashInput, BashTool
from ._files import EditTool, ReadTool, WriteTool
from ._search import GlobTool, GrepTool

__all__ = [
    "BashInput",
    "BashTool",
    "EditTool",
    "GlobTool",
    "GrepTool",
    "InvalidToolInput",
    "ReadTool",
    "TaskInput",
    "TaskTool",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolInput",
    "ToolKind",
    "ToolOutcome",
    "WriteTool",
    "clip",
    "default_tools",
]


class TaskInput(ToolInput):
    """Input of the Task tool (a subagent)."""

    description: str = Field(min_length=1, description="A short (3-5 word) description of the task.")
    prompt: str = Field(min_length=1, description="The task for the subagent.")
    subagent_type: str = Field("general-purpose", description="Which kind of agent runs it.")


class TaskTool(Tool):
    """Start a subagent; the agent loop runs it (hooks see the tool as ``Agent``)."""

    name = "Task"
    description = (
        "Launch a subagent that works on a task with its own conversation and tools, and returns its final answer."
    )
    kind = "agent"
    input_model = TaskInput

    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """Never called: the agent loop runs subagents itself."""
        raise ToolError("Task is run by the agent loop")


def default_tools(*, with_task: bool = True) -> dict[str, Tool]:
    """A fresh set of the built-in tools, by name."""
    tools: list[Tool] = [BashTool(), ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool()]
    if with_task:
        tools.append(TaskTool())
    return {t.name: t for t in tools}
