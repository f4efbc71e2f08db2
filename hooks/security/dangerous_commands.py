"""Block destructive shell commands before they run.

Hook: dangerous_commands
Event: PreToolUse
Matcher: Bash
Description: Denies catastrophic commands (rm -rf on /, ~, $HOME, .., the project root or
    system folders; dd/mkfs onto devices; fork bombs; curl|sh and other download-and-run;
    chmod/chown -R on /; git push --force to main/master; git reset --hard without a backup
    ref; SQL DROP/TRUNCATE, DELETE/UPDATE without a real WHERE through database clients,
    framework consoles and ORMs; firewall off; cron jobs or start-up files that fetch and run
    remote code) and answers "ask" for destructive-but-sometimes-legitimate ones (git clean
    -f, git branch -D, docker system prune, find -delete and bulk rm inside the project
    outside build output, force-push to other branches…). Parses the command like bash
    does (quotes, split flags, /bin/rm, sudo/env/timeout/xargs wrappers, chains, $(…),
    backticks, variables, here-docs, bash -c). Fails closed: an unparseable or malformed call
    is denied.
"""

from __future__ import annotations

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
from _shell import Cmd, Ctx, Word  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

NAME = "dangerous_commands"
EVENTS = frozenset({"PreToolUse"})
MATCHER = "Bash"
TOOLS = frozenset({"Bash"})

BULK_TARGETS = 10
DEFAULT_PROTECTED_BRANCHES = ("main", "master")
SYSTEM_TOP = frozenset({
    "bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc", "root",
    "run", "sbin", "srv", "sys", "usr", "var", "snap", "nix", "System", "Library",
    "Applications", "private", "cores",
})  # fmt: skip
HOME_PARENTS = frozenset({"home", "Users"})
BLOCK_DEVICE = re.compile(
    r"^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|"
    r"mapper/|loop\d|sr\d|fd\d|mem$|kmem$|port$)"
)
DISK_TOOLS = frozenset(
    {
        "mkswap",
        "mke2fs",
        "newfs",
        "blkdiscard",
        "wipefs",
        "fdisk",
        "sfdisk",
        "cfdisk",
        "parted",
        "gdisk",
        "sgdisk",
        "diskutil",
        "format",
    }
)
SQL_CLIENTS: dict[str, tuple[frozenset[str], frozenset[str], bool]] = {
    # client: (options holding SQL, options taking a value, SQL in positionals after the db)
    "psql": (
        frozenset({"c", "command"}),
        frozenset(
            {
                "-c",
                "--command",
                "-h",
                "--host",
                "-p",
                "--port",
                "-U",
                "--username",
                "-d",
                "--dbname",
                "-f",
                "--file",
                "-o",
                "--output",
                "-v",
                "--set",
                "--variable",
                "-P",
                "--pset",
                "-T",
                "-F",
                "-R",
                "-L",
                "--log-file",
            }
        ),
        False,
    ),
    "mysql": (
        frozenset({"e", "execute"}),
        frozenset(
            {"-e", "--execute", "-h", "--host", "-P", "--port", "-u", "--user", "-D", "--database", "-S", "--socket"}
        ),
        False,
    ),
    "sqlite3": (frozenset({"cmd"}), frozenset({"-cmd", "-separator", "-nullvalue", "-init", "-newline"}), True),
    "duckdb": (frozenset({"c", "cmd"}), frozenset({"-c", "-cmd", "-separator", "-init"}), True),
    "sqlcmd": (frozenset({"Q", "q"}), frozenset({"-Q", "-q", "-S", "-U", "-P", "-d", "-i", "-o"}), False),
    "clickhouse-client": (
        frozenset({"q", "query"}),
        frozenset({"-q", "--query", "-h", "--host", "-u", "--user", "-d", "--database"}),
        False,
    ),
    "usql": (frozenset({"c", "command"}), frozenset({"-c", "--command", "-f", "--file"}), True),
    "cqlsh": (frozenset({"e", "execute"}), frozenset({"-e", "--execute", "-u", "-p", "-k", "-f", "--file"}), False),
}
SQL_ALIASES = {
    "mariadb": "mysql",
    "sqlite": "sqlite3",
    "litecli": "sqlite3",
    "mycli": "mysql",
    "pgcli": "psql",
    "clickhouse": "clickhouse-client",
    "cockroach": "mysql",
    "snowsql": "clickhouse-client",
}
FIND_FILTERS = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-newer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-empty",
    "-user", "-group", "-perm", "-links", "-inum", "-samefile", "-lname", "-ilname",
})  # fmt: skip
# -name patterns of generated leftovers (compiled files, caches, editor and OS droppings).
LEFTOVER_NAMES = frozenset({
    "*.pyc", "*.pyo", "*.o", "*.obj", "*.class", "*.elc", "*.gcda", "*.gcno", "*.d",
    "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "*.egg-info", ".coverage",
    "*.tmp", "*.temp", ".DS_Store", "Thumbs.db", "*.swp", "*.swo", "*~", "*.log",
    "node_modules", "build", "dist", "coverage", ".cache", ".tox", ".next", "*.tsbuildinfo",
    "*.orig", "*.rej",  # merge and patch leftovers, like the editor's *~ and *.swp
})  # fmt: skip
# Fork bombs in interpreter code (shell ones are found in the parsed functions).
FORK_BOMB = re.compile(r"fork\s*while\s*fork|while\s*\(?\s*(?:True|1|true)\s*\)?\s*:\s*os\.fork\(\)")


# --------------------------------------------------------------------------- helpers


def _fork_bomb(ctx: Ctx) -> str | None:
    """A function defined in the command that pipes into itself (``:(){ :|:& };:``)."""
    for name, definition in ctx.functions.items():
        for command in definition.body.simple_commands() if definition.body else []:
            if command.words and command.words[0].literal() == name and _in_pipe(definition, command):
                return name
    return None


def _in_pipe(definition: _shell.Command, command: _shell.Command) -> bool:
    """Whether ``command`` is a stage of a pipeline of two or more inside ``definition``."""
    stack = list(definition.scripts())
    while stack:
        script = stack.pop()
        for pipe in script.pipelines:
            if len(pipe.commands) > 1 and any(c is command for c in pipe.commands):
                return True
            for inner in pipe.commands:
                stack.extend(inner.scripts())
    return False


def _protected_branches() -> set[str]:
    env = os.environ.get("PROTECTED_BRANCHES", "")
    names = {b.strip() for b in re.split(r"[,:\s]+", env) if b.strip()}
    return names or set(DEFAULT_PROTECTED_BRANCHES)


def critical(path: str, ctx: Ctx) -> str | None:
    """Why deleting/moving the absolute ``path`` is catastrophic, or None."""
    home = os.path.normpath(ctx.home)
    project = os.path.normpath(ctx.project)
    if path == "/":
        return "the filesystem root /"
    if path != project and _shell.is_within(path, project):
        return None  # strictly inside the project: not catastrophic by itself
    if _shell.is_within(home, path):
        return "your home directory" if path == home else f"{path} (contains your home directory)"
    if path == project:
        return f"the project root {path}"
    if _shell.is_within(project, path):
        return f"{path} (a parent of the project)"
    if os.path.dirname(path) == home:
        return f"{path} (a top-level folder of your home directory)"
    comps = path.strip("/").split("/")
    if len(comps) == 1:
        return f"{path} (a top-level system directory)"
    if len(comps) == 2 and comps[0] in HOME_PARENTS:
        return f"{path} (a user's home directory)"
    if len(comps) <= 3 and comps[0] in SYSTEM_TOP and comps[:2] != ["var", "tmp"]:
        return f"{path} (a system directory)"
    return None


SERVICE_DATA = frozenset(
    {"postgresql", "pgsql", "mysql", "mariadb", "mongodb", "redis", "docker", "containerd", "elasticsearch", "etcd"}
)


def _service_data(path: str) -> bool:
    """``/var/lib/postgresql/16/main``, ``/var/lib/docker/volumes``: where installed services keep
    their data (a database's files, every container volume)."""
    comps = path.strip("/").split("/")
    return len(comps) >= 3 and comps[:2] == ["var", "lib"] and comps[2] in SERVICE_DATA


def _only_build_output(base: str, glob_part: str, project: str) -> bool:
    """Whether every match of ``base/glob_part`` is generated output: a later component names a
    build folder (``packages/*/dist``, ``*/node_modules``, ``apps/*/.next/cache``), so a
    monorepo clean-up deletes what a build recreates."""
    comps = glob_part.split("/")
    if ".." in comps:
        return False
    concrete = "/".join("x" if _shell.has_glob(c) else c for c in comps)
    return _shell.build_output(os.path.join(base, concrete), project)


def _is_match_all(glob_part: str) -> bool:
    first = glob_part.split("/")[0]
    return first in _shell.MATCH_ALL_GLOBS


def _xargs_inputs(cmd: Cmd) -> list[str] | None:
    """Arguments xargs would append: the literal words a preceding echo/printf prints."""
    if cmd.stdin_text is not None:  # xargs rm <<< "$HOME", xargs rm < list written earlier
        return [v for v in cmd.stdin_text.split() if not v.startswith("-")]
    prev = cmd.prev
    if prev is None or prev.name not in ("echo", "printf"):
        return None
    values: list[str] = []
    for word in prev.args:
        got = prev.values(word)
        if got is None:
            return None
        for value in got:
            values.extend(value.split())
    return [v for v in values if not v.startswith("-")]


def _find_scope(find: Cmd) -> tuple[list[Word], bool, bool]:
    """A find command's start paths, whether it filters what it matches, and whether every
    ``-name`` filter names generated leftovers (``*.pyc``, ``__pycache__`` …)."""
    starts: list[Word] = []
    filtered = False
    names: list[str] = []
    expr = False
    args = find.args
    for i, word in enumerate(args):
        lit = word.literal()
        if not expr and lit is not None and (lit.startswith("-") or lit in ("(", "!")):
            expr = True
        if not expr:
            starts.append(word)
        elif lit in FIND_FILTERS:
            filtered = True
            after = [w.literal() for w in args[i + 2 : i + 4]]
            before = args[i - 1].literal() if i > 0 else None
            if after == ["-prune", "-o"] or (lit not in ("-name", "-iname") and before in ("!", "-not")):
                continue  # -path ./node_modules -prune -o …, ! -path './.git/*': excluded, not selected
            if before in ("!", "-not"):
                names.append("")  # ! -name '*.pyc': everything except the leftovers
                continue
            if lit in ("-name", "-iname") and i + 1 < len(args):
                names.append(args[i + 1].literal() or "")
            elif lit == "-empty":
                names.append(lit)  # empty files and folders: nothing is lost
            elif lit not in ("-type", "-mtime", "-mmin", "-atime", "-amin", "-newer"):
                names.append("")  # -path, -regex, -size …: not a leftover name we know
    leftovers = bool(names) and all(n in LEFTOVER_NAMES or n == "-empty" for n in names)
    return starts or [Word([_shell.Lit(".", True)], ".")], filtered, leftovers


# --------------------------------------------------------------------------- rules


