"""Refuse manual changes to files that only the user or a tool should change.

Hook: protected_files
Event: PreToolUse
Matcher: Bash|Write|Edit|MultiEdit|NotebookEdit
Description: Denies Write/Edit/MultiEdit/NotebookEdit of protected project files, and Bash
    commands that modify them (redirections, rm, mv, cp/ln/install destinations, tee,
    truncate, sed -i/perl -i, chmod/chown, dd of=, find -delete; not a chmod that lets nobody
    else write, adds no execute bit and leaves .env files closed, nor a git hook whose whole
    script is in the call's here-document and fetches no code; not rm of a stale .git/*.lock
    nor cp -n of a missing env file, nor an env file made from its template or empty from
    /dev/null (install -m 600 /dev/null .env.test) where it is for tests or does not exist yet,
    then filled in by the same command, nor renaming an env file to a backup name beside it
    (mv .env .env.bak: the only copy is kept)); deleting or moving a protected branch's ref (git
    update-ref -d refs/heads/main, git branch -D/-f main). Default list: .git/,
    .claude/settings.json, .claude/settings.local.json, .claude/hooks/,
    .claude/protected_files.json, .env and .env.* (not .env.example*/.sample*/.template*), and
    lockfiles (package-lock.json, yarn.lock, pnpm-lock.yaml, poetry.lock, Pipfile.lock,
    uv.lock, Cargo.lock, go.sum, Gemfile.lock, composer.lock, bun.lockb). Configure with
    PROTECTED_FILES (colon-separated gitignore-style globs, replaces the defaults) or
    <project>/.claude/protected_files.json ({"patterns": [...], "replace_defaults": false}
    or a plain list, added to the defaults). "!pattern" excludes. Fails closed on
    malformed input.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (os.path.dirname(_HERE), _HERE):  # hooks/ (for _common) and this folder
    if _path not in sys.path:
        sys.path.insert(0, _path)

import _common  # noqa: E402
import _shell  # noqa: E402
from _common import Finding  # noqa: E402
from _shell import Cmd, Word  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "protected_files"
EVENTS = frozenset({"PreToolUse"})
MATCHER = "Bash|Write|Edit|MultiEdit|NotebookEdit"
TOOLS = frozenset({"Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"})
CONFIG_FILE = ".claude/protected_files.json"
LOCKFILES = (
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "Cargo.lock",
    "go.sum",
    "Gemfile.lock",
    "composer.lock",
    "bun.lockb",
    "bun.lock",
    "flake.lock",
    "mix.lock",
    "pubspec.lock",
    "packages.lock.json",
)
DEFAULT_PATTERNS = (
    ".git/",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/hooks/",
    CONFIG_FILE,
    ".env",
    ".env.*",
    "!.env.example*",
    "!.env.sample*",
    "!.env.template*",
    "!.env.*.example",
    "!.env.*.sample",
    "!.env.*.template",
    *LOCKFILES,
)
WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
ALL_ARGS = frozenset({"rm", "rmdir", "unlink", "shred", "truncate", "tee", "mv"})
MODE_FIRST = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl"})
DEST_LAST = frozenset({"cp", "install", "ln", "rsync"})
IN_PLACE = frozenset({"sed", "perl", "ruby", "gsed", "yq"})
_COPY_VALUES = frozenset({"-t", "--target-directory", "-S", "--suffix"})
WRITE_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "shred": frozenset({"-n", "--iterations", "-s", "--size", "--random-source"}),
    "chmod": frozenset({"--reference"}),
    "chown": frozenset({"--reference", "--from"}),
    "chgrp": frozenset({"--reference"}),
    "setfacl": frozenset({"-m", "-x", "-M", "-X"}),
    "cp": _COPY_VALUES,
    "mv": _COPY_VALUES,
    "ln": _COPY_VALUES,
    "install": _COPY_VALUES | {"-m", "--mode", "-o", "--owner", "-g", "--group"},
    "rsync": frozenset({"-e", "--rsh", "--exclude", "--include", "-f", "--filter"}),
    "sed": frozenset({"-e", "--expression", "-f", "--file", "-l"}),
    "gsed": frozenset({"-e", "--expression", "-f", "--file", "-l"}),
    "perl": frozenset({"-e", "-E", "-I", "-M", "-m"}),
    "ruby": frozenset({"-e", "-I", "-r"}),
}


# --------------------------------------------------------------------------- patterns


def _glob_regex(glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            close = glob.find("]", i + 1)
            if close < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1 : close].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = close
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


class Rule:
    """One gitignore-style pattern."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.negated = pattern.startswith("!")
        body = pattern[1:] if self.negated else pattern
        body = body.rstrip("/")
        self.anchored = "/" in body
        self.regex = re.compile(_glob_regex(body.lstrip("/")) + r"\Z")

    def literal_prefix(self) -> str:
        """The pattern up to its first glob character (``.claude/hooks``)."""
        body = self.text.lstrip("!").lstrip("/")
        cut = min((body.index(c) for c in "*?[" if c in body), default=len(body))
        return body[:cut]

    def matches(self, rel: str) -> bool:
        """Whether the project-relative ``rel`` or one of its parent folders matches."""
        parts = rel.split("/")
        for end in range(len(parts), 0, -1):
            candidate = "/".join(parts[:end])
            if self.anchored:
                if self.regex.match(candidate):
                    return True
            elif self.regex.match(parts[end - 1]):
                return True
        return False


