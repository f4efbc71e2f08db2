"""``GET /hooks/trust`` and ``POST /hooks/trust``: review and trust the project's hooks
from the chat page (the same store and rules as ``agent-server hooks trust``)."""

from __future__ import annotations

import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent_server.hooks import HookRunner, HookTrust, TrustError

from ._api import TrustRequest
from ._session import ApiError

__all__ = ["get_trust", "log_untrusted", "post_trust"]

log = logging.getLogger("agent_server.server")


def _trust(request: Request) -> HookTrust:
    manager = getattr(request.app.state, "manager", None)
    if manager is None:
        raise ApiError(503, "unavailable", "the server is not running (lifespan not started)")
    runner: HookRunner = manager.runner
    return runner.trust


def _listing(trust: HookTrust) -> dict[str, Any]:
    items = trust.items()
    return {
        "policy": trust.policy,
        "store": str(trust.store.path),
        "store_problem": trust.store.problem,
        "untrusted": sum(1 for i in items if not i.trusted),
        "items": [i.to_dict() for i in items],
    }


async def get_trust(request: Request) -> Response:
    """``GET /hooks/trust``: every project hook with its trust state and what changed."""
    return JSONResponse(_listing(_trust(request)))


async def post_trust(request: Request, body: TrustRequest) -> Response:
    """``POST /hooks/trust``: trust the given ids (or all); they run from the next event."""
    if not body.ids and not body.all:
        raise ApiError(422, "invalid", "give 'ids' (from GET /hooks/trust) or 'all': true")
    trust = _trust(request)
    try:
        done = trust.trust(body.ids, all_items=body.all)
    except TrustError as exc:
        raise ApiError(409, "trust_refused", str(exc)) from None
    for item in done:
        log.warning("trusted project hook %s (%s %s): %s", item.id, item.source, item.location, item.command)
    return JSONResponse({**_listing(trust), "trusted": [i.id for i in done]})


def log_untrusted(runner: HookRunner) -> int:
    """Log once how many project hooks wait for trust; returns that number."""
    trust = runner.trust
    if trust.policy == "all":
        return 0
    if trust.store.load().problem:
        log.error("%s", trust.store.problem)
    waiting = [i for i in trust.items() if not i.trusted]
    if waiting:
        log.warning(
            "%d project hook(s) of %s are not trusted and will not run: review them with "
            "`agent-server hooks trust` (or in the chat page) and trust them by id",
            len(waiting),
            trust.project_dir,
        )
    return len(waiting)