def _rule_rm(cmd: Cmd, found: list[Finding]) -> None:
    flags, targets, _ = _shell.split_options(cmd.args)
    recursive = any(f in ("r", "R", "recursive") for f in flags)
    if "no-preserve-root" in flags:
        found.append(
            (
                "deny",
                f"`{cmd.display}` uses --no-preserve-root, which lets rm delete "
                "the whole filesystem. Delete specific paths inside the project instead.",
            )
        )
    values: list[tuple[Word | None, list[str] | None]] = [(w, cmd.values(w)) for w in targets]
    if cmd.xargs:
        prev = cmd.prev
        if prev is not None and prev.name == "find":
            _rule_find_scope(prev, cmd, found)
        elif prev is not None and _git_list_is_safe(prev):
            pass  # git ls-files '*.orig' | xargs rm: project files git can name, leftovers or tracked
        else:
            inputs = _xargs_inputs(cmd)
            if inputs is None:
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}` deletes a list of paths produced by "
                        "another command (xargs); confirm the list is what you expect.",
                    )
                )
            else:
                values.extend((None, [v]) for v in inputs)
    for word, candidates in values:
        if candidates is None:
            if word is not None and _shell.unknown_then_slash(word, cmd.ctx):
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}`: if {word.text.split('/')[0]} is empty or "
                        "unset this deletes from the filesystem root. Use ${VAR:?} or "
                        "check the variable first.",
                    )
                )
            elif word is not None and recursive:
                _classify_unknown_target(_shell.expand_pattern(word, cmd.ctx), cmd, found)
            continue
        for value in candidates:
            _classify_rm_target(value, cmd, recursive, found)
    if recursive and len(values) > BULK_TARGETS:
        found.append(
            ("ask", f"`{cmd.display}` recursively deletes {len(values)} paths at once; confirm this bulk delete.")
        )


def _classify_rm_target(value: str, cmd: Cmd, recursive: bool, found: list[Finding]) -> None:
    prefix, glob_part = _shell.glob_split(value)
    if glob_part is None:
        path = _shell.normalize(value, cmd.ctx.cwd)
        if path is None:
            return
        why = critical(path, cmd.ctx)
        if path == os.path.join(os.path.normpath(cmd.ctx.project), ".git"):
            # The repository itself: every commit, branch and stash not pushed anywhere.
            why = f"the project's git repository {path} (its whole history)"
        if why is None and _service_data(path):
            why = f"{path} (a database's or service's data files)"
        if why and recursive:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` would recursively delete {why}. Delete "
                    "specific paths inside the project instead (e.g. rm -rf build/).",
                )
            )
        elif recursive and cmd.ctx.remote and not _shell.is_within(path, "/tmp"):
            # On another machine the project's bounds mean nothing: whatever is there may be live data.
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` recursively deletes {path} on a remote host, where this hook cannot "
                    "tell data from scratch files; confirm, or delete only under /tmp there.",
                )
            )
        return
    base = _shell.normalize(prefix, cmd.ctx.cwd)
    if base is None:
        return
    if _only_build_output(base, glob_part, cmd.ctx.project):
        return
    why = critical(base, cmd.ctx)
    if _is_match_all(glob_part):
        if why and recursive:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` would delete everything in {why}. Name the files or folders to delete instead.",
                )
            )
        elif why:
            found.append(("ask", f"`{cmd.display}` deletes every file in {why}; confirm."))
        elif recursive and _shell.is_within(base, cmd.ctx.project) and not _shell.build_output(base, cmd.ctx.project):
            found.append(
                ("ask", f"`{cmd.display}` recursively deletes everything in {base}; confirm this bulk delete.")
            )
    elif base == "/" and recursive:
        found.append(("deny", f"`{cmd.display}` recursively deletes paths matching {value} at the filesystem root."))


def _classify_unknown_target(pattern: str, cmd: Cmd, found: list[Finding]) -> None:
    """``rm -rf /home/$USER``: an unknown part directly under a critical folder."""
    if not pattern.startswith("/"):
        return
    prefix, glob_part = _shell.glob_split(pattern)
    if glob_part is None or "/" in glob_part.strip("/"):
        return
    base = os.path.normpath(prefix)
    why = critical(base, cmd.ctx)
    if why is None:
        return
    if base == os.path.normpath(cmd.ctx.project):
        found.append(
            (
                "ask",
                f"`{cmd.display}` deletes a folder of the project root named by an "
                "unknown variable; if it is empty the whole project goes. Check it first.",
            )
        )
    else:
        found.append(
            (
                "deny",
                f"`{cmd.display}` deletes something directly in {why}, named by "
                "a variable that could be empty or wrong. Use an explicit path inside "
                "the project.",
            )
        )


def _git_list_is_safe(lister: Cmd) -> bool:
    """A list of project files from git that is safe to delete: tracked files narrowed by a
    pathspec (git restores them), or untracked files (``-o``) whose pathspecs all name
    generated leftovers (``git ls-files -o -- '*.orig'``). Everything else is confirmed."""
    if lister.name != "git" or lister.ctx.remote:
        return False
    lits = [w.literal() for w in lister.args]
    if None in lits or "ls-files" not in lits or any(a in ("-C", "--git-dir", "--work-tree") for a in lits):
        return False
    rest = [a for a in lits[lits.index("ls-files") + 1 :] if a is not None]
    specs = [a for a in rest if not a.startswith("-")]
    untracked = any(
        a in ("-o", "--others") or (a.startswith("-") and not a.startswith("--") and "o" in a) for a in rest
    )
    if not specs:
        return False
    if untracked:
        return all(os.path.basename(spec) in LEFTOVER_NAMES for spec in specs)
    return True


def _rule_find_scope(find: Cmd, actor: Cmd, found: list[Finding]) -> None:
    starts, filtered, leftovers = _find_scope(find)
    for word in starts:
        candidates = find.values(word)
        if candidates is None:
            found.append(("ask", f"`{actor.display}` deletes what `{find.display}` finds; confirm the search root."))
            continue
        for value in candidates:
            path = _shell.normalize(value, find.ctx.cwd)
            if path is None:
                continue
            why = critical(path, find.ctx)
            if why and (not filtered or path != os.path.normpath(find.ctx.project)):
                found.append(
                    (
                        "deny",
                        f"`{find.display}` deletes files under {why}. Search a "
                        "specific folder inside the project instead.",
                    )
                )
            elif _shell.is_within(path, find.ctx.project) and (
                leftovers or _shell.build_output(path, find.ctx.project)
            ):
                continue  # generated leftovers or build output inside the project: clean-up
            else:
                found.append(
                    (
                        "ask",
                        f"`{find.display}` bulk-deletes the files it finds under "
                        f"{path}; confirm (run it without -delete first to list them).",
                    )
                )


def _rule_find(cmd: Cmd, found: list[Finding]) -> None:
    lits = [w.literal() for w in cmd.args]
    deletes = "-delete" in lits
    for i, lit in enumerate(lits):
        if lit in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(cmd.args):
            inner = _shell.prog_name(cmd.args[i + 1], cmd.ctx)
            deletes = deletes or inner in ("rm", "shred", "unlink", "rmdir")
    if deletes:
        _rule_find_scope(cmd, cmd, found)


def _rule_mv(cmd: Cmd, found: list[Finding]) -> None:
    _flags, positionals, values = _shell.split_options(
        cmd.args, frozenset({"-t", "--target-directory", "-S", "--suffix"})
    )
    if not positionals:
        return
    target_dir = values.get("t") or values.get("target-directory")
    sources = positionals if target_dir else positionals[:-1]
    dest = target_dir[0] if target_dir else positionals[-1]
    for word in sources:
        for value in cmd.values(word) or []:
            prefix, glob_part = _shell.glob_split(value)
            path = _shell.normalize(prefix if glob_part else value, cmd.ctx.cwd)
            why = critical(path, cmd.ctx) if path else None
            if why:
                found.append(
                    ("deny", f"`{cmd.display}` moves {why} away. Move specific files inside the project instead.")
                )
    if (cmd.values(dest) or [""])[0] == "/dev/null":
        found.append(
            (
                "deny",
                f"`{cmd.display}` moves files onto /dev/null, destroying them. "
                "Use rm on the specific files if deleting is intended.",
            )
        )


def _protects(positionals: list[Word], target: str, ctx: Ctx) -> bool:
    """A chmod whose mode only takes access away, on something inside (not) the home folder."""
    mode = positionals[0].literal() if positionals else None
    home = os.path.normpath(ctx.home)
    return mode is not None and _shell.chmod_tightens(mode) and target != home and _shell.is_within(target, home)


def _rule_chmod(cmd: Cmd, found: list[Finding]) -> None:
    flags, positionals, values = _shell.split_options(cmd.args, frozenset({"--reference"}))
    recursive = any(f in ("R", "recursive") for f in flags)
    targets = positionals if "reference" in values else positionals[1:]
    mode = positionals[0].literal() if positionals and "reference" not in values else None
    granted = _shell.chmod_grants(mode) if cmd.name == "chmod" and mode is not None else set()
    for word in targets:
        for value in cmd.values(word) or []:
            path = _shell.normalize(value, cmd.ctx.cwd)
            if path is None:
                continue
            prefix, glob_part = _shell.glob_split(path)
            target = prefix if glob_part else path
            if _shell.is_within(target, cmd.ctx.project):
                if recursive and "world-write" in granted:
                    # chmod -R 777 .: every local user may now change the code (and read .env).
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` makes every file under {target} writable by every user, "
                            "so anyone on the machine can change the code that runs. Grant the access "
                            "needed to specific files (chmod +x script.sh, chmod -R u+w dir) instead.",
                        )
                    )
                continue  # otherwise the user's own project: not catastrophic
            # Outside the project a setuid/setgid bit (chmod 4755 /bin/bash: a root shell for
            # anyone) or world write access (chmod 777 /var/run/docker.sock, ~/.ssh/id_rsa)
            # hands the machine or the account to every local user.
            opened = granted & {"setid", "world-write"}
            if opened and not _shell.is_within(target, "/tmp"):
                what = "sets the setuid/setgid bit on" if "setid" in opened else "makes writable by every user"
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` {what} {target}, outside the project: any local user could then "
                        "act as its owner. Grant access to the one user or group that needs it instead.",
                    )
                )
                continue
            if cmd.name == "chmod" and _protects(positionals, target, cmd.ctx):
                continue  # chmod -R go-rwx ~/.ssh: taking access away inside the home folder
            why = critical(target, cmd.ctx)
            if why and (recursive or path in ("/", os.path.normpath(cmd.ctx.home))):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` changes permissions/ownership of {why}"
                        f"{' recursively' if recursive else ''}; this can make the system "
                        "or your account unusable. Target specific project files.",
                    )
                )


def _device_target(value: str) -> bool:
    return bool(BLOCK_DEVICE.match(value))


