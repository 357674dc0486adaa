"""Chat through GitHub Copilot: LiteLLM's OpenAI-compatible path with a Copilot token.

LiteLLM's own ``github_copilot`` provider is not used: its authenticator keeps tokens in files
under ``~/.config``. Here the GitHub token comes from the keyring, the short-lived Copilot token
is fetched with it (and kept in memory), and each call goes to the Copilot chat API as a plain
OpenAI-compatible request with that token as the key.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from desktop.core.providers.base import LLMError, LLMProvider, LLMResponse, StreamCallback
from desktop.core.providers.litellm_provider import LiteLLMProvider
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.oauth.copilot import (
    CopilotAccessDenied,
    CopilotToken,
    chat_headers,
    exchange,
)
from desktop.core.providers.oauth.endpoints import CopilotEndpoints
from desktop.core.providers.oauth.session import OAuthSession
from desktop.core.providers.retry import DEFAULT_DELAYS
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.threads import run_daemon

log = logging.getLogger(__name__)


class CopilotProvider(LLMProvider):
    """GitHub Copilot's chat API with the tokens of a GitHub sign-in.

    Args:
        choice: Routing (the model as LiteLLM wants it, configured API base and headers).
        session: The signed-in GitHub token.
        endpoints: GitHub and Copilot URLs.
        max_tokens: Default completion limit.
        temperature: Default temperature.
        request_timeout: Seconds until the answer starts.
        stream_idle_timeout: Seconds a stream may stay silent.
        retry_delays: Backoff before each retry.
    """

    calls_litellm = True

    def __init__(
        self,
        choice: ProviderChoice,
        session: OAuthSession,
        endpoints: CopilotEndpoints,
        *,
        max_tokens: int = 8192,
        temperature: float = 0.1,
        request_timeout: float = 120.0,
        stream_idle_timeout: float = 60.0,
        retry_delays: Sequence[float] = DEFAULT_DELAYS,
    ) -> None:
        self.choice = choice
        self.session = session
        self.endpoints = endpoints
        self._options: dict[str, Any] = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "request_timeout": request_timeout,
            "stream_idle_timeout": stream_idle_timeout,
            "retry_delays": tuple(retry_delays),
        }
        self._lock = threading.Lock()
        self._token: CopilotToken | None = None
        self._token_owner = ""  # the GitHub token the cached Copilot token came from
        self._inner: tuple[str, LiteLLMProvider] | None = None  # (Copilot token, provider)
        self.exchanges = 0  # Copilot tokens fetched (for tests and the log)

    def __repr__(self) -> str:
        return f"CopilotProvider(model={self.choice.model!r})"

    @property
    def model(self) -> str:
        """The routed model (``openai/<name>``)."""
        return self.choice.model

    def _copilot_token(self, refused: str | None) -> CopilotToken:
        """A valid Copilot token (blocking): the cached one, or a fresh exchange.

        The GitHub sign-in is read from the keyring every time (a sign-out stops the next
        call); the cached Copilot token is used only while it belongs to that sign-in.
        """
        with self._lock:
            github = self.session.tokens()
            cached = self._token
            if (
                cached is not None
                and self._token_owner == github.access
                and not cached.expiring()
                and cached.token != refused
            ):
                return cached
            try:
                token = exchange(self.endpoints, github.access)
            except CopilotAccessDenied:
                # The GitHub token itself was refused: renew it (or sign out), then once more.
                github = self.session.tokens(rejected=github.access)
                token = exchange(self.endpoints, github.access)
            self._token, self._token_owner = token, github.access
            self.exchanges += 1
            log.info("fetched a GitHub Copilot token")
            return token

    async def _provider(self, refused: str | None = None) -> tuple[str, LiteLLMProvider]:
        """``(Copilot token, a LiteLLM provider using it)``; built again for a new token."""
        token = await run_daemon(lambda: self._copilot_token(refused), "copilot-token")
        inner = self._inner
        if inner is None or inner[0] != token.token:
            headers = {**chat_headers(), **self.choice.extra_headers}
            choice = dataclasses.replace(
                self.choice, api_base=self.choice.api_base or token.api_base, extra_headers=headers
            )
            inner = (token.token, LiteLLMProvider(choice, api_key=token.token, **self._options))
            self._inner = inner
        return inner

    async def _call(self, call: Callable[[LiteLLMProvider], Any]) -> LLMResponse:
        """``call`` on the provider; a 401 fetches a new Copilot token and tries once more."""
        token, inner = await self._provider()
        try:
            result: LLMResponse = await call(inner)
            return result
        except LLMError as exc:
            if exc.status != 401:
                raise
            log.info("the Copilot API refused the Copilot token; fetching a new one once")
        _token, inner = await self._provider(refused=token)
        try:
            result = await call(inner)
            return result
        except LLMError as exc:
            if exc.status == 401:
                raise LLMError(
                    Phrase(
                        QT_TR_NOOP(
                            "{provider} refused the sign-in even after renewing it. Sign out "
                            "and sign in again under Settings → Providers."
                        ),
                        provider="GitHub Copilot",
                    ),
                    kind="auth",
                    status=401,
                    details=exc.details,
                ) from None
            raise

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
        """One non-streaming call."""
        return await self._call(
            lambda inner: inner.chat(
                messages,
                tools,
                model=model,
                max_tokens=max_tokens,
                temperature=temperature,
                tool_choice=tool_choice,
                reasoning_effort=reasoning_effort,
            )
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
        """One streaming call."""
        return await self._call(
            lambda inner: inner.chat_stream(
                messages,
                tools,
                on_delta=on_delta,
                model=model,
                max_tokens=max_tokens,
                temperature=temperature,
                tool_choice=tool_choice,
                reasoning_effort=reasoning_effort,
            )
        )
