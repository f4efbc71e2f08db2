"""workspace_boundary: ``xargs rm`` fed by a listing through line filters deletes what is listed.

``ls -d ~/* | grep -v Projects | xargs rm -rf`` deletes most of the home folder: a stage that only
selects or reorders lines (grep without file operands, head, tail, sort, uniq) passes the listed
paths on unchanged, so the listing it filters is judged as deleted, as without the filter. A
listing inside the project stays project work; a filter that rewrites or counts is not followed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.mark.parametrize(
    "command",
    [
        "ls -d ~/* | grep -v Documents | xargs rm -rf",
        "find ~ -maxdepth 1 -mindepth 1 | egrep -v 'dotfiles|work' | xargs rm -rf",
        "ls -d /opt/* | grep -v keep | xargs sudo rm -rf",
        "find .. -maxdepth 1 -type d | grep -v myproj | head -5 | xargs rm -rf",
        "ls -d ~/.local/share/* | sort | tail -n 3 | xargs rm -rf",
        "fd . /srv/www | rg -v index | xargs -0 rm -f",
    ],
)
def test_filtered_listing_outside_is_a_delete_outside(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")


@pytest.mark.parametrize(
    "command",
    [
        "ls *.log | sort | head -n 3 | xargs rm",
        "find build -name '*.o' | grep -v keep | xargs rm -f",
        "ls -d ~/* | grep -v Projects | xargs du -sh",  # sizes, not a delete
        "ls ~/Downloads | grep -c pdf",
    ],
)
def test_filtered_listing_inside_or_not_deleting_passes(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)
