"""OAuth for HTTP/SSE MCP servers (``"auth": "oauth"`` in the entry, as nanobot 0.3.5 spells it).

No Qt here. The flow itself is the ``mcp`` SDK's :class:`~mcp.client.auth.OAuthClientProvider`
(discovery, dynamic client registration, authorization code with PKCE, refresh); this module
gives it what the desktop needs around it:

* :class:`KeyringTokenStorage` keeps the tokens, the registered client and the server's OAuth
  metadata in the OS keyring (one JSON value ``mcp-oauth.<server>``, split over
  ``mcp-oauth.<server>#1``… like the providers' sign-ins when longer than Windows allows
  one entry), with the expiry time, so
  an access token that expired while the app was closed is refreshed, not used.
* :func:`background_auth` is what a connect from an agent turn uses: stored tokens (refreshed
  when expired), and never a browser — when a person has to sign in, the connect fails with
  :class:`SignInRequired`, whose message says where to do it.
* :func:`sign_in` runs the browser step: a loopback listener on ``127.0.0.1`` receives the
  redirect (path ``/auth/mcp/callback``, as nanobot uses), ``open_url`` opens the authorization
  page (``QDesktopServices`` in the window, ``webbrowser`` in the CLI, the test follows it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
from mcp.client import Client
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
)
from pydantic import AnyUrl, ValidationError

from desktop import __version__
from desktop.core.config.schema import MCPServerConfig
from desktop.core.config.secrets import KeyringUnavailable, SecretStore
from desktop.core.providers.oauth.tokens import TokenVault
from desktop.core.utils.redact import register_secret
from desktop.core.utils.threads import run_daemon

CALLBACK_PATH = "/auth/mcp/callback"
_PLACEHOLDER_REDIRECT = f"http://127.0.0.1{CALLBACK_PATH}"
_PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
    b"<!doctype html><title>nanobot Desktop</title><p>%s You can close this tab.</p>"
)


class SignInRequired(RuntimeError):
    """The server wants a person to sign in (in the browser) before it can be used."""


def keyring_name(server: str) -> str:
    """The keyring user name of server ``server``'s OAuth state."""
    return f"mcp-oauth.{server}"


