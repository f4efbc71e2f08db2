"""Shell command parsing shared by the security hooks (not a hook itself).

``shlex`` alone is not enough to judge a Bash tool call: it does not know operators, here-docs,
command substitution or wrappers, so ``sudo /bin/rm -r -f "$HOME"`` or
``bash -c "$(echo rm) -rf /"`` would slip through a word check. This module:

* tokenises a command the way bash does (quotes, ``$'…'``, escapes, ``$(…)``, backticks,
  ``<(…)``, ``${VAR:-default}``, ``~``, comments, line continuations, operators,
  redirections and here-docs), keeping variables and substitutions as structured parts;
* builds scripts → pipelines → commands (subshells and ``{ …; }`` groups included);
* walks every command that would run, recursing into command substitutions, ``bash -c``,
  ``eval``, here-doc / here-string / piped scripts fed to a shell, ``find -exec``, ``ssh``
  remote commands and ``python -c`` code, and strips wrappers (``sudo``, ``env``, ``nice``,
  ``timeout``, ``xargs``, ``command``, ``exec``, …) so rules see the real program;
* resolves words to candidate strings (``$HOME``, ``~``, ``$PWD``, variables assigned earlier
  in the same command, ``${X:-/}`` defaults, brace expansion), or None when unknown.

Parsing errors raise :class:`ShellParseError`; security hooks turn that into a deny.
"""

from __future__ import annotations

import functools
import os
import re

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: keep imports light for cold hooks
if TYPE_CHECKING:
    import ast

MAX_DEPTH = 16
MAX_LENGTH = 100_000
MAX_CANDIDATES = 64


class ShellParseError(ValueError):
    """The command could not be parsed (unbalanced quotes, unterminated ``$(`` …)."""


# --------------------------------------------------------------------------- data model


class Lit:
    """Literal text; ``quoted`` when it came from quotes or an escape."""

    text: str
    quoted: bool

    def __init__(self, text: str, quoted: bool) -> None:
        self.text = text
        self.quoted = quoted


class Var:
    """A parameter expansion: ``$NAME``, ``${NAME<op><arg>}``, ``~`` or ``~user``."""

    name: str
    op: str
    arg: Word | None
    quoted: bool

    def __init__(self, name: str, op: str = "", arg: Word | None = None, quoted: bool = False) -> None:
        self.name = name
        self.op = op
        self.arg = arg
        self.quoted = quoted


class Sub:
    """A command or process substitution (``$(…)``, backticks, ``<(…)``, ``>(…)``)."""

    script: Script
    kind: str
    source: str

    def __init__(self, script: Script, kind: str, source: str) -> None:
        self.script = script
        self.kind = kind
        self.source = source


Part = Lit | Var | Sub


class Word:
    """One shell word made of literal, variable and substitution parts."""

    parts: list[Part]
    raw: str

    def __init__(self, parts: list[Part], raw: str) -> None:
        self.parts = parts
        self.raw = raw

    @property
    def text(self) -> str:
        """Display form: literals as-is, ``$NAME`` for variables, ``$(…)`` for substitutions."""
        out: list[str] = []
        for p in self.parts:
            if isinstance(p, Lit):
                out.append(p.text)
            elif isinstance(p, Var):
                out.append("~" + p.name[1:] if p.name.startswith("~") else "${" + p.name + "}")
            else:
                opener = "$(" if p.kind in ("$(", "`") else p.kind
                out.append(f"{opener}{p.source})")
        return "".join(out)

    def literal(self) -> str | None:
        """The word's value if it has no expansions, else None."""
        if all(isinstance(p, Lit) for p in self.parts):
            return "".join(p.text for p in self.parts if isinstance(p, Lit))
        return None

    @property
    def quoted(self) -> bool:
        """Whether any part of the word was quoted."""
        return any(getattr(p, "quoted", False) for p in self.parts)

    def subs(self) -> list[Sub]:
        """Substitutions in the word, including those inside ``${X:-$(…)}`` defaults."""
        found: list[Sub] = []
        for p in self.parts:
            if isinstance(p, Sub):
                found.append(p)
            elif isinstance(p, Var) and p.arg is not None:
                found.extend(p.arg.subs())
        return found


class Redirect:
    """A redirection; ``body`` holds a here-doc body or a here-string's text."""

    op: str
    fd: str
    target: Word | None
    body: str | None
    body_subs: list[Sub]

    def __init__(
        self,
        op: str,
        fd: str,
        target: Word | None,
        body: str | None = None,
        body_subs: list[Sub] | None = None,
    ) -> None:
        self.op = op
        self.fd = fd
        self.target = target
        self.body = body
        self.body_subs = [] if body_subs is None else body_subs


class Command:
    """A simple command, or a subshell / group when ``body`` is set."""

    words: list[Word]
    redirects: list[Redirect]
    body: Script | None
    funcdef: bool

    def __init__(
        self,
        words: list[Word] | None = None,
        redirects: list[Redirect] | None = None,
        body: Script | None = None,
        funcdef: bool = False,
    ) -> None:
        self.words = [] if words is None else words
        self.redirects = [] if redirects is None else redirects
        self.body = body
        self.funcdef = funcdef

    def empty(self) -> bool:
        """Whether nothing has been parsed into this command yet."""
        return not self.words and not self.redirects and self.body is None and not self.funcdef


class Pipeline:
    """Commands joined by ``|``."""

    commands: list[Command]

    def __init__(self, commands: list[Command] | None = None) -> None:
        self.commands = [] if commands is None else commands


class Script:
    """Pipelines joined by ``;``, ``&&``, ``||``, ``&`` or newlines."""

    pipelines: list[Pipeline]

    def __init__(self, pipelines: list[Pipeline] | None = None) -> None:
        self.pipelines = [] if pipelines is None else pipelines


# --------------------------------------------------------------------------- lexer/parser

