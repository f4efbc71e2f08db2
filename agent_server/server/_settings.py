"""Server settings: environment variables (prefix ``AGENT_SERVER_``), a ``.env`` file, or
keyword arguments. Every invalid value becomes one :class:`SettingsInvalid` error that
names the variable, the value and the problem (no traceback)."""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings.exceptions import SettingsError

from agent_server.hooks import HookLedger, LedgerError

__all__ = ["ENV_PREFIX", "PermissionMode", "Settings", "SettingsInvalid", "load_settings"]

ENV_PREFIX = "AGENT_SERVER_"

PermissionMode = Literal["default", "acceptEdits", "bypassPermissions", "plan"]
PERMISSION_MODES: tuple[str, ...] = ("default", "acceptEdits", "bypassPermissions", "plan")


class SettingsInvalid(ValueError):
    """Settings that cannot be used; ``str()`` is a message fit for the user."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    """Everything the server can be configured with.

    Each field ``name`` is read from the environment variable ``AGENT_SERVER_<NAME>``
    (or a ``.env`` file in the current directory); keyword arguments win over both.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    host: str = Field("127.0.0.1", description="Interface to bind.")
    port: int = Field(8765, ge=0, le=65535, description="TCP port (0 picks a free one).")
    project_dir: Path = Field(default_factory=Path.cwd, description="The project the agent works in (default: cwd).")
    data_dir: Path | None = Field(None, description="Transcripts etc. (default: <project>/.agent-server).")
    api_token: SecretStr | None = Field(
        None,
        description="The API secret (bearer token / chat cookie); default: a random one per launch. "
        "Mandatory off loopback.",
    )
    auth: Literal["token", "none"] = Field(
        "token", description="`none` turns the token off (loopback only; logged as a warning)."
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names accepted besides loopback and the bound host (reverse proxy); `*` = any.",
    )
    trust_all_hooks: bool = Field(
        False, description="Run every project hook without asking for trust (CI, containers)."
    )
    env: Literal["production", "development"] = Field(
        "production", description="`development` exposes debugging aids in the chat page."
    )
    backend: Literal["scripted", "anthropic"] = Field(
        "scripted", description="Model backend: offline `scripted` or the `anthropic` Messages API."
    )
    anthropic_base_url: str | None = Field(None, description="Messages API base URL.")
    anthropic_api_key: SecretStr | None = Field(None, description="API key (falls back to ANTHROPIC_API_KEY).")
    anthropic_model: str = Field("claude-sonnet-5-5", min_length=1, description="Model name.")
    anthropic_max_tokens: int = Field(4096, ge=1, description="max_tokens per model call.")
    system_prompt: str | None = Field(None, description="Override the system prompt.")
    hooks_order: Literal["sequential", "parallel"] | None = Field(
        None, description="Override the hook order of every event."
    )
    hook_ledger: bool = Field(True, description="Record every hook run in <data_dir>/hooks.db.")
    hook_ledger_retention_days: float | None = Field(
        None,
        gt=0,
        allow_inf_nan=False,
        description="Delete ledger events older than this many days (at start, then hourly); unset keeps everything.",
    )
    ledger_url: str | None = Field(
        None,
        description="Write the hook ledger to this PostgreSQL database (postgresql://user@host/db, needs the "
        "postgres extra) instead of <data_dir>/hooks.db; many servers may share one.",
    )
    ledger_tool_input: bool = Field(
        False,
        description="Record each event's tool input in the hook ledger (capped, secrets redacted).",
    )
    metrics_endpoint: bool = Field(True, description="Serve hook metrics in Prometheus text format on GET /metrics.")
    trace_content: bool = Field(
        False,
        description="Record prompts, replies and tool input/output on spans (capped, secrets redacted).",
    )
    read_user_settings: bool = Field(True, description="Also load hooks from ~/.claude/settings.json.")
    stop_block_cap: int = Field(
        9, ge=1, description="Stop/SubagentStop blocks in a row after which the turn ends anyway."
    )
    context_budget: int = Field(
        400_000, ge=0, description="Conversation size (characters) that triggers auto-compaction; 0 = off."
    )
    permission_mode: PermissionMode = Field("default", description="Default permission mode of new sessions.")
    approval_timeout: float = Field(300.0, gt=0, description="Seconds to wait for a user's approval before denying.")
    idle_notification_seconds: float = Field(
        60.0, ge=0, description="Fire Notification(idle_prompt) after this idle time; 0 = off."
    )
    bash_timeout: float = Field(120.0, gt=0, description="Default Bash timeout in seconds.")
    bash_max_timeout: float = Field(600.0, gt=0, description="Largest Bash timeout a model may ask for.")
    tool_output_limit: int = Field(30_000, ge=100, description="Characters of tool output the model sees.")
    confine_tools: bool = Field(True, description="Refuse file paths outside the project (and allowed_dirs).")
    allowed_dirs: list[Path] = Field(default_factory=list, description="Extra directories tools may use.")
    max_turn_steps: int = Field(100, ge=1, description="Model calls per turn before it is stopped.")
    default_settings_fallback: bool = Field(
        True, description="Load the packaged default hooks when the project has no .claude/settings.json."
    )

    @field_validator("project_dir", mode="after")
    @classmethod
    def _project_exists(cls, value: Path) -> Path:
        path = value.expanduser().resolve()
        if not path.is_dir():
            raise ValueError(f"directory {str(value)!r} does not exist")
        return path

    @field_validator("allowed_dirs", mode="after")
    @classmethod
    def _resolve_dirs(cls, value: list[Path]) -> list[Path]:
        return [p.expanduser().resolve() for p in value]

    @field_validator("anthropic_base_url", mode="after")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"must be an http(s) URL, got {value!r}")
        return value

    @field_validator("ledger_url", mode="after")
    @classmethod
    def _ledger_url(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                HookLedger.check_url(value)
            except LedgerError as exc:  # (reported with the variable's name, its password hidden)
                raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="after")
    def _cross_checks(self) -> Settings:
        if self.data_dir is None:
            self.data_dir = self.project_dir / ".agent-server"
        else:
            self.data_dir = self.data_dir.expanduser().resolve()
        if not is_loopback(self.host) and self.api_token is None:
            raise ValueError(
                f"host {self.host!r} is not a loopback address: set {ENV_PREFIX}API_TOKEN so "
                "requests need 'Authorization: Bearer <token>' (or bind 127.0.0.1)"
            )
        if self.auth == "none" and not is_loopback(self.host):
            raise ValueError(
                f"{ENV_PREFIX}AUTH=none is only allowed on a loopback host, not {self.host!r}: "
                f"set {ENV_PREFIX}API_TOKEN instead"
            )
        if self.api_token is not None and len(self.api_token.get_secret_value()) < 8:
            raise ValueError(f"{ENV_PREFIX}API_TOKEN must be at least 8 characters")
        return self

    @property
    def data_path(self) -> Path:
        """The resolved data directory."""
        assert self.data_dir is not None
        return self.data_dir

    def api_key(self) -> str | None:
        """The Anthropic API key: the setting, else ``ANTHROPIC_API_KEY``."""
        if self.anthropic_api_key is not None:
            return self.anthropic_api_key.get_secret_value()
        return os.environ.get("ANTHROPIC_API_KEY") or None

    def check_backend(self) -> None:
        """Raise :class:`SettingsInvalid` if the chosen backend cannot work."""
        if self.backend == "anthropic" and not self.api_key():
            raise SettingsInvalid(
                f"{ENV_PREFIX}BACKEND=anthropic needs an API key: set {ENV_PREFIX}ANTHROPIC_API_KEY "
                "(or ANTHROPIC_API_KEY)"
            )


