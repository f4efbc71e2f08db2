"""The front door and hook trust in a real browser (Debian's chromium via Playwright):
a page from another origin cannot create a session or send a prompt, a rebound host
name is refused, and the chat page's "review and trust" dialog trusts project hooks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from agent_server.server.testing import serve_app
from tests.e2e.test_chat import ARGS, CHROMIUM, reap_browser_orphans  # noqa: F401 (the fixture, used by name)
from tests.integration.server_harness import make_project, running_server

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.usefixtures("reap_browser_orphans"),
    pytest.mark.e2e,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (apt-get install chromium); browser tests need it"
    ),
]

# Everything a foreign page can try without the user's help: CORS "simple" requests
# (text/plain, no-cors, with credentials), a JSON request (needs a preflight), and a
# text/plain form posted into a frame.
_EVIL_PAGE = """<!doctype html><html><body>
<iframe name="sink"></iframe>
<form id="f" method="POST" target="sink" enctype="text/plain" action="%(target)s/sessions/%(sid)s/messages">
<input name='{"text": "$ echo pwned-by-form > PWNED-form.txt", "x": "' value='"}'>
</form>
<script>
const target = %(target_json)s, sid = %(sid_json)s;
window.__results = [];
async function attempt(label, url, init) {
  try {
    const r = await fetch(url, init);
    window.__results.push([label, r.type, r.status]);
  } catch (e) { window.__results.push([label, "error", String(e)]); }
}
(async () => {
  await attempt("create-simple", target + "/sessions", {method: "POST", mode: "no-cors", credentials: "include",
    headers: {"Content-Type": "text/plain"}, body: JSON.stringify({permission_mode: "bypassPermissions"})});
  await attempt("create-json", target + "/sessions", {method: "POST", credentials: "include",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({permission_mode: "bypassPermissions"})});
  await attempt("prompt-simple", target + "/sessions/" + sid + "/messages", {method: "POST", mode: "no-cors",
    credentials: "include", headers: {"Content-Type": "text/plain"},
    body: JSON.stringify({text: "$ echo pwned > PWNED.txt"})});
  await attempt("read-sessions", target + "/sessions", {credentials: "include"});
  const frame = document.querySelector("iframe");
  await new Promise((resolve) => { frame.onload = resolve; document.getElementById("f").submit(); });
  window.__done = true;
})();
</script></body></html>"""


async def test_a_page_from_another_origin_cannot_create_a_session_or_send_a_prompt(
    tmp_path: Path,
) -> None:
    playwright_api = pytest.importorskip("playwright.async_api")
    project = make_project(tmp_path)
    project.hook("UserPromptSubmit")
    async with running_server(project, permission_mode="bypassPermissions") as h:
        target = str(h.client.base_url).rstrip("/")
        port = h.client.base_url.port
        sid = (await h.create())["session_id"]

        async def evil(request: Request) -> HTMLResponse:
            values = {"target": target, "sid": sid, "target_json": json.dumps(target), "sid_json": json.dumps(sid)}
            return HTMLResponse(_EVIL_PAGE % values)

        evil_app = Starlette(routes=[Route("/", evil)])
        async with serve_app(evil_app) as evil_url, playwright_api.async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=[*ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"],
            )
            try:
                context = await browser.new_context()
                page = await context.new_page()
                page.set_default_timeout(15_000)
                # Without the token the page asks for it; signing in sets the cookie.
                await page.goto(target + "/chat")
                await page.get_by_test_id("session-status").filter(has_text="token needed").wait_for()
                await page.get_by_test_id("token-input").fill(str(h.token))
                await page.get_by_role("button", name="Sign in").click()
                await page.get_by_test_id("session-status").filter(has_text="idle").wait_for()
                assert page.url == target + "/chat"  # (the token is not left in the address bar)
                assert any(c["name"].startswith("agent_server_token_") for c in await context.cookies())

                # Then visits the attacker's page (another origin: another port).
                await page.goto(evil_url.replace("127.0.0.1", "localhost"))
                await page.wait_for_function("window.__done === true")
                results: list[Any] = await page.evaluate("window.__results")
                by_label = {r[0]: r for r in results}
                assert by_label["create-json"][1] == "error"  # the preflight is refused
                assert by_label["read-sessions"][1] == "error"  # no CORS: nothing readable

                sessions = (await h.client.get("/sessions")).json()["sessions"]
                assert len(sessions) == 2  # the test's and the chat page's own; none from the attacker
                events = (await h.client.get(f"/sessions/{sid}/events", params={"stream": "false"})).json()["events"]
                assert not [e for e in events if e["type"] == "turn_started"]

                # DNS rebinding: the attacker's name now points at the server.
                response = await page.goto(f"http://evil.example:{port}/sessions")
                assert response is not None and response.status == 403
                assert "forbidden_host" in await page.content()
            finally:
                await browser.close()

    assert not (project.root / "PWNED.txt").exists() and not (project.root / "PWNED-form.txt").exists()
    assert project.calls("UserPromptSubmit") == []


async def test_the_chat_page_reviews_and_trusts_project_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    playwright_api = pytest.importorskip("playwright.async_api")
    monkeypatch.delenv("AGENT_SERVER_TRUST_ALL_HOOKS")  # (this test is about trust)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    project = make_project(tmp_path)
    project.hook("SessionStart", name="greet")
    project.hook("UserPromptSubmit", name="audit")
    async with running_server(project, env="development") as h, playwright_api.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = await browser.new_page()
            page.set_default_timeout(15_000)
            await page.goto(h.chat_url())
            await page.get_by_test_id("trust-bar").wait_for(state="visible")
            assert await page.get_by_test_id("trust-count").inner_text() == "2"
            skipped = page.locator('[data-testid="hook-run"][data-status="skipped"]')
            await skipped.first.wait_for()  # SessionStart: shown, not run
            assert project.calls() == []

            await page.get_by_test_id("trust-review").click()
            await page.get_by_test_id("trust-dialog").wait_for(state="visible")
            items = page.get_by_test_id("trust-item")
            assert await items.count() == 2
            commands = await page.get_by_test_id("trust-command").all_inner_texts()
            assert any("greet.py" in c for c in commands) and any("audit.py" in c for c in commands)
            assert "never trusted" in await items.first.inner_text()
            assert ".claude/settings.json" in await items.first.inner_text()
            # Trust the SessionStart hook only.
            greet = items.filter(has_text="greet.py")
            await greet.locator("input[type=checkbox]").check()
            await page.get_by_test_id("trust-selected").click()
            await page.get_by_test_id("system-message").filter(has_text="Trusted 1 project hook").wait_for()
            await page.wait_for_function("document.querySelector('[data-testid=trust-count]').textContent === '1'")

            await page.get_by_test_id("new-session").click()
            await page.wait_for_function("(window.__hooksFired || []).filter((e) => e === 'SessionStart').length >= 2")
            await page.get_by_test_id("chat-input").fill("hello")
            await page.get_by_test_id("send-button").click()
            await page.wait_for_function("window.__events.some((e) => e.type === 'turn_ended')")
            assert [c["hook"] for c in project.calls()] == ["greet"]  # audit still waits

            # Editing the trusted script asks again, saying what changed.
            script = project.root / ".claude" / "hooks" / "greet.py"
            script.write_text(script.read_text() + "\n# edited\n")
            await page.reload()
            await page.get_by_test_id("trust-bar").wait_for(state="visible")
            assert await page.get_by_test_id("trust-count").inner_text() == "2"
            await page.get_by_test_id("trust-review").click()
            change = page.get_by_test_id("trust-change").filter(has_text="greet.py: content changed")
            await change.wait_for()
        finally:
            await browser.close()
