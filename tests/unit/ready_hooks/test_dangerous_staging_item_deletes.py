"""dangerous_commands: deleting one keyed item (``delete-item``, ``delete-object``) of a cloud
resource whose name says staging, dev or test is ordinary cleanup and passes; the same delete on
a production or unnamed resource is still asked, and deleting a whole staging table is denied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None, str]] = [
    ('aws dynamodb delete-item --table-name dev_users --key \'{"id":{"S":"u1"}}\'', None, ""),
    ('aws dynamodb delete-item --table-name qa-carts --key \'{"cart":{"S":"c9"}}\'', None, ""),
    ("aws s3api delete-object --bucket acme-staging-uploads --key tmp/a.png", None, ""),
    ('aws dynamodb delete-item --table-name prod-feature-flags --key \'{"pk":{"S":"x"}}\'', "ask", "risky-tool"),
    ('aws dynamodb delete-item --table-name users --key \'{"id":{"S":"u1"}}\'', "ask", "risky-tool"),
    ("aws dynamodb delete-table --table-name staging-flags", "deny", "hosted-data"),
]


@pytest.mark.parametrize(("command", "expected", "rule"), CASES, ids=[c for c, _, _ in CASES])
def test_staging_item_deletes(kit: Any, project: Path, command: str, expected: str | None, rule: str) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule)
