"""Paths that interpreter code names, in whatever string form, and what it does with them.

``open(os.path.expanduser('~/.ssh/id_rsa'))``, ``Path.home() / '.aws' / 'credentials'``,
``process.env.HOME + '/.netrc'``, ``"$ENV{HOME}/.pgpass"`` and awk's ``ENVIRON["HOME"] "/…"``
all name one file under the home folder; the security hooks judge code that uses such a file
the way they judge ``cat`` of it. A file the code only tests for (``os.path.exists``,
``fs.existsSync``, ``File.exist?``, Perl's ``-e``) or whose name it only prints is not read.
"""

from __future__ import annotations

import os
import re

from ._inline import _HOME_EXPR, _py_str, home_literals
from ._lazy_re import lazy_compile

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: keep imports light for cold hooks
if TYPE_CHECKING:
    import ast

# How the code uses a path it names.
NAME_ONLY = "name"  # tested for, measured or printed as a name: the contents stay unread
USED = "used"  # opened, read, copied, sent …: what ``cat`` of the path would be
OPENED_UP = "opened-up"  # chmod to a mode that lets the group or the world in

# The home folder followed by a string: process.env.HOME + '/.aws', getenv("HOME")."/.ssh",
# Dir.home + "/.netrc", awk's ENVIRON["HOME"] "/.pgpass" (awk concatenates by juxtaposition).
_HOME_FIRST = lazy_compile(r"(?:" + _HOME_EXPR + r"|ENVIRON\[\s*\"HOME\"\s*\])\s*(?:\+|\.\.?)?\s*(?P<q>[\"'`])(?=/)")
# A quoted string that is a home-relative or absolute path (Perl's open modes "<", ">" allowed).
_QUOTED_PATH = lazy_compile(r"""(?P<q>["'`])[<>+|]?\s*(?P<p>(?:~|/)[^"'`\s<>|;]*)(?P=q)""")
# Calls (and Perl/shell file tests) that look at a file without reading it.
_CHECK_BEFORE = lazy_compile(
    r"(?:\b(?:existsSync|exists|exist\?|exists\?|file\?|directory\?|file_exists|is_file|is_readable|isFile|"
    r"isfile|isdir|lexists|access|accessSync|statSync|stat|lstat|getsize|size\?|basename|dirname|"
    r"listdir|scandir|readdirSync|readdir|entries|children|opendir|each_child)"
    r"|(?:^|[\s(!])-[efdsrl])\s*\(?\s*$"
)
_PRINT_BEFORE = lazy_compile(r"\b(?:print|puts|console\.log|echo|say|printf)\s*\(?\s*$")
_CHMOD_BEFORE = lazy_compile(r"\bchmod(?:Sync)?\s*\(?\s*(?:0o?[0-7]{3,4}\s*,\s*)?$")
_ASSIGN_BEFORE = lazy_compile(r"(?:\b(?:const|let|var|my|our|local)\s+)?[$@]?(?P<n>[A-Za-z_]\w*)\s*=\s*$")
# Calls that only turn a name into a fuller name: the call around them decides the use.
_WRAPPER_BEFORE = lazy_compile(
    r"(?:(?:(?:[A-Za-z_$][\w$]*|require\(\s*[\"'][^\"']+[\"']\s*\))\.)*\b(?:File\.expand_path|File\.absolute_path|expanduser|expandvars|abspath|realpath|normpath|resolve|"
    r"realpathSync|Pathname\.new|Pathname|Path|String|str|untildify|glob)\s*\(\s*)+$"
)
_MODE = lazy_compile(r"\b0o?([0-7]{3,4})\b")

_PY_CHECKS = frozenset({
    "exists", "isfile", "isdir", "lexists", "access", "stat", "lstat", "getsize", "getmtime",
    "getctime", "getatime", "is_file", "is_dir", "is_symlink", "basename", "dirname", "print",
    "len", "split", "splitext", "listdir", "scandir",
})  # fmt: skip
# Keyword arguments that hand a key file to a client library to log in with.
_KEY_ARGUMENT = lazy_compile(
    r"(?i)^(?:key_?filename|key_?file|keyfile|identity_?file|ssh_?key|private_?key_?(?:path|file)|client_?keys)$"
)
_PY_NAME_ATTRS = frozenset(
    {"exists", "is_file", "is_dir", "is_symlink", "stat", "lstat", "name", "suffix", "parent", "iterdir"}
)


def code_paths(code: str, python: bool) -> list[tuple[str, str]]:
    """Home-relative (``~/…``) and absolute paths the code names, each with its use
    (:data:`NAME_ONLY`, :data:`USED` or :data:`OPENED_UP`)."""
    if python:
        found = _python_paths(code)
        if found is not None:
            return found
    return _text_paths(code)


def _mode_opens(mode: int) -> bool:
    return bool(mode & 0o077)


