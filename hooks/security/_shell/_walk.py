"""The walker: every command a script would run, in order, recursing into substitutions,
``bash -c``, ``eval``, scripts fed on stdin or written earlier, ``find -exec`` and inline code."""

from __future__ import annotations

import contextlib
import re
import shlex

from ._commands import (
    INTERPRETERS,
    POWERSHELLS,
    SHELLS,
    Cmd,
    is_assignment,
    powershell_code,
    printed_text,
    prog_name,
    replace_in,
    shell_invocation,
    split_assignment,
    split_options,
    unwrap,
    words_text,
)
from ._expand import Ctx, expand, normalize
from ._inline import AWKS, awk_commands, code_actions, code_of
from ._lazy_re import lazy_compile
from ._model import MAX_CANDIDATES, MAX_DEPTH, Command, Lit, Part, Pipeline, Script, ShellParseError, Sub, Var, Word
from ._parser import NAME_RE, parse


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
    if command.kind == "cond":
        return {"[["}
    if command.body is not None or command.kind != "simple":
        names: set[str] = set()
        for script in command.scripts():
            for pipe in script.pipelines:
                for inner in pipe.commands:
                    names |= _stage_names(inner, ctx)
        return names
    argv = unwrap(command.words, ctx).argv
    names = {prog_name(argv[0], ctx)} if argv else set()
    # cat <(curl …) | sh: what a process substitution prints flows on through this stage.
    for word in command.words:
        for sub in word.subs():
            if sub.kind == "<(":
                names |= names_in(sub.script, ctx)
    return names


def _walk_script(
    script: Script, ctx: Ctx, origin: str, depth: int, out: list[Cmd], guards: list[Cmd] | None = None
) -> None:
    chain: list[Cmd] = list(guards or [])
    failed: list[Cmd] = []  # commands that must have failed: "a || b", "! a && b"
    either = False  # after "a || b", "&& c" runs when a OR b succeeded: neither is known
    for pipeline in script.pipelines:
        start = len(out)
        _walk_pipeline(pipeline, ctx, origin, depth, out)
        for cmd in out[start:]:
            cmd.guards = [*chain, *cmd.guards]
            cmd.unless = [*failed, *cmd.unless]
        ran = out[start:]
        # a && b: b runs only if a succeeded; a || b: only if a failed; after ";" or "&", or
        # after (a || b) && c, nothing is known.
        was_either = either
        either = pipeline.sep == "||" or (either and pipeline.sep == "&&")
        known = pipeline.sep == "&&" and not pipeline.negated and not either
        chain = [*chain, *ran] if known else list(guards or [])
        opposite = (pipeline.sep == "||" and not pipeline.negated) or (pipeline.sep == "&&" and pipeline.negated)
        failed = ran if opposite and not was_either else []


def _walk_pipeline(pipeline: Pipeline, ctx: Ctx, origin: str, depth: int, out: list[Cmd]) -> None:
    """The commands of one pipeline, stage by stage, with what flows between them."""
    names = [_stage_names(c, ctx) for c in pipeline.commands]
    prev: Cmd | None = None
    for index, command in enumerate(pipeline.commands):
        # Substitutions run before the command itself, in a subshell.
        for sub in _command_subs(command):
            _walk_script(sub.script, ctx.child(), "subst", depth + 1, out)
        fed: tuple[str | None, set[str]] = (None, set())
        for r in command.redirects:
            for sub in (r.target.subs() if r.target else []) + r.body_subs:
                start = len(out)
                _walk_script(sub.script, ctx.child(), "subst", depth + 1, out)
                if r.op == "<" and sub.kind == "<(":
                    # cmd < <(producer): stdin is what the producer prints, like a pipe.
                    printed = printed_text(out[-1]) if len(out) > start else None
                    fed = (printed, fed[1] | names_in(sub.script, ctx))
                elif r.op == "<<<" or (r.op in ("<<", "<<-") and sub in r.body_subs):
                    # bash <<< "$(curl …)": the here-string holds what the producer printed.
                    fed = (fed[0], fed[1] | names_in(sub.script, ctx))
        if command.kind not in ("simple", "cond"):
            _walk_compound(command, ctx, origin, depth, out, index, names)
            prev = None
            continue
        if command.kind == "cond":
            # [[ … ]] runs no program; its words still reach the rules as a "[[" command.
            bracket = [Word([Lit("[[", False)], "[["), *command.words, Word([Lit("]]", False)], "]]")]
            command = Command(bracket, command.redirects)
        if command.is_array_assignment() and command.body is not None:
            # X=(a $(b) c): the elements are words (data); only their substitutions run.
            for pipe in command.body.pipelines:
                for element in pipe.commands:
                    for sub in _command_subs(element):
                        _walk_script(sub.script, ctx.child(), "subst", depth + 1, out)
            name = command.words[-1].raw.rstrip("=").rstrip("+")
            ctx.vars[name] = None
            prev = None
            continue
        if command.body is not None:
            if command.redirects:
                out.append(Cmd("", [], command.redirects, ctx.child(), origin, index, names))
            _walk_script(command.body, ctx.child() if not command.words else ctx, origin, depth + 1, out)
            prev = None
            continue
        prev = _walk_command(command, ctx, origin, depth, out, index, names, prev, fed)


