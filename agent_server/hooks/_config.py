"""Load hook settings from every file and dialect into :class:`HookSpec` lists.

Files, in order (design.md "Configuration dialects"): ``~/.claude/settings.json``,
``<project>/.claude/settings.json``, ``<project>/.claude/settings.local.json``,
``<project>/.mentu/genesis.key`` and an optional managed policy file. Each entry is
validated on its own, so one bad entry or file never stops the rest from loading;
every problem is a :class:`ConfigIssue` naming file, JSON path and what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from ._errors import ConfigIssue
from ._hook_types import check_agent_hook, http_spec, prompt_spec
from ._match_rules import check_matcher, parse_tool_pattern
from ._permissions import AllowTrust, PermissionRules, read_permissions
from ._spec import DEFAULT_TIMEOUTS, KNOWN_EVENTS, TOOL_EVENTS, HookSpec, unique_name

__all__ = [
    "PROJECT_ROLES",
    "HookConfig",
    "IgnoredHook",
    "OrderMode",
    "launcher_path",
    "load_config",
    "load_files",
    "settings_root",
]

OrderMode = Literal["sequential", "parallel"]
#: The settings-file roles whose hooks come with the project (and so need trust).
PROJECT_ROLES = frozenset({"project", "local", "genesis"})
PositiveNumber = Annotated[float, Field(gt=0)]


def launcher_path() -> str:
    """Absolute path of the top-level ``hook_launcher.py`` shipped with the package."""
    import hook_launcher

    return os.path.abspath(hook_launcher.__file__)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ClaudeHookModel(_Strict):
    """One hook inside a Claude Code matcher group."""

    type: str = "command"
    command: str | None = None
    args: list[str] | None = None
    module: str | None = None
    timeout: PositiveNumber | None = None
    if_: str | None = Field(default=None, alias="if")
    onFailure: Literal["block", "ignore", "continue"] | None = None
    async_: bool = Field(default=False, alias="async")
    statusMessage: str | None = None
    warm: bool | None = None
    url: str | None = None
    headers: dict[str, str] | None = None
    allowedEnvVars: list[str] | None = None
    prompt: str | None = None
    model: str | None = None
    name: str | None = Field(default=None, min_length=1, max_length=80)

    @field_validator("args")
    @classmethod
    def _args_name_a_program(cls, v: list[str] | None, info: ValidationInfo) -> list[str] | None:
        # Alone, args[0] is the program; with `command`, empty args are fine.
        if v is not None and not v and not info.data.get("command"):
            raise ValueError("args must name a program: it is empty (or give 'command')")
        return v


class ClaudeGroupModel(_Strict):
    """A Claude Code matcher group: ``{"matcher"?, "hooks": [...]}``."""

    matcher: str | None = None
    hooks: list[dict[str, Any]]


class OrionHookModel(_Strict):
    """Orion's flat entry; timeout in milliseconds."""

    command: str
    timeout: PositiveNumber | None = None
    continueOnError: bool = True
    matcher: str | None = None
    async_: bool = Field(default=False, alias="async")
    name: str | None = Field(default=None, min_length=1, max_length=80)


class HarnessHookModel(_Strict):
    """Harness entry: a file exec'd directly; timeout in milliseconds."""

    path: str
    timeout: PositiveNumber | None = None
    matcher: str | dict[str, Any] | None = None
    continueOnError: bool = True
    name: str | None = Field(default=None, min_length=1, max_length=80)


class GenesisHookModel(_Strict):
    """genesis.key hook: a built-in type with its config."""

    type: Literal["deny", "command", "modify", "approval_gate", "genesis_enforcement", "evidence_capture"]
    matcher: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)


class ActorModel(_Strict):
    """Allowed and denied ``Tool(arg-glob)`` patterns for one actor."""

    allow: list[str] | None = None
    deny: list[str] = Field(default_factory=list)


def _json_keys(model: type[BaseModel]) -> frozenset[str]:
    """The keys ``model`` reads from JSON: each field's alias, else its name."""
    return frozenset(field.alias or name for name, field in model.model_fields.items())


