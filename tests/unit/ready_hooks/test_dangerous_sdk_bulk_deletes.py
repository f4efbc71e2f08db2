"""dangerous_commands: interpreter code that deletes, one by one, every item an unfiltered
listing call returns (``[r.delete() for r in api.runs("team/x")]``, ``for o in
bucket.objects.all(): o.delete()``) is the API form of a DELETE without WHERE: asked. A listing
narrowed by keyword filters, or code that only counts or prints, passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None]] = [
    ("python3 -c \"import wandb; [s.delete() for s in wandb.Api().sweeps('lab/vision')]\"", "ask"),
    (
        "python -c \"from google.cloud import storage; [b.delete() for b in storage.Client().list_blobs('ckpts')]\"",
        "ask",
    ),
    ("python -c \"import comet_ml\nfor e in comet_ml.API().get_experiments('ws'): e.delete()\"", "ask"),
    (
        "python -c \"import wandb; [r.delete() for r in wandb.Api().runs('lab/vision', filters={'state': 'failed'})]\"",
        None,
    ),
    ("python -c \"import wandb; print(sum(1 for r in wandb.Api().runs('lab/vision')))\"", None),
    ("python -c \"import wandb; r = wandb.Api().run('lab/vision/abc123'); r.delete()\"", None),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c for c, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, "orm-wipe")