def _text_paths(code: str) -> list[tuple[str, str]]:
    code = _HOME_FIRST.sub(lambda m: m.group("q") + "~", home_literals(code))
    found: list[tuple[str, str]] = []
    for m in _QUOTED_PATH.finditer(code):
        path = m.group("p")
        if len(path) < 2:
            continue
        found.append((path, _text_use(code, m.start(), m.end())))
    return found


def _text_use(code: str, start: int, end: int) -> str:
    base = max(0, start - 80)
    before = code[base:start]
    wrapper = _WRAPPER_BEFORE.search(before)
    if wrapper is not None:
        before = before[: wrapper.start()]  # expanduser('~/.netrc'): the call around it decides
    if _CHMOD_BEFORE.search(before):
        modes = _MODE.findall(code[max(0, start - 30) : end + 30])
        return OPENED_UP if any(_mode_opens(int(m, 8)) for m in modes) else NAME_ONLY
    if _CHECK_BEFORE.search(before) or _PRINT_BEFORE.search(before):
        return NAME_ONLY
    assigned = _ASSIGN_BEFORE.search(before)
    if assigned is None:
        return USED
    return _variable_use(code, assigned.group("n"), base + assigned.start("n"))


def _variable_use(code: str, name: str, assigned_at: int) -> str:
    """A path kept in a variable is used as the variable is (every use only a test: name only)."""
    for m in re.finditer(r"(?<![\w$@])[$@]?" + re.escape(name) + r"\b", code):
        if m.end() <= assigned_at or m.start() > assigned_at + len(name):
            before = code[max(0, m.start() - 60) : m.start()]
            if not (_CHECK_BEFORE.search(before) or _PRINT_BEFORE.search(before)):
                return USED
    return NAME_ONLY


def _python_paths(code: str) -> list[tuple[str, str]] | None:
    """The paths Python code names, worked out from its syntax tree (None if it does not parse)."""
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    names: dict[str, list[ast.Name]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.setdefault(node.id, []).append(node)
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr) or isinstance(node, ast.Name):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.expr) and _py_str(parent) is not None:
            continue  # part of a larger path expression, judged there
        text = _py_str(node)
        if text is None or not text.startswith(("~", "/")) or len(text) < 2:
            continue
        use = _py_use(node, parents)
        if use is None:
            # p = Path.home() / '.netrc': the variable's uses decide.
            target = parent.targets[0] if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
            uses = [_py_use(n, parents) for n in names.get(target.id, [])] if isinstance(target, ast.Name) else []
            use = USED if USED in uses else (OPENED_UP if OPENED_UP in uses else NAME_ONLY)
        found.append((text, use))
    return found


def _py_use(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str | None:
    """How one path expression is used; None when it is only assigned to a name."""
    import ast

    parent = parents.get(node)
    if isinstance(parent, ast.Assign):
        return None
    if isinstance(parent, ast.keyword) and parent.arg and _KEY_ARGUMENT.search(parent.arg):
        return NAME_ONLY  # connect(key_filename=…): the library uses the key, as ssh -i does
    if isinstance(parent, ast.Attribute) and parent.attr in _PY_NAME_ATTRS:
        return NAME_ONLY
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        fname = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
        if fname == "chmod":
            modes = [a.value for a in parent.args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, int)]
            return OPENED_UP if any(_mode_opens(m) for m in modes) else NAME_ONLY
        if fname in _PY_CHECKS:
            return NAME_ONLY
    return USED


