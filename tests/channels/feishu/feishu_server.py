"""A local Feishu Open Platform for tests (aiohttp, loopback only).

It speaks the documented interfaces the channel and lark-oapi use:

- ``POST /open-apis/auth/v3/tenant_access_token/internal`` (app id + secret → a token; every
  other Open API call must carry it as ``Authorization: Bearer …``);
- ``GET /open-apis/bot/v3/info``;
- ``POST /open-apis/im/v1/messages?receive_id_type=chat_id``, ``POST …/messages/:id/reply``,
  ``PATCH …/messages/:id`` (cards), with the platform's ``uuid`` de-duplication (a second
  request with the same uuid sends nothing and answers with the first message);
- ``POST /open-apis/im/v1/images`` and ``/files`` (multipart uploads),
  ``GET …/messages/:id/resources/:key?type=image|file`` (downloads);
- ``POST``/``DELETE …/messages/:id/reactions``;
- ``POST /callback/ws/endpoint`` (long-connection discovery: the WebSocket URL with its
  ``device_id`` and ``service_id``, and the client config) and that WebSocket, which carries
  protobuf ``pbbp2.Frame`` frames: events as data frames (headers ``type=event``,
  ``message_id``, ``trace_id``, ``sum``, ``seq``; the event JSON as payload), answered by the
  client on the same frame with ``{"code": 200, …}`` (a callback's response body in ``data``,
  base64); pings (control frames) answered with pongs.

An event the client has not answered with code 200 is delivered again on its next
connection, as the platform does. Tests push events with :meth:`FeishuServer.push_message`,
:meth:`push_card_action` and :meth:`push_raw`, drop the connection with :meth:`drop` and read
what the bot sent from :attr:`FeishuServer.sent`.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, WSMsgType, web
from lark_oapi.ws.pb.pbbp2_pb2 import Frame

APP_ID = "cli_test_app"
APP_SECRET = "test-app-secret-value"
TENANT_TOKEN = "t-test-tenant-access-token"
BOT_OPEN_ID = "ou_bot_0001"
BOT_NAME = "nanobot test bot"
SERVICE_ID = 7
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


@dataclass
class Sent:
    """A message the bot sent."""

    message_id: str
    chat_id: str
    msg_type: str
    content: dict[str, Any]
    reply_to: str | None = None
    reply_in_thread: bool = False
    uuid: str | None = None
    receive_id: str | None = None


@dataclass
class Delivery:
    """An event to deliver, and the client's answers to it."""

    frame_id: str
    payload: bytes
    answers: list[dict[str, Any]] = field(default_factory=list)
    times_sent: int = 0

    @property
    def acked(self) -> bool:
        """The client answered it with code 200."""
        return any(a.get("code") == 200 for a in self.answers)


