"""Inline interpreter code (``python -c``, ``node -e``, here-docs fed to ``python``): the shell
commands, deleted trees, spawned argv lists and opened files it contains."""

from __future__ import annotations

import os
import re

from ._commands import Cmd, words_text
from ._lazy_re import LazyPattern, lazy_compile
from ._model import Word

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: keep imports light for cold hooks
if TYPE_CHECKING:
    import ast

_CODE_SHELL_CALL = lazy_compile(
    r"""(?:system|popen|exec|execSync|spawnSync|shell_exec|passthru|getoutput|check_output|run|call|os\.execute|unix|dos)
        \s*\(\s*(?P<q>["'`])(?P<cmd>.+?)(?P=q)""",
    re.X | re.S,
)
# Ruby and Perl call without parentheses (system "…", exec '…') and quote commands as
# %x(…), %x{…}, qx(…), qx{…}: the same shell strings, written another way.
_CODE_SHELL_BARE = lazy_compile(
    r"""(?:^|[;{\s])(?:system|exec|spawn|open3|capture2e?|capture3|popen3?)[ \t]+(?P<q>["'])(?P<cmd>.+?)(?P=q)""",
    re.S,
)
# The same calls given a quote-like literal: Perl's q{…}/qq(…)/q[…]/q|…|, Ruby's %q{…}/%Q(…)/%(…).
_CODE_SHELL_QUOTELIKE = lazy_compile(
    r"""\b(?:system|exec|spawn|popen|open3|capture2e?|capture3)\s*\(?\s*(?:\bqq?|%[qQ]?)"""
    r"""(?:\((?P<a>[^)]*)\)|\{(?P<b>[^}]*)\}|\[(?P<c>[^\]]*)\]|\|(?P<d>[^|]*)\||<(?P<e>[^>]*)>)"""
)
# Word-list literals are argument lists, no shell involved: Perl's system qw(rm -rf …), Ruby's
# IO.popen(%w[rm -rf …]) / spawn(*%w{…}).
_CODE_ARGV_WORDS = lazy_compile(
    r"""\b(?:system|exec|spawn|popen|open3|capture2e?|capture3)\s*\(?\s*\*?(?:\bqw|%[wW])"""
    r"""(?:\((?P<a>[^)]*)\)|\{(?P<b>[^}]*)\}|\[(?P<c>[^\]]*)\]|\|(?P<d>[^|]*)\||<(?P<e>[^>]*)>)"""
)
_CODE_QX = lazy_compile(r"""(?:%x|\bqx)(?:\((?P<a>[^)]*)\)|\{(?P<b>[^}]*)\}|\[(?P<c>[^\]]*)\]|\|(?P<d>[^|]*)\|)""")
# Recursive deletes by language: Python's rmtree, Node's fs.rm/rmSync/rmdirSync (also
# fs.promises.rm), Ruby's rm_rf, Rust's remove_dir_all, Perl's remove_tree, Deno.remove/removeSync,
# Go's os.RemoveAll, Kotlin's deleteRecursively, R's fs::dir_delete.
_RM_CALLS = (
    r"(?:rmtree|rmSync|rmdirSync|rm_rf|rm_r|remove_dir_all|RemoveAll|deleteRecursively|removedirs|remove_tree|removeSync|dir_delete|"
    r"(?:fse|fsExtra)\.remove|Deno\.removeSync|Deno\.remove|(?:\bfs|\bfsp|\bpromises|\bfse|\))\.rm|fs\.rmdir)"
)
_CODE_RMTREE = lazy_compile(
    _RM_CALLS
    + r"""
        \s*\(\s*(?P<q>["'])(?P<path>.+?)(?P=q)""",
    re.X | re.S,
)
_CODE_WALK = lazy_compile(
    r"""(?:os\.walk|os\.scandir|os\.listdir|glob\.glob|Path|find|Find\.find|readdirSync)"""
    r"""\s*\(\s*(?P<q>["'])(?P<path>[^"']+)(?P=q)"""
)
_CODE_DELETES = lazy_compile(r"\b(?:remove|removeSync|unlink|rmtree|rmdir|rmSync|unlinkSync|rm_rf)\b")
_CODE_BACKTICK = lazy_compile(r"`([^`]+)`")
# Program and arguments passed as separate strings, in any language: Ruby/Perl
# system("rm", "-rf", dir), Node spawnSync("rm", ["-rf", p]) / execFileSync, Go
# exec.Command("rm", "-rf", p), Rust Command::new("rm").args(["-rf", p]), PHP pcntl_exec.
# No shell reads these, so the shell-string patterns above never see them.


AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox awk"})
_AWK_SYSTEM = lazy_compile(
    r"""\bsystem\s*\(\s*"(?P<cmd>(?:[^"\\]|\\.)*)"\s*\)|"(?P<pipe>(?:[^"\\]|\\.)*)"\s*\|\s*getline"""
)


# awk options that take a value; -f/--file name the program's file (the call does not show it).
_AWK_VALUE_OPTIONS = frozenset({"-F", "-v", "-f", "--assign", "--field-separator", "--file"})


def awk_parts(cmd: Cmd) -> tuple[list[Word], Word] | None:
    """An awk command's ``-v`` assignments and its program operand; None when the program is
    in a file (``-f``) or missing."""
    args = cmd.args
    assigned: list[Word] = []
    i = 0
    while i < len(args):
        lit = args[i].literal()
        if lit in _AWK_VALUE_OPTIONS:
            if lit in ("-f", "--file"):
                return None
            if lit in ("-v", "--assign") and i + 1 < len(args):
                assigned.append(args[i + 1])
            i += 2
        elif lit is not None and lit.startswith("-") and lit != "-":
            i += 1
        else:
            return assigned, args[i]
    return None


def awk_program(cmd: Cmd) -> str | None:
    """The program text of an ``awk`` command (its first operand after the options)."""
    parts = awk_parts(cmd)
    return words_text([parts[1]], cmd.ctx) if parts is not None else None


def awk_commands(cmd: Cmd) -> list[str]:
    """Shell commands an awk program runs with ``system("…")`` or ``"…" | getline``."""
    program = awk_program(cmd)
    if program is None:
        return []
    return [(m.group("cmd") or m.group("pipe") or "").replace('\\"', '"') for m in _AWK_SYSTEM.finditer(program)]


def code_of(cmd: Cmd) -> list[str]:
    """Code an interpreter runs: ``-c``/``-e`` arguments, a script file this command wrote
    earlier, else a here-doc or piped text."""
    codes: list[str] = []
    args = cmd.args
    positional = [w for w in args if not (w.literal() or "").startswith("-")]
    script = positional[0] if positional else None
    if script is not None and script.literal() == "run" and len(positional) > 1:
        script = positional[1]  # go run main.go, deno run x.ts, bun run x.ts: the file after "run"
    written = cmd.ctx.written(script) if script is not None else None
    if written is not None:
        codes.append(written)
    for i, w in enumerate(args):
        lit = w.literal()
        # -c/-e/-E (python, perl, ruby, node, lua), --eval, and php's -r.
        code_flag = r"-[A-Za-z]*[ceE]|--eval" + (r"|-r|--run" if cmd.name == "php" else "")
        if cmd.name == "matlab":
            code_flag += r"|-batch|-r"  # matlab -batch 'code' / -r 'code'
        if cmd.name in ("node", "nodejs", "bun", "deno"):
            code_flag += r"|-p|--print"  # node -p / bun --print evaluate and print the code
        if lit is not None and re.fullmatch(code_flag, lit) and i + 1 < len(args):
            codes.append(words_text([args[i + 1]], cmd.ctx))
    if cmd.name == "deno":
        # deno eval 'code': the subcommand's operand is the code (its flags come before it).
        positionals = [w for w in args if not (w.literal() or "").startswith("-")]
        if len(positionals) > 1 and positionals[0].literal() == "eval":
            codes.append(words_text([positionals[1]], cmd.ctx))
    # No script file among the arguments, or the script is "-" (python3 - arg1 <<EOF): the
    # interpreter reads its code from stdin; later words are the program's own arguments.
    first = next((w.literal() for w in args if not (w.literal() or "").startswith("-") or w.literal() == "-"), None)
    reads_stdin = first is None or first == "-"
    if not codes and cmd.stdin_text is not None and reads_stdin:
        codes.append(cmd.stdin_text)
    return codes


_CODE_FILE_REFS = (
    (lazy_compile(r"""\bopen\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)(?:\s*,\s*(?P<r>["'])(?P<m>[^"']*)(?P=r))?"""), ""),
    (
        lazy_compile(
            r"""(?:readFileSync|readFile|createReadStream|File\.read|File\.readlines|"""
            r"""IO\.read|file_get_contents)\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)"""
        ),
        "r",
    ),
    # Deletions count as writes; files written, appended to or copied onto come from code_writes.
    (lazy_compile(r"""(?:unlinkSync|rmSync)\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)"""), "w"),
    (
        lazy_compile(
            r"""Path\(\s*(?P<q>["'])(?P<p>[^"']+)(?P=q)\s*\)\.(?P<m>read_text|read_bytes|"""
            r"""write_text|write_bytes|unlink|open|touch)"""
        ),
        "",
    ),
)


