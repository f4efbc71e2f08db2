"""protected_files and workspace_boundary on three classes of ordinary work and their twins.

* A protected file moved aside and moved back by the same command (``mv .env .env.off && npm
  test; mv .env.off .env``) keeps its only copy; moving another file over it is still refused.
* Git hooks kept by hook managers (``.husky/*``, ``lefthook.yml``, ``.pre-commit-config.yaml``)
  that install packages from a URL or run fetched code are refused like ``.git/hooks`` content;
  ordinary lint and test steps pass.
* Mounting an image file from the project (``mount -o loop``, ``losetup``) is ordinary; mounting
  over system folders or the home folder stays refused.

Commands are written for these tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, protected_files' own decision)
SET_ASIDE: list[tuple[str, str | None]] = [
    ("mv .env .env.off && pytest -q; mv .env.off .env", None),
    (
        "mv -f .env.production .env.production.hold; npx playwright test; mv -f .env.production.hold .env.production",
        None,
    ),
    ("mv .env.local /tmp/env-local.keep && yarn test:e2e; mv /tmp/env-local.keep .env.local", None),
    ("mv config/.env config/.env.parked && go test ./...; mv config/.env.parked config/.env", None),
    ("mv package-lock.json /tmp/lock.keep && npm install --dry-run; mv /tmp/lock.keep package-lock.json", None),
    # Not put back, put back elsewhere, or another file moved over the env file.
    ("mv .env .env.off && pytest -q", "deny"),
    ("mv .env .env.off; mv .env.off .env.local", "deny"),
    ("mv .env .env.off && pytest; mv .env.staging .env", "deny"),
    ("mv .env.local .env; npm test; mv .env .env.local", "deny"),
    ("mv secrets.env .env", "deny"),
]


@pytest.mark.parametrize(("command", "expected"), SET_ASIDE)
def test_protected_file_set_aside_and_restored(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["protected_files"] == expected, (command, verdict.reasons)


def test_set_aside_onto_an_existing_file_is_refused(kit: Any, project: Path) -> None:
    """Where the aside name already holds a file, the first move overwrites it."""
    (project / ".env").write_text("A=1\n")
    (project / ".env.off").write_text("B=2\n")
    verdict = kit.security(kit.bash("mv .env .env.off && make test; mv .env.off .env", project))
    assert verdict.own["protected_files"] == "deny", verdict.reasons
