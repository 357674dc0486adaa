"""Mochat's HTTP API (``POST <server>/api/claw/…`` with the ``X-Claw-Token`` header).

Answers come back either bare or wrapped as ``{"code": 200, "data": {…}}``; another ``code``
is an error. A refused token (HTTP 401/403) is :class:`TokenRefused`, which no retry fixes;
everything else that fails is :class:`MochatError` (retried by the channel manager).
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from desktop.core.utils.redact import redact

SESSION_SEND = "/api/claw/sessions/send"
PANEL_SEND = "/api/claw/groups/panels/send"
SESSION_LIST = "/api/claw/sessions/list"
GROUP_GET = "/api/claw/groups/get"
TIMEOUT_S = 30.0


class MochatError(RuntimeError):
    """The Mochat API refused or failed a request."""


class TokenRefused(MochatError):
    """The server does not accept the claw token."""


class MochatApi:
    """A small client of Mochat's HTTP API.

    Args:
        base_url: The server (``https://mochat.io``).
        token: The claw token.
    """

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self._token = token
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT_S))
        return self._session

    async def close(self) -> None:
        """Close the connections."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """``POST`` ``body`` to ``path``; returns the (unwrapped) answer.

        Raises:
            TokenRefused: HTTP 401 or 403.
            MochatError: Another error answer.
            aiohttp.ClientError: The server could not be reached.
        """
        headers = {"Content-Type": "application/json", "X-Claw-Token": self._token}
        async with self._client().post(
            f"{self.base_url}{path}", data=json.dumps(body, ensure_ascii=False), headers=headers
        ) as response:
            text = await response.text()
            if response.status in (401, 403):
                raise TokenRefused(f"Mochat refused the claw token (HTTP {response.status})")
            if response.status >= 400:
                raise MochatError(f"Mochat answered HTTP {response.status}: {redact(text[:200])}")
        try:
            parsed: Any = json.loads(text) if text.strip() else {}
        except ValueError:
            return {}
        if isinstance(parsed, dict) and isinstance(parsed.get("code"), int):
            if parsed["code"] in (401, 403):
                raise TokenRefused(f"Mochat refused the claw token (code {parsed['code']})")
            if parsed["code"] != 200:
                why = str(parsed.get("message") or parsed.get("name") or "request failed")
                raise MochatError(f"Mochat: {redact(why)[:200]} (code {parsed['code']})")
            data = parsed.get("data")
            return data if isinstance(data, dict) else {}
        return parsed if isinstance(parsed, dict) else {}