_OPERATORS = (
    ";;&", "&>>", "<<<", "<<-",
    ";;", ";&", "&&", "||", "|&", "&>", "<<", "<>", "<&", ">>", ">&", ">|",
    ";", "&", "|", "<", ">",
)  # fmt: skip
_REDIRECTS = frozenset({"&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">"})
_WORD_BREAK = frozenset(" \t\n;&|()<>")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
_VAR_OPS = (":-", ":=", ":?", ":+", "-", "=", "?", "+")
_ANSI_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
    "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def decode_escapes(text: str) -> str:
    """Decode C-style escapes (``\\n``, ``\\xHH``, ``\\NNN``, ``\\uXXXX``) as ``$'…'``,
    ``echo -e`` and ``printf`` do."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        n = text[i + 1]
        if n in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[n])
            i += 2
        elif n == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", text[i + 2 :])
            if m:
                out.append(chr(int(m.group(), 16)))
                i += 2 + len(m.group())
            else:
                out.append("\\x")
                i += 2
        elif n in "uU":
            m = re.match(r"[0-9a-fA-F]{1,8}" if n == "U" else r"[0-9a-fA-F]{1,4}", text[i + 2 :])
            if m:
                out.append(chr(min(int(m.group(), 16), 0x10FFFF)))
                i += 2 + len(m.group())
            else:
                out.append("\\" + n)
                i += 2
        elif n in "01234567":
            m = re.match(r"0?[0-7]{1,3}", text[i + 1 :])
            digits = m.group() if m else n
            out.append(chr(int(digits, 8) & 0xFF))
            i += 1 + len(digits)
        else:
            out.append("\\" + n)
            i += 2
    return "".join(out)


class _Parser:
    """Recursive-descent tokenizer/parser over one source string."""

    def __init__(self, src: str, depth: int = 0) -> None:
        self.src = src
        self.pos = 0
        self.depth = depth
        self.ends: list[str] = []
        self.pending: list[tuple[Redirect, str, bool, bool]] = []

    # -- helpers
    def _peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.src[i] if i < len(self.src) else ""

    def _skip_blanks(self) -> None:
        while self.pos < len(self.src):
            c = self.src[self.pos]
            if c in " \t":
                self.pos += 1
            elif c == "\\" and self._peek(1) == "\n":
                self.pos += 2
            else:
                return

    def _deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShellParseError("command nests too deeply to inspect")

    # -- lists
    def parse_list(self, end: str = "") -> Script:
        """Parse until ``end`` (``""`` = end of input, ``)``, `` ` `` or ``}``)."""
        script = Script()
        pipe = Pipeline()
        cmd = Command()

        def finish_cmd() -> None:
            nonlocal cmd
            if not cmd.empty():
                pipe.commands.append(cmd)
            cmd = Command()

        def finish_pipe() -> None:
            nonlocal pipe
            finish_cmd()
            if pipe.commands:
                script.pipelines.append(pipe)
            pipe = Pipeline()

        self.ends.append(end)
        try:
            while True:
                self._skip_blanks()
                if self.pos >= len(self.src):
                    if end in (")", "`"):
                        raise ShellParseError(f"unterminated {'$(' if end == ')' else '`'}")
                    if end == "}":
                        raise ShellParseError("unterminated { group")
                    break
                c = self.src[self.pos]
                if c == "`" and end == "`":
                    self.pos += 1
                    break
                if c == "#":
                    nl = self.src.find("\n", self.pos)
                    self.pos = len(self.src) if nl < 0 else nl
                    continue
                if c == "\n":
                    self.pos += 1
                    finish_pipe()
                    self._read_heredocs()
                    continue
                if c == ")":
                    self.pos += 1
                    if end == ")":
                        break
                    finish_pipe()  # stray ")" (e.g. a case pattern): ignore it
                    continue
                if c == "(":
                    self._open_paren(cmd)
                    if cmd.funcdef:
                        finish_cmd()
                    continue
                if c in "<>" and self._peek(1) == "(":
                    cmd.words.append(self._word())
                    continue
                if c in ";&|<>":
                    op = self._operator()
                    if op in ("|", "|&"):
                        finish_cmd()
                    elif op in _REDIRECTS:
                        self._redirect(cmd, op, "")
                    else:
                        finish_pipe()
                    continue
                if cmd.empty() and c == "{" and self._peek(1) in (" ", "\t", "\n", ""):
                    self.pos += 1
                    self._deeper()
                    cmd.body = self.parse_list("}")
                    self.depth -= 1
                    continue
                word = self._word()
                lit = word.literal()
                if end == "}" and cmd.empty() and lit == "}" and not word.quoted:
                    break
                if lit is not None and lit.isdigit() and not word.quoted and self._peek() in ("<", ">"):
                    op = self._operator()
                    self._redirect(cmd, op, lit)
                    continue
                cmd.words.append(word)
            finish_pipe()
        finally:
            self.ends.pop()
        # Here-docs whose body never came (input ended on the same line): empty bodies.
        if end == "":
            for redirect, _delim, _strip, _quoted in self.pending:
                redirect.body = redirect.body or ""
            self.pending = []
        return script

    def _open_paren(self, cmd: Command) -> None:
        if cmd.empty() and self._peek(1) == "(":
            # Arithmetic command (( … )): no side effects worth inspecting.
            self._skip_balanced("((", "))")
            cmd.words.append(Word([Lit("((arith))", True)], "(())"))
            return
        self.pos += 1
        if cmd.empty():
            self._deeper()
            cmd.body = self.parse_list(")")
            self.depth -= 1
            return
        self._skip_blanks()
        if self._peek() == ")" and len(cmd.words) == 1:
            self.pos += 1
            cmd.funcdef = True  # name() — the body follows as its own command
            return
        # Array assignment X=(a b c): parse the elements as a body so substitutions are seen.
        self._deeper()
        inner = self.parse_list(")")
        self.depth -= 1
        cmd.body = inner if cmd.body is None else cmd.body

    def _skip_balanced(self, opener: str, closer: str) -> None:
        level = 0
        i = self.pos
        while i < len(self.src):
            if self.src.startswith(opener[0], i):
                level += 1
            elif self.src.startswith(closer[0], i):
                level -= 1
                if level == 0:
                    self.pos = i + 1
                    return
            i += 1
        raise ShellParseError(f"unterminated {opener}")

    def _operator(self) -> str:
        for op in _OPERATORS:
            if self.src.startswith(op, self.pos):
                self.pos += len(op)
                return op
        raise ShellParseError(f"unexpected character {self.src[self.pos]!r}")  # pragma: no cover

    def _redirect(self, cmd: Command, op: str, fd: str) -> None:
        self._skip_blanks()
        target: Word | None = None
        at_word = self.pos < len(self.src) and self.src[self.pos] not in _WORD_BREAK
        if at_word or self.src.startswith(("<(", ">("), self.pos):
            target = self._word()
        redirect = Redirect(op, fd, target)
        if op in ("<<", "<<-"):
            if target is None:
                raise ShellParseError("here-doc without a delimiter")
            delim = "".join(
                p.text if isinstance(p, Lit) else "$" + p.name for p in target.parts if not isinstance(p, Sub)
            )
            self.pending.append((redirect, delim, op == "<<-", target.quoted))
        elif op == "<<<" and target is not None:
            redirect.body = target.literal()
            if redirect.body is None:
                redirect.body = target.text
        cmd.redirects.append(redirect)

    def _read_heredocs(self) -> None:
        pending, self.pending = self.pending, []
        in_sub = ")" in self.ends
        for redirect, delim, strip, quoted in pending:
            lines: list[str] = []
            while self.pos < len(self.src):
                eol = self.src.find("\n", self.pos)
                line_end = len(self.src) if eol < 0 else eol
                line = self.src[self.pos : line_end]
                check = line.lstrip("\t") if strip else line
                if check == delim:
                    self.pos = line_end + 1 if eol >= 0 else line_end
                    break
                if in_sub and check.startswith(delim) and check[len(delim) :].lstrip().startswith(")"):
                    # "EOF)" closing both the here-doc and the $( … ) on one line.
                    self.pos += len(line) - len(check) + len(delim)
                    break
                lines.append(check)
                self.pos = line_end + 1 if eol >= 0 else line_end
            body = "\n".join(lines)
            redirect.body = body
            if not quoted:
                # An unquoted delimiter means $( … ) in the body runs.
                redirect.body_subs = _Parser(body, self.depth + 1).expansions()
        return

    def expansions(self) -> list[Sub]:
        """Substitutions in a here-doc body (parsed like double-quoted text)."""
        parts: list[Part] = []
        while self.pos < len(self.src):
            c = self.src[self.pos]
            if c == "\\":
                self.pos += 2
            elif c == "$":
                self._dollar(parts, quoted=True)
            elif c == "`":
                self.pos += 1
                parts.append(self._sub("`", "`"))
            else:
                self.pos += 1
        found: list[Sub] = []
        for p in parts:
            if isinstance(p, Sub):
                found.append(p)
            elif isinstance(p, Var) and p.arg is not None:
                found.extend(p.arg.subs())
        return found

    # -- words
    def _word(self) -> Word:
        start = self.pos
        parts: list[Part] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), False))
                buf.clear()

        src = self.src
        while self.pos < len(src):
            c = src[self.pos]
            if c in "<>" and self._peek(1) == "(":
                flush()
                self.pos += 2
                parts.append(self._sub(")", c + "("))
                continue
            if c in _WORD_BREAK:
                break
            if c == "`" and self.ends and self.ends[-1] == "`":
                break
            if c == "\\":
                nxt = self._peek(1)
                if nxt == "\n":
                    self.pos += 2
                    continue
                flush()
                parts.append(Lit(nxt, True))
                self.pos += 2 if nxt else 1
                continue
            if c == "'":
                close = src.find("'", self.pos + 1)
                if close < 0:
                    raise ShellParseError("unbalanced single quote")
                flush()
                parts.append(Lit(src[self.pos + 1 : close], True))
                self.pos = close + 1
                continue
            if c == '"':
                flush()
                self._dquote(parts)
                continue
            if c == "$":
                flush()
                self._dollar(parts, quoted=False)
                continue
            if c == "`":
                flush()
                self.pos += 1
                parts.append(self._sub("`", "`"))
                continue
            if c == "~" and (self.pos == start or _is_assignment_prefix("".join(buf), parts)):
                m = re.match(r"~([A-Za-z0-9._-]*)", src[self.pos :])
                assert m is not None
                after = src[self.pos + len(m.group()) : self.pos + len(m.group()) + 1]
                if after in ("", "/", ":", "`") or after in _WORD_BREAK:
                    flush()
                    parts.append(Var("~" + m.group(1)))
                    self.pos += len(m.group())
                    continue
            buf.append(c)
            self.pos += 1
        flush()
        return Word(_merge(parts), src[start : self.pos])

    def _dquote(self, parts: list[Part]) -> None:
        self.pos += 1
        before = len(parts)
        buf: list[str] = []

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), True))
                buf.clear()

        src = self.src
        while True:
            if self.pos >= len(src):
                raise ShellParseError("unbalanced double quote")
            c = src[self.pos]
            if c == '"':
                self.pos += 1
                break
            if c == "\\":
                nxt = self._peek(1)
                if nxt in ("$", "`", '"', "\\"):
                    buf.append(nxt)
                    self.pos += 2
                elif nxt == "\n":
                    self.pos += 2
                else:
                    buf.append("\\")
                    self.pos += 1
                continue
            if c == "$":
                flush()
                self._dollar(parts, quoted=True)
                continue
            if c == "`":
                flush()
                self.pos += 1
                parts.append(self._sub("`", "`"))
                continue
            buf.append(c)
            self.pos += 1
        flush()
        if len(parts) == before:
            parts.append(Lit("", True))  # "" is still an (empty) word

    def _dollar(self, parts: list[Part], quoted: bool) -> None:
        src = self.src
        nxt = self._peek(1)
        if nxt == "(" and self._peek(2) == "(":
            start = self.pos
            self.pos += 1
            self._skip_balanced("((", "))")
            inner = src[start + 3 : self.pos - 2]
            # Arithmetic may still contain $( … ): keep those substitutions.
            subs = _Parser(inner, self.depth + 1).expansions()
            parts.append(Var("((arith))", "other", Word(list(subs), inner), quoted))
            return
        if nxt == "(":
            self.pos += 2
            parts.append(self._sub(")", "$("))
            return
        if nxt == "{":
            self._brace_param(parts, quoted)
            return
        if nxt == "'" and not quoted:
            close = self.pos + 2
            while close < len(src) and src[close] != "'":
                close += 2 if src[close] == "\\" else 1
            if close >= len(src):
                raise ShellParseError("unbalanced $' quote")
            parts.append(Lit(decode_escapes(src[self.pos + 2 : close]), True))
            self.pos = close + 1
            return
        if nxt == '"' and not quoted:
            self.pos += 1
            self._dquote(parts)
            return
        m = _NAME_RE.match(src, self.pos + 1)
        if m:
            parts.append(Var(m.group(), quoted=quoted))
            self.pos = m.end()
            return
        if nxt and nxt in _SPECIAL_PARAMS:
            parts.append(Var(nxt, quoted=quoted))
            self.pos += 2
            return
        parts.append(Lit("$", quoted))
        self.pos += 1

    def _brace_param(self, parts: list[Part], quoted: bool) -> None:
        src = self.src
        i = self.pos + 2
        level = 1
        while i < len(src):
            ch = src[i]
            if ch == "\\":
                i += 2
                continue
            if ch == "{":
                level += 1
            elif ch == "}":
                level -= 1
                if level == 0:
                    break
            elif ch in "'\"":
                close = src.find(ch, i + 1)
                if close < 0:
                    raise ShellParseError("unbalanced quote in ${…}")
                i = close
            i += 1
        if i >= len(src):
            raise ShellParseError("unterminated ${")
        inner = src[self.pos + 2 : i]
        self.pos = i + 1
        m = re.match(r"(!?#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(.*)\Z", inner, re.S)
        if not m:
            parts.append(Var("?", "other", None, quoted))
            return
        prefix, name, rest = m.groups()
        if prefix:
            parts.append(Var(name, "other", None, quoted))
            return
        op = next((o for o in _VAR_OPS if rest.startswith(o)), "other" if rest else "")
        arg: Word | None = None
        if rest:
            arg_src = rest[len(op) :] if op != "other" else rest
            sub_parser = _Parser(arg_src, self.depth + 1)
            sub_parser.ends.append("")
            arg_parts: list[Part] = []
            while sub_parser.pos < len(arg_src):
                # Read the default as one word even if it contains blanks.
                if arg_src[sub_parser.pos] in _WORD_BREAK:
                    arg_parts.append(Lit(arg_src[sub_parser.pos], True))
                    sub_parser.pos += 1
                    continue
                arg_parts.extend(sub_parser._word().parts)
            arg = Word(_merge(arg_parts), arg_src)
        parts.append(Var(name, op, arg, quoted))

    def _sub(self, end: str, kind: str) -> Sub:
        self._deeper()
        saved, self.pending = self.pending, []
        start = self.pos
        script = self.parse_list(end)
        self.pending = saved
        self.depth -= 1
        source = self.src[start : max(start, self.pos - 1)]
        return Sub(script, kind, source)