def _describe(exc: ValidationError, given: dict[str, Any]) -> str:
    lines = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p != "__root__"]
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        if not loc:
            lines.append(msg)
            continue
        field = loc[0]
        var = f"{ENV_PREFIX}{field.upper()}"
        value = given.get(field, os.environ.get(var))
        shown = (
            f"={value!r}"
            if value is not None and "token" not in field and "key" not in field and "url" not in field
            else ""
        )
        lines.append(f"{var}{shown}: {msg}")
    return "invalid settings:\n  " + "\n  ".join(lines)


def load_settings(**overrides: Any) -> Settings:
    """Build :class:`Settings` from the environment, ``.env`` and ``overrides``.

    Raises :class:`SettingsInvalid` with a message naming each bad variable.
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise SettingsInvalid(_describe(exc, overrides)) from None
    except SettingsError as exc:
        text = str(exc)
        m = re.search(r'field "([^"]+)"', text)
        if m:
            var = f"{ENV_PREFIX}{m.group(1).upper()}"
            raise SettingsInvalid(
                f"invalid settings:\n  {var}={os.environ.get(var)!r}: cannot parse it "
                '(lists are JSON, e.g. ["/a", "/b"])'
            ) from None
        raise SettingsInvalid(f"invalid settings: {text}") from None
