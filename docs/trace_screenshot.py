"""Make docs/images/trace-phoenix.png: one turn's trace in Arize Phoenix, run locally.

    pip install arize-phoenix          # a separate virtualenv is fine: it is large
    .venv/bin/python docs/trace_screenshot.py [--phoenix PATH/TO/phoenix] [--out FILE]

Starts Phoenix (``phoenix serve``) on free loopback ports with a throw-away working
directory, starts ``agent-server serve`` on an empty project (so the packaged default hooks
run) with ``OTEL_TRACES_EXPORTER=otlp`` pointing at Phoenix, sends one prompt that runs one
tool (``$ ls``) and a second that a shipped hook blocks (``$ rm -rf /``), stops the server
(which flushes its spans), then opens the first turn's trace in Phoenix with Debian's
chromium (Playwright) and takes the screenshot. Everything runs offline and is removed
afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
PROJECT_NAME = "agent-server"
TOKEN = "screenshot-token-0123"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(what: str, check: object, timeout: float) -> None:
    """Poll ``check()`` until it is true (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except (httpx.HTTPError, OSError):
            pass
        time.sleep(0.5)
    raise SystemExit(f"timed out after {timeout:g}s waiting for {what}")


@contextlib.contextmanager
def process(argv: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``argv`` for the duration of the block (its output in ``log``), then stop it."""
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            yield proc
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


def run_turns(tmp: Path, phoenix_url: str) -> None:
    """One agent-server session: a prompt with one tool call, then one a hook blocks."""
    project = tmp / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "AGENT_SERVER_"))}
    env.update(
        OTEL_TRACES_EXPORTER="otlp",
        OTEL_METRICS_EXPORTER="none",
        OTEL_EXPORTER_OTLP_ENDPOINT=phoenix_url,
        OTEL_RESOURCE_ATTRIBUTES=f"openinference.project.name={PROJECT_NAME}",
        OTEL_BSP_SCHEDULE_DELAY="200",
        AGENT_SERVER_DATA_DIR=str(tmp / "data"),
        AGENT_SERVER_TRACE_CONTENT="true",
        AGENT_SERVER_PERMISSION_MODE="bypassPermissions",
        AGENT_SERVER_API_TOKEN=TOKEN,
        AGENT_SERVER_READ_USER_SETTINGS="false",
        AGENT_SERVER_IDLE_NOTIFICATION_SECONDS="0",
    )
    argv = [sys.executable, "-m", "agent_server", "serve", "--port", "0", "--project", str(project)]
    log = tmp / "agent-server.log"
    with process(argv, env, log) as server:
        url = ""

        def listening() -> bool:
            nonlocal url
            found = re.search(r"listening on (http://\S+)", log.read_text(errors="replace"))
            if server.poll() is not None:
                raise SystemExit(f"agent-server exited:\n{log.read_text(errors='replace')}")
            url = found.group(1) if found else ""
            return bool(url)

        wait_until("agent-server to listen", listening, 60)
        headers = {"Authorization": f"Bearer {TOKEN}"}
        with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
            session = client.post("/sessions", json={}).raise_for_status().json()["session_id"]
            for text in ("$ ls", "$ rm -rf /"):
                turn = client.post(f"/sessions/{session}/messages", json={"text": text, "wait": True, "timeout": 50})
                print(f"{text!r}: {turn.raise_for_status().json().get('status')}")
            client.delete(f"/sessions/{session}").raise_for_status()
    print(f"agent-server stopped (log: {log.name})")


def screenshot(phoenix_url: str, out: Path) -> None:
    """Open the first turn's trace in Phoenix and save the screenshot."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(f"{phoenix_url}/projects")
            page.get_by_text(PROJECT_NAME, exact=True).first.click()
            # The traces table, oldest turn last: open the `$ ls` turn.
            row = page.get_by_role("row").filter(has_text="invoke_agent").last
            row.wait_for()
            row.get_by_text("invoke_agent").first.click()
            page.get_by_text("execute_tool Bash").first.wait_for()
            page.wait_for_timeout(1500)  # (the tree's icons and timings render)
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out))
        finally:
            browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--phoenix", default=shutil.which("phoenix") or "phoenix", help="the phoenix command")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "trace-phoenix.png")
    args = parser.parse_args()
    if not os.path.exists(CHROMIUM):
        return print(f"{CHROMIUM} is missing (apt-get install chromium)", file=sys.stderr) or 2
    with tempfile.TemporaryDirectory(prefix="trace-screenshot-") as name:
        tmp = Path(name)
        port, grpc = free_port(), free_port()
        phoenix_url = f"http://127.0.0.1:{port}"
        env = dict(
            os.environ,
            PHOENIX_WORKING_DIR=str(tmp / "phoenix"),
            PHOENIX_HOST="127.0.0.1",
            PHOENIX_PORT=str(port),
            PHOENIX_GRPC_PORT=str(grpc),
            PHOENIX_TELEMETRY_ENABLED="false",
        )
        with process([args.phoenix, "serve"], env, tmp / "phoenix.log"):
            wait_until("Phoenix to start", lambda: httpx.get(phoenix_url, timeout=5).status_code == 200, 180)
            run_turns(tmp, phoenix_url)
            screenshot(phoenix_url, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