def _is_assignment_prefix(buf: str, parts: list[Part]) -> bool:
    # "X=~/dir": bash expands a tilde right after the "=" of an assignment.
    return not parts and bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=", buf))


def _merge(parts: list[Part]) -> list[Part]:
    merged: list[Part] = []
    for p in parts:
        if isinstance(p, Lit) and merged and isinstance(merged[-1], Lit) and merged[-1].quoted == p.quoted:
            last = merged[-1]
            merged[-1] = Lit(last.text + p.text, last.quoted)
        else:
            merged.append(p)
    return merged


@functools.lru_cache(maxsize=64)
def parse(src: str) -> Script:
    """Parse a shell command into a :class:`Script` (cached: hooks share one parse)."""
    if len(src) > MAX_LENGTH:
        raise ShellParseError(f"command is {len(src)} characters, too long to inspect")
    parser = _Parser(src)
    script = parser.parse_list("")
    return script


# --------------------------------------------------------------------------- resolution


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

    def __init__(
        self,
        cwd: str | None,
        project: str,
        home: str,
        vars: dict[str, list[str] | None] | None = None,
        remote: bool = False,
        files: dict[str, str] | None = None,
    ) -> None:
        self.cwd = cwd
        self.project = project
        self.home = home
        self.vars = {} if vars is None else vars
        self.remote = remote
        self.files = {} if files is None else files

    def child(self, remote: bool | None = None) -> Ctx:
        """A copy for a subshell (variable and cd changes inside do not leak out)."""
        return Ctx(
            self.cwd, self.project, self.home, dict(self.vars), self.remote if remote is None else remote, self.files
        )

    def written(self, word: Word) -> str | None:
        """Content this command wrote earlier to the file ``word`` names, if known."""
        values = expand(word, self)
        if not values:
            return None
        path = normalize(values[0], self.cwd)
        return self.files.get(path) if path else None


