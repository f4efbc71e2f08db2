"""Rule family: files. ``rm``/``rmdir``/``unlink`` (also through ``xargs``), ``find -delete`` and
``find -exec rm``, ``mv`` of critical paths, ``chmod``/``chown`` of system folders or world-writable
modes."""

from __future__ import annotations

import os
import re

import _shell
from _common import Finding
from _shell import Cmd, Ctx, Word, lazy_compile

from ._paths import HOME_PARENTS, critical, empties_folder, is_match_all, only_build_output, service_data

BULK_TARGETS = 10


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
    # Other languages' compiler and tool output: Erlang/Elixir, Haskell, C/C++ precompiled
    # headers and libtool objects, linters' and notebooks' caches.
    "*.beam", "*.hi", "*.dyn_o", "*.dyn_hi", "*.gch", "*.pch", "*.lo", "*.a",
    ".eslintcache", ".stylelintcache", ".nyc_output", ".hypothesis", ".ipynb_checkpoints",
    ".pytype", ".sass-cache", ".parcel-cache", ".turbo", ".nox", ".eggs", "htmlcov",
    "target", ".gradle", "_build", ".dart_tool", ".stack-work", "dist-newstyle", "zig-cache",
    ".zig-cache", "zig-out", ".svelte-kit", ".nuxt", ".angular", ".terraform", "CMakeFiles",
    "cmake-build-debug", "cmake-build-release", ".coverage.*", "coverage.out", "*.test",
})  # fmt: skip


def _generated_in_each(glob_part: str) -> bool:
    """``services/*/bin``, ``*/coverage.out``: the glob picks one named entry in each subfolder,
    and that name is generated output (a build folder, Go's and .NET's ``bin``, a leftover
    file), so nothing a build would not recreate goes. ``packages/*/src`` is not.

    A named entry that is none of the project's work folders (``apps/*/src/generated``,
    ``packages/*/es``) is deleted like the same path written out once (``rm -rf
    packages/core/es`` passes): the glob only repeats it per package. ``lib`` directly in each
    package (``packages/*/lib``) is a JavaScript package's compiled output by convention."""
    comps = [c for c in glob_part.split("/") if c]
    if empties_folder(glob_part) or ".." in comps:
        return False
    tail = comps[-1]
    if _shell.has_glob(tail):
        return False
    if tail in _shell.BUILD_DIRS or tail == "bin" or _leftover_name(tail):
        return True
    literal = [c for c in comps if not _shell.has_glob(c)]
    if len(comps) == 2 and tail == "lib":
        return True
    return tail not in _WORK_DIRS and not any(c.startswith(".") for c in literal)


# Source maps and code generators' output, by the conventions their names follow
# (app.js.map, api.generated.ts, model.g.dart, user_pb2.py, schema.pb.go, types.gen.go).
_GENERATED_NAME = lazy_compile(
    r"\*(?:\.[\w-]+)*\.map|\*[._-](?:generated|gen|g|freezed)\.\w+|\*_pb2(?:_grpc)?\.py|\*\.pb(?:\.gw)?\.go"
)


# Build folders found by name anywhere in the project (find . -name DerivedData -exec rm -rf):
# the generated-output folders, less the names too common to mean output everywhere.
_LEFTOVER_DIRS = _shell.BUILD_DIRS - {"tmp", ".tmp", "out", "site", "obj", "log", "logs", "artifacts", "output"}


def _leftover_name(pattern: str) -> bool:
    """Whether a ``-name`` pattern only matches generated leftovers: a known leftover name, or
    a bracket class every letter of which makes one (``*.py[co]`` = ``*.pyc`` or ``*.pyo``)."""
    if pattern in LEFTOVER_NAMES or pattern in _LEFTOVER_DIRS or _GENERATED_NAME.fullmatch(pattern):
        return True
    m = re.fullmatch(r"(?P<head>[^\[\]]*)\[(?P<chars>[^\]!^]+)\](?P<tail>[^\[\]]*)", pattern)
    return m is not None and all(m.group("head") + ch + m.group("tail") in LEFTOVER_NAMES for ch in m.group("chars"))


# Extensions of files worth a confirmation before a find deletes every one in the project:
# source code, documents and configuration, data and databases, models, keys, media, archives
# and backups. Any other extension (*.retry, *.pid, *.bak~, *.tmp.*) names tool droppings.
_KEPT_EXTENSIONS = frozenset({
    "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "go", "rs", "java", "kt", "kts",
    "scala", "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "mm", "dart", "ex",
    "exs", "erl", "hs", "ml", "clj", "lua", "pl", "pm", "r", "jl", "sh", "bash", "zsh", "fish",
    "ps1", "sql", "proto", "graphql", "vue", "svelte", "astro", "html", "htm", "css", "scss",
    "sass", "less", "tf", "tfvars", "tfstate", "nix", "ipynb", "md", "mdx", "rst", "txt", "adoc",
    "tex", "yml", "yaml", "toml", "json", "jsonc", "json5", "ini", "cfg", "conf", "xml", "env",
    "properties", "lock", "db", "sqlite", "sqlite3", "mdb", "dump", "csv", "tsv", "parquet",
    "jsonl", "ndjson", "xlsx", "xls", "h5", "hdf5", "npy", "npz", "pkl", "pickle", "pt", "pth",
    "ckpt", "safetensors", "onnx", "arrow", "feather", "avro", "orc", "bak", "backup", "pem",
    "key", "crt", "p12", "pfx", "jks", "keystore", "gpg", "asc", "kdbx", "pack", "idx", "png",
    "jpg", "jpeg", "gif", "svg", "webp", "mp4", "mp3", "wav", "pdf", "docx", "pptx", "zip",
    "tar", "gz", "tgz", "xz", "zst", "7z", "bz2", "age", "enc",
})  # fmt: skip