# The keys each kind of entry may carry: exactly what its model reads (one source).
_KNOWN_KEYS = {
    "claude_hook": _json_keys(ClaudeHookModel),
    "claude_group": _json_keys(ClaudeGroupModel),
    "orion": _json_keys(OrionHookModel),
    "harness": _json_keys(HarnessHookModel),
    "genesis": _json_keys(GenesisHookModel),
}

# Past these a timeout is more likely the wrong unit than meant: Claude Code counts
# seconds (its own default is 600 s), Orion and Harness count milliseconds.
_MAX_LIKELY_SECONDS = 600.0
_MIN_LIKELY_MILLISECONDS = 100.0
_UNITS = "Claude Code hooks count seconds; Orion and Harness hooks count milliseconds"


def _duration(seconds: float) -> str:
    if seconds >= 7200:
        return f"{seconds / 3600:.1f} hours"
    if seconds >= 60:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:g} s"


_PY_LAUNCH = re.compile(r"^\s*(?:uv\s+run\s+)?(?:python3?|python)\s+hook_launcher\.py\s+(.+)$")


@dataclass(frozen=True)
class IgnoredHook:
    """A configured entry that will not run, and why (shown by ``hooks list``).

    ``kind`` names the reason for tools (``hooks explain --json``): ``duplicate`` (the same
    command already runs on that event), ``disabled`` (``disableAllHooks`` /
    ``allowManagedHooksOnly``) or ``unsupported`` (a hook type or event this server does
    not run)."""

    event: str
    source: str
    location: str
    command: str
    why: str
    kind: str = "unsupported"


@dataclass
class HookConfig:
    """Everything loaded from a project's settings: hooks per event and what was wrong."""

    project_dir: Path
    hooks: dict[str, list[HookSpec]] = field(default_factory=dict)
    issues: list[ConfigIssue] = field(default_factory=list)
    ignored: list[IgnoredHook] = field(default_factory=list)
    order: dict[str, OrderMode] = field(default_factory=dict)
    default_order: OrderMode = "sequential"
    files: list[str] = field(default_factory=list)
    disabled: bool = False
    genesis_actors: dict[str, ActorModel] = field(default_factory=dict)
    #: ``"hookRunner": {"pythonWorkers": N}``: warm Python workers (None: the default).
    python_workers: int | None = None
    #: Sources (as in ``HookSpec.source``) of the project's own files: their hooks run
    #: only once trusted (``_trust.py``).
    trust_sources: set[str] = field(default_factory=set)
    #: ``"permissions"`` rules merged from every settings file.
    permissions: PermissionRules = field(default_factory=PermissionRules)

    @property
    def errors(self) -> list[ConfigIssue]:
        """Issues of severity ``error``."""
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[ConfigIssue]:
        """Issues of severity ``warning``."""
        return [i for i in self.issues if i.severity == "warning"]

    def order_for(self, event: str) -> OrderMode:
        """Sequential or parallel for ``event``."""
        return self.order.get(event, self.default_order)

    def add(self, spec: HookSpec) -> None:
        """Register ``spec`` unless an identical command already runs on that event."""
        key = spec.dedup_key
        existing = self.hooks.setdefault(spec.event, [])
        if key is not None:
            for other in existing:
                if other.dedup_key == key:
                    self.ignored.append(
                        IgnoredHook(
                            spec.event,
                            spec.source,
                            spec.location,
                            spec.command,
                            f"duplicate of {other.source} {other.location}",
                            "duplicate",
                        )
                    )
                    return
        # Every hook gets its short name here, unique within the event (spans, metrics,
        # the ledger and the CLI tell hooks apart by it).
        existing.append(replace(spec, name=unique_name(spec.display_name, {s.name for s in existing})))


