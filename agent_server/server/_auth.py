"""The server's front door: Host and Origin checks, JSON-only bodies, and the API secret.

Every HTTP request passes :class:`FrontDoor` before any route:

1. ``Host`` must name a loopback address, the bound host or one of
   ``AGENT_SERVER_ALLOWED_HOSTS`` (DNS rebinding) — else 403 naming the header.
2. A state-changing request (POST, PUT, PATCH, DELETE) whose ``Origin`` is present must come
   from the server's own origin (cross-site requests) — else 403.
3. Outside the public paths (the chat page and its files, ``/health``, ``/openapi.json``)
   the request needs the secret: ``Authorization: Bearer <token>``, the chat page's
   HttpOnly cookie, or (the event stream only) ``?access_token=`` — else 401.
4. A state-changing request with a body must send ``Content-Type: application/json`` — else
   415 (HTML forms and ``text/plain`` cannot reach the API).

Tokens are compared in constant time. See docs/server.md "Security model".
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import socket
from urllib.parse import urlsplit

from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from ._api import Error, ErrorDetail
from ._settings import Settings

__all__ = [
    "COOKIE_NAME",
    "FrontDoor",
    "authenticated",
    "check_token",
    "cookie_name",
    "launch_token",
    "login_response",
    "public_path",
]

COOKIE_NAME = "agent_server_token"  # + "_" and a digest of the secret, see cookie_name()
_PUBLIC = ("/health", "/chat", "/openapi.json")
_STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


def launch_token(settings: Settings) -> str | None:
    """The API secret: ``AGENT_SERVER_API_TOKEN``, else a fresh random one per launch;
    None when ``AGENT_SERVER_AUTH=none``."""
    if settings.auth == "none":
        return None
    if settings.api_token is not None:
        return settings.api_token.get_secret_value()
    return secrets.token_urlsafe(32)


def cookie_name(token: str) -> str:
    """The chat cookie's name for this secret. Cookies are per host, not per port: two
    servers on 127.0.0.1 get different names, so signing in to one keeps the other's."""
    return f"{COOKIE_NAME}_{hashlib.sha256(token.encode()).hexdigest()[:12]}"


def check_token(given: str, token: str) -> bool:
    """Constant-time comparison of a presented token with the secret."""
    return bool(given) and hmac.compare_digest(given.encode("utf-8", "replace"), token.encode())


def _error(status: int, code: str, message: str, **extra: str) -> JSONResponse:
    # Built from the published ``Error`` model, like every other error response.
    body = Error(error=ErrorDetail(code=code, message=message, **extra))
    return JSONResponse(body.model_dump(mode="json", exclude_unset=True), status_code=status)


