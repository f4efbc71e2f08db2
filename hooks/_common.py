"""Shared helpers for the ready-made hooks (not a hook itself).

Every hook module imports this file as the sibling module ``_common``: a hook puts its own
folder and the ``hooks/`` folder on ``sys.path`` before importing it, so the hooks work the
same when run by ``hook_launcher.py``, by ``dispatch.py`` or standalone
(``python hooks/security/dangerous_commands.py < payload.json``).

Only the standard library is used: hooks run in whatever Python the host has.
"""

from __future__ import annotations

import functools
import json
import os
import sys

# Not typing.TYPE_CHECKING: importing typing costs a cold hook a few milliseconds.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    Payload: TypeAlias = dict[str, Any]
    Result: TypeAlias = dict[str, Any] | str | None
    RunFn: TypeAlias = Callable[[Payload], Result]

PRE_TOOL_USE = "PreToolUse"
# Tools whose input carries a file path under one of these keys.
FILE_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit"})
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
# The agent server's data folder in a project (transcripts, the hook ledger).
SERVER_DATA_DIR = ".agent-server"


def project_dir(payload: Payload) -> str:
    """Return the project directory: ``$CLAUDE_PROJECT_DIR``, else the payload's ``cwd``."""
    env = os.environ.get("CLAUDE_PROJECT_DIR", "").strip()
    if env:
        return os.path.abspath(env)
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    if isinstance(cwd, str) and cwd:
        return os.path.abspath(cwd)
    return os.getcwd()


def session_cwd(payload: Payload) -> str:
    """Return the session's current directory (payload ``cwd``), else the project directory."""
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    if isinstance(cwd, str) and cwd:
        return os.path.abspath(cwd)
    return project_dir(payload)


def marker_exists(project: str, name: str) -> bool:
    """Whether the bypass marker file ``name`` exists in the project directory."""
    return os.path.exists(os.path.join(project, name))


