"""workspace_boundary: hardening one named system file is not a write outside the project.

Taking access away from a file under /etc (others lose everything, the group at most reads, the
owner keeps read; or ownership given back to root) leaves its content and the service that uses it
as they were: ``sudo chmod 0440 /etc/sudoers.d/deploy``, ``chmod o-rwx /etc/cron.d/job``. Loosening
modes, set-id bits, handing a file to another user, recursive changes and locking the owner out
stay refused. A configuration check may cluster its option (``visudo -cf file``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.mark.parametrize(
    "command",
    [
        "sudo chmod 0440 /etc/sudoers.d/50-ci && sudo visudo -cf /etc/sudoers.d/50-ci",
        "sudo chown root:root /etc/sudoers.d/50-ci",
        "sudo chmod 600 /etc/ssh/ssh_host_rsa_key",
        "sudo chmod o-rwx /etc/cron.d/nightly-backup",
        "sudo chmod go-w /etc/crontab",
        "chmod 640 /etc/nginx/htpasswd",
        "sudo chown root /etc/logrotate.d/app",
    ],
)
def test_hardening_a_named_system_file_passes(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "sudo chmod 0664 /etc/sudoers.d/50-ci",  # group write
        "sudo chmod 644 /etc/ssh/ssh_host_rsa_key",  # others read a private key
        "sudo chmod 2750 /etc/app/bin",  # set-group-id
        "sudo chmod o+r /etc/ssl/private/site.key",
        "sudo chown deploy:deploy /etc/sudoers.d/50-ci",  # handed to another user
        "sudo chmod -R 600 /etc/ssh",  # recursive
        "sudo chown -R root:root /etc",
        "sudo chmod 000 /etc/passwd",  # the owner locked out: every login breaks
        "sudo chmod 600 /usr/local/bin/tool",  # not system configuration
    ],
)
def test_loosening_or_broad_changes_stay_refused(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")