@functools.lru_cache(maxsize=256)
def _rule(pattern: str) -> Rule:
    return Rule(pattern)  # compiled once per process (warm launchers call run() many times)


def load_rules(project: str) -> list[Rule]:
    """The protected patterns in force for ``project`` (env, config file, defaults)."""
    env = os.environ.get("PROTECTED_FILES")
    if env is not None:
        return [_rule(p.strip()) for p in env.split(":") if p.strip()]
    patterns = list(DEFAULT_PATTERNS)
    raw = _common.read_text(os.path.join(project, CONFIG_FILE))
    if raw is not None:
        try:
            config: Any = json.loads(raw)
        except ValueError:
            config = None  # a broken config must not unprotect anything: keep the defaults
        extra: Any = config.get("patterns") if isinstance(config, dict) else config
        if isinstance(extra, list) and all(isinstance(p, str) for p in extra):
            if isinstance(config, dict) and config.get("replace_defaults") is True:
                patterns = [CONFIG_FILE]  # the config itself stays protected
            patterns += extra
    return [_rule(p) for p in patterns if p]


def protected_by(path: str, project: str, rules: list[Rule]) -> str | None:
    """The pattern protecting the absolute ``path``, or None (last matching rule wins)."""
    real_project = os.path.realpath(project)
    real = os.path.realpath(path)
    for base in (real_project, os.path.normpath(project)):
        candidate = real if base == real_project else os.path.normpath(path)
        if _shell.is_within(candidate, base) and candidate != base:
            rel = os.path.relpath(candidate, base).replace(os.sep, "/")
            hit: str | None = None
            for rule in rules:
                if rule.matches(rel):
                    hit = None if rule.negated else rule.text
            if hit:
                return hit
            for rule in rules:
                # Deleting/moving a folder that holds a protected path (rm -r .claude).
                if not rule.negated and rule.anchored and rule.literal_prefix().startswith(rel.rstrip("/") + "/"):
                    return rule.text
    return None


# --------------------------------------------------------------------------- checks


