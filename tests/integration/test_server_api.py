"""HTTP API behaviour: errors as JSON naming the field, auth, OpenAPI, settings, the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agent_server.server import (
    BusyError,
    ClosedError,
    InvalidRequestError,
    NotFoundError,
    SessionError,
    SettingsInvalid,
    UnavailableError,
    create_app,
    load_settings,
)
from agent_server.server.backends import ModelBackend, ModelReply, ModelRequest
from agent_server.server.backends.scripted import ScriptedBackend
from agent_server.server.testing import serve_app
from tests.integration.server_harness import (
    CLI,
    make_project,
    read_lines,
    running_server,
    serve_process,
    server_settings,
)

pytestmark = pytest.mark.anyio


async def test_errors_are_json_and_name_the_problem(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with running_server(project) as h:
        c = h.client
        r = await c.get("/nope")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        r = await c.post("/sessions", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "not valid JSON" in r.json()["error"]["message"]
        r = await c.post("/sessions", json={"permission_mode": "yolo"})
        assert r.status_code == 422
        assert "permission_mode" in r.json()["error"]["message"] and '"yolo"' in r.json()["error"]["message"]
        r = await c.post("/sessions", json={"bogus": 1})
        assert r.status_code == 422 and "bogus" in r.json()["error"]["message"]
        r = await c.get("/sessions/does-not-exist")
        assert r.status_code == 404 and "does-not-exist" in r.json()["error"]["message"]
        sid = (await h.create())["session_id"]
        r = await c.post(f"/sessions/{sid}/messages", json={"text": ""})
        assert r.status_code == 422 and r.json()["error"]["message"].startswith("text:")
        r = await c.post(f"/sessions/{sid}/approvals/xyz", json={"decision": "maybe"})
        assert r.status_code == 422 and "decision" in r.json()["error"]["message"]
        r = await c.post(f"/sessions/{sid}/approvals/xyz", json={"decision": "allow"})
        assert r.status_code == 404 and "xyz" in r.json()["error"]["message"]
        r = await c.patch(f"/sessions/{sid}", json={"permission_mode": "plan"})
        assert r.status_code == 200 and r.json()["permission_mode"] == "plan"
        r = await c.delete(f"/sessions/{sid}", params={"reason": "bored"})
        assert r.status_code == 422 and "reason" in r.json()["error"]["message"]
        r = await c.get(f"/sessions/{sid}/events", params={"since": "abc", "stream": "false"})
        assert r.status_code == 422
        # Busy: a second prompt while the first waits for approval.
        await h.client.patch(f"/sessions/{sid}", json={"permission_mode": "default"})
        assert (await h.send(sid, "$ echo x"))["status"] == "awaiting_approval"
        r = await c.post(f"/sessions/{sid}/messages", json={"text": "again"})
        assert r.status_code == 409 and r.json()["error"]["code"] == "busy"
        await h.close(sid, "prompt_input_exit")
        r = await c.post(f"/sessions/{sid}/messages", json={"text": "late"})
        assert r.status_code == 404
        closed = (await c.get(f"/sessions/{sid}")).json()
        assert closed["state"] == "closed" and closed["closed_reason"] == "prompt_input_exit"


_SESSION_ERROR_STATUS = {
    NotFoundError: 404,
    BusyError: 409,
    ClosedError: 409,
    InvalidRequestError: 422,
    UnavailableError: 503,
}


async def test_session_errors_become_http_statuses_at_the_app(tmp_path: Path) -> None:
    """The session layer raises errors without a status; the app maps each kind once.
    Every kind the server defines is covered (a new one must be added here)."""
    assert set(SessionError.__subclasses__()) == set(_SESSION_ERROR_STATUS)
    app = create_app(server_settings(make_project(tmp_path).root))
    for error in _SESSION_ERROR_STATUS:

        async def boom(request: Request, error: type[SessionError] = error) -> Response:
            raise error(f"a {error.__name__} happened")

        app.router.routes.append(Route(f"/boom/{error.__name__}", boom))
    token = {"Authorization": f"Bearer {app.state.api_token}"}
    async with serve_app(app) as url, httpx.AsyncClient(base_url=url, headers=token) as client:
        for error, status in _SESSION_ERROR_STATUS.items():
            r = await client.get(f"/boom/{error.__name__}")
            assert r.status_code == status
            assert r.json() == {"error": {"code": error.code, "message": f"a {error.__name__} happened"}}


async def test_real_responses_validate_against_the_published_schema(tmp_path: Path) -> None:
    """Every kind of JSON response, as the server sends it, against the schema
    ``/openapi.json`` publishes for that path, method and status (the schemas forbid
    keys they do not declare, so a key the server adds must be documented)."""
    project = make_project(tmp_path)
    project.shell_hook("PreToolUse", "true", matcher="Bash")
    async with running_server(project) as h:
        spec = (await h.client.get("/openapi.json")).json()
        checked: list[str] = []

        async def check(method: str, template: str, url: str, status: int, **kw: Any) -> dict[str, Any]:
            r = await h.client.request(method, url, **kw)
            assert r.status_code == status, r.text
            schema = spec["paths"][template][method.lower()]["responses"][str(status)]["content"]
            validator = jsonschema.Draft202012Validator(
                {**schema["application/json"]["schema"], "components": spec["components"]}
            )
            body: dict[str, Any] = r.json()
            validator.validate(body)
            checked.append(f"{method} {template} {status}")
            return body

        await check("GET", "/health", "/health", 200)
        await check("GET", "/hooks", "/hooks", 200)
        created = await check("POST", "/sessions", "/sessions", 201, json={"permission_mode": "default"})
        sid = created["session_id"]
        assert isinstance(created["created_at"], float) and created["closed_reason"] is None
        path = f"/sessions/{sid}"
        await check("GET", "/sessions", "/sessions", 200)
        messages = "/sessions/{session_id}/messages"
        waiting = await check("POST", messages, f"{path}/messages", 200, json={"text": "$ echo x", "wait": True})
        assert waiting["status"] == "awaiting_approval"
        await check("POST", messages, f"{path}/messages", 409, json={"text": "again"})
        approval = waiting["approval"]["approval_id"]
        await check(
            "POST",
            "/sessions/{session_id}/approvals/{approval_id}",
            f"{path}/approvals/{approval}",
            200,
            json={"decision": "allow"},
        )
        await h.wait_event(sid, lambda e: e["type"] == "turn_ended")
        ended = await check("POST", messages, f"{path}/messages", 200, json={"text": "hello", "wait": True})
        assert ended["status"] == "completed"
        started = await check("POST", messages, f"{path}/messages", 202, json={"text": "hello again"})
        await h.wait_event(sid, lambda e: e["type"] == "turn_ended" and e["prompt_id"] == started["prompt_id"])
        await check("GET", "/sessions/{session_id}", f"{path}?messages=true", 200)
        await check("PATCH", "/sessions/{session_id}", path, 200, json={"permission_mode": "plan"})
        await check("PATCH", "/sessions/{session_id}", path, 422, json={"permission_mode": "yolo"})
        await check("POST", "/sessions/{session_id}/interrupt", f"{path}/interrupt", 200)
        await check("GET", "/sessions/{session_id}/events", f"{path}/events?stream=false", 200)
        closed = await check("DELETE", "/sessions/{session_id}", path, 200)
        assert closed["state"] == "closed" and closed["closed_reason"] == "other"
        await check("GET", "/sessions/{session_id}", "/sessions/nope", 404)
        assert len(checked) == 16
    # And every JSON response schema is a closed object: validation above would catch a key
    # the server sends that the document does not declare.
    for template, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                schema = response.get("content", {}).get("application/json", {}).get("schema")
                if schema is None:
                    continue
                name = schema["$ref"].rpartition("/")[2]
                component = spec["components"]["schemas"][name]
                assert component["additionalProperties"] is False, (template, method, status, name)


async def test_openapi_health_hooks_and_chat_page(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.shell_hook("PreToolUse", "true", matcher="Bash")
    async with running_server(project, env="development") as h:
        spec = (await h.client.get("/openapi.json")).json()
        assert spec["openapi"].startswith("3.")
        assert {
            "/sessions",
            "/sessions/{session_id}",
            "/sessions/{session_id}/messages",
            "/sessions/{session_id}/approvals/{approval_id}",
            "/sessions/{session_id}/events",
        } <= set(spec["paths"])
        assert "PostMessage" in spec["components"]["schemas"]
        health = (await h.client.get("/health")).json()
        assert health["status"] == "ok" and health["backend"] == "scripted"
        hooks = (await h.client.get("/hooks")).json()
        assert hooks["hooks"]["PreToolUse"][0]["command"] == "true"
        page = await h.client.get("/chat")
        assert 'data-testid="chat-input"' in page.text and '"env": "development"' in page.text
        assert (await h.client.get("/chat/chat.js")).headers["content-type"].startswith("text/javascript")
        assert (await h.client.get("/chat/other.js")).status_code == 404


async def test_bearer_token_is_required_when_configured(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    async with running_server(project, api_token="s3cret-token", token=None) as h:
        r = await h.client.post("/sessions", json={})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        r = await h.client.post("/sessions", json={}, headers={"Authorization": "Bearer wrong-token"})
        assert r.status_code == 401
        assert (await h.client.get("/health")).status_code == 200
        assert (await h.client.get("/chat")).status_code == 200
        r = await h.client.post("/sessions", json={}, headers={"Authorization": "Bearer s3cret-token"})
        assert r.status_code == 201
        sid = r.json()["session_id"]
        r = await h.client.get(f"/sessions/{sid}/events", params={"stream": "false", "access_token": "s3cret-token"})
        assert r.status_code == 200
        r = await h.client.get(f"/sessions/{sid}", params={"access_token": "s3cret-token"})
        assert r.status_code == 401  # the query token only works for the event stream


async def test_asgi_transport_with_lifespan(tmp_path: Path) -> None:
    """The app also runs in-process (httpx ASGITransport) with its lifespan."""
    project = make_project(tmp_path)
    project.hook("SessionEnd")
    app = create_app(server_settings(project.root, permission_mode="bypassPermissions"))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://127.0.0.1",
            headers={"Authorization": f"Bearer {app.state.api_token}"},
        ) as c,
    ):
        sid = (await c.post("/sessions", json={})).json()["session_id"]
        r = await c.post(f"/sessions/{sid}/messages", json={"text": "$ echo hi", "wait": True})
        assert r.json()["status"] == "completed"
    assert project.payloads("SessionEnd")[0]["session_id"] == sid


def test_settings_errors_name_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SERVER_PORT", "eighty")
    with pytest.raises(SettingsInvalid) as err:
        load_settings(project_dir=tmp_path, _env_file=None)
    assert "AGENT_SERVER_PORT='eighty'" in str(err.value)
    monkeypatch.delenv("AGENT_SERVER_PORT")
    with pytest.raises(SettingsInvalid, match="AGENT_SERVER_API_TOKEN"):
        load_settings(project_dir=tmp_path, host="0.0.0.0", _env_file=None)
    ok = load_settings(project_dir=tmp_path, host="0.0.0.0", api_token="long-enough", _env_file=None)
    assert ok.data_path == tmp_path.resolve() / ".agent-server"
    with pytest.raises(SettingsInvalid, match="AGENT_SERVER_PROJECT_DIR"):
        load_settings(project_dir=tmp_path / "missing", _env_file=None)
    with pytest.raises(SettingsInvalid, match="AGENT_SERVER_PERMISSION_MODE"):
        load_settings(project_dir=tmp_path, permission_mode="yolo", _env_file=None)
    monkeypatch.setenv("AGENT_SERVER_ALLOWED_DIRS", "not-json")
    with pytest.raises(SettingsInvalid, match="AGENT_SERVER_ALLOWED_DIRS"):
        load_settings(project_dir=tmp_path, _env_file=None)
    monkeypatch.delenv("AGENT_SERVER_ALLOWED_DIRS")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    settings = load_settings(project_dir=tmp_path, backend="anthropic", _env_file=None)
    with pytest.raises(SettingsInvalid, match="AGENT_SERVER_ANTHROPIC_API_KEY"):
        create_app(settings)
    (tmp_path / ".env").write_text("AGENT_SERVER_STOP_BLOCK_CAP=4\n")
    monkeypatch.chdir(tmp_path)
    assert load_settings(project_dir=tmp_path).stop_block_cap == 4


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_SERVER_")}
    env["HOME"] = str(tmp_path)  # no user settings
    env["AGENT_SERVER_TRUST_ALL_HOOKS"] = "1"  # (these tests are not about trust)
    return env


def test_serve_rejects_bad_settings_without_a_traceback(tmp_path: Path) -> None:
    env = {**_env(tmp_path), "AGENT_SERVER_PORT": "99999"}
    proc = subprocess.run(
        [*CLI, "serve", "--project", str(tmp_path)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "AGENT_SERVER_PORT=99999" in proc.stderr.replace("'", "")
    assert "Traceback" not in proc.stderr
    proc = subprocess.run(
        [*CLI, "serve", "--host", "0.0.0.0", "--project", str(tmp_path)],
        env=_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "AGENT_SERVER_API_TOKEN" in proc.stderr
    assert "Traceback" not in proc.stderr


async def test_serve_prints_the_url_serves_and_shuts_down(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.hook("SessionEnd")
    with serve_process("--project", str(project.root), env=_env(tmp_path), cwd=tmp_path) as proc:
        [line] = await read_lines(proc, lambda _: True)
        assert line.startswith("agent-server listening on http://127.0.0.1:"), line
        url = line.split()[3]
        token = line.split("/chat?token=")[1].split(",")[0]  # the per-launch secret
        async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}) as c:
            assert (await c.get("/health")).json()["status"] == "ok"
            sid = (await c.post("/sessions", json={})).json()["session_id"]
            # An open event stream must not hold up shutdown.
            async with c.stream("GET", f"/sessions/{sid}/events") as resp:
                assert resp.status_code == 200
                proc.send_signal(signal.SIGINT)
                with anyio.fail_after(15):
                    async for _ in resp.aiter_lines():
                        pass
        with anyio.fail_after(15):
            code = await anyio.to_thread.run_sync(proc.wait)
        assert code in (0, 130)  # uvicorn re-raises the SIGINT after a graceful shutdown
    assert [p["session_id"] for p in project.payloads("SessionEnd")] == [sid]


async def test_serve_says_which_hooks_it_loaded_and_where_the_full_list_is(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    project.shell_hook("PreToolUse", "true", matcher="Bash")
    project.shell_hook("PreToolUse", "true", matcher="Write")  # the same command: ignored
    project.shell_hook("Stop", "echo done")
    args = ("--project-dir", str(project.root))
    with serve_process(*args, env=_env(tmp_path), cwd=tmp_path, stderr=subprocess.DEVNULL) as proc:
        lines = await read_lines(proc, lambda line: "full list:" in line)
        assert lines[0].startswith("agent-server listening on http://127.0.0.1:")
        assert lines[1:] == [
            "hooks: 2 from .claude/settings.json",
            "  PreToolUse: 1 hook, 1 ignored",
            "  Stop: 1 hook",
            f"  full list: agent-server hooks list --project-dir {project.root}",
        ]


def test_init_writes_default_settings_and_serve_falls_back_to_them(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*CLI, "init", "--project", str(tmp_path)], env=_env(tmp_path), capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    written = tmp_path / ".claude" / "settings.json"
    assert "hooks" in json.loads(written.read_text())
    again = subprocess.run(  # (the one spelling; the first run used the former --project)
        [*CLI, "init", "--project-dir", str(tmp_path)], env=_env(tmp_path), capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 1 and "--force" in again.stderr


async def test_packaged_default_settings_are_used_without_project_settings(tmp_path: Path) -> None:
    root = tmp_path / "bare"
    root.mkdir()
    async with running_server(root, default_settings_fallback=True, permission_mode="bypassPermissions") as h:
        hooks = (await h.client.get("/hooks")).json()
        assert hooks["files"] == [".agent-server/default-settings.json"]
        assert hooks["issues"] == []
        sid = (await h.create())["session_id"]
        turn = await h.send(sid, "$ rm -rf /")  # the ready-made security hooks are active
        assert turn["status"] == "completed"
        (result,) = [
            b
            for m in await h.messages(sid)
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
        assert result["is_error"] and result["content"].startswith("PreToolUse:Bash hook error:")


def test_packaged_default_settings_match_the_repository_copy() -> None:
    repo = Path(__file__).resolve().parents[2] / "hooks" / "settings.default.json"
    packaged = Path(__file__).resolve().parents[2] / "agent_server" / "defaults" / "settings.json"
    if not repo.exists():
        pytest.skip("no hooks/settings.default.json in this checkout")
    assert json.loads(packaged.read_text()) == json.loads(repo.read_text()), (
        "agent_server/defaults/settings.json is the packaged copy of hooks/settings.default.json: "
        "cp hooks/settings.default.json agent_server/defaults/settings.json"
    )


async def test_in_process_hooks_registered_at_startup(tmp_path: Path) -> None:
    seen: list[str] = []

    async def guard(payload: dict[str, Any]) -> dict[str, Any] | None:
        seen.append(payload["tool_input"]["command"])
        if "deploy" in payload["tool_input"]["command"]:
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "no deploys from chat",
                }
            }
        return None

    project = make_project(tmp_path)
    async with running_server(
        project,
        permission_mode="bypassPermissions",
        setup=lambda runner: runner.register("PreToolUse", guard, matcher="Bash"),
    ) as h:
        sid = (await h.create())["session_id"]
        await h.send(sid, "$ echo ok\n$ ./deploy.sh")
        results = [
            b["content"]
            for m in await h.messages(sid)
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
    assert seen == ["echo ok", "./deploy.sh"]
    assert results == ["ok", "PreToolUse:Bash hook error: no deploys from chat"]


def test_default_settings_hook_paths_resolve_to_the_hooks_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_server.server import _hooks_setup

    hooks = tmp_path / "repo" / "hooks"
    hooks.mkdir(parents=True)
    default = hooks / "settings.default.json"
    default.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "hooks": [
                                {"type": "command", "command": 'python3 "$CLAUDE_PROJECT_DIR/hooks/a.py"'},
                                {"type": "command", "command": 'python3 "$CLAUDE_PROJECT_DIR"/hooks/b.py'},
                                {"type": "command", "command": "python3 ${CLAUDE_PROJECT_DIR}/hooks/c.py"},
                                {"type": "command", "command": "python3 ${AGENT_SERVER_HOOKS_DIR}/d.py"},
                            ]
                        }
                    ]
                }
            }
        )
    )
    monkeypatch.setattr(_hooks_setup, "hooks_dir", lambda: hooks)
    project = tmp_path / "project"
    project.mkdir()
    commands = [
        h["command"] for h in json.loads(_hooks_setup.default_settings_text(project))["hooks"]["PreToolUse"][0]["hooks"]
    ]
    assert commands == [
        f'python3 "{hooks}/a.py"',
        f'python3 "{hooks}"/b.py',
        f"python3 {hooks}/c.py",
        f"python3 {hooks}/d.py",
    ]
    (project / "hooks").mkdir()  # a project with its own hooks/ keeps $CLAUDE_PROJECT_DIR
    assert "$CLAUDE_PROJECT_DIR" in _hooks_setup.default_settings_text(project)


# -- found by a review of the server's lifecycle -------------------------------------


class _SlowToCancel(ModelBackend):
    """respond() blocks; when cancelled it finishes only once ``release`` is set (so a
    close() waits on the turn long enough for a second close() to arrive)."""

    name = "slow"
    model = "slow-model"

    def __init__(self) -> None:
        self.entered = anyio.Event()
        self.release = anyio.Event()

    async def respond(self, request: ModelRequest, on_text: Any = None) -> ModelReply:
        self.entered.set()
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await self.release.wait()
        raise AssertionError("unreachable")

    async def summarize(self, messages: Any, instructions: Any) -> str:
        return "summary"


async def test_two_deletes_at_once_fire_session_end_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_server.server import _session

    ends: list[dict[str, Any]] = []

    async def on_end(payload: dict[str, Any]) -> None:
        ends.append(payload)

    backend = _SlowToCancel()
    inside = 0
    both_inside = anyio.Event()
    real_close = _session.Session.close

    async def counting_close(self: _session.Session, reason: str = "other") -> None:
        nonlocal inside
        inside += 1
        if inside == 2:
            both_inside.set()
        await real_close(self, reason)

    monkeypatch.setattr(_session.Session, "close", counting_close)
    with anyio.fail_after(30):
        async with running_server(
            make_project(tmp_path), model_backend=backend, setup=lambda r: r.register("SessionEnd", on_end)
        ) as h:
            sid = (await h.create())["session_id"]
            await h.send(sid, "hello", wait=False)
            await backend.entered.wait()
            codes: list[int] = []

            async def delete() -> None:
                codes.append((await h.client.delete(f"/sessions/{sid}")).status_code)

            async with anyio.create_task_group() as tg:
                tg.start_soon(delete)
                tg.start_soon(delete)
                await both_inside.wait()
                backend.release.set()
            events = await h.events(sid)
    assert codes == [200, 200]
    assert len(ends) == 1
    assert len([e for e in events if e["type"] == "session_ended"]) == 1


async def test_a_session_id_left_by_clear_can_be_resumed(tmp_path: Path) -> None:
    with anyio.fail_after(20):
        async with running_server(make_project(tmp_path)) as h:
            old = (await h.create())["session_id"]
            await h.send(old, "hello")
            assert (await h.send(old, "/clear"))["status"] == "completed"
            cleared = (await h.client.get(f"/sessions/{old}")).json()["session_id"]
            assert cleared != old  # the old id still reaches the session that followed
            r = await h.client.post("/sessions", json={"resume": old})
            assert r.status_code == 201, r.text
            assert (await h.client.get(f"/sessions/{old}")).json()["session_id"] == old
            assert (await h.client.get(f"/sessions/{cleared}")).json()["session_id"] == cleared


class _FlakyModel(ScriptedBackend):
    """A backend whose ``model`` fails the next ``failures`` times it is read."""

    def __init__(self, failures: int = 0) -> None:
        super().__init__()
        self.failures = failures

    @property  # type: ignore[override]
    def model(self) -> str:
        if self.failures:
            self.failures -= 1
            raise RuntimeError("model registry unreachable")
        return "scripted"


async def test_a_failed_resume_of_an_id_left_by_clear_keeps_it_leading_to_its_successor(tmp_path: Path) -> None:
    backend = _FlakyModel()
    with anyio.fail_after(20):
        async with running_server(make_project(tmp_path), model_backend=backend) as h:
            old = (await h.create())["session_id"]
            assert (await h.send(old, "/clear"))["status"] == "completed"
            cleared = (await h.client.get(f"/sessions/{old}")).json()["session_id"]
            backend.failures = 1
            r = await h.client.post("/sessions", json={"resume": old})
            assert r.status_code == 500
            after = (await h.client.get(f"/sessions/{old}")).json()
    assert after["session_id"] == cleared and after["state"] != "closed"


async def test_a_session_whose_start_fails_is_closed_not_left_half_open(tmp_path: Path) -> None:
    # An error of ours (here a model backend whose `model` fails once), not a hook's:
    # the client gets a 500 naming it, and no session stays registered without its
    # SessionStart having run; it ends like any other (SessionEnd, session_ended).
    project = make_project(tmp_path)
    project.hook("SessionEnd")
    async with running_server(project, model_backend=_FlakyModel(failures=1)) as h:
        failed = await h.client.post("/sessions", json={})
        listed = (await h.client.get("/sessions")).json()["sessions"]
        ok = await h.client.post("/sessions", json={})
    assert failed.status_code == 500
    assert failed.json()["error"]["message"] == "internal error: RuntimeError"
    assert listed == []
    assert ok.status_code == 201
    ends = project.calls("SessionEnd")
    # The failed session's end, then (at shutdown) the good one's.
    assert len(ends) == 2 and ends[1]["payload"]["session_id"] == ok.json()["session_id"]
    assert ends[0]["payload"]["session_id"] != ok.json()["session_id"]
    assert ends[0]["payload"]["reason"] == "other"


async def test_event_stream_reports_events_the_session_no_longer_keeps(tmp_path: Path) -> None:
    async with running_server(make_project(tmp_path)) as h:
        sid = (await h.create())["session_id"]
        log = h.app.state.manager.get(sid).events
        kept = log._events.maxlen
        assert kept is not None
        for i in range(kept + 5):  # the oldest events fall out of the log
            log.emit("system_message", text=f"note {i}", level="info")
        last = log.last_seq
        page = (await h.client.get(f"/sessions/{sid}/events", params={"stream": "false", "since": 2})).json()
        lines: list[str] = []
        async with h.client.stream("GET", f"/sessions/{sid}/events", params={"since": 2}) as resp:
            async for line in resp.aiter_lines():
                lines.append(line)
                if line == f"id: {last}":
                    break
        resumed = (
            await h.client.get(
                f"/sessions/{sid}/events", params={"stream": "false"}, headers={"Last-Event-ID": str(last - 1)}
            )
        ).json()
    first_kept = last - kept + 1
    assert page["dropped"] == {"from_seq": 3, "to_seq": first_kept - 1}
    assert page["events"][0]["seq"] == first_kept and len(page["events"]) == kept
    # The stream says so in place, with an id a reconnect resumes after.
    assert lines[:4] == ["retry: 2000", "", f"id: {first_kept - 1}", "event: events_dropped"]
    assert json.loads(lines[4][len("data: ") :])["from_seq"] == 3
    assert lines[6] == f"id: {first_kept}"
    assert resumed["dropped"] is None and [e["seq"] for e in resumed["events"]] == [last]


async def test_shutdown_closes_sessions_at_once_not_one_after_another(tmp_path: Path) -> None:
    # Each SessionEnd hook waits (bounded) until all three have started: one after
    # another, the first would give up waiting.
    started: list[str] = []
    all_started = anyio.Event()
    saw_all: list[bool] = []

    async def on_end(payload: dict[str, Any]) -> None:
        started.append(payload["session_id"])
        if len(started) == 3:
            all_started.set()
        with anyio.move_on_after(5):
            await all_started.wait()
        saw_all.append(all_started.is_set())

    with anyio.fail_after(60):
        async with running_server(make_project(tmp_path), setup=lambda r: r.register("SessionEnd", on_end)) as h:
            sids = {(await h.create())["session_id"] for _ in range(3)}
    assert set(started) == sids
    assert saw_all == [True, True, True]


async def test_serve_freezes_its_startup_heap(tmp_path: Path) -> None:
    # Full garbage collections then skip what startup loaded: shorter pauses mid-fire.
    project = make_project(tmp_path)
    report = tmp_path / "frozen"
    code = (
        "import gc, runpy, sys\n"
        "real_freeze = gc.freeze\n"
        "def freeze():\n"
        "    real_freeze()\n"
        f"    open({str(report)!r}, 'w').write(str(gc.get_freeze_count()))\n"
        "gc.freeze = freeze\n"
        "sys.argv = ['agent-server', *sys.argv[1:]]\n"
        "runpy.run_module('agent_server', run_name='__main__')\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--port", "0", "--project", str(project.root)],
        env=_env(tmp_path),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        with anyio.fail_after(30):
            line = await anyio.to_thread.run_sync(proc.stdout.readline)
        assert line.startswith("agent-server listening on"), line
        frozen = int(report.read_text())  # (written before that line is printed)
        proc.send_signal(signal.SIGTERM)
        with anyio.fail_after(15):
            await anyio.to_thread.run_sync(proc.wait)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert frozen > 10_000  # the modules' objects, at least


async def test_waiting_for_a_turn_survives_events_dropped_meanwhile(tmp_path: Path) -> None:
    # The waiter of `wait: true` falls more than the log keeps behind during the turn.
    holder: dict[str, Any] = {}

    async def flood(payload: dict[str, Any]) -> None:
        log = holder["app"].state.manager.get(payload["session_id"]).events
        for i in range(log._events.maxlen + 5):
            log.emit("system_message", text=f"note {i}", level="info")

    async with running_server(make_project(tmp_path), setup=lambda r: r.register("UserPromptSubmit", flood)) as h:
        holder["app"] = h.app
        sid = (await h.create())["session_id"]
        reply = await h.send(sid, "hello")
    assert reply["status"] == "completed" and reply["final_text"] == "hello"