_BRACE_RE = re.compile(r"\{([^{}]*,[^{}]*)\}")
_RANGE_RE = re.compile(r"\{(-?\d+)\.\.(-?\d+)\}")


def brace_expand(text: str) -> list[str]:
    """Expand ``{a,b}`` and ``{1..3}`` the way bash does for unquoted text (bounded)."""
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


def _var_values(var: Var, ctx: Ctx) -> list[str] | None:
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
    return None


def _sub_values(sub: Sub, ctx: Ctx) -> list[str] | None:
    """What a simple substitution prints, when that is knowable (pwd, echo, which, dirname…)."""
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
        return [" ".join(words)] if words else None
    if (name in ("which", "type") and args) or (name == "command" and "-v" in args):
        return [os.path.basename(args[-1])]
    if name == "printf" and args and "%" not in args[0]:
        return [decode_escapes(args[0])]
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


def expand(word: Word, ctx: Ctx) -> list[str] | None:
    """Candidate values of ``word``; None when a part cannot be known statically."""
    results = [""]
    for part in word.parts:
        options: list[str] | None
        if isinstance(part, Lit):
            options = [part.text] if part.quoted else brace_expand(part.text)
        elif isinstance(part, Var):
            options = _var_values(part, ctx)
        else:
            options = _sub_values(part, ctx)
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
        got = _var_values(part, ctx) if isinstance(part, Var) else _sub_values(part, ctx)
        out.append(got[0] if got else "*")
    return "".join(out)


def unknown_then_slash(word: Word, ctx: Ctx) -> bool:
    """``"$X/"`` or ``$X/*`` with X unknown: if X is empty this names the filesystem root."""
    if not word.parts:
        return False
    first = word.parts[0]
    if isinstance(first, Var):
        if first.op in (":?", "?") or first.name.startswith("~"):
            return False
        if _var_values(first, ctx) is not None:
            return False
    elif isinstance(first, Sub):
        if _sub_values(first, ctx) is not None:
            return False
    else:
        return False
    rest = "".join(p.text for p in word.parts[1:] if isinstance(p, Lit))
    if len(word.parts) > 1 and not all(isinstance(p, Lit) for p in word.parts[1:]):
        return False
    return rest.startswith("/") and rest.strip("/") in ("", "*", ".*", "**", "*/")


# --------------------------------------------------------------------------- paths

GLOB_CHARS = frozenset("*?[")
MATCH_ALL_GLOBS = frozenset({"*", ".*", "**", "*.*", "?*", ".[!.]*", "..?*", "{*,.*}"})


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


# --------------------------------------------------------------------------- walking

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "posh", "rbash"})
INTERPRETERS = frozenset({"python", "perl", "ruby", "node", "nodejs", "php", "deno", "bun", "osascript", "pwsh", "lua"})
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET"})
DECODERS = frozenset({"base64", "base32", "xxd", "uudecode", "openssl", "gunzip", "zcat", "rev", "tr"})


def prog_name(word: Word, ctx: Ctx) -> str:
    """The program a word names: basename, lowercased, ``python3.11`` → ``python``."""
    values = expand(word, ctx)
    if not values:
        return ""
    name = os.path.basename(values[0].rstrip("/")).lower()
    if re.fullmatch(r"python[0-9.]*", name) or name in ("pypy", "pypy3"):
        return "python"
    if re.fullmatch(r"(perl|ruby|php|lua)[0-9.]*", name):
        return re.sub(r"[0-9.]+$", "", name)
    if name.startswith("busybox"):
        return "busybox"
    return name


def is_assignment(word: Word) -> bool:
    """``NAME=value`` (the name part unquoted)."""
    first = word.parts[0] if word.parts else None
    return (
        isinstance(first, Lit) and not first.quoted and re.match(r"[A-Za-z_][A-Za-z0-9_]*\+?=", first.text) is not None
    )


def split_assignment(word: Word) -> tuple[str, Word]:
    """Split ``NAME=value`` into the name and the value word."""
    first = word.parts[0]
    assert isinstance(first, Lit)
    name, _, rest = first.text.partition("=")
    value_parts: list[Part] = ([Lit(rest, False)] if rest else []) + word.parts[1:]
    return name.rstrip("+"), Word(value_parts, word.raw.partition("=")[2])


