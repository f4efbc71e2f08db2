"""What the benchmarks share: the payload they fire, throwaway projects, a timed fire,
spreads and percentiles, and a server-side session on the anthropic backend.

Each bench imports it as ``_common``: ``.venv/bin/python bench/x.py`` puts ``bench/`` first
on ``sys.path``. Importing it also puts the repository root there, so a bench runs from a
checkout without an install.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_server.hooks import EventOutcome, HookRunner  # noqa: E402
from agent_server.server import SessionManager, load_settings  # noqa: E402
from agent_server.server._hooks_setup import build_runner  # noqa: E402
from agent_server.server.backends import make_backend  # noqa: E402


def bash_payload(command: str = "ls") -> dict[str, Any]:
    """A PreToolUse payload for a Bash call running ``command``."""
    return {
        "session_id": "bench",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_bench",
    }


def write_project(root: Path, hooks: dict[str, Any], **extra: Any) -> Path:
    """Make ``root`` a project whose ``.claude/settings.json`` holds ``hooks`` (and ``extra``
    top-level keys); returns ``root``."""
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    settings = {"hooks": hooks, **extra} if hooks or extra else {}
    (root / ".claude" / "settings.json").write_text(json.dumps(settings))
    return root


async def timed_fire(runner: HookRunner, payload: dict[str, Any]) -> tuple[float, EventOutcome]:
    """Fire PreToolUse once; its wall time in ms and its outcome."""
    t0 = time.perf_counter()
    outcome = await runner.fire("PreToolUse", payload)
    return (time.perf_counter() - t0) * 1000.0, outcome


def check_allowed(outcome: EventOutcome, what: str = "hook") -> None:
    """Stop the bench unless the first hook ran ok and the decision is ``allow``."""
    hook = outcome.hooks[0]
    if hook.status.value != "ok" or outcome.decision != "allow":
        raise SystemExit(f"{what} failed: {hook.to_dict()}")


def percentile(values: list[float], p: int) -> float:
    """The ``p``-th percentile (1-99) of ``values``; the 50th is the median."""
    if p == 50:
        return statistics.median(values)
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def spread(values: list[float]) -> dict[str, float]:
    """Median and the 10th/90th/95th percentiles, rounded to µs."""
    return {
        name: round(percentile(values, p), 3) for name, p in (("median", 50), ("p10", 10), ("p90", 90), ("p95", 95))
    }


def paired_diffs(values: list[float], baseline: list[float]) -> list[float]:
    """Each round's value minus the same round's baseline."""
    return [a - b for a, b in zip(values, baseline, strict=True)]


def rotated(items: tuple[Any, ...], i: int) -> tuple[Any, ...]:
    """``items`` started at round ``i``'s place, so no item always runs first."""
    k = i % len(items)
    return items[k:] + items[:k]


async def open_session(
    stack: AsyncExitStack, project: Path, api_url: str, order: str
) -> tuple[SessionManager, str, HookRunner]:
    """A session manager as ``agent-server serve`` builds it (anthropic backend at ``api_url``,
    no user settings, the project's hooks trusted: the bench wrote them), kept open by
    ``stack``; returns it, a new session's id and the hook runner."""
    settings = load_settings(
        project_dir=project,
        backend="anthropic",
        anthropic_base_url=api_url,
        anthropic_api_key="bench-key",
        permission_mode="bypassPermissions",
        read_user_settings=False,
        idle_notification_seconds=0,
        default_settings_fallback=False,
        hooks_order=order,
        trust_all_hooks=True,
        _env_file=None,
    )
    runner = build_runner(settings)
    backend = make_backend(settings)
    stack.push_async_callback(backend.aclose)
    await stack.enter_async_context(runner)
    manager = await stack.enter_async_context(SessionManager(settings, runner, backend))
    session = await manager.create()
    return manager, session.id, runner
