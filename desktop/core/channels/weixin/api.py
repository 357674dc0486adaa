"""The iLink bot HTTP API: JSON over POST/GET, the headers every call carries, its error codes.

Every call sends ``AuthorizationType: ilink_bot_token``, ``iLink-App-Id``,
``iLink-App-ClientVersion``, a fresh random ``X-WECHAT-UIN`` (a uint32 in decimal, base64) and,
once logged in, ``Authorization: Bearer <bot token>``; POST bodies carry ``base_info``. An
answer with ``ret`` or ``errcode`` other than 0 is an error: ``-14`` means the login has expired
(:class:`LoginExpired`).
"""

from __future__ import annotations

import base64
import os
from typing import Any

import aiohttp

from desktop.core.utils.redact import redact

APP_ID = "bot"
CHANNEL_VERSION = "2.4.6"
CLIENT_VERSION = (2 << 16) | (4 << 8) | 6
BASE_INFO = {"channel_version": CHANNEL_VERSION, "bot_agent": "nanobot-desktop (python)"}
STALE_TOKEN = -14
CALL_TIMEOUT_S = 15.0


class IlinkError(RuntimeError):
    """The API answered with an error code."""

    def __init__(self, endpoint: str, ret: int, errcode: int, errmsg: str) -> None:
        super().__init__(f"{endpoint} failed (ret={ret}, errcode={errcode}): {redact(errmsg)}")
        self.ret, self.errcode = ret, errcode


class LoginExpired(IlinkError):
    """The bot token is no longer valid: scan a new QR code."""


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key, 0)
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def check(endpoint: str, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` when it is a success; raise the error it reports otherwise."""
    ret, errcode = _int(data, "ret"), _int(data, "errcode")
    if ret == 0 and errcode == 0:
        return data
    kind = LoginExpired if STALE_TOKEN in (ret, errcode) else IlinkError
    raise kind(endpoint, ret, errcode, str(data.get("errmsg") or ""))


class IlinkApi:
    """One client of the API at ``base_url`` (``token``: the bot token, once logged in)."""

    def __init__(self, base_url: str, token: str = "", route_tag: str = "") -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.route_tag = route_tag
        self._session: aiohttp.ClientSession | None = None

    def headers(self) -> dict[str, str]:
        uin = str(int.from_bytes(os.urandom(4), "big"))
        found = {
            "Content-Type": "application/json",
            "AuthorizationType": "ilink_bot_token",
            "X-WECHAT-UIN": base64.b64encode(uin.encode()).decode(),
            "iLink-App-Id": APP_ID,
            "iLink-App-ClientVersion": str(CLIENT_VERSION),
        }
        if self.token:
            found["Authorization"] = f"Bearer {self.token}"
        if self.route_tag:
            found["SKRouteTag"] = self.route_tag
        return found

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
        return self._session

    async def call(
        self,
        endpoint: str,
        body: dict[str, Any] | None = None,
        *,
        params: dict[str, str] | None = None,
        timeout: float = CALL_TIMEOUT_S,
        base_url: str = "",
    ) -> dict[str, Any]:
        """POST ``body`` (with ``base_info``) to ``endpoint``, or GET it when ``body`` is
        ``None``; the answer, checked (:func:`check`)."""
        url = f"{(base_url or self.base_url).rstrip('/')}/{endpoint}"
        limit = aiohttp.ClientTimeout(total=timeout)
        if body is None:
            request = self._http().get(url, params=params, headers=self.headers(), timeout=limit)
        else:
            payload = {"base_info": BASE_INFO, **body}
            request = self._http().post(
                url, params=params, json=payload, headers=self.headers(), timeout=limit
            )
        async with request as response:
            response.raise_for_status()
            data = await response.json(content_type=None)
        if not isinstance(data, dict):
            raise IlinkError(endpoint, -1, -1, "the answer is not a JSON object")
        return check(endpoint.split("?")[0].rsplit("/", 1)[-1], data)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