def _droppings_name(pattern: str) -> bool:
    """``*.retry``, ``*.pid``, ``*.log.1``: a -name pattern that picks one extension of files a
    tool leaves behind, not code, data or keys (``*.py``, ``*.db``, ``*.pem`` …)."""
    m = re.fullmatch(r"\*\.(?P<ext>[A-Za-z][\w-]*)(?:\.[\w*-]+|\*)?", pattern)
    return m is not None and m.group("ext").lower() not in _KEPT_EXTENSIONS


_FILE_OPERAND = lazy_compile(r"[^/]\.[A-Za-z0-9]{1,8}$")


def _inside_project(cmd: Cmd, word: Word) -> bool:
    """Whether every value of ``word`` lies inside the project (not the root itself)."""
    got = cmd.values(word)
    project = os.path.normpath(cmd.ctx.project)
    paths = [_shell.normalize(v, cmd.ctx.cwd) for v in got or []]
    return bool(paths) and all(p is not None and p != project and _shell.is_within(p, project) for p in paths)


# Filters that pass on some of their input lines unchanged (head -n -7, tail -n +6, sort -r,
# grep -v keep): what reaches xargs is part of the listing they were fed. Options taking a value.
_LINE_FILTERS: dict[str, frozenset[str]] = {
    "head": frozenset({"-n", "--lines"}),
    "tail": frozenset({"-n", "--lines"}),
    "sort": frozenset({"-k", "--key", "-t", "--field-separator", "-S", "--buffer-size"}),
    "uniq": frozenset(),
    "tac": frozenset(),
    "grep": frozenset({"-e", "-m", "--max-count"}),
    "egrep": frozenset({"-e", "-m", "--max-count"}),
}


def _before_line_filters(prev: Cmd | None) -> Cmd | None:
    """The pipeline stage before any line filters that feed xargs (``ls -t logs/*.log | tail -n
    +6 | xargs rm``: the ls). A filter with file operands (``head list.txt``) or one that rewrites
    lines (``grep -o``) is itself the source."""
    while prev is not None and prev.name in _LINE_FILTERS:
        _flags, positionals, _values = _shell.split_options(prev.args, _LINE_FILTERS[prev.name])
        lits = [w.literal() or "" for w in prev.args]
        searching = prev.name in ("grep", "egrep")
        operands = len(positionals) - (1 if searching and "-e" not in lits else 0)
        rewrites = searching and any(a in ("-o", "--only-matching", "-r", "-R", "-c", "-l") for a in lits)
        if operands > 0 or rewrites or prev.prev is None:
            return prev
        prev = prev.prev
    return prev


def _xargs_inputs(cmd: Cmd) -> list[str] | None:
    """Arguments xargs would append: the literal words a preceding echo/printf prints."""
    if cmd.stdin_text is not None:  # xargs rm <<< "$HOME", xargs rm < list written earlier
        return [v for v in cmd.stdin_text.split() if not v.startswith("-")]
    prev = _before_line_filters(cmd.prev)
    if prev is None or prev.name not in ("echo", "printf", "ls"):
        return None
    words = prev.args
    if prev.name == "ls":
        # ls -d packages/*/dist: the operands themselves (without -d, ls prints what is inside
        # each folder, names relative to it, which rm would take relative to here).
        lits = [w.literal() or "" for w in prev.args]
        words = [w for w, a in zip(prev.args, lits, strict=True) if not a.startswith("-")]
        # ls *.tmp, ls dist/*.map: operands named like files (an extension) print themselves too.
        # Only inside the project: a listing elsewhere stays a list to confirm (workspace_boundary
        # does not see through xargs).
        files_named = bool(words) and all(_FILE_OPERAND.search(w.text) and _inside_project(prev, w) for w in words)
        if (
            not any(a.startswith("-") and not a.startswith("--") and "d" in a for a in lits)
            and "--directory" not in lits
            and not (
                files_named
                and not any(a.startswith("-") and not a.startswith("--") and set(a) & set("lRsi") for a in lits)
            )
        ):
            return None
        if not words:
            return None
    values: list[str] = []
    for word in words:
        got = prev.values(word)
        if got is None:
            return None
        for value in got:
            values.extend(value.split())
    return [v for v in values if not v.startswith("-")]


def _build_path_pattern(words: list[Word], find: Cmd) -> bool:
    """A find ``-path`` pattern that only matches inside a build-output folder of the project."""
    pattern = words[0].literal() if words else None
    if not pattern or find.ctx.cwd is None:
        return False
    base = _shell.normalize(pattern.removeprefix("./"), find.ctx.cwd) or ""
    prefix, glob_part = _shell.glob_split(base)
    project = os.path.normpath(find.ctx.project)
    if glob_part is None or not glob_part.startswith("*"):
        return _shell.build_output(prefix, project)
    return _shell.build_output(prefix, project) and prefix != project


def _find_scope(find: Cmd) -> tuple[list[Word], bool, bool]:
    """A find command's start paths, whether it filters what it matches, and whether it only
    matches generated leftovers: every ``-o`` alternative has a filter that narrows it to them
    (``-name '*.pyc'``, ``__pycache__``, ``-empty``, ``-path './build/*'``)."""
    starts, filtered, chosen = _find_groups(find)
    leftovers = bool(chosen) and all(
        any(_leftover_name(n) or _droppings_name(n) or n == "-empty" for n in g) for g in chosen
    )
    names = {n.lower() for g in chosen for n in g}
    # find . ( -name bin -o -name obj ) -prune -exec rm -rf: the pair is MSBuild's output layout
    # (.NET, Mono); either name alone may be a project's scripts or a 3-D model folder.
    leftovers = leftovers or (len(chosen) == 2 and names == {"bin", "obj"})
    return starts, filtered, leftovers


# Age tests of find: ``-mtime +7`` selects what is older than a week.
_AGE_TESTS = frozenset({"-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin"})


