"""secrets_guard: inline code that parses a secret env file with a dotenv library and prints it.

``dotenv_values('.env')`` returns the file's values as ``open('.env').read()`` does; printed, they
are exposed (denied). Printing only the parsed names asks, as names-only filters do; a membership
test prints True or False; a template or a parse that is not printed shows nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/secrets_guard.py"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python3 -c \"import dotenv, json; print(json.dumps(dotenv.dotenv_values('deploy/.env.prod')))\"", "deny"),
        ("python -c \"from dotenv import dotenv_values as dv; c = dotenv_values('.env.local'); print(c)\"", "deny"),
        ("ruby -rdotenv -e 'pp Dotenv.parse(\".env.staging\")'", "deny"),
        ("python -c \"from dotenv import dotenv_values; print(sorted(dotenv_values('.env.local')))\"", "ask"),
        ("python -c \"from dotenv import dotenv_values; print(dotenv_values('.env.local').keys())\"", "ask"),
        ("python -c \"from dotenv import dotenv_values; print('SENTRY_DSN' in dotenv_values('.env.local'))\"", None),
        ("python -c \"from dotenv import dotenv_values; print(dotenv_values('.env.sample'))\"", None),
        ("python -c \"from dotenv import dotenv_values; cfg = dotenv_values('.env.local')\"", None),
    ],
)
def test_dotenv_parses(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision(HOOK, command, project, expected, "secret-file")