def _command_subs(command: Command) -> list[Sub]:
    """Substitutions in the words a command expands before it runs (for a loop, its items;
    for a case, its subject and patterns; for (( … )), its expression)."""
    subs = [sub for word in command.words for sub in word.subs()]
    for patterns in command.patterns:
        subs += [sub for word in patterns for sub in word.subs()]
    if command.arith is not None:
        subs += command.arith.subs
    return subs


def _walk_compound(
    command: Command, ctx: Ctx, origin: str, depth: int, out: list[Cmd], index: int, names: list[set[str]]
) -> None:
    """Subshells, groups, functions, if/while/until/for/select/case and (( … ))."""
    if command.redirects:  # "done < file", "} > log" still read or write the file
        out.append(Cmd("", [], command.redirects, ctx.child(), origin, index, names))
    if command.kind == "function" and command.words:
        ctx.functions[command.words[0].literal() or command.words[0].text] = command
    if command.kind in ("for", "select") and command.words:
        _assign_loop(command.words[0], command.words[1:] if command.items else None, ctx)
    if command.kind in ("while", "until") and len(command.clauses) == 2 and _endless_spawner(command):
        ctx.spawn_loops.append(command.kind)
    # A subshell's or a group's variables and cd stay inside (the group too: the rules
    # would rather forget a value than carry a wrong one); the other lists share the context.
    inner = ctx.child() if command.kind in ("subshell", "group") else ctx
    if command.kind == "if":
        # if COND; then BRANCH; elif COND2; then BRANCH2; else REST; fi: a branch runs only
        # after its condition succeeded.
        clauses = command.clauses
        cond_start = cond_end = 0
        for i, script in enumerate(clauses):
            start = len(out)
            guard = out[cond_start:cond_end] if i % 2 == 1 else []
            _walk_script(script, inner, origin, depth + 1, out, guard)
            if i % 2 == 0 and i + 1 < len(clauses):
                cond_start, cond_end = start, len(out)
        return
    for script in command.scripts():
        _walk_script(script, inner, origin, depth + 1, out)


