"""Settings entries of the Claude Code hook types that run no process: ``http``, ``prompt``
and ``agent`` (contract §10-11). Each is checked here and becomes a :class:`HookSpec`,
or an issue that names the file, the JSON path and what is wrong."""

from __future__ import annotations

from typing import Any, Protocol

from ._http import header_variables, url_problem
from ._spec import HTTP_DEFAULT_TIMEOUT, PROMPT_DEFAULT_TIMEOUT, HookSpec

__all__ = ["AGENT_UNSUPPORTED", "check_agent_hook", "http_spec", "prompt_spec"]

#: Why an ``agent`` hook does not run (shown by ``hooks list`` and ``hooks explain``).
AGENT_UNSUPPORTED = (
    "hook type 'agent' is not supported: agent hooks (a subagent with tools that checks the "
    "action) are not implemented by this server; use a 'prompt' or 'command' hook instead"
)


class HookFields(Protocol):
    """The fields of a Claude Code hook entry read here (the settings loader's model)."""

    url: str | None
    headers: dict[str, str] | None
    allowedEnvVars: list[str] | None
    prompt: str | None
    model: str | None
    timeout: float | None


class Reporter(Protocol):
    """Where problems go (the settings loader)."""

    def error(self, file: str, path: str, message: str, hint: str = "") -> None:
        """Record an error."""

    def warn(self, file: str, path: str, message: str, hint: str = "") -> None:
        """Record a warning."""

    def ignore(self, event: str, file: str, path: str, command: str, why: str) -> None:
        """Record an entry that will not run, and why."""


def http_spec(hook: HookFields, common: dict[str, Any], shown: str, path: str, report: Reporter) -> HookSpec | None:
    """An ``http`` hook's spec, or None (with the problem reported)."""
    event = str(common["event"])
    if not hook.url:
        report.error(shown, f"{path}.url", "missing: an http hook needs 'url' (where the event's JSON is POSTed)")
        return None
    problem = url_problem(hook.url)
    if problem is not None:
        report.error(shown, f"{path}.url", problem)
        return None
    headers = dict(hook.headers or {})
    allowed = tuple(hook.allowedEnvVars or ())
    for name, value in headers.items():
        for variable in header_variables(value):
            if variable not in allowed:
                report.warn(
                    shown,
                    f"{path}.headers.{name}",
                    f"${variable} is not in allowedEnvVars: it is sent as an empty string",
                    f'add "{variable}" to allowedEnvVars',
                )
    if event == "SessionStart":
        why = "http hooks are not sent for SessionStart (as in Claude Code)"
        report.ignore(event, shown, path, hook.url, why)
        report.warn(shown, f"{path}.type", f"{why}; the entry is ignored")
        return None
    values = {**common, "timeout": hook.timeout or HTTP_DEFAULT_TIMEOUT}
    return HookSpec(kind="http", command=hook.url, url=hook.url, headers=headers, allowed_env_vars=allowed, **values)


def _prompt_text(hook: HookFields, kind: str, shown: str, path: str, report: Reporter) -> str | None:
    if hook.prompt is None or not hook.prompt.strip():
        report.error(
            shown,
            f"{path}.prompt",
            f"missing: a{'n' if kind == 'agent' else ''} {kind} hook needs 'prompt' "
            "(the instruction for the model; $ARGUMENTS is replaced by the event's JSON)",
        )
        return None
    return hook.prompt


def prompt_spec(hook: HookFields, common: dict[str, Any], shown: str, path: str, report: Reporter) -> HookSpec | None:
    """A ``prompt`` hook's spec, or None (with the problem reported)."""
    prompt = _prompt_text(hook, "prompt", shown, path, report)
    if prompt is None:
        return None
    if "$ARGUMENTS" not in prompt:
        report.warn(
            shown,
            f"{path}.prompt",
            "the prompt has no $ARGUMENTS: the model will not see the event's JSON",
            "put $ARGUMENTS where the event belongs",
        )
    if hook.model is not None:
        report.warn(shown, f"{path}.model", "'model' is ignored: prompt hooks use the session's model")
    values = {**common, "timeout": hook.timeout or PROMPT_DEFAULT_TIMEOUT}
    return HookSpec(kind="prompt", command=prompt, prompt=prompt, **values)


def check_agent_hook(
    hook: HookFields, common: dict[str, Any], shown: str, path: str, report: Reporter
) -> HookSpec | None:
    """Check an ``agent`` hook and list it as unsupported: it never runs (always None)."""
    prompt = _prompt_text(hook, "agent", shown, path, report)
    if prompt is None:
        return None
    report.ignore(str(common["event"]), shown, path, prompt, AGENT_UNSUPPORTED)
    report.warn(shown, f"{path}.type", f"{AGENT_UNSUPPORTED}; the entry is ignored")
    return None