def _register(tokens: OAuthToken | None) -> None:
    if tokens is not None:
        register_secret(tokens.access_token)
        register_secret(tokens.refresh_token)


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` over one keyring entry (JSON), bound to the server's URL.

    Args:
        store: The keyring.
        server: The server's configured name.
        url: Its URL; state saved for another URL is ignored (the entry was edited).
        fresh: Start empty (a new sign-in); what is stored is replaced once it succeeds.
    """

    def __init__(self, store: SecretStore, server: str, url: str, *, fresh: bool = False) -> None:
        self._vault = TokenVault(store)
        self._name = keyring_name(server)
        self._url = url
        self._data: dict[str, Any] | None = {"url": url} if fresh else None
        self.provider: OAuthClientProvider | None = None  # set by _provider(): metadata, expiry

    async def _load(self) -> dict[str, Any]:
        if self._data is None:
            try:
                raw = await run_daemon(lambda: self._vault.read_text(self._name), "mcp-oauth-read")
            except KeyringUnavailable:
                raw = None
            try:
                data = json.loads(raw) if raw else {}
            except ValueError:
                data = {}
            self._data = data if isinstance(data, dict) and data.get("url") == self._url else {}
            self._data["url"] = self._url
        return self._data

    async def _save(self) -> None:
        assert self._data is not None
        context = self.provider.context if self.provider is not None else None
        if context is not None and context.oauth_metadata is not None:
            self._data["metadata"] = context.oauth_metadata.model_dump(mode="json")
        if context is not None:
            self._data["expiresAt"] = context.token_expiry_time
        text = json.dumps(self._data)
        await run_daemon(lambda: self._vault.write_text(self._name, text), "mcp-oauth-write")

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens, if any."""
        raw = (await self._load()).get("tokens")
        try:
            tokens = OAuthToken.model_validate(raw) if raw else None
        except ValidationError:
            return None
        _register(tokens)
        return tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Keep fresh tokens (with their expiry time)."""
        _register(tokens)
        (await self._load())["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        await self._save()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The client registered with the authorization server, if any."""
        raw = (await self._load()).get("client")
        try:
            return OAuthClientInformationFull.model_validate(raw) if raw else None
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Keep the registered client."""
        (await self._load())["client"] = client_info.model_dump(mode="json", exclude_none=True)
        await self._save()

    async def stored_extras(self) -> tuple[float | None, OAuthMetadata | None]:
        """``(expires_at, metadata)`` kept beside the tokens."""
        data = await self._load()
        expires = data.get("expiresAt")
        try:
            metadata = (
                OAuthMetadata.model_validate(data["metadata"]) if "metadata" in data else None
            )
        except ValidationError:
            metadata = None
        return (float(expires) if isinstance(expires, int | float) else None), metadata


class _StoredProvider(OAuthClientProvider):
    """The SDK's provider, also restoring the expiry time and OAuth metadata it stored.

    Without them a token that expired while the app was closed counts as valid (and a refresh
    would go to ``<origin>/token`` instead of the server's real token endpoint).
    """

    async def _initialize(self) -> None:
        await super()._initialize()
        storage = self.context.storage
        if isinstance(storage, KeyringTokenStorage):
            expires, metadata = await storage.stored_extras()
            self.context.token_expiry_time = expires
            if metadata is not None and self.context.oauth_metadata is None:
                self.context.oauth_metadata = metadata


def _provider(
    url: str,
    storage: KeyringTokenStorage,
    redirect_uri: str,
    redirect_handler: Callable[[str], Awaitable[None]],
    callback_handler: Callable[[], Awaitable[AuthorizationCodeResult]],
) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name=f"nanobot Desktop {__version__}",
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    provider = _StoredProvider(url, metadata, storage, redirect_handler, callback_handler)
    storage.provider = provider
    return provider


def background_auth(name: str, config: MCPServerConfig, store: SecretStore) -> OAuthClientProvider:
    """The auth of a connect nobody watches: stored tokens, refreshed; no browser."""

    async def refuse(_url: str) -> None:
        raise SignInRequired(
            f"MCP server '{name}' needs you to sign in: open Settings → MCP servers, "
            "choose it and press Sign in."
        )

    async def never() -> AuthorizationCodeResult:  # pragma: no cover - refuse() raised first
        raise SignInRequired(f"MCP server '{name}' needs you to sign in")

    storage = KeyringTokenStorage(store, name, config.url)
    return _provider(config.url, storage, _PLACEHOLDER_REDIRECT, refuse, never)


class _Callback:
    """A one-shot loopback HTTP listener for the authorization redirect."""

    def __init__(self) -> None:
        self._result: asyncio.Future[AuthorizationCodeResult] = (
            asyncio.get_running_loop().create_future()
        )
        self._server: asyncio.Server | None = None
        self.redirect_uri = ""

    async def __aenter__(self) -> _Callback:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.redirect_uri = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()
        if not self._result.done():
            self._result.cancel()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                line = await reader.readline()
            parts = line.decode("latin-1").split()
            target = urlsplit(parts[1]) if len(parts) >= 2 else None
            words = b"This address only takes the sign-in answer."
            if target is not None and target.path == CALLBACK_PATH and not self._result.done():
                query = {k: v[0] for k, v in parse_qs(target.query).items()}
                if "code" in query:
                    self._result.set_result(
                        AuthorizationCodeResult(
                            code=query["code"], state=query.get("state"), iss=query.get("iss")
                        )
                    )
                    words = b"Signed in to the MCP server."
                else:
                    error = query.get("error_description") or query.get("error") or "no code"
                    self._result.set_exception(SignInRequired(f"the sign-in failed: {error}"))
                    words = b"The sign-in failed."
            writer.write(_PAGE % words)
            await writer.drain()
        except (OSError, TimeoutError, UnicodeError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def wait(self) -> AuthorizationCodeResult:
        """The code and state from the redirect."""
        return await asyncio.shield(self._result)


async def sign_in(
    name: str,
    config: MCPServerConfig,
    store: SecretStore,
    open_url: Callable[[str], Awaitable[None]],
    *,
    timeout: float = 300.0,
) -> None:
    """Sign in to server ``name`` in the browser; the tokens go to the keyring.

    Args:
        name: The server's configured name.
        config: Its entry (an HTTP or SSE URL).
        store: The keyring.
        open_url: Opens the authorization page (the browser; a test follows it itself).
        timeout: Seconds the whole sign-in (the person included) may take.

    Raises:
        SignInRequired: The authorization server refused or the redirect said so.
        TimeoutError: Nobody finished the sign-in in time.
        Exception: The server could not be reached or answered nonsense (the SDK's errors).
    """
    from desktop.core.tools.mcp.transport import detect_transport, open_transport

    kind = detect_transport(config)
    if kind == "stdio":
        raise ValueError("OAuth needs an HTTP or SSE server")
    async with _Callback() as callback:
        storage = KeyringTokenStorage(store, name, config.url, fresh=True)
        auth = _provider(config.url, storage, callback.redirect_uri, open_url, callback.wait)
        with anyio.fail_after(timeout):
            async with Client(open_transport(config, kind, auth=auth), cache=None):
                pass


async def sign_out(name: str, store: SecretStore) -> bool:
    """Forget server ``name``'s tokens (every part of a long entry); whether there were any."""
    return await TokenVault(store).adelete(keyring_name(name))


async def signed_in(name: str, config: MCPServerConfig, store: SecretStore) -> bool:
    """Whether tokens for ``name`` (at its current URL) are in the keyring."""
    return await KeyringTokenStorage(store, name, config.url).get_tokens() is not None


def expires_at(tokens_json: str) -> float | None:
    """The expiry time stored in a keyring entry's JSON (tests and diagnostics)."""
    data = json.loads(tokens_json)
    value = data.get("expiresAt") if isinstance(data, dict) else None
    return float(value) if isinstance(value, int | float) else None