def _walk_command(
    command: Command,
    ctx: Ctx,
    origin: str,
    depth: int,
    out: list[Cmd],
    index: int,
    names: list[set[str]],
    prev: Cmd | None,
    fed: tuple[str | None, set[str]] = (None, set()),
) -> Cmd | None:
    words = command.words
    if words and all(is_assignment(w) for w in words):
        for w in words:
            name, value = split_assignment(w)
            ctx.assign(name, value)
            ctx.sources[name] = _value_sources(value, ctx)
        out.append(Cmd("", [], command.redirects, ctx, origin, index, names, prev))
        return None
    first = words[0].literal() if words else None
    if first in _NON_COMMANDS:
        # A reserved word where the parser expected a command (malformed input): not a program.
        if command.redirects:  # "done < file" still reads/writes the file
            out.append(Cmd("", [], command.redirects, ctx.child(), origin, index, names, prev))
        return prev
    un = unwrap(words, ctx)
    cctx = ctx.child(remote=True) if un.remote else ctx
    for script_origin, text, remote in un.scripts:
        _walk_text(text, ctx.child(remote=remote or ctx.remote), script_origin, depth, out)
        if script_origin.startswith("ssh ") and _REMOTE_STDIN_SHELL.fullmatch(text):
            # ssh host <<'EOF' … EOF, ssh host 'bash -s' < <(…): the remote shell runs stdin.
            fed_text = fed[0] if fed[0] is not None else _stdin_text(command, prev, ctx)
            if fed_text is not None:
                _walk_text(fed_text, ctx.child(remote=True), script_origin, depth, out)
    argv = un.argv
    name = prog_name(argv[0], cctx) if argv else ""
    snapshot = cctx.child()
    env: dict[str, str] = {}
    for word in words:
        if not is_assignment(word):
            break
        var, value = split_assignment(word)
        env[var] = words_text([value], ctx)
    cmd = Cmd(
        name, argv, command.redirects, snapshot, origin, index, names, prev, un.xargs, wrappers=un.wrappers, env=env
    )
    cmd.stdin_text = fed[0] if fed[0] is not None else _stdin_text(command, prev, cctx)
    cmd.stdin_sources = fed[1]
    cmd.forwards = un.forwards
    cmd.replace = un.replace
    out.append(cmd)
    _record_written(command, cmd, cctx)
    if not argv:
        return cmd
    args = argv[1:]
    _walk_runs(cmd, cctx, depth, out)
    if un.replace and cmd.stdin_text is not None:
        # xargs -I{} sh -c 'rm -rf {}' <<< "$HOME": each known input line takes {}'s place.
        lines = [line.strip() for line in cmd.stdin_text.splitlines() if line.strip()]
        for line in lines[:MAX_CANDIDATES]:
            filled = replace_in(argv, un.replace, line)
            each = Cmd(name, filled, [], snapshot, origin, index, names, prev, True, wrappers=un.wrappers, env=env)
            out.append(each)
            _walk_runs(each, cctx, depth, out)
    if name in ("export", "declare", "typeset", "local", "readonly"):
        for w in args:
            if is_assignment(w):
                var, value = split_assignment(w)
                ctx.assign(var, value)
                ctx.sources[var] = _value_sources(value, ctx)
    elif name in ("cd", "pushd") and not cctx.remote:
        targets = [w for w in args if not (w.literal() or "").startswith("-")]
        ctx.cwd_from = ""
        before = ctx.cwd
        if name == "cd" and any(w.literal() == "-" for w in args):
            # cd -: back to the directory before the last cd; before any, where the agent was
            # last (unknown: judged as the home folder, the worst place it may be).
            ctx.cwd = ctx.oldpwd if ctx.oldpwd is not None else ctx.home
        elif not targets:
            ctx.cwd = ctx.home
        else:
            values = expand(targets[0], ctx)
            ctx.cwd = normalize(values[0], ctx.cwd) if values and len(values) == 1 else None
            if ctx.cwd is None:
                # cd $DIR with DIR unknown: if it is empty, cd goes home (or stays here).
                # Only a target that is the variable alone (cd "$DIR", cd $DIR) and one not assigned
                # earlier in the command (DIR=$(mktemp -d)) can come out empty.
                only = targets[0].parts[0] if len(targets[0].parts) == 1 else None
                if isinstance(only, Var) and only.op == "" and only.name not in ctx.vars and only.name[:1] != "~":
                    ctx.cwd_from = "$" + only.name
        ctx.oldpwd = before
    elif name == "set" and args and args[0].literal() == "--" and not cctx.remote:
        # set -- -rf ~; rm "$@": the positional parameters, each known only when every word is.
        params: list[str] | None = []
        for w in args[1:]:
            got = expand(w, ctx)
            if params is None or got is None or len(got) != 1:
                params = None
                break
            params.append(got[0])
        ctx.vars["@"] = [" ".join(params)] if params else None
        for i in range(1, 10):
            ctx.vars[str(i)] = [params[i - 1]] if params and i <= len(params) else None
    elif name == "unset" and not any(w.literal() in ("-f", "-n") for w in args):
        # unset X: later "$X" expands to nothing, so rm -rf "$X"/* names the root.
        for w in args:
            lit = w.literal()
            if lit and NAME_RE.fullmatch(lit):
                ctx.vars[lit] = [""]
                ctx.sources.pop(lit, None)
    elif name == "read":
        for w in args:
            lit = w.literal()
            if lit and NAME_RE.fullmatch(lit):
                ctx.vars[lit] = None
                ctx.sources[lit] = {"read"}  # a line of input: "$line" as a program runs that line
    return cmd


_ALWAYS = {"while": ("true", ":"), "until": ("false",)}


def _endless_spawner(loop: Command) -> bool:
    """``while true; do job & done``: a loop that never ends and starts a background job on each
    turn without sleeping, waiting or breaking — processes pile up like a fork bomb's."""
    condition, body = loop.clauses
    cond = [c.words[0].literal() for p in condition.pipelines for c in p.commands if c.words]
    if len(cond) != 1 or cond[0] not in _ALWAYS[loop.kind]:
        return False
    background = any(p.sep == "&" for p in body.pipelines)
    names = {c.words[0].literal() for c in body.simple_commands() if c.words}
    return background and not names & {"sleep", "wait", "break", "exit", "return", "read", "timeout"}