def code_file_refs(cmd: Cmd) -> list[tuple[str, bool]]:
    """Files an interpreter's inline code (or an awk program) opens: (path, writes). Written files come from
    :func:`code_writes` too, with the home folder (``~``, ``expanduser``, ``os.homedir()`` …)
    resolved to the command's ``$HOME``."""
    from ._code_paths import code_writes  # _code_paths builds on this module

    refs: list[tuple[str, bool]] = []
    if cmd.name in AWKS:
        program = awk_program(cmd)
        codes = [program] if program is not None else []
    else:
        codes = code_of(cmd)
    for code in codes:
        for pattern, mode in _CODE_FILE_REFS:
            for m in pattern.finditer(code):
                how = mode or (m.groupdict().get("m") or "r")
                writes = any(c in how for c in "wax+") or how.startswith(("write", "unlink", "touch"))
                refs.append((m.group("p"), writes))
        for path in code_writes(code, python=cmd.name.startswith("python"), awk=cmd.name in AWKS):
            if path == "~" or path.startswith("~/"):
                path = cmd.ctx.home + path[1:]
            if (path, True) not in refs:
                refs.append((path, True))
    return refs


# Ways interpreter code names the home folder, rewritten to "~" so the shell strings built
# from them can be judged: 'rm -rf ' + os.homedir(), "rm -rf $ENV{HOME}", f"rm -rf {Path.home()}".
_HOME_EXPR = (
    r"(?:require\(\s*[\"']os[\"']\s*\)\.homedir\(\)|[A-Za-z_$][\w$]*\.homedir\(\)|process\.env\.HOME\b|"
    r"os\.path\.expanduser\(\s*[\"']~[\"']\s*\)|os\.environ\[\s*[\"']HOME[\"']\s*\]|"
    r"os\.getenv\(\s*[\"']HOME[\"']\s*\)|str\(\s*Path\.home\(\)\s*\)|Path\.home\(\)|Dir\.home\b|"
    r"ENV\[\s*[\"']HOME[\"']\s*\]|File\.expand_path\(\s*[\"']~[\"']\s*\)|\$ENV\{\s*[\"']?HOME[\"']?\s*\}|"
    # Deno and Bun: Deno.env.get("HOME")!, Deno.env.toObject().HOME, Bun.env.HOME, process.env["HOME"].
    r"Deno\.env\.get\(\s*[\"']HOME[\"']\s*\)!?|Deno\.env\.toObject\(\)\.HOME\b|Bun\.env\.HOME\b|"
    r"process\.env\[\s*[\"']HOME[\"']\s*\]|Deno\.homeDir\(\)|homedir\(\)|"
    # PHP getenv("HOME"), $_SERVER['HOME']; Lua os.getenv("HOME") is matched above.
    r"\bgetenv\(\s*[\"']HOME[\"']\s*\)|\$_SERVER\[\s*[\"']HOME[\"']\s*\]|"
    # R: Sys.getenv("HOME"), path.expand("~"), fs::path_home().
    r"Sys\.getenv\(\s*[\"']HOME[\"']\s*\)|path\.expand\(\s*[\"']~[\"']\s*\)|(?:fs::)?path_home\(\))"
)
# Deletes made recursive by a keyword argument: R's unlink(p, recursive = TRUE), Julia's
# rm(p; recursive=true) / rm(p, recursive=true, force=true).
_CODE_RECURSIVE_KW = lazy_compile(
    r"\b(?:unlink|rm|remove|dir_delete)\s*\(\s*(?:(?P<q>[\"'])(?P<path>[^\"']+)(?P=q)|(?P<home>~|"
    + _HOME_EXPR
    + r"))\s*[,;][^()]*\brecursive\s*=\s*(?:TRUE|T|true|True)\b"
)
# Concatenation: + (Python, JS, Ruby), . (PHP, Perl), .. (Lua).
_HOME_CONCAT = lazy_compile(r"(?P<q>[\"'])\s*(?:\+|\.\.?)\s*" + _HOME_EXPR)
_HOME_INTERPOLATED = lazy_compile(
    r"\$\{\s*"
    + _HOME_EXPR
    + r"\s*\}|#\{\s*"
    + _HOME_EXPR
    + r"\s*\}|\{\s*"
    + _HOME_EXPR
    + r"\s*\}|\$ENV\{\s*['\"]?HOME['\"]?\s*\}"
)


