"""dangerous_commands: every key matching a pattern listed by ``--scan``/``KEYS`` and fed to
``xargs redis-cli DEL`` is asked when the pattern names live state (sessions, tokens, queued jobs,
carts, users) that nothing rebuilds; cache, rate-limit, lock and test keys pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("redis-cli --scan --pattern 'sess:*' | xargs -r redis-cli UNLINK", "ask"),
    ("redis-cli -n 2 --scan --pattern 'bull:emails:*' | xargs redis-cli -n 2 del", "ask"),
    ("redis-cli KEYS 'user:*' | xargs redis-cli del", "ask"),
    ('valkey-cli --scan --pattern "auth:token:*" | xargs valkey-cli unlink', "ask"),
    ("redis-cli --scan --pattern 'cart:*' | xargs -L 500 redis-cli DEL", "ask"),
    ("redis-cli --scan --pattern 'ratelimit:*' | xargs redis-cli DEL", None),
    ("redis-cli --scan --pattern 'cache:user:*' | xargs redis-cli DEL", None),
    ("redis-cli --scan --pattern 'lock:session-sweeper:*' | xargs redis-cli DEL", None),
    ("redis-cli --scan --pattern 'test:session:*' | xargs redis-cli DEL", None),
    ("redis-cli --scan --pattern 'session:*' | wc -l", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_live_key_patterns(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "sql")
