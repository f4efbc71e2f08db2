"""What the ``agent-server hooks`` subcommands share: exit codes, the project options,
loading the configuration, reading a payload, reporting an error."""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from ._config import HookConfig, load_config
from ._trust import permissions_trusted

__all__ = [
    "EXIT_BLOCKED",
    "EXIT_ERROR",
    "EXIT_OK",
    "die",
    "hidden_alias",
    "load_project_config",
    "print_issues",
    "project_arg",
    "read_payload",
]

#: Exit codes: success, an error (bad input, bad configuration), a blocking outcome.
EXIT_OK, EXIT_ERROR, EXIT_BLOCKED = 0, 1, 2


def hidden_alias(p: argparse.ArgumentParser, old: str, dest: str) -> None:
    """Accept ``old``, a former spelling of an option, without listing it in the help."""
    p.add_argument(old, dest=dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def project_arg(p: argparse.ArgumentParser) -> None:
    """Add ``--project-dir`` (``--project`` still works) and ``--no-user-settings``."""
    p.add_argument("--project-dir", metavar="DIR", default=os.getcwd(), help="project folder (default: cwd)")
    hidden_alias(p, "--project", "project_dir")
    p.add_argument("--no-user-settings", action="store_true", help="do not read ~/.claude/settings.json")


def load_project_config(args: argparse.Namespace) -> HookConfig:
    """The configuration of ``--project-dir``; exits with an error when it is not a folder."""
    project = Path(args.project_dir)
    if not project.is_dir():
        raise SystemExit(die(f"--project-dir {args.project_dir}: not a directory"))
    # The project's own permissions.allow rules count once trusted (`hooks trust`).
    return load_config(
        project,
        user_settings=None if args.no_user_settings else "default",
        project_trusted=lambda source, rules: permissions_trusted(project, source, rules),
    )


def die(message: str) -> int:
    """Print ``message`` as the command's error; returns :data:`EXIT_ERROR`."""
    print(f"agent-server: {message}", file=sys.stderr)
    return EXIT_ERROR


def print_issues(config: HookConfig) -> None:
    """Print every configuration issue to stderr."""
    for issue in config.issues:
        print(str(issue), file=sys.stderr)


def read_payload(args: argparse.Namespace, project: Path, *, missing: str | None = None) -> dict[str, Any]:
    """The payload of ``--payload FILE`` (or stdin) for ``args.event``, with the common
    fields a host would add; exits with an error naming the file when it is not a JSON object,
    and with ``missing`` when there is no payload at all (else that is ``{}``)."""
    source = args.payload
    try:
        if source is None or source == "-":
            raw = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
            source = "<stdin>"
        else:
            raw = Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(die(f"--payload {source}: {exc.strerror}")) from None
    if missing is not None and not raw.strip():
        raise SystemExit(die(missing))
    try:
        payload = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise SystemExit(
            die(f"payload {source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
        ) from None
    if not isinstance(payload, dict):
        raise SystemExit(die(f"payload {source}: must be a JSON object"))
    payload.setdefault("session_id", str(uuid.uuid4()))
    payload.setdefault("transcript_path", "")
    payload.setdefault("cwd", str(project.resolve()))
    payload["hook_event_name"] = args.event
    return payload
