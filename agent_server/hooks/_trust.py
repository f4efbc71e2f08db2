"""Content-addressed trust for the hooks a project brings with it.

Hooks from a project's own files (``.claude/settings.json``, ``.claude/settings.local.json``,
``.mentu/genesis.key``) run only once the user has trusted them. A hook's identity is the
SHA-256 of its normalised definition **and** the content of every script file inside the
project that its command names, so editing ``.claude/hooks/x.py`` (or a ``git pull`` that
does) makes that hook untrusted again, and only that hook. User-level and managed settings,
the shipped defaults and in-process callbacks are always trusted.

The trust store is one JSON file under the user's config directory
(``$XDG_CONFIG_HOME/agent-server/trusted-hooks.json``, default ``~/.config/...``), never in
the project; it is written atomically. A store that cannot be read or parsed is reported
and counts as "nothing trusted".
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import os
import shlex
import stat
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ._config import HookConfig, settings_root
from ._errors import HookError
from ._spec import HookSpec

__all__ = [
    "TRUST_ALL_ENV",
    "UNTRUSTED_REASON",
    "HookTrust",
    "TrustError",
    "TrustItem",
    "TrustPolicy",
    "TrustStore",
    "default_trust_policy",
    "permissions_trusted",
    "trust_store_path",
]

log = logging.getLogger("agent_server.hooks")

#: The reason an untrusted hook is skipped with (outcome, ledger, ``hooks list``/``explain``).
UNTRUSTED_REASON = "untrusted: run 'agent-server hooks trust'"
#: ``AGENT_SERVER_TRUST_ALL_HOOKS=1`` trusts every hook (CI, containers, throwaway sandboxes).
TRUST_ALL_ENV = "AGENT_SERVER_TRUST_ALL_HOOKS"

TrustPolicy = Literal["store", "all"]

_STORE_VERSION = 1
_CHUNK = 1 << 16
# Every field of a hook's definition is hashed except where it sits in its file (moving
# an entry keeps its trust) and what is derived or not data: a change to anything else —
# command, matcher, timeout, URL, headers, prompt, a field added later — asks again.
_NOT_HASHED = frozenset({"location", "callback", "argv"})


class TrustError(HookError):
    """Trust cannot be established or recorded; ``str()`` names the file and the problem."""


def trust_all_from_env() -> bool:
    """Whether ``AGENT_SERVER_TRUST_ALL_HOOKS`` asks to trust every hook."""
    return os.environ.get(TRUST_ALL_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def default_trust_policy() -> TrustPolicy:
    """``"all"`` when ``AGENT_SERVER_TRUST_ALL_HOOKS=1``, else ``"store"`` (the default:
    a project's hooks run once trusted in the user's trust store)."""
    return "all" if trust_all_from_env() else "store"


def trust_store_path() -> Path:
    """``$XDG_CONFIG_HOME/agent-server/trusted-hooks.json`` (``~/.config`` by default)."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".config"
    return root / "agent-server" / "trusted-hooks.json"


