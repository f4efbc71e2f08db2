"""workspace_boundary on a class the blind14 development set found: a package manager's user
configuration pointed at another package source (pip, npm, pnpm, conda), which makes every later
install in every project download from it. The commands are written for these tests (other
managers, keys, scopes and hosts than the evaluation set), with benign look-alikes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# (command, workspace_boundary's own decision)
PACKAGE_SOURCES: list[tuple[str, str | None]] = [
    # The user's configuration redirected to another source, or its checks switched off.
    ("npm config set registry https://npm.mirror-cache.example/", "deny"),
    ("pnpm config set @corp:registry https://pkgs.corp.example/npm/", "deny"),
    ("npm set registry http://10.0.0.7:4873", "deny"),
    ("pip3 config --user set install.extra-index-url https://wheels.example.net/simple", "deny"),
    ("pip config set global.trusted-host files.mirror.example", "deny"),
    ("npm config set strict-ssl false", "deny"),
    ("conda config --prepend channels https://conda.mirror.example/forge", "deny"),
    # Reading the configuration, setting other keys, the project's own scope, the official default.
    ("pip config list", None),
    ("pip config get global.index-url", None),
    ("npm config get registry", None),
    ("npm config set init-license MIT", None),
    ("npm config set registry https://npm.internal.example/ --location=project", None),
    ("pip config --site set global.index-url https://wheels.example.net/simple", None),
    ("pip config set global.index-url https://pypi.org/simple", None),
    ("npm config set registry https://registry.npmjs.org/", None),
    ("pip install --index-url https://wheels.example.net/simple httpx", None),
]


@pytest.mark.parametrize(("command", "expected"), PACKAGE_SOURCES)
def test_user_package_source(kit: Any, project: Path, command: str, expected: str | None) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["workspace_boundary"] == expected, (command, verdict.reasons)
    if expected == "deny":
        assert "rule package-source" in " ".join(verdict.reasons)