def write_targets(cmd: Cmd) -> list[Word]:
    """Words naming files that ``cmd`` creates, modifies or deletes."""
    words = [r.target for r in cmd.redirects if r.op in WRITE_REDIRECTS and r.target is not None]
    name = cmd.name
    if not cmd.argv:
        return words
    flags, positionals, values = _shell.split_options(cmd.args, WRITE_VALUE_OPTIONS.get(name, frozenset()))
    if name in ALL_ARGS:
        words += positionals
    elif name in MODE_FIRST:
        mode = positionals[0].literal() if positionals and "reference" not in values else None
        if name == "chmod" and mode is not None and _shell.chmod_tightens(mode):
            return words  # removing access (chmod 600 .env) protects the file, not changes it
        targets = positionals if "reference" in values else positionals[1:]
        recursive = bool({"R", "recursive"} & set(flags))
        if name == "chmod" and mode is not None and not recursive and _content_safe_mode(mode):
            # chmod 644 package-lock.json keeps the content and lets nobody else change it;
            # environment files still may not be opened to others (their content is secret).
            # Recursively (chmod -R 644 .git) it takes the folders' search bit and breaks the tree.
            targets = [w for w in targets if os.path.basename((w.literal() or ".env").rstrip("/")).startswith(".env")]
        words += targets
    elif name == "cp" and ({"n", "no-clobber"} & set(flags) or "--update=none" in [w.literal() for w in cmd.args]):
        return words  # cp -n .env.example .env: creates the file only where none exists
    elif name in DEST_LAST:
        target_dirs = values.get("t", []) + values.get("target-directory", [])
        words += target_dirs if target_dirs else positionals[-1:]
    elif name in IN_PLACE and any(f.startswith("i") or f == "in-place" for f in flags):
        has_script = values.get("e") or values.get("expression") or values.get("f")
        words += positionals if has_script else positionals[1:]
    elif name in _shell.INTERPRETERS:
        words += [Word([_shell.Lit(path, True)], path) for path, writes in _shell.code_file_refs(cmd) if writes]
    elif name == "dd":
        for w in cmd.args:
            text = w.literal() or ""
            if text.startswith("of="):
                words.append(Word([_shell.Lit(text[3:], True)], text[3:]))
    elif name == "find" and _find_deletes(cmd):
        starts: list[Word] = []
        names: list[Word] = []
        in_expr = False
        for i, w in enumerate(cmd.args):
            lit = w.literal()
            if lit is not None and (lit.startswith("-") or lit in ("(", "!")):
                in_expr = True
            if not in_expr:
                starts.append(w)
            elif lit in ("-name", "-iname") and i + 1 < len(cmd.args):
                names.append(cmd.args[i + 1])
        starts = starts or [Word([_shell.Lit(".", True)], ".")]
        if not names:
            return words + starts
        for start in starts:
            for pattern in names:
                # find START -name PAT -delete removes START/**/PAT: check START/PAT.
                joined = f"{start.text.rstrip('/')}/{pattern.literal() or pattern.text}"
                words.append(Word([_shell.Lit(joined, True)], joined))
    return words


def _content_safe_mode(mode: str) -> bool:
    """A chmod mode that leaves a protected file as it is: nobody else may write it, it gains
    no setuid/setgid and it does not become executable (an executable git hook starts running)."""
    if _shell.chmod_grants(mode) - {"others"}:
        return False
    if re.fullmatch(r"0*[0-7]{3,4}", mode):
        bits = int(mode, 8)
        return not bits & 0o111 and not bits & 0o020
    return all(
        op == "-" or not ({"x", "X", "t"} & set(perm) or ("w" in perm and who not in ("", "u")))
        for who, op, perm in re.findall(r"([ugoa]*)([-+=])([rwxXst]*)", mode)
    )


def _find_deletes(cmd: Cmd) -> bool:
    lits = [w.literal() for w in cmd.args]
    if "-delete" in lits:
        return True
    return any(
        lit in ("-exec", "-execdir") and i + 1 < len(lits) and lits[i + 1] in ("rm", "unlink")
        for i, lit in enumerate(lits)
    )


def _reason(what: str, path: str, pattern: str) -> str:
    base = os.path.basename(path.rstrip("/"))
    if base in LOCKFILES:
        how = (
            "Lockfiles change only through the package manager: run it instead "
            "(e.g. `npm install`, `uv lock`, `cargo update`)."
        )
    elif pattern.startswith(".git") or "/.git/" in path or path.endswith("/.git"):
        how = "The .git folder changes only through git commands: use git instead."
    elif ".env" in base:
        how = "Environment files hold the user's credentials; ask the user to edit them."
    elif pattern.startswith(".claude"):
        how = "Hook and settings files are the user's guard rails; ask the user to edit them."
    else:
        how = "Ask the user to make this change."
    return (
        f"rule protected-file: {what} {path}, which is protected (pattern `{pattern}`). {how} The list is "
        f"configured with PROTECTED_FILES or {CONFIG_FILE}."
    )


