"""DingTalk's HTTP APIs the channel calls, asynchronously (httpx).

The ``dingtalk-stream`` SDK makes these calls with blocking ``requests`` against an endpoint
fixed when it is imported, and answers failures with ``None`` or a log line; the channel needs
them on the event loop, against the configured server, with errors it can tell apart (wrong
credentials: not retried; a network failure: reconnect). So they are made here, in the
documented formats:

* ``POST /v1.0/gateway/connections/open`` (client id, secret, subscriptions) → the stream's
  WebSocket ``endpoint`` and one-time ``ticket``;
* ``POST /v1.0/oauth2/accessToken`` (``appKey``, ``appSecret``) → ``accessToken`` for
  ``expireIn`` seconds (sent as ``x-acs-dingtalk-access-token``);
* ``POST /v1.0/robot/oToMessages/batchSend`` (one-to-one) and
  ``POST /v1.0/robot/groupMessages/send`` (groups): ``robotCode``, ``msgKey``
  (``sampleMarkdown``, ``sampleImageMsg``, ``sampleFile``) and ``msgParam`` (a JSON string);
* a message's session webhook: ``{"msgtype": "markdown", "markdown": {title, text}}``, answered
  with ``errcode`` 0 while it is valid;
* ``POST /v1.0/robot/messageFiles/download`` (``downloadCode``) → a ``downloadUrl``;
* ``POST <oapi>/media/upload?access_token=…&type=image|file`` (multipart ``media``) →
  ``media_id``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import httpx

from desktop.core.utils.mime import guess_type
from desktop.core.utils.redact import redact, register_secret

log = logging.getLogger(__name__)

TOKEN_MARGIN_S = 300.0  # an access token is renewed this long before it expires
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
GROUP_PREFIX = "group:"  # nanobot's chat id of a group: "group:<openConversationId>"


class Refused(Exception):
    """DingTalk refused the credentials (a retry cannot help)."""


class Rejected(Exception):
    """DingTalk refused a request (its reason, redacted)."""


def _reason(response: httpx.Response) -> str:
    """DingTalk's own words for a failed request (``message``/``errmsg``), redacted."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    if isinstance(body, dict):
        text = body.get("message") or body.get("errmsg") or body.get("code") or ""
        if text:
            return redact(str(text))[:200]
    return f"HTTP {response.status_code}"


