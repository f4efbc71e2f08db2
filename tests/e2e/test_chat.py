"""The chat page in a real browser: Debian's chromium driven by Playwright (never a
downloaded browser) against a real server with real hook scripts."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.integration.server_harness import make_project, running_server

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.e2e,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium); browser tests need it"
    ),
]


@pytest.fixture
def reap_browser_orphans() -> Iterator[None]:
    """The hook runner makes this process a child subreaper, so chromium's double-forked
    helpers become our children when the browser exits: reap them (bounded)."""
    yield
    me = psutil.Process()
    for child in me.children():
        try:
            if not child.name().startswith("chrom"):
                continue
            try:
                child.wait(timeout=3)
            except psutil.TimeoutExpired:
                child.kill()
                child.wait(timeout=3)
        except psutil.Error:
            continue
        with contextlib.suppress(ChildProcessError):
            os.waitpid(child.pid, os.WNOHANG)


async def test_chat_page_hooks_block_approval_and_close(tmp_path: Path, reap_browser_orphans: None) -> None:
    playwright_api = pytest.importorskip("playwright.async_api")
    project = make_project(tmp_path)
    project.hook(
        "PreToolUse",
        """
if "rm " in payload["tool_input"].get("command", ""):
    sys.stderr.write("rm is blocked in this project"); sys.exit(2)""",
        matcher="Bash",
    )
    project.hook(
        "PreToolUse",
        """
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "ask", "permissionDecisionReason": "writing needs approval"}}))""",
        matcher="Write",
    )
    project.hook("Stop")
    project.hook("SessionEnd")

    async with running_server(project, env="development") as h, playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = await browser.new_page()
            page.set_default_timeout(15_000)
            await page.goto(h.chat_url(mode="bypassPermissions"))  # the URL `serve` prints
            fired = "(name) => (window.__hooksFired || []).includes(name)"
            ended = "(n) => window.__events.filter((e) => e.type === 'turn_ended').length >= n"
            await page.wait_for_function(fired, arg="SessionStart")

            # A tool call: PreToolUse and PostToolUse fire and the result is shown.
            await page.get_by_test_id("chat-input").fill("$ echo hello-e2e")
            await page.get_by_test_id("send-button").click()
            await page.get_by_test_id("tool-result").filter(has_text="hello-e2e").wait_for()
            await page.wait_for_function(fired, arg="PostToolUse")
            await page.wait_for_function(ended, arg=1)
            fired_now = await page.evaluate("window.__hooksFired")
            assert fired_now.index("PreToolUse") < fired_now.index("PostToolUse")
            assert await page.locator('[data-testid="hook-row"][data-event="PreToolUse"]').count() == 1
            # The timeline names each hook by its short name (the script's), not the command line.
            run = page.locator('[data-testid="hook-row"][data-event="PreToolUse"] [data-testid="hook-run"]').first
            assert (await run.inner_text()).startswith("ok · PreToolUse-1")

            # A blocked tool: its reason is shown in the timeline and as the tool result.
            await page.get_by_test_id("chat-input").fill("$ rm -rf build")
            await page.get_by_test_id("send-button").click()
            reason = page.get_by_test_id("blocked-reason").filter(has_text="rm is blocked in this project")
            await reason.wait_for()
            blocked = page.get_by_test_id("blocked-tool-result")
            await blocked.wait_for()
            assert (await blocked.inner_text()).startswith("PreToolUse:Bash hook error: [")
            await page.wait_for_function(ended, arg=2)

            # An `ask`: the approval dialog appears; approving runs the tool.
            await page.get_by_test_id("chat-input").fill("write e2e.txt\nfrom the browser\nEOF")
            await page.get_by_test_id("send-button").click()
            dialog = page.get_by_test_id("approval-dialog")
            await dialog.wait_for(state="visible")
            assert await page.get_by_test_id("approval-reason").inner_text() == "writing needs approval"
            assert await page.get_by_test_id("approval-tool").inner_text() == "Write"
            await page.get_by_test_id("approve-button").click()
            await page.get_by_test_id("tool-result").filter(has_text="File created successfully").wait_for()
            assert (project.root / "e2e.txt").read_text() == "from the browser\n"

            # Closing the session: SessionEnd fires (Stop fired at the end of each turn).
            await page.wait_for_function(ended, arg=3)
            stops_before = len(project.payloads("Stop"))
            await page.get_by_test_id("close-session").click()
            await page.wait_for_function(fired, arg="SessionEnd")
            await page.get_by_test_id("session-status").filter(has_text="closed").wait_for()
            fired_now = await page.evaluate("window.__hooksFired")
            assert fired_now.count("Stop") == 3 == stops_before
            assert fired_now[-1] == "SessionEnd"
        finally:
            await browser.close()
    assert len(project.payloads("SessionEnd")) == 1
