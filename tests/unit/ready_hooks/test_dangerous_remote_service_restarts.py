"""dangerous_commands: stopping or restarting a system service with sudo on another machine over
ssh (``ssh box 'sudo systemctl restart api'``) is asked whatever the host is called; a deploy
user restarting its own app without sudo, a status query, or a local restart passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("ssh gpu-node-3 'sudo systemctl restart vllm'", "ask"),
    ('ssh -p 2222 admin@10.0.4.7 "sudo service nginx reload"', "ask"),
    ("ssh ops@db2 sudo systemctl stop postgresql", "ask"),
    ("ssh build@ci-runner-2 'sudo supervisorctl restart worker'", "ask"),
    ('ssh deploy@host "cd /srv/app && git pull && systemctl restart app"', None),
    ("ssh deploy@host 'systemctl --user restart app'", None),
    ("ssh box 'sudo systemctl status nginx'", None),
    ("sudo systemctl restart nginx", None),
    ("ssh ops@api.staging.example.net 'sudo systemctl restart api'", None),
    ("ssh dev-db 'sudo service postgresql restart'", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_remote_service_restarts(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "risky-tool")
