"""``agent-server hooks …``: list, validate, fire and test hooks from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio

from ._cli_common import (
    EXIT_BLOCKED,
    EXIT_ERROR,
    EXIT_OK,
    die,
    load_project_config,
    print_issues,
    project_arg,
    read_payload,
)
from ._cli_observe import add_observe_commands
from ._cli_permissions import list_permissions_lines
from ._cli_trust import add_trust_commands, print_items, trust_column
from ._matching import parse_tool_pattern, tool_pattern_matches
from ._outcome import EventOutcome
from ._runner import HookRunner
from ._spec import HookSpec
from ._trust import HookTrust

__all__ = ["add_hooks_commands"]


def cmd_list(args: argparse.Namespace) -> int:
    """Print the effective hooks per event (with their trust), and every ignored entry with why."""
    config = load_project_config(args)
    trust = HookTrust(config)
    problem = trust.check_store()
    if problem:
        print(f"agent-server: {problem}", file=sys.stderr)
    if args.untrusted:
        items = [] if trust.policy == "all" else trust.untrusted()
        if args.json:
            print(json.dumps({"untrusted": [i.to_dict() for i in items]}, indent=2))
        elif items:
            print(f"{len(items)} project hook(s) are not trusted (agent-server hooks trust ID... or --all):")
            print_items(items)
        else:
            print("no untrusted project hooks")
        return EXIT_OK
    column = trust_column(trust)

    def trust_fields(s: HookSpec) -> dict[str, Any]:
        item = column.get(id(s))
        if item is None:
            return {"trusted": True}
        return {"trusted": item.trusted, "trust_id": item.id, "untrusted_reason": trust.reason(s)}

    if args.json:
        data: dict[str, Any] = {
            "files": config.files,
            "events": {
                event: {
                    "order": config.order_for(event),
                    "hooks": [
                        {
                            "name": s.display_name,
                            "type": _hook_type(s),
                            "command": s.command,
                            **_type_fields(s),
                            "source": s.source,
                            "location": s.location,
                            "dialect": s.dialect,
                            "matcher": s.matcher
                            or s.tool_pattern
                            or (dict(s.object_matcher) if s.object_matcher else None),
                            "if": s.if_rule,
                            "timeout_s": s.timeout,
                            "fail_closed": s.fail_closed,
                            "async": s.run_async,
                            **trust_fields(s),
                        }
                        for s in specs
                    ],
                }
                for event, specs in config.hooks.items()
                if specs
            },
            "ignored": [i.__dict__ for i in config.ignored],
            "issues": [i.__dict__ for i in config.issues],
            "permissions": config.permissions.to_dict(),
        }
        print(json.dumps(data, indent=2))
        return EXIT_OK
    print(f"files: {', '.join(config.files) or '(none)'}")
    if not any(config.hooks.values()):
        print("no hooks configured")
    for event, specs in config.hooks.items():
        if not specs:
            continue
        print(f"\n{event}  ({config.order_for(event)})")
        for i, s in enumerate(specs, 1):
            matcher = s.matcher_text or "*"
            flags = [f for f, on in (("fail-closed", s.fail_closed), ("async", s.run_async)) if on]
            extra = f"  if={s.if_rule}" if s.if_rule else ""
            kind = _hook_type(s)
            why = trust.reason(s) if id(s) in column else None
            untrusted = f"  [{why}; id {column[id(s)].id}]" if why else ""
            shown = s.command if kind == "command" else f"[{kind}] {s.command}"
            print(f"  {i}. {s.display_name}: {shown}{untrusted}")
            if s.kind == "http" and s.headers:
                allowed = ", ".join(s.allowed_env_vars) or "none"
                print(f"     headers={', '.join(s.headers)}  allowedEnvVars={allowed}")
            print(
                f"     matcher={matcher}{extra}  timeout={s.timeout:g}s  dialect={s.dialect}"
                f"  source={s.source} {s.location}" + (f"  [{', '.join(flags)}]" if flags else "")
            )
    for line in list_permissions_lines(config):
        print(line)
    if config.ignored:
        print("\nignored:")
        for ig in config.ignored:
            print(f"  {ig.event}: {ig.command}  ({ig.source} {ig.location}): {ig.why}")
    if config.issues:
        print("\nproblems:")
        for issue in config.issues:
            print(f"  {issue}")
    return EXIT_OK


def _hook_type(spec: HookSpec) -> str:
    """The hook's ``type`` as written in settings (command, http, prompt, python, ...)."""
    if spec.kind in ("http", "prompt", "python", "callback", "builtin"):
        return spec.kind
    return "command"


def _type_fields(spec: HookSpec) -> dict[str, Any]:
    if spec.kind == "http":
        # Header values as configured: $VAR references, never the filled-in values.
        return {"url": spec.url, "headers": dict(spec.headers), "allowedEnvVars": list(spec.allowed_env_vars)}
    if spec.kind == "prompt":
        return {"prompt": spec.prompt}
    return {}


