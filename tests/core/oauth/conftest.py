"""Fixtures: the fake OAuth/API server with every URL pointed at it, helpers to sign in."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from desktop.core.config.secrets import SecretStore
from desktop.core.providers.oauth.accounts import sign_in
from desktop.core.providers.oauth.flow import LoginPrompt
from desktop.core.providers.oauth.tokens import OAuthTokens
from tests.fakes.oauth_server import FakeOAuthServer


@pytest.fixture
def oauth_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOAuthServer]:
    """The fake server; the environment sends every sign-in and API call to it."""
    with FakeOAuthServer() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        yield server


async def act_as_browser(url: str) -> httpx.Response:
    """Open the sign-in page and follow its redirect back to the app's callback server."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=10) as client:
        return await client.get(url)


class Prompts:
    """Collects the prompts of a sign-in; for the browser flow, plays the browser."""

    def __init__(self, *, browse: bool = True) -> None:
        self.seen: list[LoginPrompt] = []
        self.browse = browse
        self.pages: list[httpx.Response] = []
        self._tasks: list[asyncio.Task[Any]] = []

    def __call__(self, prompt: LoginPrompt) -> None:
        self.seen.append(prompt)
        if prompt.kind == "browser" and self.browse:
            self._tasks.append(asyncio.get_running_loop().create_task(self._open(prompt.url)))

    async def _open(self, url: str) -> None:
        self.pages.append(await act_as_browser(url))


async def signed_in_codex(store: SecretStore) -> OAuthTokens:
    """Sign in to ChatGPT (Codex) against the fake server (env from ``oauth_server``)."""
    return await sign_in("openai-codex", store, on_prompt=Prompts())


async def signed_in_copilot(store: SecretStore) -> OAuthTokens:
    """Sign in to GitHub Copilot against the fake server."""
    return await sign_in("github-copilot", store, on_prompt=Prompts())