def check_bash(command: str, ctx: _shell.Ctx, rules: list[Rule]) -> list[Finding]:
    """Findings for a Bash command that modifies protected files."""
    try:
        cmds = _shell.walk(command, ctx)
    except _shell.ShellParseError as exc:
        return [
            (
                "deny",
                f"rule parse: could not parse the command safely ({exc}); blocked (fail closed). "
                "Fix the quoting or split it into simpler commands.",
            )
        ]
    found: list[Finding] = []
    installed: set[str] = set()  # git hooks copied from project files earlier in this command
    from_template: set[str] = set()  # env files this command made from a template
    for index, cmd in enumerate(cmds):
        if cmd.ctx.remote:
            continue
        found.extend(_protected_ref_findings(cmd))
        for word in write_targets(cmd):
            for value in cmd.values(word) or []:
                prefix, glob_part = _shell.glob_split(value)
                path = _shell.normalize(value if glob_part is None else prefix, cmd.ctx.cwd)
                if path is None:
                    continue
                hit = protected_by(path, ctx.project, rules)
                if hit and glob_part is None and path in from_template:
                    continue  # editing the env file this command just made from placeholders
                if hit and glob_part is None and _env_from_template(cmd, path, command, cmds[:index]):
                    from_template.add(path)
                    continue
                if hit and _installs_hook(cmd, path, ctx.project, installed):
                    installed.add(path)
                    continue
                if hit and _stale_git_lock(cmd, path if glob_part is None else os.path.join(path, glob_part)):
                    continue
                if hit and glob_part is None and _env_renamed(cmd, path, word):
                    continue
                if (
                    hit is None
                    and glob_part is not None
                    and _shell.is_within(path, ctx.project)
                    and not _shell.build_output(path, ctx.project)
                ):
                    hit = _glob_hits(path, glob_part, ctx.project, rules, anywhere=cmd.name == "find")
                if glob_part is None and _runs_later(path) and any(_shell.fetches_and_runs(t) for t in _bash_text(cmd)):
                    found.append(
                        (
                            "deny",
                            f"rule persistence: `{cmd.display}` writes a command that downloads and runs remote code "
                            f"into {path}, which runs automatically later. Do not add it; document the install "
                            "step for the user instead.",
                        )
                    )
                if hit:
                    shown = path if glob_part is None else os.path.join(path, glob_part)
                    found.append(("deny", _reason(f"`{cmd.display}` modifies", shown, hit)))
                elif glob_part is None and _release_pipeline(path, ctx.project, []):
                    found.append(("ask", _release_reason(f"`{cmd.display}` modifies", path)))
    return found


# Env templates hold placeholders (the default patterns leave them unprotected); env files for
# tests and CI hold test settings, not the user's credentials.
_ENV_TEMPLATE = re.compile(r"(?:^|/)\.env(?:\.[\w-]+)*\.(?:example|sample|template|dist|defaults?|tpl)(?:\.[\w-]+)*$")
_TEST_ENV = re.compile(r"(?:^|/)\.env\.(?:test|testing|ci|e2e)(?:\.local)?$")


def _env_from_template(cmd: Cmd, path: str, source: str, before: list[Cmd]) -> bool:
    """``cp .env.example .env.test``, ``[ -f .env ] || cp .env.example .env``: making an env file
    from its template (or empty, from /dev/null) overwrites no credentials when the file is for tests, when it does not
    exist yet (the project folder exists and holds no such file), or when the command itself
    only copies where none exists (a file test joined with ``||``, or ``!`` and ``&&``/``then``)."""
    if cmd.name not in ("cp", "install") or not os.path.basename(path).startswith(".env"):
        return False
    _flags, positionals, values = _shell.split_options(cmd.args, WRITE_VALUE_OPTIONS[cmd.name])
    if values.get("t") or values.get("target-directory") or len(positionals) != 2:
        return False
    template = cmd.values(positionals[0]) or []
    # install -m 600 /dev/null .env.test: an empty file made private before values go in.
    if not template or not all(_ENV_TEMPLATE.search(t) or t == "/dev/null" for t in template):
        return False
    if _TEST_ENV.search(path):
        return True
    if os.path.isdir(cmd.ctx.project) and not os.path.lexists(path):
        return True
    return _guarded_by_missing_file(cmd, path, source, before)