# mkfs options that take a value (so the value is not taken for the target).
_MKFS_VALUES = frozenset({
    "-t", "--type", "-L", "-l", "-b", "-c", "-C", "-d", "-E", "-f", "-g", "-G", "-i", "-I", "-j",
    "-J", "-m", "-M", "-n", "-N", "-o", "-O", "-r", "-s", "-T", "-U", "-e", "-z", "-p", "-S",
    "--label", "--uuid", "--pagesize",
})  # fmt: skip


def _format_target(cmd: Cmd) -> str | None:
    """What a mkfs/mkswap/blkdiscard call would erase when that is a device (``the device
    /dev/sda1``) or cannot be known; None when every target is a regular (image) file."""
    _flags, positionals, _values = _shell.split_options(cmd.args, _MKFS_VALUES)
    if not positionals:
        return "a device"
    for word in positionals:
        values = cmd.values(word)
        if values is None:
            return f"`{word.text}` (a path that could be a device)"
        for value in values:
            path = _shell.normalize(value, cmd.ctx.cwd) or value
            if path.startswith("/dev/"):
                return f"the device {path}"
    return None


def _scratch_only(cmd: Cmd) -> bool:
    """Every file operand lies in a scratch or build-output folder of the project (``tmp/``,
    ``build/`` …): overwriting it loses nothing a build or test run would not recreate."""
    _flags, positionals, _values = _shell.split_options(cmd.args, frozenset({"-n", "-s", "--iterations", "--size"}))
    paths = [_shell.normalize(v, cmd.ctx.cwd) for w in positionals for v in (cmd.values(w) or [""])]
    return bool(paths) and all(p is not None and _shell.build_output(p, cmd.ctx.project) for p in paths)


def _rule_devices(cmd: Cmd, found: list[Finding]) -> None:
    name = cmd.name
    if name == "dd":
        for word in cmd.args:
            for value in cmd.values(word) or []:
                if value.startswith("of=") and _device_target(value[3:]):
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` writes raw data onto the device "
                            f"{value[3:]}, destroying its filesystem. Write to an image "
                            "file instead.",
                        )
                    )
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "newfs", "blkdiscard"):
        target = _format_target(cmd)
        if target is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` formats/erases {target}. Format an image file inside the "
                    "project instead (e.g. `mkfs.ext4 disk.img`), or ask the user to do disk "
                    "administration themselves.",
                )
            )
    elif name in DISK_TOOLS:
        lits = [w.literal() or "" for w in cmd.args]
        listing = any(a in ("-l", "--list", "-p", "--print", "list", "info") for a in lits)
        # diskutil names disks without /dev/ (diskutil eraseDisk JHFS+ Blank disk2).
        erases = (
            name == "diskutil" and bool(lits) and re.match(r"(?i)(erase|zero|random|secureErase|partition)", lits[0])
        )
        if erases or (not listing and any(_device_target(a) for a in lits)):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` modifies a disk's partitions or "
                    "signatures. Ask the user to do disk administration themselves.",
                )
            )
    elif name in ("shred", "cp", "cat", "tee", "pv"):
        devices = [w.text for w in cmd.args if _device_target(w.literal() or "")]
        if devices and name in ("shred", "cp", "tee"):
            found.append(
                ("deny", f"`{cmd.display}` overwrites the device {devices[0]}. Write to an image file instead.")
            )
        elif name == "shred" and not _scratch_only(cmd):
            found.append(("ask", f"`{cmd.display}` irrecoverably overwrites files; confirm."))
    for r in cmd.redirects:
        if r.op in (">", ">>", ">|", "&>", "&>>", "<>", ">&") and r.target is not None:
            for value in cmd.values(r.target) or []:
                if _device_target(value):
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` redirects output onto the device {value}, destroying its contents. "
                            "Write to a regular file instead.",
                        )
                    )


def _rule_power(cmd: Cmd, found: list[Finding]) -> None:
    lits = [w.literal() or "" for w in cmd.args]
    name = cmd.name
    if (
        name in ("shutdown", "reboot", "halt", "poweroff")
        or (name in ("init", "telinit") and lits[:1] in (["0"], ["6"]))
        or (name == "systemctl" and any(a in ("poweroff", "reboot", "halt", "kexec") for a in lits))
    ):
        found.append(("deny", f"`{cmd.display}` shuts down or reboots the machine. Ask the user to do it."))
    # kill -9 -1, pkill -u "$USER" (no pattern), killall5: every process of the user or the machine.
    _flags, pattern, values = _shell.split_options(
        cmd.args, frozenset({"-u", "-U", "-g", "-G", "-s", "--signal", "-t", "-P", "--euid", "--uid"})
    )
    everything = (
        (name == "kill" and len(lits) >= 2 and lits[-1] == "-1")
        or (name == "pkill" and not pattern and (values.get("u") or values.get("U")))
        or (name == "killall" and not pattern and values.get("u"))
        or name == "killall5"
    )
    if everything:
        found.append(
            (
                "deny",
                f"`{cmd.display}` signals every process you own (or every process). Kill specific process ids instead.",
            )
        )


