"""Sign in with an xAI account for the Grok subscription: OpenID Connect, code flow with PKCE.

Facts (nanobot 0.3.5's xAI sign-in, the public client of Grok's command-line tool): the issuer
``https://auth.x.ai`` publishes its endpoints at ``/.well-known/openid-configuration``; the
client ``b1a00492-073a-47ea-816f-4c329264a828`` asks for the scopes in :data:`SCOPES` with an
S256 challenge, a ``state`` and a ``nonce``, and the browser returns to
``http://127.0.0.1:PORT/callback`` (any free port). Token requests carry the header
``x-grok-client-version``; refreshes go to ``<issuer>/oauth2/token`` and may rotate the
refresh token. Who signed in comes from the userinfo endpoint (email, else username, name,
subject). Endpoints named by the discovery document must be on the issuer's own origin.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import httpx

from desktop.core.providers.oauth.endpoints import GrokEndpoints
from desktop.core.providers.oauth.flow import (
    LoginError,
    LoginPrompt,
    PromptCallback,
    RefreshRejected,
    async_client,
    emit,
    error_text,
    json_body,
    refresh_grant,
)
from desktop.core.providers.oauth.pkce import CallbackServer, make_pkce, make_state
from desktop.core.providers.oauth.tokens import OAuthTokens
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret

PROVIDER = "xai_grok"
CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828"
CLIENT_VERSION = "0.2.109"  # the x-grok-client-version nanobot 0.3.5 sends
REFERRER = "nanobot"
SCOPES = (
    "openid",
    "profile",
    "email",
    "offline_access",
    "grok-cli:access",
    "api:access",
    "conversations:read",
    "conversations:write",
    "workspaces:read",
    "workspaces:write",
)
CALLBACK_PATH = "/callback"
LOGIN_TIMEOUT_S = 600.0
DEFAULT_LIFETIME_S = 3600.0
_VERSION_HEADER = {"x-grok-client-version": CLIENT_VERSION}


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


def _endpoint(discovery: dict[str, Any], key: str, issuer: str) -> str:
    """``discovery[key]``, refused unless it is on the issuer's origin (no credentials in it)."""
    value = discovery.get(key)
    if not isinstance(value, str) or not value:
        raise LoginError(
            Phrase(
                QT_TR_NOOP("xAI's sign-in configuration names no {key}."), key=key.replace("_", " ")
            )
        )
    parts = urllib.parse.urlsplit(value)
    if parts.username or parts.password or _origin(value) != _origin(issuer):
        raise LoginError(
            Phrase(
                QT_TR_NOOP("xAI's sign-in configuration names an unexpected {key}; not used."),
                key=key,
            )
        )
    return value


async def discover(endpoints: GrokEndpoints) -> dict[str, str]:
    """The issuer's authorization, token and userinfo endpoints.

    Raises:
        LoginError: Unreachable, not JSON, another issuer, or an endpoint elsewhere.
    """
    async with async_client() as client:
        try:
            response = await client.get(endpoints.discovery_url)
        except httpx.HTTPError as exc:
            raise LoginError(
                Phrase(
                    QT_TR_NOOP("Could not reach xAI's sign-in ({error})."), error=type(exc).__name__
                )
            ) from None
    if response.status_code != 200:
        raise LoginError(
            Phrase(
                QT_TR_NOOP("xAI's sign-in configuration could not be read ({error})."),
                error=error_text(response),
            )
        )
    payload = json_body(response)
    if str(payload.get("issuer") or "").rstrip("/") != endpoints.auth_base.rstrip("/"):
        raise LoginError(
            Phrase(QT_TR_NOOP("xAI's sign-in configuration names another issuer; not used."))
        )
    found = {
        key: _endpoint(payload, key, endpoints.auth_base)
        for key in ("authorization_endpoint", "token_endpoint")
    }
    if payload.get("userinfo_endpoint"):
        found["userinfo_endpoint"] = _endpoint(payload, "userinfo_endpoint", endpoints.auth_base)
    return found


def authorize_url(
    authorization_endpoint: str, *, redirect_uri: str, challenge: str, state: str, nonce: str
) -> str:
    """The sign-in page for the browser."""
    params = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": redirect_uri,
        "scope": " ".join(SCOPES),
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "nonce": nonce,
        "referrer": REFERRER,
    }
    return f"{authorization_endpoint}?{urllib.parse.urlencode(params)}"


