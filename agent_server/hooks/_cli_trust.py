"""``agent-server hooks trust | untrust``: review and trust the hooks a project brings.

Registered by :func:`agent_server.hooks._cli.add_hooks_commands`; the rules are in
:mod:`agent_server.hooks._trust` and docs/server.md "Security model".
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from ._cli_common import EXIT_ERROR, EXIT_OK, die, load_project_config, project_arg
from ._trust import HookTrust, TrustError, TrustItem

__all__ = ["add_trust_commands", "cmd_trust", "cmd_untrust", "print_items", "trust_column"]


def print_items(items: list[TrustItem]) -> None:
    """The review listing: id, state, what runs, where it is configured, what changed."""
    for item in items:
        state = "trusted" if item.trusted else ("CANNOT TRUST" if item.problem else "untrusted")
        what = f"{item.event}: {item.command}" if item.kind == "hook" else f"permissions.allow: {item.command}"
        print(f"  {item.id}  {state:<12} {what}")
        print(f"                {item.source} {item.location}")
        for name, digest in item.files.items():
            print(f"                script {name} sha256:{digest[:16]}")
        if item.problem:
            print(f"                {item.problem}")
        for change in item.changes:
            print(f"                changed: {change}")


def cmd_trust(args: argparse.Namespace) -> int:
    """Trust project hooks: list the untrusted ones (no arguments), or trust IDs / --all."""
    config = load_project_config(args)
    trust = HookTrust(config, "store")
    problem = trust.check_store()
    if problem:
        print(f"agent-server: {problem}", file=sys.stderr)
    if not args.all and not args.ids:
        untrusted = trust.untrusted()
        if args.json:
            print(json.dumps({"untrusted": [i.to_dict() for i in untrusted]}, indent=2))
            return EXIT_OK
        if not untrusted:
            print(f"every project hook of {config.project_dir} is trusted")
            return EXIT_OK
        print(f"{len(untrusted)} project hook(s) of {config.project_dir} are not trusted:")
        print_items(untrusted)
        print("\nreview them, then: agent-server hooks trust ID... (or --all)")
        return EXIT_OK
    try:
        done = trust.trust(args.ids, all_items=args.all)
    except TrustError as exc:
        return die(str(exc))
    left = [i for i in trust.items() if not i.trusted]
    if args.json:
        print(json.dumps({"trusted": [i.to_dict() for i in done], "untrusted": [i.to_dict() for i in left]}, indent=2))
    else:
        for item in done:
            print(f"trusted {item.id}  {item.event or 'permissions.allow'}: {item.command}  ({item.source})")
        if not done:
            print("nothing new to trust")
        for item in left:
            print(f"not trusted {item.id}: {item.problem or 'not selected'}  ({item.source} {item.location})")
        print(f"trust store: {trust.store.path}")
    return EXIT_ERROR if any(i.problem for i in left) and args.all else EXIT_OK


def cmd_untrust(args: argparse.Namespace) -> int:
    """Forget trust for IDs (or --all of this project)."""
    if not args.all and not args.ids:
        return die("hooks untrust: give the IDs to untrust (see `agent-server hooks list`) or --all")
    config = load_project_config(args)
    trust = HookTrust(config, "store")
    try:
        gone = trust.untrust(args.ids, all_items=args.all)
    except TrustError as exc:
        return die(str(exc))
    print(
        f"untrusted {len(gone)} item(s) of {config.project_dir}"
        + (": " + ", ".join(g[:12] for g in gone) if gone else "")
    )
    return EXIT_OK


def trust_column(trust: HookTrust) -> dict[int, TrustItem]:
    """Trust item per spec id (only project hooks), for ``hooks list`` / ``explain``."""
    out: dict[int, TrustItem] = {}
    for specs in trust.config.hooks.values():
        for spec in specs:
            if trust.needs_trust(spec):
                item = dataclasses.replace(trust.item(spec), trusted=trust.reason(spec) is None)
                out[id(spec)] = item
    return out


def add_trust_commands(hsub: Any) -> None:
    """Add ``trust`` and ``untrust`` to the ``hooks`` subcommands."""
    p = hsub.add_parser("trust", help="list the project's untrusted hooks, or trust them by ID (or --all) so they run")
    p.add_argument("ids", nargs="*", metavar="ID", help="ids from `hooks trust` / `hooks list` (4+ hex digits)")
    p.add_argument("--all", action="store_true", help="trust every current project hook")
    project_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_trust)

    p = hsub.add_parser("untrust", help="forget trust for IDs (or --all of this project)")
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--all", action="store_true", help="forget every trusted hook of this project")
    project_arg(p)
    p.set_defaults(func=cmd_untrust)