def _guarded_by_missing_file(cmd: Cmd, path: str, source: str, before: list[Cmd]) -> bool:
    """Whether ``cmd`` runs only when ``path`` does not exist: an earlier ``[ -f path ]`` /
    ``test -e path`` joined to it by ``||``, or its negation joined by ``&&`` or ``then``."""
    start = cmd.argv[0].pos if cmd.argv and cmd.origin == "top" else -1
    for test in reversed(before):
        if test.name not in ("[", "test", "[[") or test.origin != "top":
            continue
        lits = [w.literal() for w in test.args]
        words = [w for w in test.args if w.pos >= 0]
        checks = {"-f", "-e", "-s", "-a"} & {lit for lit in lits if lit}
        named = [
            _shell.normalize(v, test.ctx.cwd)
            for w in test.args
            if not (w.literal() or "").startswith("-")
            for v in test.values(w) or []
        ]
        if not checks or path not in named or not words or start < 0:
            return False
        between = source[words[-1].pos + len(words[-1].raw) : start]
        negated = lits.count("!") % 2 == 1
        return ("||" in between and not negated) or (negated and ("&&" in between or "then" in between))
    return False


_BACKUP_NAME = re.compile(r"\.(?:bak|backup|old|orig|save|prev)$|~$", re.IGNORECASE)


def _env_renamed(cmd: Cmd, path: str, word: Word) -> bool:
    """``mv .env .env.bak``, ``mv -n config/.env config/.env.2024-05-01.old``: renaming an env file
    to a backup name beside it keeps its only copy (nothing is printed or lost)."""
    if cmd.name != "mv" or not os.path.basename(path).startswith(".env"):
        return False
    _flags, positionals, values = _shell.split_options(cmd.args, WRITE_VALUE_OPTIONS["mv"])
    if values or len(positionals) != 2 or not any(p is word for p in positionals):
        return False
    path = _shell.normalize((cmd.values(positionals[0]) or [""])[0], cmd.ctx.cwd) or ""
    source = _shell.normalize((cmd.values(positionals[0]) or [""])[0], cmd.ctx.cwd)
    dest_text = _shell.expand_pattern(positionals[1], cmd.ctx)
    dest = _shell.normalize(dest_text, cmd.ctx.cwd)
    return (
        source == path
        and dest is not None
        and os.path.dirname(dest) == os.path.dirname(path)
        and os.path.basename(dest).startswith(os.path.basename(path) + ".")
        and _BACKUP_NAME.search(dest) is not None
    )


def _stale_git_lock(cmd: Cmd, path: str) -> bool:
    """``rm .git/index.lock``, ``rm -f .git/refs/heads/topic.lock``: deleting the lock file a
    crashed git command left behind is the documented fix; git recreates it on its next write."""
    if cmd.name not in ("rm", "unlink") or not path.endswith(".lock"):
        return False
    return "/.git/" in path and not {"r", "R", "recursive"} & set(_shell.split_options(cmd.args)[0])


# git commands that delete or move a branch ref directly, bypassing push and merge.
_REF_SUBCOMMANDS = frozenset({"update-ref", "branch"})


def _protected_ref_findings(cmd: Cmd) -> list[Finding]:
    """``git update-ref -d refs/heads/main``, ``git update-ref refs/heads/main <sha>``, ``git
    branch -D main``, ``git branch -f master HEAD~3``: deleting or moving a protected branch's ref
    (PROTECTED_BRANCHES, default main/master) throws away or rewrites its shared history."""
    if cmd.name != "git":
        return []
    _flags, positionals, _values = _shell.split_options(
        cmd.args, frozenset({"-C", "-c", "--git-dir", "--work-tree"}), stop_at_first=True
    )
    sub = positionals[0].literal() if positionals else None
    if sub not in _REF_SUBCOMMANDS:
        return []
    with_value = frozenset({"-m"}) if sub == "update-ref" else frozenset({"-u", "--set-upstream-to"})
    flags, operands, _values = _shell.split_options(positionals[1:], with_value)
    names = [w.literal() or w.text for w in operands]
    protected = _common.protected_branches()
    refs: list[str] = []
    if sub == "update-ref":
        refs = names[:1]
        if "stdin" in flags and cmd.stdin_text:
            # update-ref --stdin reads "delete REF", "update REF NEW", "create REF NEW" lines.
            refs = [line.split()[1] for line in cmd.stdin_text.splitlines() if len(line.split()) > 1]
    elif {"D", "d", "delete"} & set(flags):
        refs = names
    elif {"f", "force"} & set(flags):
        refs = names[:1]  # git branch -f main <start>: main now points elsewhere
    elif "M" in flags and len(names) > 1:
        refs = names[1:2]  # git branch -M topic main: topic replaces main
    hits = [
        r
        for r in refs
        if r.removeprefix("refs/heads/") in protected and (r.startswith("refs/heads/") or sub == "branch")
    ]
    if not hits:
        return []
    return [
        (
            "deny",
            f"rule protected-ref: `{cmd.display}` deletes or moves {hits[0]}, a protected branch whose history is "
            "shared. Work on a feature branch and let the user merge it; to undo a commit on it, use `git revert`.",
        )
    ]