class Cmd:
    """One command that would run, after wrappers were stripped."""

    name: str
    argv: list[Word]
    redirects: list[Redirect]
    ctx: Ctx
    origin: str
    stage: int
    stage_names: list[set[str]]
    prev: Cmd | None
    xargs: bool
    stdin_text: str | None
    wrappers: list[str]

    def __init__(
        self,
        name: str,
        argv: list[Word],
        redirects: list[Redirect],
        ctx: Ctx,
        origin: str = "top",
        stage: int = 0,
        stage_names: list[set[str]] | None = None,
        prev: Cmd | None = None,
        xargs: bool = False,
        stdin_text: str | None = None,
        wrappers: list[str] | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self.redirects = redirects
        self.ctx = ctx
        self.origin = origin
        self.stage = stage
        self.stage_names = [] if stage_names is None else stage_names
        self.prev = prev
        self.xargs = xargs
        self.stdin_text = stdin_text
        self.wrappers = [] if wrappers is None else wrappers

    @property
    def args(self) -> list[Word]:
        """Arguments after the program name."""
        return self.argv[1:]

    def values(self, word: Word) -> list[str] | None:
        """Candidate values of ``word`` in this command's context."""
        return expand(word, self.ctx)

    @property
    def display(self) -> str:
        """The command in display form, shortened."""
        text = " ".join(w.text for w in self.argv)
        return text if len(text) <= 120 else text[:117] + "..."


class OptSpec:
    """Options of a wrapper or tool: which take a value, and where commands start."""

    with_value: frozenset[str]
    positional_before_cmd: int

    def __init__(
        self,
        with_value: frozenset[str] = frozenset(),
        positional_before_cmd: int = 0,
    ) -> None:
        self.with_value = with_value
        self.positional_before_cmd = positional_before_cmd


def split_options(
    args: list[Word], with_value: frozenset[str] | set[str] = frozenset(), stop_at_first: bool = False
) -> tuple[list[str], list[Word], dict[str, list[Word]]]:
    """GNU-style option split.

    Returns (flags, positionals, values): short clusters are expanded (``-rf`` → ``r``,
    ``f``), long options keep their name (``recursive``), options in ``with_value`` take
    the next word (or ``=value``). ``--`` ends options. With ``stop_at_first`` the first
    positional ends option parsing (as for wrappers).
    """
    flags: list[str] = []
    positionals: list[Word] = []
    values: dict[str, list[Word]] = {}
    i = 0
    ended = False
    while i < len(args):
        word = args[i]
        text = word.literal()
        if ended or text is None or not text.startswith("-") or text == "-":
            positionals.append(word)
            i += 1
            if stop_at_first:
                positionals.extend(args[i:])
                break
            continue
        if text == "--":
            ended = True
            i += 1
            continue
        if text.startswith("--"):
            name, eq, val = text[2:].partition("=")
            flags.append(name)
            if eq:
                values.setdefault(name, []).append(Word([Lit(val, True)], val))
            elif "--" + name in with_value and i + 1 < len(args):
                values.setdefault(name, []).append(args[i + 1])
                i += 1
            i += 1
            continue
        cluster = text[1:]
        for j, ch in enumerate(cluster):
            flags.append(ch)
            if "-" + ch in with_value:
                rest = cluster[j + 1 :]
                if rest:
                    values.setdefault(ch, []).append(Word([Lit(rest, True)], rest))
                elif i + 1 < len(args):
                    values.setdefault(ch, []).append(args[i + 1])
                    i += 1
                break
        i += 1
    return flags, positionals, values


_WRAPPERS: dict[str, OptSpec] = {
    "sudo": OptSpec(
        frozenset(
            {
                "-u",
                "-g",
                "-p",
                "-C",
                "-D",
                "-h",
                "-r",
                "-t",
                "-T",
                "-U",
                "--user",
                "--group",
                "--prompt",
                "--close-from",
                "--chdir",
                "--host",
                "--role",
                "--type",
                "--command-timeout",
                "--other-user",
            }
        )
    ),
    "doas": OptSpec(frozenset({"-u", "-C"})),
    "nice": OptSpec(frozenset({"-n", "--adjustment"})),
    "nohup": OptSpec(),
    "builtin": OptSpec(),
    "exec": OptSpec(frozenset({"-a"})),
    "time": OptSpec(frozenset({"-f", "--format", "-o", "--output"})),
    "stdbuf": OptSpec(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})),
    "ionice": OptSpec(frozenset({"-c", "-n", "-t", "--class", "--classdata"})),
    "timeout": OptSpec(frozenset({"-s", "--signal", "-k", "--kill-after"}), 1),
    "chroot": OptSpec(frozenset({"--userspec", "--groups"}), 1),
    "setsid": OptSpec(),
    "taskset": OptSpec(frozenset(), 1),
    "chrt": OptSpec(frozenset(), 1),
    "unbuffer": OptSpec(),
    "caffeinate": OptSpec(frozenset({"-t", "-w"})),
    "busybox": OptSpec(),
    "proxychains": OptSpec(frozenset({"-f"})),
    "proxychains4": OptSpec(frozenset({"-f"})),
    "torsocks": OptSpec(),
    "strace": OptSpec(frozenset({"-o", "-e", "-p", "-s", "-u"})),
    "ltrace": OptSpec(frozenset({"-o", "-e", "-p", "-s", "-u"})),
    "npx": OptSpec(frozenset({"-p", "--package"})),
    "pnpx": OptSpec(frozenset({"-p", "--package"})),
    "bunx": OptSpec(frozenset({"-p", "--package"})),
    "then": OptSpec(),
    "do": OptSpec(),
    "else": OptSpec(),
    "elif": OptSpec(),
    "if": OptSpec(),
    "while": OptSpec(),
    "until": OptSpec(),
    "!": OptSpec(),
}
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!"})
_XARGS_VALUE = frozenset(
    {
        "-I",
        "-n",
        "-P",
        "-d",
        "-L",
        "-s",
        "-a",
        "-E",
        "-e",
        "--max-args",
        "--max-procs",
        "--delimiter",
        "--arg-file",
        "--replace",
        "--max-lines",
        "--eof",
        "--max-chars",
        "--process-slot-var",
    }
)
_ENV_VALUE = frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})
_SSH_VALUE = frozenset(
    {
        "-b",
        "-c",
        "-D",
        "-E",
        "-e",
        "-F",
        "-I",
        "-i",
        "-J",
        "-L",
        "-l",
        "-m",
        "-O",
        "-o",
        "-p",
        "-Q",
        "-R",
        "-S",
        "-W",
        "-w",
        "-B",
    }
)
_SU_VALUE = frozenset(
    {"-c", "--command", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"}
)
_DOCKER_EXEC_VALUE = frozenset(
    {"-e", "--env", "-u", "--user", "-w", "--workdir", "--env-file", "--detach-keys", "--index"}
)
_KUBECTL_EXEC_VALUE = frozenset(
    {"-c", "--container", "-n", "--namespace", "-f", "--filename", "--context", "--kubeconfig", "--pod-running-timeout"}
)
# "uv run CMD", "bundle exec CMD": tools whose subcommand runs another program.
_RUNNERS = {
    "uv": "run",
    "poetry": "run",
    "pipenv": "run",
    "pdm": "run",
    "hatch": "run",
    "rye": "run",
    "bundle": "exec",
    "pnpm": "exec",
    "conda": "run",
}
_SHELL_VALUE = frozenset({"-o", "-O", "+O", "+o", "--rcfile", "--init-file"})
_WATCH_VALUE = frozenset({"-n", "--interval", "-q", "--equexit"})


# Options that take a value, per tool, so a value is not mistaken for a file argument.
VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes", "-s"}),
    "grep": frozenset(
        {
            "-e",
            "-f",
            "-m",
            "-A",
            "-B",
            "-C",
            "--regexp",
            "--file",
            "--max-count",
            "--include",
            "--exclude",
            "--label",
            "-d",
            "-D",
        }
    ),
    "rg": frozenset(
        {
            "-e",
            "-f",
            "-g",
            "--glob",
            "-t",
            "--type",
            "-T",
            "-m",
            "-A",
            "-B",
            "-C",
            "--regexp",
            "--file",
            "-r",
            "--replace",
            "-j",
            "-M",
        }
    ),
    "sed": frozenset({"-e", "-f", "-l", "--expression", "--file"}),
    "awk": frozenset({"-f", "-v", "-F"}),
    "gawk": frozenset({"-f", "-v", "-F"}),
    "cut": frozenset({"-d", "-f", "-c", "-b"}),
    "sort": frozenset({"-k", "-t", "-o", "-S"}),
    "tar": frozenset({"-f", "-C", "--file", "--directory", "-T", "-X", "--exclude"}),
    "make": frozenset({"-C", "--directory", "-f", "--file", "-j", "--jobs", "-I", "-o", "-W"}),
    "xxd": frozenset({"-l", "-s", "-c", "-g"}),
    "base64": frozenset({"-w", "--wrap"}),
    "cp": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "install": frozenset({"-t", "--target-directory", "-m", "-o", "-g"}),
    "scp": frozenset({"-i", "-P", "-o", "-F", "-c", "-l", "-J", "-S"}),
    "rsync": frozenset({"-e", "--exclude", "--include", "--rsh", "-f", "--filter"}),
    "jq": frozenset({"--arg", "--argjson", "-f", "--from-file", "--indent"}),
    "split": frozenset({"-l", "-b", "-n", "-a"}),
    "diff": frozenset({"-U", "-C", "-x", "-X"}),
}
VALUE_OPTIONS["egrep"] = VALUE_OPTIONS["fgrep"] = VALUE_OPTIONS["grep"]
VALUE_OPTIONS["ag"] = VALUE_OPTIONS["ack"] = VALUE_OPTIONS["rg"]
VALUE_OPTIONS["mawk"] = VALUE_OPTIONS["awk"]
# Tools whose first positional is a pattern/program unless -e/-f gives it.
PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "jq", "yq"})


class _Unwrapped:
    argv: list[Word]
    wrappers: list[str]
    xargs: bool
    scripts: list[tuple[str, str, bool]]  # origin, text, remote
    remote: bool

    def __init__(
        self,
        argv: list[Word],
        wrappers: list[str] | None = None,
        xargs: bool = False,
        scripts: list[tuple[str, str, bool]] | None = None,
        remote: bool = False,
    ) -> None:
        self.argv = argv
        self.wrappers = [] if wrappers is None else wrappers
        self.xargs = xargs
        self.scripts = [] if scripts is None else scripts
        self.remote = remote


def _words_text(words: list[Word], ctx: Ctx) -> str:
    out: list[str] = []
    for w in words:
        values = expand(w, ctx)
        out.append(values[0] if values else w.text)
    return " ".join(out)