class _Loader:
    def __init__(self, project_dir: Path, config: HookConfig) -> None:
        self.project_dir = project_dir
        self.hooks_dir = project_dir / ".claude" / "hooks"
        self.config = config

    # -- reporting -------------------------------------------------------
    def error(self, file: str, path: str, message: str, hint: str = "") -> None:
        self.config.issues.append(ConfigIssue(file, path, message, "error", hint))

    def warn(self, file: str, path: str, message: str, hint: str = "") -> None:
        self.config.issues.append(ConfigIssue(file, path, message, "warning", hint))

    def check_timeout(self, file: str, path: str, dialect: str, timeout: float | None) -> None:
        """Warn about a timeout that is probably in the wrong unit (it is still used)."""
        if timeout is None:
            return
        if dialect == "claude" and timeout > _MAX_LIKELY_SECONDS:
            self.warn(
                file,
                path,
                f"timeout {timeout:g} is in seconds ({_duration(timeout)}), above Claude Code's "
                f"default of {_MAX_LIKELY_SECONDS:g} s",
                f"if you meant milliseconds, write {timeout / 1000:g}; {_UNITS}",
            )
        elif dialect in ("orion", "harness") and timeout < _MIN_LIKELY_MILLISECONDS:
            self.warn(
                file,
                path,
                f"timeout {timeout:g} is in milliseconds ({timeout / 1000:g} s) in {dialect.title()} hooks",
                f"did you mean seconds? then write {timeout * 1000:g}; {_UNITS}",
            )

    def ignore(self, event: str, file: str, path: str, command: str, why: str) -> None:
        self.config.ignored.append(IgnoredHook(event, file, path, command, why))

    def validation(self, file: str, path: str, exc: ValidationError) -> None:
        for err in exc.errors():
            loc = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
            self.error(file, path + loc, err["msg"])

    def unknown_keys(self, file: str, path: str, data: Mapping[str, Any], kind: str) -> None:
        for key in data:
            if key not in _KNOWN_KEYS[kind]:
                self.warn(file, f"{path}.{key}", f"unknown field {key!r} is ignored")

    # -- settings.json ---------------------------------------------------
    def load_json_file(self, path: Path, managed: bool = False) -> dict[str, Any] | None:
        shown = self.display(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            self.error(shown, "", f"cannot read: {exc.strerror}")
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self.error(shown, f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}")
            return None
        if not isinstance(data, dict):
            self.error(shown, "$", f"settings must be a JSON object, got {type(data).__name__}")
            return None
        self.config.files.append(shown)
        return data

    def display(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.project_dir))
        except ValueError:
            return str(path)

    def read_runner_options(self, shown: str, data: Mapping[str, Any]) -> None:
        opts = data.get("hookRunner")
        if opts is None:
            return
        if not isinstance(opts, dict):
            self.error(shown, "hookRunner", 'must be an object like {"order": "parallel"}')
            return
        workers = opts.get("pythonWorkers")
        if workers is not None:
            if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
                self.error(
                    shown,
                    "hookRunner.pythonWorkers",
                    f"must be a whole number >= 0 (0 runs Python hooks cold), got {workers!r}",
                )
            else:
                self.config.python_workers = workers
        order = opts.get("order")
        if order is None:
            return
        if isinstance(order, str):
            if order not in ("sequential", "parallel"):
                self.error(shown, "hookRunner.order", f"must be 'sequential' or 'parallel', got {order!r}")
            else:
                self.config.default_order = order  # type: ignore[assignment]
        elif isinstance(order, dict):
            for event, mode in order.items():
                if mode not in ("sequential", "parallel"):
                    self.error(shown, f"hookRunner.order.{event}", f"must be 'sequential' or 'parallel', got {mode!r}")
                else:
                    self.config.order[event] = mode
        else:
            self.error(shown, "hookRunner.order", "must be a string or an object of event names")

    def load_settings(self, data: Mapping[str, Any], shown: str) -> None:
        hooks = data.get("hooks")
        if hooks is None:
            return
        if not isinstance(hooks, dict):
            self.error(shown, "hooks", f"must be an object of event names, got {type(hooks).__name__}")
            return
        for event, entries in hooks.items():
            if event not in KNOWN_EVENTS:
                # Kept on purpose: a host may fire its own events.
                self.warn(
                    shown,
                    f"hooks.{event}",
                    f"event {event!r} is not a known Claude Code event; its hooks run only if the host fires it",
                )
            if not isinstance(entries, list):
                self.error(shown, f"hooks.{event}", f"must be a list of hook entries, got {type(entries).__name__}")
                continue
            for i, entry in enumerate(entries):
                path = f"hooks.{event}[{i}]"
                if not isinstance(entry, dict):
                    self.error(shown, path, f"must be an object, got {type(entry).__name__}")
                elif "hooks" in entry:
                    self.claude_group(event, entry, shown, path)
                elif "path" in entry:
                    self.harness(event, entry, shown, path)
                elif "command" in entry:
                    self.orion(event, entry, shown, path)
                else:
                    self.error(
                        shown,
                        path,
                        "cannot tell the dialect: expected 'hooks' (Claude Code), "
                        "'command' (Orion) or 'path' (Harness)",
                    )

    def check_matcher(self, shown: str, path: str, matcher: str | None) -> bool:
        if matcher is None:
            return True
        problem = check_matcher(matcher)
        if problem:
            self.error(shown, path, problem)
            return False
        return True

    def claude_group(self, event: str, entry: dict[str, Any], shown: str, path: str) -> None:
        try:
            group = ClaudeGroupModel.model_validate(entry)
        except ValidationError as exc:
            self.validation(shown, path, exc)
            return
        self.unknown_keys(shown, path, entry, "claude_group")
        if not self.check_matcher(shown, f"{path}.matcher", group.matcher):
            return
        for j, raw in enumerate(group.hooks):
            hpath = f"{path}.hooks[{j}]"
            if not isinstance(raw, dict):
                self.error(shown, hpath, f"must be an object, got {type(raw).__name__}")
                continue
            try:
                hook = ClaudeHookModel.model_validate(raw)
            except ValidationError as exc:
                self.validation(shown, hpath, exc)
                continue
            self.unknown_keys(shown, hpath, raw, "claude_hook")
            if hook.if_ is not None and parse_tool_pattern(hook.if_) is None:
                self.error(shown, f"{hpath}.if", f"not a Tool(arg-glob) pattern: {hook.if_!r}")
                continue
            if hook.if_ is not None and event not in TOOL_EVENTS:
                self.warn(shown, f"{hpath}.if", f"'if' only filters tool events; on {event} it is ignored")
            self.check_timeout(shown, f"{hpath}.timeout", "claude", hook.timeout)
            common: dict[str, Any] = dict(
                event=event,
                dialect="claude",
                source=shown,
                location=hpath,
                matcher=group.matcher,
                if_rule=hook.if_,
                timeout=hook.timeout or DEFAULT_TIMEOUTS["claude"],
                fail_closed=hook.onFailure == "block",
                run_async=hook.async_,
                cwd_mode="session",
                status_message=hook.statusMessage,
                warm=hook.warm,
                name=hook.name or "",
            )
            if hook.type == "python":
                if not hook.module:
                    self.error(shown, f"{hpath}.module", "a python hook needs 'module' (a .py file)")
                    continue
                self.config.add(self.python_spec(hook.module, (), common, shown, hpath))
            elif hook.type in ("http", "prompt", "agent"):
                # Hooks that run no process: their own module checks and builds them.
                build = {"http": http_spec, "prompt": prompt_spec, "agent": check_agent_hook}[hook.type]
                spec = build(hook, common, shown, hpath, self)
                if spec is not None:
                    self.config.add(spec)
            elif hook.type != "command":
                self.error(
                    shown,
                    f"{hpath}.type",
                    f"unknown hook type {hook.type!r}: expected command, http, prompt, agent or python",
                )
            elif hook.args is not None:
                # With `command`, `args` are its arguments (contract §9); alone, args[0] runs.
                program = hook.command or hook.args[0]
                argv = (hook.command, *hook.args) if hook.command else tuple(hook.args)
                where = f"{hpath}.command" if hook.command else f"{hpath}.args[0]"
                self.check_program(shown, where, program, self.project_dir)
                self.config.add(HookSpec(kind="exec", command=shlex.join(argv), argv=argv, **common))
            elif hook.command:
                self.config.add(self.command_spec(hook.command, common, shown, hpath, self.project_dir))
            else:
                self.error(shown, hpath, "a command hook needs 'command' or 'args'")

    def python_spec(
        self, module: str, rest: tuple[str, ...], common: dict[str, Any], shown: str, path: str
    ) -> HookSpec:
        target = Path(os.path.expanduser(module))
        if not target.is_absolute():
            target = self.hooks_dir / target
        if not target.exists():
            self.warn(
                shown,
                path,
                f"python hook module {module!r} not found at {target}",
                "create it, or fix the path (relative to .claude/hooks/)",
            )
        argv = (sys.executable, launcher_path(), module, *rest)
        command = "python hook_launcher.py " + shlex.join((module, *rest))
        return HookSpec(kind="python", command=command, argv=argv, module=module, **common)

    def command_spec(
        self,
        command: str,
        common: dict[str, Any],
        shown: str,
        path: str,
        base: Path,
        resolve_in_hooks_dir: bool = False,
    ) -> HookSpec:
        m = _PY_LAUNCH.match(command)
        if m:
            try:
                words = shlex.split(m.group(1))
            except ValueError:
                words = []
            if words:
                spec = self.python_spec(words[0], tuple(words[1:]), common, shown, path)
                return HookSpec(**{**spec.__dict__, "command": command})
        try:
            words = shlex.split(command)
        except ValueError as exc:
            self.warn(shown, f"{path}.command", f"cannot parse the command line: {exc}")
            words = []
        run = command
        if words and resolve_in_hooks_dir:
            # Orion: a first word naming a file in .claude/hooks/ runs that file.
            candidate = self.hooks_dir / words[0]
            if "/" not in words[0] and candidate.is_file():
                run = shlex.quote(str(candidate)) + command[command.find(words[0]) + len(words[0]) :]
                self.check_program(shown, f"{path}.command", str(candidate), base)
        elif words and "/" in words[0]:
            self.check_program(shown, f"{path}.command", words[0], base)
        argv = ("/bin/sh", "-c", run)
        return HookSpec(kind="command", command=command, argv=argv, **common)

    def check_program(self, shown: str, path: str, program: str, base: Path) -> None:
        expanded = os.path.expandvars(
            program.replace("$CLAUDE_PROJECT_DIR", str(self.project_dir)).replace(
                "${CLAUDE_PROJECT_DIR}", str(self.project_dir)
            )
        )
        if "/" not in expanded:
            return
        target = Path(os.path.expanduser(expanded))
        if not target.is_absolute():
            target = base / target
        if not target.exists():
            self.warn(shown, path, f"hook script {program!r} not found ({target})", "create it or fix the path")
        elif not os.access(target, os.X_OK):
            self.warn(shown, path, f"hook script {target} is not executable", f"chmod +x {shlex.quote(str(target))}")

    def orion(self, event: str, entry: dict[str, Any], shown: str, path: str) -> None:
        try:
            hook = OrionHookModel.model_validate(entry)
        except ValidationError as exc:
            self.validation(shown, path, exc)
            return
        self.unknown_keys(shown, path, entry, "orion")
        self.check_timeout(shown, f"{path}.timeout", "orion", hook.timeout)
        if not self.check_matcher(shown, f"{path}.matcher", hook.matcher):
            return
        common: dict[str, Any] = dict(
            event=event,
            dialect="orion",
            source=shown,
            location=path,
            matcher=hook.matcher,
            timeout=(hook.timeout / 1000.0) if hook.timeout else DEFAULT_TIMEOUTS["orion"],
            fail_closed=not hook.continueOnError,
            run_async=hook.async_,
            cwd_mode="hooks_dir",
            name=hook.name or "",
        )
        self.config.add(self.command_spec(hook.command, common, shown, path, self.hooks_dir, resolve_in_hooks_dir=True))

    def harness(self, event: str, entry: dict[str, Any], shown: str, path: str) -> None:
        try:
            hook = HarnessHookModel.model_validate(entry)
        except ValidationError as exc:
            self.validation(shown, path, exc)
            return
        self.unknown_keys(shown, path, entry, "harness")
        self.check_timeout(shown, f"{path}.timeout", "harness", hook.timeout)
        matcher = hook.matcher if isinstance(hook.matcher, str) else None
        if not self.check_matcher(shown, f"{path}.matcher", matcher):
            return
        program = Path(os.path.expanduser(hook.path))
        if not program.is_absolute():
            program = self.project_dir / program
        self.check_program(shown, f"{path}.path", str(program), self.project_dir)
        self.config.add(
            HookSpec(
                event=event,
                kind="exec",
                command=hook.path,
                argv=(str(program),),
                dialect="harness",
                source=shown,
                location=path,
                matcher=matcher,
                object_matcher=hook.matcher if isinstance(hook.matcher, dict) else None,
                timeout=(hook.timeout / 1000.0) if hook.timeout else DEFAULT_TIMEOUTS["harness"],
                fail_closed=not hook.continueOnError,
                cwd_mode="project",
                name=hook.name or "",
            )
        )

    # -- genesis.key -----------------------------------------------------
    def load_genesis(self, path: Path) -> None:
        shown = self.display(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            self.error(shown, "", f"cannot read: {exc.strerror}")
            return
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1} column {mark.column + 1}" if mark else ""
            self.error(shown, where, f"invalid YAML: {getattr(exc, 'problem', None) or exc}")
            return
        if data is None:
            return
        if not isinstance(data, dict):
            self.error(shown, "$", "genesis.key must be a YAML mapping")
            return
        self.config.files.append(shown)
        actors = (data.get("permissions") or {}).get("actors") if isinstance(data.get("permissions"), dict) else None
        if actors is not None:
            if not isinstance(actors, dict):
                self.error(shown, "permissions.actors", "must be a mapping of actor names")
            else:
                for name, raw in actors.items():
                    try:
                        actor = ActorModel.model_validate(raw or {})
                    except ValidationError as exc:
                        self.validation(shown, f"permissions.actors.{name}", exc)
                        continue
                    for k, pat in enumerate([*(actor.allow or []), *actor.deny]):
                        if parse_tool_pattern(pat) is None:
                            self.error(shown, f"permissions.actors.{name}", f"pattern {k}: not Tool(arg-glob): {pat!r}")
                    self.config.genesis_actors[str(name)] = actor
                self.config.add(
                    HookSpec(
                        event="PreToolUse",
                        kind="builtin",
                        builtin="permissions",
                        command="genesis:permissions",
                        dialect="genesis",
                        source=shown,
                        location="permissions.actors",
                        cwd_mode="project",
                        name="genesis:permissions",
                    )
                )
        hooks = data.get("hooks")
        if hooks is None:
            return
        if not isinstance(hooks, dict):
            self.error(shown, "hooks", "must be a mapping like {pre_tool_use: [...]}")
            return
        for key, entries in hooks.items():
            event = "".join(part.capitalize() for part in str(key).split("_"))
            if event not in KNOWN_EVENTS:
                self.warn(shown, f"hooks.{key}", f"{key!r} ({event}) is not a known event")
            if not isinstance(entries, list):
                self.error(shown, f"hooks.{key}", "must be a list")
                continue
            for i, raw in enumerate(entries):
                hpath = f"hooks.{key}[{i}]"
                try:
                    hook = GenesisHookModel.model_validate(raw)
                except ValidationError as exc:
                    self.validation(shown, hpath, exc)
                    continue
                self.unknown_keys(shown, hpath, raw, "genesis")
                if hook.matcher is not None and parse_tool_pattern(hook.matcher) is None:
                    self.error(shown, f"{hpath}.matcher", f"not a Tool(arg-glob) pattern: {hook.matcher!r}")
                    continue
                common: dict[str, Any] = dict(
                    event=event,
                    dialect="genesis",
                    source=shown,
                    location=hpath,
                    tool_pattern=hook.matcher,
                    cwd_mode="project",
                    config=hook.config,
                    fail_closed=bool(hook.config.get("fail_closed", False)),
                    timeout=float(hook.config.get("timeout", DEFAULT_TIMEOUTS["genesis"])),
                )
                if hook.type == "command":
                    cmd = hook.config.get("command")
                    if not isinstance(cmd, str) or not cmd:
                        self.error(shown, f"{hpath}.config.command", "a command hook needs config.command (a string)")
                        continue
                    self.config.add(self.command_spec(cmd, common, shown, hpath, self.project_dir))
                else:
                    if hook.type == "modify" and not isinstance(hook.config.get("set"), dict):
                        self.error(
                            shown,
                            f"{hpath}.config.set",
                            "a modify hook needs config.set (a mapping of tool_input fields)",
                        )
                        continue
                    self.config.add(
                        HookSpec(
                            kind="builtin",
                            builtin=hook.type,
                            command=f"genesis:{hook.type}",
                            name=f"genesis:{hook.type}@{hpath}",
                            **common,
                        )
                    )


