"""Permission rules from settings files: ``"permissions": {"allow"|"ask"|"deny": [rules]}``.

Claude Code's rule syntax (contract §12): ``Tool`` (every call of the tool),
``Tool(specifier)``, ``mcp__server`` / ``mcp__server__tool`` / ``mcp__server__*``.

- ``Bash(npm run *)``: the command, with Claude Code's wildcards (a lone trailing `` *``
  or ``:*`` is a word-bounded, optional rest); compound commands (``a && b``, ``a | b``)
  are checked part by part.
- ``Read(./.env)``, ``Edit(src/**)``, ``Write(...)``: a path, gitignore-style: ``//abs``,
  ``~/in-home``, ``/from-project-root``, ``./from-cwd`` or plain (from the cwd; without an
  inner ``/`` at any depth). ``Read`` rules also cover Glob and Grep, ``Edit`` rules every
  tool that changes files.
- ``WebFetch(domain:*.example.com)``: the URL's host.
- ``Task(Explore)``: the subagent type.

Rules from every settings file are merged; for a call, deny beats ask beats allow.
A project's own ``allow`` rules (``.claude/settings.json``,
``.claude/settings.local.json``) apply only once the project is trusted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from ._errors import ConfigIssue
from ._match_rules import glob_matches, path_glob_matches, pattern_argument, tool_names

__all__ = [
    "AllowTrust",
    "PermissionBehavior",
    "PermissionDecision",
    "PermissionRule",
    "PermissionRules",
    "WaitingAllow",
    "read_permissions",
    "split_command",
]

PermissionBehavior = Literal["allow", "ask", "deny"]
#: Precedence: the first behaviour with a matching rule decides.
PRECEDENCE: tuple[PermissionBehavior, ...] = ("deny", "ask", "allow")

#: Tools a path rule covers, by the rule's tool name.
PATH_RULE_TOOLS: Mapping[str, tuple[str, ...]] = {
    "Read": ("Read", "Glob", "Grep"),
    "Edit": ("Edit", "Write", "MultiEdit", "NotebookEdit"),
}
_PATH_TOOLS = frozenset(t for tools in PATH_RULE_TOOLS.values() for t in tools)
_TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_MCP_NAME = re.compile(r"^mcp__[A-Za-z0-9_*-]+$")
_KNOWN_TOOLS = (
    *("Agent", "Bash", "Edit", "Glob", "Grep", "LS", "MultiEdit", "NotebookEdit", "NotebookRead", "Read"),
    *("Skill", "Task", "TodoWrite", "WebFetch", "WebSearch", "Write"),
)
_KNOWN_KEYS = {"allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"}
#: Why a project's ``allow`` rule does not apply (yet).
UNTRUSTED_WHY = "this workspace has not been trusted: run 'agent-server hooks trust'"
#: Settings roles whose ``allow`` rules wait for the project to be trusted.
PROJECT_ROLES = frozenset({"project", "local"})
#: Whether a project's ``allow`` rules apply: for the whole project, or per file
#: (``(source, allow rules as written) -> bool``).
AllowTrust = bool | Callable[[str, Sequence[str]], bool]


def parse_rule(text: str) -> tuple[str, str | None]:
    """Split a rule into its tool name and specifier; ValueError says what is wrong."""
    rule = text.strip()
    if not rule:
        raise ValueError("the rule is empty")
    open_at = rule.find("(")
    close_at = rule.rfind(")")
    if open_at < 0:
        if close_at >= 0:
            raise ValueError(f"unbalanced parentheses in {text!r}: ')' without '('")
        tool, spec = rule, None
    else:
        if close_at < open_at:
            raise ValueError(f"unbalanced parentheses in {text!r}: '(' is never closed")
        if rule[close_at + 1 :].strip():
            raise ValueError(f"unexpected text after ')' in {text!r}")
        tool, spec = rule[:open_at].strip(), rule[open_at + 1 : close_at]
        depth = 0
        for ch in spec:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth < 0:
                break
        if depth != 0:
            raise ValueError(f"unbalanced parentheses in {text!r}")
        if not spec.strip():
            raise ValueError(f"empty parentheses in {text!r}: write {tool!r} for every call of the tool")
    if tool.startswith("mcp__"):
        if not _MCP_NAME.match(tool):
            raise ValueError(f"{tool!r} is not an MCP rule (mcp__server, mcp__server__tool or mcp__server__*)")
        if spec is not None:
            raise ValueError(f"MCP rules take no specifier: write {tool!r} without parentheses")
        return tool, None
    if not _TOOL_NAME.match(tool):
        raise ValueError(
            f"{rule!r} is not a permission rule: expected Tool or Tool(specifier), e.g. Bash, "
            "Bash(npm run *), Read(./.env), WebFetch(domain:example.com), mcp__server__tool"
        )
    if tool == "WebFetch" and spec is not None and not spec.startswith("domain:"):
        raise ValueError(f"WebFetch rules name a host: WebFetch(domain:example.com), got {text!r}")
    return tool, spec


def split_command(command: str) -> list[str]:
    """The simple commands of a shell command line, split at ``;``, ``&``, ``&&``,
    ``|``, ``||`` and newlines outside quotes (best effort: no substitutions)."""
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(command):
        ch = command[i]
        if quote is not None:
            current.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < len(command):
                current.append(command[i + 1])
                i += 1
            elif ch == quote:
                quote = None
        elif ch == "\\" and i + 1 < len(command):
            current.append(ch + command[i + 1])
            i += 1
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif ch in ";&|\n":
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _file_of(tool_name: str, tool_input: Any) -> str | None:
    if not isinstance(tool_input, Mapping):
        return None
    keys = ("path",) if tool_name in ("Glob", "Grep") else ("file_path", "notebook_path")
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


@dataclass(frozen=True)
class PermissionRule:
    """One rule as written, and where it was written (``source`` file, JSON ``location``)."""

    behavior: PermissionBehavior
    text: str
    tool: str
    specifier: str | None = None
    source: str = ""
    location: str = ""
    role: str = ""

    @classmethod
    def parse(
        cls, behavior: PermissionBehavior, text: str, *, source: str = "", location: str = "", role: str = ""
    ) -> PermissionRule:
        """A rule from its text; ValueError says what is wrong with it."""
        tool, spec = parse_rule(text)
        return cls(behavior, text.strip(), tool, spec, source, location, role)

    @property
    def bare(self) -> bool:
        """A rule on every call of its tool (no specifier)."""
        return self.specifier is None

    @property
    def file_rule(self) -> bool:
        """A rule on file tools (``Read``, ``Edit``, ``Write`` …): paths, gitignore-style."""
        return self.tool in _PATH_TOOLS

    def names_tool(self, tool_name: str) -> bool:
        """Whether the rule is about ``tool_name`` itself (not a tool it also covers)."""
        if self.tool.startswith("mcp__"):
            if "*" in self.tool:
                return glob_matches(self.tool, tool_name)
            return tool_name == self.tool or (self.tool.count("__") == 1 and tool_name.startswith(self.tool + "__"))
        return self.tool in tool_names(tool_name)

    def covers(self, tool_name: str) -> bool:
        """Whether the rule applies to calls of ``tool_name`` (a ``Read`` rule also
        covers Glob and Grep, an ``Edit`` rule every tool that changes files)."""
        return self.names_tool(tool_name) or tool_name in PATH_RULE_TOOLS.get(self.tool, ())

    def matches(self, tool_name: str, tool_input: Any, *, cwd: Path, project_dir: Path) -> bool:
        """Whether the rule applies to this call. A Bash pattern matches when the whole
        command or any of its parts (``a && b``) matches."""
        if not self.covers(tool_name):
            return False
        spec = self.specifier
        if spec is None or spec in ("*", "**"):
            return True
        if self.file_rule and tool_name in _PATH_TOOLS:
            return self._path_matches(tool_name, tool_input, cwd, project_dir)
        if tool_name == "Bash":
            command = pattern_argument(tool_name, tool_input)
            return any(glob_matches(spec, c) for c in (command, *split_command(command)))
        if tool_name == "WebFetch":
            url = tool_input.get("url") if isinstance(tool_input, Mapping) else None
            host = urlsplit(url).hostname if isinstance(url, str) else None
            return host is not None and glob_matches(spec.removeprefix("domain:").lower(), host.lower())
        if tool_name in ("Agent", "Task") and isinstance(tool_input, Mapping):
            return glob_matches(spec, str(tool_input.get("subagent_type", "general-purpose")))
        return glob_matches(spec, pattern_argument(tool_name, tool_input))

    def matches_each_part(self, tool_name: str, tool_input: Any, *, cwd: Path, project_dir: Path) -> list[bool]:
        """For a Bash command: whether the rule matches each of its parts (an ``allow``
        must cover every part); for other tools a one-element list."""
        if tool_name != "Bash" or self.specifier is None or not self.covers(tool_name):
            return [self.matches(tool_name, tool_input, cwd=cwd, project_dir=project_dir)]
        parts = split_command(pattern_argument(tool_name, tool_input)) or [""]
        return [glob_matches(self.specifier, p) for p in parts]

    def _path_matches(self, tool_name: str, tool_input: Any, cwd: Path, project_dir: Path) -> bool:
        raw = _file_of(tool_name, tool_input)
        if raw is None:
            return False
        path = Path(os.path.expanduser(raw))
        if not path.is_absolute():
            path = cwd / path
        candidates = {os.path.normpath(path), os.path.realpath(path)}
        spec = self.specifier or ""
        # Claude Code's four path forms; a leading "/" in the pattern anchors it.
        if spec.startswith("//"):
            base, pattern = Path("/"), spec[1:]
        elif spec.startswith("~/"):
            base, pattern = Path.home(), spec[1:]
        elif spec.startswith("/"):
            base, pattern = project_dir, spec
        elif spec.startswith("./"):
            base, pattern = cwd, spec[1:]
        else:
            base, pattern = cwd, spec
        bases = {os.path.normpath(base), os.path.realpath(base)}
        return any(path_glob_matches(pattern, os.path.relpath(c, b)) for c in candidates for b in bases)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: behaviour, rule text, file and JSON path."""
        return {
            "behavior": self.behavior,
            "rule": self.text,
            "tool": self.tool,
            "specifier": self.specifier,
            "source": self.source,
            "location": self.location,
        }