# Folders whose files are run output kept for a while (logs, crash dumps, reports, checkpoints):
# deleting the old ones, whatever their names, is retention (any case: Unreal's Saved/Logs).
_AGED_OUTPUT_DIRS = frozenset({
    "log", "logs", "crashes", "crash", "crashdumps", "coredumps", "dumps", "tmp", "temp", "cache",
    "caches", "outputs", "output", "runs", "checkpoints", "reports", "artifacts", "traces", "screenshots",
})  # fmt: skip


_RUN_OUTPUT_EXTENSIONS = frozenset({"log", "out", "err", "tmp", "dmp", "mdmp", "trace", "prof"})


def _one_kind(name: str) -> bool:
    """A -name pattern that picks one kind of run output anywhere in a project: a literal stem
    (``slurm-*.out``, ``core.*``, ``hs_err_pid*.log``) or a log/dump extension (``*.log``); a
    bare extension of other files (``*.json``) also matches hand-written ones."""
    return bool(name) and (not name.startswith(("*", "?", "[")) or name.rsplit(".", 1)[-1] in _RUN_OUTPUT_EXTENSIONS)


def _ages_out(find: Cmd, path: str) -> bool:
    """``find reports/ -name '*.json' -mtime +7 -delete``: a retention clean-up — only files older
    than an age, named by a -name pattern that picks no source code or hand-written document,
    under a folder inside the project (not a hidden folder such as ``.git``) or from the project
    root when the pattern names one kind of file (``find . -name 'slurm-*.out' -mtime +7``)."""
    lits = [w.literal() for w in find.args]
    aged = any(
        lit in _AGE_TESTS and i + 1 < len(lits) and (lits[i + 1] or "").startswith("+") for i, lit in enumerate(lits)
    )
    project = os.path.normpath(find.ctx.project)
    if not aged or not _shell.is_within(path, project):
        return False
    if path != project and any(part.startswith(".") for part in os.path.relpath(path, project).split("/")):
        return False
    _starts, _filtered, chosen = _find_groups(find)
    names = [n for g in chosen for n in g]
    if not names and path != project:
        # find Saved/Logs -type f -mtime +7 -delete: old files of a log/crash/run-output folder.
        return any(part.lower() in _AGED_OUTPUT_DIRS for part in os.path.relpath(path, project).split("/"))
    if path == project and not all(_one_kind(n) for n in names):
        return False  # find . -name '*.json' -mtime +7: package.json and every config file too
    return bool(names) and all(
        n != "" and n.rsplit(".", 1)[-1].lower() not in _CODE_EXTENSIONS | _WORK_EXTENSIONS for n in names
    )


# Documents people write by hand (notebooks, papers, office files): never "old output".
_WORK_EXTENSIONS = frozenset({"ipynb", "tex", "bib", "rmd", "qmd", "org", "docx", "xlsx", "pptx", "odt", "m", "f90"})