def pretool_decision(decision: str, reason: str) -> dict[str, Any]:
    """Build a PreToolUse ``permissionDecision`` answer (``deny``, ``ask`` or ``allow``)."""
    return {
        "hookSpecificOutput": {
            "hookEventName": PRE_TOOL_USE,
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }


def deny(reason: str) -> dict[str, Any]:
    """PreToolUse answer that skips the tool with ``reason``."""
    return pretool_decision("deny", reason)


def ask(reason: str) -> dict[str, Any]:
    """PreToolUse answer that asks the user to approve the tool call."""
    return pretool_decision("ask", reason)


def additional_context(event: str, text: str) -> dict[str, Any]:
    """``hookSpecificOutput.additionalContext`` answer for ``event``."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def decision_of(result: Result) -> str | None:
    """The PreToolUse decision (``deny``/``ask``/``allow``) carried by a hook result, if any."""
    if not isinstance(result, dict):
        return None
    spec = result.get("hookSpecificOutput")
    if isinstance(spec, dict) and isinstance(spec.get("permissionDecision"), str):
        return str(spec["permissionDecision"])
    legacy = result.get("decision")
    if legacy == "block":
        return "deny"
    if legacy == "approve":
        return "allow"
    return None


def reason_of(result: Result) -> str:
    """The reason text carried by a hook result ('' when there is none)."""
    if not isinstance(result, dict):
        return ""
    spec = result.get("hookSpecificOutput")
    if isinstance(spec, dict) and isinstance(spec.get("permissionDecisionReason"), str):
        return str(spec["permissionDecisionReason"])
    reason = result.get("reason")
    return reason if isinstance(reason, str) else ""


def truncate(text: str, limit: int, what: str = "output") -> str:
    """Cut ``text`` to at most ``limit`` characters, ending with a visible marker if cut."""
    if len(text) <= limit:
        return text
    marker = f"\n…[{what} truncated: {len(text)} chars, limit {limit}]"
    if limit <= len(marker):
        return marker[:limit]
    return text[: limit - len(marker)] + marker


def tail(text: str, lines: int = 40, chars: int = 3000) -> str:
    """The last ``lines`` lines of ``text``, at most ``chars`` characters."""
    kept = "\n".join(text.rstrip().splitlines()[-lines:])
    if len(kept) > chars:
        kept = "…" + kept[-(chars - 1) :]
    return kept


def run_cmd(args: list[str], cwd: str, timeout: float = 5.0) -> tuple[int, str] | None:
    """Run ``args`` (an argument list, never a shell string) and return (exit code, stdout).

    Returns None when the program is missing, the directory does not exist or it timed out,
    so callers can degrade gracefully.
    """
    import subprocess  # only hooks that run programs pay for this import

    try:
        done = subprocess.run(
            args,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
            errors="replace",
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.returncode, done.stdout


def git(args: list[str], cwd: str, timeout: float = 5.0) -> str | None:
    """Run ``git <args>`` in ``cwd``; stdout on success, None if git is missing or it failed."""
    done = run_cmd(["git", *args], cwd, timeout)
    if done is None:
        return None
    code, out = done
    return out if code == 0 else None


def git_branch(cwd: str) -> str | None:
    """Current branch (``detached at <sha>`` when detached); None outside a git work tree."""
    out = git(["symbolic-ref", "--quiet", "--short", "HEAD"], cwd)
    if out and out.strip():
        return out.strip()
    sha = git(["rev-parse", "--short", "HEAD"], cwd)
    return f"detached at {sha.strip()}" if sha and sha.strip() else None


DEFAULT_PROTECTED_BRANCHES = ("main", "master")


def protected_branches() -> set[str]:
    """Branches whose history is shared: ``PROTECTED_BRANCHES`` (separated by commas, colons or
    spaces), else main and master."""
    env = os.environ.get("PROTECTED_BRANCHES", "")
    names = {b.strip() for b in env.replace(",", " ").replace(":", " ").split() if b.strip()}
    return names or set(DEFAULT_PROTECTED_BRANCHES)


def _is_server_data(path: str) -> bool:
    return SERVER_DATA_DIR in path.rstrip("/").split("/")


def git_dirty(cwd: str) -> list[str] | None:
    """``git status --porcelain`` lines (status + path); None outside a git work tree.

    The agent server's own data folder is not a change of the user's: it is left out
    (a folder made before it carried its own ``.gitignore`` still shows in git status)."""
    out = git(["-c", "core.quotepath=off", "status", "--porcelain=v1"], cwd)
    if out is None:
        return None
    return [line for line in out.splitlines() if line.strip() and not _is_server_data(line[3:])]


def fail_closed(hook_name: str) -> Callable[[RunFn], RunFn]:
    """Decorator for security hooks: any exception becomes a ``deny`` instead of a crash.

    A security hook that cannot decide must not let the tool run (the settings also mark
    these hooks ``onFailure: block`` for crashes outside ``run``).
    """

    def wrap(fn: RunFn) -> RunFn:
        @functools.wraps(fn)
        def guarded(payload: Payload) -> Result:
            try:
                return fn(payload)
            except Exception as exc:  # any bug must block, not pass
                return deny(
                    f"{hook_name}: the security check failed ({type(exc).__name__}: {exc}), "
                    "so the tool call is blocked (fail closed). Rephrase the call more simply "
                    "or ask the user to run it."
                )

        return guarded

    return wrap


def malformed(hook_name: str, what: str) -> dict[str, Any]:
    """Deny answer for a payload a security hook cannot read (fail closed)."""
    return deny(
        f"{hook_name}: malformed tool call ({what}); blocked because the security check "
        "could not inspect it. Retry with a well-formed tool input."
    )


def tool_call(
    payload: Any, hook_name: str, tools: frozenset[str]
) -> tuple[str, dict[str, Any]] | dict[str, Any] | None:
    """Validate a PreToolUse payload for a security hook that checks ``tools``.

    Returns ``(tool_name, tool_input)``; a deny answer if the payload is malformed (fail
    closed); or None when there is nothing to check (another event or another tool).
    """
    if not isinstance(payload, dict):
        return malformed(hook_name, "payload is not a JSON object")
    event = payload.get("hook_event_name")
    if event is not None and event != PRE_TOOL_USE:
        return None
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        return malformed(hook_name, "tool_name is missing")
    if tool not in tools:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return malformed(hook_name, f"tool_input of {tool} is not an object")
    return tool, tool_input


def str_field(
    tool_input: dict[str, Any], key: str, hook_name: str, required: bool = True
) -> str | dict[str, Any] | None:
    """A string field of ``tool_input``; a deny answer if it is missing or not a string."""
    value = tool_input.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        return malformed(hook_name, f"{key!r} is {'missing' if value is None else 'not a string'}")
    return value


Finding = tuple[str, str]  # (level "deny" | "ask", reason)


def tag_rule(rule: str, findings: list[Finding], start: int = 0) -> None:
    """Name the rule in the reasons of ``findings[start:]`` (``rule sql: …``), so a blocked
    model (and its user) can tell which check fired."""
    for i in range(start, len(findings)):
        level, reason = findings[i]
        if not reason.startswith("rule "):
            findings[i] = (level, f"rule {rule}: {reason}")


def verdict(hook_name: str, findings: list[Finding]) -> dict[str, Any] | None:
    """Combine findings: any deny → deny, else any ask → ask; reasons deduplicated."""
    for level in ("deny", "ask"):
        reasons: list[str] = []
        for found_level, reason in findings:
            if found_level == level and reason not in reasons:
                reasons.append(reason)
        if reasons:
            text = f"[{hook_name}] " + "\n".join(reasons[:5])
            if len(reasons) > 5:
                text += f"\n(+{len(reasons) - 5} more)"
            return pretool_decision(level, text)
    return None


def read_text(path: str, limit: int = 200_000) -> str | None:
    """Read at most ``limit`` characters of a text file; None if it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return None


def emit(result: Result) -> None:
    """Print a hook result the way the launcher does: dict as JSON, str as text."""
    if result is None:
        return
    if isinstance(result, dict):
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(str(result))
        if not str(result).endswith("\n"):
            sys.stdout.write("\n")


def main(run: RunFn, *, fail_closed_on_bad_input: bool = False) -> None:
    """Standalone entry point: read the JSON payload from stdin, call ``run``, print the result.

    Unreadable stdin exits 2 (blocks) for security hooks and 1 (non-blocking error) otherwise.
    """
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw) if raw.strip() else None
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        sys.stderr.write("hook: stdin is not a JSON object payload\n")
        sys.exit(2 if fail_closed_on_bad_input else 1)
    emit(run(payload))