# --- Files interpreter code writes ------------------------------------------------------------
# A string literal (its text in group "s" or "t").
_STR = r"""(?:"(?P<s>[^"\\\n]*)"|'(?P<t>[^'\\\n]*)'|`(?P<u>[^`\\\n$]*)`)"""
# Calls that only turn a name into a fuller one: File.expand_path("~/.zshrc") is "~/.zshrc".
_PATH_WRAPPED = lazy_compile(
    r"(?:File\.expand_path|File\.absolute_path|(?:os\.path\.)?expanduser|path\.expand|normalizePath|"
    r"path\.resolve|path\.normalize|Pathname\.new|Pathname|Path)\(\s*(?P<w>(?:\"[^\"\\\n]*\"|'[^'\\\n]*'))\s*\)"
    r"(?:\.expanduser\(\)|\.expand_path)?"
)
# One argument before the target: a literal, a name, a call with flat arguments.
_ARG = r"""(?:"[^"\\\n]*"|'[^'\\\n]*'|\([^()]*\)|[^,()"';])+?"""
_WRITE_CALLS = (
    # The target first: Ruby File.write/IO.write, Node fs.writeFile*/appendFile*/createWriteStream
    # (fs.promises too), fs-extra outputFile, Deno/Bun writers, PHP file_put_contents.
    lazy_compile(
        r"\b(?:File\.write|File\.binwrite|IO\.write|IO\.binwrite|writeFileSync|writeFile|appendFileSync|"
        r"appendFile|createWriteStream|outputFileSync|outputFile|writeTextFile(?:Sync)?|Bun\.write|"
        r"file_put_contents|FileUtils\.touch|file\.create|sink)\s*\(\s*" + _STR
    ),
    # Opened with a writing mode: open(p, "a"), File.open(p, "w"), fopen(p, "a+"), io.open(p, "w"),
    # fs.openSync(p, "a"), R's file(p, "w"); Python's mode= keyword too.
    lazy_compile(
        r"\b(?:open|File\.open|File\.new|fopen|openSync|file)\s*\(\s*"
        + _STR
        # The whole mode string: "a", "wb", "r+", Ruby's "a:UTF-8" (not window.open(url, "about")).
        + r"\s*,\s*(?:mode\s*[=:]\s*)?[\"'][rbtU]*[wax+][rbtUwax+]*(?::[\w-]+)?[\"']"
    ),
    # Perl: open(my $f, ">>", p) / open(F, ">", p), and the two-argument open(F, ">>p").
    lazy_compile(r"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*[\"'](?:>>?|\+[<>])[\"']\s*,\s*" + _STR),
    lazy_compile(r"""\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*["'](?:>>?|\+[<>])\s*(?P<s>[^"'\s<>&][^"'\n]*)["']"""),
    # The target second: copies, moves and links (shutil, os, fs, FileUtils, PHP, Perl, R) and R's
    # writeLines(x, p).
    lazy_compile(
        r"\b(?:shutil\.(?:copy2?|copyfile|copytree|move)|os\.(?:rename|replace|symlink|link)|"
        r"(?:copyFile|rename|symlink|link|cp)Sync|fs\.(?:copyFile|rename|cp)|"
        r"FileUtils\.(?:cp_r|cp|copy|copy_file|mv|move|install|ln_s|ln)|File\.(?:rename|symlink|copy)|"
        r"(?<![.\w])(?:copy|rename|move|symlink)|file\.(?:copy|rename|symlink)|writeLines|"
        # Downloads saved to a file: urlretrieve(url, p), IO.copy_stream(src, p), download.file.
        r"urlretrieve|IO\.copy_stream|download\.file)\s*\(\s*"
        + _ARG
        + r"\s*,\s*(?:(?:con|to|dst|destination|destfile|filename)\s*=\s*)?"
        + _STR
    ),
    # Archives unpacked into a folder (extractall(p)), Perl's Path::Tiny path(p)->spew / append,
    # PHP's touch(p).
    lazy_compile(r"\bextractall\s*\(\s*(?:path\s*=\s*)?" + _STR),
    lazy_compile(r"\bpath\(\s*" + _STR + r"\s*\)->(?:spew|append|touch)"),
    lazy_compile(r"(?<![.\w>:])touch\s*\(\s*" + _STR),
    # R: cat(…, file = p), write(x, file = p), write.csv(x, file = p), saveRDS(x, file = p).
    lazy_compile(
        r"\b(?:cat|write|write\.csv|write\.table|saveRDS|save)\s*\((?:\"[^\"\n]*\"|'[^'\n]*'|[^()\"'])*?\bfile\s*=\s*"
        + _STR
    ),
)


# awk's output redirections: print … > "file", printf … >> ENVIRON["HOME"] "/.bashrc".
_AWK_OUTPUT = lazy_compile(r"\bprintf?\b[^;{}\n]*?>>?\s*" + _STR)


def code_writes(code: str, python: bool, awk: bool = False) -> list[str]:
    """Files the interpreter code writes, appends to, creates, or copies, moves or links onto,
    in any language's spelling: ``open(p, "a")``, ``Path(p).write_text``, ``shutil.copy(_, p)``,
    ``File.write``, ``fs.appendFileSync``, ``file_put_contents``, Perl's ``open(my $f, ">>", p)``,
    R's ``writeLines(_, p)`` / ``cat(…, file = p)``. The home folder, however the code names it
    (``~`` through ``expanduser``/``File.expand_path``, ``os.homedir()``, ``$HOME``, ``Path.home()``),
    is written ``~``; other paths are returned as written (relative ones too). With ``awk``, the
    code is an awk program and its ``print > "file"`` redirections are what it writes."""
    found: list[str] = []
    if python:
        from_tree = _python_writes(code)
        if from_tree is not None:
            found.extend(from_tree)
    text = _HOME_FIRST.sub(lambda m: m.group("q") + "~", home_literals(code))
    previous = None
    while previous != text:  # nested wrappers: File.expand_path(Pathname.new("~/x"))
        previous = text
        text = _PATH_WRAPPED.sub(lambda m: m.group("w"), text)
    text = _inline_variables(text)
    for pattern in (_AWK_OUTPUT,) if awk else _WRITE_CALLS:
        for m in pattern.finditer(text):
            path = next(
                (p for p in (m.group("s"), m.groupdict().get("t"), m.groupdict().get("u")) if p is not None), None
            )
            if path and path not in found:
                found.append(path)
    # os.path.expandvars('$HOME/.profile'): the variable names the home folder too.
    return [_VAR_HOME.sub("~", p, count=1) for p in found]


