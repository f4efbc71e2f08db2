"""dangerous_commands: a shell whose script is a process substitution (``bash <(…)``, ``source
<(…)``) runs what the producer prints — judged like the same text piped into the shell: known
text is walked (its dangers are found), text picked out of a file is asked, a download is
denied. A shell whose input is only a variable the line never set (``echo "$X" | sh``) runs code
the call does not show: asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CASES: list[tuple[str, str | None, str]] = [
    # The producer's text is known: its commands are judged.
    ("sh <(printf '%s\\n' 'rm -rf ~/')", "deny", "rm"),
    ("zsh <(echo 'mkfs.ext4 /dev/nvme0n1')", "deny", "devices"),
    (". <(echo 'rm -rf /usr')", "deny", "rm"),
    ("bash <(echo 'npm ci && npm test')", None, ""),
    ("bash <(printf 'echo %s\\n' ready)", None, ""),
    # Text picked out of a file, then run: nobody has read it.
    ("bash <(grep '^run:' notes/ops.txt | cut -d: -f2-)", "ask", "hidden-code"),
    ("sh <(awk '/^    /' docs/INSTALL.md)", "ask", "hidden-code"),
    # A whole script through cat runs like the script itself; completions loaded as usual.
    ("bash <(cat tools/bootstrap.sh)", None, ""),
    ("source <(helm completion bash)", None, ""),
    # Only a variable set elsewhere, fed to a shell.
    ('printf "%s\\n" "$RELEASE_STEPS" | bash', "ask", "hidden-code"),
    ('zsh <<< "$SNIPPET"', "ask", "hidden-code"),
    ('echo "${JOB_CMD}" | sh -s', "ask", "hidden-code"),
    ("STEP='make lint'; echo \"$STEP\" | sh", None, ""),
    ('echo "$GREETING" | tr a-z A-Z', None, ""),
]


@pytest.mark.parametrize(("command", "expected", "rule"), CASES, ids=[c for c, _, _ in CASES])
def test_dangerous_commands_cases(kit: Any, project: Path, command: str, expected: str | None, rule: str) -> None:
    kit.expect_decision("security/dangerous_commands.py", command, project, expected, rule)