def unwrap(words: list[Word], ctx: Ctx) -> _Unwrapped:
    """Strip leading assignments and wrapper programs (sudo, env, nice, timeout, xargs…)."""
    result = _Unwrapped(list(words))
    argv = result.argv
    for _ in range(32):
        while argv and is_assignment(argv[0]):
            argv.pop(0)
        if not argv:
            return result
        first = argv[0].parts
        if len(first) == 1 and isinstance(first[0], Var) and not first[0].quoted:
            known = _var_values(first[0], ctx)
            if known and len(known[0].split()) > 1:
                # Unquoted $CMD is split into words: x='rm -rf /'; $x runs rm.
                argv[:1] = [Word([Lit(w, True)], w) for w in known[0].split()]
        name = prog_name(argv[0], ctx)
        rest = argv[1:]
        if name in _WRAPPERS:
            spec = _WRAPPERS[name]
            if name == "sudo" and rest:
                flags, _pos, _vals = split_options(rest, spec.with_value, stop_at_first=True)
                if not _pos and ("s" in flags or "i" in flags or "shell" in flags):
                    argv[:] = [Word([Lit("sh", True)], "sh")]
                    result.wrappers.append(name)
                    continue
            if name == "nice" and rest and re.fullmatch(r"-\d+", rest[0].literal() or ""):
                rest = rest[1:]
            _flags, positionals, _vals = split_options(rest, spec.with_value, stop_at_first=True)
            if len(positionals) <= spec.positional_before_cmd and name not in _KEYWORDS:
                argv[:] = argv[:1]  # "sudo -v", "time": nothing wrapped, the tool itself runs
                return result
            argv[:] = positionals[spec.positional_before_cmd :]
            result.wrappers.append(name)
            continue
        if name == "command":
            flags, positionals, _vals = split_options(rest, frozenset(), stop_at_first=True)
            if "v" in flags or "V" in flags:
                argv[:] = []  # "command -v x" only looks x up
                return result
            argv[:] = positionals
            result.wrappers.append(name)
            continue
        if name == "env":
            flags, positionals, values = split_options(rest, _ENV_VALUE, stop_at_first=True)
            for split in values.get("S", []) + values.get("split-string", []):
                result.scripts.append(
                    ("env -S", _words_text([split], ctx) + " " + _words_text(positionals, ctx), ctx.remote)
                )
            if values.get("S") or values.get("split-string"):
                argv[:] = []
                return result
            if not positionals:
                argv[:] = argv[:1]  # bare "env" prints the environment
                return result
            argv[:] = positionals
            result.wrappers.append(name)
            continue
        if name == "xargs":
            _flags, positionals, _vals = split_options(rest, _XARGS_VALUE, stop_at_first=True)
            argv[:] = positionals or [Word([Lit("echo", True)], "echo")]
            result.xargs = True
            result.wrappers.append(name)
            continue
        if name in ("flock",):
            _flags, positionals, values = split_options(
                rest, frozenset({"-w", "-E", "-c", "--command", "--timeout"}), stop_at_first=True
            )
            for script in values.get("c", []) + values.get("command", []):
                result.scripts.append(("flock -c", _words_text([script], ctx), ctx.remote))
            argv[:] = positionals[1:]
            result.wrappers.append(name)
            continue
        if name == "watch":
            _flags, positionals, _vals = split_options(rest, _WATCH_VALUE, stop_at_first=True)
            result.scripts.append(("watch", _words_text(positionals, ctx), ctx.remote))
            argv[:] = []
            return result
        if name in ("su", "runuser"):
            _flags, _pos, values = split_options(rest, _SU_VALUE)
            scripts = values.get("c", []) + values.get("command", [])
            for script in scripts:
                result.scripts.append((name + " -c", _words_text([script], ctx), ctx.remote))
            argv[:] = [] if scripts else [Word([Lit("sh", True)], "sh")]
            if scripts:
                return result
            continue
        if name == "ssh":
            _flags, positionals, _vals = split_options(rest, _SSH_VALUE, stop_at_first=True)
            if len(positionals) > 1:
                result.scripts.append(("ssh", _words_text(positionals[1:], ctx), True))
            argv[:] = []
            return result
        if name in ("docker", "podman") and rest and rest[0].literal() == "exec":
            _flags, positionals, _vals = split_options(rest[1:], _DOCKER_EXEC_VALUE, stop_at_first=True)
            argv[:] = positionals[1:]
            result.remote = True
            result.wrappers.append(name + " exec")
            continue
        if name in _RUNNERS and rest and rest[0].literal() == _RUNNERS[name]:
            _flags, positionals, _vals = split_options(
                rest[1:], frozenset({"--with", "-p", "--python", "--env-file"}), stop_at_first=True
            )
            argv[:] = positionals
            result.wrappers.append(f"{name} {_RUNNERS[name]}")
            continue
        if name == "kubectl" and rest and rest[0].literal() == "exec":
            dash = next((i for i, w in enumerate(rest) if w.literal() == "--"), None)
            argv[:] = rest[dash + 1 :] if dash is not None else []
            result.remote = True
            result.wrappers.append("kubectl exec")
            continue
        return result
    return result


def shell_invocation(args: list[Word]) -> tuple[Word | None, bool, Word | None]:
    """How ``bash ARGS`` gets its script: (inline -c word, reads stdin, script file word)."""
    has_c = False
    has_s = False
    i = 0
    while i < len(args):
        text = args[i].literal()
        if text is None or not text.startswith(("-", "+")) or text in ("-", "--"):
            break
        if text in _SHELL_VALUE:
            i += 2
            continue
        if not text.startswith("--"):
            has_c = has_c or "c" in text[1:]
            has_s = has_s or "s" in text[1:]
        i += 1
    if i < len(args) and args[i].literal() == "--":
        i += 1
    if has_c:
        return (args[i] if i < len(args) else None), False, None
    if has_s or i >= len(args) or args[i].literal() == "-":
        return None, True, None
    return None, False, args[i]


def _stdin_text(command: Command, prev: Cmd | None, ctx: Ctx) -> str | None:
    """Text fed to a command's stdin: a here-doc or here-string, a file this command wrote
    earlier, or what a literal echo/printf/cat in front of it in the pipeline prints."""
    for r in command.redirects:
        if r.op == "<<<" and r.target is not None:
            values = expand(r.target, ctx)  # here-strings expand variables
            return values[0] if values else r.body
        if r.op in ("<<", "<<-") and r.body is not None:
            return r.body
        if r.op == "<" and r.target is not None:
            written = ctx.written(r.target)
            if written is not None:
                return written
    if prev is None:
        return None
    return printed_text(prev)


def printed_text(cmd: Cmd) -> str | None:
    """What an echo/printf (or cat/tee of a here-doc) prints, when it is literal."""
    if cmd.name == "echo":
        words = cmd.args
        escapes = False
        while words and (words[0].literal() or "").startswith("-") and len(words[0].raw) <= 4:
            escapes = escapes or "e" in (words[0].literal() or "")
            words = words[1:]
        text = _words_text(words, cmd.ctx)
        return (decode_escapes(text) if escapes else text) + "\n"
    if cmd.name == "printf" and cmd.args:
        fmt = decode_escapes(_words_text(cmd.args[:1], cmd.ctx))
        rest = [_words_text([w], cmd.ctx) for w in cmd.args[1:]]
        while "%s" in fmt and rest:
            fmt = fmt.replace("%s", rest.pop(0), 1)
        return fmt + (" " + " ".join(rest) if rest else "")
    if cmd.name in ("cat", "tee"):
        for r in cmd.redirects:
            if r.op in ("<<", "<<-", "<<<") and r.body is not None:
                return r.body + "\n"
        if cmd.name == "cat" and cmd.args:
            parts = [cmd.ctx.written(w) for w in cmd.args]
            if all(p is not None for p in parts):
                return "".join(p for p in parts if p is not None)
    return None