class DingTalkApi:
    """The robot's HTTP calls (see the module docstring).

    Args:
        client_id: The app's Client ID (AppKey; also the robot code).
        client_secret: The app's Client Secret.
        base_url: The OpenAPI server (``https://api.dingtalk.com``).
        oapi_url: The older API server, for uploads (``https://oapi.dingtalk.com``).
    """

    def __init__(self, client_id: str, client_secret: str, base_url: str, oapi_url: str) -> None:
        self.client_id = client_id
        self._secret = client_secret
        register_secret(client_secret)
        self.base_url = base_url.strip().rstrip("/")
        self.oapi_url = oapi_url.strip().rstrip("/")
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=10.0))
        self._token = ""
        self._expires = 0.0

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    # -- connection and token ------------------------------------------------------------
    async def open_connection(self, topics: list[dict[str, str]], ua: str) -> tuple[str, str]:
        """Register a stream connection; returns its WebSocket endpoint and ticket.

        Raises:
            Refused: The credentials were not accepted.
            ConnectionError: The gateway could not be reached or failed.
        """
        body = {
            "clientId": self.client_id,
            "clientSecret": self._secret,
            "subscriptions": topics,
            "ua": ua,
            "localIp": "",
        }
        response = await self._post(f"{self.base_url}/v1.0/gateway/connections/open", body)
        if response.status_code in (400, 401, 403):
            raise Refused(_reason(response))
        if response.status_code != 200:
            raise ConnectionError(f"the stream gateway failed ({_reason(response)})")
        data = response.json()
        endpoint, ticket = data.get("endpoint"), data.get("ticket")
        if not isinstance(endpoint, str) or not isinstance(ticket, str):
            raise ConnectionError("the stream gateway gave no endpoint")
        return endpoint, ticket

    async def token(self) -> str:
        """A valid access token (fetched again shortly before it expires).

        Raises:
            Refused: The credentials were not accepted.
        """
        if self._token and time.monotonic() < self._expires:
            return self._token
        response = await self._post(
            f"{self.base_url}/v1.0/oauth2/accessToken",
            {"appKey": self.client_id, "appSecret": self._secret},
        )
        if response.status_code in (400, 401, 403):
            raise Refused(_reason(response))
        if response.status_code != 200:
            raise ConnectionError(f"getting an access token failed ({_reason(response)})")
        data = response.json()
        token = str(data.get("accessToken") or "")
        if not token:
            raise ConnectionError("DingTalk gave no access token")
        register_secret(token)
        expire_in = float(data.get("expireIn") or 7200)
        self._token = token
        self._expires = time.monotonic() + max(expire_in - TOKEN_MARGIN_S, expire_in / 2)
        return token

    async def _post(self, url: str, body: dict[str, Any], **kwargs: Any) -> httpx.Response:
        try:
            return await self._http.post(url, json=body, **kwargs)
        except httpx.TransportError as exc:
            raise ConnectionError(f"DingTalk could not be reached ({type(exc).__name__})") from exc

    async def _authorized(self, url: str, body: dict[str, Any]) -> httpx.Response:
        """POST with the access token (renewed once when DingTalk says it expired)."""
        for attempt in range(2):
            headers = {"x-acs-dingtalk-access-token": await self.token()}
            response = await self._post(url, body, headers=headers)
            if response.status_code == 401 and attempt == 0:
                self._token = ""
                continue
            return response
        raise AssertionError("unreachable")

    # -- sending ----------------------------------------------------------------------------
    async def send_webhook(self, webhook: str, title: str, text: str) -> None:
        """Post markdown to a message's session webhook.

        Raises:
            Rejected: The webhook refused it (expired): send through the robot API instead.
            ConnectionError: The network failed.
        """
        payload = {"msgtype": "markdown", "markdown": {"title": title, "text": text}}
        response = await self._post(webhook, payload)
        if response.status_code != 200:
            raise Rejected(_reason(response))
        try:
            data = response.json()
        except ValueError:
            data = {}
        if isinstance(data, dict) and data.get("errcode") not in (None, 0):
            raise Rejected(_reason(response))

    async def send_robot(self, chat_id: str, msg_key: str, param: dict[str, Any]) -> None:
        """Send through the robot API: to a group (``group:<id>``) or a person (staff id).

        Raises:
            Rejected: DingTalk refused the message.
            ConnectionError: The network failed.
        """
        body: dict[str, Any] = {
            "robotCode": self.client_id,
            "msgKey": msg_key,
            "msgParam": json.dumps(param, ensure_ascii=False),
        }
        if chat_id.startswith(GROUP_PREFIX):
            body["openConversationId"] = chat_id[len(GROUP_PREFIX) :]
            url = f"{self.base_url}/v1.0/robot/groupMessages/send"
        else:
            body["userIds"] = [chat_id]
            url = f"{self.base_url}/v1.0/robot/oToMessages/batchSend"
        response = await self._authorized(url, body)
        if response.status_code >= 500:
            raise ConnectionError(f"DingTalk failed to send ({_reason(response)})")
        if response.status_code != 200:
            raise Rejected(_reason(response))
        data = response.json() if response.content else {}
        if isinstance(data, dict) and data.get("invalidStaffIdList"):
            raise Rejected(f"DingTalk does not know the user {chat_id}")

    async def upload(self, path: Path, kind: str) -> str:
        """Upload a file (``kind``: ``image`` or ``file``); returns its media id.

        Raises:
            Rejected: DingTalk refused it.
        """
        token = await self.token()
        mime = await guess_type(path.name) or "application/octet-stream"
        content = await asyncio.to_thread(path.read_bytes)
        try:
            response = await self._http.post(
                f"{self.oapi_url}/media/upload",
                params={"access_token": token, "type": kind},
                files={"media": (path.name, content, mime)},
            )
        except httpx.TransportError as exc:
            raise ConnectionError(f"uploading failed ({type(exc).__name__})") from exc
        data = response.json() if response.status_code == 200 else {}
        media_id = data.get("media_id") if isinstance(data, dict) else None
        if response.status_code != 200 or data.get("errcode") not in (None, 0) or not media_id:
            raise Rejected(f"uploading {path.name} failed ({_reason(response)})")
        return str(media_id)

    # -- receiving ----------------------------------------------------------------------
    async def download(self, download_code: str, target: Path) -> Path:
        """Fetch a received file (by its ``downloadCode``) into ``target``.

        Raises:
            Rejected: DingTalk refused it or it is too big.
            ConnectionError: The network failed.
        """
        response = await self._authorized(
            f"{self.base_url}/v1.0/robot/messageFiles/download",
            {"downloadCode": download_code, "robotCode": self.client_id},
        )
        url = response.json().get("downloadUrl") if response.status_code == 200 else None
        if not isinstance(url, str) or not url:
            raise Rejected(f"no download address ({_reason(response)})")
        try:
            async with self._http.stream("GET", url) as stream:
                if stream.status_code != 200:
                    raise Rejected(f"download failed (HTTP {stream.status_code})")
                chunks: list[bytes] = []
                size = 0
                async for chunk in stream.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_DOWNLOAD_BYTES:
                        raise Rejected("the file is too big")
                    chunks.append(chunk)
        except httpx.TransportError as exc:
            raise ConnectionError(f"downloading failed ({type(exc).__name__})") from exc
        await asyncio.to_thread(_write, target, b"".join(chunks))
        return target


def _write(target: Path, content: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