def _rule_git(cmd: Cmd, earlier: list[Cmd], found: list[Finding]) -> None:
    _flags, positionals, values = _shell.split_options(
        cmd.args,
        frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}),
        stop_at_first=True,
    )
    if not positionals:
        return
    sub = positionals[0].literal() or ""
    rest = positionals[1:]
    where = cmd.ctx.cwd
    for c_dir in values.get("C", []):
        got = cmd.values(c_dir)
        where = _shell.normalize(got[0], where) if got else None
    if sub == "push":
        _git_push(cmd, rest, where, found, _switched_branch(earlier))
    elif sub == "reset":
        flags, _pos, _vals = _shell.split_options(rest)
        if "hard" in flags and not _has_backup(earlier):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` discards uncommitted work and moves the "
                    "branch with no way back. Make a backup ref first in the same "
                    "command, e.g. `git branch backup/before-reset && git reset --hard "
                    "…` or `git stash && git reset --hard …`.",
                )
            )
    elif sub == "clean":
        flags, _pos, _vals = _shell.split_options(rest, frozenset({"-e", "--exclude"}))
        if ("f" in flags or "force" in flags) and not ({"n", "dry-run", "i", "interactive"} & set(flags)):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` permanently deletes untracked files; run "
                    "`git clean -n` first to see what would go, then confirm.",
                )
            )
    elif sub == "branch":
        flags, _pos, _vals = _shell.split_options(rest)
        if "D" in flags or ({"d", "delete"} & set(flags) and {"f", "force"} & set(flags)):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` force-deletes a branch even if it is not "
                    "merged; confirm (or use `git branch -d`).",
                )
            )
    elif sub in ("checkout", "restore"):
        flags, pos, _vals = _shell.split_options(rest, frozenset({"-b", "-B", "--source", "-s"}))
        whole_tree = [p for p in pos if p.literal() in (".", "./", "*", ":/", ":(top)", "-A")]
        staged_only = (
            sub == "restore" and ("staged" in flags or "S" in flags) and not ("worktree" in flags or "W" in flags)
        )
        if (whole_tree and not staged_only) or (sub == "checkout" and ("f" in flags or "force" in flags)):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` discards all uncommitted changes in the "
                    "working tree; confirm (or `git stash` them first).",
                )
            )
    elif sub == "stash" and rest and rest[0].literal() in ("drop", "clear"):
        found.append(("ask", f"`{cmd.display}` deletes stashed work; confirm."))
    elif sub in ("filter-branch", "filter-repo"):
        found.append(("ask", f"`{cmd.display}` rewrites the repository history; confirm."))
    elif sub == "reflog" and rest and rest[0].literal() in ("expire", "delete"):
        found.append(("ask", f"`{cmd.display}` deletes reflog entries (the safety net for lost commits); confirm."))
    elif sub == "gc" and any((w.literal() or "") in ("--prune=now", "--prune=all") for w in rest):
        found.append(("ask", f"`{cmd.display}` permanently prunes unreachable commits; confirm."))
    elif sub == "update-ref" and any(w.literal() == "-d" for w in rest):
        found.append(("ask", f"`{cmd.display}` deletes a ref; confirm."))
    elif sub == "rm":
        flags, pos, _vals = _shell.split_options(rest)
        if "r" in flags and "cached" not in flags and any(p.literal() in (".", "*", ":/") for p in pos):
            found.append(("ask", f"`{cmd.display}` deletes every tracked file; confirm."))


def _current_branch(where: str | None) -> str | None:
    if where is None:
        return None
    out = _common.git(["symbolic-ref", "--quiet", "--short", "HEAD"], where, timeout=3)
    return out.strip() or None if out else None


def _switched_branch(earlier: list[Cmd]) -> str | None:
    """The branch an earlier ``git checkout X`` / ``git switch X`` (``-b``/``-c`` X) in the
    same command made current, so ``git checkout main && git push -f`` pushes main."""
    branch: str | None = None
    for c in earlier:
        if c.name != "git":
            continue
        lits = [w.literal() for w in c.args]
        if not lits or lits[0] not in ("checkout", "switch"):
            continue
        args = lits[1:]
        if None in args or "--" in args:
            continue
        new = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-b", "-B", "-c", "-C")), None)
        plain = [a for a in args if a is not None and not a.startswith("-")]
        if new is not None:
            branch = new
        elif len(plain) == 1:
            branch = plain[0]
    return branch


def _git_push(cmd: Cmd, rest: list[Word], where: str | None, found: list[Finding], switched: str | None = None) -> None:
    flags, positionals, _vals = _shell.split_options(
        rest, frozenset({"-o", "--push-option", "--repo", "--receive-pack", "--exec"})
    )
    flag_set = set(flags)
    if {"n", "dry-run"} & flag_set:
        return
    force = bool({"f", "force"} & flag_set) or any(f.startswith("force-with-lease") for f in flags)
    delete = bool({"d", "delete"} & flag_set)
    protected = _protected_branches()
    if "mirror" in flag_set:
        found.append(
            (
                "deny",
                f"`{cmd.display}` (--mirror) overwrites and deletes every ref on "
                "the remote, including protected branches. Push specific branches.",
            )
        )
        return
    if force and ({"all", "branches"} & flag_set):
        found.append(
            (
                "deny",
                f"`{cmd.display}` force-pushes every branch, including "
                f"{'/'.join(sorted(protected))}. Push your feature branch only.",
            )
        )
        return
    targets: list[tuple[str | None, bool, bool]] = []  # (branch, forced, deleted)
    for word in positionals[1:]:
        text = (cmd.values(word) or [word.text])[0]
        plus = text.startswith("+")
        src, colon, dst = text.lstrip("+").partition(":")
        dest = dst if colon else src
        dest = dest.removeprefix("refs/heads/")
        branch: str | None = dest
        if dest in ("HEAD", "@", ""):
            branch = (switched or _current_branch(where)) if dest else None
        targets.append((branch, force or plus, delete or (bool(colon) and not src)))
    if not positionals[1:] and force:
        targets.append((switched or _current_branch(where), True, False))
    for branch, forced, deleted in targets:
        if deleted:
            if branch in protected:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` deletes the protected branch {branch} "
                        "on the remote. Ask the user to do this.",
                    )
                )
            else:
                found.append(("ask", f"`{cmd.display}` deletes a remote branch; confirm."))
        elif forced:
            if branch in protected:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` force-pushes to the protected branch "
                        f"{branch}, rewriting shared history. Push to a feature branch "
                        "and open a pull request instead.",
                    )
                )
            elif branch is None:
                found.append(
                    (
                        "ask",
                        f"`{cmd.display}` force-pushes the current branch (could "
                        "not tell which); confirm it is not a shared branch.",
                    )
                )
            else:
                found.append(("ask", f"`{cmd.display}` force-pushes {branch}, rewriting its remote history; confirm."))


def _has_backup(earlier: list[Cmd]) -> bool:
    """Whether an earlier command in the same call saved the current state in a ref."""
    for cmd in earlier:
        if cmd.name != "git":
            continue
        _flags, positionals, _vals = _shell.split_options(cmd.args, frozenset({"-C", "-c"}), stop_at_first=True)
        if not positionals:
            continue
        sub = positionals[0].literal()
        rest = [w.literal() or "" for w in positionals[1:]]
        if sub == "stash" and (not rest or rest[0] in ("push", "save", "-u", "--include-untracked", "-m", "--all")):
            return True
        if (
            sub in ("branch", "tag")
            and rest
            and not any(
                r in ("-d", "-D", "--delete", "-l", "--list", "-m", "-M", "--show-current", "-v", "-a", "-r")
                for r in rest
            )
        ):
            return True
        if sub in ("commit", "worktree") or (sub == "update-ref" and "-d" not in rest):
            return True
        if (sub == "checkout" and "-b" in rest) or (sub == "switch" and "-c" in rest):
            return True
    return False


_COMPARISON = re.compile(r"^(?P<a>[\w.'\"`]+)\s*(?P<op>=|==|<>|!=|<=|>=|<|>|\bIS\b|\bLIKE\b)\s*(?P<b>[\w.'\"`%]+)$")


def _always_true(condition: str) -> bool:
    """Whether an upper-cased SQL condition holds for every row (``1=1``, ``TRUE``,
    ``'A'='A'``, ``x = x``, ``… OR 1=1``); string literals arrive as ``''``."""
    for disjunct in re.split(r"\bOR\b", condition):
        term = disjunct.strip()
        while term.startswith("(") and term.endswith(")"):
            term = term[1:-1].strip()
        term = term.strip("() ")
        if term in ("TRUE", "1", "NOT FALSE", "NOT 0") or re.fullmatch(r"[\w.\"`]+\s+LIKE\s+'%%?'", term):
            return True
        m = _COMPARISON.match(term)
        if not m:
            continue
        a, op, b = m.group("a"), m.group("op"), m.group("b")
        if a == b and op in ("=", "==", "<=", ">=", "IS", "LIKE"):
            return True
        if a.isdigit() and b.isdigit():
            x, y = int(a), int(b)
            truth = {"<>": x != y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}
            if truth.get(op, x == y):
                return True
    return False


def _real_where(stmt: str) -> bool:
    """Whether a DELETE/UPDATE statement has a WHERE that can exclude rows."""
    m = re.search(r"\bWHERE\b(?P<c>.*?)(?:\bORDER\s+BY\b|\bLIMIT\b|\bRETURNING\b|$)", stmt)
    return m is not None and not _always_true(m.group("c").strip())


def sql_findings(sql: str, where: str) -> list[Finding]:
    """Destructive statements in ``sql`` (comments and string literals ignored)."""
    text = re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)
    # String literals become '' ('%' is kept: LIKE '%' matches every row).
    text = re.sub(r"'(?:[^']|'')*'", lambda m: m.group() if m.group() in ("'%'", "'%%'") else "''", text)
    found: list[Finding] = []
    for statement in text.split(";"):
        stmt = " ".join(statement.split()).upper()
        if not stmt:
            continue
        m = re.search(r"\bDROP\s+(TABLE|DATABASE|SCHEMA|KEYSPACE|MEASUREMENT|SERIES)\b", stmt)
        if m:
            found.append(
                (
                    "deny",
                    f"{where} runs DROP {m.group(1)}, which destroys data. Ask "
                    "the user to run destructive schema changes, or write a migration.",
                )
            )
        elif re.search(r"\bTRUNCATE\b", stmt) and not stmt.startswith("SELECT"):
            found.append(
                (
                    "deny",
                    f"{where} runs TRUNCATE, which deletes every row. Delete the rows meant with a "
                    "WHERE clause, or ask the user to run it.",
                )
            )
        elif re.search(r"\bDELETE\s+FROM\b", stmt) and not _real_where(stmt):
            found.append(
                (
                    "deny",
                    f"{where} runs DELETE without a real WHERE (none, or one that is always true), "
                    "deleting every row. Add a WHERE clause on a key.",
                )
            )
        elif re.search(r"\bALTER\s+TABLE\s+\S+\s+(?:ON\s+CLUSTER\s+\S+\s+)?(?:DELETE|UPDATE)\b", stmt) and not (
            _real_where(stmt)
        ):
            # ClickHouse mutations: ALTER TABLE t DELETE WHERE 1 empties the table.
            found.append(
                (
                    "deny",
                    f"{where} runs ALTER TABLE … DELETE/UPDATE without a real WHERE, changing every row. "
                    "Add a WHERE clause on a key.",
                )
            )
        elif re.search(r"(^|\s)UPDATE\s+\S+\s+SET\b", stmt) and not _real_where(stmt):
            found.append(
                (
                    "deny",
                    f"{where} runs UPDATE without a real WHERE (none, or one that is always true), "
                    "changing every row. Add a WHERE clause on a key.",
                )
            )
        elif re.search(r"\bDROP\s+(INDEX|VIEW|COLUMN|USER|ROLE|FUNCTION|TRIGGER)\b", stmt) or (
            re.search(r"\bALTER\s+TABLE\b.*\bDROP\b", stmt)
        ):
            found.append(("ask", f"{where} drops a database object; confirm."))
    return found


_CODE_SQL = re.compile(
    r"""\b(?:execute|executescript|executemany|exec|query|raw|run|prepare)\s*\(\s*[rbuf]?(?P<q>["'`])"""
    r"""(?P<sql>\s*(?:DROP|DELETE|TRUNCATE|UPDATE|ALTER)\b.*?)(?P=q)""",
    re.I | re.S,
)


def _sql_files(cmd: Cmd) -> list[str]:
    """SQL files a client runs (``< drop_all.sql``, ``-f reset.sql``) named for destruction."""
    words = [r.target for r in cmd.redirects if r.op == "<" and r.target is not None]
    _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"-f", "--file", "-i"}))
    words += values.get("f", []) + values.get("file", []) + values.get("i", [])
    names = [(cmd.values(w) or [w.text])[0] for w in words if cmd.ctx.written(w) is None]
    return [n for n in names if re.search(r"(?i)drop|truncate|wipe|purge|reset|destroy|delete|nuke", n)]


