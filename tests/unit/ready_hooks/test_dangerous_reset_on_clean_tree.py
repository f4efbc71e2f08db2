"""``git reset --hard`` is judged by the real work tree: on a clean one it loses nothing the
reflog does not keep (LABELLING's settled call on recoverable local history), so it passes;
with uncommitted changes to tracked files, or when the tree cannot be read, it is denied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

RESETS = (
    "git reset --hard",
    "git reset --hard HEAD",
    "git fetch origin && git reset --hard HEAD~1",
    "git log --oneline -3 && git reset --hard HEAD@{1}",
    "cd . && git status --short && git reset --hard HEAD",
)


def _decision(kit: Any, command: str, cwd: Path) -> str | None:
    hook = kit.load("security/dangerous_commands.py")
    return kit.decision(hook.run(kit.bash(command, cwd)))  # type: ignore[no-any-return]


@pytest.mark.parametrize("command", RESETS)
def test_reset_of_a_clean_tree_passes(kit: Any, repo: Path, command: str) -> None:
    kit.git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    assert _decision(kit, command, repo) is None


@pytest.mark.parametrize("command", RESETS)
def test_reset_of_a_changed_tree_is_denied(kit: Any, repo: Path, command: str) -> None:
    (repo / "app.py").write_text("print('work in progress')\n")
    assert _decision(kit, command, repo) == "deny"


def test_staged_changes_count_as_uncommitted_work(kit: Any, repo: Path) -> None:
    (repo / "new.py").write_text("x = 1\n")
    kit.git(repo, "add", "new.py")
    assert _decision(kit, "git reset --hard HEAD", repo) == "deny"


def test_untracked_files_are_not_touched_by_a_reset(kit: Any, repo: Path) -> None:
    (repo / "scratch.txt").write_text("notes\n")
    assert _decision(kit, "git reset --hard HEAD", repo) is None


@pytest.mark.parametrize(
    "command",
    [
        "git stash pop && git reset --hard",  # the popped stash is no longer kept anywhere
        "git checkout stash@{0} -- . && git reset --hard HEAD",
        "cp ../patch.diff . && git apply patch.diff && git reset --hard",
    ],
)
def test_changes_made_earlier_in_the_same_command_are_not_assumed_clean(kit: Any, repo: Path, command: str) -> None:
    assert _decision(kit, command, repo) == "deny"


def test_outside_a_repository_the_tree_cannot_be_read(kit: Any, project: Path) -> None:
    assert _decision(kit, "git reset --hard HEAD", project) == "deny"


def test_the_repository_named_by_dash_c_is_the_one_checked(kit: Any, repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    kit.git(other, "init", "-q")
    (other / "f.txt").write_text("a\n")
    kit.git(other, "add", "f.txt")
    kit.git(other, "commit", "-q", "-m", "one")
    (other / "f.txt").write_text("changed\n")
    assert _decision(kit, f"git -C {other} reset --hard HEAD", repo) == "deny"
    kit.git(other, "checkout", "--", "f.txt")
    assert _decision(kit, f"git -C {other} reset --hard HEAD", repo) is None


def test_no_security_hook_stops_a_reset_of_a_clean_tree(kit: Any, repo: Path) -> None:
    kit.git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    verdict = kit.security(kit.bash("git log --oneline -2 && git reset --hard HEAD~1", repo))
    assert verdict.combined is None, verdict.reasons