_VAR_HOME = lazy_compile(r"^\$(?:HOME\b|\{HOME\})")
# A name given a path once: rc = "~/.zshrc", my $rc = "~/.bashrc"; const p = '/etc/x'.
_PATH_ASSIGNED = lazy_compile(
    r"""(?:\b(?:const|let|var|my|our|local)\s+)?(?<![\w.$@])(?P<n>\$?[A-Za-z_]\w*)\s*=\s*(?P<v>"[~/.][^"\\\n]*"|'[~/.][^'\\\n]*')\s*(?=[;\n)]|$)"""
)


def _inline_variables(text: str) -> str:
    """``rc = "~/.zshrc"; File.write(rc, …)`` read as ``File.write("~/.zshrc", …)``: a name
    assigned one path (and only once) stands for that path where it is used later."""
    assigned: dict[str, list[re.Match[str]]] = {}
    for m in _PATH_ASSIGNED.finditer(text):
        assigned.setdefault(m.group("n"), []).append(m)
    for name, matches in assigned.items():
        if len(matches) != 1 or len(re.findall(r"(?<![\w.$@])" + re.escape(name) + r"\s*=(?!=)", text)) != 1:
            continue  # given more than one value: which one a use sees is not known here
        m = matches[0]
        use = re.compile(r"(?<![\w.\"'/$@-])" + re.escape(name) + r"(?![\w\"'/-])")
        value = m.group("v").replace("\\", "\\\\")  # a replacement template: keep backslashes
        text = text[: m.end()] + use.sub(value, text[m.end() :])
    return text


_PY_WRITE_METHODS = frozenset({"write_text", "write_bytes", "touch", "symlink_to", "hardlink_to"})
_PY_SECOND_ARG = frozenset({"copy", "copy2", "copyfile", "copytree", "move", "rename", "replace", "symlink", "link"})


def _python_writes(code: str) -> list[str] | None:
    """The files Python code writes, from its syntax tree (None if it does not parse)."""
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        fname = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
        path: str | None = None
        receiver = _py_path(func.value) if isinstance(func, ast.Attribute) else None
        if fname == "open" and receiver is not None:
            path = receiver if _py_mode_writes(node, 0) else None  # Path(p).open("a")
        elif fname == "open" and node.args:
            path = _py_path(node.args[0]) if _py_mode_writes(node, 1) else None
        elif fname in _PY_WRITE_METHODS:
            path = receiver
        elif fname in _PY_SECOND_ARG and len(node.args) >= 2 and _py_file_module(func):
            path = _py_path(node.args[1])
        elif fname == "urlretrieve":  # urlretrieve(url, filename)
            target = node.args[1] if len(node.args) >= 2 else _py_keyword(node, "filename")
            path = _py_path(target) if target is not None else None
        elif fname == "extractall":  # every member of an archive, unpacked under path
            target = node.args[0] if node.args else _py_keyword(node, "path")
            path = _py_path(target) if target is not None else None
        if path and path not in found:
            found.append(path)
    return found


def _py_keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


def _py_file_module(func: ast.expr) -> bool:
    """shutil.copy / os.rename / copy (imported from shutil): not str.replace or list.copy."""
    import ast

    if isinstance(func, ast.Name):
        return True
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("os", "shutil")


def _py_mode_writes(call: ast.Call, index: int) -> bool:
    mode: ast.expr | None = call.args[index] if len(call.args) > index else None
    for kw in call.keywords:
        if kw.arg == "mode":
            mode = kw.value
    text = _py_str(mode) if mode is not None else None
    return bool(text) and any(c in text for c in "wax+")  # type: ignore[operator]


def _py_path(node: ast.AST) -> str | None:
    """A path expression's text: _py_str plus ``.expanduser()``, ``.resolve()``, ``.joinpath(…)``."""
    import ast

    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr = node.func.attr
        if attr in ("expanduser", "resolve", "absolute") and not node.args:
            return _py_path(node.func.value)
        if attr == "joinpath":
            base = _py_path(node.func.value)
            parts = [_py_str(a) for a in node.args]
            if base is None or any(p is None for p in parts):
                return None
            return os.path.join(base, *[p for p in parts if p is not None])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _py_path(node.left), _py_path(node.right)
        return os.path.join(left, right) if left is not None and right is not None else None
    return _py_str(node)