def _find_groups(find: Cmd) -> tuple[list[Word], bool, list[list[str]]]:
    """A find command's start paths, whether it filters what it matches, and the narrowing
    filters of each ``-o`` alternative that has one (a -name pattern, ``-empty``; ``""`` for a
    filter that is not a name)."""
    starts: list[Word] = []
    filtered = False
    groups: list[list[str]] = [[]]  # the filters of each -o alternative
    expr = False
    args = find.args
    for i, word in enumerate(args):
        lit = word.literal()
        if not expr and lit is not None and (lit.startswith("-") or lit in ("(", "!")):
            expr = True
        if not expr:
            starts.append(word)
        elif lit in ("-o", "-or"):
            groups.append([])
        elif lit in FIND_FILTERS:
            filtered = True
            after = [w.literal() for w in args[i + 2 : i + 4]]
            before = args[i - 1].literal() if i > 0 else None
            if after == ["-prune", "-o"] or (lit not in ("-name", "-iname") and before in ("!", "-not")):
                continue  # -path ./node_modules -prune -o …, ! -path './.git/*': excluded, not selected
            if before in ("!", "-not"):
                groups[-1].append("")  # ! -name '*.pyc': everything except the leftovers
                continue
            if lit in ("-name", "-iname") and i + 1 < len(args):
                groups[-1].append(args[i + 1].literal() or "")
            elif lit in ("-path", "-ipath", "-wholename") and _build_path_pattern(args[i + 1 : i + 2], find):
                groups[-1].append("-empty")  # -path './build/*': only what lies in a build folder
            elif lit == "-empty":
                groups[-1].append(lit)  # empty files and folders: nothing is lost
            elif lit not in ("-type", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer"):
                groups[-1].append("")  # -path, -regex, -size …: not a leftover name we know
    chosen = [g for g in groups if g]
    return starts or [Word([_shell.Lit(".", True)], ".")], filtered, chosen


# Package-registry tools that delete whole trees, like rm -rf (npx rimraf ~, bunx del-cli 'dist/*').
TREE_REMOVERS = frozenset({"rimraf", "del-cli", "premove", "rm-rf"})


def rule_rm(cmd: Cmd, found: list[Finding]) -> None:
    """``rm``/``rmdir``/``unlink`` (also fed by ``xargs``) of critical, bulk or unknown targets;
    ``rimraf``/``del-cli`` read as ``rm -rf``."""
    flags, targets, _ = _shell.split_options(cmd.args)
    recursive = any(f in ("r", "R", "recursive") for f in flags) or cmd.name in TREE_REMOVERS
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
        elif prev is not None and prev.name in ("fd", "fdfind") and _fd_finds_leftovers(prev):
            pass  # fd -t d '^\.next$' apps | xargs rm -rf: build output found inside the project
        elif prev is not None and _git_list_is_safe(prev):
            pass  # git ls-files '*.orig' | xargs rm: project files git can name, leftovers or tracked
        elif cmd.replace and targets and all(_placed_under_folder(w, cmd.replace) for w in targets):
            # xargs -I{} rm -rf tmp/{}: whatever the input, every path lies inside tmp/, so the
            # target is judged as the glob tmp/*.
            values = [(None, [_shell.expand_pattern(w, cmd.ctx).replace(cmd.replace, "*")]) for w in targets]
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


def _placed_under_folder(word: Word, marker: str) -> bool:
    """``tmp/{}``, ``"$OUT/{}"``: xargs' replacement sits in its own component below a folder
    (not ``{}`` alone, not ``{}/x``, not ``../{}``)."""
    text = word.text
    head, sep, tail = text.partition(marker)
    return bool(sep) and head.endswith("/") and head.strip("/.") != "" and not tail and ".." not in head.split("/")


def _classify_rm_target(value: str, cmd: Cmd, recursive: bool, found: list[Finding]) -> None:
    prefix, glob_part = _shell.glob_split(value)
    everything_here = value in (".", "./") or (
        glob_part is not None and prefix in (".", "./") and empties_folder(glob_part)
    )
    if cmd.ctx.cwd is None and cmd.ctx.cwd_from and recursive and everything_here:
        found.append(
            (
                "ask",
                f"`{cmd.display}` deletes everything in the folder `cd {cmd.ctx.cwd_from}` went to; if "
                f"{cmd.ctx.cwd_from} is empty or unset that is your home folder (or the project). Use "
                f'`cd "${{{cmd.ctx.cwd_from[1:]}:?}}"` or name the folder in the rm instead.',
            )
        )
        return
    if glob_part is None:
        path = _shell.normalize(value, cmd.ctx.cwd)
        if path is None:
            return
        why = critical(path, cmd.ctx)
        if path == os.path.join(os.path.normpath(cmd.ctx.project), ".git"):
            # The repository itself: every commit, branch and stash not pushed anywhere.
            why = f"the project's git repository {path} (its whole history)"
        if why is None and service_data(path):
            why = f"{path} (a database's or service's data files)"
        if why and recursive:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` would recursively delete {why}. Delete "
                    "specific paths inside the project instead (e.g. rm -rf build/).",
                )
            )
        elif recursive and cmd.ctx.remote and not _shell.is_within(path, "/tmp") and not _regenerable(path):
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
    if only_build_output(base, glob_part, cmd.ctx.project):
        return
    why = critical(base, cmd.ctx)
    if (
        base == os.path.normpath(cmd.ctx.project)
        and not empties_folder(glob_part)
        and not {c for c in glob_part.split("/") if c} & _WORK_DIRS
    ):
        why = None  # */Binaries: one named entry in each of the project's folders, not the project
    if is_match_all(glob_part):
        if why and recursive:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` would delete everything in {why}. Name the files or folders to delete instead.",
                )
            )
        elif why:
            found.append(("ask", f"`{cmd.display}` deletes every file in {why}; confirm."))
        elif (
            recursive
            and _shell.is_within(base, cmd.ctx.project)
            and not _shell.build_output(base, cmd.ctx.project)
            and not _generated_in_each(glob_part)
            and not _scratch_emptied(base, glob_part, cmd.ctx.project)
        ):
            found.append(
                ("ask", f"`{cmd.display}` recursively deletes everything in {base}; confirm this bulk delete.")
            )
    elif base == "/" and recursive:
        found.append(("deny", f"`{cmd.display}` recursively deletes paths matching {value} at the filesystem root."))
    elif recursive and "/" not in glob_part.strip("/") and (entry := critical(os.path.join(base, "entry"), cmd.ctx)):
        # rm -rf /usr/lib/python3*: whatever the pattern matches is itself a folder the rule
        # protects by name (/usr/lib/python3.11), so the glob changes nothing.
        kind = entry.partition(" (")[2].rstrip(")") or "a protected folder"
        found.append(
            (
                "deny",
                f"`{cmd.display}` would recursively delete what {value} matches, each {kind}. Delete "
                "specific paths inside the project instead.",
            )
        )


# Folders of a project that hold its work (sources, data, configuration, docs): emptying one
# is asked even inside the project. Other in-project folders emptied with X/* (an output,
# staging or export folder a task fills: OUT=outputs/run_7 && rm -rf "$OUT"/*) are routine.
_WORK_DIRS = frozenset({
    "src", "source", "Source", "lib", "app", "apps", "packages", "pkg", "cmd", "internal", "include",
    "data", "db", "database", "storage", "config", "configs", "docs", "doc", "test", "tests", "spec",
    "migrations", "scripts", "assets", "Content", "Config", "resources", "public", "static", ".git",
    "notebooks", "models", "modules", "secrets", "certs", "keys", "backups", "backup",
})  # fmt: skip


def _scratch_emptied(base: str, glob_part: str, project: str) -> bool:
    """``outputs/sweep_07/*``, ``Saved/StagedBuilds/*``: an in-project folder below the root,
    emptied as a whole, that is none of the project's work folders (nor inside one)."""
    if not empties_folder(glob_part) or base == os.path.normpath(project):
        return False
    parts = os.path.relpath(base, project).split("/")
    return ".." not in parts and not any(p in _WORK_DIRS for p in parts)


def _regenerable(path: str) -> bool:
    """``/app/tmp/sessions``, ``/app/node_modules/.cache``: on another host (a container, a
    server) a path inside a scratch or build folder holds nothing a rebuild would not recreate."""
    comps = path.strip("/").split("/")
    return any(c in _shell.BUILD_DIRS for c in comps[1:])


def _classify_unknown_target(pattern: str, cmd: Cmd, found: list[Finding]) -> None:
    """``rm -rf /home/$USER``: an unknown part directly under a critical folder."""
    if not pattern.startswith("/"):
        return
    prefix, glob_part = _shell.glob_split(pattern)
    if glob_part is None or "/" in glob_part.strip("/") or glob_part.strip("/") != "*":
        return  # /tmp/pytest-of-$USER: the literal part narrows what the variable can name
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


