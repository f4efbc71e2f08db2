"""Word expansion: what a word can stand for (variables, ``~``, simple substitutions,
brace expansion) in a walking context, and lexical path helpers."""

from __future__ import annotations

import fnmatch
import os
import re

from ._lazy_re import lazy_compile
from ._model import MAX_CANDIDATES, Arith, Command, Lit, Sub, Var, Word
from ._parser import decode_escapes


class Ctx:
    """What is known while walking a script: directories and assigned variables."""

    cwd: str | None
    project: str
    home: str
    vars: dict[str, list[str] | None]
    remote: bool
    # Literal text the command wrote to files so far (path → content): a script written
    # with echo/cat <<EOF and then run is inspected like an inline one. Shared by subshells
    # because files outlive them.
    files: dict[str, str]
    # Functions defined so far (name → definition), shared like ``files``.
    functions: dict[str, Command]
    # Programs whose output a variable holds (x=$(curl …) → {"curl"}): eval "$x" runs it.
    sources: dict[str, set[str]]
    # The words of assignments whose value is not known (D="${ROOT}/" with ROOT unset), so a
    # later "$D*" is still seen to start with the unknown ROOT and a slash.
    assigned: dict[str, Word]

    def __init__(
        self,
        cwd: str | None,
        project: str,
        home: str,
        vars: dict[str, list[str] | None] | None = None,
        remote: bool = False,
        files: dict[str, str] | None = None,
        functions: dict[str, Command] | None = None,
        sources: dict[str, set[str]] | None = None,
    ) -> None:
        self.cwd = cwd
        self.project = project
        self.home = home
        self.vars = {} if vars is None else vars
        self.remote = remote
        self.files = {} if files is None else files
        self.functions = {} if functions is None else functions
        self.sources = {} if sources is None else sources
        self.assigned: dict[str, Word] = {}
        # The variable an unknown cwd came from (cd "$DIR"): empty, cd would go home or stay put.
        self.cwd_from = ""
        # The directory before the last cd (cd - returns there); unknown before any cd.
        self.oldpwd: str | None = None
        # Endless loops that start background jobs without waiting (shared, like ``files``).
        self.spawn_loops: list[str] = []

    def child(self, remote: bool | None = None) -> Ctx:
        """A copy for a subshell (variable and cd changes inside do not leak out)."""
        copy = Ctx(
            self.cwd,
            self.project,
            self.home,
            dict(self.vars),
            self.remote if remote is None else remote,
            self.files,
            self.functions,
            dict(self.sources),
        )
        copy.cwd_from = self.cwd_from
        copy.assigned = dict(self.assigned)
        copy.oldpwd = self.oldpwd
        copy.spawn_loops = self.spawn_loops
        return copy

    def assign(self, name: str, value: Word) -> None:
        """Record ``name=value``: its candidate values, or its word when they are unknown."""
        self.vars[name] = expand(value, self)
        if self.vars[name] is None:
            self.assigned[name] = value
        else:
            self.assigned.pop(name, None)

    def written(self, word: Word) -> str | None:
        """Content this command wrote earlier to the file ``word`` names, if known."""
        values = expand(word, self)
        if not values:
            return None
        path = normalize(values[0], self.cwd)
        return self.files.get(path) if path else None


_BRACE_RE = lazy_compile(r"\{([^{}]*,[^{}]*)\}")
_RANGE_RE = lazy_compile(r"\{(-?\d+)\.\.(-?\d+)\}")


def brace_expand(text: str) -> list[str]:
    """Expand ``{a,b}`` and ``{1..3}`` the way bash does for unquoted text (bounded)."""
    if "{" not in text:  # most words: nothing to expand
        return [text]
    m = _BRACE_RE.search(text)
    if m:
        results: list[str] = []
        for option in m.group(1).split(","):
            results.extend(brace_expand(text[: m.start()] + option + text[m.end() :]))
            if len(results) > MAX_CANDIDATES:
                break
        return results[:MAX_CANDIDATES]
    m = _RANGE_RE.search(text)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        step = 1 if hi >= lo else -1
        values = range(lo, hi + step, step)
        return [text[: m.start()] + str(v) + text[m.end() :] for v in list(values)[:8]]
    return [text]


