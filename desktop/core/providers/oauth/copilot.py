"""Sign in to GitHub Copilot: GitHub's device flow, then short-lived Copilot tokens.

Facts (the Copilot editor plugins' flow): the public GitHub App client ``Iv1.b507a08c87ecfe98``
with scope ``read:user`` on ``github.com/login/device/code`` and
``github.com/login/oauth/access_token``; ``GET api.github.com/copilot_internal/v2/token`` with
``Authorization: token <GitHub token>`` returns ``{"token", "expires_at", "refresh_in",
"endpoints": {"api"}}``; the chat API at ``endpoints.api`` (``api.githubcopilot.com``) is
OpenAI-compatible and wants ``Authorization: Bearer <Copilot token>`` plus editor headers.

The GitHub token is what the keyring keeps (with the login it belongs to); Copilot tokens live
in memory only and are fetched again before they expire.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from desktop.core.providers.base import LLMError
from desktop.core.providers.oauth.device import poll_for_token, request_device_code
from desktop.core.providers.oauth.endpoints import COPILOT_API_BASE, CopilotEndpoints
from desktop.core.providers.oauth.flow import (
    LoginError,
    LoginPrompt,
    PromptCallback,
    RefreshRejected,
    as_dict,
    async_client,
    emit,
    error_text,
    json_body,
    sync_client,
)
from desktop.core.providers.oauth.tokens import OAuthTokens
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret

PROVIDER = "github_copilot"
DISPLAY = "GitHub Copilot"
CLIENT_ID = "Iv1.b507a08c87ecfe98"
SCOPE = "read:user"
EDITOR_VERSION = "vscode/1.99.0"
EDITOR_PLUGIN_VERSION = "copilot-chat/0.26.0"
INTEGRATION_ID = "vscode-chat"
USER_AGENT = "nanobot-desktop"
COPILOT_SKEW_S = 60.0
DEFAULT_COPILOT_LIFETIME_S = 1500.0


def github_headers(token: str | None = None) -> dict[str, str]:
    """Headers for GitHub API calls (``token …`` authorization, as the editors send it)."""
    headers = {
        "Accept": "application/json",
        "User-Agent": USER_AGENT,
        "Editor-Version": EDITOR_VERSION,
        "Editor-Plugin-Version": EDITOR_PLUGIN_VERSION,
    }
    if token:
        headers["Authorization"] = f"token {token}"
    return headers


def chat_headers() -> dict[str, str]:
    """Extra headers of every Copilot chat request (the token goes in as the API key)."""
    return {
        "Copilot-Integration-Id": INTEGRATION_ID,
        "Editor-Version": EDITOR_VERSION,
        "Editor-Plugin-Version": EDITOR_PLUGIN_VERSION,
        "User-Agent": USER_AGENT,
        "Openai-Intent": "conversation-panel",
    }


def _github_tokens(
    payload: dict[str, Any], account: str, previous: OAuthTokens | None
) -> OAuthTokens:
    access = str(payload["access_token"])
    register_secret(access)
    refresh = str(payload.get("refresh_token") or "")
    register_secret(refresh)
    expires_in = payload.get("expires_in")
    now = time.time()
    return OAuthTokens(
        provider=PROVIDER,
        access=access,
        refresh=refresh,
        expires_at=now + float(expires_in) if isinstance(expires_in, (int, float)) else None,
        account=account,
        signed_in_at=previous.signed_in_at if previous else now,
    )


async def login(
    endpoints: CopilotEndpoints, on_prompt: PromptCallback | None = None
) -> OAuthTokens:
    """Run GitHub's device flow; the new tokens (not stored yet).

    ``on_prompt`` gets the page and the code to type; polling then waits (cancel the
    coroutine to stop).

    Raises:
        LoginError: The flow failed, expired or was refused.
    """
    async with async_client() as client:
        code = await request_device_code(
            client, endpoints.device_code_url, client_id=CLIENT_ID, scope=SCOPE
        )
        await emit(
            on_prompt,
            LoginPrompt(
                "device",
                code.verification_uri,
                user_code=code.user_code,
                expires_in=code.expires_in,
            ),
        )
        payload = await poll_for_token(
            client, endpoints.access_token_url, code, client_id=CLIENT_ID
        )
        access = str(payload["access_token"])
        register_secret(access)
        try:
            user = await client.get(
                endpoints.user_url,
                headers={**github_headers(), "Authorization": f"Bearer {access}"},
            )
        except httpx.HTTPError as exc:
            raise LoginError(
                Phrase(
                    QT_TR_NOOP("Signed in, but GitHub could not be asked who you are ({error})."),
                    error=str(exc),
                )
            ) from None
    if user.status_code >= 400:
        raise LoginError(
            Phrase(
                QT_TR_NOOP("Signed in, but GitHub did not say who you are ({error})."),
                error=error_text(user),
            )
        )
    data = json_body(user)
    account = str(data.get("login") or data.get("email") or data.get("id") or "")
    return _github_tokens(payload, account, None)


def make_refresher(endpoints: CopilotEndpoints) -> Callable[[OAuthTokens], OAuthTokens]:
    """Renews an expiring GitHub token with its refresh token (GitHub Apps with expiring user
    tokens); a GitHub token without one that was refused means signing in again."""

    def refresh(tokens: OAuthTokens) -> OAuthTokens:
        if not tokens.refresh:
            raise RefreshRejected("GitHub gave no refresh token; the GitHub token was refused")
        with sync_client() as client:
            response = client.post(
                endpoints.access_token_url,
                data={
                    "client_id": CLIENT_ID,
                    "grant_type": "refresh_token",
                    "refresh_token": tokens.refresh,
                },
                headers={"Accept": "application/json", "User-Agent": USER_AGENT},
            )
        body = json_body(response)
        if response.status_code >= 500:
            raise httpx.HTTPStatusError(
                error_text(response), request=response.request, response=response
            )
        if response.status_code >= 400 or not body.get("access_token"):
            raise RefreshRejected(error_text(response))
        return _github_tokens(body, tokens.account, tokens)

    return refresh


@dataclass(frozen=True)
class CopilotToken:
    """A short-lived Copilot API token and where the chat API is."""

    token: str = field(repr=False)
    expires_at: float
    api_base: str

    def expiring(self, now: float | None = None) -> bool:
        """Whether it expires within a minute."""
        return (time.time() if now is None else now) >= self.expires_at - COPILOT_SKEW_S


class CopilotAccessDenied(LLMError):
    """GitHub refused the GitHub token when asked for a Copilot token (401)."""


def exchange(endpoints: CopilotEndpoints, github_token: str) -> CopilotToken:
    """Trade the GitHub token for a Copilot token (blocking; run it in a thread).

    Raises:
        CopilotAccessDenied: GitHub refused the GitHub token (401): sign in again.
        LLMError: No Copilot for this account (403/404), or GitHub failed.
    """
    try:
        with sync_client() as client:
            response = client.get(endpoints.copilot_token_url, headers=github_headers(github_token))
    except httpx.HTTPError as exc:
        raise LLMError(
            Phrase(QT_TR_NOOP("Could not reach GitHub to get a Copilot token.")),
            kind="connection",
            retryable=True,
            details=f"{type(exc).__name__}: {exc}",
        ) from None
    if response.status_code == 401:
        raise CopilotAccessDenied(
            "GitHub refused the stored sign-in.",
            kind="auth",
            status=401,
            details=error_text(response),
        )
    if response.status_code in (403, 404):
        raise LLMError(
            Phrase(
                QT_TR_NOOP(
                    "This GitHub account has no GitHub Copilot access (GitHub said {error})."
                ),
                error=error_text(response),
            ),
            kind="auth",
            status=response.status_code,
        )
    if response.status_code >= 400:
        raise LLMError(
            Phrase(
                QT_TR_NOOP("GitHub did not hand out a Copilot token ({error})."),
                error=error_text(response),
            ),
            kind="server" if response.status_code >= 500 else "bad_request",
            status=response.status_code,
            retryable=response.status_code >= 500,
        )
    body = json_body(response)
    token = body.get("token")
    if not isinstance(token, str) or not token:
        raise LLMError(
            Phrase(QT_TR_NOOP("GitHub's Copilot token answer held no token.")), kind="server"
        )
    register_secret(token)
    now = time.time()
    expires = body.get("expires_at")
    refresh_in = body.get("refresh_in")
    if isinstance(expires, (int, float)):
        expires_at = float(expires)
    elif isinstance(refresh_in, (int, float)):
        expires_at = now + float(refresh_in) + COPILOT_SKEW_S
    else:
        expires_at = now + DEFAULT_COPILOT_LIFETIME_S
    api = as_dict(body.get("endpoints"))
    api_base = endpoints.api_base or str(api.get("api") or "") or COPILOT_API_BASE
    return CopilotToken(token, expires_at, api_base.rstrip("/"))