_FD_VALUES = frozenset({
    "-t", "--type", "-e", "--extension", "-E", "--exclude", "-d", "--max-depth", "--min-depth",
    "--exact-depth", "-S", "--size", "--changed-within", "--changed-before", "-o", "--owner",
    "-j", "--threads", "--max-results", "-c", "--color", "--search-path", "--base-directory",
})  # fmt: skip


def _fd_finds_leftovers(fd: Cmd) -> bool:
    """``fd -t d -H '^\\.next$' apps``, ``fd -e retry``, ``fd -g '*.pyc' src``: fd (find's modern
    twin) lists only generated leftovers, searched for inside the project. Its pattern is a
    regular expression: anchored, escaped literal names (``^\\.turbo$``) are read as the name."""
    cwd = fd.ctx.cwd
    if fd.ctx.remote or cwd is None:
        return False
    flags, positionals, values = _shell.split_options(fd.args, _FD_VALUES)
    if "base-directory" in values:
        return False
    lits = [w.literal() for w in positionals]
    if None in lits:
        return False
    pattern = (lits[0] or "") if lits else ""
    roots = [r or "" for r in lits[1:]]
    roots = [*roots, *[w.literal() or "" for w in values.get("search-path", [])]] or ["."]
    extensions = [w.literal() or "" for k in ("e", "extension") for w in values.get(k, [])]
    if pattern in ("", ".", "^", ".*"):
        names = ["*." + e.lstrip(".") for e in extensions]
    elif "g" in flags or "glob" in flags:
        names = [pattern]
    else:
        literal = pattern.removeprefix("^").removesuffix("$").replace("\\.", ".")
        names = [literal] if re.fullmatch(r"[\w.-]+", literal) and pattern.endswith("$") else []
    if not names or not all(_leftover_name(n) or _droppings_name(n) for n in names):
        return False
    project = os.path.normpath(fd.ctx.project)
    paths = [_shell.normalize(r, cwd) for r in roots]
    return all(p is not None and _shell.is_within(p, project) for p in paths)


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
        project = lister.ctx.project
        return all(
            _leftover_name(os.path.basename(spec))
            or only_build_output(project, spec, project)
            or _shell.build_output(os.path.join(project, spec), project)
            for spec in specs
        )
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
                if find.ctx.cwd_from and value in (".", "./") and not leftovers:
                    found.append(
                        (
                            "ask",
                            f"`{find.display}` deletes in the folder `cd {find.ctx.cwd_from}` went to; if "
                            f"{find.ctx.cwd_from} is empty or unset that is your home folder (or the project). "
                            "Name the folder in the find instead.",
                        )
                    )
                continue
            why = critical(path, find.ctx)
            if why and filtered and path in ("/tmp", "/var/tmp"):
                # find /tmp -name 'pytest-*' -delete: the task's own scratch files among everyone's.
                found.append(
                    (
                        "ask",
                        f"`{find.display}` deletes what it matches in the shared {path}; confirm the "
                        "pattern only matches files this task made.",
                    )
                )
            elif why and (not filtered or path != os.path.normpath(find.ctx.project)):
                found.append(
                    (
                        "deny",
                        f"`{find.display}` deletes files under {why}. Search a "
                        "specific folder inside the project instead.",
                    )
                )
            elif _shell.is_within(path, find.ctx.project) and (
                leftovers or _shell.build_output(path, find.ctx.project) or _ages_out(find, path)
            ):
                continue  # generated leftovers, build output or old run output inside the project
            else:
                found.append(
                    (
                        "ask",
                        f"`{find.display}` bulk-deletes the files it finds under "
                        f"{path}; confirm (run it without -delete first to list them).",
                    )
                )


def rule_find(cmd: Cmd, found: list[Finding]) -> None:
    """``find`` that deletes (``-delete``, ``-exec rm``): judged by where it starts and what it
    matches; ``find … -exec chmod MODE {} +`` is judged like ``chmod -R MODE`` of where it starts."""
    lits = [w.literal() for w in cmd.args]
    deletes = "-delete" in lits
    for i, lit in enumerate(lits):
        if lit in ("-exec", "-execdir", "-ok", "-okdir") and i + 1 < len(cmd.args):
            inner = _shell.prog_name(cmd.args[i + 1], cmd.ctx)
            deletes = deletes or inner in ("rm", "shred", "unlink", "rmdir")
            if inner in ("chmod", "chown", "chgrp"):
                _find_exec_chmod(cmd, inner, i + 1, found)
    if deletes:
        _rule_find_scope(cmd, cmd, found)


def _find_exec_chmod(find: Cmd, name: str, at: int, found: list[Finding]) -> None:
    """The ``-exec chmod …`` of a find run over its start folders, recursively."""
    end = next((j for j in range(at, len(find.args)) if find.args[j].literal() in (";", "+")), len(find.args))
    inner = [w for w in find.args[at + 1 : end] if w.literal() != "{}"]
    starts, _filtered, chosen = _find_groups(find)
    argv = [find.args[at], *inner, *starts]
    if not _names_code_files(find, starts, chosen):
        argv.insert(1, Word([_shell.Lit("-R", True)], "-R"))
    rule_chmod(Cmd(name, argv, [], find.ctx, find.origin, wrappers=[*find.wrappers, "find"]), found)


# Extensions of source code and scripts: files a project keeps no secret in.
_CODE_EXTENSIONS = frozenset({
    "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "go", "rs", "java", "kt", "kts",
    "scala", "rb", "php", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "mm", "dart", "ex",
    "exs", "erl", "hs", "ml", "clj", "lua", "pl", "pm", "r", "jl", "sh", "bash", "zsh", "fish",
    "ps1", "bat", "cmd", "sql", "proto", "vue", "svelte", "html", "htm", "css", "scss", "md",
    "rst", "txt", "cgi",
})  # fmt: skip


