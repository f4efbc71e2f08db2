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


class Arith:
    """An arithmetic expansion ``$(( … ))``: its expression text and the substitutions in it."""

    source: str
    subs: list[Sub]
    quoted: bool

    def __init__(self, source: str, subs: list[Sub], quoted: bool = False) -> None:
        self.source = source
        self.subs = subs
        self.quoted = quoted


Part = Lit | Var | Sub | Arith


class Word:
    """One shell word made of literal, variable and substitution parts."""

    parts: list[Part]
    raw: str
    pos: int

    def __init__(self, parts: list[Part], raw: str, pos: int = -1) -> None:
        self.parts = parts
        self.raw = raw
        self.pos = pos  # offset of the word in the parsed source; -1 when made up
        # literal() is asked of the same word by many rules; parts never change after parsing.
        self._literal: str | None = None
        self._literal_known = False

    @property
    def text(self) -> str:
        """Display form: literals as-is, ``$NAME`` for variables, ``$(…)`` for substitutions."""
        out: list[str] = []
        for p in self.parts:
            if isinstance(p, Lit):
                out.append(p.text)
            elif isinstance(p, Var):
                out.append("~" + p.name[1:] if p.name.startswith("~") else "${" + p.name + "}")
            elif isinstance(p, Arith):
                out.append(f"$(({p.source}))")
            else:
                opener = "$(" if p.kind in ("$(", "`") else p.kind
                out.append(f"{opener}{p.source})")
        return "".join(out)

    def literal(self) -> str | None:
        """The word's value if it has no expansions, else None."""
        if not self._literal_known:
            if all(isinstance(p, Lit) for p in self.parts):
                self._literal = "".join(p.text for p in self.parts if isinstance(p, Lit))
            self._literal_known = True
        return self._literal

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
            elif isinstance(p, Arith):
                found.extend(p.subs)
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
    """One command of a pipeline: a simple command, or a compound one (``kind`` says which).

    * ``simple``: ``words`` (assignments first); ``body`` holds the elements of an array
      assignment ``X=(a $(b))`` so their substitutions are seen;
    * ``subshell`` ``( … )`` and ``group`` ``{ …; }``: ``body``;
    * ``if``: ``clauses`` = condition, branch, [condition, branch …], [else branch];
    * ``while`` / ``until``: ``clauses`` = condition, body;
    * ``for`` / ``select``: ``words`` = the variable, then the items (``items`` is False for
      ``for x; do`` over ``"$@"``), ``clauses`` = body; ``for (( … ))`` has ``arith`` instead;
    * ``case``: ``words`` = the subject, ``patterns[i]`` the patterns of arm ``i``,
      ``clauses[i]`` its body;
    * ``cond`` ``[[ … ]]``: ``words`` = the test's words and operators, between the brackets;
    * ``arith`` ``(( … ))``: ``arith``;
    * ``function``: ``words`` = the name, ``body`` = the function body (a script with one
      compound command).

    ``redirects`` apply to the whole command (``done < list``, ``} > log``).
    """

    kind: str
    words: list[Word]
    redirects: list[Redirect]
    body: Script | None
    clauses: list[Script]
    patterns: list[list[Word]]
    arith: Arith | None
    items: bool

    def __init__(
        self,
        words: list[Word] | None = None,
        redirects: list[Redirect] | None = None,
        body: Script | None = None,
        kind: str = "simple",
    ) -> None:
        self.kind = kind
        self.words = [] if words is None else words
        self.redirects = [] if redirects is None else redirects
        self.body = body
        self.clauses = []
        self.patterns = []
        self.arith = None
        self.items = True

    @property
    def funcdef(self) -> bool:
        """Whether this command defines a function."""
        return self.kind == "function"

    def empty(self) -> bool:
        """Whether nothing has been parsed into this command yet."""
        return self.kind == "simple" and not self.words and not self.redirects and self.body is None

    def is_array_assignment(self) -> bool:
        """``X=(a b c)``: the parenthesised body holds elements, not commands."""
        return self.body is not None and bool(self.words) and self.words[-1].raw.endswith("=")

    def scripts(self) -> list[Script]:
        """The lists nested in this command (body, then clauses), in source order."""
        return ([self.body] if self.body is not None else []) + self.clauses


class Pipeline:
    """Commands joined by ``|``; ``negated`` for ``! cmd``; ``sep`` is the operator after it
    (``&&``, ``||``, ``;``, ``&``; empty for a newline or the end)."""

    commands: list[Command]
    negated: bool
    sep: str

    def __init__(self, commands: list[Command] | None = None, negated: bool = False) -> None:
        self.commands = [] if commands is None else commands
        self.negated = negated
        self.sep = ""


class Script:
    """Pipelines joined by ``;``, ``&&``, ``||``, ``&`` or newlines."""

    pipelines: list[Pipeline]

    def __init__(self, pipelines: list[Pipeline] | None = None) -> None:
        self.pipelines = [] if pipelines is None else pipelines

    def simple_commands(self) -> list[Command]:
        """Every simple command in the script, nested lists and substitutions included, in
        source order (here-document bodies excepted: they are parsed separately)."""
        found: list[Command] = []
        for pipe in self.pipelines:
            for command in pipe.commands:
                if command.kind in ("simple", "cond"):
                    _words_subs(command.words, found)
                    if command.kind == "simple" and command.words:
                        found.append(command)
                if command.arith is not None:
                    for sub in command.arith.subs:
                        found.extend(sub.script.simple_commands())
                for patterns in command.patterns:
                    _words_subs(patterns, found)
                if command.kind in ("for", "select", "case"):
                    _words_subs(command.words, found)
                if command.kind == "simple" and command.body is not None and command.is_array_assignment():
                    # The elements of an array assignment X=(a $(b)) are words, not commands.
                    for inner_pipe in command.body.pipelines:
                        for element in inner_pipe.commands:
                            _words_subs(element.words, found)
                else:
                    for inner in command.scripts():
                        found.extend(inner.simple_commands())
                for r in command.redirects:
                    if r.target is not None:
                        _words_subs([r.target], found)
        found.sort(key=lambda c: c.words[0].pos if c.words else -1)
        return found


def _words_subs(words: list[Word], found: list[Command]) -> None:
    for word in words:
        for sub in word.subs():
            found.extend(sub.script.simple_commands())