def _value_sources(value: Word, ctx: Ctx) -> set[str]:
    """Programs whose output ends up in an assigned value (and in the variables it names)."""
    found: set[str] = set()
    for sub in value.subs():
        found |= names_in(sub.script, ctx)
    for part in value.parts:
        if isinstance(part, Var):
            found |= ctx.sources.get(part.name, set())
    return found


def _walk_runs(cmd: Cmd, ctx: Ctx, depth: int, out: list[Cmd]) -> None:
    """The code a command runs: a script it names, ``bash -c``, a shell's stdin, ``eval``,
    ``find -exec``, interpreter code, ``awk``'s ``system()``."""
    name = cmd.name
    argv = cmd.argv
    args = argv[1:]
    program = ctx.written(argv[0]) if "/" in argv[0].text else None
    if program is not None:
        _walk_text(program, ctx.child(), "script file", depth, out)  # ./script.sh
    if name in SHELLS or name == "busybox" or name in ("source", "."):
        script: Word | None = None
        reads_stdin = False
        script_file: Word | None = args[0] if args else None
        if name not in ("source", "."):
            script, reads_stdin, script_file = shell_invocation(args)
        written = ctx.written(script_file) if script_file is not None else None
        if script is not None:
            params = [words_text([w], ctx) for w in args[args.index(script) + 1 :]]
            if cmd.xargs and not cmd.replace and cmd.stdin_text is not None:
                # printf '%s\0' rm -rf x | xargs -0 sh -c '"$0" "$@"': xargs appends its input.
                sep = "\0" if "\0" in cmd.stdin_text else None
                params += [t for t in cmd.stdin_text.split(sep) if t.strip()]
            _walk_text(_with_params(words_text([script], ctx), params), ctx.child(), "shell -c", depth, out)
        elif reads_stdin and cmd.stdin_text is not None:
            _walk_text(cmd.stdin_text, ctx.child(), "shell stdin", depth, out)
        elif written is not None:
            _walk_text(written, ctx.child(), "script file", depth, out)
        elif script_file is not None and (printed := _substituted_file(script_file, ctx, depth)) is not None:
            # bash <(echo 'rm -rf ~'), source <(printf …): the script is what the producer prints.
            _walk_text(printed, ctx.child(), "script file", depth, out)
    elif name in ("at", "batch"):
        # at/batch run, later, the commands on their stdin (or in -f FILE): judged as if run now.
        _flags, _pos, values = split_options(args, _AT_VALUE)
        files = values.get("f", [])
        written = ctx.written(files[0]) if files else None
        if written is not None:
            _walk_text(written, ctx.child(), "scheduled", depth, out)
        elif not files and cmd.stdin_text is not None:
            _walk_text(cmd.stdin_text, ctx.child(), "scheduled", depth, out)
    elif name == "eval" and args:
        _walk_text(words_text(args, ctx), ctx, "eval", depth, out)
    elif name == "trap" and args and not (args[0].literal() or "-").startswith("-"):
        # trap 'CMD' EXIT: CMD runs when the shell exits or gets the signal.
        _walk_text(words_text(args[:1], ctx), ctx.child(), "trap", depth, out)
    elif name == "alias":
        # alias ll='CMD': CMD runs wherever the alias is used (in this line or a later shell).
        for word in args:
            text = words_text([word], ctx)
            if "=" in text and not text.startswith("-"):
                _walk_text(text.partition("=")[2], ctx.child(), "alias", depth, out)
    elif name in ("make", "gmake"):
        recipes = _written_makefile_recipes(cmd, ctx)
        if recipes:
            # A recipe the shell parser cannot read: the other rules still judge the line.
            with contextlib.suppress(ShellParseError):
                _walk_text(recipes, ctx.child(), "script file", depth, out)
    elif name == "find":
        _walk_find_exec(cmd, ctx, depth, out)
    elif name in POWERSHELLS:
        # irm URL | iex and most one-liners read like shell pipelines; what does not parse is
        # still judged by the remote-code rules on the text itself.
        for text in powershell_code(cmd)[0]:
            try:
                _walk_text(text, ctx.child(), "shell -c", depth, out)
            except ShellParseError:
                continue
    elif name in INTERPRETERS or (name == "go" and args[:1] and args[0].literal() == "run"):
        # go run FILE compiles and runs a program: a file written earlier in the line is code too.
        _walk_code(cmd, ctx, depth, out)
    elif name in AWKS:
        for text in awk_commands(cmd):
            try:
                _walk_text(text, ctx.child(), "code", depth, out)
            except ShellParseError:
                continue


