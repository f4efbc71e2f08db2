"""Helpers for the server integration tests: a temporary project with real hook scripts,
a real uvicorn server on 127.0.0.1 (random port), and an httpx client that reads the SSE
stream with bounded waits."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx

from agent_server.server import create_app, load_settings
from agent_server.server.backends import ModelBackend
from agent_server.server.testing import FakeMessagesAPI, serve_app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "payloads"
#: The API secret test servers use (AGENT_SERVER_API_TOKEN); the harness sends it as
#: ``Authorization: Bearer``. Project hooks run because the test session sets the
#: documented AGENT_SERVER_TRUST_ALL_HOOKS=1 (tests/conftest.py).
TEST_TOKEN = "test-token-0123456789"

_PREAMBLE = """\
import json, os, sys
payload = json.loads(sys.stdin.read())
with open({log!r}, "a") as fh:
    fh.write(json.dumps({{"hook": {name!r}, "payload": payload,
                         "env_foo": os.environ.get("FOO"), "pwd": os.getcwd()}}) + "\\n")
"""


@dataclass
class Project:
    """A temporary project whose ``.claude/settings.json`` runs small Python hook scripts
    that log every payload they receive."""

    root: Path
    hooks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    _n: int = 0

    @property
    def log(self) -> Path:
        """Where the hooks log their payloads (JSONL)."""
        return self.root.parent / f"{self.root.name}-hooks.jsonl"

    def hook(
        self, event: str, body: str = "", *, matcher: str | None = None, name: str | None = None, **fields: Any
    ) -> str:
        """Add a hook on ``event`` that logs its payload, then runs ``body`` (Python with
        ``payload`` in scope). Returns its command string."""
        self._n += 1
        name = name or f"{event}-{self._n}"
        folder = self.root / ".claude" / "hooks"
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / f"{name}.py"
        script.write_text(_PREAMBLE.format(log=str(self.log), name=name) + body + "\n")
        command = f"{sys.executable} {script}"
        entry: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **fields}]}
        if matcher is not None:
            entry["matcher"] = matcher
        self.hooks.setdefault(event, []).append(entry)
        self.write()
        return command

    def shell_hook(self, event: str, command: str, *, matcher: str | None = None) -> str:
        """Add a plain shell-command hook."""
        entry: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
        if matcher is not None:
            entry["matcher"] = matcher
        self.hooks.setdefault(event, []).append(entry)
        self.write()
        return command

    def write(self) -> None:
        """Write ``.claude/settings.json``."""
        path = self.root / ".claude" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"hooks": self.hooks, **self.extra}, indent=1))

    def calls(self, event: str | None = None) -> list[dict[str, Any]]:
        """Logged hook calls (``{"hook", "payload", "env_foo", "pwd"}``), oldest first."""
        if not self.log.exists():
            return []
        rows = [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]
        return [r for r in rows if event is None or r["payload"]["hook_event_name"] == event]

    def payloads(self, event: str) -> list[dict[str, Any]]:
        """Payloads the hooks of ``event`` received."""
        return [r["payload"] for r in self.calls(event)]


def make_project(tmp_path: Path) -> Project:
    """A fresh project folder under ``tmp_path``."""
    root = tmp_path / "project"
    root.mkdir(parents=True)
    project = Project(root)
    project.write()
    return project


def fixture_keys(name: str) -> list[str]:
    """Key order of a recorded Claude Code payload."""
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return list(data)


def assert_shape(
    payload: dict[str, Any], fixture: str, *, extra: tuple[str, ...] = (), missing: tuple[str, ...] = ()
) -> None:
    """``payload`` has the recorded payload's keys, in Claude Code's order (``extra`` keys
    we add and ``missing`` keys we do not send are ignored), with the same value types."""
    want = [k for k in fixture_keys(fixture) if k not in missing]
    got = [k for k in payload if k not in extra]
    assert got == want, f"{fixture}: keys {got} != {want}"
    recorded = json.loads((FIXTURES / f"{fixture}.json").read_text())
    for key in want:
        if recorded[key] is not None and payload[key] is not None:
            assert type(payload[key]) is type(recorded[key]), f"{fixture}.{key}: {payload[key]!r}"


class Harness:
    """An httpx client bound to a running server."""

    def __init__(self, client: httpx.AsyncClient, app: Any, project: Project | None) -> None:
        self.client = client
        self.app = app
        self.project = project

    @property
    def token(self) -> str | None:
        """The server's API secret (what ``serve`` prints in the chat URL)."""
        token: str | None = self.app.state.api_token
        return token

    def chat_url(self, **params: str) -> str:
        """The chat URL as ``serve`` prints it (``/chat?token=…``), plus ``params``."""
        query = {"token": self.token, **params} if self.token else params
        return str(self.client.base_url.join("/chat").copy_merge_params(query))

    async def create(self, **body: Any) -> dict[str, Any]:
        """POST /sessions; returns the session."""
        r = await self.client.post("/sessions", json=body)
        assert r.status_code == 201, r.text
        data: dict[str, Any] = r.json()
        return data

    async def send(self, sid: str, text: str, *, wait: bool = True, timeout: float = 30) -> dict[str, Any]:
        """POST a message (waiting for the turn to end or ask for approval)."""
        r = await self.client.post(f"/sessions/{sid}/messages", json={"text": text, "wait": wait, "timeout": timeout})
        assert r.status_code in (200, 202), r.text
        data: dict[str, Any] = r.json()
        return data

    async def events(self, sid: str, since: int = 0) -> list[dict[str, Any]]:
        """The session's event history."""
        r = await self.client.get(f"/sessions/{sid}/events", params={"stream": "false", "since": since})
        assert r.status_code == 200, r.text
        events: list[dict[str, Any]] = r.json()["events"]
        return events

    async def hooks_fired(self, sid: str) -> list[str]:
        """Event names of every ``hook`` event, in order."""
        return [e["event"] for e in await self.events(sid) if e["type"] == "hook"]

    async def messages(self, sid: str) -> list[dict[str, Any]]:
        """The main conversation."""
        r = await self.client.get(f"/sessions/{sid}", params={"messages": "true"})
        assert r.status_code == 200, r.text
        msgs: list[dict[str, Any]] = r.json()["messages"]
        return msgs

    async def wait_event(
        self, sid: str, pred: Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any]:
        """Read the SSE stream until an event satisfies ``pred`` (bounded)."""
        with anyio.fail_after(timeout):
            async with self.client.stream("GET", f"/sessions/{sid}/events") as resp:
                assert resp.status_code == 200
                async for event in sse_events(resp):
                    if pred(event):
                        return event
        raise AssertionError("event stream ended before the expected event")

    async def close(self, sid: str, reason: str | None = None) -> dict[str, Any]:
        """DELETE the session."""
        params = {"reason": reason} if reason else {}
        r = await self.client.delete(f"/sessions/{sid}", params=params)
        assert r.status_code == 200, r.text
        data: dict[str, Any] = r.json()
        return data


