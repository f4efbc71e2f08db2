"""Rule family: git. Force-pushes and deletions of protected branches (``PROTECTED_BRANCHES``),
``reset --hard`` without a backup ref, ``clean -f``, ``branch -D``, discarded work and history
rewrites."""

from __future__ import annotations

import os
import re

import _common
import _shell
from _common import Finding
from _shell import Cmd, Word

DEFAULT_PROTECTED_BRANCHES = ("main", "master")


def _protected_branches() -> set[str]:
    env = os.environ.get("PROTECTED_BRANCHES", "")
    names = {b.strip() for b in re.split(r"[,:\s]+", env) if b.strip()}
    return names or set(DEFAULT_PROTECTED_BRANCHES)


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
