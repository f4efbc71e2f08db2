"""The server's front door against a real server on loopback (httpx, as curl would):
the two attacks of issue 18, the token / cookie, Host, Origin and Content-Type rules."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from agent_server.server import SettingsInvalid
from agent_server.server._auth import FrontDoor, cookie_name
from tests.integration.server_harness import (
    TEST_TOKEN,
    make_project,
    read_lines,
    running_server,
    serve_process,
    server_settings,
)

pytestmark = pytest.mark.anyio


async def _sessions(h: object) -> int:
    client: httpx.AsyncClient = h.client  # type: ignore[attr-defined]
    r = await client.get("/sessions")
    assert r.status_code == 200, r.text
    return len(r.json()["sessions"])


async def test_a_cross_site_text_plain_post_cannot_create_a_session(tmp_path: Path) -> None:
    """Attack 1: a page on another origin POSTs text/plain (a CORS 'simple' request)."""
    project = make_project(tmp_path)
    async with running_server(project) as h:
        url = str(h.client.base_url)
        async with httpx.AsyncClient(base_url=url) as browser:  # no token: what a foreign page has
            r = await browser.post(
                "/sessions",
                content=b'{"permission_mode": "bypassPermissions"}',
                headers={"Content-Type": "text/plain", "Origin": "http://evil.example"},
            )
            assert r.status_code == 403, r.text
            assert r.json()["error"]["code"] == "forbidden_origin" and r.json()["error"]["header"] == "Origin"
            assert "http://evil.example" in r.json()["error"]["message"]
            # Even carrying the token, another origin cannot change state.
            r = await browser.post(
                "/sessions",
                json={},
                headers={"Origin": "http://evil.example", "Authorization": f"Bearer {TEST_TOKEN}"},
            )
            assert r.status_code == 403
            r = await browser.post(
                "/sessions", json={}, headers={"Origin": "null", "Authorization": f"Bearer {TEST_TOKEN}"}
            )
            assert r.status_code == 403
            # Same origin without the token: still refused.
            r = await browser.post("/sessions", json={}, headers={"Origin": url.rstrip("/")})
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert await _sessions(h) == 0
        # The page's own origin with the token works.
        r = await h.client.post("/sessions", json={}, headers={"Origin": url.rstrip("/")})
        assert r.status_code == 201


async def test_dns_rebinding_host_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    """Attack 2: a rebound name (Host: evil.example:PORT) reads the session id, then posts
    a shell command. Both steps are refused, with or without the token."""
    project = make_project(tmp_path)
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        port = h.client.base_url.port
        evil = {"Host": f"evil.example:{port}"}
        for headers in (evil, {**evil, "Authorization": f"Bearer {TEST_TOKEN}"}):
            r = await h.client.get("/sessions", headers=headers)
            assert r.status_code == 403, r.text
            error = r.json()["error"]
            assert error["code"] == "forbidden_host" and error["header"] == "Host"
            assert f"evil.example:{port}" in error["message"]
            r = await h.client.post(
                f"/sessions/{sid}/messages", json={"text": "$ echo pwned > PWNED.txt", "wait": True}, headers=headers
            )
            assert r.status_code == 403
            assert (await h.client.get("/health", headers=headers)).status_code == 403
        assert not (project.root / "PWNED.txt").exists()
        # Loopback names are the server's own.
        for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
            assert (await h.client.get("/sessions", headers={"Host": host})).status_code == 200
    # (the control: the same prompt through the front door does write the file)
    async with running_server(project, permission_mode="bypassPermissions") as h:
        sid = (await h.create())["session_id"]
        assert (await h.send(sid, "$ echo ok > PWNED.txt"))["status"] == "completed"
    assert (project.root / "PWNED.txt").read_text() == "ok\n"


async def test_token_cookie_and_bearer(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with running_server(project, token=None) as h:
        c = h.client
        for headers in ({}, {"Authorization": "Bearer forged-token-xxxxxxxx"}, {"Authorization": "Basic abc"}):
            assert (await c.get("/sessions", headers=headers)).status_code == 401
            assert (await c.get("/hooks", headers=headers)).status_code == 401
            assert (await c.get("/hooks/trust", headers=headers)).status_code == 401
            assert (await c.get("/metrics", headers=headers)).status_code == 401
        forged = {"Cookie": f"{cookie_name(TEST_TOKEN)}=forged; agent_server_token={TEST_TOKEN}"}
        assert (await c.get("/sessions", headers=forged)).status_code == 401
        # Public: the page (which then asks for the token), its files, health, the spec.
        page = await c.get("/chat")
        assert page.status_code == 200 and '"authRequired": true' in page.text
        assert (await c.get("/chat/chat.js")).status_code == 200
        assert (await c.get("/health")).status_code == 200
        # A wrong token in the URL is refused; the right one becomes an HttpOnly,
        # SameSite=Strict cookie, and the token leaves the URL.
        r = await c.get("/chat", params={"token": "wrong-token-123"})
        assert r.status_code == 401 and "token in this URL is wrong" in r.json()["error"]["message"]
        r = await c.get(h.chat_url(mode="plan"))
        assert r.status_code == 303 and r.headers["location"] == "/chat?mode=plan"
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        assert c.cookies.get(cookie_name(TEST_TOKEN)) == TEST_TOKEN
        page = await c.get("/chat")
        assert '"authRequired": false' in page.text
        sid = (await h.create())["session_id"]  # the cookie alone
        r = await c.get(f"/sessions/{sid}/events", params={"stream": "false"})
        assert r.status_code == 200
        c.cookies.clear()
        assert (await c.get("/sessions")).status_code == 401
        assert (await c.get("/sessions", headers={"Authorization": f"Bearer {TEST_TOKEN}"})).status_code == 200


async def test_bodies_must_be_json(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with running_server(project) as h:
        c = h.client
        for ctype, body in (
            ("application/x-www-form-urlencoded", b"permission_mode=bypassPermissions"),
            ("multipart/form-data; boundary=x", b"--x\r\n\r\n--x--"),
            ("text/plain", b"{}"),
        ):
            r = await c.post("/sessions", content=body, headers={"Content-Type": ctype})
            assert r.status_code == 415, r.text
            assert r.json()["error"]["header"] == "Content-Type" and ctype.split(";")[0] in r.json()["error"]["message"]
        r = await c.post("/sessions", content=b"{}")  # a body with no type at all
        assert r.status_code == 415
        assert (
            await c.post("/sessions", content=b"{}", headers={"Content-Type": "application/json; charset=utf-8"})
        ).status_code == 201
        assert await _sessions(h) == 1


async def test_a_random_secret_per_launch_and_auth_none_only_on_loopback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    project = make_project(tmp_path)
    tokens = []
    for _ in range(2):
        async with running_server(project, api_token=None) as h:
            assert h.token and len(h.token) >= 32
            assert (await h.client.get("/sessions")).status_code == 200  # (the harness sends it)
            tokens.append(h.token)
    assert tokens[0] != tokens[1]
    with pytest.raises(SettingsInvalid, match="AGENT_SERVER_AUTH=none is only allowed on a loopback host"):
        server_settings(project.root, host="0.0.0.0", auth="none")
    caplog.set_level(logging.WARNING, logger="agent_server.server")
    async with running_server(project, api_token=None, auth="none", token=None) as h:
        assert h.token is None
        assert (await h.client.post("/sessions", json={})).status_code == 201
        # The other doors stay shut.
        port = h.client.base_url.port
        assert (await h.client.get("/sessions", headers={"Host": f"evil.example:{port}"})).status_code == 403
        assert (await h.client.post("/sessions", json={}, headers={"Origin": "http://evil.example"})).status_code == 403
    assert any("AGENT_SERVER_AUTH=none" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


async def test_allowed_hosts_for_a_reverse_proxy(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with running_server(project, allowed_hosts=["agent.example.com"]) as h:
        proxied = {"Host": "agent.example.com", "Origin": "https://agent.example.com"}
        assert (await h.client.post("/sessions", json={}, headers=proxied)).status_code == 201
        other = {"Host": "other.example.com"}
        assert (await h.client.get("/sessions", headers=other)).status_code == 403


def test_which_host_names_are_the_servers_own(tmp_path: Path) -> None:
    def door(**values: Any) -> FrontDoor:
        return FrontDoor(app=None, settings=server_settings(tmp_path, **values), token=TEST_TOKEN)  # type: ignore[arg-type]

    loopback = door()
    for host in ("127.0.0.1:8765", "localhost:8765", "LOCALHOST", "[::1]:8765", "127.0.0.2", "app.localhost:80"):
        assert loopback.host_allowed(host), host
    for host in ("evil.example:8765", "192.168.1.5:8765", "127.0.0.1.evil.example", "", "localhost.evil.example"):
        assert not loopback.host_allowed(host), host
    # Bound to every interface: this machine's addresses (IP literals) and host name, never other names.
    wildcard = door(host="0.0.0.0")
    assert wildcard.host_allowed("192.168.1.5:8765") and wildcard.host_allowed("[fe80::1]:8765")
    assert wildcard.host_allowed(f"{socket.gethostname()}:8765")
    assert not wildcard.host_allowed("evil.example:8765")
    assert door(host="10.0.0.7").host_allowed("10.0.0.7:8765")
    assert not door(host="10.0.0.7").host_allowed("10.0.0.8:8765")
    assert door(allowed_hosts=["*"]).host_allowed("anything.example")


async def test_serve_prints_a_chat_url_that_signs_in(tmp_path: Path) -> None:
    """`agent-server serve` with no token configured: its first line's chat URL works,
    and it says how many project hooks wait for trust."""
    project = make_project(tmp_path)
    project.hook("SessionStart")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_SERVER_")}
    env["HOME"] = str(tmp_path)
    with serve_process("--project", str(project.root), env=env, cwd=tmp_path) as proc:
        lines = await read_lines(proc, lambda line: line.startswith("API clients"))
        first = lines[0]
        assert first.startswith("agent-server listening on http://127.0.0.1:"), first
        chat = first.split("(chat: ")[1].split(",")[0]
        token = chat.split("token=")[1]
        assert lines[-1] == f"API clients send 'Authorization: Bearer {token}' (new each launch)"
        assert "  1 project hook(s) are not trusted and will not run: review them in the chat page" in "\n".join(lines)
        async with httpx.AsyncClient(base_url=first.split()[3], follow_redirects=True) as c:
            assert (await c.post("/sessions", json={})).status_code == 401
            page = await c.get(chat)
            assert page.status_code == 200 and '"authRequired": false' in page.text
            r = await c.post("/sessions", json={})
            assert r.status_code == 201
            sid = r.json()["session_id"]
            events = (await c.get(f"/sessions/{sid}/events", params={"stream": "false"})).json()["events"]
            hook = next(e for e in events if e["type"] == "hook" and e["event"] == "SessionStart")
            assert hook["hooks"][0]["status"] == "skipped"
            assert hook["hooks"][0]["error"] == "untrusted: run 'agent-server hooks trust'"
        assert project.calls("SessionStart") == []
        proc.terminate()
        _, stderr = proc.communicate(timeout=15)
    # The server's log says it once, too.
    assert stderr.count("1 project hook(s) of") == 1 and "agent-server hooks trust" in stderr


async def test_trust_over_http(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GET/POST /hooks/trust`` (what the chat page's dialog uses), validated against the
    published schemas; refusals are 409/422 naming the problem; the front door's errors
    are the documented Error shape."""
    monkeypatch.delenv("AGENT_SERVER_TRUST_ALL_HOOKS")  # (this test is about trust)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    project = make_project(tmp_path)
    project.hook("UserPromptSubmit", name="audit")
    project.hook("Stop", name="done")
    async with running_server(project) as h:
        spec = (await h.client.get("/openapi.json")).json()

        def valid(body: Any, schema: dict[str, Any]) -> Any:
            jsonschema.Draft202012Validator({**schema, "components": spec["components"]}).validate(body)
            return body

        def response_schema(method: str, status: int) -> dict[str, Any]:
            schema: dict[str, Any] = spec["paths"]["/hooks/trust"][method]["responses"][str(status)]["content"]
            return schema["application/json"]["schema"]

        listing = valid((await h.client.get("/hooks/trust")).json(), response_schema("get", 200))
        assert listing["policy"] == "store" and listing["untrusted"] == 2
        by_command = {i["command"].rsplit("/", 1)[-1]: i for i in listing["items"]}
        assert set(by_command) == {"audit.py", "done.py"}
        assert all(i["reason"] == "untrusted: run 'agent-server hooks trust'" for i in listing["items"])
        hooks = (await h.client.get("/hooks")).json()["hooks"]
        assert hooks["Stop"][0]["untrusted"] == "untrusted: run 'agent-server hooks trust'"

        r = await h.client.post("/hooks/trust", json={})
        assert r.status_code == 422 and "'ids'" in r.json()["error"]["message"]
        r = await h.client.post("/hooks/trust", json={"ids": ["abcdef0123"]})
        assert r.status_code == 409 and "'abcdef0123' matches no configured hook" in r.json()["error"]["message"]
        valid(r.json(), response_schema("post", 409))

        r = await h.client.post("/hooks/trust", json={"ids": [by_command["done.py"]["id"]]})
        assert r.status_code == 200, r.text
        after = valid(r.json(), response_schema("post", 200))
        assert after["trusted"] == [by_command["done.py"]["id"]] and after["untrusted"] == 1
        sid = (await h.create(permission_mode="bypassPermissions"))["session_id"]
        assert (await h.send(sid, "hello"))["status"] == "completed"
        assert [c["hook"] for c in project.calls()] == ["done"]  # the untrusted audit never ran

        error_schema = {"$ref": "#/components/schemas/Error"}
        port = h.client.base_url.port
        for r in (
            await h.client.get("/hooks/trust", headers={"Host": f"evil.example:{port}"}),
            await h.client.post("/hooks/trust", json={"all": True}, headers={"Origin": "http://evil.example"}),
            await h.client.post("/hooks/trust", content=b"all=1", headers={"Content-Type": "text/plain"}),
        ):
            assert r.status_code in (403, 415)
            valid(r.json(), error_schema)
        assert (await h.client.get("/hooks/trust")).json()["untrusted"] == 1