def _installs_hook(cmd: Cmd, path: str, project: str, installed: set[str]) -> bool:
    """``cp scripts/pre-commit .git/hooks/pre-commit``, ``ln -s ../../scripts/x .git/hooks/x``,
    then ``chmod +x`` of that hook: installing one of the project's own scripts as a git hook,
    which is what ``pre-commit install`` and husky do. The script is project code under review
    like any other. Making an existing hook executable activates content nobody has seen, so
    ``chmod`` passes only for a hook installed so earlier in the same command."""
    hooks = os.path.join(os.path.normpath(project), ".git", "hooks")
    if os.path.dirname(path) != hooks:
        return False
    if cmd.name == "chmod":
        _flags, positionals, _values = _shell.split_options(cmd.args)
        mode = positionals[0].literal() if positionals else None
        return path in installed and mode is not None and "world-write" not in _shell.chmod_grants(mode)
    if cmd.name in ("cat", "tee"):
        return _visible_hook_text(cmd) is not None
    if cmd.name not in ("cp", "ln", "install"):
        return False
    _flags, positionals, values = _shell.split_options(cmd.args, WRITE_VALUE_OPTIONS.get(cmd.name, frozenset()))
    sources = positionals[:-1] if not (values.get("t") or values.get("target-directory")) else positionals
    if not sources:
        return False
    for word in sources:
        for value in cmd.values(word) or [""]:
            base = os.path.dirname(path) if cmd.name == "ln" and not value.startswith("/") else cmd.ctx.cwd
            source = _shell.normalize(value, base or cmd.ctx.cwd)
            if source is None or not _shell.is_within(source, project) or _shell.is_within(source, hooks[:-6]):
                return False
    return True


def _visible_hook_text(cmd: Cmd) -> str | None:
    """The hook script ``cat > .git/hooks/x <<'EOF' … EOF`` writes, when the command shows all of
    it (a here-document without substitutions, no other input) and it fetches no remote code: a
    git hook written in full in the call is project code under review, like a copied script."""
    bodies = [r for r in cmd.redirects if r.op.startswith("<<") and r.op != "<<<"]
    if len(bodies) != 1 or bodies[0].body is None or bodies[0].body_subs:
        return None
    if cmd.name == "cat" and cmd.args:
        return None
    body = bodies[0].body
    return None if _shell.fetches_and_runs(body) else body


def _glob_hits(prefix: str, glob_part: str, project: str, rules: list[Rule], anywhere: bool = False) -> str | None:
    """A protected pattern that the glob ``prefix/glob_part`` could match (e.g. ``.e*``).

    When ``prefix`` exists, what it holds decides; otherwise a protected name is assumed only
    at the project root (``rm -rf *`` takes ``package-lock.json``), not in every sub-folder.
    ``anywhere`` (``find -name``, which searches the whole tree) checks the pattern alone."""
    regex = re.compile(_glob_regex(glob_part) + r"\Z")
    present: set[str] | None = None
    if not anywhere:
        try:
            present = set(os.listdir(prefix))
        except OSError:
            present = None
    if present is None and not anywhere and os.path.normpath(prefix) != os.path.normpath(project):
        return None
    for rule in rules:
        pattern = rule.text
        name = pattern.rstrip("/")
        if rule.negated or "*" in name or "/" in name:
            continue
        if name.startswith(".") and not glob_part.startswith("."):
            continue  # bash globs skip dot files unless the pattern starts with a dot
        if present is not None and name not in present:
            continue
        if regex.match(name) and protected_by(os.path.join(prefix, name), project, rules):
            return pattern
    return None


