"""Project hook trust for the HTTP API and the server's start: the listing behind
``GET /hooks/trust``, trusting from ``POST /hooks/trust`` (the same store and rules as
``agent-server hooks trust``), and the one log line about hooks that wait."""

from __future__ import annotations

import logging
from typing import Any

from agent_server.hooks import HookRunner, HookTrust

__all__ = ["log_untrusted", "trust_ids", "trust_listing"]

log = logging.getLogger("agent_server.server")


def trust_listing(trust: HookTrust) -> dict[str, Any]:
    """Every project hook with its trust state and what changed (``TrustListing``)."""
    items = trust.items()
    return {
        "policy": trust.policy,
        "store": str(trust.store.path),
        "store_problem": trust.store.problem,
        "untrusted": sum(1 for i in items if not i.trusted),
        "items": [i.to_dict() for i in items],
    }


def trust_ids(trust: HookTrust, ids: list[str], all_items: bool) -> dict[str, Any]:
    """Trust ``ids`` (or all); the new listing with ``trusted``. Raises ``TrustError``."""
    done = trust.trust(ids, all_items=all_items)
    for item in done:
        log.warning("trusted project hook %s (%s %s): %s", item.id, item.source, item.location, item.command)
    return {**trust_listing(trust), "trusted": [i.id for i in done]}


def log_untrusted(runner: HookRunner) -> int:
    """Log once how many project hooks wait for trust; returns that number."""
    trust = runner.trust
    if trust.policy == "all":
        return 0
    problem = trust.check_store()
    if problem:
        log.error("%s", problem)
    waiting = [i for i in trust.items() if not i.trusted]
    if waiting:
        log.warning(
            "%d project hook(s) of %s are not trusted and will not run: review them with "
            "`agent-server hooks trust` (or in the chat page) and trust them by id",
            len(waiting),
            trust.project_dir,
        )
    return len(waiting)