class FeishuServer:
    """The local platform (see the module docstring)."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self.send_requests: list[dict[str, Any]] = []
        self.patched: list[tuple[str, dict[str, Any]]] = []
        self.reactions: dict[str, tuple[str, str]] = {}  # reaction id → (message, emoji)
        self.reaction_log: list[tuple[str, str, str]] = []  # (add/remove, message, emoji)
        self.uploads: dict[str, tuple[str, bytes]] = {}  # key → (name, data)
        self.resources: dict[tuple[str, str], bytes] = {}
        self.deliveries: list[Delivery] = []
        self.connections = 0
        self.endpoint_calls = 0
        self.lose_acks = False
        """Answers from the client are dropped (as if lost on the way)."""
        self.failures: list[tuple[Callable[[dict[str, Any]], bool], bool]] = []
        """Send requests to fail once (predicate on the body; whether the message is still
        sent, as when only the answer is lost)."""
        self.holds: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Event]] = []
        """Sends whose answer waits for the event (after the message is sent: a slow link)."""
        self.reactions_held: asyncio.Event | None = None
        """While set and not yet fired, adding a reaction waits for it."""
        self.refuse_endpoint = False
        """Endpoint discovery refuses the app (as for an app without the long connection)."""
        self._by_uuid: dict[str, Sent] = {}
        self._direct_chats: dict[str, str] = {}  # person's open id → their chat with the bot
        self._ids = itertools.count(1)
        self._ws: web.WebSocketResponse | None = None
        self._connected = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self) -> FeishuServer:
        """Listen on an ephemeral loopback port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/open-apis/auth/v3/tenant_access_token/internal", self._token)
        app.router.add_get("/open-apis/bot/v3/info", self._bot_info)
        app.router.add_post("/open-apis/im/v1/messages", self._create)
        app.router.add_post("/open-apis/im/v1/messages/{id}/reply", self._reply)
        app.router.add_patch("/open-apis/im/v1/messages/{id}", self._patch)
        app.router.add_post("/open-apis/im/v1/images", self._upload_image)
        app.router.add_post("/open-apis/im/v1/files", self._upload_file)
        app.router.add_get("/open-apis/im/v1/messages/{id}/resources/{key}", self._resource)
        app.router.add_post("/open-apis/im/v1/messages/{id}/reactions", self._react)
        app.router.add_delete("/open-apis/im/v1/messages/{id}/reactions/{rid}", self._unreact)
        app.router.add_post("/callback/ws/endpoint", self._endpoint)
        app.router.add_get("/ws", self._websocket)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self

    async def stop(self) -> None:
        """Close the connection and stop listening."""
        if self._ws is not None:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        """The Open API address."""
        return f"http://127.0.0.1:{self.port}"

    # -- Open API -------------------------------------------------------------------------
    @staticmethod
    def _ok(data: Any = None, **extra: Any) -> web.Response:
        body: dict[str, Any] = {"code": 0, "msg": "success", **extra}
        if data is not None:
            body["data"] = data
        return web.json_response(body)

    @staticmethod
    def _authorized(request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bearer {TENANT_TOKEN}"

    def _refused(self) -> web.Response:
        return web.json_response(
            {"code": 99991663, "msg": "Invalid access token for authorization."}, status=400
        )

    async def _token(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("app_id") != APP_ID or body.get("app_secret") != APP_SECRET:
            return web.json_response({"code": 10014, "msg": "app secret invalid"})
        return web.json_response(
            {"code": 0, "msg": "ok", "tenant_access_token": TENANT_TOKEN, "expire": 7200}
        )

    async def _bot_info(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        return web.json_response(
            {
                "code": 0,
                "msg": "ok",
                "bot": {"activate_status": 2, "app_name": BOT_NAME, "open_id": BOT_OPEN_ID},
            }
        )

    def hold(self, when: Callable[[dict[str, Any]], bool]) -> asyncio.Event:
        """The next send whose body matches ``when`` is carried out, but its answer is kept
        back until the returned event is set."""
        release = asyncio.Event()
        self.holds.append((when, release))
        return release

    def fail_once(self, when: Callable[[dict[str, Any]], bool], *, delivered: bool) -> None:
        """The next send whose body matches ``when`` fails with 502 (after sending the
        message when ``delivered``: the answer is lost on the way back)."""
        self.failures.append((when, delivered))

    def _record(self, request_body: dict[str, Any], **fields: Any) -> web.Response:
        for index, (when, delivered) in enumerate(self.failures):
            if when(request_body):
                del self.failures[index]
                if delivered:
                    self._record(request_body, **fields)
                return web.Response(status=502, text="Bad Gateway")
        key = request_body.get("uuid")
        if key and key in self._by_uuid:
            return self._ok({"message_id": self._by_uuid[key].message_id})
        if request_body.get("msg_type") not in ("text", "post", "image", "file", "interactive"):
            return web.json_response({"code": 230001, "msg": "invalid msg_type"}, status=400)
        content = json.loads(request_body["content"])  # the platform wants a JSON string
        sent = Sent(
            f"om_bot_{next(self._ids)}",
            msg_type=request_body["msg_type"],
            content=content,
            uuid=key,
            **fields,
        )
        self.sent.append(sent)
        if key:
            self._by_uuid[key] = sent
        return self._ok({"message_id": sent.message_id, "chat_id": sent.chat_id})

    async def _create(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        kind = request.query.get("receive_id_type")
        body = await request.json()
        self.send_requests.append(body)
        receiver = str(body.get("receive_id") or "")
        if kind == "chat_id" and receiver.startswith("oc_"):
            chat = receiver
        elif kind == "open_id" and receiver.startswith("ou_"):
            chat = self._direct_chats.get(receiver, receiver)  # the bot's chat with them
        else:
            return web.json_response({"code": 99992402, "msg": "field validation failed"})
        answer = self._record(body, chat_id=chat, receive_id=receiver)
        for index, (when, release) in enumerate(self.holds):
            if when(body):
                del self.holds[index]
                await release.wait()
                break
        return answer

    async def _reply(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        body = await request.json()
        self.send_requests.append(body)
        target = request.match_info["id"]
        chat = self._chat_of(target)
        return self._record(
            body, chat_id=chat, reply_to=target, reply_in_thread=bool(body.get("reply_in_thread"))
        )

    def _chat_of(self, message_id: str) -> str:
        for delivery in self.deliveries:
            event = json.loads(delivery.payload).get("event", {})
            message = event.get("message", {}) if isinstance(event, dict) else {}
            if message.get("message_id") == message_id:
                return str(message.get("chat_id"))
        for sent in self.sent:
            if sent.message_id == message_id:
                return sent.chat_id
        return ""

    async def _patch(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        body = await request.json()
        self.patched.append((request.match_info["id"], json.loads(body["content"])))
        return self._ok()

    async def _form(self, request: web.Request) -> dict[str, Any]:
        form: dict[str, Any] = {}
        async for part in await request.multipart():
            assert isinstance(part, BodyPartReader)  # the upload's fields, no nested multipart
            data = bytes(await part.read())
            name = part.name or ""
            if name in ("image", "file"):
                form[name] = (part.filename, data)
            else:
                form[name] = data.decode()
        return form

    async def _upload_image(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        form = await self._form(request)
        assert form.get("image_type") == "message", form
        key = f"img_v3_{next(self._ids)}"
        self.uploads[key] = ("", form["image"][1])
        return self._ok({"image_key": key})

    async def _upload_file(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        form = await self._form(request)
        key = f"file_v3_{next(self._ids)}"
        self.uploads[key] = (form["file_name"], form["file"][1])
        self.uploads[key + ":type"] = (form["file_type"], b"")
        return self._ok({"file_key": key})

    async def _resource(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        key = (request.match_info["id"], request.match_info["key"])
        data = self.resources.get(key)
        if data is None or request.query.get("type") not in ("image", "file"):
            return web.json_response({"code": 234003, "msg": "File not in msg."}, status=400)
        return web.Response(
            body=data,
            content_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="{key[1]}"'},
        )

    async def _react(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        body = await request.json()
        if self.reactions_held is not None:  # a slow platform: held until the test says
            await self.reactions_held.wait()
        emoji = body["reaction_type"]["emoji_type"]
        reaction = f"r_{next(self._ids)}"
        self.reactions[reaction] = (request.match_info["id"], emoji)
        self.reaction_log.append(("add", request.match_info["id"], emoji))
        return self._ok({"reaction_id": reaction, "reaction_type": {"emoji_type": emoji}})

    async def _unreact(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._refused()
        found = self.reactions.pop(request.match_info["rid"], None)
        if found is None or found[0] != request.match_info["id"]:
            return web.json_response({"code": 231003, "msg": "reaction not found"}, status=400)
        self.reaction_log.append(("remove", *found))
        return self._ok({"reaction_id": request.match_info["rid"]})

    # -- long connection ------------------------------------------------------------------
    async def _endpoint(self, request: web.Request) -> web.Response:
        self.endpoint_calls += 1
        body = await request.json()
        refused = body.get("AppID") != APP_ID or body.get("AppSecret") != APP_SECRET
        if refused or self.refuse_endpoint:
            return web.json_response({"code": 10003, "msg": "invalid app_id or app_secret"})
        device = uuid.uuid4().hex[:12]
        return self._ok(
            {
                "URL": f"ws://127.0.0.1:{self.port}/ws?device_id={device}&service_id={SERVICE_ID}",
                "ClientConfig": {
                    "ReconnectCount": -1,
                    "ReconnectInterval": 120,
                    "ReconnectNonce": 30,
                    "PingInterval": 120,
                },
            }
        )

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.connections += 1
        self._ws = ws
        self._connected.set()
        for delivery in self.deliveries:  # the platform retries what was not confirmed
            if not delivery.acked:
                await self._send_frame(ws, delivery)
        async for message in ws:
            if message.type != WSMsgType.BINARY:
                continue
            frame = Frame()
            frame.ParseFromString(message.data)
            headers = {h.key: h.value for h in frame.headers}
            if frame.method == 0 and headers.get("type") == "ping":
                pong = Frame(SeqID=0, LogID=0, service=SERVICE_ID, method=0)
                pong.headers.add(key="type", value="pong")
                await ws.send_bytes(pong.SerializeToString())
            elif frame.method == 1 and not self.lose_acks:
                answer = json.loads(frame.payload)
                for delivery in self.deliveries:
                    if delivery.frame_id == headers.get("message_id"):
                        delivery.answers.append(answer)
        if self._ws is ws:
            self._ws = None
            self._connected.clear()
        return ws

    async def _send_frame(self, ws: web.WebSocketResponse, delivery: Delivery) -> None:
        frame = Frame(SeqID=next(self._ids), LogID=0, service=SERVICE_ID, method=1)
        for key, value in (
            ("type", "event"),
            ("message_id", delivery.frame_id),
            ("trace_id", uuid.uuid4().hex),
            ("sum", "1"),
            ("seq", "0"),
        ):
            frame.headers.add(key=key, value=value)
        frame.payload = delivery.payload
        delivery.times_sent += 1
        await ws.send_bytes(frame.SerializeToString())

    @property
    def connected(self) -> bool:
        """A client is connected."""
        return self._ws is not None and not self._ws.closed

    async def drop(self) -> None:
        """Close the client's connection (it has to reconnect)."""
        ws = self._ws
        if ws is not None:
            self._ws = None
            self._connected.clear()
            await ws.close()

    async def push_raw(self, payload: bytes) -> Delivery:
        """Deliver ``payload`` as an event frame (now, or when a client connects)."""
        delivery = Delivery(uuid.uuid4().hex, payload)
        self.deliveries.append(delivery)
        if self._ws is not None and not self._ws.closed:
            await self._send_frame(self._ws, delivery)
        return delivery

    async def push_event(self, event_type: str, event: dict[str, Any]) -> Delivery:
        """Deliver a schema 2.0 event."""
        envelope = {
            "schema": "2.0",
            "header": {
                "event_id": uuid.uuid4().hex,
                "event_type": event_type,
                "create_time": str(int(time.time() * 1000)),
                "token": "",
                "app_id": APP_ID,
                "tenant_key": "tenant-1",
            },
            "event": event,
        }
        return await self.push_raw(json.dumps(envelope).encode())

    async def push_message(
        self,
        chat_id: str,
        sender: str,
        content: dict[str, Any],
        *,
        msg_type: str = "text",
        chat_type: str = "p2p",
        mentions: list[dict[str, Any]] | None = None,
        thread_id: str = "",
        root_id: str = "",
        user_id: str = "",
    ) -> tuple[str, Delivery]:
        """A person's message (``im.message.receive_v1``); returns its id and delivery."""
        message_id = f"om_user_{next(self._ids)}"
        message: dict[str, Any] = {
            "message_id": message_id,
            "root_id": root_id,
            "parent_id": "",
            "create_time": str(int(time.time() * 1000)),
            "chat_id": chat_id,
            "chat_type": chat_type,
            "message_type": msg_type,
            "content": json.dumps(content, ensure_ascii=False),
            "mentions": mentions or [],
        }
        if thread_id:
            message["thread_id"] = thread_id
        if chat_type == "p2p":
            self._direct_chats[sender] = chat_id
        event = {
            "sender": {
                "sender_id": {"open_id": sender, "user_id": user_id, "union_id": "on_x"},
                "sender_type": "user",
                "tenant_key": "tenant-1",
            },
            "message": message,
        }
        return message_id, await self.push_event("im.message.receive_v1", event)

    async def push_text(self, chat_id: str, sender: str, text: str, **kw: Any) -> str:
        """A text message; returns its id."""
        message_id, _ = await self.push_message(chat_id, sender, {"text": text}, **kw)
        return message_id

    async def push_card_action(
        self, chat_id: str, card_message: str, operator: str, value: dict[str, Any]
    ) -> Delivery:
        """A button tap on a card (``card.action.trigger``)."""
        event = {
            "operator": {"tenant_key": "tenant-1", "open_id": operator, "union_id": "on_x"},
            "token": "c-" + uuid.uuid4().hex,
            "action": {"value": value, "tag": "button"},
            "host": "im_message",
            "context": {"open_message_id": card_message, "open_chat_id": chat_id},
        }
        return await self.push_event("card.action.trigger", event)

    # -- reading --------------------------------------------------------------------------
    def sent_to(self, chat_id: str) -> list[Sent]:
        """What the bot sent to ``chat_id``."""
        return [s for s in self.sent if s.chat_id == chat_id]

    def texts(self, chat_id: str) -> list[str]:
        """The text of each message to ``chat_id`` (a card's markdown joined)."""
        return [card_text(s) for s in self.sent_to(chat_id)]


def card_text(sent: Sent) -> str:
    """The visible text of a sent message."""
    if sent.msg_type == "text":
        return str(sent.content.get("text", ""))
    if sent.msg_type == "interactive":
        parts = []
        for element in sent.content.get("elements", []):
            if element.get("tag") == "markdown":
                parts.append(element["content"])
            elif element.get("tag") == "div":
                parts.append(element["text"]["content"])
        return "\n".join(parts)
    return json.dumps(sent.content)


def callback_body(delivery: Delivery) -> dict[str, Any] | None:
    """The response body the client sent back for a callback (decoded)."""
    for answer in delivery.answers:
        data = answer.get("data")
        if answer.get("code") == 200 and data:
            decoded: dict[str, Any] = json.loads(base64.b64decode(data))
            return decoded
    return None