_MAKE_REF = lazy_compile(r"\$[({](\w+)[)}]")


def _written_makefile_recipes(cmd: Cmd, ctx: Ctx) -> str | None:
    """The recipe lines of a makefile this command line wrote earlier (``make -f ops.mk``, or a
    ``Makefile`` written and then run), as shell text: make's ``$(VAR)`` read as ``${VAR}``."""
    _flags, _pos, values = split_options(cmd.args, frozenset({"-f", "--file", "--makefile", "-C", "-j", "-o", "-W"}))
    files = [w for key in ("f", "file", "makefile") for w in values.get(key, [])]
    names = files or [Word([Lit(n, True)], n) for n in ("GNUmakefile", "makefile", "Makefile")]
    for word in names:
        text = ctx.written(word)
        if text is None:
            continue
        lines = [line.strip().lstrip("@-+") for line in text.splitlines() if line.startswith("\t")]
        return _MAKE_REF.sub(r"${\1}", "\n".join(lines).replace("$$", "$")) or None
    return None


def _substituted_file(word: Word, ctx: Ctx, depth: int) -> str | None:
    """The text a ``<(producer)`` word stands for, when the producer prints known text."""
    subs = word.subs()
    if len(subs) != 1 or subs[0].kind != "<(":
        return None
    scratch: list[Cmd] = []  # the producer itself was already walked with the command's words
    _walk_script(subs[0].script, ctx.child(), "subst", depth + 1, scratch)
    return printed_text(scratch[-1]) if scratch else None


def _with_params(text: str, params: list[str]) -> str:
    """A ``sh -c`` script with its positional parameters filled in (``sh -c 'rm -rf "$1"' _ ~``):
    ``$0`` is the first word after the script, ``$1``… the next, ``"$@"`` all but the first."""
    if not params:
        return text
    quoted = [shlex.quote(p) for p in params]

    def one(m: re.Match[str]) -> str:
        key = m.group("n") or m.group("b")
        if key in ("@", "*"):
            return " ".join(quoted[1:])
        index = int(key)
        return quoted[index] if index < len(quoted) else "''"

    return re.sub(r'"?\$(?:(?P<n>[0-9@*])|\{(?P<b>[0-9]+|[@*])\})"?', one, text)


# What ssh runs when its commands come on stdin: nothing named, or a shell told to read stdin.
_REMOTE_STDIN_SHELL = lazy_compile(
    r"\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?(?:(?:ba|z|da|k)?sh(?:\s+-\w*[si]\w*)*(?:\s+--(?:\s+\S+)*)?)?\s*"
)
_NON_COMMANDS = frozenset({"for", "select", "case", "esac", "done", "fi", "in", "function"})
# at/batch options that take a value (-f names the file of commands).
_AT_VALUE = frozenset({"-q", "-f", "-t"})


def _assign_loop(name: Word, words: list[Word] | None, ctx: Ctx) -> None:
    """``for VAR in a b c``: VAR may take any of the values (``for VAR; do``: unknown)."""
    var = name.literal() or ""
    if words is None:
        return
    items: list[str] | None = []
    for w in words:
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
            for sub in _command_subs(command):
                names |= names_in(sub.script, ctx)
            for script in command.scripts():
                names |= names_in(script, ctx)
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
                    found = Cmd(
                        prog_name(un.argv[0], ctx), un.argv, [], ctx, "find -exec", wrappers=[*un.wrappers, "find"]
                    )
                    out.append(found)
                    _walk_runs(found, ctx, depth, out)  # -exec sh -c '…' {} \;
            i = j
        i += 1


def _walk_code(cmd: Cmd, ctx: Ctx, depth: int, out: list[Cmd]) -> None:
    for code in code_of(cmd):
        shell_cmds, rm_paths, argvs = code_actions(code, python=cmd.name == "python")
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
            # "~" stands for a home-folder expression of the code (Perl's $ENV{HOME}, os.homedir()).
            words = [Word([Var("~"), Lit(a[1:], True)] if a[:2] in ("~", "~/") else [Lit(a, True)], a) for a in argv]
            un = unwrap(words, ctx)
            if un.argv:
                spawned = Cmd(prog_name(un.argv[0], ctx), un.argv, [], ctx, "code", wrappers=un.wrappers)
                out.append(spawned)
                _walk_runs(spawned, ctx, depth, out)  # subprocess.run(['bash', '-c', '…'])
