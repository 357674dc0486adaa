"""The QQ bot API through qq-botpy: the app access token, REST calls with verified TLS.

botpy's ``BotHttp``/``BotAPI`` build every request (routes, headers, the ``QQBot <token>``
authorisation); two of its pieces are replaced by subclasses here:

* :class:`AccessToken` fetches the app access token from :data:`TOKEN_URL` with a time limit,
  reports refused credentials as :class:`CredentialsRefused` (botpy raises a bare error with
  the server's answer) and registers the token for redaction;
* :class:`VerifiedHttp` opens its connection pool with certificate verification (botpy's own
  pool uses a blank ``SSLContext``, which checks no certificate).

The API host is botpy's ``Route.DOMAIN`` (``api.sgroup.qq.com``); botpy has no option for it
besides its sandbox host.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp
from botpy.api import BotAPI
from botpy.errors import AuthenticationFailedError
from botpy.http import BotHttp, Route
from botpy.robot import Token

from desktop.core.utils.redact import redact, register_secret

TOKEN_URL = "https://bots.qq.com/app/getAppAccessToken"
"""Where the app access token comes from (QQ's documented address; tests point it elsewhere)."""
REQUEST_TIMEOUT_S = 20
DUPLICATE_CODES = frozenset({40054005})
"""QQ's answer to a ``msg_id`` + ``msg_seq`` pair it has already delivered."""


class CredentialsRefused(Exception):
    """QQ did not accept the AppID and AppSecret."""


class AccessToken(Token):  # type: ignore[misc]  # botpy is untyped
    """botpy's token, fetched from :data:`TOKEN_URL` with a time limit (see the module)."""

    async def update_access_token(self) -> None:
        """Get a fresh app access token.

        Raises:
            CredentialsRefused: The AppID or AppSecret is wrong.
            aiohttp.ClientError: QQ could not be reached.
        """
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.post(TOKEN_URL, json={"appId": self.app_id, "clientSecret": self.secret}) as r,
        ):
            try:
                data: Any = await r.json(content_type=None)
            except ValueError:
                data = None
            if r.status >= 500:
                raise aiohttp.ClientResponseError(r.request_info, (), status=r.status)
        if not isinstance(data, dict) or "access_token" not in data:
            detail = data.get("message") if isinstance(data, dict) else None
            raise CredentialsRefused(redact(detail or f"HTTP {r.status}"))
        self.access_token = str(data["access_token"])
        register_secret(self.access_token)
        try:
            lifetime = int(data.get("expires_in", 0))
        except (TypeError, ValueError):
            lifetime = 0
        # Renew a minute early; QQ hands out the same token again within its last minute.
        self.expires_in = int(time.time()) + max(lifetime - 60, 0)


class VerifiedHttp(BotHttp):  # type: ignore[misc]  # botpy is untyped
    """botpy's HTTP client with certificate verification (see the module)."""

    async def check_session(self) -> None:
        """Renew the token when due and open the connection pool (verifying TLS)."""
        await self._token.check_token()
        self._headers = {
            "Authorization": self._token.get_string(),
            "X-Union-Appid": self._token.app_id,
        }
        session: aiohttp.ClientSession | None = getattr(self, "_session", None)
        if session is None or session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=50),
                timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S),
            )


def is_duplicate(exc: BaseException) -> bool:
    """Whether ``exc`` is QQ saying this ``msg_id`` + ``msg_seq`` was delivered already."""
    text = str(exc)
    return any(str(code) in text for code in DUPLICATE_CODES) or "去重" in text


def is_network(exc: BaseException) -> bool:
    """Whether ``exc`` is a transport failure (worth retrying) rather than QQ's refusal."""
    return isinstance(exc, aiohttp.ClientError | OSError | asyncio.TimeoutError | ConnectionError)


class QQApi:
    """One bot's API session.

    Args:
        app_id: The bot's AppID.
        secret: Its AppSecret.
    """

    def __init__(self, app_id: str, secret: str) -> None:
        self.token = AccessToken(app_id, secret)
        self.http = VerifiedHttp(timeout=REQUEST_TIMEOUT_S)
        self.api = BotAPI(http=self.http)

    async def login(self) -> dict[str, Any]:
        """Fetch the token and the bot's own user (``/users/@me``).

        Raises:
            CredentialsRefused: The AppID or AppSecret is wrong.
        """
        try:
            me = await self.http.login(self.token)
        except AuthenticationFailedError as exc:
            raise CredentialsRefused(redact(exc)) from None
        if not isinstance(me, dict):
            raise ConnectionError("QQ did not answer in time")
        return me

    async def gateway_url(self) -> str:
        """The WebSocket gateway's address (``/gateway/bot``)."""
        data = await self.api.get_ws_url()
        if not isinstance(data, dict) or not data.get("url"):
            raise ConnectionError("QQ did not say where its gateway is")
        return str(data["url"])

    async def request(self, method: str, path: str, payload: dict[str, Any], **params: str) -> Any:
        """A REST call (raises when QQ does not answer in time: botpy returns ``None``)."""
        result = await self.http.request(Route(method, path, **params), json=payload)
        if result is None:
            raise ConnectionError("QQ did not answer in time")
        return result

    async def close(self) -> None:
        """Close the connection pool."""
        await self.http.close()