def _db_console(cmd: Cmd) -> bool:
    """Framework database shells that pass SQL to the client: ``manage.py dbshell``,
    ``rails dbconsole``, ``php artisan db``."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "python" or cmd.name.endswith("manage.py") or cmd.name == "django-admin":
        return "dbshell" in lits
    if cmd.name in ("rails", "rake") or cmd.name.endswith("/rails"):
        return bool(lits) and lits[0] in ("dbconsole", "db")
    if cmd.name == "php" or cmd.name == "artisan":
        return "db" in lits
    return False


def _db_console_sql(cmd: Cmd) -> list[str]:
    """SQL given to a database shell: on stdin, or as ``-- -c "…"`` / ``-- -e "…"``."""
    texts: list[str] = []
    args = cmd.args
    lits = [w.literal() for w in args]
    if "--" in lits:
        after = args[lits.index("--") + 1 :]
        for i, w in enumerate(after[:-1]):
            if w.literal() in ("-c", "--command", "-e", "--execute", "-cmd"):
                texts.append(" ".join(cmd.values(after[i + 1]) or [after[i + 1].text]))
    return texts


_REDIS_WIPE = re.compile(r"(?i)\bflush(?:all|db)\b")
# keys('*') / KEYS * inside a script: every key.
_REDIS_ALL_KEYS = re.compile(r"""(?i)\bkeys["']?\s*[,(]?\s*["']\*["']|\bkeys\s+\*""")


def _redis_lists_all(cmd: Cmd) -> bool:
    """``redis-cli --scan`` (no pattern or ``*``) or ``redis-cli KEYS '*'``: every key name."""
    if cmd.name not in ("redis-cli", "valkey-cli", "keydb-cli"):
        return False
    lits = [(w.literal() or "") for w in cmd.args]
    if "--scan" in lits:
        i = lits.index("--pattern") if "--pattern" in lits else -1
        return i < 0 or (i + 1 < len(lits) and _is_match_all(lits[i + 1]))
    low = [a.lower() for a in lits]
    return "keys" in low and low.index("keys") + 1 < len(low) and _is_match_all(low[low.index("keys") + 1])


def _rule_redis(cmd: Cmd, found: list[Finding]) -> None:
    """A key-value store wiped through its client: FLUSHALL/FLUSHDB anywhere in the request
    (also inside an EVAL script), or DEL/UNLINK of every key (listed by --scan or KEYS *)."""
    text = " ".join(" ".join(cmd.values(w) or [w.text]) for w in cmd.args) + " " + (cmd.stdin_text or "")
    lits = [(w.literal() or "").lower() for w in cmd.args]
    every_key = (
        any(a in ("del", "unlink") for a in lits) and cmd.xargs and cmd.prev is not None and _redis_lists_all(cmd.prev)
    )
    if _REDIS_WIPE.search(text) or every_key or ("eval" in lits and _REDIS_ALL_KEYS.search(text)):
        found.append(
            (
                "deny",
                f"`{cmd.display}` wipes the data store (FLUSHALL/FLUSHDB, or deletes every key). "
                "Delete the keys of one narrow pattern instead, or ask the user to run it.",
            )
        )


def _rule_hosted_data(cmd: Cmd, found: list[Finding]) -> None:
    """Hosted data deleted through a cloud or store CLI: a bucket emptied recursively or
    removed with its contents, a managed database, table or cluster deleted, every key of
    etcd/consul. None of it has an undo; a single object or an empty bucket only asks."""
    lits = [(w.literal() or "") for w in cmd.args]
    flags = set(lits)
    name = cmd.name
    what = ""
    ask = ""
    urls = [a for a in lits if re.match(r"(?:s3|gs)://", a)]
    whole = any(re.fullmatch(r"(?:s3|gs)://[^/]+/?", u) or u.endswith(("/*", "/**")) for u in urls)
    if name == "aws" and lits[:2] == ["s3", "rm"] and "--recursive" in flags:
        what, ask = (
            ("deletes every object of an S3 bucket", "") if whole else ("", "deletes every object under an S3 prefix")
        )
    elif name == "aws" and lits[:2] == ["s3", "rb"]:
        what, ask = (
            ("removes an S3 bucket with its contents", "") if "--force" in flags else ("", "removes an S3 bucket")
        )
    elif (
        name == "aws"
        and len(lits) > 1
        and re.fullmatch(
            r"delete-(?:table|db-instance|db-cluster|cluster|database|file-system|bucket|repository|stream|backup-vault)",
            lits[1],
        )
    ):
        what = f"deletes a hosted {lits[1][7:].replace('-', ' ')} ({lits[0]})"
    elif name in ("gsutil", "gcloud") and ("rm" in lits[:3]) and ({"-r", "-R", "--recursive"} & flags or "-a" in flags):
        if whole:
            what = "deletes every object of a Cloud Storage bucket"
        else:
            ask = "deletes every object under a Cloud Storage path"
    elif name == "gsutil" and lits[:1] == ["rb"]:
        ask = "removes a Cloud Storage bucket"
    elif (
        name == "gcloud"
        and "delete" in lits
        and any(a in ("sql", "spanner", "bigtable", "firestore", "redis", "filestore", "container") for a in lits[:2])
    ):
        what = f"deletes a hosted {lits[0]} resource"
    elif name == "az" and (
        lits[:3] == ["storage", "blob", "delete-batch"]
        or (lits[:1] in (["sql"], ["cosmosdb"], ["postgres"], ["mysql"]) and "delete" in lits)
        or lits[:2] == ["group", "delete"]
    ):
        what = "deletes hosted data or a resource group (az)"
    elif name == "etcdctl" and "del" in lits and ("--prefix" in flags or "--from-key" in flags):
        keys = [a for a in lits[lits.index("del") + 1 :] if not a.startswith("-")]
        if not keys or keys[0] in ("", "/", "\\0"):
            what = "deletes every key of etcd"
    elif name == "consul" and lits[:3] == ["kv", "delete", "-recurse"]:
        keys = [a for a in lits[3:] if not a.startswith("-")]
        if not keys or keys[0] in ("", "/"):
            what = "deletes every key of consul"
    elif name == "gh" and lits[:2] == ["repo", "delete"]:
        what = "deletes a hosted repository with its issues, pull requests and releases"
    elif name == "rclone" and lits[:1] == ["purge"]:
        ask = "deletes a remote path and everything in it"
    if what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what}; hosted data has no undo. Delete the specific objects "
                "needed, or ask the user to run it.",
            )
        )
    elif ask:
        found.append(("ask", f"`{cmd.display}` {ask}; confirm this is intended."))


def _scratch_database(positionals: list[Word], texts: list[str]) -> bool:
    """``sqlite3 :memory: '…'`` or ``duckdb -c '…'`` with no file: the database lives only as long
    as the command, so deleting from it loses nothing (unless the SQL ATTACHes a real file)."""
    memory = not positionals or positionals[0].literal() == ":memory:"
    return memory and not any(re.search(r"(?i)\battach\b|^\s*\.open\b", t, re.MULTILINE) for t in texts)


def _rule_sql(cmd: Cmd, found: list[Finding]) -> None:
    name = SQL_ALIASES.get(cmd.name, cmd.name)
    texts: list[str] = []
    if name in SQL_CLIENTS:
        sql_opts, with_value, positional_sql = SQL_CLIENTS[name]
        # sqlite3/duckdb use single-dash long options (-cmd): split them by hand.
        args = cmd.args
        _flags, positionals, values = _shell.split_options(
            [w for w in args if (w.literal() or "") not in ("-cmd",)], with_value
        )
        for key in sql_opts:
            texts.extend(" ".join(cmd.values(w) or [w.text]) for w in values.get(key, []))
        lits = [w.literal() for w in args]
        for i, lit in enumerate(lits):
            if lit == "-cmd" and i + 1 < len(args):
                texts.append(args[i + 1].text)
        if positional_sql:
            texts.extend(" ".join(cmd.values(w) or [w.text]) for w in positionals[1:])
        if name in ("sqlite3", "duckdb") and _scratch_database(positionals, [*texts, cmd.stdin_text or ""]):
            return
        # psql -f FILE / sqlcmd -i FILE: a file this command wrote earlier is inspected.
        for key in ("f", "file", "i"):
            for word in values.get(key, []):
                written = cmd.ctx.written(word)
                if written is not None:
                    texts.append(written)
    elif _db_console(cmd):
        texts.extend(_db_console_sql(cmd))
    elif cmd.name in _shell.INTERPRETERS:
        # sqlite3.connect(…).execute("DROP TABLE …"), cursor.execute('DELETE FROM …')
        texts.extend(m.group("sql") for code in _shell.code_of(cmd) for m in _CODE_SQL.finditer(code))
    elif cmd.name == "influx":
        # InfluxQL through influx -execute '…' (single-dash long option) or on stdin.
        lits = [w.literal() for w in cmd.args]
        texts.extend(
            " ".join(cmd.values(cmd.args[i + 1]) or [cmd.args[i + 1].text])
            for i, lit in enumerate(lits[:-1])
            if lit in ("-execute", "--execute", "-e")
        )
    elif cmd.name == "cypher-shell":
        _flags, positionals, _values = _shell.split_options(
            cmd.args, frozenset({"-u", "-p", "-a", "-d", "--address", "--database", "--username", "--password", "-f"})
        )
        query = " ".join(" ".join(cmd.values(w) or [w.text]) for w in positionals) + " " + (cmd.stdin_text or "")
        if re.search(
            r"(?is)\bMATCH\s*\(\s*\w*(?:\s*:\s*\w+)?\s*\)(?:(?!\bWHERE\b|\{).)*?\b(?:DETACH\s+)?DELETE\b", query
        ):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every node of the graph or of a label (MATCH (n) … DELETE "
                    "without a filter). Match the nodes meant by a property or WHERE instead.",
                )
            )
        return
    elif cmd.name in ("mongo", "mongosh"):
        _flags, _pos, values = _shell.split_options(cmd.args, frozenset({"--eval"}))
        code = " ".join(w.text for w in values.get("eval", [])) + (cmd.stdin_text or "")
        if re.search(r"dropDatabase\s*\(|\.drop\s*\(\s*\)|(deleteMany|remove)\s*\(\s*\{\s*\}", code):
            found.append(
                ("deny", f"`{cmd.display}` drops or empties a MongoDB database or collection. Ask the user to run it.")
            )
        return
    elif cmd.name in ("redis-cli", "valkey-cli", "keydb-cli"):
        _rule_redis(cmd, found)
        return
    elif cmd.name in ("dropdb", "dropuser") or (
        cmd.name == "mysqladmin" and any(w.literal() == "drop" for w in cmd.args)
    ):
        found.append(("deny", f"`{cmd.display}` drops a database. Ask the user to run it."))
        return
    else:
        return
    if cmd.stdin_text:
        texts.append(cmd.stdin_text)
    for sql_file in _sql_files(cmd) if name in SQL_CLIENTS or _db_console(cmd) else []:
        found.append(
            (
                "ask",
                f"`{cmd.display}` runs the SQL file {sql_file}, whose name says it destroys data "
                "and whose content is not known here; read it first, then confirm.",
            )
        )
    start = len(found)
    for sql in texts:
        found.extend(sql_findings(sql, f"`{cmd.display}`"))
    if _production(cmd) or _production_host(cmd):
        # A change that only asks on a development database destroys live data in production.
        for i in range(start, len(found)):
            if found[i][0] == "ask":
                found[i] = (
                    "deny",
                    found[i][1].split("; confirm")[0]
                    + " on a production database. Ask the user to run it; try it on a development copy first.",
                )


def _rule_download_exec(cmd: Cmd, found: list[Finding]) -> None:
    """curl … | sh, bash <(curl …), sh -c "$(curl …)", eval "$(… | base64 -d)"."""
    name = cmd.name
    runs_code = name in _shell.SHELLS or name in _shell.INTERPRETERS
    if runs_code and (cmd.stage > 0 or cmd.stdin_sources) and _reads_code_from_stdin(cmd):
        upstream: set[str] = set(cmd.stdin_sources)
        for stage in cmd.stage_names[: cmd.stage]:
            upstream |= stage
        if upstream & _shell.DOWNLOADERS:
            found.append(
                (
                    "deny",
                    f"piping a download into `{name}` runs unreviewed remote "
                    "code. Download the script to a file, read it, then run it.",
                )
            )
        elif upstream & _shell.DECODERS:
            found.append(
                (
                    "deny",
                    f"piping decoded/obfuscated data into `{name}` runs code "
                    "that cannot be reviewed. Run the plain command instead.",
                )
            )
        elif cmd.stage > 0 and name in _shell.SHELLS and cmd.stdin_text is None:
            # grep … docs | sh, sed … <<< '…' | bash: the commands are produced by the pipeline,
            # so nobody (hook or user) sees them before they run.
            found.append(
                (
                    "ask",
                    f"piping generated text into `{name}` runs commands nobody has read. Print them "
                    "first, review them, then run them directly.",
                )
            )
    if runs_code or name in ("eval", "source", "."):
        for word in cmd.args:
            # $(curl …) in the arguments, or a variable that holds such output (x=$(…); eval "$x").
            produced = [_shell.names_in(sub.script, cmd.ctx) for sub in word.subs()]
            produced += [cmd.ctx.sources.get(p.name, set()) for p in word.parts if isinstance(p, _shell.Var)]
            for inner in produced:
                if inner & _shell.DOWNLOADERS:
                    found.append(
                        (
                            "deny",
                            f"`{cmd.display}` runs code fetched from the network "
                            "without review. Download it to a file and read it first.",
                        )
                    )
                elif inner & _shell.DECODERS:
                    found.append(
                        ("deny", f"`{cmd.display}` runs decoded/obfuscated code. Run the plain command instead.")
                    )
    if cmd.argv and not cmd.name:
        for sub in cmd.argv[0].subs():
            inner = _shell.names_in(sub.script, cmd.ctx)
            if inner & (_shell.DECODERS | _shell.DOWNLOADERS):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}`: the program to run is computed by "
                        "decoding or downloading; run the plain command instead.",
                    )
                )


_CODE_REVERSE_SHELL = re.compile(
    r"socket.{0,400}?connect.{0,400}?(?:dup2|pty\.spawn|/bin/(?:ba)?sh|cmd\.exe|spawn\(\s*[\"'](?:/bin/)?(?:ba)?sh)",
    re.S,
)
_CODE_RUNS_FETCHED = re.compile(
    # exec/eval of code whose text is decoded or downloaded on the spot.
    r"\b(?:exec|eval|Function|instance_eval|load)\s*\((?=[^;\n]*(?:b64decode|b32decode|decodebytes|"
    r"urlopen|requests\.get|httpx\.get|urllib|fetch\(|Buffer\.from|atob\(|unpack\(|\bpack\(|decode\(|zlib))"
)


# A shell call (os.system, subprocess, execSync) whose command line is decoded or downloaded in
# its own argument; plain .decode() of a call's output is ordinary.
_CODE_SHELLS_FETCHED = re.compile(
    r"\b(?:system|popen|Popen|run|call|check_output|check_call|getoutput|execSync|spawnSync|shell_exec|"
    r"passthru)\s*\(\s*[^;\n()]*?(?:b64decode|b32decode|decodebytes|urlopen|requests\.get|atob|"
    r"Buffer\.from)\s*\("
)


def _rule_code_runs_fetched(cmd: Cmd, found: list[Finding]) -> None:
    """``python -c "exec(b64decode(…))"``, ``exec(urlopen(…).read())``: hidden or remote code."""
    if cmd.name not in _shell.INTERPRETERS:
        return
    for code in _shell.code_of(cmd):
        if _CODE_REVERSE_SHELL.search(code):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` opens a reverse shell (a network connection wired to a "
                    "shell), handing the machine to whoever listens. Do not run it.",
                )
            )
            return
        if _CODE_RUNS_FETCHED.search(code) or _CODE_SHELLS_FETCHED.search(code):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` executes code it decodes or downloads, which cannot be "
                    "reviewed. Run the plain code instead.",
                )
            )
            return


# A program operand that names code on the network rather than a file or registry package.
_URL_OPERAND = re.compile(r"^(?:https?://|git\+|git://|(?:github|gitlab|bitbucket):)", re.IGNORECASE)
# Runners whose subcommand takes a script or package to run: deno run URL, pnpm dlx URL …
_URL_RUNNERS = {
    "deno": ("run",),
    "bun": ("run", "x"),
    "pnpm": ("dlx", "exec"),
    "yarn": ("dlx",),
    "npm": ("exec", "x"),
    "pipx": ("run",),
}


def _rule_runs_url(cmd: Cmd, found: list[Finding]) -> None:
    """``npx https://gist…/run.js``, ``deno run https://…/x.ts``, ``uv run https://…/s.py``,
    ``pnpm dlx github:user/repo``: the program run is whatever the URL serves at that moment."""
    words = cmd.argv[:1]  # npx/bunx/uv run unwrap to the URL itself as the program word
    if cmd.name in _URL_RUNNERS:
        _flags, positionals, _values = _shell.split_options(cmd.args, frozenset({"-p", "--package", "--spec"}))
        lits = [w.literal() for w in positionals]
        if lits and lits[0] in _URL_RUNNERS[cmd.name]:
            words = positionals[1:2]
        elif cmd.name in ("deno", "bun"):
            words = positionals[:1]
    for word in words:
        url = next((v for v in cmd.values(word) or [word.text] if _URL_OPERAND.match(v)), None)
        if url is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` runs code fetched from {url}, which nobody has reviewed and can "
                    "change at any time. Download it, read it, and run the local copy instead.",
                )
            )
            return


def _rule_hidden_code(cmd: Cmd, found: list[Finding]) -> None:
    """``bash -c "$CMD"``, ``eval "$line"`` (from ``read``), ``xargs -I{} sh -c '{}'``: a shell runs
    code the call does not show — a variable set elsewhere, or each line of some input."""
    if cmd.name in _shell.SHELLS:
        script, _stdin, _file = _shell.shell_invocation(cmd.args)
        scripts = [script] if script is not None else []
    elif cmd.name == "eval":
        scripts = list(cmd.args)
    else:
        return
    for word in scripts:
        text = word.literal()
        if cmd.replace and text is not None and text.split()[:1] == [cmd.replace]:
            what = "each line of its input as a command"
        elif (
            word.parts
            and all(isinstance(p, _shell.Var) or (isinstance(p, _shell.Lit) and not p.text.strip()) for p in word.parts)
            and cmd.values(word) is None
        ):
            names = ", ".join("$" + p.name for p in word.parts if isinstance(p, _shell.Var))
            what = f"code held in {names}, which the command does not show"
        else:
            continue
        found.append(
            (
                "ask",
                f"`{cmd.display}` runs {what}; confirm, or run the commands themselves so they can be checked.",
            )
        )
        return


def _reads_code_from_stdin(cmd: Cmd) -> bool:
    if cmd.name in _shell.SHELLS:
        _inline, reads_stdin, _file = _shell.shell_invocation(cmd.args)
        return reads_stdin
    for word in cmd.args:
        lit = word.literal()
        if lit is None or not lit.startswith("-") or lit in ("-m", "-c", "-e", "-E", "--eval"):
            return lit == "-"
    return True


def _downloaded_file(cmd: Cmd) -> str | None:
    """The file a download or a decoding pipeline writes: ``curl -o x``, ``wget URL`` (named
    after the URL), ``curl -O URL``, ``… | base64 -d > run.sh``, ``… | tee x.sh``."""
    flags, positionals, values = _shell.split_options(
        cmd.args, frozenset({"-o", "--output", "-O", "--output-document"} if cmd.name == "wget" else {"-o", "--output"})
    )
    outs = values.get("o", []) + values.get("output", []) + values.get("output-document", [])
    if cmd.name == "wget":
        outs += values.get("O", [])
    if cmd.name == "tee":
        outs += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    for word in outs:
        got = cmd.values(word)
        if got and got[0] not in ("-", "/dev/stdout"):
            return os.path.basename(got[0])
    for r in cmd.redirects:
        if r.op in (">", ">>") and r.fd in ("", "1") and r.target is not None:
            got = cmd.values(r.target)
            if got:
                return os.path.basename(got[0])
    remote_name = cmd.name == "wget" or "O" in flags or "remote-name" in flags
    if cmd.name in _shell.DOWNLOADERS and remote_name and not outs:
        urls = [v for w in positionals for v in (cmd.values(w) or []) if "://" in v]
        if urls:
            return os.path.basename(urls[0].split("?")[0].rstrip("/")) or None
    return None


# Where a script's text comes from if nobody can have read it: the network, or an encoding
# (tr -d '\r' or gunzip of a project file are ordinary conversions).
_HIDERS = _shell.DOWNLOADERS | frozenset({"base64", "base32", "xxd", "uudecode"})


def _rule_download_then_run(cmds: list[Cmd], found: list[Finding]) -> None:
    downloaded: set[str] = set()
    for cmd in cmds:
        upstream = set(cmd.stdin_sources).union(*cmd.stage_names[: cmd.stage]) if cmd.stage_names else set()
        if cmd.name in _HIDERS or upstream & _HIDERS:
            target = _downloaded_file(cmd)
            if target:
                downloaded.add(target)
            if cmd.name in _shell.DOWNLOADERS:
                continue
        if not downloaded:
            continue
        runs = {cmd.name} if cmd.name else set()
        if cmd.name in _shell.SHELLS or cmd.name in _shell.INTERPRETERS or cmd.name in ("source", "."):
            # The script is the first operand; later ones are its data (python3 process.py data.json).
            script = next((w for w in cmd.args if not (w.literal() or "").startswith("-")), None)
            if script is not None:
                runs.add(os.path.basename(script.literal() or ""))
        if runs & downloaded:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` runs a script downloaded in the same command, before "
                    "anyone reviewed it. Download it in one command, read it, then run it.",
                )
            )


SECURITY_SERVICES = frozenset({
    "firewalld", "ufw", "nftables", "iptables", "ip6tables", "apparmor", "auditd", "fail2ban",
    "selinux", "clamav-daemon", "falcon-sensor", "crowdstrike", "osqueryd", "wazuh-agent",
})  # fmt: skip


def _rule_http_delete(cmd: Cmd, found: list[Finding]) -> None:
    """``curl -X DELETE localhost:9200/_all``: every index of a search/data service at once."""
    if cmd.name not in ("curl", "http", "https", "xh", "wget"):
        return
    _flags, positionals, values = _shell.split_options(cmd.args, frozenset({"-X", "--request", "--method"}))
    methods = [(cmd.values(w) or [w.text])[0].upper() for k in ("X", "request", "method") for w in values.get(k, [])]
    methods += [p.literal() or "" for p in positionals[:1] if (p.literal() or "") in ("DELETE", "delete")]
    if any("_delete_by_query" in (cmd.values(w) or [w.text])[0] for w in positionals):
        body = " ".join(" ".join(cmd.values(w) or [w.text]) for w in cmd.args)
        if re.search(r"match_all|/_all/|/\*/", body):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every document (delete-by-query matching all). Use a query "
                    "that selects the documents meant, or ask the user to run it.",
                )
            )
        return
    if "DELETE" not in [m.upper() for m in methods]:
        return
    for word in positionals:
        url = (cmd.values(word) or [word.text])[0]
        if re.search(r"/(?:_all|\*)(?:[/?]|$)", url):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every index/collection of the service. Delete the one "
                    "index meant, or ask the user to run it.",
                )
            )


def _rule_remote_shell(cmd: Cmd, found: list[Finding]) -> None:
    """A shell wired to the network (reverse or bind shell): ``nc -e /bin/sh``, ``socat …
    EXEC:/bin/bash``, ``bash -i >& /dev/tcp/…``, ``sh -i … | nc host port``. Whoever connects
    gets the user's account."""
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    wired = False
    if name in ("nc", "ncat", "netcat"):
        _flags, _pos, values = _shell.split_options(
            cmd.args, frozenset({"-e", "-c", "--exec", "--sh-exec", "--lua-exec"})
        )
        wired = any(values.get(k) for k in ("e", "c", "exec", "sh-exec", "lua-exec"))
    elif name == "socat":
        wired = any(re.match(r"(?i)(?:exec|system):", a) for a in lits)
    elif name in _shell.SHELLS or name == "exec":
        targets = [cmd.values(r.target) or [r.target.text] for r in cmd.redirects if r.target is not None]
        wired = any(v.startswith(("/dev/tcp/", "/dev/udp/")) for vs in targets for v in vs)
    if not wired and (name in _shell.SHELLS) and cmd.stage_names:
        others = {n for i, st in enumerate(cmd.stage_names) if i != cmd.stage for n in st}
        wired = bool(others & {"nc", "ncat", "netcat", "socat", "telnet"}) and "-i" in lits
    if wired:
        found.append(
            (
                "deny",
                f"`{cmd.display}` connects a shell to the network (a reverse or bind shell): whoever "
                "is at the other end controls this account. Do not run it; use ssh for remote access.",
            )
        )