def _names_code_files(find: Cmd, starts: list[Word], chosen: list[list[str]]) -> bool:
    """Whether a find only matches source files or scripts by name (``-name '*.sh'``, ``-iname
    '*.py' -o -name '*.rb'``) inside the project: its ``-exec chmod`` then acts on those files
    one by one (like ``chmod 777 deploy.sh``), not on every file below a folder (``.env`` and keys
    included)."""
    if not chosen or any(w.literal() in ("!", "-not") for w in find.args):
        return False
    for group in chosen:
        exts = [m.group(1).lower() for n in group if (m := re.fullmatch(r"\*\.([A-Za-z0-9]+)", n))]
        if not any(ext in _CODE_EXTENSIONS for ext in exts):
            return False
    for start in starts:
        values = find.values(start)
        paths = [_shell.normalize(v, find.ctx.cwd) for v in values or []]
        if not paths or not all(p is not None and _shell.is_within(p, find.ctx.project) for p in paths):
            return False
    return True


# Mirroring tools and the flags (or subcommands) that delete what the source lacks.
_MIRRORS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (subcommand words that mirror, flags that turn deletion on; () = always deletes)
    "rsync": ((), ("delete", "delete-before", "delete-during", "delete-after", "delete-delay", "del")),
    "rclone": (("sync",), ()),
    "aws": (("s3", "sync"), ("delete",)),
    "gsutil": (("rsync",), ("d",)),
    "gcloud": (("storage", "rsync"), ("delete-unmatched-destination-objects",)),
    "azcopy": (("sync",), ("delete-destination",)),
    "mc": (("mirror",), ("remove",)),
}
_EMPTY_NAMES = frozenset({"empty", "empty-dir", "emptydir", "blank", "nothing", "null", "void"})


def _empty_source(word: Word, cmd: Cmd) -> bool:
    """A mirror source that is an empty folder: named so (``/tmp/empty/``, ``./blank``),
    ``/dev/null``, or a variable or ``$(…)`` made by ``mktemp -d``."""
    for part in word.parts:
        if isinstance(part, _shell.Var) and "mktemp" in cmd.ctx.sources.get(part.name, set()):
            return True
    if any("mktemp" in _shell.names_in(sub.script, cmd.ctx) for sub in word.subs()):
        return True
    values = cmd.values(word) or []
    return any(v == "/dev/null" or os.path.basename(v.rstrip("/")).lower() in _EMPTY_NAMES for v in values)


def rule_mirror_empty(cmd: Cmd, found: list[Finding]) -> None:
    """``rsync -a --delete /tmp/empty/ host:/srv/``, ``rclone sync /tmp/empty remote:bucket``,
    ``aws s3 sync "$(mktemp -d)" s3://b --delete``: mirroring an empty folder deletes everything
    at the destination, wherever it is (another host, a bucket)."""
    spec = _MIRRORS.get(cmd.name)
    if spec is None:
        return
    words, delete_flags = spec
    flags, positionals, _values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS.get(cmd.name, frozenset()))
    lits = [w.literal() for w in positionals]
    if lits[: len(words)] != list(words):
        return
    if delete_flags and not any(f.split("=")[0] in delete_flags and not f.endswith("=false") for f in flags):
        return
    operands = positionals[len(words) :]
    if len(operands) >= 2 and any(_empty_source(w, cmd) for w in operands[:-1]):
        dest = operands[-1].text
        found.append(
            (
                "deny",
                f"`{cmd.display}` mirrors an empty folder onto {dest}, which deletes everything there. "
                "Delete the specific files meant, or sync a folder that holds the wanted content.",
            )
        )
    elif len(operands) >= 2 and cmd.name != "rsync" and not _DRY_RUN & set(flags):
        finding = _store_mirror(cmd, operands[:-1], operands[-1])
        if finding:
            found.append(finding)


_DRY_RUN = frozenset({"dryrun", "dry-run", "n", "i", "interactive"})
# Bucket names of disposable environments: a sync with delete there loses nothing users need.
_SCRATCH_BUCKET = lazy_compile(
    r"(?i)(?:^|[._-])(?:dev|develop|development|staging|stage|stg|test|testing|qa|preview|sandbox|scratch|tmp|temp|ci)(?:$|[._-])"
)
_PROD_BUCKET = lazy_compile(r"(?i)(?:^|[._-])(?:prod|production|live|prd)(?:$|[._-])|production|prod(?!uc)")


def _deploys_output(cmd: Cmd, sources: list[Word]) -> bool:
    """Every mirror source is a folder a build or site generator makes (``dist/``, ``out``,
    ``public/``, ``_site``): the sync publishes a site or app, it does not move data."""
    paths = [_shell.normalize(v, cmd.ctx.cwd) for w in sources for v in (cmd.values(w) or [""])]
    return bool(paths) and all(
        p is not None
        and _shell.is_within(p, cmd.ctx.project)
        and (_shell.build_output(p, cmd.ctx.project) or os.path.basename(p) in _SITE_FOLDERS)
        for p in paths
    )


_SITE_FOLDERS = frozenset({"public", "_site", "site", "www", "html", "web", "static-site"})


