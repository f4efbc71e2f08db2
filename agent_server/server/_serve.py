"""``agent-server serve`` and ``agent-server init``."""

from __future__ import annotations

import argparse
import gc
import socket
import sys
from pathlib import Path
from typing import Any

from agent_server._datadir import make_data_dir

from ._hooks_setup import default_settings_text, hooks_summary, packaged_default_settings
from ._platform import install_pidfd_child_watcher
from ._settings import SettingsInvalid, load_settings

__all__ = ["add_server_commands", "cmd_init", "cmd_serve"]


def _fail(message: str, code: int = 2) -> int:
    print(f"agent-server: {message}", file=sys.stderr)
    return code


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server with uvicorn until interrupted; prints the URL once listening."""
    import uvicorn

    from ._app import create_app, request_shutdown

    overrides: dict[str, Any] = {}
    for name in ("host", "port", "project_dir", "backend", "env"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    try:
        settings = load_settings(**overrides)
        settings.check_backend()
    except SettingsInvalid as exc:
        return _fail(str(exc))
    try:
        make_data_dir(settings.data_path)
    except OSError as exc:
        return _fail(
            f"cannot create the data directory {settings.data_path} (AGENT_SERVER_DATA_DIR): {exc.strerror or exc}"
        )
    try:
        app = create_app(settings)
    except SettingsInvalid as exc:  # a malformed OTEL_* value
        return _fail(str(exc))

    class Server(uvicorn.Server):
        async def serve(self, sockets: list[socket.socket] | None = None) -> None:
            install_pidfd_child_watcher()
            await super().serve(sockets)

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                # What startup loaded (modules, the app, the hook configuration) lives as
                # long as the server: frozen, full collections skip it, so their pauses
                # (which land on whatever runs then, a hook's fire included) scale with
                # what came after, not with the whole heap.
                gc.collect()  # (what startup already left as garbage is not kept forever)
                gc.freeze()
                port = settings.port
                for server in self.servers:
                    for sock in server.sockets:
                        port = sock.getsockname()[1]
                host = settings.host if ":" not in settings.host else f"[{settings.host}]"
                url = f"http://{host}:{port}"
                token: str | None = app.state.api_token
                chat = f"{url}/chat?token={token}" if token else f"{url}/chat"
                print(f"agent-server listening on {url}  (chat: {chat}, API: {url}/openapi.json)", flush=True)
                manager = app.state.manager
                if manager is not None:  # (the first line stays the URL: scripts read it)
                    print("\n".join(hooks_summary(manager.runner, settings.project_dir)), flush=True)
                waiting = app.state.untrusted_hooks
                if waiting:
                    print(
                        f"  {waiting} project hook(s) are not trusted and will not run: review them in the "
                        "chat page or with `agent-server hooks trust`",
                        flush=True,
                    )
                if token:
                    source = "AGENT_SERVER_API_TOKEN" if settings.api_token else "new each launch"
                    print(f"API clients send 'Authorization: Bearer {token}' ({source})", flush=True)

        def handle_exit(self, sig: int, frame: Any) -> None:
            request_shutdown(app)
            super().handle_exit(sig, frame)

    # loop="asyncio": uvloop spawns hook processes several times slower (measured).
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        lifespan="on",
        loop="asyncio",
        log_level=args.log_level,
        timeout_graceful_shutdown=3,
        access_log=args.log_level == "debug",
    )
    Server(config).run()
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    """Write the default ``.claude/settings.json`` into a project."""
    project = Path(args.project_dir).expanduser().resolve()
    if not project.is_dir():
        return _fail(f"project directory {str(args.project_dir)!r} does not exist")
    target = project / ".claude" / "settings.json"
    if target.exists() and not args.force:
        return _fail(f"{target} already exists; use --force to overwrite it", 1)
    try:
        text = default_settings_text(project)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except (OSError, ValueError) as exc:
        return _fail(f"cannot write {target}: {exc}", 1)
    print(f"wrote {target} (from {packaged_default_settings()})")
    return 0


def _hidden_alias(p: argparse.ArgumentParser, old: str, dest: str) -> None:
    # The former spelling still works; the help shows only the one every command uses.
    p.add_argument(old, dest=dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def add_server_commands(sub: Any) -> None:
    """Register ``serve`` and ``init`` on the ``agent-server`` parser."""
    p = sub.add_parser("serve", help="run the agent server (settings: AGENT_SERVER_* variables)")
    p.add_argument("--host", help="interface to bind (AGENT_SERVER_HOST, default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (AGENT_SERVER_PORT, default 8765)")
    p.add_argument("--project-dir", metavar="DIR", help="project directory (AGENT_SERVER_PROJECT_DIR, default: cwd)")
    _hidden_alias(p, "--project", "project_dir")
    p.add_argument("--backend", choices=["scripted", "anthropic"], help="model backend")
    p.add_argument("--env", choices=["production", "development"], help="AGENT_SERVER_ENV")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("init", help="write a default .claude/settings.json into the project")
    p.add_argument("--project-dir", metavar="DIR", default=".", help="project directory (default: cwd)")
    _hidden_alias(p, "--project", "project_dir")
    p.add_argument("--force", action="store_true", help="overwrite an existing settings file")
    p.set_defaults(func=cmd_init)
