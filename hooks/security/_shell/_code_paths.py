"""Paths that interpreter code names, in whatever string form, and what it does with them.

``open(os.path.expanduser('~/.ssh/id_rsa'))``, ``Path.home() / '.aws' / 'credentials'``,
``process.env.HOME + '/.netrc'``, ``"$ENV{HOME}/.pgpass"`` and awk's ``ENVIRON["HOME"] "/…"``
all name one file under the home folder; the security hooks judge code that uses such a file
the way they judge ``cat`` of it. A file the code only tests for (``os.path.exists``,
``fs.existsSync``, ``File.exist?``, Perl's ``-e``) or whose name it only prints is not read.
"""

from __future__ import annotations

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