@dataclass(frozen=True)
class PermissionDecision:
    """What the rules say about one call: ``behavior`` is None when no rule matched."""

    behavior: PermissionBehavior | None = None
    rule: PermissionRule | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``rule`` is the deciding rule's :meth:`PermissionRule.to_dict`)."""
        return {"behavior": self.behavior, "rule": None if self.rule is None else self.rule.to_dict()}


@dataclass(frozen=True)
class IgnoredPermission:
    """A configured rule that does not apply, and why."""

    rule: PermissionRule
    why: str


@dataclass
class WaitingAllow:
    """A project file's ``allow`` rules, in effect only while ``check`` says the file's
    rules are trusted (asked again at each use, so trusting takes effect at once)."""

    source: str
    texts: tuple[str, ...]
    rules: list[PermissionRule]
    check: Callable[[str, Sequence[str]], bool] | None = None

    def trusted(self) -> bool:
        """Whether these rules apply now."""
        return self.check is not None and self.check(self.source, self.texts)


@dataclass
class PermissionRules:
    """Every permission rule, merged across the settings files in load order: ``rules``
    always apply; ``waiting`` (a project's own ``allow`` rules) once trusted."""

    rules: list[PermissionRule] = field(default_factory=list)
    waiting: list[WaitingAllow] = field(default_factory=list)

    def in_effect(self) -> list[PermissionRule]:
        """The rules that apply now."""
        trusted = [r for w in self.waiting if w.trusted() for r in w.rules]
        return [*self.rules, *trusted] if trusted else self.rules

    @property
    def ignored(self) -> list[IgnoredPermission]:
        """The rules that wait for trust, and why."""
        return [IgnoredPermission(r, UNTRUSTED_WHY) for w in self.waiting if not w.trusted() for r in w.rules]

    def of(self, behavior: PermissionBehavior) -> list[PermissionRule]:
        """The rules of one behaviour in effect now."""
        return [r for r in self.in_effect() if r.behavior == behavior]

    def removed_by(self, tool_name: str) -> PermissionRule | None:
        """The bare ``deny`` rule that removes ``tool_name`` from the session, if any."""
        for rule in self.rules:  # (deny rules never wait for trust)
            if rule.behavior == "deny" and rule.bare and rule.names_tool(tool_name):
                return rule
        return None

    def path_denied(self, tool_name: str, tool_input: Any, *, cwd: Path, project_dir: Path) -> PermissionRule | None:
        """The ``deny`` path rule (``Read(./.env)``, ``Edit(src/**)``) this file call hits."""
        if tool_name not in _PATH_TOOLS:
            return None
        for rule in self.rules:  # (deny rules never wait for trust)
            if (
                rule.behavior == "deny"
                and rule.file_rule
                and rule.matches(tool_name, tool_input, cwd=cwd, project_dir=project_dir)
            ):
                return rule
        return None

    def decide(self, tool_name: str, tool_input: Any, *, cwd: Path, project_dir: Path) -> PermissionDecision:
        """deny > ask > allow. An ``allow`` for a compound Bash command needs every part
        allowed (``npm run x && rm -rf y`` is not allowed by ``Bash(npm run *)``)."""
        rules = self.in_effect()
        for behavior in ("deny", "ask"):
            for rule in rules:
                if rule.behavior == behavior and rule.matches(tool_name, tool_input, cwd=cwd, project_dir=project_dir):
                    return PermissionDecision(rule.behavior, rule)
        allows = [r for r in rules if r.behavior == "allow"]
        covered: list[PermissionRule | None] = []
        for rule in allows:
            hits = rule.matches_each_part(tool_name, tool_input, cwd=cwd, project_dir=project_dir)
            if not covered:
                covered = [None] * len(hits)
            for i, hit in enumerate(hits[: len(covered)]):
                if hit and covered[i] is None:
                    covered[i] = rule
        if covered and all(r is not None for r in covered):
            return PermissionDecision("allow", covered[0])
        return PermissionDecision()

    def explain(
        self, tool_name: str, tool_input: Any, *, cwd: Path, project_dir: Path
    ) -> list[tuple[PermissionRule, bool]]:
        """Every rule that covers ``tool_name`` (deny, ask, allow), with whether it
        matches this call."""
        covering = sorted(
            (r for r in self.in_effect() if r.covers(tool_name)), key=lambda r: PRECEDENCE.index(r.behavior)
        )
        return [(r, r.matches(tool_name, tool_input, cwd=cwd, project_dir=project_dir)) for r in covering]

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``hooks list --json``."""
        data: dict[str, Any] = {b: [r.to_dict() for r in self.of(b)] for b in ("allow", "ask", "deny")}
        data["ignored"] = [{**i.rule.to_dict(), "why": i.why} for i in self.ignored]
        return data


def _entries(n: int) -> str:
    return f"{n} permissions.allow {'entry' if n == 1 else 'entries'}"


def untrusted_message(count: int, source: str) -> str:
    """The warning for a project's ``allow`` rules while the project is not trusted."""
    return (
        f"Ignoring {_entries(count)} from {source}: this workspace has not been trusted. "
        "Run 'agent-server hooks trust' to review and trust them."
    )


