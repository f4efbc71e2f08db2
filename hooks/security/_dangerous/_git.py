"""Rule family: git. Force-pushes and deletions of protected branches (``PROTECTED_BRANCHES``),
``reset --hard`` of a changed tree without a backup ref, ``clean -f``, ``branch -D``, discarded work and history
rewrites."""

from __future__ import annotations

import os
import re

import _common
import _shell
from _common import Finding
from _shell import Cmd, Word, lazy_compile

from ._files import LEFTOVER_NAMES


def rule_git(cmd: Cmd, earlier: list[Cmd], found: list[Finding]) -> None:
    """Git commands that lose work or rewrite shared history (``earlier``: the commands before it)."""
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
        if (
            "hard" in flags
            and not _has_backup(earlier)
            and not _clean_tree_checked(cmd.guards, cmd.unless)
            and not _tree_is_clean(where, earlier)
        ):
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
        flags, paths, _vals = _shell.split_options(rest, frozenset({"-e", "--exclude"}))
        if ("f" in flags or "force" in flags) and not ({"n", "dry-run", "i", "interactive"} & set(flags)):
            if paths and where is not None and all(_build_path(p, cmd, where) for p in paths):
                return  # git clean -fdx build/ dist/: only generated output goes
            if paths and all(p.literal() in LEFTOVER_NAMES for p in paths):
                return  # git clean -f -- '*.orig' '*.rej': merge and tool leftovers only
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` permanently deletes untracked files; run "
                    "`git clean -n` first to see what would go, then confirm.",
                )
            )
    elif sub == "branch":
        _branch_delete(cmd, rest, found)
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
        elif (
            not staged_only
            and _discards_folder(cmd, sub, rest, flags, where)
            and not _clean_tree_checked(cmd.guards, cmd.unless)
            and not _tree_is_clean(where, earlier)
        ):
            found.append(
                (
                    "ask",
                    f"`{cmd.display}` discards the uncommitted changes of every file in a folder or "
                    "pattern; confirm (or `git stash push -- PATH` them first).",
                )
            )
    elif sub == "stash" and rest and rest[0].literal() == "clear":
        # One "git stash drop" is local history git keeps recoverable (LABELLING.md's settled
        # calls); "clear" throws every stash away at once.
        found.append(("ask", f"`{cmd.display}` deletes every stash at once; confirm (or drop the one meant)."))
    elif sub in ("filter-branch", "filter-repo"):
        _history_rewrite(cmd, sub, rest, found)
    elif sub == "lfs" and [w.literal() for w in rest[:2]] == ["migrate", "import"]:
        # git lfs migrate import rewrites the current branch's history; --everything every ref.
        lits = [w.literal() for w in rest[2:]]
        every = "--everything" in lits or any((v or "").startswith("--include-ref") for v in lits)
        _history_rewrite(cmd, "filter-branch", [Word([_shell.Lit("--all", True)], "--all")] if every else [], found)
    elif sub == "reflog" and rest and rest[0].literal() in ("expire", "delete"):
        found.append(("ask", f"`{cmd.display}` deletes reflog entries (the safety net for lost commits); confirm."))
    elif sub == "gc" and any((w.literal() or "") in ("--prune=now", "--prune=all") for w in rest):
        found.append(("ask", f"`{cmd.display}` permanently prunes unreachable commits; confirm."))
    elif sub == "update-ref" and any(w.literal() == "-d" for w in rest):
        refs = [(cmd.values(w) or [w.text])[0] for w in rest if not (w.literal() or "").startswith("-")]
        hit = next((r for r in refs[:1] if r.removeprefix("refs/heads/") in _common.protected_branches()), None)
        if hit is not None:
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes the protected branch {hit} outright. Delete feature branches "
                    "only, or ask the user to remove this one.",
                )
            )
        elif not all(r.startswith(("refs/heads/", "refs/remotes/")) for r in refs):
            # A local branch ref is recoverable like git branch -D (settled call), a remote-tracking
            # one comes back with the next fetch; tags, notes and the stash ref are asked.
            found.append(("ask", f"`{cmd.display}` deletes a ref; confirm."))
    elif sub == "rm":
        flags, pos, _vals = _shell.split_options(rest)
        if "r" in flags and "cached" not in flags and any(p.literal() in (".", "*", ":/") for p in pos):
            found.append(("ask", f"`{cmd.display}` deletes every tracked file; confirm."))


def _branch_delete(cmd: Cmd, rest: list[Word], found: list[Finding]) -> None:
    """``git branch -D``: local branches stay recoverable from the reflog (LABELLING.md's settled
    calls make deleting feature branches, by name or from a ``--merged`` list, benign); a
    protected branch named outright is asked here (protected_files denies moving its ref)."""
    flags, positionals, _vals = _shell.split_options(rest)
    if not ("D" in flags or ({"d", "delete"} & set(flags) and {"f", "force"} & set(flags))):
        return
    protected = _common.protected_branches()
    hit = next((v for w in positionals for v in cmd.values(w) or [] if v in protected), None)
    if hit is not None and not {"r", "remotes"} & set(flags):
        found.append(("ask", f"`{cmd.display}` force-deletes the shared branch {hit}; confirm."))


def _history_rewrite(cmd: Cmd, sub: str, rest: list[Word], found: list[Finding]) -> None:
    """``filter-branch … --all`` and ``filter-repo`` (every ref by default) rewrite the history
    of every branch, main included; a filter of the current branch alone is confirmed."""
    lits = [w.literal() for w in rest]
    every_ref = "--all" in lits or "--branches" in lits or (sub == "filter-repo" and "--refs" not in lits)
    protected = _common.protected_branches()
    named = {(v or "").removeprefix("refs/heads/") for v in lits} & protected
    if named and "--dry-run" not in lits:
        found.append(
            (
                "deny",
                f"`{cmd.display}` rewrites the history of the shared branch {sorted(named)[0]}. Rewrite a "
                "feature branch instead, or ask the user to do this.",
            )
        )
    elif every_ref and "--dry-run" not in lits and "--analyze" not in lits:
        found.append(
            (
                "deny",
                f"`{cmd.display}` rewrites the history of every branch, the shared ones included. Rewrite "
                "one feature branch (`git filter-branch … HEAD`, `git filter-repo --refs <branch>`) or ask "
                "the user to do this.",
            )
        )
    elif "--analyze" not in lits:
        found.append(("ask", f"`{cmd.display}` rewrites the repository history; confirm."))


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
    protected = _common.protected_branches()
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


def _build_path(word: Word, cmd: Cmd, where: str) -> bool:
    """Whether a pathspec names a build-output folder of the project (``build/``, ``dist``)."""
    values = cmd.values(word)
    path = _shell.normalize(values[0], where) if values and len(values) == 1 else None
    return path is not None and _shell.build_output(path, cmd.ctx.project)


def _git_sub(cmd: Cmd) -> tuple[str, list[str]]:
    """A git command's subcommand and its literal arguments (``("", [])`` for other programs)."""
    if cmd.name != "git":
        return "", []
    _flags, positionals, _vals = _shell.split_options(cmd.args, frozenset({"-C", "-c"}), stop_at_first=True)
    lits = [w.literal() or "" for w in positionals]
    return (lits[0], lits[1:]) if lits else ("", [])


# Commands that change nothing a reset --hard could then discard.
_READ_ONLY_GIT = frozenset({"status", "log", "diff", "show", "fetch", "rev-parse", "reflog", "describe", "remote"})


def _discards_folder(cmd: Cmd, sub: str, rest: list[Word], flags: list[str], where: str | None) -> bool:
    """``git checkout -- models/``, ``git restore src/*.py``, ``git checkout -- lib`` (a folder on
    disk): the edits of many files put back to the index at once. One file (``git checkout --
    src/app.py``) and a path taken from another commit (``git checkout main -- docs/``,
    ``git restore --source=HEAD~2 …``) are ordinary; branch switches name no path."""
    lits = [w.literal() for w in rest]
    if "--" in lits:
        before, paths = lits[: lits.index("--")], lits[lits.index("--") + 1 :]
        if sub == "checkout" and any(a and not a.startswith("-") for a in before):
            return False  # git checkout TREE-ISH -- PATH: a version taken from another commit
    elif sub == "restore":
        paths = [a for a in lits if a and not a.startswith("-")]
    else:
        return False  # git checkout NAME: a branch switch (or one file); not told apart without --
    if sub == "restore" and ("source" in flags or "s" in flags):
        return False
    for path in paths:
        if path is None:
            continue  # "$f" of a loop over changed files: one file at a time, not known to be a folder
        if path.endswith("/") or _shell.has_glob(path):
            return True
        full = _shell.normalize(path, where)
        if full is not None and os.path.isdir(full):
            return True
    return False


def _tree_is_clean(where: str | None, earlier: list[Cmd]) -> bool:
    """Whether the work tree a ``reset --hard`` runs in holds no uncommitted change to tracked
    files right now (``git status``; untracked files are not touched by a reset), and nothing
    earlier in the same command could have made one (only read-only git commands and ``cd``):
    the reset then loses nothing the reflog does not keep."""
    if where is None:
        return False
    for c in earlier:
        sub, _rest = _git_sub(c)
        if c.name not in ("cd", "pushd", "echo", "printf", "true") and sub not in _READ_ONLY_GIT:
            return False
    changes = _common.git_dirty(where)
    return changes is not None and all(line.startswith("??") for line in changes)


def _clean_tree_checked(guards: list[Cmd], unless: list[Cmd] | None = None) -> bool:
    """Whether the command only runs once a check proved there is no uncommitted work to lose
    (``test -z "$(git status --porcelain)" &&``, ``git diff --quiet HEAD &&``, ``if git diff-index
    --quiet HEAD; then``, ``git status --porcelain | grep -q . ||``): a reset --hard of a clean
    tree loses nothing the reflog does not keep."""
    listed = [_git_sub(c) for c in unless or []]
    searched = [c for c in unless or [] if c.name in ("grep", "egrep", "rg")]
    if any(sub == "status" and {"--porcelain", "-s", "--short"} & set(rest) for sub, rest in listed) and searched:
        return True  # "git status --porcelain | grep -q . || …": runs only when nothing is listed
    worktree = staged = False
    for i, guard in enumerate(guards):
        sub, rest = _git_sub(guard)
        quiet = "--quiet" in rest or "--exit-code" in rest
        if sub == "diff-index" and quiet:
            return True
        if sub in ("clone", "init") and any(g.name in ("cd", "pushd") for g in guards[i + 1 :]):
            return True  # cd into a repository this command just created: nothing uncommitted yet
        if sub == "diff" and quiet:
            if "HEAD" in rest:
                return True
            if "--cached" in rest or "--staged" in rest:
                staged = True
            else:
                worktree = True
        if guard.name in ("test", "[", "[[") and any(w.literal() == "-z" for w in guard.args):
            for word in guard.args:
                for subst in word.subs():
                    stages = [c for p in subst.script.pipelines for c in p.commands]
                    first = stages[0].words if stages and stages[0].words else []
                    lits = [w.literal() for w in first]
                    if lits[:2] == ["git", "status"] and ({"--porcelain", "-s", "--short"} & set(lits)):
                        return True
    return worktree and staged


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


# BFG Repo-Cleaner: rewrites every branch and tag of the repository it is run in.
_BFG_JAR = lazy_compile(r"(?:^|/)bfg[\w.-]*\.jar$")


def rule_bfg(cmd: Cmd, found: list[Finding]) -> None:
    """``bfg --delete-files x``, ``java -jar bfg.jar --strip-blobs-bigger-than 50M``: BFG
    rewrites the history of every ref, like ``git filter-repo``."""
    lits = [w.literal() or "" for w in cmd.args]
    if cmd.name == "java":
        at = lits.index("-jar") + 1 if "-jar" in lits[:-1] else None
        jar = (cmd.values(cmd.args[at]) or [cmd.args[at].text])[0] if at is not None else ""
        if not _BFG_JAR.search(jar):
            return
    elif cmd.name != "bfg":
        return
    if any(a in ("-h", "--help", "--version") for a in lits) or not any(a.startswith("-") for a in lits):
        return
    found.append(
        (
            "deny",
            f"`{cmd.display}` rewrites the history of every branch and tag, the shared ones included. "
            "Rewrite one feature branch (`git filter-repo --refs <branch>`) or ask the user to do this.",
        )
    )


def rule_gh(cmd: Cmd, found: list[Finding]) -> None:
    """``gh api -X DELETE …/git/refs/heads/main`` deletes a protected branch on the host; ``…/branches/
    main/protection`` with DELETE removes its protection. Both are shared history's safety."""
    if cmd.name != "gh" or not cmd.args or cmd.args[0].literal() != "api":
        return
    _flags, positionals, values = _shell.split_options(cmd.args[1:], frozenset({"-X", "--method"}))
    methods = {(cmd.values(w) or [""])[0].upper() for k in ("X", "method") for w in values.get(k, [])}
    if "DELETE" not in methods:
        return
    for word in positionals:
        path = (cmd.values(word) or [word.text])[0]
        if re.fullmatch(r"/?repos/[^/?]+/[^/?]+/?", path):
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes the whole repository on the hosting service, with its "
                    "issues, releases and every branch. Ask the user to do this in the repository settings.",
                )
            )
            continue
        m = re.search(r"/(?:git/refs/heads|branches)/([^/?]+)(/protection)?", path)
        if m and m.group(1) in _common.protected_branches():
            what = "the protection of" if m.group(2) else "the branch"
            found.append(
                (
                    "deny",
                    f"`{cmd.display}` deletes {what} {m.group(1)} on the hosting service. Ask the user to do "
                    "this in the repository settings.",
                )
            )


def rule_vcs_obliterate(cmd: Cmd, found: list[Finding]) -> None:
    """Other version control systems' permanent history deletes: ``p4 obliterate -y`` (without
    ``-y`` it only previews) and TFVC's ``tf destroy $/…`` / ``tf vc destroy`` (not ``/preview``) remove
    files and every revision of them from the server, for everyone, with no undo."""
    lits = [(w.literal() or "").lower() for w in cmd.args]
    obliterates = cmd.name == "p4" and "obliterate" in lits and any(re.fullmatch(r"-\w*y\w*", a) for a in lits)
    # TFVC names server paths $/Project/…; "tf" is also a common alias of terraform (its destroy
    # is judged by the infrastructure rules).
    destroys = (
        cmd.name in ("tf", "tfpt")
        and "destroy" in lits[:2]
        and any(a.startswith("$/") for a in lits)
        and not any(a.startswith("/preview") for a in lits)
    )
    if obliterates or destroys:
        found.append(
            (
                "deny",
                f"`{cmd.display}` permanently removes files and all their history from the server, for "
                "every user, with no undo. Delete them normally (the history stays), or ask the "
                "server's administrator.",
            )
        )
