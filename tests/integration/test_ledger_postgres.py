"""The ledger in PostgreSQL: several servers write one database, ``hooks log/stats
--ledger-url`` read across them; an unreachable database never fails a fire."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import pytest

from agent_server.hooks import HookLedger, HookRunner, LedgerError
from agent_server.hooks._ledger_query import hook_stats, open_ledger, recent_events
from tests.support import cmd, project

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).parents[2]


@pytest.fixture
def ledger_url(postgres_url: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A database of its own for each test."""
    import psycopg

    name = "t_" + os.urandom(6).hex()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield postgres_url.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


class Proxy:
    """A TCP relay on loopback to the test database that can be taken down and brought
    back on the same port: the database as the ledger sees it through an outage."""

    def __init__(self, target_port: int) -> None:
        self.target_port, self.port = target_port, 0
        self.lock = threading.Lock()
        self.conns: list[socket.socket] = []
        self.listener: socket.socket | None = None

    def up(self) -> None:
        deadline = time.monotonic() + 30
        while True:  # (the port's old connections may take a moment to go)
            try:
                listener = socket.create_server(("127.0.0.1", self.port))
                break
            except OSError:
                assert time.monotonic() < deadline, f"port {self.port} stays busy"
                time.sleep(0.1)
        with self.lock:
            self.listener, self.port = listener, listener.getsockname()[1]
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        with self.lock:
            listener, self.listener = self.listener, None
            conns, self.conns = self.conns, []
        assert listener is not None
        listener.close()
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                return  # taken down
            with self.lock:
                if self.listener is not listener:  # taken down meanwhile
                    client.close()
                    server.close()
                    return
                self.conns += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


