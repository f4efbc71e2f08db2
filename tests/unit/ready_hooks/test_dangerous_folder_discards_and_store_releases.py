"""dangerous_commands on two warn classes (LABELLING: asked, not denied), with look-alikes:

* ``git checkout -- DIR/`` / ``git restore DIR/`` (a folder, a glob, or a path that is a folder on
  disk) discards the uncommitted edits of many files: asked, unless the real work tree is clean;
  one file, a path taken from another commit and ``--staged`` pass;
* publishing a version where users get it at once in other ecosystems (pub.dev, Hex, CocoaPods
  trunk, NuGet, Anaconda, JSR, the VS Code Marketplace/Open VSX, itch.io's butler) asks like
  ``npm publish``; dry runs, packaging and a folder feed pass;
* migrations rolled back by more tools (``diesel migration redo``, ``sea-orm-cli migrate down``,
  ``rails db:migrate:redo``, ``dotnet ef database update 0``) ask; forward runs pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/dangerous_commands.py"

DISCARDS: list[tuple[str, str | None]] = [
    ("git checkout -- services/ && git diff --stat", "ask"),
    ("git restore app/models/", "ask"),
    ("git restore --worktree 'tests/*.py'", "ask"),
    ("git checkout -- 'lib/**/*.rb'", "ask"),
    ("git checkout -- src/main.rs", None),
    ("git checkout HEAD -- Cargo.lock", None),
    ("git checkout origin/main -- docs/", None),
    ("git restore --staged app/", None),
    ("git restore --source=v1.2.0 -- templates/", None),
    ("git checkout -b topic/retry", None),
]

RELEASES: list[tuple[str, str | None]] = [
    ("flutter pub publish --force", "ask"),
    ("dart pub publish", "ask"),
    ("mix hex.publish --yes", "ask"),
    ("pod trunk push MyKit.podspec --allow-warnings", "ask"),
    ("dotnet nuget push out/My.Lib.2.0.0.nupkg -k $NUGET_KEY -s https://api.nuget.org/v3/index.json", "ask"),
    ("anaconda upload build/noarch/tool-1.0-0.tar.bz2", "ask"),
    ("deno publish", "ask"),
    ("npx jsr publish", "ask"),
    ("npx @vscode/vsce publish patch", "ask"),
    ("ovsx publish out/theme.vsix -p $OVSX_TOKEN", "ask"),
    ("butler push dist/mac studio/game:mac-release", "ask"),
    ("dart pub publish --dry-run", None),
    ("butler push dist/mac studio/game:mac-release --dry-run", None),
    ("vsce package", None),
    ("butler status studio/game:mac-release", None),
    ("dotnet nuget push out/My.Lib.2.0.0.nupkg --source ./local-feed", None),
    ("dotnet pack -c Release", None),
]


@pytest.mark.parametrize(("command", "expected"), DISCARDS, ids=[c for c, _ in DISCARDS])
def test_folder_discards(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "git")


def test_a_folder_on_disk_counts_without_a_slash(kit: Any, repo: Path) -> None:
    (repo / "models").mkdir()
    (repo / "models" / "user.py").write_text("x = 1\n")
    kit.git(repo, "add", "models")
    kit.git(repo, "commit", "-q", "-m", "models")
    (repo / "models" / "user.py").write_text("x = 2\n")
    kit.expect_decision(HOOK, "git checkout -- models", repo, "ask", "git")
    kit.expect_decision(HOOK, "git checkout -- models/user.py", repo, None)


def test_a_clean_tree_has_nothing_to_discard(kit: Any, repo: Path) -> None:
    (repo / "models").mkdir()
    (repo / "models" / "user.py").write_text("x = 1\n")
    kit.git(repo, "add", "models")
    kit.git(repo, "commit", "-q", "-m", "models")
    kit.expect_decision(HOOK, "git checkout -- models/", repo, None)
    kit.expect_decision(HOOK, "git status && git checkout -- models/", repo, None)


@pytest.mark.parametrize(("command", "expected"), RELEASES, ids=[c for c, _ in RELEASES])
def test_releases_to_stores(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "risky-tool")


ROLLBACKS: list[tuple[str, str | None]] = [
    ("diesel migration redo --all", "ask"),
    ("sea-orm-cli migrate refresh", "ask"),
    ("bin/rails db:migrate:redo STEP=2", "ask"),
    ("dotnet ef database update 0 --project src/Api", "ask"),
    ("diesel migration run", None),
    ("sea-orm-cli migrate up", None),
    ("dotnet ef database update", None),
    ("diesel migration pending", None),
]


@pytest.mark.parametrize(("command", "expected"), ROLLBACKS, ids=[c for c, _ in ROLLBACKS])
def test_migration_rollbacks(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "db-reset")
