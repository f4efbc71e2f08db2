"""Process-wide tuning that only the process owner should apply (``agent-server serve``,
the benchmark) — never a library import."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import warnings

__all__ = ["install_pidfd_child_watcher"]

log = logging.getLogger("agent_server.server")


def install_pidfd_child_watcher() -> bool:
    """Wait for subprocesses with pidfds instead of one thread each (Python 3.11).

    asyncio on 3.11 starts a thread per subprocess to wait for it; every hook and Bash
    call pays for that. On Linux ≥ 5.3 a pidfd watcher avoids it (3.12+ does this by
    itself). Call from inside the running event loop; returns whether it is in effect.
    """
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        return sys.version_info >= (3, 12)
    try:
        fd = os.pidfd_open(os.getpid())
        os.close(fd)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            policy = asyncio.get_event_loop_policy()
            watcher = asyncio.PidfdChildWatcher()
            watcher.attach_loop(asyncio.get_running_loop())
            policy.set_child_watcher(watcher)
    except (OSError, NotImplementedError, AttributeError, RuntimeError) as exc:
        log.debug("pidfd child watcher unavailable: %s", exc)
        return False
    return True