# -- fingerprints ------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _canonical(value: Any) -> bytes:
    return json.dumps(_jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def hash_file(path: Path) -> str:
    """SHA-256 of a regular file's content; :class:`TrustError` when it is not a regular
    file, cannot be read, or changes while it is read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise TrustError(f"cannot read hook script {path}: {exc.strerror}") from None
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise TrustError(f"hook script {path} is not a regular file")
        digest = hashlib.sha256()
        size = 0
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
            size += len(chunk)
        after = os.fstat(fd)
    except OSError as exc:
        raise TrustError(f"cannot read hook script {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    # A write during the read shows in the size or times: what was hashed may be a mix.
    if _signature(before) != _signature(after) or size != after.st_size:
        raise TrustError(f"hook script {path} changed while it was being hashed; try again")
    return digest.hexdigest()


def _signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@functools.lru_cache(maxsize=1024)
def _words(command: str) -> tuple[str, ...]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return tuple(lexer)
    except ValueError:
        return tuple(command.split())


@dataclass(frozen=True)
class _Named:
    """A path a hook names that lies inside the project."""

    shown: str  # relative to the project
    path: Path
    outside: str | None = None  # where it really points, when that is outside the project


def candidate_paths(spec: HookSpec, project_dir: Path) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Per word of ``spec``'s command that could name a file inside the project: the
    ``(shown, path)`` places it may refer to, in lookup order (string work only, no I/O)."""
    if spec.kind not in ("command", "exec", "python"):
        return ()  # (callbacks, built-ins, URLs and prompts name no scripts)
    words = list(spec.argv) if spec.kind == "exec" and spec.argv else list(_words(spec.command))
    root = str(project_dir)
    hooks_dir = os.path.join(root, ".claude", "hooks")
    bases = [root]
    if spec.kind == "python" or spec.cwd_mode == "hooks_dir":
        bases.insert(0, hooks_dir)
    if spec.module:
        words.append(spec.module)
        bases.append(hooks_dir)
    out = []
    for word in words:
        expanded = os.path.expanduser(word.replace("${CLAUDE_PROJECT_DIR}", root).replace("$CLAUDE_PROJECT_DIR", root))
        if not expanded or expanded.startswith("-") or "$" in expanded:
            continue
        places = [expanded] if os.path.isabs(expanded) else [os.path.join(b, expanded) for b in bases]
        options = []
        for place in places:
            lexical = os.path.normpath(place)
            shown = os.path.relpath(lexical, root)
            if shown == "." or shown == ".." or shown.startswith("../"):
                continue  # not inside the project: not the project's to vouch for
            options.append((shown, lexical))
        if options:
            out.append(tuple(options))
    return tuple(out)


def named_files(
    spec: HookSpec, project_dir: Path, candidates: tuple[tuple[tuple[str, str], ...], ...] | None = None
) -> list[_Named]:
    """The files inside ``project_dir`` that ``spec``'s command names (its scripts)."""
    found: dict[str, _Named] = {}
    real_project = os.path.realpath(project_dir)
    for options in candidate_paths(spec, project_dir) if candidates is None else candidates:
        for shown, lexical in options:
            if shown in found or not os.path.lexists(lexical):
                continue
            real = os.path.realpath(lexical)
            if real != real_project and not real.startswith(real_project + os.sep):
                found[shown] = _Named(shown, Path(lexical), outside=real)
                break
            if os.path.isfile(real):
                found[shown] = _Named(shown, Path(real))
                break
    return list(found.values())


@dataclass
class TrustItem:
    """One thing that needs trust: a project hook (or a project's ``permissions.allow``).

    ``id`` is the first 12 hex digits of ``digest`` (what ``hooks trust ID`` takes);
    ``problem`` is set when it cannot be trusted at all (a script that is a symlink out of
    the project, unreadable, changing while hashed).
    """

    kind: Literal["hook", "permissions"]
    source: str
    location: str
    event: str
    command: str
    definition: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    digest: str = ""
    problem: str | None = None
    trusted: bool = False
    changes: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        """Short content id (12 hex digits)."""
        return self.digest[:12]

    @property
    def reason(self) -> str | None:
        """Why it will not run (None when trusted)."""
        if self.trusted:
            return None
        if self.problem:
            return f"untrusted: {self.problem}"
        return UNTRUSTED_REASON

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``hooks list --json``, ``GET /hooks/trust``)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "event": self.event,
            "command": self.command,
            "source": self.source,
            "location": self.location,
            "files": dict(self.files),
            "trusted": self.trusted,
            "reason": self.reason,
            "problem": self.problem,
            "changes": list(self.changes),
        }


def _definition(spec: HookSpec) -> dict[str, Any]:
    data = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec) if f.name not in _NOT_HASHED}
    if spec.kind == "exec":  # (its argv is the configuration; elsewhere it is derived)
        data["argv"] = list(spec.argv or ())
    return _jsonable(data)  # type: ignore[no-any-return]


def _digest(definition: Mapping[str, Any], files: Mapping[str, str]) -> str:
    return hashlib.sha256(_canonical({"definition": definition, "files": dict(files)})).hexdigest()


def hook_item(
    spec: HookSpec, project_dir: Path, candidates: tuple[tuple[tuple[str, str], ...], ...] | None = None
) -> TrustItem:
    """The trust item of one hook: its definition and its scripts' content hashed."""
    definition = _definition(spec)
    files: dict[str, str] = {}
    problem = None
    for named in named_files(spec, project_dir, candidates):
        if named.outside is not None:
            problem = (
                f"hook script {named.shown} is a symlink out of the project (to {named.outside}); "
                "it cannot be trusted: copy the script into the project"
            )
            break
        try:
            files[named.shown] = hash_file(named.path)
        except TrustError as exc:
            problem = str(exc)
            break
    item = TrustItem("hook", spec.source, spec.location, spec.event, spec.command, definition, files, problem=problem)
    item.digest = _digest(definition, files)
    return item


