"""Build the server's HookRunner: the project's settings files, or — when the project has
no ``.claude/settings.json`` — the packaged default settings, with hook paths resolved to
the repository's (or package's) ``hooks/`` folder."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agent_server._datadir import make_data_dir
from agent_server.hooks import (
    ConfigIssue,
    HookLedger,
    HookRunner,
    TrustPolicy,
    TrustStore,
    default_files,
    load_files,
    permissions_trusted,
    settings_root,
)

from ._settings import Settings

__all__ = [
    "build_runner",
    "default_settings_text",
    "hooks_dir",
    "hooks_summary",
    "packaged_default_settings",
    "secrets_redactor",
]

log = logging.getLogger("agent_server.server")

HOOKS_DIR_PLACEHOLDER = "${AGENT_SERVER_HOOKS_DIR}"
_PROJECT_HOOKS = re.compile(r'\$(?:\{CLAUDE_PROJECT_DIR\}|CLAUDE_PROJECT_DIR)("?)/hooks/')
# The engine's Python-hook form; the module is relative to <project>/.claude/hooks/.
_UNREDACTABLE = "[not recorded: the secrets rules (hooks/security/secrets_guard.py) could not be loaded]"
_LAUNCHER = re.compile(r"^(\s*(?:uv\s+run\s+)?(?:python3?|python)\s+hook_launcher\.py\s+)(\S+)(.*)$", re.S)


def hooks_dir() -> Path | None:
    """The ready-made hooks folder: the repository's ``hooks/`` next to the package, or
    ``agent_server/defaults/hooks`` when installed with the hooks as package data."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package.parent / "hooks", package / "defaults" / "hooks"):
        if candidate.is_dir():
            return candidate
    return None