def default_files(project_dir: Path, user_settings: Path | None, managed_file: Path | None) -> list[tuple[Path, str]]:
    """The settings files read for a project, in order, with their role."""
    files: list[tuple[Path, str]] = []
    if user_settings is not None:
        files.append((user_settings, "user"))
    files += [
        (project_dir / ".claude" / "settings.json", "project"),
        (project_dir / ".claude" / "settings.local.json", "local"),
        (project_dir / ".mentu" / "genesis.key", "genesis"),
    ]
    if managed_file is not None:
        files.append((managed_file, "managed"))
    return files


def load_files(
    project_dir: Path, files: Iterable[tuple[Path, str]], *, project_trusted: AllowTrust = False
) -> HookConfig:
    """Load the given ``(path, role)`` files; missing files are simply absent.

    ``project_trusted``: whether the project's own ``permissions.allow`` rules apply (a
    bool, or a function of the file and its rules)."""
    project_dir = project_dir.resolve()
    config = HookConfig(project_dir=project_dir)
    loader = _Loader(project_dir, config)
    managed_only = False
    managed_source: str | None = None
    disabled_by: list[str] = []
    for path, role in files:
        if not path.is_file():
            if role == "managed":
                loader.error(str(path), "", "managed settings file not found")
            continue
        if role in PROJECT_ROLES:
            config.trust_sources.add(loader.display(path))
        if role == "genesis":
            loader.load_genesis(path)
            continue
        data = loader.load_json_file(path)
        if data is None:
            continue
        shown = loader.display(path)
        loader.read_runner_options(shown, data)
        disable = data.get("disableAllHooks", False)
        if not isinstance(disable, bool):
            loader.error(shown, "disableAllHooks", f"must be true or false, got {disable!r}")
            disable = False
        if disable:
            disabled_by.append(shown)
        if role == "managed":
            managed_source = shown
            managed_only = data.get("allowManagedHooksOnly", False) is True
        loader.load_settings(data, shown)
        config.issues += read_permissions(data, shown, role, config.permissions, project_trusted=project_trusted)
    if disabled_by or managed_only:
        # Only the managed file can turn off managed hooks.
        keep_managed = managed_source is not None and managed_source not in disabled_by
        why = (
            f"disableAllHooks in {', '.join(disabled_by)}"
            if disabled_by
            else "allowManagedHooksOnly in the managed settings"
        )
        for event, specs in config.hooks.items():
            kept = [s for s in specs if keep_managed and s.source == managed_source]
            config.ignored += [
                IgnoredHook(event, s.source, s.location, s.command, why, "disabled") for s in specs if s not in kept
            ]
            config.hooks[event] = kept
        config.disabled = bool(disabled_by)
    return config


