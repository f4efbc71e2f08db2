"""HTTP hooks: HookRunner.fire() with one http hook against the same POST made bare with
httpx, in the same run.

    .venv/bin/python bench/http_hooks.py [--rounds N]

The endpoint is a Starlette app under uvicorn on 127.0.0.1 in the same event loop (so both
sides pay for it equally); it answers an empty 200. The bare side reuses one
``httpx.AsyncClient`` as the runner does. Rounds are interleaved; the script prints the
medians and the ratio fire/bare.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import anyio
import httpx
from _common import bash_payload, timed_fire, write_project
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agent_server.hooks import HookRunner
from agent_server.server.testing import serve_app

PAYLOAD = bash_payload()


async def ok(request: Request) -> Response:
    await request.body()
    return Response(b"")


async def main(rounds: int) -> None:
    app = Starlette(routes=[Route("/hook", ok, methods=["POST"])])
    async with serve_app(app) as base:
        url = f"{base}/hook"
        with tempfile.TemporaryDirectory() as tmp:
            root = write_project(Path(tmp), {"PreToolUse": [{"hooks": [{"type": "http", "url": url}]}]})
            body = json.dumps(PAYLOAD, separators=(",", ":")).encode()
            fire_ms: list[float] = []
            bare_ms: list[float] = []
            async with (
                HookRunner.from_project(root, user_settings=None, trust="all") as runner,
                httpx.AsyncClient(timeout=None) as client,
            ):
                for _ in range(20):  # warm both connections
                    await runner.fire("PreToolUse", PAYLOAD)
                    await client.post(url, content=body, headers={"Content-Type": "application/json"})
                for _ in range(rounds):
                    elapsed, outcome = await timed_fire(runner, PAYLOAD)
                    fire_ms.append(elapsed)
                    assert outcome.hooks[0].status.value == "ok", outcome.hooks[0].error
                    t0 = time.perf_counter()
                    r = await client.post(url, content=body, headers={"Content-Type": "application/json"})
                    bare_ms.append((time.perf_counter() - t0) * 1000)
                    assert r.status_code == 200
    fire, bare = statistics.median(fire_ms), statistics.median(bare_ms)
    print(f"rounds={rounds}  1 http hook: bare POST {bare:.3f} ms  fire() {fire:.3f} ms  ratio {fire / bare:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    anyio.run(main, parser.parse_args().rounds)