def secrets_redactor() -> Callable[[str], str]:
    """``redact`` of the shipped secrets hook (``hooks/security/secrets_guard.py``: one set
    of rules for hook, spans and ledger); when it cannot be loaded, a function that records
    a note instead of the text (never the text unredacted)."""
    folder = hooks_dir()
    path = folder / "security" / "secrets_guard.py" if folder is not None else None
    try:
        assert path is not None and path.is_file(), "no shipped hooks folder"
        spec = importlib.util.spec_from_file_location("agent_server_secrets_guard", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        redact: Callable[[str], str] = module.redact
        return redact
    except Exception:
        log.warning("cannot load the secrets rules from %s; content is not recorded", path, exc_info=True)
        return lambda _text: _UNREDACTABLE


def packaged_default_settings() -> Path:
    """The default settings file: the repo's ``hooks/settings.default.json`` if present,
    else the packaged copy ``agent_server/defaults/settings.json``."""
    folder = hooks_dir()
    if folder is not None and (folder / "settings.default.json").is_file():
        return folder / "settings.default.json"
    return Path(__file__).resolve().parent.parent / "defaults" / "settings.json"


def default_settings_text(project_dir: Path) -> str:
    """The default settings with hook paths resolved to :func:`hooks_dir`:
    ``${AGENT_SERVER_HOOKS_DIR}``; ``$CLAUDE_PROJECT_DIR/hooks/`` when the project has no
    ``hooks/`` folder of its own; and ``python hook_launcher.py MODULE`` when MODULE is not
    in the project's ``.claude/hooks/`` but is in the hooks folder."""
    text = packaged_default_settings().read_text(encoding="utf-8")
    folder = hooks_dir()
    if folder is None:
        return text
    data: Any = json.loads(text)
    own = (project_dir / "hooks").is_dir()
    project_hooks = project_dir / ".claude" / "hooks"

    def launcher(m: re.Match[str]) -> str:
        module = m.group(2)
        if os.path.isabs(module) or (project_hooks / module).exists() or not (folder / module).exists():
            return m.group(0)
        return f"{m.group(1)}{shlex.quote(str(folder / module))}{m.group(3)}"

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            value = value.replace(HOOKS_DIR_PLACEHOLDER, str(folder))
            if not own:
                value = _PROJECT_HOOKS.sub(lambda m: f"{folder}{m.group(1)}/", value)
            return _LAUNCHER.sub(launcher, value)
        if isinstance(value, list):
            return [fix(v) for v in value]
        if isinstance(value, dict):
            return {k: fix(v) for k, v in value.items()}
        return value

    return json.dumps(fix(data), indent=2) + "\n"


def build_runner(settings: Settings, tracer_provider: Any = None, meter_provider: Any = None) -> HookRunner:
    """A HookRunner for the settings of ``settings.project_dir`` (not yet entered), its spans
    and metrics going to the given providers (None: the global ones); the hooks' project
    (``CLAUDE_PROJECT_DIR``, ``.claude/hooks/``) is :func:`settings_root`."""
    launch = settings.project_dir.resolve()
    project = settings_root(launch)
    user = Path.home() / ".claude" / "settings.json" if settings.read_user_settings else None
    managed_env = os.environ.get("AGENT_SERVER_MANAGED_SETTINGS")
    managed = Path(managed_env) if managed_env else None
    files = default_files(project, user, managed)
    project_file = project / ".claude" / "settings.json"
    if settings.default_settings_fallback and not project_file.exists() and hooks_dir() is None:
        log.warning(
            "no %s and no hooks/ folder with the default hooks: running without default "
            "hooks (run `agent-server init` to create settings)",
            project_file,
        )
    elif settings.default_settings_fallback and not project_file.exists():
        resolved = settings.data_path / "default-settings.json"
        make_data_dir(resolved.parent)
        resolved.write_text(default_settings_text(project), encoding="utf-8")
        # The shipped defaults are trusted like user settings ("default" is not a project role).
        files = [(resolved, "default") if path == project_file else (path, role) for path, role in files]
        log.info("no %s: using the packaged default hooks (%s)", project_file, resolved)
    store = TrustStore()

    def allow_trusted(source: str, rules: Sequence[str]) -> bool:
        # The project's own permissions.allow rules follow the hooks' trust, asked at each
        # use (one stat of the store), so `hooks trust` applies without a restart.
        if settings.trust_all_hooks:
            return True
        store.refresh()
        return permissions_trusted(project, source, rules, store=store)

    config = load_files(project, files, project_trusted=allow_trusted)
    if project != launch:
        for name in ("settings.json", "settings.local.json"):
            unread = launch / ".claude" / name
            if unread.is_file():
                config.issues.append(
                    ConfigIssue(
                        str(unread),
                        "",
                        f"not read: the server started inside the git repository {project}, whose "
                        ".claude/ holds the project settings (as in Claude Code)",
                        "warning",
                        f"move its settings to {project / '.claude' / name}",
                    )
                )
    for issue in config.issues:
        (log.error if issue.severity == "error" else log.warning)("hook config %s", issue)
    if settings.hooks_order is not None:
        config.default_order = settings.hooks_order
        config.order.clear()
    options: dict[str, Any] = {}
    if settings.hook_ledger:
        db = settings.data_path / "hooks.db"  # the engine's audit ledger
        days = settings.hook_ledger_retention_days
        retention = None if days is None else days * 86400.0
        if settings.ledger_url is not None:  # (records wait in the data folder while it is unreachable)
            journals = settings.data_path / "ledger.pending"
            options["ledger"] = HookLedger(settings.ledger_url, journal_dir=journals, retention=retention)
        else:  # with a retention the ledger is built here; the lifespan closes it after the runner
            options["ledger"] = db if days is None else HookLedger(db, retention=retention)
        if settings.ledger_tool_input:  # (opt-in: tool input may hold what the rules miss)
            options["ledger_tool_input"] = secrets_redactor()
    # Project hooks run once trusted (the user's trust store), or all of them on request.
    trust: TrustPolicy = "all" if settings.trust_all_hooks else "store"
    return HookRunner(config, trust=trust, tracer_provider=tracer_provider, meter_provider=meter_provider, **options)


def hooks_summary(runner: HookRunner, project_dir: Path) -> list[str]:
    """What ``serve`` prints at startup: the files read, one line per event (how many
    hooks, how many were ignored), and the command that lists them all."""
    config = runner.config
    ignored: dict[str, int] = {}
    for entry in config.ignored:
        ignored[entry.event] = ignored.get(entry.event, 0) + 1
    events = sorted(set(runner.events) | set(ignored))
    total = sum(len(runner.hooks_for(e)) for e in events)
    files = ", ".join(config.files) or "no settings files"
    lines = [f"hooks: {total} from {files}" + (" (disableAllHooks)" if config.disabled else "")]
    for event in events:
        count = len(runner.hooks_for(event))
        line = f"  {event}: {count} hook{'' if count == 1 else 's'}"
        if ignored.get(event):
            line += f", {ignored[event]} ignored"
        lines.append(line)
    problems = len(config.errors)
    if problems:
        lines.append(f"  {problems} configuration error{'' if problems == 1 else 's'} (logged above)")
    lines.append(f"  full list: agent-server hooks list --project-dir {shlex.quote(str(project_dir))}")
    return lines