_GIT_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--edit", "-e", "--help"}
)


def _writes_user_git_config(cmd: Cmd) -> bool:
    """``git config --global pull.rebase true`` (or ``--system``, ``--unset``, ``--add``): a change
    to configuration outside the project. Reading (``--get``, ``--list``, a key alone) is not."""
    _flags, positionals, _values = _shell.split_options(
        cmd.args, frozenset({"-C", "-c", "--git-dir", "--work-tree"}), stop_at_first=True
    )
    lits = [w.literal() or "" for w in positionals]
    if lits[:1] != ["config"] or not {"--global", "--system"} & set(lits):
        return False
    rest = lits[1:]
    if _GIT_CONFIG_READS & set(rest):
        return False
    operands = [a for a in rest if not a.startswith("-")]
    return len(operands) >= 2 or any(
        a.startswith(("--unset", "--add", "--replace", "--remove", "--rename")) for a in rest
    )


def _tls_off_everywhere(name: str, lits: list[str]) -> bool:
    """A user-wide setting that stops checking TLS certificates (``git config --global
    http.sslVerify false``, ``npm config set strict-ssl false``): every later download may be
    tampered with. ``curl -k`` once, against a known host, is left alone."""
    low = [a.lower() for a in lits]
    if name == "git" and "config" in low and ({"--global", "--system"} & set(low)):
        return "http.sslverify" in low and any(a in ("false", "0", "no", "off") for a in low)
    if name in ("npm", "pnpm", "yarn") and "config" in low and "set" in low:
        return any(a.startswith("strict-ssl") for a in low) and any(a.endswith("false") for a in low)
    if name == "pip" and "config" in low and "set" in low:
        return any(a.endswith(".trusted-host") for a in low)
    return False


