"""Shared test fixtures."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio (the server's loop)."""
    return "asyncio"


from tests.postgres import postgres_url  # noqa: E402, F401  (a session fixture)