def _record_written(command: Command, cmd: Cmd, ctx: Ctx) -> None:
    text = printed_text(cmd)
    if text is None:
        return
    targets = [
        (r.target, r.op == ">>") for r in command.redirects if r.op in (">", ">>", ">|", "&>") and r.target is not None
    ]
    if cmd.name == "tee":
        append = any(w.literal() in ("-a", "--append") for w in cmd.args)
        targets += [(w, append) for w in cmd.args if not (w.literal() or "").startswith("-")]
    for word, append in targets:
        values = expand(word, ctx)
        path = normalize(values[0], ctx.cwd) if values else None
        if path:
            ctx.files[path] = (ctx.files.get(path, "") if append else "") + text


def walk(src: str, ctx: Ctx) -> list[Cmd]:
    """Every command ``src`` would run (recursively), in execution order."""
    out: list[Cmd] = []
    _walk_script(parse(src), ctx, "top", 0, out)
    return out


def _walk_text(text: str, ctx: Ctx, origin: str, depth: int, out: list[Cmd]) -> None:
    if depth > MAX_DEPTH:
        raise ShellParseError("command nests too deeply to inspect")
    _walk_script(parse(text), ctx, origin, depth + 1, out)


def _stage_names(command: Command, ctx: Ctx) -> set[str]:
    if command.body is not None:
        names: set[str] = set()
        for pipe in command.body.pipelines:
            for inner in pipe.commands:
                names |= _stage_names(inner, ctx)
        return names
    argv = unwrap(command.words, ctx).argv
    return {prog_name(argv[0], ctx)} if argv else set()


def _walk_script(script: Script, ctx: Ctx, origin: str, depth: int, out: list[Cmd]) -> None:
    for pipeline in script.pipelines:
        names = [_stage_names(c, ctx) for c in pipeline.commands]
        prev: Cmd | None = None
        for index, command in enumerate(pipeline.commands):
            # Substitutions run before the command itself, in a subshell.
            for word in command.words:
                for sub in word.subs():
                    _walk_script(sub.script, ctx.child(), "subst", depth + 1, out)
            for r in command.redirects:
                for sub in (r.target.subs() if r.target else []) + r.body_subs:
                    _walk_script(sub.script, ctx.child(), "subst", depth + 1, out)
            if command.funcdef:
                continue
            if command.body is not None:
                if command.redirects:
                    out.append(Cmd("", [], command.redirects, ctx.child(), origin, index, names))
                _walk_script(command.body, ctx.child() if not command.words else ctx, origin, depth + 1, out)
                prev = None
                continue
            prev = _walk_command(command, ctx, origin, depth, out, index, names, prev)


def _walk_command(
    command: Command,
    ctx: Ctx,
    origin: str,
    depth: int,
    out: list[Cmd],
    index: int,
    names: list[set[str]],
    prev: Cmd | None,
) -> Cmd | None:
    words = command.words
    if words and all(is_assignment(w) for w in words):
        for w in words:
            name, value = split_assignment(w)
            ctx.vars[name] = expand(value, ctx)
        out.append(Cmd("", [], command.redirects, ctx, origin, index, names, prev))
        return None
    first = words[0].literal() if words else None
    if first in _NON_COMMANDS:
        if first == "for":
            _assign_loop(words[1:], ctx)
        if command.redirects:  # "done < file" still reads/writes the file
            out.append(Cmd("", [], command.redirects, ctx.child(), origin, index, names, prev))
        return prev
    un = unwrap(words, ctx)
    cctx = ctx.child(remote=True) if un.remote else ctx
    for script_origin, text, remote in un.scripts:
        _walk_text(text, ctx.child(remote=remote or ctx.remote), script_origin, depth, out)
    argv = un.argv
    name = prog_name(argv[0], cctx) if argv else ""
    snapshot = Ctx(cctx.cwd, cctx.project, cctx.home, dict(cctx.vars), cctx.remote, cctx.files)
    cmd = Cmd(name, argv, command.redirects, snapshot, origin, index, names, prev, un.xargs, wrappers=un.wrappers)
    cmd.stdin_text = _stdin_text(command, prev, cctx)
    out.append(cmd)
    _record_written(command, cmd, cctx)
    if not argv:
        return cmd
    args = argv[1:]
    program = cctx.written(argv[0]) if "/" in argv[0].text else None
    if program is not None:
        _walk_text(program, cctx.child(), "script file", depth, out)  # ./script.sh
    if name in SHELLS or name == "busybox" or name in ("source", "."):
        script: Word | None = None
        reads_stdin = False
        script_file: Word | None = args[0] if args else None
        if name not in ("source", "."):
            script, reads_stdin, script_file = shell_invocation(args)
        written = cctx.written(script_file) if script_file is not None else None
        if script is not None:
            _walk_text(_words_text([script], cctx), cctx.child(), "shell -c", depth, out)
        elif reads_stdin and cmd.stdin_text is not None:
            _walk_text(cmd.stdin_text, cctx.child(), "shell stdin", depth, out)
        elif written is not None:
            _walk_text(written, cctx.child(), "script file", depth, out)
    elif name == "eval" and args:
        _walk_text(_words_text(args, cctx), cctx, "eval", depth, out)
    elif name == "find":
        _walk_find_exec(cmd, cctx, depth, out)
    elif name in INTERPRETERS:
        _walk_code(cmd, cctx, depth, out)
    elif name in ("export", "declare", "typeset", "local", "readonly"):
        for w in args:
            if is_assignment(w):
                var, value = split_assignment(w)
                ctx.vars[var] = expand(value, ctx)
    elif name in ("cd", "pushd") and not cctx.remote:
        targets = [w for w in args if not (w.literal() or "").startswith("-")]
        if not targets:
            ctx.cwd = ctx.home
        else:
            values = expand(targets[0], ctx)
            ctx.cwd = normalize(values[0], ctx.cwd) if values and len(values) == 1 else None
    elif name == "read":
        for w in args:
            lit = w.literal()
            if lit and _NAME_RE.fullmatch(lit):
                ctx.vars[lit] = None
    return cmd


_NON_COMMANDS = frozenset({"for", "select", "case", "esac", "done", "fi", "in", "function"})


def _assign_loop(args: list[Word], ctx: Ctx) -> None:
    """``for VAR in a b c``: VAR may take any of the values."""
    if len(args) < 2 or args[1].literal() != "in":
        return
    var = args[0].literal() or ""
    items: list[str] | None = []
    for w in args[2:]:
        got = expand(w, ctx)
        if got is None or items is None:
            items = None
            break
        items.extend(got)
    ctx.vars[var] = items[:MAX_CANDIDATES] if items else None


def names_in(script: Script, ctx: Ctx) -> set[str]:
    """Program names anywhere in ``script``, including nested substitutions."""
    names: set[str] = set()
    for pipe in script.pipelines:
        for command in pipe.commands:
            names |= _stage_names(command, ctx)
            for word in command.words:
                for sub in word.subs():
                    names |= names_in(sub.script, ctx)
            if command.body is not None:
                names |= names_in(command.body, ctx)
    return names


def _walk_find_exec(cmd: Cmd, ctx: Ctx, depth: int, out: list[Cmd]) -> None:
    args = cmd.args
    i = 0
    while i < len(args):
        lit = args[i].literal()
        if lit in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j].literal() not in (";", "+"):
                j += 1
            inner = args[i + 1 : j]
            if inner:
                un = unwrap(inner, ctx)
                if un.argv:
                    out.append(
                        Cmd(prog_name(un.argv[0], ctx), un.argv, [], ctx, "find -exec", wrappers=[*un.wrappers, "find"])
                    )
            i = j
        i += 1


