"""workspace_boundary: a server's configuration check reads the system configuration only.

``sudo haproxy -c -f /etc/haproxy/haproxy.cfg``, ``nginx -t``, ``promtool check config …`` parse
the configuration, report errors and exit: an SRE's first step before a reload. Starting,
reloading or signalling the server with the same file is not a check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.mark.parametrize(
    "command",
    [
        "sudo nginx -t -c /etc/nginx/nginx.conf",
        "sudo apache2ctl -f /etc/apache2/apache2.conf configtest",
        "sudo sshd -t -f /etc/ssh/sshd_config",
        "promtool check rules /etc/prometheus/rules/alerts.yml",
        "caddy validate --config /etc/caddy/Caddyfile",
        "sudo nft -c -f /etc/nftables.conf",
        "named-checkconf /etc/bind/named.conf",
    ],
)
def test_configuration_checks_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "sudo nginx -c /etc/nginx/nginx.conf",
        "sudo haproxy -f /etc/haproxy/haproxy.cfg -sf 1234",
        "sudo nft -f /etc/nftables.conf",
        "caddy run --config /etc/caddy/Caddyfile",
    ],
)
def test_starting_or_loading_is_not_a_check(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")
