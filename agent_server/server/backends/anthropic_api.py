"""The ``anthropic`` backend: the official SDK's Messages API with tool use and streaming."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_server.hooks import PROMPT_HOOK_SCHEMA, PROMPT_HOOK_SYSTEM, expand_prompt, parse_prompt_reply

from ._base import BackendError, ModelBackend, ModelReply, ModelRequest, TextSink, to_api_messages

__all__ = ["AnthropicBackend"]

_SUMMARY_PROMPT = (
    "Summarize the conversation so far for a continuation: the user's requests, what was "
    "done (files, commands, results), and what remains. Be concise."
)


class AnthropicBackend(ModelBackend):
    """Calls ``POST {base_url}/v1/messages`` (streaming) through the ``anthropic`` SDK."""

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        max_tokens: int = 4096,
        timeout: float = 600.0,
        max_retries: int = 2,
    ) -> None:
        try:
            import anthropic
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise BackendError(
                "the anthropic backend needs the 'anthropic' package: pip install 'agent-server[anthropic]'"
            ) from exc
        self._anthropic = anthropic
        self.model = model
        self.max_tokens = max_tokens
        self.base_url = base_url
        self.client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries
        )

    def _error(self, exc: Exception) -> BackendError:
        anthropic = self._anthropic
        if isinstance(exc, anthropic.APIConnectionError):
            where = self.base_url or "the Anthropic API"
            return BackendError(f"cannot reach the Messages API at {where}: {exc}")
        if isinstance(exc, anthropic.APIStatusError):
            return BackendError(f"Messages API error {exc.status_code}: {exc.message}")
        return BackendError(f"Messages API error: {type(exc).__name__}: {exc}")

    async def respond(self, request: ModelRequest, on_text: TextSink | None = None) -> ModelReply:
        """Stream one assistant message; text deltas go to ``on_text``."""
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": to_api_messages(request.messages),
        }
        if request.system:
            params["system"] = request.system
        if request.tools:
            params["tools"] = request.tools
        try:
            async with self.client.messages.stream(**params) as stream:
                async for event in stream:
                    if event.type == "text" and on_text is not None:
                        await on_text(event.text)
                final = await stream.get_final_message()
        except self._anthropic.AnthropicError as exc:
            raise self._error(exc) from None
        content: list[dict[str, Any]] = []
        for block in final.content:
            if block.type == "text":
                content.append({"type": "text", "text": block.text})
            elif block.type == "tool_use":
                content.append(
                    {
                        "type": "tool_use",
                        "id": block.id,
                        "name": block.name,
                        "input": dict(block.input) if isinstance(block.input, dict) else {},
                    }
                )
        usage = {"input_tokens": final.usage.input_tokens, "output_tokens": final.usage.output_tokens}
        return ModelReply(content=content, stop_reason=str(final.stop_reason or "end_turn"), usage=usage)

    async def summarize(self, messages: Sequence[dict[str, Any]], instructions: str | None) -> str:
        """Ask the model for a summary (no tools)."""
        # Claude Code's wording for the user's and PreCompact hooks' instructions (§9).
        prompt = _SUMMARY_PROMPT + (f"\n\nAdditional Instructions:\n{instructions}" if instructions else "")
        convo = [*messages, {"role": "user", "content": prompt}]
        try:
            reply = await self.client.messages.create(
                model=self.model,
                max_tokens=self.max_tokens,
                messages=to_api_messages(convo),  # type: ignore[arg-type]
            )
        except self._anthropic.AnthropicError as exc:
            raise self._error(exc) from None
        text = "".join(b.text for b in reply.content if b.type == "text").strip()
        return text or "(empty summary)"

    async def evaluate_hook_prompt(self, prompt: str, payload: Mapping[str, Any]) -> Mapping[str, Any]:
        """One Messages API call, no tools, JSON-schema output ``{ok, reason}`` (contract §11).

        A reply that is not such JSON raises :class:`~agent_server.hooks.PromptReplyError`
        (the hook is then a non-blocking error)."""
        try:
            reply = await self.client.messages.create(
                model=self.model,
                max_tokens=self.max_tokens,
                system=PROMPT_HOOK_SYSTEM,
                messages=[{"role": "user", "content": expand_prompt(prompt, payload)}],
                # Passed as a raw field so that SDKs older than structured outputs send it too.
                extra_body={"output_config": {"format": {"type": "json_schema", "schema": PROMPT_HOOK_SCHEMA}}},
            )
        except self._anthropic.AnthropicError as exc:
            raise self._error(exc) from None
        return parse_prompt_reply("".join(b.text for b in reply.content if b.type == "text"))

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self.client.close()
