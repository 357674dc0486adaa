"""A local DingTalk for the tests: the documented OpenAPI and the stream protocol.

HTTP (aiohttp, an ephemeral port on 127.0.0.1):

* ``POST /v1.0/gateway/connections/open``: checks ``clientId``/``clientSecret`` (400 with
  ``code``/``message`` when wrong) and the subscriptions; answers ``endpoint`` (this server's
  WebSocket) and a one-time ``ticket``;
* ``POST /v1.0/oauth2/accessToken``: ``appKey``/``appSecret`` → ``accessToken``, ``expireIn``;
* ``POST /v1.0/robot/oToMessages/batchSend`` and ``/v1.0/robot/groupMessages/send``: need the
  ``x-acs-dingtalk-access-token`` header, record the request, answer ``processQueryKey``. A
  test can make the server reset the connection after reading a chosen message's body
  (:attr:`DingTalkServer.reset_when`: the message is not sent), or hold a chosen message
  until :attr:`DingTalkServer.release` is set (:attr:`DingTalkServer.hold_when`: sent only if
  the client still waits for the answer then);
* ``POST /robot/sendBySession?session=…``: a message's session webhook (``errcode`` 0, or an
  error once the session is expired with :meth:`DingTalkServer.expire`);
* ``POST /v1.0/robot/messageFiles/download`` → ``downloadUrl``; ``GET /files/<code>``;
* ``POST /media/upload?access_token=…&type=…`` (multipart ``media``) → ``media_id``.

The stream (``GET /connect?ticket=…``, a WebSocket): robot messages go out as ``CALLBACK``
frames on ``/v1.0/im/bot/messages/get``; ACK frames (``code``, ``headers.messageId``) are
recorded; a message not ACKed is sent again on the next connection (as DingTalk does);
``SYSTEM`` ``ping`` and ``disconnect`` frames can be sent.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.typed import narrow

CLIENT_ID = "dingtestclient01"
CLIENT_SECRET = "test-client-secret-0123456789"
TOPIC = "/v1.0/im/bot/messages/get"
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99"
    b"=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"
)


@dataclass
class Call:
    """One HTTP request the channel made."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    query: dict[str, str]
    at: float = field(default_factory=time.monotonic)


@dataclass
class Sent:
    """A message the robot sent, wherever it went."""

    via: str  # "webhook" or "robot"
    chat: str  # staff id, "group:<cid>", or the webhook's session
    msg_key: str
    param: dict[str, Any]