async def sse_events(resp: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """Parse ``text/event-stream`` into the JSON events."""
    data: list[str] = []
    async for line in resp.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            event = json.loads("\n".join(data))
            data = []
            if event:
                yield event


def server_settings(project: Path, **overrides: Any) -> Any:
    """Settings for a test server: the test token, no user settings, no idle
    notifications, no .env."""
    values: dict[str, Any] = {
        "project_dir": project,
        "api_token": TEST_TOKEN,
        "read_user_settings": False,
        "idle_notification_seconds": 0,
        "approval_timeout": 20,
        "default_settings_fallback": False,
        "_env_file": None,
    }
    values.update(overrides)
    return load_settings(**values)


@asynccontextmanager
async def running_server(
    project: Project | Path,
    *,
    model_backend: ModelBackend | None = None,
    token: str | None = "server",
    setup: Any = None,
    telemetry: Any = None,
    **overrides: Any,
) -> AsyncIterator[Harness]:
    """Start the server on a real socket; yields a :class:`Harness` whose client sends
    ``Authorization: Bearer`` with the server's token (``token="server"``), another
    ``token``, or none (``token=None``). ``telemetry`` (``agent_server.server.Telemetry``)
    replaces the providers built from ``OTEL_*``."""
    root = project.root if isinstance(project, Project) else project
    settings = server_settings(root, **overrides)
    app = create_app(settings, backend=model_backend, setup=setup, telemetry=telemetry)
    if token == "server":
        token = app.state.api_token
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with serve_app(app) as url, httpx.AsyncClient(base_url=url, timeout=30, headers=headers) as client:
        yield Harness(client, app, project if isinstance(project, Project) else None)


#: The API key test servers give the anthropic backend (the fake API accepts any).
TEST_API_KEY = "test-key-123"


@asynccontextmanager
async def running_anthropic_server(project: Project, api: FakeMessagesAPI, **overrides: Any) -> AsyncIterator[Harness]:
    """:func:`running_server` with the anthropic backend talking to ``api`` (a fake Messages
    API served on 127.0.0.1 for as long as the server runs)."""
    async with (
        serve_app(api.app) as api_url,
        running_server(
            project, backend="anthropic", anthropic_base_url=api_url, anthropic_api_key=TEST_API_KEY, **overrides
        ) as h,
    ):
        yield h


#: Stop hook body: block the first stop with the reason "run the tests", then let it stop.
BLOCK_STOP_ONCE = """
if not payload["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the tests"}))"""


def json_out(data: dict[str, Any]) -> str:
    """Hook body printing ``data`` as JSON."""
    return f"print(json.dumps({data!r}))"


def add_entry(project: Project, event: str, hook: dict[str, Any], matcher: str | None = None) -> None:
    """Add one Claude Code hook entry (any hook type) to ``project``, written as-is."""
    entry: dict[str, Any] = {"hooks": [hook]}
    if matcher is not None:
        entry["matcher"] = matcher
    project.hooks.setdefault(event, []).append(entry)
    project.write()


def tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool_result block of a conversation, in order."""
    return [
        b
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def system_texts(messages: list[dict[str, Any]]) -> list[str]:
    """Model-visible system messages (hook contexts)."""
    return [m["content"] for m in messages if m["role"] == "system"]


async def user_notes(h: Harness, sid: str) -> list[str]:
    """User-only messages (``system_message`` events)."""
    return [e["text"] for e in await h.events(sid) if e["type"] == "system_message"]


#: ``agent-server`` as a user runs it, in a subprocess.
CLI = [sys.executable, "-m", "agent_server"]


@contextmanager
def serve_process(
    *args: str, env: dict[str, str], cwd: Path, stderr: int = subprocess.PIPE
) -> Iterator[subprocess.Popen[str]]:
    """``agent-server serve --port 0 *args`` as a real process (text stdout piped); on the
    way out it is interrupted like a user would (SIGINT), and killed if it lingers."""
    proc = subprocess.Popen(
        [*CLI, "serve", "--port", "0", *args], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=stderr, text=True
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def read_lines(proc: subprocess.Popen[str], last: Callable[[str], bool], timeout: float = 30) -> list[str]:
    """``proc``'s stdout lines up to and including the first for which ``last`` is true
    (bounded; fails if the output ends first)."""
    assert proc.stdout is not None
    lines: list[str] = []
    with anyio.fail_after(timeout):
        while not lines or not last(lines[-1]):
            line = await anyio.to_thread.run_sync(proc.stdout.readline)
            assert line, f"serve ended its output early: {lines}"
            lines.append(line.rstrip("\n"))
    return lines