@_common.fail_closed(NAME)
def run(payload: _common.Payload) -> _common.Result:
    """PreToolUse entry point: deny, ask (release pipelines) or None."""
    got = _common.tool_call(payload, NAME, TOOLS)
    if not isinstance(got, tuple):
        return got
    tool, tool_input = got
    project = _common.project_dir(payload)
    rules = load_rules(project)
    if tool == "Bash":
        command = _common.str_field(tool_input, "command", NAME)
        if not isinstance(command, str):
            return command
        ctx = _shell.make_ctx(_common.session_cwd(payload), project)
        return _common.verdict(NAME, check_bash(command, ctx, rules))
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    target = _common.str_field(tool_input, key, NAME)
    if not isinstance(target, str):
        return target
    path = _shell.normalize(os.path.expanduser(target), _common.session_cwd(payload))
    hit = protected_by(path, project, rules) if path else None
    if hit and path:
        return _common.deny(f"[{NAME}] " + _reason(f"{tool} of", path, hit))
    if path and _runs_later(path) and any(_shell.fetches_and_runs(t) for t in _new_text(tool_input)):
        return _common.deny(
            f"[{NAME}] rule persistence: {tool} of {path} adds a command that downloads and runs "
            "remote code to a file that runs automatically later. Do not add it; document the "
            "install step for the user instead."
        )
    if path and _release_pipeline(path, project, _new_text(tool_input)):
        return _common.ask(f"[{NAME}] " + _release_reason(f"{tool} of", path))
    return None


# CI configuration files; a pipeline among them that publishes or deploys runs with the
# project's publishing credentials and ships whatever it builds.
_CI_FILE = re.compile(
    r"(?:^|/)(?:\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|\.circleci/config\.ya?ml|Jenkinsfile|"
    r"azure-pipelines\.ya?ml|bitbucket-pipelines\.ya?ml|\.travis\.ya?ml|\.buildkite/[^/]+\.ya?ml)$"
)
_PUBLISHES = re.compile(r"(?i)\b(?:publish|deploy|release|upload|twine|docker\s+push|gh-pages)\b")


def _release_pipeline(path: str, project: str, texts: list[str]) -> bool:
    """Whether a change to ``path`` touches a CI pipeline that publishes or deploys: its name
    says so (release.yml, deploy.yml) or the new text does (``make publish``, ``twine upload``)."""
    rel = os.path.relpath(path, project) if _shell.is_within(path, project) else path
    if not _CI_FILE.search(rel.replace(os.sep, "/")):
        return False
    return bool(_PUBLISHES.search(os.path.basename(path)) or any(_PUBLISHES.search(t) for t in texts))


def _release_reason(what: str, path: str) -> str:
    return (
        f"rule release-pipeline: {what} {path} changes a CI pipeline that publishes or deploys with the "
        "project's credentials; confirm the change (ordinary test jobs pass without asking)."
    )


# Project files whose commands run without anyone typing them: npm install scripts, direnv,
# editor tasks that run on opening the folder, dev-container hooks (plus start-up files, cron
# tables, git hooks: _shell.autorun_path).
RUNS_LATER = frozenset({"package.json", ".envrc", "tasks.json", "devcontainer.json", ".devcontainer.json"})


def _runs_later(path: str) -> bool:
    # CI configuration runs on every push, with the project's secrets in its environment.
    return _shell.autorun_path(path) or os.path.basename(path) in RUNS_LATER or _CI_FILE.search(path) is not None


def _bash_text(cmd: Cmd) -> list[str]:
    """The text a Bash command may put into a file: its literal arguments (``yq -i`` and ``sed``
    expressions, an echo's words) and a here-document on its stdin."""
    return [t for t in [*(w.literal() or "" for w in cmd.args), cmd.stdin_text or ""] if t]


def _new_text(tool_input: dict[str, Any]) -> list[str]:
    """The text a Write/Edit/MultiEdit/NotebookEdit call puts into the file."""
    texts = [tool_input.get(k) for k in ("content", "new_string", "new_source")]
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        texts += [e.get("new_string") for e in edits if isinstance(e, dict)]
    return [t for t in texts if isinstance(t, str)]


if __name__ == "__main__":
    _common.main(run, fail_closed_on_bad_input=True)