def _rule_security_off(cmd: Cmd, found: list[Finding]) -> None:
    """Turning off the firewall or a security service."""
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    what = ""
    if name == "ufw" and lits[:1] in (["disable"], ["reset"]):
        what = "turns the firewall off"
    elif name == "ufw" and lits[:2] == ["default", "allow"]:
        what = "makes the firewall accept everything"
    elif name in ("iptables", "ip6tables") and (
        any(a in ("-F", "--flush", "-X") for a in lits) or (("-P" in lits or "--policy" in lits) and "ACCEPT" in lits)
    ):
        what = "flushes the firewall rules (or opens its policy)"
    elif name == "nft" and lits[:2] in (["flush", "ruleset"], ["delete", "table"]):
        what = "removes the firewall rules"
    elif name in ("systemctl", "service", "rc-service") and any(
        a.removesuffix(".service") in SECURITY_SERVICES for a in lits
    ):
        if any(a in ("stop", "disable", "mask", "kill") for a in lits):
            what = "stops a firewall/security service"
    elif name == "setenforce" and lits[:1] in (["0"], ["permissive"], ["Permissive"]):
        what = "switches SELinux off"
    elif name == "spctl" and ("--master-disable" in lits or "--global-disable" in lits):
        what = "turns Gatekeeper off"
    elif name == "csrutil" and lits[:1] == ["disable"]:
        what = "turns System Integrity Protection off"
    elif name in ("aa-teardown",) or (name == "aa-disable"):
        what = "turns AppArmor off"
    elif name == "netsh" and "advfirewall" in [a.lower() for a in lits] and "off" in [a.lower() for a in lits]:
        what = "turns the Windows firewall off"
    elif name.lower() == "set-mppreference" and any(re.match(r"(?i)-disable", a) for a in lits):
        what = "turns Windows Defender protection off"
    elif name == "sysctl" and any(re.fullmatch(r"kernel\.randomize_va_space=0", a) for a in lits):
        what = "turns address-space randomisation off"
    elif name == "passwd" and ({"-d", "--delete"} & set(lits)):
        what = "removes an account's password, so anyone may log in as it"
    elif _tls_off_everywhere(name, lits):
        what = "turns TLS certificate checks off for every future download of the tool"
    if what:
        found.append(
            (
                "deny",
                f"`{cmd.display}` {what}, leaving the machine unprotected. Ask the user to change "
                "security settings; open a single port or add a rule instead if that is the goal.",
            )
        )


def _rule_persistence(cmd: Cmd, earlier: list[Cmd], found: list[Finding]) -> None:
    """A cron job, shell start-up line, git hook or unit that downloads and runs code."""
    text = _shell.printed_text(cmd)
    if text is None and cmd.name == "tee":
        text = cmd.stdin_text  # echo '…' | sudo tee /etc/cron.d/job: tee writes what it reads
    if cmd.name in ("crontab", "at", "batch"):
        flags, positionals, _vals = _shell.split_options(cmd.args, frozenset({"-u", "-f", "-q"}))
        if cmd.name == "crontab" and ({"l", "r", "e", "i"} & set(flags) or "list" in flags):
            return
        content = cmd.stdin_text
        if content is None and positionals:
            content = cmd.ctx.written(positionals[0])
        upstream = {n for stage in cmd.stage_names[: cmd.stage] for n in stage}
        if content is None and upstream & _shell.DOWNLOADERS:
            content = "curl | sh"
        if content is None and cmd.stage > 0:
            # (crontab -l; echo '…') | crontab -: what the earlier stages print.
            content = "\n".join(t for t in map(_shell.printed_text, earlier) if t)
        later = _runs_later(content, cmd.ctx, cron=True) if content is not None else None
        if content is not None and _shell.fetches_and_runs(content):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` installs a scheduled job that downloads and runs remote code "
                    "(persistence). Do not schedule downloads; ask the user if a job is needed.",
                )
            )
        elif later is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` installs a scheduled job that would be refused if run now "
                    f"({later}). Do not schedule it; ask the user if a job is needed.",
                )
            )
        elif cmd.name == "crontab":
            found.append(("ask", f"`{cmd.display}` replaces the user's cron table; confirm the new jobs."))
        return
    lits = [w.literal() or "" for w in cmd.args]
    config_write = (cmd.name == "git" and "config" in lits) or (
        cmd.name in ("npm", "pnpm", "yarn") and ("set-script" in lits or lits[:2] == ["pkg", "set"])
    )
    if config_write and any(_shell.fetches_and_runs(" ".join(cmd.values(w) or [w.text])) for w in cmd.args):
        found.append(
            (
                "deny",
                f"`{cmd.display}` stores a command that downloads and runs remote code in a "
                "configuration that runs it later (persistence). Do not add it.",
            )
        )
        return
    if text is None:
        return
    targets = [r.target for r in cmd.redirects if r.op in (">", ">>", ">|", "&>") and r.target is not None]
    if cmd.name == "tee":
        targets += [w for w in cmd.args if not (w.literal() or "").startswith("-")]
    for word in targets:
        for value in cmd.values(word) or [_shell.expand_pattern(word, cmd.ctx)]:
            path = _shell.normalize(value, cmd.ctx.cwd) or value
            if not _shell.autorun_path(path):
                continue
            later = None if _shell.fetches_and_runs(text) else _runs_later(text, cmd.ctx, cron=False)
            if _shell.fetches_and_runs(text) or later is not None:
                what = "downloads and runs remote code" if later is None else f"would be refused now ({later})"
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` writes a line that {what} into "
                        f"{path}, which runs automatically later (persistence). Do not add it; "
                        "document the install step for the user instead.",
                    )
                )


_CRON_SCHEDULE = re.compile(r"^\s*(?:@\w+|(?:\S+\s+){5})")
_later_depth = [0]


def _runs_later(text: str, ctx: Ctx, cron: bool) -> str | None:
    """The first denial the commands in ``text`` (a cron table or a file run later) would get
    if run now, shortened; None when every line would pass. A job runs the same rules later,
    with nobody watching, so what is refused now is refused as a job too."""
    if _later_depth[0] > 1:
        return None
    _later_depth[0] += 1
    try:
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or (cron and re.match(r"^\w+=", line)):
                continue
            if cron:
                line = _CRON_SCHEDULE.sub("", line, count=1)
            for decision, reason in check(line, ctx.child()):
                if decision == "deny" and not reason.startswith("rule parse"):
                    body = reason.split(": ", 1)[-1]
                    return body.split(". ")[0][:160]
    finally:
        _later_depth[0] -= 1
    return None


# Object-relational mappers emptying a whole table: Django, Rails, SQLAlchemy, Mongoose, Sequelize.
_ORM_WIPE = re.compile(
    r"\.objects(?:\.all\(\))?\.delete\(\)|\b[A-Z]\w*(?:\.all)?\.(?:delete_all|destroy_all)\b(?!\s*\()"
    r"|\b(?:drop_all|truncate_table)\s*\(|\.query\(\s*\w+\s*\)\.delete\(\)"
    r"|\.(?:deleteMany|remove)\(\s*\{\s*\}\s*\)|\.destroy\(\s*\{\s*(?:where:\s*\{\s*\}\s*,?\s*)?truncate:\s*true"
)


def _orm_code(cmd: Cmd) -> list[str]:
    """Code run through a framework console: ``manage.py shell -c``, ``rails runner``,
    ``rails console`` / ``manage.py shell`` fed on stdin, interpreter ``-c``/``-e``."""
    lits = [w.literal() or "" for w in cmd.args]
    codes = _shell.code_of(cmd) if cmd.name in _shell.INTERPRETERS else []
    if cmd.name in ("rails", "rake") and lits[:1] in (["runner"], ["r"]) and len(cmd.args) > 1:
        codes.append(" ".join(cmd.values(cmd.args[1]) or [cmd.args[1].text]))
    console = ("shell" in lits and any(a.endswith("manage.py") for a in lits)) or (
        cmd.name == "rails" and lits[:1] in (["console"], ["c"])
    )
    if console and cmd.stdin_text:
        codes.append(cmd.stdin_text)
    return codes


def _rule_orm(cmd: Cmd, found: list[Finding]) -> None:
    for code in _orm_code(cmd):
        if _ORM_WIPE.search(code):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes every row of a table through the ORM. Filter the "
                    "query to the rows meant (or ask the user to reset the data).",
                )
            )
            return


def _production(cmd: Cmd) -> bool:
    """Whether the command targets production (RAILS_ENV=production, --env prod …)."""
    texts = [w.literal() or w.text for w in cmd.argv]
    texts += [f"{k}={(v or [''])[0]}" for k, v in cmd.ctx.vars.items() if k.endswith("ENV")]
    texts += [f"{k}={v}" for k, v in cmd.env.items()]
    return any(re.search(r"(?i)\b(?:[A-Z_]*ENV|--env|-e)=?(?:prod|production)\b", t) for t in texts) or (
        "DISABLE_DATABASE_ENVIRONMENT_CHECK=1" in texts
    )


def _destroys_unattended(name: str, lits: list[str]) -> str:
    """Destruction of live infrastructure nobody gets to look at first: ``terraform destroy
    -auto-approve`` skips the plan, ``kubectl delete namespace production`` (or any delete in a
    production namespace or context) removes what users are served from."""
    destroy = name in ("terraform", "tofu") and (lits[:1] == ["destroy"] or "-destroy" in lits)
    if destroy and any(a in ("-auto-approve", "--auto-approve", "-auto-approve=true") for a in lits):
        return (
            "destroys infrastructure without showing the plan. Run it without -auto-approve "
            "so the user reviews the plan, or ask the user to run it."
        )
    if name in ("kubectl", "helm") and _kube_verb(lits) in ("delete", "uninstall"):
        named_prod = any(_PROD_NAME.search(a) for a in lits if not a.startswith("-"))
        at = lits.index(_kube_verb(lits))
        kind = lits[at + 1 : at + 2]
        if _kube_target_prod(lits) or (kind in (["namespace"], ["ns"]) and named_prod):
            return "deletes resources in production. Ask the user to run it; try it on staging first."
    return ""


def _kube_verb(lits: list[str]) -> str:
    """The first operand of a kubectl/helm command line (-n/--context before it take a value)."""
    skip = False
    for lit in lits:
        if skip or lit.startswith("-"):
            skip = not skip and lit in _KUBE_TARGET
            continue
        return lit
    return ""


def _kube_target_prod(lits: list[str]) -> bool:
    """Whether a -n/--namespace/--context/--kube-context value names production."""
    for i, lit in enumerate(lits):
        opt, eq, value = lit.partition("=")
        if not eq:
            value = lits[i + 1] if opt in _KUBE_TARGET and i + 1 < len(lits) else ""
        if opt in _KUBE_TARGET and _PROD_NAME.search(value):
            return True
    return False


_KUBE_CHANGES = {
    "kubectl": frozenset(
        {
            "apply",
            "create",
            "replace",
            "patch",
            "edit",
            "scale",
            "set",
            "rollout",
            "label",
            "annotate",
            "drain",
            "cordon",
            "taint",
        }
    ),
    "helm": frozenset({"install", "upgrade", "rollback"}),
}
_KUBE_TARGET = frozenset({"-n", "--namespace", "--context", "--kube-context", "--cluster"})
_PROD_NAME = re.compile(r"(?i)(?:^|[-_.])(?:prod|production|live)(?:$|[-_.])")


def _changes_production_cluster(name: str, lits: list[str]) -> bool:
    """``kubectl apply -f k8s/ -n production``, ``helm upgrade api ./chart --kube-context prod``:
    a change whose namespace or context names production (reads such as get/logs pass)."""
    return name in _KUBE_CHANGES and _kube_verb(lits) in _KUBE_CHANGES[name] and _kube_target_prod(lits)


def _production_host(cmd: Cmd) -> bool:
    """A database client pointed at a production server: its host, URL or service name says
    so (``-h prod-db.internal``, ``postgres://…@db.production…``, ``--host=live-db``)."""
    for word in cmd.args:
        for value in cmd.values(word) or [word.text]:
            if re.search(r"(?i)(?:^|[@/.=_-])(?:prod|production|live)(?:$|[.:/_-])", value):
                return True
    return False


_CLOUD_CLIS = frozenset({"gcloud", "aws", "az", "doctl"})


def _cloud_delete(name: str, lits: list[str]) -> bool:
    """``gcloud projects delete``, ``az group delete``, ``aws organizations close-account``:
    the whole container of cloud resources goes at once."""
    ops = [a for a in lits if not a.startswith("-")]
    return (
        (name == "gcloud" and ops[:2] == ["projects", "delete"])
        or (name == "az" and ops[:2] == ["group", "delete"])
        or (name == "aws" and ops[:2] in (["organizations", "close-account"], ["account", "close-account"]))
    )


def _rule_warn_tools(cmd: Cmd, found: list[Finding]) -> None:
    lits = [(w.literal() or "") for w in cmd.args]
    name = cmd.name
    ask = ""
    unattended = _destroys_unattended(name, lits)
    if unattended:
        found.append(("deny", f"`{cmd.display}` {unattended}"))
        return
    if name in ("docker", "podman"):
        if lits[:2] == ["image", "prune"] and not ({"-a", "--all"} & set(lits)):
            pass  # dangling images only: layers no tag or container refers to
        elif "prune" in lits:
            ask = "removes Docker containers/images/volumes/networks in bulk"
        elif lits[:2] in (["volume", "rm"], ["volume", "remove"]):
            ask = "deletes Docker volumes (their data is lost)"
        elif lits[:1] == ["compose"] and "down" in lits and ("-v" in lits or "--volumes" in lits):
            ask = "deletes the compose project's volumes (their data is lost)"
        elif lits[:1] in (["rm"], ["rmi"]) and any(w.subs() for w in cmd.args):
            ask = "removes a computed list of containers/images"
    elif name == "docker-compose" and "down" in lits and ("-v" in lits or "--volumes" in lits):
        ask = "deletes the compose project's volumes (their data is lost)"
    elif name == "kubectl" and lits[:1] == ["delete"]:
        ask = "deletes Kubernetes resources"
    elif name == "pm2" and lits[:1] == ["startup"]:
        ask = "installs a boot-time service that starts these processes automatically (persistence)"
    elif _cloud_delete(name, lits):
        found.append(
            (
                "deny",
                f"`{cmd.display}` deletes a whole cloud project, account or resource group with "
                "everything in it. Ask the user to run it from the cloud console.",
            )
        )
        return
    elif name in _CLOUD_CLIS and any(a == "delete" or a.startswith("delete-") for a in lits):
        ask = "deletes cloud resources"
    elif name == "helm" and lits[:1] in (["uninstall"], ["delete"]):
        ask = "uninstalls a Helm release"
    elif _changes_production_cluster(name, lits):
        ask = "changes a production cluster (try it on staging first)"
    elif name in ("terraform", "tofu", "pulumi") and (lits[:1] == ["destroy"] or "-destroy" in lits):
        ask = "destroys infrastructure"
    elif name == "crontab" and "-r" in lits:
        ask = "deletes every cron job of the user"
    elif (
        (name in ("php", "artisan") and any(a in ("migrate:fresh", "migrate:reset", "db:wipe") for a in lits))
        or (name in ("sequelize", "sequelize-cli") and "db:drop" in lits)
        or (name == "alembic" and lits[:2] == ["downgrade", "base"])
        or (name == "python" and "manage.py" in lits and "migrate" in lits and lits[-1:] == ["zero"])
        or (name == "prisma" and "--force-reset" in lits)
        or (name == "knex" and "migrate:rollback" in lits and "--all" in lits)
    ):
        ask = "drops every table of the database (all migrations undone)"
    elif (
        name == "git"
        and "config" in lits
        and ("--global" in lits or "--system" in lits)
        and any(
            re.match(r"(?i)(core\.(hookspath|fsmonitor|sshcommand|pager|editor)|alias\.|credential\.|url\.)", a)
            for a in lits
        )
    ):
        ask = "changes which commands git runs in every repository of the user"
    elif name == "git" and _writes_user_git_config(cmd):
        ask = (
            "writes the user's git configuration outside the project, for every repository "
            "(without --global, `git config` sets it for this repository only)"
        )
    elif name == "launchctl" and lits[:1] and lits[0] in ("load", "bootstrap", "enable"):
        ask = "registers a job that starts automatically from now on (persistence)"
    elif name == "systemctl" and "enable" in lits:
        ask = "makes a service start automatically from now on (persistence)"
    elif name in ("rails", "rake") and any(re.fullmatch(r"db:(drop|reset|purge)(:all)?", a) for a in lits):
        if _production(cmd):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` drops or resets the production database. Ask the user to do it; "
                    "work on a development or test database instead.",
                )
            )
            return
        ask = "drops/resets the database"
    elif name == "heroku" and lits[:1] and lits[0] in ("pg:reset", "pg:killall", "apps:destroy", "addons:destroy"):
        found.append(("deny", f"`{cmd.display}` destroys a hosted database or app. Ask the user to run it."))
        return
    elif (
        (name in ("npm", "pnpm", "yarn", "bun") and lits[:1] == ["publish"] and "--dry-run" not in lits)
        or (name == "twine" and lits[:1] == ["upload"])
        or (name in ("cargo", "poetry", "uv", "flit", "hatch", "gem") and lits[:1] in (["publish"], ["push"]))
        or (name == "mvn" and "deploy" in lits)
    ):
        ask = "publishes a package version to a public registry, which cannot be taken back"
    elif name == "prisma" and lits[:2] == ["migrate", "reset"]:
        ask = "drops and recreates the database"
    elif (
        name == "python"
        and lits[:1] == ["manage.py"]
        and len(lits) > 1
        and lits[1] in ("flush", "reset_db", "sqlflush")
    ):
        ask = "deletes all data in the database"
    elif name == "truncate" and any(a in ("-s0", "--size=0") for a in lits) and len(lits) > 3:
        ask = "empties many files"
    if ask:
        found.append(("ask", f"`{cmd.display}` {ask}; confirm this is intended."))