async def test_records_wait_in_the_journal_through_an_outage_and_then_get_in(
    tmp_path: Path, ledger_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The database goes away under a running ledger and comes back: no fire fails,
    the records wait in the journal (one error logged) and reach the database after."""
    parts = urlsplit(ledger_url)
    proxy = Proxy(parts.port or 5432)
    proxy.up()
    via_proxy = parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy.port}").geturl()
    p = project(tmp_path, {"Stop": [cmd("true")]})
    ledger = HookLedger(via_proxy, journal_dir=tmp_path / "journal", batch_delay=0.01)

    def stored() -> list[str]:
        store = open_ledger(ledger_url)
        try:
            return sorted(e["session_id"] for e in recent_events(store, limit=100))
        finally:
            store.close()

    with caplog.at_level(logging.INFO, logger="agent_server.hooks.ledger"):
        async with HookRunner.from_project(p, user_settings=None, ledger=ledger) as r:
            await r.fire("Stop", {"session_id": "before"})
            with anyio.fail_after(20):
                while stored() != ["before"]:
                    await anyio.sleep(0.05)
            proxy.down()
            during = [await r.fire("Stop", {"session_id": f"during-{i}"}) for i in range(3)]
            with anyio.fail_after(20):
                while "cannot move records into the database yet" not in caplog.text:
                    await anyio.sleep(0.05)
            assert stored() == ["before"]
            proxy.up()  # the same port again
            with anyio.fail_after(30):
                while len(stored()) < 4:
                    await anyio.sleep(0.1)
        await ledger.aclose()
    assert [o.hooks[0].status.value for o in during] == ["ok"] * 3
    assert stored() == ["before", "during-0", "during-1", "during-2"]
    assert "records reach the database again" in caplog.text
    assert caplog.text.count("cannot move records into the database yet") == 1  # once, not per retry
    proxy.down()


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "AGENT_SERVER_"))}
    env |= {"HOME": str(cwd), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "agent_server", *args], capture_output=True, text=True, timeout=60, env=env, cwd=cwd
    )


async def test_two_servers_write_one_ledger_and_stats_reads_both(tmp_path: Path, ledger_url: str) -> None:
    for host in ("alpha", "beta"):
        (tmp_path / host).mkdir()
        p = project(tmp_path / host, {"PreToolUse": [cmd("true"), cmd("echo no >&2; exit 2", matcher="Bash")]})
        ledger = HookLedger(ledger_url, host=host, journal_dir=tmp_path / host / "journal")
        async with ledger, HookRunner.from_project(p, user_settings=None, ledger=ledger) as r:
            for tool in ("Bash", "Read"):
                await r.fire("PreToolUse", {"session_id": host, "tool_name": tool, "tool_input": {}})
        assert not list((tmp_path / host / "journal").glob("*.jsonl"))  # all of it in PostgreSQL
    res = cli("hooks", "stats", "--ledger-url", ledger_url, "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    stats = {s["name"].split()[0]: s for s in json.loads(res.stdout)}  # (short names, or commands)
    assert stats["true"]["runs"] == 4 and stats["true"]["hosts"] == ["alpha", "beta"]
    assert stats["echo"]["runs"] == 2 and stats["echo"]["block_rate"] == 1.0
    text = cli("hooks", "log", "--ledger-url", ledger_url, "--blocked", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "alpha" in text.stdout and "beta" in text.stdout and "BLOCKED (deny)" in text.stdout
    assert "Read" not in text.stdout  # --blocked: only the events a hook blocked
    store = open_ledger(ledger_url)
    try:
        events = recent_events(store, limit=10)
        assert {(e["host"], e["project"]) for e in events} == {
            ("alpha", str((tmp_path / "alpha").resolve())),
            ("beta", str((tmp_path / "beta").resolve())),
        }
        assert [h["status"] for h in events[-1]["hooks"]] == ["ok", "blocked"]
        assert len(hook_stats(store, event="PreToolUse")) == 2
    finally:
        store.close()


async def test_an_unreachable_database_keeps_records_in_the_journal_until_it_is_back(
    tmp_path: Path, ledger_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"postgresql://ledger@127.0.0.1:{s.getsockname()[1]}/x"
    journal = tmp_path / "journal"
    p = project(tmp_path, {"Stop": [cmd("true")]})
    with caplog.at_level(logging.WARNING, logger="agent_server.hooks.ledger"):
        ledger = HookLedger(dead, journal_dir=journal, batch_delay=0)
        async with HookRunner.from_project(p, user_settings=None, ledger=ledger) as r:
            outcomes = [await r.fire("Stop", {"session_id": f"s{i}"}) for i in range(3)]
        await ledger.aclose()
    assert [o.hooks[0].status.value for o in outcomes] == ["ok"] * 3
    assert ledger.records == 3
    assert "cannot move records into the database yet" in caplog.text
    assert "postgresql://ledger@127.0.0.1" in caplog.text
    [kept] = journal.glob("*.jsonl")  # nothing lost: the records wait there
    # The database is back (here: the right URL): the next ledger replays the journal.
    with HookLedger(ledger_url, journal_dir=journal) as back:
        back.flush()
    assert not kept.exists()
    store = open_ledger(ledger_url)
    try:
        assert sorted(e["session_id"] for e in recent_events(store)) == ["s0", "s1", "s2"]
    finally:
        store.close()


def test_a_malformed_ledger_url_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match=r"postgresql://u:\*\*\*@h:port/db: not a valid PostgreSQL URL"):
        HookLedger("postgresql://u:secret@h:port/db")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_SERVER_")}
    env |= {
        "AGENT_SERVER_LEDGER_URL": "postgresql://u:secret@h:port/db",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
    }
    res = subprocess.run(
        [sys.executable, "-m", "agent_server", "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    assert res.returncode != 0
    assert "AGENT_SERVER_LEDGER_URL" in res.stderr and "not a valid PostgreSQL URL" in res.stderr
    assert "secret" not in res.stderr and "Traceback" not in res.stderr


async def test_the_server_writes_to_the_ledger_url_with_its_journal_in_the_data_folder(
    tmp_path: Path, ledger_url: str
) -> None:
    from agent_server.server._hooks_setup import build_runner
    from agent_server.server._settings import load_settings

    p = project(tmp_path, {"Stop": [cmd("true")]})
    settings = load_settings(project_dir=p, ledger_url=ledger_url, read_user_settings=False)
    runner = build_runner(settings)
    assert runner.ledger is not None and runner.ledger.target == ledger_url
    async with runner:
        await runner.fire("Stop", {"session_id": "served"})
        assert runner.ledger.journal is not None
        assert runner.ledger.journal.parent == settings.data_path / "ledger.pending"
    await runner.ledger.aclose()  # (the server's lifespan does this)
    store = open_ledger(ledger_url)
    try:
        [event] = recent_events(store)
    finally:
        store.close()
    assert (event["session_id"], event["project"]) == ("served", str(p.resolve()))
