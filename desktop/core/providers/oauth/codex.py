"""Sign in with ChatGPT for the Codex backend: the authorization-code flow with PKCE.

Facts (the Codex CLI's ChatGPT login): the public client ``app_EMoamEEZ73f0CkXaXp7hrann`` on
``auth.openai.com``, redirect ``http://localhost:1455/auth/callback``, scopes
``openid profile email offline_access``. The token endpoint answers with an ``id_token``
(email), an ``access_token`` (a JWT whose ``https://api.openai.com/auth`` claim holds the
``chatgpt_account_id`` the API wants as a header) and a ``refresh_token``.
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from desktop.core.providers.oauth.endpoints import CodexEndpoints
from desktop.core.providers.oauth.flow import (
    LoginError,
    LoginPrompt,
    PromptCallback,
    RefreshRejected,
    async_client,
    emit,
    error_text,
    json_body,
    post_form,
    refresh_grant,
)
from desktop.core.providers.oauth.pkce import CallbackServer, make_pkce, make_state
from desktop.core.providers.oauth.tokens import OAuthTokens, jwt_claims
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret

PROVIDER = "openai_codex"
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
SCOPE = "openid profile email offline_access"
REFRESH_SCOPE = "openid profile email"
ORIGINATOR = "nanobot"  # as nanobot sends it (the authorize page and the API both see it)
AUTH_CLAIM = "https://api.openai.com/auth"
PROFILE_CLAIM = "https://api.openai.com/profile"
LOGIN_TIMEOUT_S = 600.0
DEFAULT_LIFETIME_S = 3600.0


def tokens_from_response(
    payload: dict[str, Any], previous: OAuthTokens | None = None
) -> OAuthTokens:
    """Our tokens from a token-endpoint answer (a refresh may leave out what did not change).

    Raises:
        LoginError: No access token in the answer.
    """
    access = payload.get("access_token")
    if not isinstance(access, str) or not access:
        raise LoginError(Phrase(QT_TR_NOOP("The sign-in server's answer held no access token.")))
    register_secret(access)
    refresh = str(payload.get("refresh_token") or (previous.refresh if previous else ""))
    register_secret(refresh)
    id_claims = jwt_claims(payload.get("id_token"))
    access_claims = jwt_claims(access)
    auth = access_claims.get(AUTH_CLAIM) or id_claims.get(AUTH_CLAIM) or {}
    profile = access_claims.get(PROFILE_CLAIM) or {}
    account = str(
        id_claims.get("email")
        or (profile.get("email") if isinstance(profile, dict) else "")
        or (previous.account if previous else "")
    )
    account_id = str(
        (auth.get("chatgpt_account_id") if isinstance(auth, dict) else "")
        or (previous.account_id if previous else "")
    )
    now = time.time()
    expires_in = payload.get("expires_in")
    if isinstance(expires_in, (int, float)):
        expires_at = now + float(expires_in)
    elif isinstance(access_claims.get("exp"), (int, float)):
        expires_at = float(access_claims["exp"])
    else:
        expires_at = now + DEFAULT_LIFETIME_S
    return OAuthTokens(
        provider=PROVIDER,
        access=access,
        refresh=refresh,
        expires_at=expires_at,
        account=account,
        account_id=account_id,
        signed_in_at=previous.signed_in_at if previous else now,
    )


def authorize_url(
    endpoints: CodexEndpoints, *, redirect_uri: str, challenge: str, state: str
) -> str:
    """The sign-in page for the browser."""
    params = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": redirect_uri,
        "scope": SCOPE,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "id_token_add_organizations": "true",
        "codex_cli_simplified_flow": "true",
        "originator": ORIGINATOR,
    }
    return f"{endpoints.authorize_url}?{urllib.parse.urlencode(params)}"


async def login(
    endpoints: CodexEndpoints,
    on_prompt: PromptCallback | None = None,
    *,
    timeout: float = LOGIN_TIMEOUT_S,
) -> OAuthTokens:
    """Run the browser sign-in; the new tokens (not stored yet).

    The callback server listens first, then ``on_prompt`` gets the page to open; the code the
    browser brings back is exchanged (with the PKCE verifier) for tokens. Cancelling the
    coroutine stops the server.

    Raises:
        LoginError: Port taken, the person refused, the exchange failed, or ``timeout``.
    """
    pkce = make_pkce()
    state = make_state()
    server = CallbackServer(state=state, port=endpoints.callback_port)
    await server.start()
    try:
        redirect_uri = server.redirect_uri
        url = authorize_url(
            endpoints, redirect_uri=redirect_uri, challenge=pkce.challenge, state=state
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
    async with async_client() as client:
        response = await post_form(
            client,
            endpoints.token_url,
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": redirect_uri,
                "client_id": CLIENT_ID,
                "code_verifier": pkce.verifier,
            },
            what=Phrase(QT_TR_NOOP("finishing the sign-in")),
        )
    if response.status_code >= 400:
        raise LoginError(
            Phrase(
                QT_TR_NOOP("The sign-in could not be finished ({error})."),
                error=error_text(response),
            )
        )
    return tokens_from_response(json_body(response))


def make_refresher(endpoints: CodexEndpoints) -> Callable[[OAuthTokens], OAuthTokens]:
    """A blocking refresher for :class:`~desktop.core.providers.oauth.session.OAuthSession`."""

    def refresh(tokens: OAuthTokens) -> OAuthTokens:
        if not tokens.refresh:
            raise RefreshRejected("no refresh token was stored")
        form = {"client_id": CLIENT_ID, "scope": REFRESH_SCOPE}
        body = refresh_grant(endpoints.token_url, tokens.refresh, form, {})
        return tokens_from_response(body, tokens)

    return refresh