def settings_root(project_dir: str | os.PathLike[str]) -> Path:
    """The folder whose ``.claude/`` holds a project's settings, found as Claude Code finds
    it: the root of the git repository containing ``project_dir`` (also from a subfolder),
    else ``project_dir`` itself."""
    start = Path(project_dir).resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():  # a directory, or a file in a worktree
            return folder
    return start


def load_config(
    project_dir: str | os.PathLike[str],
    *,
    user_settings: str | os.PathLike[str] | Literal["default"] | None = "default",
    managed_file: str | os.PathLike[str] | None = None,
    project_trusted: AllowTrust = False,
) -> HookConfig:
    """Load every settings file of ``project_dir`` (its :func:`settings_root`, which is
    also the hooks' ``CLAUDE_PROJECT_DIR``).

    ``user_settings="default"`` reads ``~/.claude/settings.json``; pass None to skip it
    (tests, sandboxes). ``managed_file`` defaults to ``$AGENT_SERVER_MANAGED_SETTINGS``.
    ``project_trusted``: whether the project's own ``permissions.allow`` rules apply.
    """
    project = settings_root(project_dir)
    user = (
        (Path.home() / ".claude" / "settings.json")
        if user_settings == "default"
        else (Path(user_settings) if user_settings is not None else None)
    )
    managed_env = os.environ.get("AGENT_SERVER_MANAGED_SETTINGS")
    managed = Path(managed_file) if managed_file is not None else (Path(managed_env) if managed_env else None)
    return load_files(project, default_files(project, user, managed), project_trusted=project_trusted)