# Program and arguments passed as separate strings, in any language: Ruby/Perl
# system("rm", "-rf", dir) or system "rm", …, Node spawnSync("rm", ["-rf", p]) / execFileSync,
# Go exec.Command("rm", "-rf", p), Rust Command::new("rm").args(["-rf", p]), PHP pcntl_exec.
# No shell reads these, so the shell-string patterns above never see them; a home-folder
# expression among the arguments reads as "~".
_CODE_ARGV_CALL = lazy_compile(
    r"""(?:\bsystem|\bexec|\bspawn|spawnSync|execFile|execFileSync|execa|execaSync|\bCommand|Command::new|"""
    r"""capture2e?|capture3|popen3?|pcntl_exec|proc_open|ProcessBuilder)(?:\s*\(\s*|[ \t]+(?=["']))"""
    r"""(?P<args>(?:"[^"\n]*"|'[^'\n]*'|~|"""
    + _HOME_EXPR
    + r"""|\[|\]|\)\s*\.args?\s*\(|[\s,&]|(?:vec|Arrays\.asList|List\.of)!?\s*\()+)"""
)
_ARGV_TOKEN = lazy_compile(r""""([^"\n]*)"|'([^'\n]*)'|(~|""" + _HOME_EXPR + ")")

_CODE_RMTREE_HOME = lazy_compile(
    # after home_literals, perl's rmtree($ENV{HOME}) reads rmtree(~)
    _RM_CALLS + r"\s*\(\s*(?:~|" + _HOME_EXPR + r")\s*[,)]"
)


# File.join(Dir.home, ".ssh"), path.join(os.homedir(), ".config", "gh"), p.join(o.homedir(), ".aws"),
# os.path.join(os.environ["HOME"], ".zshrc") (any receiver: modules are often aliased): a folder
# under home, by name.
_HOME_JOINED = lazy_compile(
    r"(?:require\(\s*[\"']path[\"']\s*\)|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\.(?:[jJ]oin|resolve)\(\s*"
    + _HOME_EXPR
    + r"(?P<rest>(?:\s*,\s*(?:\"[^\"]*\"|'[^']*'))+)\s*\)"
)
_QUOTED = lazy_compile(r"\"([^\"]*)\"|'([^']*)'")


def _home_joined(m: re.Match[str]) -> str:
    pieces = [(a or b).strip("/") for a, b in _QUOTED.findall(m.group("rest"))]
    return '"' + os.path.join("~", *[p for p in pieces if p]) + '"'


def home_literals(code: str) -> str:
    """``code`` with home-folder expressions joined to strings written as ``~``."""
    code = _HOME_JOINED.sub(_home_joined, code)
    code = _HOME_CONCAT.sub(lambda m: "~" + m.group("q"), code)
    return _HOME_INTERPOLATED.sub("~", code)


# A string literal in interpreter code: Ruby's %q(…)/%Q{…}/%w[…] and Perl's q(…)/qq{…}/qw<…>
# (one level of nested brackets), then ordinary double- and single-quoted strings. The command
# runners %x(…) and qx{…} are not literals.
_STRING = lazy_compile(
    r"(?<![\w$@%])(?:%[qQwWiI]|qq|qw|q)(?:\((?:[^()]|\([^()]*\))*\)|\{(?:[^{}]|\{[^{}]*\})*\}"
    r"|\[(?:[^\[\]]|\[[^\[\]]*\])*\]|<[^<>]*>)"
    r"|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
)
# A literal handed to something that runs it as code: eval("…"), instance_eval('…'), exec(…).
_EVALUATED = lazy_compile(r"\b(?:eval|exec|instance_eval|class_eval|module_eval|evaluate)\s*\(?\s*$")


def literal_spans(code: str) -> list[tuple[int, int]]:
    """Where ``code`` holds string literals that are only data (not handed to eval/exec)."""
    return [m.span() for m in _STRING.finditer(code) if not _EVALUATED.search(code, 0, m.start())]


def only_in_literals(code: str, start: int, end: int) -> bool:
    """Whether ``code[start:end]`` lies inside one string literal: code-like text printed
    (``echo 'DB::table("t")->delete()'``, ``puts %q(system("rm -rf /"))``) is data, not code."""
    return any(a <= start and end <= b for a, b in literal_spans(code))


