"""What every tool shares: its context, its outcome, input validation, path confinement."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolInput",
    "ToolKind",
    "ToolOutcome",
    "clip",
]

ToolKind = Literal["read", "edit", "exec", "agent"]


class ToolError(Exception):
    """A tool refused or failed; the message goes to the model as an error result."""


class InvalidToolInput(ToolError):
    """Input that breaks the tool's schema. ``issues`` is Claude Code's text without the
    ``InputValidationError: `` prefix: ``<Tool> failed due to the following issue:\n...``."""

    def __init__(self, issues: str) -> None:
        super().__init__(f"InputValidationError: {issues}")
        self.issues = issues


class ToolInput(BaseModel):
    """Base of tool input models: unknown keys are ignored, like Claude Code."""

    model_config = ConfigDict(extra="ignore")


@dataclass
class ToolContext:
    """Where and how a tool runs for one agent (session or subagent)."""

    project_dir: Path
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    confine: bool = True
    allowed_dirs: tuple[Path, ...] = ()
    bash_timeout: float = 120.0
    bash_max_timeout: float = 600.0
    output_limit: int = 30_000
    stripped_env: tuple[str, ...] = ()

    def roots(self) -> list[Path]:
        """Directories tools may touch when confined."""
        return [self.project_dir, *self.allowed_dirs]

    def inside(self, path: Path) -> bool:
        """Whether ``path`` (resolved) is inside an allowed root."""
        return any(path == root or root in path.parents for root in self.roots())

    def resolve(self, raw: str, *, what: str = "path") -> Path:
        """An absolute, symlink-resolved path for ``raw`` (relative to the cwd).

        Raises :class:`ToolError` when confined and the path leaves the project.
        """
        if not raw or "\x00" in raw:
            raise ToolError(f"{what} {raw!r} is not a valid path")
        path = Path(os.path.expanduser(raw))
        if not path.is_absolute():
            path = self.cwd / path
        real = Path(os.path.realpath(path))
        if self.confine and not self.inside(real):
            raise ToolError(
                f"{what} {raw!r} resolves to {real}, which is outside the project directory "
                f"{self.project_dir}; access refused"
            )
        return real

    def process_env(self) -> dict[str, str]:
        """Environment for processes the tools start."""
        env = {k: v for k, v in os.environ.items() if k not in self.stripped_env}
        env.update(self.env)
        env["CLAUDECODE"] = "1"
        env["CLAUDE_PROJECT_DIR"] = str(self.project_dir)
        env["PWD"] = str(self.cwd)
        return env


@dataclass
class ToolOutcome:
    """A finished tool call.

    ``content`` is what the model sees; ``response`` is PostToolUse's ``tool_response``;
    ``error`` (when not ``ok``) is PostToolUseFailure's ``error``.
    """

    ok: bool
    content: str
    response: Any = None
    error: str | None = None
    interrupted: bool = False
    new_cwd: Path | None = None

    @classmethod
    def failure(cls, error: str, *, interrupted: bool = False) -> ToolOutcome:
        """A failed call whose error message is also what the model sees."""
        return cls(ok=False, content=error, error=error, interrupted=interrupted)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with a note saying how much was dropped."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [output truncated: {len(text) - limit} more characters]"


class Tool(ABC):
    """A tool the model can call."""

    name: ClassVar[str]
    description: ClassVar[str]
    kind: ClassVar[ToolKind]
    input_model: ClassVar[type[ToolInput]]

    def schema(self) -> dict[str, Any]:
        """The tool as the Messages API describes it."""
        schema = self.input_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return {"name": self.name, "description": self.description, "input_schema": schema}

    def validate(self, tool_input: Mapping[str, Any]) -> ToolInput:
        """Parse the model's input; raise :class:`ToolError` naming each bad field."""
        try:
            return self.input_model.model_validate(dict(tool_input))
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                loc = ".".join(str(p) for p in err.get("loc", ())) or "input"
                if err.get("type") == "missing":  # Claude Code's wording
                    problems.append(f"The required parameter `{loc}` is missing")
                else:
                    problems.append(f"`{loc}`: {err.get('msg')}")
            noun = "issues" if len(problems) > 1 else "issue"
            raise InvalidToolInput(f"{self.name} failed due to the following {noun}:\n" + "\n".join(problems)) from None

    @abstractmethod
    async def run(self, tool_input: Any, ctx: ToolContext) -> ToolOutcome:
        """Run with validated input."""