_CODE_SHELL_CALL = re.compile(
    r"""(?:system|popen|exec|execSync|spawnSync|shell_exec|passthru|getoutput|check_output|run|call)
        \s*\(\s*(?P<q>["'`])(?P<cmd>.+?)(?P=q)""",
    re.X | re.S,
)
_CODE_RMTREE = re.compile(
    r"""(?:rmtree|rmSync|rmdirSync|rm_rf|rm_r|remove_dir_all|removedirs|remove_tree)
        \s*\(\s*(?P<q>["'])(?P<path>.+?)(?P=q)""",
    re.X | re.S,
)
_CODE_WALK = re.compile(
    r"""(?:os\.walk|os\.scandir|os\.listdir|glob\.glob|Path|find|Find\.find|readdirSync)"""
    r"""\s*\(\s*(?P<q>["'])(?P<path>[^"']+)(?P=q)"""
)
_CODE_DELETES = re.compile(r"\b(?:remove|unlink|rmtree|rmdir|rmSync|unlinkSync|rm_rf)\b")
_CODE_BACKTICK = re.compile(r"`([^`]+)`")


def code_of(cmd: Cmd) -> list[str]:
    """Code an interpreter runs: ``-c``/``-e`` arguments, a script file this command wrote
    earlier, else a here-doc or piped text."""
    codes: list[str] = []
    args = cmd.args
    script = next((w for w in args if not (w.literal() or "").startswith("-")), None)
    written = cmd.ctx.written(script) if script is not None else None
    if written is not None:
        codes.append(written)
    for i, w in enumerate(args):
        lit = w.literal()
        if lit is not None and re.fullmatch(r"-[A-Za-z]*[ceE]|--eval", lit) and i + 1 < len(args):
            codes.append(_words_text([args[i + 1]], cmd.ctx))
    # No script file among the arguments: the interpreter reads its code from stdin.
    reads_stdin = all((w.literal() or "").startswith("-") for w in args)
    if not codes and cmd.stdin_text is not None and reads_stdin:
        codes.append(cmd.stdin_text)
    return codes


_CODE_FILE_REFS = (
    (re.compile(r"""\bopen\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)(?:\s*,\s*(?P<r>["'])(?P<m>[^"']*)(?P=r))?"""), ""),
    (
        re.compile(
            r"""(?:readFileSync|readFile|createReadStream|File\.read|File\.readlines|"""
            r"""IO\.read|file_get_contents)\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)"""
        ),
        "r",
    ),
    (
        re.compile(
            r"""(?:writeFileSync|writeFile|appendFileSync|createWriteStream|File\.write|"""
            r"""IO\.write|file_put_contents|unlinkSync|rmSync)\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)"""
        ),
        "w",
    ),
    (
        re.compile(
            r"""Path\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)\s*\)\.(?P<m>read_text|read_bytes|"""
            r"""write_text|write_bytes|unlink|open|touch)"""
        ),
        "",
    ),
)


def code_file_refs(cmd: Cmd) -> list[tuple[str, bool]]:
    """Files an interpreter's inline code opens: (path, writes)."""
    refs: list[tuple[str, bool]] = []
    for code in code_of(cmd):
        for pattern, mode in _CODE_FILE_REFS:
            for m in pattern.finditer(code):
                how = mode or (m.groupdict().get("m") or "r")
                writes = any(c in how for c in "wax+") or how.startswith(("write", "unlink", "touch"))
                refs.append((m.group("p"), writes))
    return refs


def _walk_code(cmd: Cmd, ctx: Ctx, depth: int, out: list[Cmd]) -> None:
    for code in code_of(cmd):
        shell_cmds, rm_paths, argvs = _code_actions(code, python=cmd.name == "python")
        for text in shell_cmds:
            try:
                _walk_text(text, ctx.child(), "code", depth, out)
            except ShellParseError:
                continue
        for path in rm_paths:
            parts: list[Part] = [Lit(path, True)]
            if path == "~" or path.startswith("~/"):
                parts = [Var("~"), Lit(path[1:], True)]
            word = Word(parts, path)
            out.append(
                Cmd("rm", [Word([Lit("rm", True)], "rm"), Word([Lit("-rf", True)], "-rf"), word], [], ctx, "code")
            )
        for argv in argvs:
            words = [Word([Lit(a, True)], a) for a in argv]
            un = unwrap(words, ctx)
            if un.argv:
                out.append(Cmd(prog_name(un.argv[0], ctx), un.argv, [], ctx, "code", wrappers=un.wrappers))


def _code_actions(code: str, python: bool) -> tuple[list[str], list[str], list[list[str]]]:
    """Shell strings, recursively deleted paths and argv lists found in interpreter code."""
    shell_cmds: list[str] = []
    rm_paths: list[str] = []
    argvs: list[list[str]] = []
    if python:
        import ast  # only for python -c code; keeps the hooks' start-up light

        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                func = node.func
                fname = (
                    func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
                )
                first = node.args[0]
                text = _py_str(first)
                items: list[str] | None = None
                if isinstance(first, ast.List | ast.Tuple) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in first.elts
                ):
                    items = [str(e.value) for e in first.elts if isinstance(e, ast.Constant)]
                if fname in ("system", "popen", "getoutput", "getstatusoutput") and text:
                    shell_cmds.append(text)
                elif fname in ("run", "call", "check_call", "check_output", "Popen"):
                    if text:
                        shell_cmds.append(text)
                    elif items:
                        argvs.append(items)
                elif fname in ("execv", "execvp", "execl", "execlp", "spawnv") and items:
                    argvs.append(items)
                elif fname in ("rmtree", "removedirs") and text:
                    rm_paths.append(text)
            _walk_deletes(code, rm_paths)
            return shell_cmds, rm_paths, argvs
    shell_cmds.extend(m.group("cmd") for m in _CODE_SHELL_CALL.finditer(code))
    shell_cmds.extend(m.group(1) for m in _CODE_BACKTICK.finditer(code))
    rm_paths.extend(m.group("path") for m in _CODE_RMTREE.finditer(code))
    _walk_deletes(code, rm_paths)
    return shell_cmds, rm_paths, argvs


def _py_str(node: ast.AST) -> str | None:
    """The string a simple Python expression evaluates to (constants, expanduser('~'),
    Path.home(), os.environ['HOME'], os.path.join/Path / of those); None otherwise."""
    import ast

    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Subscript):
        key = _py_str(node.slice)
        return "~" if key == "HOME" and "environ" in ast.dump(node.value) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _py_str(node.left), _py_str(node.right)
        return os.path.join(left, right) if left is not None and right is not None else None
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    fname = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
    args = [_py_str(a) for a in node.args]
    if fname == "home" and not node.args:
        return "~"
    if fname in ("getenv", "get") and args[:1] == ["HOME"]:
        return "~"
    if (
        fname
        in (
            "expanduser",
            "expandvars",
            "abspath",
            "realpath",
            "normpath",
            "Path",
            "PurePath",
            "str",
            "resolve",
            "fspath",
        )
        and args
        and args[0] is not None
    ):
        return args[0]
    if fname == "join" and args and all(a is not None for a in args):
        return os.path.join(*[a for a in args if a is not None])
    return None


def _walk_deletes(code: str, rm_paths: list[str]) -> None:
    # A tree walk over a literal root combined with deleting calls acts like rm -rf root.
    if _CODE_DELETES.search(code):
        rm_paths.extend(m.group("path") for m in _CODE_WALK.finditer(code))


def make_ctx(cwd: str | None, project: str, home: str | None = None) -> Ctx:
    """A walking context for a command run in ``cwd`` inside ``project``."""
    return Ctx(cwd=cwd, project=project, home=home or os.path.expanduser("~"))