def tokens_from_response(
    payload: dict[str, Any], account: str = "", previous: OAuthTokens | None = None
) -> OAuthTokens:
    """Our tokens from a token-endpoint answer (a refresh may keep the old refresh token).

    Raises:
        LoginError: No access token in the answer.
    """
    access = payload.get("access_token")
    if not isinstance(access, str) or not access:
        raise LoginError(Phrase(QT_TR_NOOP("xAI's sign-in answer held no access token.")))
    register_secret(access)
    refresh = str(payload.get("refresh_token") or (previous.refresh if previous else ""))
    register_secret(refresh)
    try:
        lifetime = max(1.0, float(payload.get("expires_in") or DEFAULT_LIFETIME_S))
    except (TypeError, ValueError):
        lifetime = DEFAULT_LIFETIME_S
    now = time.time()
    return OAuthTokens(
        provider=PROVIDER,
        access=access,
        refresh=refresh,
        expires_at=now + lifetime,
        account=account or (previous.account if previous else ""),
        signed_in_at=previous.signed_in_at if previous else now,
    )


async def _who(client: httpx.AsyncClient, userinfo: str | None, access: str) -> str:
    """The signed-in account's email (or username, name, subject); ``""`` when unknown."""
    if not userinfo:
        return ""
    try:
        response = await client.get(userinfo, headers={"Authorization": f"Bearer {access}"})
    except httpx.HTTPError:
        return ""
    info = json_body(response) if response.status_code == 200 else {}
    for key in ("email", "preferred_username", "name", "sub"):
        value = info.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


async def login(
    endpoints: GrokEndpoints,
    on_prompt: PromptCallback | None = None,
    *,
    timeout: float = LOGIN_TIMEOUT_S,
) -> OAuthTokens:
    """Run the browser sign-in; the new tokens (not stored yet).

    Raises:
        LoginError: Discovery failed, the person refused, the exchange failed, or ``timeout``.
    """
    found = await discover(endpoints)
    pkce = make_pkce()
    state = make_state()
    server = CallbackServer(state=state, port=0, path=CALLBACK_PATH, host="127.0.0.1")
    await server.start()
    try:
        redirect_uri = server.redirect_uri
        url = authorize_url(
            found["authorization_endpoint"],
            redirect_uri=redirect_uri,
            challenge=pkce.challenge,
            state=state,
            nonce=secrets.token_urlsafe(32),
        )
        await emit(on_prompt, LoginPrompt("browser", url, expires_in=timeout))
        try:
            async with asyncio.timeout(timeout):
                code = await server.wait()
        except TimeoutError:
            raise LoginError(
                Phrase(
                    QT_TR_NOOP(
                        "Nobody finished signing in within {minutes} minutes. Start the sign-in again."
                    ),
                    minutes=f"{timeout / 60:g}",
                )
            ) from None
    finally:
        await server.close()
    register_secret(code)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "client_id": CLIENT_ID,
        "code_verifier": pkce.verifier,
    }
    async with async_client() as client:
        try:
            response = await client.post(
                found["token_endpoint"],
                data=form,
                headers={"Accept": "application/json", **_VERSION_HEADER},
            )
        except httpx.HTTPError as exc:
            raise LoginError(
                Phrase(
                    QT_TR_NOOP("Could not reach xAI to finish the sign-in ({error})."),
                    error=type(exc).__name__,
                )
            ) from None
        if response.status_code >= 400:
            raise LoginError(
                Phrase(
                    QT_TR_NOOP("The sign-in could not be finished ({error})."),
                    error=error_text(response),
                )
            )
        payload = json_body(response)
        access = payload.get("access_token")
        account = await _who(client, found.get("userinfo_endpoint"), str(access or ""))
    return tokens_from_response(payload, account)


def make_refresher(endpoints: GrokEndpoints) -> Callable[[OAuthTokens], OAuthTokens]:
    """A blocking refresher for :class:`~desktop.core.providers.oauth.session.OAuthSession`."""

    def refresh(tokens: OAuthTokens) -> OAuthTokens:
        if not tokens.refresh:
            raise RefreshRejected("no refresh token was stored")
        body = refresh_grant(
            endpoints.refresh_url, tokens.refresh, {"client_id": CLIENT_ID}, _VERSION_HEADER
        )
        return tokens_from_response(body, previous=tokens)

    return refresh
