"""dangerous_commands: ``rsync --delete`` onto another host's root, a login's home (``host:``,
``host:~``) or a top-level system folder deletes everything there the source lacks: denied. A
deploy into an application's own folder on the host, or a sync without --delete, passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("rsync -a --delete build/ ops@10.0.0.5:~", "deny"),
    ("rsync -rlt --delete-after site/ web1:", "deny"),
    ("rsync -a --del out/ root@bastion:/etc/", "deny"),
    ("rsync -az --delete public/ admin@host.example.org:/home/admin/", "deny"),
    ('rsync -a --delete -e "ssh -p 2222" dist/ me@box:/usr/', "deny"),
    ("rsync -az --delete-before ./ pi@raspberrypi.local:/", "deny"),
    ("rsync -a --delete out/ host:/srv/app/", None),
    ("rsync -a --delete out/ host:backups/app/", None),
    ("rsync -a --delete out/ host:~/apps/site/", None),
    ("rsync -a out/ host:/", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_remote_mirror_roots(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "rsync")
