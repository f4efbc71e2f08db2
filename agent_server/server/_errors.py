"""The server's errors: the session layer's own, and the HTTP API's.

The session layer (:mod:`._session`) knows nothing of HTTP: it raises a
:class:`SessionError` subclass whose ``code`` names what went wrong. The app maps each
class to a status code in one place (``_app.HTTP_STATUS``), the way httpcore's
``map_exceptions`` translates foreign exceptions at a single boundary.
"""

from __future__ import annotations

__all__ = [
    "ApiError",
    "BusyError",
    "ClosedError",
    "InvalidRequestError",
    "NotFoundError",
    "SessionError",
    "UnavailableError",
]


class SessionError(Exception):
    """A request the session layer cannot carry out. ``code`` is the machine-readable
    kind the API reports (``{"error": {"code", "message"}}``)."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFoundError(SessionError):
    """No such session, pending approval or transcript."""

    code = "not_found"


class BusyError(SessionError):
    """The session is busy (a turn is running) or already open."""

    code = "busy"


class ClosedError(SessionError):
    """The session is closed."""

    code = "closed"


class InvalidRequestError(SessionError):
    """A value the session layer does not accept (a permission mode, a session id)."""

    code = "invalid"


class UnavailableError(SessionError):
    """The server is shutting down."""

    code = "unavailable"


class ApiError(Exception):
    """An error the HTTP layer itself reports as ``{"error": {"code", "message"}}``
    with ``status`` (a malformed body, an unknown query value)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