def _store_mirror(cmd: Cmd, sources: list[Word], dest: Word) -> Finding | None:
    """``aws s3 sync data/ s3://acme-prod-lake/ --delete``, ``gsutil rsync -d -r exports
    gs://b``, ``azcopy sync … --delete-destination=true``, ``rclone sync dir remote:``: a mirror
    with delete onto an object store removes every object the local folder lacks. Data mirrored
    onto a production bucket, onto the root of a bucket (other than a dev/staging/test one) or
    onto a whole remote is denied. Build output (``dist/``, ``public/``) mirrored onto a bucket
    is a site deploy: it passes, and asks only when the bucket is production (like other
    production deploys); a prefix of a bucket, a dry run or a sync without delete passes."""
    deploy = _deploys_output(cmd, sources)
    for value in cmd.values(dest) or []:
        m = re.match(r"^(?:s3|gs|r2|b2|oss|cos)://([^/]+)/*(.*)$", value)
        if m is None and cmd.name == "azcopy":
            m = re.match(r"^https://([^/]+\.(?:blob|dfs)\.core\.windows\.net/[^/?]+)/*([^?]*)", value)
        if m is None and cmd.name in ("rclone", "mc") and not value.startswith((".", "/", "~")):
            # rclone remote:bucket/prefix (remote: alone is the whole store), mc alias/bucket/prefix.
            m = re.match(r"^([\w.-]+:[^/]*)/*(.*)$" if cmd.name == "rclone" else r"^([\w.-]+/[^/]+)/*(.*)$", value)
        if m is None:
            continue
        bucket, prefix = m.group(1), m.group(2).strip("/")
        if _PROD_BUCKET.search(bucket):
            if deploy:
                return (
                    "ask",
                    f"`{cmd.display}` deploys build output onto the production bucket {bucket}, deleting "
                    "what the folder lacks; confirm (run it with --dryrun first).",
                )
            where = f"the production bucket {bucket}"
        elif bucket.endswith(":") and not prefix:
            where = f"the whole remote {bucket}"
        elif not prefix and not deploy and not _SCRATCH_BUCKET.search(bucket):
            where = f"the whole bucket {bucket}"
        else:
            continue
        return (
            "deny",
            f"`{cmd.display}` mirrors a local folder onto {where} with delete: every object there that "
            "the folder lacks is removed for good. Run it with --dryrun (--dry-run, -n) first and "
            "ask the user, or sync into a prefix of a dev/staging bucket.",
        )
    return None


def rule_rsync(cmd: Cmd, found: list[Finding]) -> None:
    """``rsync --delete SRC DEST`` deletes whatever in DEST is not in SRC: with an empty or
    unrelated source that is ``rm -rf DEST/*``, so a critical local DEST is denied."""
    flags, positionals, _values = _shell.split_options(cmd.args, _shell.VALUE_OPTIONS["rsync"])
    if not any(f.startswith("delete") or f in ("del", "remove-source-files") for f in flags) or len(positionals) < 2:
        return
    for value in cmd.values(positionals[-1]) or []:
        remote = re.match(r"^[\w.@-]+:(?!//)(.*)$", value)
        if remote:
            why = _remote_critical(remote.group(1))
            if why:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` deletes everything in {why} of the remote host that the source "
                        "lacks. Sync into the application's own folder there (e.g. host:/srv/app/), "
                        "or drop --delete.",
                    )
                )
            continue
        if "://" in value:
            continue  # rsync://host/module: a daemon's module, not a path we can judge
        path = _shell.normalize(value, cmd.ctx.cwd)
        why = critical(path, cmd.ctx) if path else None
        if why:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes everything in {why} that the source lacks. Sync into a folder "
                    "inside the project, or drop --delete.",
                )
            )


def _remote_critical(path: str) -> str | None:
    """Why a remote mirror destination (the part after ``host:``) is a whole machine's or a
    user's folder: the root, the login's home (``host:``, ``host:~``, ``host:.``), another
    home (``/home/x``, ``/root``) or a top-level system folder (``/etc``, ``/usr``)."""
    path = path.strip()
    if path in ("", ".", "./") or re.fullmatch(r"~[\w.-]*/?\.?/?", path):
        return "the home directory"
    if not path.startswith("/"):
        return None  # relative to the remote home: a folder inside it
    norm = os.path.normpath(path)
    comps = norm.strip("/").split("/")
    if norm == "/":
        return "the filesystem root /"
    if len(comps) == 1:
        return f"{norm} (a top-level folder)"
    if len(comps) == 2 and comps[0] in HOME_PARENTS:
        return f"{norm} (a user's home directory)"
    return None


def rule_mv(cmd: Cmd, found: list[Finding]) -> None:
    """``mv`` of a critical path (moving ``~`` or ``/etc`` away loses it as surely as deleting it)."""
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


_SELF_WORDS = lazy_compile(r"\$\{?(?:USER|LOGNAME|UID)\}?|\$\((?:whoami|id -u(?:n)?|id -g(?:n)?|id -un|id -gn)\)")


def _to_self(owner: Word, ctx: Ctx) -> bool:
    """Whether a chown owner spec names the current user (and group): ``$USER``, ``$(id -u):$(id
    -g)``, ``$(whoami):staff``, or the home folder's name."""
    user = os.path.basename(os.path.normpath(ctx.home))
    name = owner.text.split(":")[0].split(".")[0]
    return bool(name) and (name == user or _SELF_WORDS.fullmatch(name) is not None)


def _application_folder(path: str) -> bool:
    """``/var/www``, ``/var/www/app``, ``/srv/app``, ``/opt/acme``: where a server keeps the
    applications it serves, whose ownership and group access the admin sets to the service
    user (the system's own folders — ``/etc``, ``/usr``, ``/var/lib``, ``/srv`` itself — stay
    critical)."""
    comps = path.strip("/").split("/")
    return comps[:2] == ["var", "www"] or (len(comps) >= 2 and comps[0] in ("srv", "opt"))


def rule_chmod(cmd: Cmd, found: list[Finding]) -> None:
    """``chmod``/``chown``/``chgrp``/``setfacl``/``chattr`` of system or home folders, setuid or
    world-writable modes."""
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
                if _shell.build_output(target, cmd.ctx.project) and "setid" not in granted:
                    continue  # chmod -R a+rwX build/: output a build recreates, no secret or source in it
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
            if opened == {"world-write"} and not recursive and _shell.board_device(target):
                continue  # chmod 666 /dev/ttyUSB0: a serial/USB port to talk to, not a disk (settled call)
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
            if (
                cmd.name == "chmod"
                and not recursive
                and path == os.path.normpath(cmd.ctx.home)
                and _shell.chmod_closes_home(mode)
            ):
                continue  # chmod 750 ~: other users lose access, the owner keeps it
            home = os.path.normpath(cmd.ctx.home)
            if cmd.name in ("chown", "chgrp") and _shell.is_within(target, home) and _to_self(positionals[0], cmd.ctx):
                continue  # sudo chown -R "$USER" ~/.npm: taking one's own files back
            why = critical(target, cmd.ctx)
            if why and _application_folder(target):
                continue  # sudo chown -R www-data /var/www/app: a served application's files
            if why and (recursive or path in ("/", os.path.normpath(cmd.ctx.home))):
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` changes permissions/ownership of {why}"
                        f"{' recursively' if recursive else ''}; this can make the system "
                        "or your account unusable. Target specific project files.",
                    )
                )


