"""Chat through the Grok subscription with an xAI sign-in (the Responses API over httpx).

The request and its streamed events have the shape of the Codex backend's (the same
:mod:`~desktop.core.providers.oauth.responses` conversion), so this is the Codex client with
xAI's headers and body: the Grok command-line tool's client headers (as nanobot 0.3.5 sends
them, with the model named again in ``x-grok-model-override``), and the answer's length and
temperature, which this API takes.
"""

from __future__ import annotations

import uuid
from typing import Any

from desktop.core.providers.oauth.codex_provider import CodexProvider
from desktop.core.providers.oauth.grok import CLIENT_VERSION, REFERRER
from desktop.core.providers.oauth.tokens import OAuthTokens


class GrokProvider(CodexProvider):
    """The Grok subscription's Responses API with the tokens of an xAI sign-in.

    Args:
        choice: Routing (model without prefix, the configured API base, extra headers).
        session: The signed-in tokens (renewed before expiry and once on a 401).
        endpoints: Where the API is (a :class:`GrokEndpoints`).
        max_tokens: Default answer length.
        temperature: Default temperature.
        **options: ``request_timeout``, ``stream_idle_timeout``, ``retry_delays``.
    """

    def __init__(
        self,
        choice: Any,
        session: Any,
        endpoints: Any,
        *,
        max_tokens: int = 8192,
        temperature: float = 0.1,
        **options: Any,
    ) -> None:
        super().__init__(choice, session, endpoints, **options)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self._conversation = str(uuid.uuid4())  # one id for the provider's lifetime

    def __repr__(self) -> str:
        return f"GrokProvider(model={self.choice.model!r})"

    def headers(self, tokens: OAuthTokens, body: dict[str, Any]) -> dict[str, str]:
        """xAI's client headers (the configured extra headers below them)."""
        return {
            **dict(self.choice.extra_headers),
            "Authorization": f"Bearer {tokens.access}",
            "X-XAI-Token-Auth": "xai-grok-cli",
            "x-authenticateresponse": "authenticate-response",
            "x-grok-client-version": CLIENT_VERSION,
            "x-grok-client-identifier": REFERRER,
            "x-grok-client-mode": "headless",
            "x-grok-conv-id": self._conversation,
            "x-grok-session-id": self._conversation,
            "x-grok-req-id": str(uuid.uuid4()),
            "x-grok-agent-id": str(uuid.uuid4()),
            "x-grok-model-override": str(body.get("model") or ""),
            "User-Agent": "nanobot-desktop",
            "Accept": "text/event-stream",
            "Content-Type": "application/json",
        }

    def _body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        *,
        model: str | None,
        tool_choice: str | dict[str, Any] | None,
        reasoning_effort: str | None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> dict[str, Any]:
        """The Codex body with xAI's fields: answer length, temperature, a concise reasoning
        summary (and its encrypted content back, to continue from it)."""
        body = super()._body(
            messages,
            tools,
            model=model,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
        )
        body.pop("prompt_cache_key", None)  # a Codex backend field
        reasoning = {"summary": "concise"}
        if reasoning_effort and reasoning_effort != "none":
            reasoning["effort"] = reasoning_effort
        body.update(
            reasoning=reasoning,
            include=["reasoning.encrypted_content"],
            max_output_tokens=max_tokens or self.max_tokens,
            temperature=self.temperature if temperature is None else temperature,
        )
        return body
