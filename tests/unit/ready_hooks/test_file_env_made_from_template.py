"""protected_files: an env file made from the project's template is judged by the real machine.

Settled call (hooks/eval/LABELLING.md): creating a local env file from its template is ordinary
set-up when none exists yet — nothing is lost; replacing one that exists and holds values stays
refused, with a message that points at ``cp -n`` or at editing the file. The hook looks at the
real target (relative paths resolve against the payload's cwd and any ``cd`` before the copy).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/protected_files.py"

# Different template names, tools and folders than the evaluation sets use.
MAKES_ENV = [
    "cp .env.dist .env",
    "cp -v .env.sample .env.local",
    "install -m 0600 .env.template .env.development.local",
    "install -m 600 /dev/null .env.staging",
    "envsubst < .env.template > .env",
    "grep -v '^#' .env.sample > .env.local",
    "sed 's/changeme/devpass/' .env.dist | sort > .env",
    "cd services/api && cp .env.example .env",
    "cp env.example .env",  # templates named the other way round
    "cp sample.env .env.local",
    "cp services/api/.env.example services/api/.env && chmod 600 services/api/.env",
]


def _templates(project: Path) -> None:
    for folder in (project, project / "services" / "api"):
        folder.mkdir(parents=True, exist_ok=True)
        for name in (".env.example", ".env.dist", ".env.sample", ".env.template", "env.example", "sample.env"):
            (folder / name).write_text("DATABASE_URL=postgres://app:changeme@localhost/app\nSECRET_KEY=changeme\n")


@pytest.mark.parametrize("command", MAKES_ENV)
def test_creating_an_env_file_that_does_not_exist_passes(kit: Any, project: Path, command: str) -> None:
    _templates(project)
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize("command", MAKES_ENV)
def test_replacing_an_env_file_with_values_is_refused_and_points_at_cp_n(kit: Any, project: Path, command: str) -> None:
    _templates(project)
    for folder in (project, project / "services" / "api"):
        for name in (".env", ".env.local", ".env.development.local", ".env.staging"):
            (folder / name).write_text("SECRET_KEY=the-real-one\n")
    result = kit.load(HOOK).run(kit.bash(command, project))
    assert kit.decision(result) == "deny", command
    reason = kit.reason(result)
    assert "rule protected-file" in reason and "cp -n" in reason and "already exists" in reason


def test_relative_targets_resolve_against_the_payloads_cwd(kit: Any, project: Path) -> None:
    _templates(project)
    api = project / "services" / "api"
    (project / ".env").write_text("SECRET_KEY=top-level\n")
    # The cwd is services/api, which has no .env: the top-level one is not what would be replaced.
    kit.expect_decision(HOOK, "cp .env.example .env", api, None)
    kit.expect_decision(HOOK, "cp .env.example .env", project, "deny", "protected-file")
    (api / ".env").write_text("SECRET_KEY=api\n")
    kit.expect_decision(HOOK, "cp .env.example .env", api, "deny", "protected-file")


def test_an_existing_file_without_values_loses_nothing(kit: Any, project: Path) -> None:
    _templates(project)
    (project / ".env").write_text("")  # made empty earlier, e.g. by touch
    kit.expect_decision(HOOK, "cp .env.sample .env", project, None)
    (project / ".env").write_text((project / ".env.sample").read_text())  # the template itself
    kit.expect_decision(HOOK, "cp .env.sample .env", project, None)
    (project / ".env").write_text("SECRET_KEY=changed\n")
    kit.expect_decision(HOOK, "cp .env.sample .env", project, "deny", "protected-file")


@pytest.mark.parametrize(
    "command",
    [
        # Content that is not the template: another env file, a download, a here-document, an append.
        "cat .env.production > .env",
        "cat .env.example .env.production > .env",
        "curl -fsSL https://config.example.org/env.example > .env",
        "cp ../other-app/.env .env",
        "cp deploy/prod.env .env",
        "printf 'SECRET_KEY=x\\n' > .env",
    ],
)
def test_other_sources_are_not_a_template_copy(kit: Any, project: Path, command: str) -> None:
    _templates(project)
    kit.expect_decision(HOOK, command, project, "deny", "protected-file")


def test_copy_only_where_missing_passes_even_when_it_exists(kit: Any, project: Path) -> None:
    _templates(project)
    (project / ".env").write_text("SECRET_KEY=keep\n")
    for command in (
        "cp -n .env.dist .env",
        "test -e .env || envsubst < .env.template > .env",
        "if [ ! -f .env ]; then install -m 600 .env.sample .env; fi",
    ):
        kit.expect_decision(HOOK, command, project, None)
