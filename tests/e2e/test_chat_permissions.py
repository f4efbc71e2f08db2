"""The chat page shows which settings permission rule decided a tool call."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.test_chat import ARGS, CHROMIUM, reap_browser_orphans
from tests.integration.server_harness import make_project, running_server

__all__ = ["reap_browser_orphans"]  # the fixture, used by name below

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.e2e,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium); browser tests need it"
    ),
]


async def test_the_timeline_names_the_deciding_rule(tmp_path: Path, reap_browser_orphans: None) -> None:
    playwright_api = pytest.importorskip("playwright.async_api")
    project = make_project(tmp_path)
    project.extra["permissions"] = {"deny": ["Bash(touch *)"]}
    project.write()
    async with running_server(project, env="development") as h, playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = await browser.new_page()
            page.set_default_timeout(15_000)
            await page.goto(h.chat_url(mode="bypassPermissions"))  # the URL `serve` prints
            await page.wait_for_function("() => (window.__events || []).some((e) => e.type === 'session_started')")
            await page.get_by_test_id("chat-input").fill("$ touch nope")
            await page.get_by_test_id("send-button").click()
            row = page.get_by_test_id("permission-row")
            await row.wait_for()
            assert await row.get_attribute("data-behavior") == "deny"
            assert "permission · Bash → deny" in await row.inner_text()
            rule = await page.get_by_test_id("permission-rule").inner_text()
            assert rule == "rule Bash(touch *) (.claude/settings.json permissions.deny[0])"
            result = page.get_by_test_id("blocked-tool-result")
            await result.wait_for()
            assert await result.inner_text() == "Permission to use Bash with command touch nope has been denied."
        finally:
            await browser.close()
    assert not (project.root / "nope").exists()
