"""Lexer and recursive-descent parser: source text to a :class:`Script`."""

from __future__ import annotations

import functools
import re

from ._lazy_re import lazy_compile
from ._model import (
    MAX_DEPTH,
    MAX_LENGTH,
    Arith,
    Command,
    Lit,
    Part,
    Pipeline,
    Redirect,
    Script,
    ShellParseError,
    Sub,
    Var,
    Word,
)

_OPERATORS = (
    ";;&", "&>>", "<<<", "<<-",
    ";;", ";&", "&&", "||", "|&", "&>", "<<", "<>", "<&", ">>", ">&", ">|",
    ";", "&", "|", "<", ">",
)  # fmt: skip
_REDIRECTS = frozenset({"&>>", "<<<", "<<-", "&>", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">"})
_WORD_BREAK = frozenset(" \t\n;&|()<>")
NAME_RE = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
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


# Reserved words that open a compound command when they start a command.
_OPENERS = frozenset({"if", "while", "until", "for", "select", "case", "function", "[["})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})


class _Parser:
    """Recursive-descent tokenizer/parser over one source string.

    ``base`` is the offset of ``src`` in the text the user wrote (for a ``${X:-…}`` default or
    a ``$(( … ))`` expression parsed on its own), so every word knows where it stands.
    """

    def __init__(self, src: str, depth: int = 0, base: int = 0) -> None:
        self.src = src
        self.pos = 0
        self.depth = depth
        self.base = base
        self.ends: list[str] = []
        self.pending: list[tuple[Redirect, str, bool, bool]] = []
        self.stopped = ""  # the reserved word or case operator that ended the last list

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

    def _skip_separators(self) -> None:
        """Blanks, newlines (reading pending here-docs), ``;`` and comments."""
        while True:
            self._skip_blanks()
            c = self._peek()
            if c == "\n":
                self.pos += 1
                self._read_heredocs()
            elif c == ";" and self._peek(1) not in (";", "&"):
                self.pos += 1
            elif c == "#":
                nl = self.src.find("\n", self.pos)
                self.pos = len(self.src) if nl < 0 else nl
            else:
                return

    def _deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ShellParseError("command nests too deeply to inspect")

    # -- lists
    def parse_list(self, end: str = "", stops: frozenset[str] = frozenset()) -> Script:
        """Parse until ``end`` (``""`` = end of input, ``)``, `` ` `` or ``}``) or, for the
        lists inside a compound command, a reserved word in ``stops`` (``then``, ``fi``,
        ``done`` …; ``;;`` and its kin when ``esac`` is a stop). A list inside a compound
        command stops at ``end`` without consuming it: the list that owns ``end`` does."""
        script = Script()
        pipe = Pipeline()
        cmd = Command()
        nested = bool(stops)
        self.stopped = ""

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
                    if not nested:
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
                    if end == ")":
                        if not nested:
                            self.pos += 1
                        break
                    self.pos += 1
                    finish_pipe()  # stray ")": ignore it
                    continue
                if c == "(":
                    self._open_paren(cmd)
                    continue
                if c in "<>" and self._peek(1) == "(":
                    cmd.words.append(self._word())
                    continue
                if c in ";&|<>":
                    op = self._operator()
                    if op in _CASE_ENDS and "esac" in stops:
                        self.stopped = op
                        break
                    if op in ("|", "|&"):
                        finish_cmd()
                    elif op in _REDIRECTS:
                        self._redirect(cmd, op, "")
                    else:
                        pipe.sep = op  # ";", "&&", "||", "&": how the next pipeline depends on it
                        finish_pipe()
                    continue
                if cmd.empty() and c == "{" and self._peek(1) in (" ", "\t", "\n", ""):
                    self._group(cmd)
                    continue
                start = self.pos
                word = self._word()
                lit = word.literal() if not word.quoted else None
                if cmd.empty() and lit is not None:
                    if lit in stops:
                        self.stopped = lit
                        break
                    if lit == "}" and end == "}":
                        if nested:
                            self.pos = start
                        break
                    if lit == "!" and not pipe.commands:
                        pipe.negated = True
                        continue
                    if lit in _OPENERS:
                        self._compound(cmd, lit)
                        continue
                if lit is not None and lit.isdigit() and self._peek() in ("<", ">"):
                    op = self._operator()
                    self._redirect(cmd, op, lit)
                    continue
                cmd.words.append(word)
            finish_pipe()
        finally:
            self.ends.pop()
        # Here-docs whose body never came (input ended on the same line): empty bodies.
        if end == "" and not nested:
            for redirect, _delim, _strip, _quoted in self.pending:
                redirect.body = redirect.body or ""
            self.pending = []
        return script

    def _inner(self, stops: frozenset[str]) -> Script:
        """A list inside a compound command, ended by one of ``stops``."""
        self._deeper()
        script = self.parse_list(self.ends[-1] if self.ends else "", stops)
        self.depth -= 1
        return script

    # -- compound commands
    def _compound(self, cmd: Command, keyword: str) -> None:
        if keyword == "if":
            self._if(cmd)
        elif keyword in ("while", "until"):
            cmd.kind = keyword
            cmd.clauses.append(self._inner(frozenset({"do"})))
            cmd.clauses.append(self._inner(frozenset({"done"})))
        elif keyword in ("for", "select"):
            self._for(cmd, keyword)
        elif keyword == "case":
            self._case(cmd)
        elif keyword == "[[":
            self._cond(cmd)
        else:
            self._function(cmd)

    def _if(self, cmd: Command) -> None:
        cmd.kind = "if"
        cmd.clauses.append(self._inner(frozenset({"then"})))
        cmd.clauses.append(self._inner(frozenset({"elif", "else", "fi"})))
        while self.stopped == "elif":
            cmd.clauses.append(self._inner(frozenset({"then"})))
            cmd.clauses.append(self._inner(frozenset({"elif", "else", "fi"})))
        if self.stopped == "else":
            cmd.clauses.append(self._inner(frozenset({"fi"})))

    def _for(self, cmd: Command, keyword: str) -> None:
        cmd.kind = keyword
        self._skip_blanks()
        if self.src.startswith("((", self.pos):
            cmd.arith = self._arith_at(self.pos + 2, quoted=False)
        else:
            cmd.words.extend(w for w in [self._word_here()] if w is not None)
            self._skip_blanks()
            while self._peek() == "\n":
                self.pos += 1
                self._skip_blanks()
            cmd.items = False
            if self._at_word("in"):
                self.pos += 2
                cmd.items = True
                while True:
                    self._skip_blanks()
                    word = self._word_here()
                    if word is None:
                        break
                    cmd.words.append(word)
        # Up to "do": normally just ";" or a newline, kept as a list to stay lenient.
        head = self._inner(frozenset({"do"}))
        body = self._inner(frozenset({"done"}))
        if head.pipelines:
            body.pipelines[:0] = head.pipelines
        cmd.clauses.append(body)

    def _word_here(self) -> Word | None:
        """The word at the current position, or None where no word starts (an operator,
        the end of input, or the backtick that closes the enclosing substitution)."""
        start = self.pos
        if start >= len(self.src) or (self.src[start] in _WORD_BREAK and not self.src.startswith(("<(", ">("), start)):
            return None
        word = self._word()
        if self.pos == start:
            return None
        return word

    def _at_word(self, word: str) -> bool:
        end = self.pos + len(word)
        return self.src.startswith(word, self.pos) and (end >= len(self.src) or self.src[end] in _WORD_BREAK | {"`"})

    def _case(self, cmd: Command) -> None:
        cmd.kind = "case"
        self._skip_blanks()
        cmd.words.extend(w for w in [self._word_here()] if w is not None)
        self._skip_separators()
        if self._at_word("in"):
            self.pos += 2
        while True:
            self._skip_separators()
            if self.pos >= len(self.src) or self._at_word("esac"):
                self.pos = min(len(self.src), self.pos + 4)
                return
            if self._peek() == ")" or self._peek() == self.ends[-1] == "`":
                return  # the enclosing $( … ) or `…` ends here: unterminated case
            if self._peek() == "(":
                self.pos += 1
            patterns: list[Word] = []
            while self.pos < len(self.src):
                self._skip_blanks()
                c = self._peek()
                if c == ")":
                    self.pos += 1
                    break
                if c == "|":
                    self.pos += 1
                    continue
                word = self._word_here()
                if word is None:
                    raise ShellParseError("malformed case pattern")
                patterns.append(word)
            cmd.patterns.append(patterns)
            cmd.clauses.append(self._inner(frozenset({"esac"})))
            if self.stopped in ("esac", ""):
                return

    def _cond(self, cmd: Command) -> None:
        """``[[ … ]]``: words and operators up to ``]]``; ``=~`` takes a raw regex."""
        cmd.kind = "cond"
        while True:
            self._skip_blanks()
            if self.pos >= len(self.src):
                return
            c = self.src[self.pos]
            if c == "\n":
                self.pos += 1
                continue
            if c in "&|<>()!" and not (c in "<>" and self._peek(1) == "("):
                op = c * 2 if c in "&|" and self._peek(1) == c else c
                cmd.words.append(Word([Lit(op, False)], op, self.base + self.pos))
                self.pos += len(op)
                continue
            word = self._word_here()
            if word is None or (word.literal() == "]]" and not word.quoted):
                return
            cmd.words.append(word)
            if word.literal() == "=~":
                self._skip_blanks()
                cmd.words.append(self._regex())

    def _regex(self) -> Word:
        """The right side of ``=~``: up to a blank outside parentheses and quotes."""
        start = self.pos
        level = 0
        while self.pos < len(self.src):
            c = self.src[self.pos]
            if c == "\\":
                self.pos += 2
                continue
            if c in "'\"":
                close = self.src.find(c, self.pos + 1)
                self.pos = len(self.src) if close < 0 else close + 1
                continue
            if c == "(":
                level += 1
            elif c == ")":
                if level == 0:
                    break
                level -= 1
            elif c in " \t\n" and level == 0:
                break
            self.pos += 1
        text = self.src[start : self.pos]
        return Word([Lit(text, True)], text, self.base + start)

    def _function(self, cmd: Command) -> None:
        """``function NAME [()] BODY`` (``NAME () BODY`` comes through :meth:`_open_paren`)."""
        self._skip_blanks()
        cmd.words.extend(w for w in [self._word_here()] if w is not None)
        self._skip_blanks()
        if self.src.startswith("()", self.pos):
            self.pos += 2
        self._function_body(cmd)

    def _function_body(self, cmd: Command) -> None:
        cmd.kind = "function"
        while True:
            self._skip_blanks()
            if self._peek() != "\n":
                break
            self.pos += 1
        body = Command()
        c = self._peek()
        if c == "{":
            self._group(body)
        elif c == "(":
            self._open_paren(body)
        else:
            start = self.pos
            word = self._word() if c and c not in _WORD_BREAK else None
            lit = word.literal() if word is not None else None
            if lit in _OPENERS and lit is not None:
                self._compound(body, lit)
            else:
                self.pos = start  # "f() echo hi" is not bash; read it as the next command
        cmd.body = Script([Pipeline([body])]) if not body.empty() else Script()

    def _group(self, cmd: Command) -> None:
        self.pos += 1
        self._deeper()
        cmd.kind = "group"
        cmd.body = self.parse_list("}")
        self.depth -= 1

    def _open_paren(self, cmd: Command) -> None:
        if cmd.empty() and self._peek(1) == "(":
            # Arithmetic command (( … )).
            cmd.kind = "arith"
            cmd.arith = self._arith_at(self.pos + 2, quoted=False)
            return
        self.pos += 1
        if cmd.empty():
            self._deeper()
            cmd.kind = "subshell"
            cmd.body = self.parse_list(")")
            self.depth -= 1
            return
        self._skip_blanks()
        if self._peek() == ")" and len(cmd.words) == 1 and cmd.kind == "simple":
            self.pos += 1
            self._function_body(cmd)  # name() BODY
            return
        # Array assignment X=(a b c): parse the elements as a body so substitutions are seen.
        self._deeper()
        inner = self.parse_list(")")
        self.depth -= 1
        cmd.body = inner if cmd.body is None else cmd.body

    def _arith_at(self, start: int, quoted: bool) -> Arith:
        """The arithmetic text from ``start`` up to the matching ``))``; position after it."""
        level = 0
        i = start
        while i < len(self.src):
            c = self.src[i]
            if c == "(":
                level += 1
            elif c == ")":
                if level == 0:
                    if self.src.startswith("))", i):
                        break
                    raise ShellParseError("unbalanced parentheses in (( ))")
                level -= 1
            i += 1
        else:
            raise ShellParseError("unterminated ((")
        inner = self.src[start:i]
        self.pos = i + 2
        # Arithmetic may still contain $( … ): keep those substitutions.
        subs = _Parser(inner, self.depth + 1, self.base + start).expansions()
        return Arith(inner, subs, quoted)

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
                p.text if isinstance(p, Lit) else "$" + p.name for p in target.parts if isinstance(p, Lit | Var)
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
        return Word(parts, self.src).subs()

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
        return Word(_merge(parts), src[start : self.pos], self.base + start)

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
            parts.append(self._arith_at(self.pos + 3, quoted))
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
        m = NAME_RE.match(src, self.pos + 1)
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
        inner_start = self.pos + 2
        inner = src[inner_start:i]
        self.pos = i + 1
        m = re.match(r"(!?#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(.*)\Z", inner, re.S)
        if not m:
            parts.append(Var("?", "other", None, quoted))
            return
        prefix, name, rest = m.groups()
        if prefix:
            # ${#X} is X's length, ${!X} another variable's value: neither is X's text.
            parts.append(Var(name, "length" if prefix == "#" else "other", None, quoted))
            return
        op = next((o for o in _VAR_OPS if rest.startswith(o)), "other" if rest else "")
        arg: Word | None = None
        if rest:
            arg_src = rest[len(op) :] if op != "other" else rest
            arg_start = self.base + inner_start + len(inner) - len(arg_src)
            sub_parser = _Parser(arg_src, self.depth + 1, arg_start)
            sub_parser.ends.append("")
            arg_parts: list[Part] = []
            while sub_parser.pos < len(arg_src):
                # Read the default as one word even if it contains blanks.
                if arg_src[sub_parser.pos] in _WORD_BREAK:
                    arg_parts.append(Lit(arg_src[sub_parser.pos], True))
                    sub_parser.pos += 1
                    continue
                arg_parts.extend(sub_parser._word().parts)
            arg = Word(_merge(arg_parts), arg_src, arg_start)
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
