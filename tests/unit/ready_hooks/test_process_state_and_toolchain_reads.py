"""workspace_boundary: read-only looks at a process's state and at installed toolchains.

An on-call engineer reads what ``ps``/``top``/``lsof`` already show (``/proc/<pid>/status``,
``limits``, ``cgroup``, the command line, its sockets) and drivers' version files; the process's
environment, memory, open files and root stay outside (they hold secrets and any file). Installed
toolchains, board packages, editor extensions and browser builds in the home folder are
dependencies: read-only looks pass, writes and deletes do not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HOOK = "security/workspace_boundary.py"


@pytest.mark.parametrize(
    "command",
    [
        "grep -E 'VmRSS|VmHWM|Threads' /proc/31337/status",
        "cat /proc/2718/limits | grep 'open files'",
        "cat /proc/self/cgroup",
        "tr '\\0' ' ' < /proc/4242/cmdline",
        "head -20 /proc/net/tcp6",
        "cat /proc/driver/nvidia/version",
        "cat /proc/7/task/8/sched",
        "awk '{print $1}' /proc/buddyinfo",
        "cat /proc/driver/nvidia/gpus/0000:3b:00.0/information",
        "cat /run/nginx.pid && cat /var/run/postgresql/15-main.pid",
        "grep -A4 'Package: openssl' /var/lib/dpkg/status",
        "cat /run/systemd/resolve/stub-resolv.conf",
        "tail -n 80 ~/.pm2/logs/worker-error.log",
        "cat /sys/block/sda/queue/rotational",
        "cat /sys/kernel/mm/transparent_hugepage/defrag",
        "cat /sys/module/zfs/parameters/zfs_arc_max",
        "grep -r . /sys/bus/usb/devices/*/idVendor",
        "cat /opt/homebrew/etc/redis.conf | grep maxmemory",
        "tail /opt/conda/conda-meta/history",
        "tail -n 40 ~/.turbo/daemon/4f2a9c1e-turbo.log",
        "grep -i error ~/.cache/nx/d/daemon.log",
    ],
)
def test_process_state_reads_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "cat /proc/4242/environ",
        "strings /proc/4242/mem",
        "cat /proc/4242/fd/7",
        "cat /proc/4242/cwd/config/secrets.yml",
        "cat /proc/4242/root/etc/shadow",
        "cat /proc/4242/status/../environ",
        "echo -1000 > /proc/4242/oom_score_adj",
        "echo 4242 > /run/nginx.pid",
        "sudo rm /var/lib/dpkg/lock-frontend",
        "cat /run/secrets/api_token",
        "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled",
        "cat /sys/kernel/debug/tracing/trace_pipe",
        "echo 'worker_processes 64;' >> /opt/homebrew/etc/nginx/nginx.conf",
    ],
)
def test_process_secrets_and_writes_stay_outside(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")


@pytest.mark.parametrize(
    "command",
    [
        "cat ~/.platformio/platforms/atmelavr/platform.json",
        "grep -rn 'pinMode' ~/Arduino/libraries/Servo/src",
        "cat ~/.vscode/extensions/esbenp.prettier-vscode-10.1.0/package.json",
        "ls ~/.cache/ms-playwright && cat ~/.cache/ms-playwright/chromium-1091/INSTALLATION_COMPLETE",
        "rg -n 'def resolve' ~/.local/share/mise/installs/python/3.12.1/lib/python3.12/importlib",
        "head -30 ~/.cache/pre-commit/repoabc123/.pre-commit-hooks.yaml",
    ],
)
def test_installed_toolchain_reads_pass(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, None)


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> ~/.vscode/extensions/esbenp.prettier-vscode-10.1.0/dist/extension.js",
        "sed -i 's/a/b/' ~/.platformio/platforms/atmelavr/builder/main.py",
    ],
)
def test_installed_toolchain_writes_stay_outside(kit: Any, project: Path, command: str) -> None:
    kit.expect_decision(HOOK, command, project, "deny", "outside-project")
