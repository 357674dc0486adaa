"""A local WeCom AI bot server: the long connection's WebSocket protocol, as the bot SDK speaks it.

Frames are JSON objects ``{"cmd", "headers": {"req_id"}, "body"}``. The bot subscribes
(``aibot_subscribe`` with ``bot_id`` and ``secret``; answered ``errcode`` 0, or an error code for
a wrong secret) and pings (``ping``, answered). The server pushes message callbacks
(``aibot_msg_callback``) and event callbacks (``aibot_event_callback``: ``enter_chat``,
``disconnected_event``); the bot answers with ``aibot_respond_msg`` (the callback's ``req_id``),
``aibot_respond_welcome_msg``, ``aibot_send_msg`` (proactive, ``chatid`` in the body) and uploads
files in three steps (``aibot_upload_media_init`` / ``_chunk`` / ``_finish``). Every frame the bot
sends gets an acknowledgement with its ``req_id`` (``errcode`` 0 or an error). Attachments of
received messages are served over HTTP, AES-256-CBC encrypted with the key given in the message
(the IV is the key's first 16 bytes, PKCS#7 padding to 32 bytes).
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web
from Crypto.Cipher import AES

from tests.typed import narrow

BOT_ID = "aib-test-bot"
SECRET = "wecom-secret-0123456789"
REFUSED = 40058  # what the server answers a subscription with a wrong secret


def encrypt(data: bytes, key: bytes) -> bytes:
    """Encrypt ``data`` the way WeCom serves attachments."""
    pad = 32 - len(data) % 32
    return AES.new(key, AES.MODE_CBC, key[:16]).encrypt(data + bytes([pad]) * pad)


@dataclass
class Sent:
    """A frame the bot sent (other than subscribe and ping)."""

    cmd: str
    req_id: str
    body: dict[str, Any]

    @property
    def text(self) -> str:
        """The text of a stream, markdown or text message."""
        kind = self.body.get("msgtype", "")
        inner = self.body.get(kind) or {}
        return str(inner.get("content", ""))


class WecomServer:
    """The server (``ws_url``: where the bot connects; ``url``: the HTTP side)."""

    def __init__(self) -> None:
        self.subscribes: list[dict[str, Any]] = []
        self.pings = 0
        self.sent: list[Sent] = []
        self.uploads: dict[str, bytes] = {}
        self.expired: set[str] = set()  # req_ids whose reply window has passed
        self._files: dict[str, bytes] = {}
        self._chunks: dict[str, list[bytes]] = {}
        self._socket: web.WebSocketResponse | None = None
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def connected(self) -> bool:
        return self._socket is not None and not self._socket.closed

    async def start(self) -> WecomServer:
        app = web.Application()
        app.router.add_get("/ws", self._ws)
        app.router.add_get("/files/{name}", self._file)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._socket is not None:
            await self._socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- the bot's side ---------------------------------------------------------------------
    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._socket = socket
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            frame = json.loads(message.data)
            await self._on_frame(socket, frame)
        return socket

    async def _ack(self, socket: web.WebSocketResponse, req_id: str, errcode: int = 0,
                   errmsg: str = "ok", body: dict[str, Any] | None = None) -> None:  # fmt: skip
        answer: dict[str, Any] = {
            "headers": {"req_id": req_id},
            "errcode": errcode,
            "errmsg": errmsg,
        }
        if body is not None:
            answer["body"] = body
        await socket.send_str(json.dumps(answer))

    async def _on_frame(self, socket: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        cmd = frame.get("cmd", "")
        req_id = str((frame.get("headers") or {}).get("req_id", ""))
        body = frame.get("body") or {}
        if cmd == "aibot_subscribe":
            self.subscribes.append(body)
            if body == {"bot_id": BOT_ID, "secret": SECRET}:
                await self._ack(socket, req_id)
            else:
                await self._ack(socket, req_id, REFUSED, "invalid secret")
        elif cmd == "ping":
            self.pings += 1
            await self._ack(socket, req_id)
        elif cmd == "aibot_upload_media_init":
            upload = f"up-{next(self._ids)}"
            self._chunks[upload] = []
            await self._ack(socket, req_id, body={"upload_id": upload})
        elif cmd == "aibot_upload_media_chunk":
            self._chunks[body["upload_id"]].append(base64.b64decode(body["base64_data"]))
            await self._ack(socket, req_id)
        elif cmd == "aibot_upload_media_finish":
            media = f"media-{next(self._ids)}"
            self.uploads[media] = b"".join(self._chunks.pop(body["upload_id"]))
            await self._ack(socket, req_id, body={"media_id": media})
        elif cmd == "aibot_respond_msg" and req_id in self.expired:
            await self._ack(socket, req_id, 846608, "reply window expired")
        else:
            self.sent.append(Sent(cmd, req_id, body))
            await self._ack(socket, req_id)

    async def _file(self, request: web.Request) -> web.Response:
        return web.Response(body=self._files[request.match_info["name"]])

    # -- the people's side ------------------------------------------------------------------
    async def _push(self, cmd: str, body: dict[str, Any]) -> str:
        assert self._socket is not None and not self._socket.closed, "the bot is not connected"
        req_id = f"cb-{next(self._ids)}"
        await self._socket.send_str(
            json.dumps({"cmd": cmd, "headers": {"req_id": req_id}, "body": body})
        )
        return req_id

    def _message(self, user: str, chat: str | None, msgtype: str, **content: Any) -> dict[str, Any]:
        body: dict[str, Any] = {
            "msgid": f"msg-{next(self._ids)}",
            "aibotid": BOT_ID,
            "chattype": "group" if chat else "single",
            "from": {"userid": user},
            "msgtype": msgtype,
            **content,
        }
        if chat:
            body["chatid"] = chat
        return body

    async def say(self, text: str, user: str = "alice", chat: str | None = None) -> str:
        """``user`` writes ``text`` (in group ``chat``, else directly); returns the req_id."""
        return await self._push(
            "aibot_msg_callback", self._message(user, chat, "text", text={"content": text})
        )

    async def send_body(self, body: dict[str, Any]) -> str:
        """Push a callback body as it is (a repeated message, a malformed one)."""
        return await self._push("aibot_msg_callback", body)

    async def send_file(self, data: bytes, name: str, user: str = "alice") -> str:
        """``user`` sends a file (kept encrypted, served over HTTP)."""
        key = os.urandom(32)
        stored = f"f{next(self._ids)}"
        self._files[stored] = encrypt(data, key)
        info = {
            "url": f"{self.url}/files/{stored}",
            "aeskey": base64.b64encode(key).decode(),
            "name": name,
        }
        return await self._push("aibot_msg_callback", self._message(user, None, "file", file=info))

    async def enter_chat(self, user: str = "alice") -> str:
        body = self._message(user, None, "event", event={"eventtype": "enter_chat"})
        return await self._push("aibot_event_callback", body)

    async def kick(self) -> None:
        """Tell the bot another connection took over, then close."""
        await self._push(
            "aibot_event_callback",
            self._message("sys", None, "event", event={"eventtype": "disconnected_event"}),
        )
        await self.drop()

    async def drop(self) -> None:
        """Close the connection (the network dropped it)."""
        if self._socket is not None:
            await self._socket.close()
            await asyncio.sleep(0)

    def replies(self) -> list[Sent]:
        return [s for s in self.sent if s.cmd == "aibot_respond_msg"]

    def texts(self) -> list[str]:
        """The texts the bot sent, replies and proactive messages, in order."""
        return [
            s.text for s in self.sent if s.cmd in ("aibot_respond_msg", "aibot_send_msg") and s.text
        ]