def read_permissions(
    data: Mapping[str, Any], source: str, role: str, rules: PermissionRules, *, project_trusted: AllowTrust = False
) -> list[ConfigIssue]:
    """Add the ``permissions`` rules of one settings file to ``rules``; returns the
    problems found (file, JSON path, what is wrong). A bad rule never stops the others.

    ``project_trusted`` says whether a project file's (role ``project`` or ``local``)
    ``allow`` rules apply: a bool for the whole project, or a function of the file (as
    shown, e.g. ``.claude/settings.json``) and its allow rules as written, asked again at
    each use (trust given later applies at once)."""
    issues: list[ConfigIssue] = []
    section = data.get("permissions")
    if section is None:
        return issues
    if not isinstance(section, Mapping):
        issues.append(
            ConfigIssue(
                source, "permissions", f'must be an object like {{"deny": ["Bash"]}}, got {type(section).__name__}'
            )
        )
        return issues
    for key in section:
        if key not in _KNOWN_KEYS:
            issues.append(ConfigIssue(source, f"permissions.{key}", f"unknown field {key!r} is ignored", "warning"))
        elif key not in PRECEDENCE:
            issues.append(
                ConfigIssue(
                    source, f"permissions.{key}", f"{key!r} is not used by agent-server; it is ignored", "warning"
                )
            )
    gated: list[PermissionRule] = []
    waits = role in PROJECT_ROLES and project_trusted is not True
    for behavior in ("allow", "ask", "deny"):
        entries = section.get(behavior)
        if entries is None:
            continue
        if not isinstance(entries, list):
            issues.append(
                ConfigIssue(source, f"permissions.{behavior}", f"must be a list of rules, got {type(entries).__name__}")
            )
            continue
        for i, text in enumerate(entries):
            location = f"permissions.{behavior}[{i}]"
            if not isinstance(text, str):
                issues.append(ConfigIssue(source, location, f"a rule must be a string, got {type(text).__name__}"))
                continue
            try:
                rule = PermissionRule.parse(behavior, text, source=source, location=location, role=role)
            except ValueError as exc:
                issues.append(ConfigIssue(source, location, str(exc)))
                continue
            if rule.tool not in _KNOWN_TOOLS and rule.tool.lower() in {t.lower() for t in _KNOWN_TOOLS}:
                issues.append(
                    ConfigIssue(
                        source,
                        location,
                        f"tool names are case-sensitive: {rule.tool!r} matches no tool",
                        "warning",
                        hint=f"did you mean {next(t for t in _KNOWN_TOOLS if t.lower() == rule.tool.lower())!r}?",
                    )
                )
            if behavior == "allow" and waits:
                gated.append(rule)
                continue
            rules.rules.append(rule)
    if gated:
        allow = section.get("allow")
        texts = tuple(r for r in allow if isinstance(r, str)) if isinstance(allow, list) else ()
        check = None if isinstance(project_trusted, bool) else project_trusted
        waiting = WaitingAllow(source, texts, gated, check)
        rules.waiting.append(waiting)
        if not waiting.trusted():
            issues.append(ConfigIssue(source, "permissions.allow", untrusted_message(len(gated), source), "warning"))
    return issues


def merged(
    files: Iterable[tuple[Mapping[str, Any], str, str]], *, project_trusted: AllowTrust = False
) -> PermissionRules:
    """Rules from ``(data, source, role)`` settings in order (issues dropped: for tests
    and hosts that validated the files already)."""
    rules = PermissionRules()
    for data, source, role in files:
        read_permissions(data, source, role, rules, project_trusted=project_trusted)
    return rules
