"""workspace_boundary on deletes fed by a listing, whole reads of the user's own settings files,
and counts. ``xargs rm`` deletes what the lister before it prints: a listing outside the project
(``ls ~``, ``ls -d ../*``, a system folder) is a delete there, an in-project listing is project
work. ``cat ~/.gitconfig`` shows a settings file that is usually harmless but may hold a token: it
asks rather than being refused; sourcing it or searching it for credentials stays refused.
Counting lines (``wc -l``, ``grep -c``) prints no content. Commands are written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, workspace_boundary's own decision)
LISTED_DELETES: list[tuple[str, str | None]] = [
    ("ls ~/Pictures | xargs rm -f", "deny"),
    ("ls -d ../*/ | xargs rm -rf", "deny"),
    ("ls /etc/cron.d/* | xargs sudo rm", "deny"),
    ("fd -e log . ~/work | xargs rm", "deny"),
    ("ls *.orig | xargs -r rm --", None),
    ("ls -1 build/*.o | xargs rm -f", None),
    ("fd -e pyc | xargs rm", None),
    ("find . -name '*.rej' -print0 | xargs -0 rm -f", None),
    ("git ls-files -z --others --exclude-standard | xargs -0 rm -f", None),
]


# Loop variables bound to in-project words or globs name in-project targets; rooted elsewhere, not.
LISTED_DELETES += [
    ('for d in services/*/dist; do rm -rf "$d"; done', None),
    ('for f in *.log *.tmp; do rm -f -- "$f"; done', None),
    ('for d in node_modules .next coverage; do rm -rf "$d"; done', None),
    ('for f in $(ls *.bak); do rm "$f"; done', None),
    ('for d in ../sibling-app/*; do rm -rf "$d"; done', "deny"),
    ('for d in /srv/www/*; do sudo rm -rf "$d"; done', "deny"),
    ('for f in $(ls ~/Desktop); do rm -rf ~/Desktop/"$f"; done', "deny"),
]


@pytest.mark.parametrize(("command", "expected"), LISTED_DELETES)
def test_deletes_fed_by_a_listing(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["workspace_boundary"] == expected, (command, verdict.reasons)


# (command, workspace_boundary's own decision)
SETTINGS_READS: list[tuple[str, str | None]] = [
    # No such file here: nothing to show (by content: test_settings_reads_by_content).
    ("cat ~/.tmux.conf", None),
    ("head -40 ~/.zshrc", None),
    ("cat ~/.config/git/config | tail -5", None),
    ("source ~/.zshrc", "deny"),
    ("cat ~/.zshrc | grep -i secret", "deny"),
    ("grep -v '^#' ~/.vimrc", None),  # no more than the whole file, judged by content
    ("cat ~root/.profile", "deny"),
    ("cat ~/.ssh/config", None),
    ("grep -n 'core.editor' ~/.gitconfig", None),
]


@pytest.mark.parametrize(("command", "expected"), SETTINGS_READS)
def test_whole_reads_of_user_settings(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["workspace_boundary"] == expected, (command, verdict.reasons)
    if expected == "ask":
        assert any("rule user-settings-read" in r for r in verdict.reasons), verdict.reasons


def test_read_tool_on_user_settings_asks(kit: Any, project: Path) -> None:
    home = Path.home()
    (home / ".zprofile").write_text("export NPM_TOKEN=npm_" + "Zq8" * 12 + "\n")
    verdict = kit.security(kit.pre_tool("Read", {"file_path": str(home / ".zprofile")}, project))
    assert verdict.own["workspace_boundary"] == "ask", verdict.reasons
    verdict = kit.security(kit.pre_tool("Read", {"file_path": str(home / ".aws" / "config")}, project))
    assert verdict.own["workspace_boundary"] == "deny", verdict.reasons


# (command, combined decision)
COUNTS: list[tuple[str, str | None]] = [
    ("wc -l ~/.pgpass", None),
    ("grep -c machine ~/.netrc", None),
    ("grep -q '^export' ~/.bash_profile && echo has-exports", None),
    ("grep -o 'password [^ ]*' ~/.netrc", "deny"),
    ("wc -l ~/.netrc > /etc/motd", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), COUNTS)
def test_counting_lines_outside_the_project(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.combined == expected, (command, verdict.reasons)


# (command, workspace_boundary's own decision)
INSTALLS_AND_DRY_RUNS: list[tuple[str, str | None]] = [
    # An install step as root or into a prefix outside the project writes system folders.
    ("sudo make install", "deny"),
    ("make install DESTDIR=/ PREFIX=/usr/local", "deny"),
    ("cmake --install out --prefix /usr", "deny"),
    ("sudo ninja -C out install", "deny"),
    ("make install PREFIX=./stage", None),
    ('cmake --install out --prefix "$PWD/stage"', None),
    ("make -j4 all", None),
    # Dry runs only report.
    ("stow --simulate -t ~ nvim", None),
    ("rsync -avn --delete public/ ~/sites/blog/", None),
    ("stow -t ~ nvim", "deny"),
    ("rsync -av --delete public/ ~/sites/blog/", "deny"),
    # Perforce depot paths are not files; Windows drive paths are never in the project.
    ("p4 files //depot/Tools/...", None),
    ("bazel test //services/auth:unit_tests --test_output=errors", None),
    ("buck2 build //apps/cli:cli", None),
    ("bazel run //tools:gen -- --out /etc/motd", "deny"),
    ("pwsh -c 'Remove-Item -Recurse -Force D:\\Shared\\Assets'", "deny"),
    ("pwsh -c 'Copy-Item .\\dist\\app.exe C:\\Windows\\System32\\'", "deny"),
    ("pwsh -c 'Remove-Item -Recurse -Force .\\obj'", None),
    # Windows' installed-program data read through WSL, like /etc; writing it is still outside.
    ("cat '/mnt/c/Program Files/Git/etc/gitconfig'", None),
    ("echo x >> /mnt/c/ProgramData/app/settings.ini", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), INSTALLS_AND_DRY_RUNS)
def test_installs_dry_runs_and_foreign_paths(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["workspace_boundary"] == expected, (command, verdict.reasons)


def test_git_lfs_scratch_may_be_emptied(kit: Any, project: Path) -> None:
    for command, expected in [
        ("rm -rf .git/lfs/tmp/*", None),
        ("rm -rf .git/lfs/incomplete/*", None),
        ("rm -rf .git/lfs/objects", "deny"),
        ("rm -rf .git/lfs", "deny"),
    ]:
        verdict = kit.security(kit.bash(command, project))
        assert verdict.own["protected_files"] == expected, (command, verdict.reasons)


# (command, workspace_boundary's own decision)
UNSET_ROOTS: list[tuple[str, str | None]] = [
    # A variable set nowhere in the command, unguarded, before a slash: empty, it names the root.
    ('rm -rf "$DEPLOY_DIR/"', "deny"),
    ('sudo rm -r "${CACHE_ROOT}/"*', "deny"),
    ('rm -fr "$OUT/"*', "deny"),
    # Guarded, set in the command, a temp or tool variable, a file below it, or not recursive.
    ('rm -rf "${DEPLOY_DIR:?}/"*', None),
    ('DEPLOY_DIR=./public; rm -rf "$DEPLOY_DIR/"*', None),
    ('rm -rf "$OUT/cache"', None),
    ('rm -f "$LOG_DIR/"*', None),
]


@pytest.mark.parametrize(("command", "expected"), UNSET_ROOTS)
def test_unset_variable_before_a_slash(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["workspace_boundary"] == expected, (command, verdict.reasons)
    if expected:
        assert any("rule unset-root" in r and ":?" in r for r in verdict.reasons), verdict.reasons
