"""What every sign-in flow shares: the prompt shown to the person, errors, HTTP helpers."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

HTTP_TIMEOUT_S = 30.0
USER_AGENT = "nanobot-desktop"


class LoginError(RuntimeError):
    """A sign-in did not complete. The message is one plain sentence for the person."""


class RefreshRejected(RuntimeError):
    """The server refused to renew the tokens (revoked, expired): only a new sign-in helps."""


@dataclass(frozen=True)
class LoginPrompt:
    """What the person has to do next.

    Attributes:
        kind: ``device``: open ``url`` and type ``user_code``; ``browser``: sign in on the
            page at ``url`` (it sends the browser back to this app by itself).
        url: The page to open.
        user_code: The code to type (device flow only).
        expires_in: Seconds the code or page stays valid.
    """

    kind: Literal["device", "browser"]
    url: str
    user_code: str = ""
    expires_in: float = 0.0


PromptCallback = Callable[[LoginPrompt], Awaitable[None] | None]


async def emit(callback: PromptCallback | None, prompt: LoginPrompt) -> None:
    """Hand ``prompt`` to ``callback`` (awaited when it is a coroutine function)."""
    if callback is None:
        return
    result = callback(prompt)
    if inspect.isawaitable(result):
        await result


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else ``{}`` (for reading untrusted JSON)."""
    return value if isinstance(value, dict) else {}


def json_body(response: httpx.Response) -> dict[str, Any]:
    """The response's JSON object (``{}`` when it is not one)."""
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def error_text(response: httpx.Response) -> str:
    """The server's own short reason, redacted (``HTTP 400: invalid_grant``)."""
    data = json_body(response)
    reason: Any = data.get("error_description") or data.get("error") or data.get("message")
    if isinstance(reason, dict):
        reason = reason.get("message") or reason.get("code")
    text = str(reason) if reason else response.reason_phrase
    text = " ".join(text.split())[:200]
    return redact(f"HTTP {response.status_code}: {text}")


async def post_form(
    client: httpx.AsyncClient, url: str, data: Mapping[str, str], *, what: str
) -> httpx.Response:
    """``POST`` a form and return the response; network failures become :class:`LoginError`."""
    try:
        return await client.post(
            url,
            data=dict(data),
            headers={"Accept": "application/json", "User-Agent": USER_AGENT},
        )
    except httpx.HTTPError as exc:
        message = Phrase(
            QT_TR_NOOP("Could not reach {host} ({what}): {error}"),
            host=_host(url),
            what=what,
            error=_net(exc),
        )
        raise LoginError(message) from None


def _host(url: str) -> str:
    return httpx.URL(url).host or url


def _net(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return redact(text)


def async_client(timeout: float = HTTP_TIMEOUT_S) -> httpx.AsyncClient:
    """An HTTP client for sign-in requests (the system proxy settings apply)."""
    return httpx.AsyncClient(timeout=timeout, follow_redirects=True)


def sync_client(timeout: float = HTTP_TIMEOUT_S) -> httpx.Client:
    """A blocking HTTP client for refreshes (they run in worker threads)."""
    return httpx.Client(timeout=timeout, follow_redirects=True)


def refresh_grant(
    url: str, refresh: str, form: Mapping[str, str], headers: Mapping[str, str]
) -> dict[str, Any]:
    """``POST`` an OAuth ``refresh_token`` grant (blocking: refreshers run in worker threads)
    and return the token response's JSON.

    Args:
        url: The token endpoint.
        refresh: The stored refresh token.
        form: The provider's other form fields (``client_id``, ``scope``…).
        headers: The provider's extra headers (``Accept: application/json`` is always sent).

    Raises:
        RefreshRejected: The server refused the grant (400, 401, 403): sign in again.
        httpx.HTTPStatusError: Any other error status (worth retrying later).
    """
    with sync_client() as client:
        response = client.post(
            url,
            data={"grant_type": "refresh_token", "refresh_token": refresh, **form},
            headers={"Accept": "application/json", **headers},
        )
    if response.status_code in (400, 401, 403):
        raise RefreshRejected(error_text(response))
    if response.status_code >= 400:
        raise httpx.HTTPStatusError(
            error_text(response), request=response.request, response=response
        )
    return json_body(response)