def var_values(var: Var, ctx: Ctx) -> list[str] | None:
    name = var.name
    if name.startswith("~"):
        if name == "~":
            return [ctx.home]
        expanded = os.path.expanduser(name)
        return [expanded] if expanded != name else None
    known: list[str] | None
    if name in ctx.vars:
        known = ctx.vars[name]
    elif name == "HOME":
        known = [ctx.home]
    elif name == "PWD":
        known = [ctx.cwd] if ctx.cwd else None
    elif name == "CLAUDE_PROJECT_DIR":
        known = [ctx.project]
    else:
        known = None
    if var.op in ("", ":?", "?"):
        return known
    if var.op in (":-", "-", ":=", "="):
        if known is not None and any(known):
            return known
        return expand(var.arg, ctx) if var.arg is not None else [""]
    if var.op == "other" and known is not None and var.arg is not None:
        # ${HOME%/*}, ${HOME:0:1}, ${P//x/}: trimming, slicing and replacing a known value (a
        # way to spell / or a parent folder without writing it).
        rests = expand(var.arg, ctx)
        if rests is None or len(rests) != 1:
            return None
        got = [_param_op(value, rests[0]) for value in known]
        return None if any(g is None for g in got) else [g for g in got if g is not None]
    return None


def _param_op(value: str, rest: str) -> str | None:
    """``value`` after bash's ``${X<rest>}`` operator (``%``, ``%%``, ``#``, ``##``, ``:N:M``,
    ``/pat/rep``, ``//pat/rep``, ``^^``, ``,,``); None for an operator not modelled."""
    m = re.fullmatch(r":\s*(-?\d+)(?::\s*(-?\d+))?", rest)
    if m:
        start = int(m.group(1))
        start = max(len(value) + start, 0) if start < 0 else start
        if m.group(2) is None:
            return value[start:]
        length = int(m.group(2))
        return value[start : start + length] if length >= 0 else value[start : len(value) + length]
    for op in ("%%", "##", "%", "#"):
        if rest.startswith(op):
            pattern = rest[len(op) :]
            cuts = range(len(value) + 1)
            if op in ("%", "%%"):
                ends = [i for i in cuts if fnmatch.fnmatchcase(value[i:], pattern)]
                return value[: (min(ends) if op == "%%" else max(ends))] if ends else value
            starts = [i for i in cuts if fnmatch.fnmatchcase(value[:i], pattern)]
            return value[(max(starts) if op == "##" else min(starts)) :] if starts else value
    if rest.startswith("/"):
        every = rest.startswith("//")
        pattern, _, replacement = rest[2 if every else 1 :].partition("/")
        if _has_glob_chars(pattern):
            return None
        return value.replace(pattern, replacement) if every else value.replace(pattern, replacement, 1)
    case = {"^^": str.upper, ",,": str.lower}
    return case[rest](value) if rest in case else None


def _has_glob_chars(text: str) -> bool:
    return any(c in "*?[" for c in text)


def sub_values(sub: Sub | Arith, ctx: Ctx) -> list[str] | None:
    """What a simple substitution prints, when that is knowable (pwd, echo, which, dirname…)."""
    if isinstance(sub, Arith):
        return None
    if sub.kind not in ("$(", "`") or len(sub.script.pipelines) != 1:
        return None
    commands = sub.script.pipelines[0].commands
    if len(commands) != 1 or commands[0].body is not None or not commands[0].words:
        return None
    argv: list[str] = []
    for w in commands[0].words:
        got = expand(w, ctx)
        if not got:
            return None
        argv.append(got[0])
    name = os.path.basename(argv[0])
    args = argv[1:]
    if name == "pwd":
        return [ctx.cwd] if ctx.cwd else None
    if name == "git" and "--show-toplevel" in args:
        return [ctx.project]
    if name == "echo":
        words = [a for a in args if a not in ("-n", "-e", "-E")]
        text = " ".join(words)
        return ([decode_escapes(text) if "-e" in args else text]) if words else None
    if (name in ("which", "type") and args) or (name == "command" and "-v" in args):
        return [os.path.basename(args[-1])]
    if name == "printf" and args:
        return _printf(args[0], args[1:])
    if name == "find" and "-name" in args[:-1]:
        # find START -name PAT prints paths ending in PAT.
        start = args[0] if args and not args[0].startswith("-") else "."
        return [os.path.join(start, args[args.index("-name") + 1])]
    if name in ("dirname", "realpath", "readlink") and args:
        path = normalize(args[-1], ctx.cwd)
        if path is None:
            return None
        return [os.path.dirname(path) if name == "dirname" else path]
    return None


