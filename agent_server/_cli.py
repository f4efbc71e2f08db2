"""The ``agent-server`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from . import __version__
from .hooks import add_hooks_commands
from .server._serve import add_server_commands

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (subcommands register themselves here)."""
    parser = argparse.ArgumentParser(prog="agent-server", description=__doc__)
    parser.add_argument("--version", action="version", version=f"agent-server {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_hooks_commands(sub)
    add_server_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    level = logging.INFO if os.environ.get("HOOK_DEBUG") == "1" else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
