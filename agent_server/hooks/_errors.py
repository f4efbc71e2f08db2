"""Exceptions raised by the hook engine.

One tree, so a host can catch everything from the engine with one ``except``::

    HookError
    ├── ConfigError            a settings file cannot be used (carries every ConfigIssue)
    ├── UnknownHookTypeError   a hook names a type the runner cannot run
    ├── RunnerClosedError      ``fire()`` after the runner was closed
    ├── LedgerError            the audit ledger is missing, unreachable or of another schema
    ├── TrustError             the trust store cannot be read or written (names the file)
    └── PromptReplyError       a model's answer to a prompt hook is not ``{ok, reason}`` JSON
                               (also a ValueError, for evaluators that raise it)

Hook *failures* (a crash, a timeout, bad JSON) are not exceptions: they are
:class:`~agent_server.hooks.HookResult` values, so one hook's failure never breaks
its siblings. Exceptions are only for the host's own mistakes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ConfigError", "ConfigIssue", "HookError", "RunnerClosedError", "UnknownHookTypeError"]


@dataclass(frozen=True)
class ConfigIssue:
    """One problem found while loading configuration: where, and what is wrong.

    ``path`` is the JSON path inside the file (``hooks.PreToolUse[0].hooks[1].timeout``),
    ``hint`` says how to fix it when there is an obvious fix.
    """

    file: str
    path: str
    message: str
    severity: Literal["error", "warning"] = "error"
    hint: str = ""

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        text = f"{self.severity}: {where}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


class HookError(Exception):
    """Base class of every exception raised by the hook engine."""


class ConfigError(HookError):
    """Configuration cannot be used; ``issues`` lists every problem found."""

    def __init__(self, issues: list[ConfigIssue]) -> None:
        self.issues = list(issues)
        super().__init__("\n".join(str(i) for i in self.issues) or "invalid configuration")


class UnknownHookTypeError(HookError):
    """A hook entry names a type this runner does not know how to run."""

    def __init__(self, hook_type: str) -> None:
        self.hook_type = hook_type
        super().__init__(f"unknown hook type {hook_type!r}")


class RunnerClosedError(HookError):
    """The runner was used after it was closed."""