def _printf(fmt: str, args: list[str]) -> list[str] | None:
    """What ``printf FMT ARGS`` prints when FMT uses only ``%s`` (and ``%%``); None otherwise."""
    pieces = re.split(r"(%%|%s)", fmt)
    out: list[str] = []
    rest = list(args)
    for piece in pieces:
        if piece == "%%":
            out.append("%")
        elif piece == "%s":
            out.append(rest.pop(0) if rest else "")
        elif "%" in piece:
            return None
        else:
            out.append(decode_escapes(piece))
    return ["".join(out)]


def expand(word: Word, ctx: Ctx) -> list[str] | None:
    """Candidate values of ``word``; None when a part cannot be known statically."""
    results = [""]
    for part in word.parts:
        options: list[str] | None
        if isinstance(part, Lit):
            options = [part.text] if part.quoted else brace_expand(part.text)
        elif isinstance(part, Var):
            options = var_values(part, ctx)
        else:
            options = sub_values(part, ctx)
        if options is None:
            return None
        results = [r + o for r in results for o in options][:MAX_CANDIDATES]
    return results


def expand_pattern(word: Word, ctx: Ctx) -> str:
    """The word with unknown variables/substitutions replaced by ``*`` (first candidate
    elsewhere): ``/home/$USER`` → ``/home/*``, a glob that names what it could reach."""
    out: list[str] = []
    for part in word.parts:
        if isinstance(part, Lit):
            out.append(part.text)
            continue
        got = var_values(part, ctx) if isinstance(part, Var) else sub_values(part, ctx)
        out.append(got[0] if got else "*")
    return "".join(out)


def unknown_then_slash(word: Word, ctx: Ctx, depth: int = 0) -> bool:
    """``"$X/"`` or ``$X/*`` with X unknown: if X is empty this names the filesystem root.
    ``D="$X/"; rm -rf $D*`` is the same word once D's assignment is put back in."""
    if not word.parts:
        return False
    first = word.parts[0]
    if isinstance(first, Var):
        if first.op in (":?", "?") or first.name.startswith("~"):
            return False
        if var_values(first, ctx) is not None:
            return False
        value = ctx.assigned.get(first.name) if first.op == "" else None
        if (
            value is not None
            and depth < 4
            and unknown_then_slash(Word([*value.parts, *word.parts[1:]], word.raw, word.pos), ctx, depth + 1)
        ):
            return True
    elif isinstance(first, Sub | Arith):
        if sub_values(first, ctx) is not None:
            return False
    else:
        return False
    rest = "".join(p.text for p in word.parts[1:] if isinstance(p, Lit))
    if len(word.parts) > 1 and not all(isinstance(p, Lit) for p in word.parts[1:]):
        return False
    return rest.startswith("/") and rest.strip("/") in ("", "*", ".*", "**", "*/")


# --------------------------------------------------------------------------- paths

GLOB_CHARS = frozenset("*?[")
MATCH_ALL_GLOBS = frozenset({"*", ".*", "**", "*.*", "?*", ".[!.]*", ".[^.]*", "..?*", ".??*", "{*,.*}", "*/", ".*/"})


def has_glob(text: str) -> bool:
    """Whether ``text`` contains a glob character."""
    return any(c in GLOB_CHARS for c in text)


def normalize(path: str, cwd: str | None) -> str | None:
    """Absolute, lexically normalised ``path``; None if relative and the cwd is unknown."""
    if not path:
        return None
    if not path.startswith("/"):
        if cwd is None:
            return None
        path = os.path.join(cwd, path)
    return os.path.normpath(path).replace("//", "/")


def glob_split(path: str) -> tuple[str, str | None]:
    """Split at the first glob component: (glob-free prefix, that component or None)."""
    if not has_glob(path):
        return path, None
    comps = path.split("/")
    for i, comp in enumerate(comps):
        if has_glob(comp):
            prefix = "/".join(comps[:i])
            if not prefix and path.startswith("/"):
                prefix = "/"
            return prefix or ".", "/".join(comps[i:])
    return path, None  # pragma: no cover


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` equals ``root`` or lies under it (both absolute, normalised)."""
    if root == "/":
        return True
    return path == root or path.startswith(root.rstrip("/") + "/")


def make_ctx(cwd: str | None, project: str, home: str | None = None) -> Ctx:
    """A walking context for a command run in ``cwd`` inside ``project``."""
    return Ctx(cwd=cwd, project=project, home=home or os.path.expanduser("~"))
