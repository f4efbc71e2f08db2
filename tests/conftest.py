"""Shared test fixtures."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_CONFIG_HOME: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    """Tests that are not about trust run a project's hooks the documented CI way
    (``AGENT_SERVER_TRUST_ALL_HOOKS=1``; trust tests unset it), and never read or write
    the developer's own trust store (``XDG_CONFIG_HOME`` is a fresh folder)."""
    global _CONFIG_HOME
    os.environ["AGENT_SERVER_TRUST_ALL_HOOKS"] = "1"
    _CONFIG_HOME = tempfile.mkdtemp(prefix="agent-server-test-config-")
    os.environ["XDG_CONFIG_HOME"] = _CONFIG_HOME


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the test config folder."""
    if _CONFIG_HOME:
        shutil.rmtree(_CONFIG_HOME, ignore_errors=True)


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio (the server's loop)."""
    return "asyncio"


from tests.postgres import postgres_url  # noqa: E402, F401  (a session fixture)