# Build tools whose positional words name targets or tasks, and package managers' script runners.
_TARGET_RUNNERS = frozenset({"make", "gmake", "bmake", "mingw32-make", "just", "task", "mage", "rake", "invoke"})
_CLEANING_TOOLS = frozenset({"cargo", "gradle", "gradlew", "mvn", "mvnw", "dotnet", "ant", "sbt", "mix", "lein"})
_SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_CLEAN_TARGET = lazy_compile(
    r"(?i)^(?:[\w.-]*[-_:])?(?:dist|real|very|maintainer-)?clean(?:all)?(?:[-_:][\w.-]*)?$"
    r"|^(?:mrproper|clobber|purge|nuke|uninstall)$"
)
# Where an uninstall target removes the package's own installed files: the install layout.
_INSTALL_LAYOUT = lazy_compile(
    r"(?i)prefix|destdir|^install|^(?:bin|sbin|lib|libexec|data|man|include|sysconf|doc)dir$"
)
# Variable names that hold a folder (BUILD_DIR, O, OUT, PREFIX, dir, outputPath, buildDir).
_FOLDER_VARIABLE = lazy_compile(
    r"(?i)dir|directory|folder|path|root|prefix|dest|out|build|dist|target|obj|cache|tmp|^o$|^d$"
)
# Options that hand a build tool the folder it cleans (cargo clean --target-dir DIR).
_DIR_OPTIONS = frozenset({"--target-dir", "--build-dir", "--out-dir", "--output-dir", "--dist-dir", "--project-dir"})


def _clean_targets(cmd: Cmd) -> list[str]:
    """The clean-type targets or scripts a build tool is asked to run (``make distclean``,
    ``npm run clean:all``, ``cargo clean``); empty when it runs none."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name in _TARGET_RUNNERS or cmd.name in _CLEANING_TOOLS or cmd.name == "ninja":
        words = [a for a in lits if a and not a.startswith("-") and "=" not in a]
    elif cmd.name in _SCRIPT_RUNNERS:
        rest = [a for a in lits if not a.startswith("-")]
        words = rest[1:2] if rest[:1] in (["run"], ["run-script"]) else rest[:1]
    else:
        return []
    if cmd.name in _CLEANING_TOOLS:
        return words[:1] if words[:1] == ["clean"] else []
    if cmd.name == "ninja" and "-t" in lits:
        return []  # ninja -t clean: ninja's own tool, deletes only the outputs it built
    return [w for w in words if _CLEAN_TARGET.match(w)]


def rule_build_clean(cmd: Cmd, found: list[Finding]) -> None:
    """``make clean BUILD_DIR=/``, ``OUT=$HOME npm run clean``, ``just clean dir=..``, ``cargo
    clean --target-dir ~``: a clean target handed a variable (or option) that names the root, the
    home folder, a system folder or a parent of the project deletes that tree like ``rm -rf``.
    In-project values (``BUILD_DIR=build``, ``O=out/arm64``, ``.``) pass; an uninstall target's
    install layout (``PREFIX=/usr/local``, ``DESTDIR=/``) names where the package's own files
    were put, so it passes too."""
    targets = _clean_targets(cmd)
    if not targets:
        return
    only_uninstall = all(t.lower() == "uninstall" for t in targets)
    pairs: list[tuple[str, list[str]]] = [(k, [v]) for k, v in cmd.env.items()]
    args = cmd.args
    for i, word in enumerate(args):
        lit = word.literal() or word.text
        if lit in _DIR_OPTIONS and i + 1 < len(args):
            pairs.append((lit, cmd.values(args[i + 1]) or []))
            continue
        values = cmd.values(word) or []
        if "=" not in lit:
            continue
        name = re.sub(r"^(?:-[DP]|--)", "", lit.split("=", 1)[0])
        pairs.append((name, [v.split("=", 1)[1] for v in values if "=" in v]))
    project = os.path.normpath(cmd.ctx.project)
    for name, values in pairs:
        if (only_uninstall and _INSTALL_LAYOUT.search(name)) or not (
            name in _DIR_OPTIONS or _FOLDER_VARIABLE.search(name)
        ):
            continue  # CC=/usr/bin/clang, PYTHON=/usr/bin/python3: a program, not the folder cleaned
        for value in values:
            path = _shell.normalize(value, cmd.ctx.cwd)
            why = critical(path, cmd.ctx) if path and path != project else None
            if why:
                found.append(
                    (
                        "deny",
                        f"`{cmd.display}` runs the clean target `{targets[0]}` with {name}={value}, which "
                        f"points it at {why}: the target's `rm -rf $({name})` would delete that tree. Pass "
                        "a build folder inside the project (e.g. BUILD_DIR=build), or run the target "
                        "without overriding the variable.",
                    )
                )
                return