class DingTalkServer:
    """The local DingTalk (see the module docstring)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.acks: list[dict[str, Any]] = []
        self.system_acks: list[dict[str, Any]] = []
        self.connections = 0
        self.opened: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.uploads: list[tuple[str, str, bytes]] = []
        self._ids = itertools.count(1)
        self._tickets: set[str] = set()
        self._ws: web.WebSocketResponse | None = None
        self._frames: dict[str, dict[str, Any]] = {}  # frame id → frame, until ACKed
        self.sent_frames: dict[str, dict[str, Any]] = {}  # every CALLBACK frame sent
        self._expired: set[str] = set()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.reset_when: Callable[[dict[str, Any]], bool] | None = None  # once
        self.resets = 0
        self.hold_when: Callable[[dict[str, Any]], bool] | None = None  # once
        self.holding = 0  # robot messages held now
        self.release = asyncio.Event()

    @property
    def base_url(self) -> str:
        """The server's address."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> DingTalkServer:
        """Listen on an ephemeral port."""
        app = web.Application()
        app.router.add_post("/v1.0/gateway/connections/open", self._open)
        app.router.add_post("/v1.0/oauth2/accessToken", self._token)
        app.router.add_post("/v1.0/robot/oToMessages/batchSend", self._robot)
        app.router.add_post("/v1.0/robot/groupMessages/send", self._robot)
        app.router.add_post("/robot/sendBySession", self._webhook)
        app.router.add_post("/v1.0/robot/messageFiles/download", self._download)
        app.router.add_get("/files/{code}", self._file)
        app.router.add_post("/media/upload", self._upload)
        app.router.add_get("/connect", self._connect)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Close the stream and stop listening."""
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- what the tests look at ---------------------------------------------------------
    def sent(self) -> list[Sent]:
        """Every message the robot sent, in order."""
        result = []
        for call in self.calls:
            if call.path == "/robot/sendBySession":
                markdown = call.body.get("markdown", {})
                result.append(Sent("webhook", call.query["session"], "sampleMarkdown", markdown))
            elif call.path.startswith("/v1.0/robot/") and "msgKey" in call.body:
                chat = (
                    f"group:{call.body['openConversationId']}"
                    if "openConversationId" in call.body
                    else call.body["userIds"][0]
                )
                result.append(
                    Sent("robot", chat, call.body["msgKey"], json.loads(call.body["msgParam"]))
                )
        return result

    def texts(self) -> list[str]:
        """The markdown texts sent, in order."""
        return [s.param["text"] for s in self.sent() if s.msg_key == "sampleMarkdown"]

    def calls_to(self, path: str) -> list[Call]:
        """The requests to ``path``."""
        return [c for c in self.calls if c.path == path]

    @property
    def connected(self) -> bool:
        """Whether a stream connection is open."""
        return self._ws is not None and not self._ws.closed

    def unconfirm(self, frame_id: str) -> None:
        """Act as if the ACK of ``frame_id`` never arrived: it is sent again on the next
        connection."""
        self._frames[frame_id] = self.sent_frames[frame_id]

    def unacked(self) -> list[str]:
        """Frame ids sent but not ACKed."""
        return list(self._frames)

    # -- what the tests do --------------------------------------------------------------
    def expire(self, session: str) -> None:
        """Make a session webhook refuse from now on."""
        self._expired.add(session)

    def message(
        self,
        text: str = "",
        *,
        sender: str = "staff-alice",
        nick: str = "Alice",
        group: str | None = None,
        msgtype: str = "text",
        content: dict[str, Any] | None = None,
        webhook_ttl_s: float = 3600,
    ) -> dict[str, Any]:
        """A robot message as DingTalk sends it (the ``data`` of the callback)."""
        n = next(self._ids)
        now = int(time.time() * 1000)
        data: dict[str, Any] = {
            "conversationId": group or f"cid-single-{sender}",
            "chatbotCorpId": "corp-1",
            "chatbotUserId": "bot-user-1",
            "msgId": f"msg-{n:04d}",
            "senderNick": nick,
            "isAdmin": False,
            "senderStaffId": sender,
            "sessionWebhookExpiredTime": now + int(webhook_ttl_s * 1000),
            "createAt": now,
            "senderCorpId": "corp-1",
            "conversationType": "2" if group else "1",
            "senderId": f"$:LWCP_v1:${sender}",
            "sessionWebhook": f"{self.base_url}/robot/sendBySession?session=s-{n:04d}",
            "robotCode": CLIENT_ID,
            "msgtype": msgtype,
        }
        if group:
            data["conversationTitle"] = "Team"
            data["isInAtList"] = True
            data["atUsers"] = [{"dingtalkId": "bot-user-1"}]
        if msgtype == "text":
            data["text"] = {"content": text}
        if content is not None:
            data["content"] = content
        return data

    async def push(self, data: dict[str, Any] | str) -> str:
        """Send a robot message (or a raw ``data`` string) on the stream; returns its frame
        id."""
        assert self.connected, "no stream connection"
        frame_id = f"frame-{next(self._ids):04d}"
        frame = {
            "specVersion": "1.0",
            "type": "CALLBACK",
            "headers": {
                "appId": "app-1",
                "connectionId": "conn-1",
                "contentType": "application/json",
                "messageId": frame_id,
                "time": str(int(time.time() * 1000)),
                "topic": TOPIC,
            },
            "data": data if isinstance(data, str) else json.dumps(data),
        }
        self._frames[frame_id] = self.sent_frames[frame_id] = frame
        assert self._ws is not None
        await self._ws.send_str(json.dumps(frame))
        return frame_id

    async def send_raw(self, text: str) -> None:
        """Send anything on the stream."""
        assert self._ws is not None
        await self._ws.send_str(text)

    async def system(self, topic: str, data: dict[str, Any] | None = None) -> str:
        """Send a ``SYSTEM`` frame (``ping``, ``disconnect``)."""
        frame_id = f"sys-{next(self._ids):04d}"
        frame = {
            "specVersion": "1.0",
            "type": "SYSTEM",
            "headers": {"contentType": "application/json", "messageId": frame_id, "topic": topic},
            "data": json.dumps(data or {}),
        }
        assert self._ws is not None
        await self._ws.send_str(json.dumps(frame))
        return frame_id

    async def drop(self) -> None:
        """Cut the stream connection (no close handshake reaches the client cleanly)."""
        ws = self._ws
        if ws is not None:
            await ws.close(code=1011, message=b"gone")

    # -- handlers -----------------------------------------------------------------------
    async def _record(self, request: web.Request) -> Call:
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            body = {}
        call = Call(request.path, body, dict(request.headers), dict(request.query))
        self.calls.append(call)
        return call

    async def _open(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if (call.body.get("clientId"), call.body.get("clientSecret")) != (CLIENT_ID, CLIENT_SECRET):
            return web.json_response(
                {"code": "InvalidAuthentication", "message": "clientId or clientSecret is invalid"},
                status=400,
            )
        self.opened.append(call.body)
        ticket = f"ticket-{next(self._ids)}"
        self._tickets.add(ticket)
        return web.json_response(
            {"endpoint": f"ws://127.0.0.1:{self.port}/connect", "ticket": ticket}
        )

    async def _token(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if (call.body.get("appKey"), call.body.get("appSecret")) != (CLIENT_ID, CLIENT_SECRET):
            return web.json_response(
                {"code": "invalidClientIdOrSecret", "message": "invalid appKey or appSecret"},
                status=400,
            )
        return web.json_response({"accessToken": "access-token-abcdef", "expireIn": 7200})

    def _authorized(self, call: Call) -> bool:
        return call.headers.get("x-acs-dingtalk-access-token") == "access-token-abcdef"

    async def _robot(self, request: web.Request) -> web.Response:
        body = await request.json()
        if self.reset_when is not None and self.reset_when(body):
            self.reset_when = None
            self.resets += 1
            assert request.transport is not None
            request.transport.abort()  # the connection is reset: the message is not sent
            return web.Response(status=500)
        if self.hold_when is not None and self.hold_when(body):
            self.hold_when = None
            self.holding += 1
            try:
                await self.release.wait()
            finally:
                self.holding -= 1
            if request.transport is None or request.transport.is_closing():
                return web.Response(status=500)  # the client is gone: the message is not sent
        call = await self._record(request)
        if not self._authorized(call):
            return web.json_response(
                {"code": "InvalidAuthentication", "message": "token"}, status=401
            )
        if call.body.get("robotCode") != CLIENT_ID or not isinstance(
            call.body.get("msgParam"), str
        ):
            return web.json_response({"code": "param.error", "message": "bad request"}, status=400)
        return web.json_response({"processQueryKey": f"q-{len(self.calls)}"})

    async def _webhook(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if call.query.get("session") in self._expired:
            return web.json_response({"errcode": 300001, "errmsg": "session webhook expired"})
        markdown = call.body.get("markdown")
        if call.body.get("msgtype") != "markdown" or not isinstance(markdown, dict):
            return web.json_response({"errcode": 40035, "errmsg": "missing parameter"})
        return web.json_response({"errcode": 0, "errmsg": "ok"})

    async def _download(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        if not self._authorized(call):
            return web.json_response(
                {"code": "InvalidAuthentication", "message": "token"}, status=401
            )
        code = str(call.body.get("downloadCode"))
        if code not in self.files:
            return web.json_response(
                {"code": "resource.not.found", "message": "no file"}, status=404
            )
        return web.json_response({"downloadUrl": f"{self.base_url}/files/{code}"})

    async def _file(self, request: web.Request) -> web.Response:
        return web.Response(body=self.files[request.match_info["code"]])

    async def _upload(self, request: web.Request) -> web.Response:
        query = dict(request.query)
        form = await request.post()
        media = form["media"]
        content = media.file.read()  # type: ignore[union-attr]
        self.calls.append(Call(request.path, {}, dict(request.headers), query))
        if query.get("access_token") != "access-token-abcdef":
            return web.json_response({"errcode": 40014, "errmsg": "invalid access_token"})
        self.uploads.append((query.get("type", ""), media.filename, content))  # type: ignore[union-attr]
        return web.json_response(
            {"errcode": 0, "errmsg": "ok", "media_id": f"@media-{len(self.uploads)}"}
        )

    async def _connect(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:
            return web.Response(status=401, text="bad ticket")
        self._tickets.discard(ticket)
        ws = web.WebSocketResponse(heartbeat=None)
        await ws.prepare(request)
        self._ws = ws
        self.connections += 1
        for frame in list(self._frames.values()):  # not ACKed on the last connection: again
            await ws.send_str(json.dumps(frame))
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            ack = json.loads(message.data)
            frame_id = ack.get("headers", {}).get("messageId", "")
            if frame_id.startswith("sys-"):
                self.system_acks.append(ack)
            else:
                self.acks.append(ack)
                if ack.get("code") == 200:
                    self._frames.pop(frame_id, None)
        if self._ws is ws:
            self._ws = None
        return ws