def _host_name(host: str) -> str:
    """The name part of a ``Host`` value (``[::1]:8765`` -> ``::1``), lower-case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host


def _is_loopback_name(name: str) -> bool:
    if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def authenticated(scope: Scope, headers: Headers, token: str | None) -> bool:
    """Whether a request carries the secret: bearer header, the chat cookie, or (event
    stream only) ``?access_token=``. Always true when ``token`` is None (auth off)."""
    if token is None:
        return True
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and check_token(value.strip(), token):
        return True
    wanted = cookie_name(token)
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == wanted and check_token(value, token):
            return True
    if scope["path"].endswith("/events"):
        # EventSource cannot send headers; a non-browser client may pass the token here.
        query = QueryParams(scope.get("query_string", b"").decode("latin-1"))
        return check_token(query.get("access_token", ""), token)
    return False


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def public_path(path: str) -> bool:
    """Paths served without the secret: the chat page (and its files), health, the spec."""
    return path == "/" or any(path == p or path.startswith(p + "/") for p in _PUBLIC)


class FrontDoor:
    """ASGI middleware applying the front-door checks (module docstring) to every request."""

    def __init__(self, app: ASGIApp, settings: Settings, token: str | None) -> None:
        self.app = app
        self.token = token
        self.any_host = "*" in settings.allowed_hosts
        bound = settings.host.strip("[]").lower()
        self.hosts = {h.lower() for h in settings.allowed_hosts}
        # Bound to every interface, the server is meant to be reached by this machine's
        # addresses: any IP literal (DNS rebinding always uses a name) and its host name.
        self.any_address = bound in ("0.0.0.0", "::", "")
        if self.any_address:
            self.hosts |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        else:
            self.hosts.add(bound)

    def host_allowed(self, host: str) -> bool:
        """Whether a ``Host`` header value may reach this server."""
        name = _host_name(host)
        if self.any_host or _is_loopback_name(name) or name in self.hosts:
            return True
        return self.any_address and _is_ip(name)

    def authenticated(self, scope: Scope, headers: Headers) -> bool:
        """Whether the request carries the secret (always true without auth)."""
        return authenticated(scope, headers, self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        response = self.refuse(scope, headers)
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def refuse(self, scope: Scope, headers: Headers) -> JSONResponse | None:
        """The error response for a request that may not pass, else None."""
        host = headers.get("host", "")
        if not self.host_allowed(host):
            return _error(
                403,
                "forbidden_host",
                f"Host header {host!r} is not this server: use a loopback address, or add the name to "
                "AGENT_SERVER_ALLOWED_HOSTS (behind a reverse proxy)",
                header="Host",
            )
        method = scope["method"]
        path = scope["path"]
        origin = headers.get("origin")
        if method in _STATE_CHANGING and origin is not None and not self._same_origin(origin, host):
            return _error(
                403,
                "forbidden_origin",
                f"Origin header {origin!r} is not this server ({host}): cross-site requests are refused",
                header="Origin",
            )
        if not public_path(path) and not self.authenticated(scope, headers):
            response = _error(
                401,
                "unauthorized",
                "missing or wrong token: send 'Authorization: Bearer <token>' (AGENT_SERVER_API_TOKEN, or the "
                "token in the URL `agent-server serve` printed), or open that URL to get the chat page's cookie",
            )
            response.headers["WWW-Authenticate"] = "Bearer"
            return response
        if method in _STATE_CHANGING and self._has_body(headers):
            ctype = headers.get("content-type", "")
            if ctype.split(";")[0].strip().lower() != "application/json":
                return _error(
                    415,
                    "unsupported_media_type",
                    f"request bodies must be JSON with 'Content-Type: application/json', got {ctype or 'none'!r}",
                    header="Content-Type",
                )
        return None

    @staticmethod
    def _has_body(headers: Headers) -> bool:
        length = headers.get("content-length")
        if length is not None:
            return length.strip() not in ("", "0")
        return "transfer-encoding" in headers or "content-type" in headers

    @staticmethod
    def _same_origin(origin: str, host: str) -> bool:
        # Host was checked above; the scheme is not compared (a TLS proxy in front).
        parts = urlsplit(origin.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" (sandboxed frames, file://) and anything odd
        default = {"http": "80", "https": "443"}[parts.scheme]
        given = host.strip().lower()
        if ":" not in given.rsplit("]", 1)[-1]:
            given = f"{given}:{default}"
        netloc = parts.netloc.lower()
        if ":" not in netloc.rsplit("]", 1)[-1]:
            netloc = f"{netloc}:{default}"
        return netloc == given


def login_response(request: Request, token: str | None) -> Response | None:
    """``/chat?token=…``: exchange the printed token for the chat page's cookie (HttpOnly,
    SameSite=Strict) and redirect to the same page without the token in the URL. None when
    the URL carries no token; 401 when it carries a wrong one."""
    given = request.query_params.get("token")
    if given is None or token is None:
        return None
    if not check_token(given, token):
        return _error(
            401,
            "unauthorized",
            "the token in this URL is wrong (or from an earlier launch): open the URL `agent-server serve` printed",
        )
    rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
    query = str(QueryParams(rest))
    response = RedirectResponse(request.url.path + (f"?{query}" if query else ""), status_code=303)
    response.set_cookie(
        cookie_name(token),
        token,
        httponly=True,
        samesite="strict",
        path="/",
        secure=request.headers.get("x-forwarded-proto", request.url.scheme) == "https",
    )
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