def code_actions(code: str, python: bool) -> tuple[list[str], list[str], list[list[str]]]:
    """Shell strings, recursively deleted paths and argv lists found in interpreter code."""
    code = home_literals(code)
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
                if isinstance(first, ast.List | ast.Tuple):
                    # ["rm", "-rf", os.path.expanduser("~")]: every element a string we can work out.
                    resolved = [_py_str(e) for e in first.elts]
                    items = [e for e in resolved if e is not None] if None not in resolved else None
                if fname in ("system", "popen", "getoutput", "getstatusoutput") and text:
                    shell_cmds.append(text)
                elif fname in ("run", "call", "check_call", "check_output", "Popen"):
                    if text:
                        shell_cmds.append(text)
                    elif items:
                        argvs.append(items)
                elif fname in ("execv", "execvp", "execve", "execvpe", "spawnv", "spawnvp") and len(node.args) > 1:
                    second = node.args[1]  # os.execvp('rm', ['rm', '-rf', '/']): the argv is the list
                    if isinstance(second, ast.List | ast.Tuple):
                        resolved = [_py_str(e) for e in second.elts]
                        if None not in resolved:
                            argvs.append([e for e in resolved if e is not None])
                elif fname in ("execl", "execlp") and all(
                    isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args[1:]
                ):
                    argvs.append([str(a.value) for a in node.args[1:] if isinstance(a, ast.Constant)])
                elif fname in ("rmtree", "removedirs") and text:
                    rm_paths.append(text)
            _walk_deletes(code, rm_paths)
            return shell_cmds, rm_paths, argvs
    spans = literal_spans(code)

    def run(pattern: LazyPattern) -> list[re.Match[str]]:
        # Calls written inside a string literal (puts %q(system("…")), echo '…') are printed text.
        return [m for m in pattern.finditer(code) if not any(a <= m.start() and m.end() <= b for a, b in spans)]

    shell_cmds.extend(m.group("cmd") for m in run(_CODE_SHELL_CALL))
    shell_cmds.extend(m.group("cmd") for m in run(_CODE_SHELL_BARE))
    shell_cmds.extend(next(g for g in m.groups() if g is not None) for m in run(_CODE_QX))
    shell_cmds.extend(next(g for g in m.groups() if g is not None) for m in run(_CODE_SHELL_QUOTELIKE))
    shell_cmds.extend(m.group(1) for m in run(_CODE_BACKTICK))
    rm_paths.extend(m.group("path") for m in run(_CODE_RMTREE))
    rm_paths.extend("~" for _ in run(_CODE_RMTREE_HOME))
    rm_paths.extend(m.group("path") or "~" for m in run(_CODE_RECURSIVE_KW))
    for m in run(_CODE_ARGV_WORDS):
        words = next(g for g in m.groups() if g is not None).split()
        if len(words) > 1:
            argvs.append(words)
    for m in run(_CODE_ARGV_CALL):
        argv = [a or b or ("~" if c else "") for a, b, c in _ARGV_TOKEN.findall(m.group("args"))]
        if len(argv) > 1:
            argvs.append(argv)
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
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div | ast.Add):
        left, right = _py_str(node.left), _py_str(node.right)
        if left is None or right is None:
            return None
        return os.path.join(left, right) if isinstance(node.op, ast.Div) else left + right
    if isinstance(node, ast.JoinedStr):
        pieces = [_py_str(v.value if isinstance(v, ast.FormattedValue) else v) for v in node.values]
        return None if any(p is None for p in pieces) else "".join(p for p in pieces if p is not None)
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


# A walk narrowed to one kind of file: Path(root).glob('*.pyc') / rglob("**/*.log"), or a name
# test on each entry (endswith, fnmatch, suffix ==). Deleting what it yields is not rm -rf root.
_GLOB_FILTER = lazy_compile(r"""\.i?r?glob\(\s*["'](?P<pat>[^"']*)["']""")
_NAME_TEST = lazy_compile(
    r"\.(?:endswith|startswith|endsWith|startsWith|end_with\?)\(|\bfnmatch\b|\.suffix(?:es)?\s*(?:==|in\b)|\.extname\("
)
_MATCH_EVERYTHING = frozenset({"*", "**", "**/*", "*/**", "**/*.*", "*.*", ""})


def _walk_deletes(code: str, rm_paths: list[str]) -> None:
    # A tree walk over a literal root combined with deleting calls acts like rm -rf root, unless
    # the walk only yields files of one kind.
    if not _CODE_DELETES.search(code) or _NAME_TEST.search(code):
        return
    for m in _CODE_WALK.finditer(code):
        glob = _GLOB_FILTER.match(code, code.find(")", m.end()) + 1)
        if glob is not None and glob.group("pat") not in _MATCH_EVERYTHING:
            continue
        rm_paths.append(m.group("path"))
