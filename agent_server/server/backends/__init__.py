"""Model backends: ``scripted`` (offline, deterministic) and ``anthropic`` (Messages API)."""

from __future__ import annotations

from .._settings import Settings
from ._base import (
    BackendError,
    ModelBackend,
    ModelReply,
    ModelRequest,
    TextSink,
    message_text,
    to_api_messages,
)
from .scripted import ScriptedBackend, parse_script

__all__ = [
    "BackendError",
    "ModelBackend",
    "ModelReply",
    "ModelRequest",
    "ScriptedBackend",
    "TextSink",
    "make_backend",
    "message_text",
    "parse_script",
    "to_api_messages",
]


def make_backend(settings: Settings) -> ModelBackend:
    """The backend ``settings.backend`` names."""
    if settings.backend == "anthropic":
        from .anthropic_api import AnthropicBackend

        settings.check_backend()
        key = settings.api_key()
        assert key is not None
        return AnthropicBackend(
            api_key=key,
            model=settings.anthropic_model,
            base_url=settings.anthropic_base_url,
            max_tokens=settings.anthropic_max_tokens,
        )
    return ScriptedBackend()
