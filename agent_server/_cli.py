"""The ``agent-server`` command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from . import __version__
from .hooks import add_hooks_commands
from .server import SettingsInvalid, Telemetry, telemetry_from_env
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


def install_global_telemetry() -> Telemetry | None:
    """Providers from the ``OTEL_*`` variables, made the process's global ones; None
    when none are asked for."""
    from opentelemetry import metrics, trace

    telemetry = telemetry_from_env()
    if telemetry.tracer_provider is None and telemetry.meter_provider is None:
        return None
    if telemetry.tracer_provider is not None:
        trace.set_tracer_provider(telemetry.tracer_provider)
    if telemetry.meter_provider is not None:
        metrics.set_meter_provider(telemetry.meter_provider)
    return telemetry


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    level = logging.INFO if os.environ.get("HOOK_DEBUG") == "1" else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    telemetry = None
    if args.command == "hooks" and getattr(args, "hooks_command", None) == "fire":
        # `hooks fire` traces like the server: providers from OTEL_*, installed globally
        # for this one-shot process (`serve` builds its own at start-up).
        try:
            telemetry = install_global_telemetry()
        except SettingsInvalid as exc:
            print(f"agent-server: {exc}", file=sys.stderr)
            return 2
    try:
        code: int = args.func(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        return 130
    finally:
        if telemetry is not None:
            telemetry.shutdown()
    return code


if __name__ == "__main__":
    sys.exit(main())