def cmd_validate(args: argparse.Namespace) -> int:
    """Check every settings file; exit 1 when any has errors."""
    config = load_project_config(args)
    for issue in config.issues:
        print(str(issue))
    count = sum(len(v) for v in config.hooks.values())
    errors = len(config.errors)
    print(
        f"{'FAILED' if errors else 'OK'}: {count} hooks from {len(config.files)} files, "
        f"{errors} errors, {len(config.warnings)} warnings"
    )
    return EXIT_ERROR if errors else EXIT_OK


def _print_outcome(outcome: EventOutcome) -> None:
    state = "BLOCKED" if outcome.blocked else "allowed"
    print(f"{outcome.event}: {state}" + (f" (decision: {outcome.decision})" if outcome.decision else ""))
    if outcome.reason:
        print(f"reason: {outcome.reason}")
    for ctx in outcome.additional_context:
        print(f"context: {ctx}")
    if outcome.updated_input is not None:
        print(f"updated input: {json.dumps(outcome.updated_input)}")
    if not outcome.continue_:
        print(f"stop: {outcome.stop_reason or '(no reason)'}")
    for msg in outcome.system_messages:
        print(f"system message: {msg}")
    for r in outcome.hooks:
        code = "" if r.exit_code is None else f" exit={r.exit_code}"
        print(f"  [{r.status.value}]{code} {r.duration_ms:.1f}ms  {r.name}" + (f"  — {r.error}" if r.error else ""))
    if not outcome.hooks:
        print("  (no hook applied)")


def cmd_fire(args: argparse.Namespace) -> int:
    """Fire one event with a payload and print the combined outcome."""
    config = load_project_config(args)
    if config.errors:
        print_issues(config)
        return EXIT_ERROR
    payload = read_payload(args, Path(args.project_dir))

    async def go() -> EventOutcome:
        async with HookRunner(config, ledger=args.ledger) as runner:
            return await runner.fire(args.event, payload)

    outcome = anyio.run(go)
    if args.json:
        print(json.dumps(outcome.to_dict(), indent=2))
    else:
        _print_outcome(outcome)
    return EXIT_BLOCKED if outcome.blocked else EXIT_OK


def tool_input_for(tool: str, arg: str) -> dict[str, Any]:
    """A plausible tool_input whose main argument is ``arg``."""
    if tool == "Bash":
        return {"command": arg}
    if tool in ("Glob", "Grep"):
        return {"pattern": arg}
    if tool == "NotebookEdit":
        return {"notebook_path": arg}
    if tool == "WebFetch":
        return {"url": arg}
    if tool in ("Read", "Write", "Edit", "MultiEdit"):
        return {"file_path": arg}
    try:
        value = json.loads(arg)
    except ValueError:
        return {"file_path": arg}
    return value if isinstance(value, dict) else {"value": value}


def cmd_test_pattern(args: argparse.Namespace) -> int:
    """Print whether ``Tool(arg-glob)`` matches a tool call."""
    if parse_tool_pattern(args.pattern) is None:
        return die(f"pattern {args.pattern!r} is not of the form Tool or Tool(arg-glob)")
    hit = tool_pattern_matches(args.pattern, args.tool, tool_input_for(args.tool, args.arg))
    print("match" if hit else "no match")
    return EXIT_OK


def add_hooks_commands(sub: Any) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Add ``hooks`` and its subcommands to the top-level parser's subparsers."""
    hooks = sub.add_parser("hooks", help="inspect, validate and fire hooks")
    hsub: argparse._SubParsersAction[argparse.ArgumentParser] = hooks.add_subparsers(
        dest="hooks_command", metavar="COMMAND", required=True
    )

    p = hsub.add_parser("list", help="effective hooks per event (and their trust), and ignored entries")
    project_arg(p)
    p.add_argument("--json", action="store_true")
    p.add_argument("--untrusted", action="store_true", help="only the project hooks that wait for trust")
    p.set_defaults(func=cmd_list)

    p = hsub.add_parser("validate", help="check settings files (exit 1 on errors)")
    project_arg(p)
    p.set_defaults(func=cmd_validate)

    p = hsub.add_parser("fire", help="fire EVENT with a JSON payload (stdin by default)")
    p.add_argument("event")
    project_arg(p)
    p.add_argument("--payload", help="payload file (default: stdin)")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.add_argument(
        "--ledger",
        nargs="?",
        const=True,
        metavar="PATH",
        help="also record the event in the audit ledger: <project>/.agent-server/hooks.db, or PATH",
    )
    p.set_defaults(func=cmd_fire)

    p = hsub.add_parser("test-pattern", help="does Tool(arg-glob) match TOOL with ARG?")
    p.add_argument("pattern")
    p.add_argument("tool")
    p.add_argument("arg")
    p.set_defaults(func=cmd_test_pattern)

    add_observe_commands(hsub)  # log, stats, prune, explain
    add_trust_commands(hsub)  # trust, untrust
    return hsub