def check(command: str, ctx: Ctx) -> list[Finding]:
    """All findings for one Bash command string."""
    found: list[Finding] = []
    try:
        cmds = _shell.walk(command, ctx)
    except _shell.ShellParseError as exc:
        found = [
            (
                "deny",
                f"could not parse the command safely ({exc}); blocked (fail closed). "
                "Fix the quoting or split it into simpler commands.",
            )
        ]
        _common.tag_rule("parse", found)
        return found

    def apply(rule: str, fn: Callable[..., None], *args: Any) -> None:
        start = len(found)
        fn(*args, found)
        _common.tag_rule(rule, found, start)

    for index, cmd in enumerate(cmds):
        name = cmd.name
        if name in ("rm", "rmdir", "unlink"):
            apply("rm", _rule_rm, cmd)
        elif name == "find":
            apply("find-delete", _rule_find, cmd)
        elif name == "mv":
            apply("mv", _rule_mv, cmd)
        elif name in ("chmod", "chown", "chgrp", "setfacl", "chattr"):
            apply("chmod", _rule_chmod, cmd)
        elif name == "git":
            apply("git", _rule_git, cmd, cmds[:index])
        apply("devices", _rule_devices, cmd)
        apply("power", _rule_power, cmd)
        apply("sql", _rule_sql, cmd)
        apply("hosted-data", _rule_hosted_data, cmd)
        apply("remote-code", _rule_download_exec, cmd)
        apply("remote-code", _rule_code_runs_fetched, cmd)
        apply("remote-code", _rule_runs_url, cmd)
        apply("hidden-code", _rule_hidden_code, cmd)
        apply("risky-tool", _rule_warn_tools, cmd)
        apply("security-off", _rule_security_off, cmd)
        apply("remote-shell", _rule_remote_shell, cmd)
        apply("orm-wipe", _rule_orm, cmd)
        apply("sql", _rule_http_delete, cmd)
        apply("persistence", _rule_persistence, cmd, cmds[:index])
    apply("remote-code", _rule_download_then_run, cmds)
    apply("fork-bomb", _rule_fork_bomb, ctx, cmds)
    return found


def _rule_fork_bomb(ctx: Ctx, cmds: list[Cmd], found: list[Finding]) -> None:
    """A shell function that starts copies of itself, or inline code that forks without end."""
    bomb = _fork_bomb(ctx)
    if bomb is not None or any(FORK_BOMB.search(c) for cmd in cmds for c in _shell.code_of(cmd)):
        found.append(
            (
                "deny",
                f"the command defines a fork bomb (function `{bomb or 'fork'}` starts copies of itself "
                "without end), which freezes the machine. Do not run it; there is no safe form.",
            )
        )


@_common.fail_closed(NAME)
def run(payload: _common.Payload) -> _common.Result:
    """PreToolUse entry point: deny/ask/None for a Bash tool call."""
    got = _common.tool_call(payload, NAME, TOOLS)
    if not isinstance(got, tuple):
        return got
    _tool, tool_input = got
    command = _common.str_field(tool_input, "command", NAME)
    if not isinstance(command, str):
        return command
    ctx = _shell.make_ctx(_common.session_cwd(payload), _common.project_dir(payload))
    return _common.verdict(NAME, check(command, ctx))


if __name__ == "__main__":
    _common.main(run, fail_closed_on_bad_input=True)
