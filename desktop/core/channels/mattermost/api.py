"""Mattermost's REST API v4 and its WebSocket, over aiohttp.

Every request carries ``Authorization: Bearer <token>``. An answer of HTTP 401 is
:class:`TokenRefused` (no retry fixes it); any other error answer is :class:`MattermostError`
with the server's ``message`` (its error bodies are ``{"id", "message", "status_code"}``).
The WebSocket (``/api/v4/websocket``) is authenticated the documented way, by an
``authentication_challenge`` action carrying the token; the server answers it with
``{"status": "OK", "seq_reply": 1}``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp

from desktop.core.utils.mime import guess_type
from desktop.core.utils.redact import redact

TIMEOUT_S = 30.0
AUTH_TIMEOUT_S = 30.0


class MattermostError(RuntimeError):
    """The server refused or failed a request."""


class TokenRefused(MattermostError):
    """The server does not accept the token."""


def websocket_url(server_url: str) -> str:
    """The WebSocket address of a server (``https`` → ``wss``, ``http`` → ``ws``)."""
    base = server_url.strip().rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base.removeprefix("https://")
    elif base.startswith("http://"):
        base = "ws://" + base.removeprefix("http://")
    return base + "/api/v4/websocket"


class MattermostApi:
    """A small client of the REST API and the WebSocket.

    Args:
        server_url: The server (``https://chat.example.org``).
        token: The bot's access token.
    """

    def __init__(self, server_url: str, token: str) -> None:
        self.server_url = server_url.strip().rstrip("/")
        self._token = token
        self._session: aiohttp.ClientSession | None = None
        self._closed = False

    def _client(self) -> aiohttp.ClientSession:
        if self._closed:
            raise ConnectionError("Mattermost is not connected")
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=TIMEOUT_S),
                headers={"Authorization": f"Bearer {self._token}"},
            )
        return self._session

    async def close(self) -> None:
        """Close the connections (for good: later calls raise :class:`ConnectionError`)."""
        self._closed = True
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def _check(self, response: aiohttp.ClientResponse) -> None:
        if response.status < 400:
            return
        text = await response.text()
        try:
            why = str(json.loads(text).get("message") or "")
        except (ValueError, AttributeError):
            why = text[:200]
        if response.status == 401:
            raise TokenRefused(f"Mattermost refused the token ({redact(why) or 'HTTP 401'})")
        raise MattermostError(f"Mattermost answered HTTP {response.status}: {redact(why)[:200]}")

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        """Call ``path`` (``/api/v4/…``) with a JSON ``body``; returns the parsed answer.

        Raises:
            TokenRefused: HTTP 401.
            MattermostError: Another error answer.
            aiohttp.ClientError: The server could not be reached.
        """
        async with self._client().request(
            method, self.server_url + path, json=body if body is not None else None
        ) as response:
            await self._check(response)
            text = await response.text()
        return json.loads(text) if text.strip() else {}

    async def me(self) -> dict[str, Any]:
        """The account the token belongs to (``GET /users/me``)."""
        data = await self.request("GET", "/api/v4/users/me")
        return data if isinstance(data, dict) else {}

    async def user(self, user_id: str) -> dict[str, Any]:
        """A user (``GET /users/{id}``)."""
        data = await self.request("GET", f"/api/v4/users/{user_id}")
        return data if isinstance(data, dict) else {}

    async def channel(self, channel_id: str) -> dict[str, Any]:
        """A channel (``GET /channels/{id}``: its ``type`` and ``team_id``)."""
        data = await self.request("GET", f"/api/v4/channels/{channel_id}")
        return data if isinstance(data, dict) else {}

    async def create_post(
        self, channel_id: str, message: str, root_id: str | None, file_ids: list[str] | None = None
    ) -> dict[str, Any]:
        """Post ``message`` (Markdown) into a channel, inside the thread ``root_id`` if given."""
        body: dict[str, Any] = {"channel_id": channel_id, "message": message}
        if root_id:
            body["root_id"] = root_id
        if file_ids:
            body["file_ids"] = file_ids
        data = await self.request("POST", "/api/v4/posts", body)
        return data if isinstance(data, dict) else {}

    async def upload(self, channel_id: str, path: Path, content: bytes) -> str:
        """Upload a file into a channel (``POST /files``, multipart); returns its file id."""
        form = aiohttp.FormData()
        form.add_field("channel_id", channel_id)
        form.add_field(
            "files", content, filename=path.name, content_type=await guess_type(path.name) or None
        )
        async with self._client().post(self.server_url + "/api/v4/files", data=form) as response:
            await self._check(response)
            data = await response.json(content_type=None)
        infos = data.get("file_infos") if isinstance(data, dict) else None
        if not infos or not isinstance(infos[0], dict) or not infos[0].get("id"):
            raise MattermostError("Mattermost accepted the upload but gave no file id")
        return str(infos[0]["id"])

    async def file_info(self, file_id: str) -> dict[str, Any]:
        """A file's name, size and type (``GET /files/{id}/info``)."""
        data = await self.request("GET", f"/api/v4/files/{file_id}/info")
        return data if isinstance(data, dict) else {}

    async def download(self, file_id: str, limit: int) -> bytes:
        """A file's content (``GET /files/{id}``), refused beyond ``limit`` bytes."""
        async with self._client().get(f"{self.server_url}/api/v4/files/{file_id}") as response:
            await self._check(response)
            content = await response.content.read(limit + 1)
        if len(content) > limit:
            raise MattermostError(f"the file is larger than {limit // (1024 * 1024)} MB")
        return content

    async def react(self, user_id: str, post_id: str, emoji: str, *, remove: bool) -> None:
        """Add (or remove) ``user_id``'s reaction ``emoji`` on a post."""
        if remove:
            path = f"/api/v4/users/{user_id}/posts/{post_id}/reactions/{emoji}"
            await self.request("DELETE", path)
        else:
            body = {"user_id": user_id, "post_id": post_id, "emoji_name": emoji}
            await self.request("POST", "/api/v4/reactions", body)

    async def connect(self) -> aiohttp.ClientWebSocketResponse:
        """Open the WebSocket and authenticate it (``authentication_challenge``).

        Raises:
            TokenRefused: The server refused the token.
            MattermostError: The server answered something else.
        """
        ws = await self._client().ws_connect(
            websocket_url(self.server_url), heartbeat=30.0, autoping=True
        )
        try:
            challenge = {
                "seq": 1,
                "action": "authentication_challenge",
                "data": {"token": self._token},
            }
            await ws.send_str(json.dumps(challenge))
            async with asyncio.timeout(AUTH_TIMEOUT_S):
                reply = await _reply_to(ws, 1)
            if reply.get("status") != "OK":
                error = reply.get("error")
                why = str(error.get("message") or "") if isinstance(error, dict) else ""
                raise TokenRefused(f"Mattermost refused the token on the WebSocket ({why})")
        except BaseException:
            await ws.close()
            raise
        return ws


async def _reply_to(ws: aiohttp.ClientWebSocketResponse, seq: int) -> dict[str, Any]:
    """The server's reply to the action ``seq`` (events before it are skipped)."""
    while True:
        message = await ws.receive()
        if message.type != aiohttp.WSMsgType.TEXT:
            raise MattermostError("the WebSocket closed during authentication")
        data = json.loads(message.data)
        if isinstance(data, dict) and data.get("seq_reply") == seq:
            return data
