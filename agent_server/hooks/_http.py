"""HTTP hooks (``"type": "http"``, contract §10): POST the event's payload to a URL and
read a 2xx JSON body exactly as a command hook's stdout on exit 0.

One :class:`HttpHookClient` per runner holds one ``httpx.AsyncClient``, so connections
are reused from fire to fire; the runner closes it. Redirects are followed only to the
same scheme, host and port; the body read stops at the runner's output limit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio

from ._outcome import HookResult, HookStatus, failed_result, interpret_output, json_object, timeout_result
from ._spec import HookSpec

if TYPE_CHECKING:
    import httpx

__all__ = ["MAX_REDIRECTS", "HttpHookClient", "fill_headers", "header_variables", "url_problem"]

#: Same-origin redirects followed before the hook fails.
MAX_REDIRECTS = 5
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def url_problem(url: str) -> str | None:
    """What is wrong with an http hook's ``url``, or None when it can be used."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        return f"not a valid URL ({exc}): {url!r}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"must be an http:// or https:// URL, got {url!r}"
    if not parts.hostname:
        return f"has no host: {url!r}"
    return None


def header_variables(value: str) -> list[str]:
    """The environment variable names ``value`` refers to as ``$NAME`` or ``${NAME}``."""
    return [m.group(1) or m.group(2) for m in _VARIABLE.finditer(value)]


def fill_headers(headers: Mapping[str, str], allowed: tuple[str, ...], env: Mapping[str, str]) -> dict[str, str]:
    """``headers`` with ``$NAME``/``${NAME}`` filled from ``env`` for names in ``allowed``;
    any other reference becomes the empty string (contract §10)."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return env.get(name, "") if name in allowed else ""

    return {key: _VARIABLE.sub(fill, value) for key, value in headers.items()}


@dataclass
class _Reply:
    status: int
    body: bytes
    truncated: bool


class _HttpFailure(Exception):
    """The exchange failed before a final response (connection, redirect, bad header)."""


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return (url.scheme, url.host, url.port or default)


class HttpHookClient:
    """Runs ``http`` hooks for one runner over one shared connection pool.

    ``env`` is where allowed header variables are read from (the runner's hook
    environment, without the server's own credentials); ``body_limit`` bounds how much
    of a response body is read.
    """

    def __init__(self, *, env: Mapping[str, str], body_limit: int) -> None:
        self._env = env
        self._body_limit = body_limit
        self._client: httpx.AsyncClient | None = None
        self._closed = False

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx  # only runners with http hooks pay for the import

            # Redirects are followed by hand (same origin only); the hook's own timeout
            # is a cancel scope around the whole exchange, so httpx has none of its own.
            self._client = httpx.AsyncClient(follow_redirects=False, timeout=None)
        return self._client

    async def aclose(self) -> None:
        """Close the connection pool (the runner does, when it closes)."""
        self._closed = True
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def run(
        self,
        spec: HookSpec,
        payload: Mapping[str, Any],
        payload_json: str,
        trace_headers: Mapping[str, str],
    ) -> HookResult:
        """POST ``payload_json`` to the hook's URL and turn the answer into a result."""
        url = spec.url or spec.command
        if self._closed:
            return failed_result(spec, HookStatus.ERROR, "the runner was closed; the request was not sent")
        filled = fill_headers(spec.headers, spec.allowed_env_vars, self._env)
        for name, value in filled.items():
            if any(c in value for c in "\r\n\0"):
                # Refused here so the value (it may hold a secret) never reaches an error text.
                return failed_result(
                    spec,
                    HookStatus.ERROR,
                    f"header {name!r} would hold a line break or NUL once its variables are filled; not sent",
                )
        headers = {**filled, "Content-Type": "application/json", **trace_headers}
        reply: _Reply | None = None
        with anyio.move_on_after(spec.timeout) as scope:
            try:
                reply = await self._exchange(url, payload_json.encode(), headers)
            except _HttpFailure as exc:
                return failed_result(spec, HookStatus.ERROR, str(exc))
        if reply is None or scope.cancelled_caught:
            return timeout_result(spec)
        text = reply.body.decode("utf-8", errors="replace")
        extra = {"http_status": reply.status}
        if not 200 <= reply.status < 300:
            return failed_result(
                spec, HookStatus.ERROR, f"HTTP {reply.status} from {url}", stdout=text, truncated=reply.truncated
            )
        if text.strip() and json_object(text) is None:
            why = "is cut off at the size limit" if reply.truncated else "is not a JSON object"
            return failed_result(
                spec,
                HookStatus.ERROR,
                f"HTTP {reply.status} from {url}: the response body {why}",
                stdout=text,
                truncated=reply.truncated,
            )
        # A 2xx JSON object (or nothing) is read as a command hook's stdout on exit 0.
        result = interpret_output(spec, payload, 0, text, "")
        result.exit_code = None
        result.extra.update(extra)
        return result

    async def _exchange(self, url: str, body: bytes, headers: dict[str, str]) -> _Reply:
        import httpx

        client = self._get_client()
        try:
            request = client.build_request("POST", url, content=body, headers=headers)
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
            raise _HttpFailure(f"cannot send to {url}: {exc}") from None
        origin = _origin(request.url)
        for _ in range(MAX_REDIRECTS + 1):
            try:
                response = await client.send(request, stream=True)
            except httpx.HTTPError as exc:
                raise _HttpFailure(f"request to {url} failed: {type(exc).__name__}: {exc}") from None
            try:
                nxt = response.next_request
                if response.is_redirect and nxt is not None:
                    if _origin(nxt.url) != origin:
                        raise _HttpFailure(
                            f"HTTP {response.status_code} from {url}: redirect to another host refused ({nxt.url})"
                        )
                    request = nxt
                    continue
                body_read, truncated = await self._read(response)
                return _Reply(response.status_code, body_read, truncated)
            except httpx.HTTPError as exc:
                raise _HttpFailure(f"reading the response from {url} failed: {type(exc).__name__}: {exc}") from None
            finally:
                await response.aclose()
        raise _HttpFailure(f"more than {MAX_REDIRECTS} redirects from {url}")

    async def _read(self, response: httpx.Response) -> tuple[bytes, bool]:
        # Bounded like a command hook's stdout: keep the first body_limit bytes, stop there.
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            room = self._body_limit - size
            if len(chunk) > room:
                chunks.append(chunk[:room])
                return b"".join(chunks), True
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), False