def permissions_item(source: str, rules: Sequence[str]) -> TrustItem:
    """The trust item of a project file's ``permissions.allow`` list."""
    definition = {"kind": "permissions.allow", "source": source, "allow": list(rules)}
    item = TrustItem("permissions", source, "permissions.allow", "", ", ".join(rules), definition)
    item.digest = _digest(definition, {})
    return item


def _project_allow_rules(project_dir: Path) -> list[tuple[str, list[str]]]:
    found = []
    for rel in (".claude/settings.json", ".claude/settings.local.json"):
        try:
            data = json.loads((project_dir / rel).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # (the config loader reports unreadable files)
        perms = data.get("permissions") if isinstance(data, dict) else None
        allow = perms.get("allow") if isinstance(perms, dict) else None
        if isinstance(allow, list) and allow and all(isinstance(r, str) for r in allow):
            found.append((rel, list(allow)))
    return found


# -- the store -----------------------------------------------------------------------


class TrustStore:
    """The user's trust store: per project directory, the digests the user trusted.

    ``load()`` never raises: a missing file is empty; one that is not valid JSON (or not
    readable) is empty with ``problem`` set, and writing refuses to replace it.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else trust_store_path()
        self.problem: str | None = None
        self._data: dict[str, Any] = {"version": _STORE_VERSION, "projects": {}}
        self._signature: tuple[int, int, int, int] | None = None
        self._loaded = False

    def load(self) -> TrustStore:
        """(Re)read the file; sets ``problem`` when it is unusable."""
        self._loaded = True
        self.problem = None
        self._data = {"version": _STORE_VERSION, "projects": {}}
        try:
            st = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):  # none yet (writing says why it cannot)
            self._signature = None
            return self
        except OSError as exc:
            self.problem = f"trust store {self.path}: cannot read it: {exc.strerror}; nothing is trusted"
            return self
        self._signature = _signature(st)
        try:
            text = self.path.read_text(encoding="utf-8")
            data = json.loads(text)
        except OSError as exc:
            self.problem = f"trust store {self.path}: cannot read it: {exc.strerror}; nothing is trusted"
            return self
        except ValueError as exc:
            self.problem = f"trust store {self.path}: not valid JSON ({exc}); nothing is trusted"
            return self
        projects = data.get("projects") if isinstance(data, dict) else None
        if not isinstance(projects, dict) or not all(
            isinstance(p, dict) and isinstance(p.get("hooks", {}), dict) for p in projects.values()
        ):
            self.problem = (
                f'trust store {self.path}: expected {{"projects": {{DIR: {{"hooks": {{...}}}}}}}}; nothing is trusted'
            )
            return self
        self._data = {"version": _STORE_VERSION, "projects": projects}
        return self

    def refresh(self) -> None:
        """Reload when the file changed since the last read (one ``stat``)."""
        if not self._loaded:
            self.load()
            return
        try:
            sig: tuple[int, int, int, int] | None = _signature(os.stat(self.path))
        except OSError:
            sig = None
        if sig != self._signature:
            self.load()

    def records(self, project_dir: Path) -> dict[str, dict[str, Any]]:
        """Digest → record of what was trusted in ``project_dir``."""
        if not self._loaded:
            self.load()
        entry = self._data["projects"].get(str(project_dir), {})
        hooks = entry.get("hooks", {})
        return hooks if isinstance(hooks, dict) else {}

    def is_trusted(self, project_dir: Path, digest: str) -> bool:
        """Whether ``digest`` is trusted in ``project_dir``."""
        return digest in self.records(project_dir)

    def update(self, project_dir: Path, add: Iterable[TrustItem] = (), remove: Iterable[str] = ()) -> None:
        """Trust ``add`` and forget the digests ``remove``; written atomically.

        Raises :class:`TrustError` (naming the file) when the store is unusable or cannot
        be written; the old file is then left as it was.
        """
        self.load()
        if self.problem:
            raise TrustError(f"{self.problem}: fix or delete the file first")
        projects = dict(self._data["projects"])
        records = dict(projects.get(str(project_dir), {}).get("hooks", {}))
        for digest in remove:
            records.pop(digest, None)
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        for item in add:
            records[item.digest] = {
                "kind": item.kind,
                "event": item.event,
                "command": item.command,
                "source": item.source,
                "location": item.location,
                "definition": item.definition,
                "files": dict(item.files),
                "trusted_at": now,
            }
        if records:
            projects[str(project_dir)] = {"hooks": records}
        else:
            projects.pop(str(project_dir), None)
        data = {"version": _STORE_VERSION, "projects": projects}
        self._write(data)
        self._data = data  # (only once it is on disk)

    def _write(self, data: dict[str, Any]) -> None:
        text = json.dumps(data, indent=1, sort_keys=True) + "\n"
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".trusted-hooks.", dir=folder)
        except OSError as exc:
            raise TrustError(f"trust store {self.path}: cannot write it: {exc.strerror}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)  # readers see the old file or the new one, never half
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise TrustError(f"trust store {self.path}: cannot write it: {exc.strerror}") from None
        self._signature = _signature(os.stat(self.path))


# -- the policy --------------------------------------------------------------------


def _changes(item: TrustItem, records: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """What differs from the last trusted version at the same place (empty: none known)."""
    previous = [
        r for r in records.values() if r.get("source") == item.source and r.get("location") == item.location
    ] or [r for r in records.values() if r.get("source") == item.source and r.get("command") == item.command]
    if not previous:
        return ["never trusted"]
    # (sorted is stable: of two trusted in the same instant, the later-recorded wins)
    last = sorted(previous, key=lambda r: str(r.get("trusted_at", "")))[-1]
    out = []
    old_def = last.get("definition") or {}
    for key in sorted(set(old_def) | set(item.definition)):
        if old_def.get(key) != item.definition.get(key):
            out.append(f"{key}: {json.dumps(old_def.get(key))} -> {json.dumps(item.definition.get(key))}")
    old_files = last.get("files") or {}
    for name in sorted(set(old_files) | set(item.files)):
        if name not in item.files:
            out.append(f"{name}: no longer named")
        elif name not in old_files:
            out.append(f"{name}: newly named script")
        elif old_files[name] != item.files[name]:
            out.append(f"{name}: content changed")
    return out or ["moved or re-ordered"]


class HookTrust:
    """Decides whether each hook may run: the policy a :class:`HookRunner` applies.

    ``policy="store"`` runs a project's hooks only when their current digest is in the
    user's :class:`TrustStore`; ``"all"`` trusts every hook; None (the default) is
    ``"all"`` under ``AGENT_SERVER_TRUST_ALL_HOOKS=1``, else ``"store"``. Script hashes are
    cached per file and recomputed when the file's ``stat`` changes, and the store is
    re-read when it changes, so trusting (or editing a script) takes effect on the next
    fire without a restart.
    """

    def __init__(
        self,
        config: HookConfig,
        policy: TrustPolicy | None = None,
        store: TrustStore | None = None,
    ) -> None:
        self.config = config
        self.project_dir = config.project_dir
        self.policy: TrustPolicy = policy or default_trust_policy()
        self.store = store if store is not None else TrustStore()
        self._cache: dict[int, tuple[tuple[Any, ...], TrustItem]] = {}
        self._candidates: dict[int, tuple[tuple[tuple[str, str], ...], ...]] = {}
        self._reported_problem: str | None = None

    def check_store(self) -> str | None:
        """Re-read the trust store; what is wrong with it, if anything (the caller reports
        it, so firing does not log it again)."""
        self.store.load()
        self._reported_problem = self.store.problem
        return self.store.problem

    def needs_trust(self, spec: HookSpec) -> bool:
        """Whether ``spec`` comes from one of the project's own files."""
        return self.policy != "all" and spec.source in self.config.trust_sources

    def item(self, spec: HookSpec) -> TrustItem:
        """The current :class:`TrustItem` of ``spec``, recomputed only when a file its
        command may name changed (one ``stat`` per such path; ``stat`` follows symlinks,
        so a re-pointed link or directory shows as another file)."""
        candidates = self._candidates.get(id(spec))
        if candidates is None:
            candidates = self._candidates[id(spec)] = candidate_paths(spec, self.project_dir)
        key: list[tuple[int, int, int, int] | None] = []
        for options in candidates:
            for _shown, lexical in options:
                try:
                    key.append(_signature(os.stat(lexical)))
                except OSError:
                    key.append(None)
        signature = tuple(key)
        cached = self._cache.get(id(spec))
        if cached is not None and cached[0] == signature:
            return cached[1]
        item = hook_item(spec, self.project_dir, candidates)
        self._cache[id(spec)] = (signature, item)
        return item

    def reason(self, spec: HookSpec) -> str | None:
        """None when ``spec`` may run, else why not (``untrusted: ...``)."""
        if not self.needs_trust(spec):
            return None
        self.store.refresh()
        if self.store.problem and self.store.problem != self._reported_problem:
            self._reported_problem = self.store.problem
            log.error("%s", self.store.problem)
        try:
            item = self.item(spec)
        except (OSError, RuntimeError) as exc:  # e.g. a symlink loop: refuse, never crash a fire
            return f"untrusted: cannot check its scripts: {exc}"
        if item.problem:
            return f"untrusted: {item.problem}"
        if self.store.is_trusted(self.project_dir, item.digest):
            return None
        return UNTRUSTED_REASON

    def items(self, *, include_permissions: bool = True) -> list[TrustItem]:
        """Every project hook (and ``permissions.allow`` list) with its trust state and,
        for untrusted ones, what changed since the last trusted version."""
        self.store.refresh()
        records = self.store.records(self.project_dir)
        out: list[TrustItem] = []
        seen: set[int] = set()
        for specs in self.config.hooks.values():
            for spec in specs:
                if spec.source not in self.config.trust_sources or id(spec) in seen:
                    continue
                seen.add(id(spec))
                out.append(dataclasses.replace(self.item(spec)))  # (a copy: the cache stays as hashed)
        if include_permissions:
            out += [
                permissions_item(src, rules)
                for src, rules in _project_allow_rules(self.project_dir)
                if src in self.config.trust_sources
            ]
        for item in out:
            item.trusted = self.policy == "all" or (item.problem is None and item.digest in records)
            item.changes = [] if item.trusted else _changes(item, records)
        return out

    def untrusted(self) -> list[TrustItem]:
        """The items that will not run until trusted."""
        return [i for i in self.items() if not i.trusted]

    def trust(self, ids: Iterable[str] = (), *, all_items: bool = False) -> list[TrustItem]:
        """Record trust for the items whose id (or digest prefix) is in ``ids``, or every
        untrusted one; returns what was trusted. :class:`TrustError` names an unknown id,
        an item that cannot be trusted, or a store that cannot be written."""
        items = self.items()
        chosen = self._select(items, ids, all_items)
        blocked = [i for i in chosen if i.problem]
        if blocked and not all_items:
            raise TrustError("; ".join(f"{i.id} ({i.source} {i.location}): {i.problem}" for i in blocked))
        chosen = [i for i in chosen if not i.problem and not i.trusted]
        if chosen:
            self.store.update(self.project_dir, add=chosen)
        return chosen

    def untrust(self, ids: Iterable[str] = (), *, all_items: bool = False) -> list[str]:
        """Forget trust for ``ids`` (digest prefixes; also of items no longer configured),
        or for everything in this project; returns the digests removed."""
        records = self.store.load().records(self.project_dir)
        if all_items:
            gone = list(records)
        else:
            gone = []
            for wanted in ids:
                hits = [d for d in records if d.startswith(wanted.lower())]
                if len(hits) != 1:
                    problem = "matches no trusted item" if not hits else "is ambiguous"
                    raise TrustError(f"id {wanted!r} {problem} in {self.project_dir}")
                gone += hits
        if gone:
            self.store.update(self.project_dir, remove=gone)
        return gone

    @staticmethod
    def _select(items: list[TrustItem], ids: Iterable[str], all_items: bool) -> list[TrustItem]:
        if all_items:
            return [i for i in items if not i.trusted]
        chosen: list[TrustItem] = []
        for wanted in ids:
            hits = [i for i in items if i.digest.startswith(wanted.lower())] if len(wanted) >= 4 else []
            if len(hits) != 1:
                known = ", ".join(i.id for i in items) or "none"
                problem = "matches no configured hook" if not hits else "is ambiguous"
                raise TrustError(
                    f"id {wanted!r} {problem} (the hook or its script may have changed since you listed it; "
                    f"current ids: {known})"
                )
            chosen.append(hits[0])
        return chosen


def permissions_trusted(
    project_dir: str | os.PathLike[str], source: str, rules: Sequence[str], *, store: TrustStore | None = None
) -> bool:
    """Whether a project file's ``permissions.allow`` rules may be used.

    ``source`` is the file relative to the project (``.claude/settings.json`` or
    ``.claude/settings.local.json``); rules from any other file (user, managed) are
    trusted. True under ``AGENT_SERVER_TRUST_ALL_HOOKS=1``, else only when exactly these
    rules were trusted (``agent-server hooks trust`` lists and trusts them with the hooks).
    """
    if trust_all_from_env() or source not in (".claude/settings.json", ".claude/settings.local.json"):
        return True
    project = settings_root(project_dir)  # (the folder whose .claude/ the rules come from)
    return (store or TrustStore()).is_trusted(project, permissions_item(source, rules).digest)
