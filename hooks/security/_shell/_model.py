"""The parsed shape of a command line: words made of parts, redirections, commands,
pipelines and scripts (lists), and the error raised when a command cannot be parsed."""

from __future__ import annotations

MAX_DEPTH = 16
MAX_LENGTH = 100_000
MAX_CANDIDATES = 64


class ShellParseError(ValueError):
    """The command could not be parsed (unbalanced quotes, unterminated ``$(`` …)."""


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
