"""Chat through the Codex backend with a ChatGPT sign-in (the Responses API over httpx).

LiteLLM is not used here: its ChatGPT provider keeps tokens in files, and the Codex backend
wants a Responses body with fields LiteLLM's bridge does not send (``instructions``,
``store: false``). The request and the streamed events are plain HTTP and SSE.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Sequence
from typing import Any

import httpx

from desktop.core.providers.base import (
    LLMError,
    LLMProvider,
    LLMResponse,
    StreamCallback,
    StreamDelta,
)
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.meter import current_meter
from desktop.core.providers.oauth.codex import ORIGINATOR
from desktop.core.providers.oauth.endpoints import CodexEndpoints
from desktop.core.providers.oauth.flow import as_dict
from desktop.core.providers.oauth.responses import (
    StreamState,
    apply_event,
    to_input,
    to_tool_choice,
    to_tools,
)
from desktop.core.providers.oauth.session import OAuthSession
from desktop.core.providers.oauth.tokens import OAuthTokens
from desktop.core.providers.retry import (
    DEFAULT_DELAYS,
    StreamRetries,
    classify,
    with_retries,
)
from desktop.core.providers.sanitize import sanitize_messages
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)
DRAIN_S = 2.0  # how long to wait for the end of a stream after its last event


class _Unauthorized(Exception):
    """The API answered 401 (the access token was refused)."""


def _headers(tokens: OAuthTokens, extra: dict[str, str]) -> dict[str, str]:
    headers = {
        **extra,
        "Authorization": f"Bearer {tokens.access}",
        "OpenAI-Beta": "responses=experimental",
        "originator": ORIGINATOR,
        "User-Agent": "nanobot-desktop",
        "Accept": "text/event-stream",
        "Content-Type": "application/json",
    }
    if tokens.account_id:
        headers["chatgpt-account-id"] = tokens.account_id
    return headers


class CodexProvider(LLMProvider):
    """The Codex Responses API with the tokens of a ChatGPT sign-in.

    Args:
        choice: Routing (model without prefix, the configured API base, extra headers).
        session: The signed-in tokens (renewed before expiry and once on a 401).
        endpoints: Where the API is.
        request_timeout: Seconds until the answer starts.
        stream_idle_timeout: Seconds a stream may stay silent.
        retry_delays: Backoff before each retry.
    """

    def __init__(
        self,
        choice: ProviderChoice,
        session: OAuthSession,
        endpoints: CodexEndpoints,
        *,
        request_timeout: float = 120.0,
        stream_idle_timeout: float = 60.0,
        retry_delays: Sequence[float] = DEFAULT_DELAYS,
    ) -> None:
        self.choice = choice
        self.session = session
        self.endpoints = endpoints
        self.request_timeout = request_timeout
        self.stream_idle_timeout = stream_idle_timeout
        self.retry_delays = tuple(retry_delays)

    def __repr__(self) -> str:
        return f"CodexProvider(model={self.choice.model!r})"

    @property
    def model(self) -> str:
        """The model sent to the API (without the ``openai-codex/`` prefix)."""
        return self.choice.model

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
        """The request body (``max_tokens`` and ``temperature`` are not sent: the Codex
        backend does not take them)."""
        instructions, items = to_input(sanitize_messages(messages))
        name = (model or self.choice.model).split("/", 1)[-1]
        reasoning: dict[str, str] = {"summary": "auto"}
        if reasoning_effort:
            reasoning["effort"] = reasoning_effort
        body: dict[str, Any] = {
            "model": name,
            "instructions": instructions,
            "input": items,
            "store": False,
            "stream": True,
            "tool_choice": to_tool_choice(tool_choice),
            "parallel_tool_calls": True,
            "reasoning": reasoning,
            # The same conversation start → the same key, so the backend can reuse its cache.
            "prompt_cache_key": hashlib.sha256(
                json.dumps(messages[:2], sort_keys=True, default=str).encode()
            ).hexdigest(),
        }
        converted = to_tools(tools)
        if converted:
            body["tools"] = converted
        return body

    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        reasoning_effort: str | None = None,
    ) -> LLMResponse:
        """One call (the backend only streams; the pieces are gathered)."""
        return await self.chat_stream(
            messages,
            tools,
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
        )

    async def chat_stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        on_delta: StreamCallback | None = None,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        reasoning_effort: str | None = None,
    ) -> LLMResponse:
        """One streamed call with retries."""
        body = self._body(
            messages,
            tools,
            model=model,
            tool_choice=tool_choice,
            reasoning_effort=reasoning_effort,
            max_tokens=max_tokens,
            temperature=temperature,
        )
        retries = StreamRetries(on_delta, len(self.retry_delays) + 1)

        return await with_retries(
            lambda _n: self._authorized(body, retries.forward),
            self.retry_delays,
            retries.before_retry,
            logger=log,
        )

    def headers(self, tokens: OAuthTokens, body: dict[str, Any]) -> dict[str, str]:
        """The headers of one request (the configured extra headers below ours)."""
        return _headers(tokens, dict(self.choice.extra_headers))

    def url(self) -> str:
        """Where the Responses request goes."""
        return f"{(self.choice.api_base or self.endpoints.api_base).rstrip('/')}/responses"

    async def _authorized(self, body: dict[str, Any], on_delta: Any) -> LLMResponse:
        """One attempt; a 401 renews the tokens and tries once more."""
        tokens = await self.session.atokens()
        try:
            return await self._stream_once(body, tokens, on_delta)
        except _Unauthorized:
            log.info("%s refused the access token; renewing the sign-in once", self.session.display)
        tokens = await self.session.atokens(rejected=tokens.access)
        try:
            return await self._stream_once(body, tokens, on_delta)
        except _Unauthorized:
            raise LLMError(
                Phrase(
                    QT_TR_NOOP(
                        "{provider} refused the sign-in even after renewing it. Sign out "
                        "and sign in again under Settings → Providers."
                    ),
                    provider=self.session.display,
                ),
                kind="auth",
                status=401,
            ) from None

    async def _stream_once(
        self, body: dict[str, Any], tokens: OAuthTokens, on_delta: Any
    ) -> LLMResponse:
        headers = self.headers(tokens, body)
        url = self.url()
        timeout = httpx.Timeout(self.request_timeout, read=self.stream_idle_timeout)
        state = StreamState()
        async with httpx.AsyncClient(timeout=timeout) as client:
            async with asyncio.timeout(self.request_timeout):
                request = client.build_request("POST", url, headers=headers, json=body)
                response = await client.send(request, stream=True)
            try:
                if response.status_code == 401:
                    raise _Unauthorized
                if response.status_code >= 400:
                    raise self._http_error(response, await response.aread())
                meter = current_meter()  # the server took the request: its cost is counted
                if meter is not None:
                    meter.sending()
                await self._read_events(response, state, on_delta)
            finally:
                await response.aclose()
        if state.finish is None:
            raise LLMError(
                Phrase(
                    QT_TR_NOOP("The connection to the model ended before the answer was complete.")
                ),
                kind="connection",
                retryable=True,
                details=f"stream ended without response.completed after {len(state.text)} pieces",
            )
        text = "".join(state.text)
        return LLMResponse(
            content=text if text.strip() else None,
            tool_calls=state.tool_calls(),
            finish_reason=state.finish,
            usage=state.usage,
            reasoning_content="".join(state.reasoning).strip() or None,
        )

    async def _read_events(
        self, response: httpx.Response, state: StreamState, on_delta: Any
    ) -> None:
        lines = response.aiter_lines()
        try:
            await self._consume(lines, state, on_delta)
            # Read on to the end of the stream (it ends right after the last event): a
            # generator chain left half-read is finalised by the garbage collector, which
            # an event loop without async-generator hooks (qasync) cannot do cleanly.
            async with asyncio.timeout(DRAIN_S):
                async for _rest in lines:
                    pass
        except TimeoutError:
            log.debug("the stream stayed open after the answer; closing it")
        finally:
            closer = getattr(lines, "aclose", None)  # an async generator (typed as an iterator)
            if closer is not None:
                await closer()

    async def _consume(self, lines: Any, state: StreamState, on_delta: Any) -> None:  # noqa: C901  # an SSE reader: idle timeout, data lines, events, end
        data: list[str] = []
        while True:
            try:
                async with asyncio.timeout(self.stream_idle_timeout):
                    line = await anext(lines)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise LLMError(
                    Phrase(
                        QT_TR_NOOP("The provider stream stalled for {seconds} s"),
                        seconds=f"{self.stream_idle_timeout:g}",
                    ),
                    kind="timeout",
                    retryable=True,
                ) from None
            if line.startswith("data:"):
                data.append(line[5:].strip())
                continue
            if line.strip() or not data:
                continue  # "event:" lines and comments; the type is in the data too
            raw, data = "\n".join(data), []
            if raw == "[DONE]":
                return
            try:
                event = json.loads(raw)
            except ValueError:
                log.debug("skipping a malformed event (%d chars)", len(raw))
                continue
            if not isinstance(event, dict):
                continue
            shown = apply_event(state, event)
            meter = current_meter()
            if meter is not None and shown is not None:
                meter.output(shown[1])
            if meter is not None and state.finish is not None:
                meter.reported(state.usage)
            if shown is not None:
                await on_delta(StreamDelta(shown[0], shown[1]))  # type: ignore[arg-type]  # apply_event's kind is text or reasoning, typed str
            if state.finish is not None:
                return

    def _http_error(self, response: httpx.Response, raw: bytes) -> LLMError:
        text = raw.decode("utf-8", "replace")
        try:
            payload = json.loads(text)
        except ValueError:
            payload = None
        message = text
        if isinstance(payload, dict):
            detail = as_dict(payload.get("error")) or payload
            message = str(detail.get("message") or detail.get("detail") or text)
        exc = httpx.HTTPStatusError(
            redact(message[:500]), request=response.request, response=response
        )
        error = classify(exc)
        if response.status_code == 429:
            error.message = (
                "ChatGPT usage limit reached or rate limited; try again later."
                if error.kind == "rate_limit"
                else error.message
            )
        return error
