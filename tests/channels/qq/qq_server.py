"""A local QQ Open Platform for the tests: the documented bot API and WebSocket gateway.

HTTP (aiohttp): ``POST /app/getAppAccessToken`` (AppID + AppSecret → access token),
``GET /users/@me``, ``GET /gateway/bot``, ``POST /v2/users/{openid}/messages`` and
``/v2/groups/{group_openid}/messages`` (a repeated ``msg_id`` + ``msg_seq`` is refused with
QQ's duplicate code 40054005), ``POST /v2/users/{openid}/files`` and the group one (base64
upload → ``file_info``), ``POST /dms/{guild_id}/messages``, and ``GET /media/{name}`` (files
people "send"). Every API call must carry ``Authorization: QQBot <token>``.

The gateway: ``HELLO`` (op 10), ``IDENTIFY`` (op 2) → ``READY``, ``RESUME`` (op 6) → the
events after the given sequence again, then ``RESUMED`` (an unknown session gets op 9),
heartbeats (op 1 → op 11), dispatches (op 0).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from tests.typed import narrow

APP_ID = "102030405"
SECRET = "qq-app-secret-value-42"
BOT_NAME = "nanobot-test-bot"


def _json(data: Any, status: int = 200) -> web.Response:
    """A JSON answer with QQ's exact ``Content-Type`` (botpy compares it literally)."""
    body = json.dumps(data).encode()
    return web.Response(body=body, status=status, headers={"Content-Type": "application/json"})


@dataclass
class Call:
    """One API call: method, path, JSON body."""

    method: str
    path: str
    body: Any


class QQServer:
    """The local platform (see the module docstring)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.events: list[dict[str, Any]] = []  # every dispatch sent (op 0 frames)
        self.gateway_frames: list[dict[str, Any]] = []  # what clients sent to the gateway
        self.sessions: set[str] = set()
        self.connections = 0
        self.fail_next_messages = 0  # answer this many message posts with HTTP 500
        self.refuse_passive = False  # refuse replies that carry a msg_id (window passed)
        self._ws: web.WebSocketResponse | None = None
        self._token = 0
        self._tokens: set[str] = set()
        self._ids = itertools.count(1)
        self._seqs = itertools.count(1)
        self._delivered: set[tuple[str, int]] = set()
        self.media: dict[str, bytes] = {}
        self.file_infos: list[str] = []  # what uploads answered
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self) -> QQServer:
        """Listen on an ephemeral loopback port."""
        app = web.Application()
        app.router.add_post("/app/getAppAccessToken", self._token_route)
        app.router.add_get("/users/@me", self._me)
        app.router.add_get("/gateway/bot", self._gateway_bot)
        app.router.add_post("/v2/users/{openid}/messages", self._message)
        app.router.add_post("/v2/groups/{group_openid}/messages", self._message)
        app.router.add_post("/v2/users/{openid}/files", self._file)
        app.router.add_post("/v2/groups/{group_openid}/files", self._file)
        app.router.add_post("/dms/{guild_id}/messages", self._message)
        app.router.add_get("/media/{name}", self._media)
        app.router.add_get("/websocket", self._websocket)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Close the gateway connection and stop listening."""
        await self.drop()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def host(self) -> str:
        """``127.0.0.1:<port>``."""
        return f"127.0.0.1:{self.port}"

    # -- HTTP -----------------------------------------------------------------------------
    async def _token_route(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.calls.append(Call("POST", request.path, body))
        if body.get("appId") != APP_ID or body.get("clientSecret") != SECRET:
            return _json({"code": 100016, "message": "invalid appid or secret"})
        self._token += 1
        token = f"access-token-{self._token:04d}-xyz"
        self._tokens.add(token)
        return _json({"access_token": token, "expires_in": "7200"})

    def _authorised(self, request: web.Request) -> bool:
        header = request.headers.get("Authorization", "")
        return header.startswith("QQBot ") and header[6:] in self._tokens

    async def _me(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return _json({"code": 11241, "message": "wrong token"}, status=401)
        return _json({"id": "9001", "username": BOT_NAME, "avatar": ""})

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return _json({"code": 11241, "message": "wrong token"}, status=401)
        return _json(
            {
                "url": f"ws://{self.host}/websocket",
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 1,
                    "max_concurrency": 1,
                },
            }
        )

    async def _message(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return _json({"code": 11241, "message": "wrong token"}, status=401)
        body = await request.json()
        if self.fail_next_messages > 0:
            self.fail_next_messages -= 1
            return _json({"code": 500, "message": "internal error"}, status=500)
        if self.refuse_passive and body.get("msg_id"):
            return _json({"code": 40034025, "message": "reply window has passed"}, status=400)
        key = (str(body.get("msg_id")), int(body.get("msg_seq") or 1))
        if body.get("msg_id") and key in self._delivered:
            return _json({"code": 40054005, "message": "消息被去重，请检查请求msgseq"}, status=400)
        if body.get("msg_id"):
            self._delivered.add(key)
        self.calls.append(Call("POST", request.path, body))
        return _json({"id": f"sent-{next(self._ids)}", "timestamp": 1700000000})

    async def _file(self, request: web.Request) -> web.Response:
        if not self._authorised(request):
            return _json({"code": 11241, "message": "wrong token"}, status=401)
        body = await request.json()
        self.calls.append(Call("POST", request.path, body))
        info = f"file-info-{next(self._ids)}"
        self.file_infos.append(info)
        return _json({"file_uuid": "uuid-1", "file_info": info, "ttl": 3600})

    async def _media(self, request: web.Request) -> web.Response:
        data = self.media.get(request.match_info["name"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="image/png")

    def sent(self, path_part: str = "/messages") -> list[dict[str, Any]]:
        """Bodies of the messages delivered (paths containing ``path_part``)."""
        return [c.body for c in self.calls if path_part in c.path]

    def texts(self, chat: str) -> list[str]:
        """The texts delivered to a user or group."""
        found = []
        for call in self.calls:
            if call.path.endswith(f"/{chat}/messages"):
                body = call.body
                found.append(body.get("content") or (body.get("markdown") or {}).get("content"))
        return [t for t in found if t]

    # -- gateway --------------------------------------------------------------------------
    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        self.connections += 1
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 45000}})
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                break
            frame = json.loads(message.data)
            self.gateway_frames.append(frame)
            await self._on_frame(ws, frame)
        if self._ws is ws:
            self._ws = None
        return ws

    async def _on_frame(self, ws: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        op, data = frame.get("op"), frame.get("d") or {}
        if op == 1:
            await ws.send_json({"op": 11})
        elif op == 2:
            assert data["token"].startswith("QQBot ") and data["token"][6:] in self._tokens
            session = f"session-{len(self.sessions) + 1}"
            self.sessions.add(session)
            ready = {
                "version": 1,
                "session_id": session,
                "user": {"id": "9001", "username": BOT_NAME, "bot": True},
                "shard": [0, 1],
            }
            await ws.send_json({"op": 0, "s": self._seq(), "t": "READY", "d": ready})
        elif op == 6:
            if data.get("session_id") not in self.sessions:
                await ws.send_json({"op": 9, "d": False})
                return
            for event in self.events:
                if isinstance(event.get("s"), int) and event["s"] > int(data.get("seq") or 0):
                    await ws.send_json(event)
            await ws.send_json({"op": 0, "s": self._seq(), "t": "RESUMED", "d": ""})

    def _seq(self) -> int:
        return next(self._seqs)

    async def dispatch(self, event: str, data: Any, *, raw: dict[str, Any] | None = None) -> int:
        """Send a dispatch (kept for resumes); returns its sequence number."""
        seq = self._seq()
        frame = (
            raw
            if raw is not None
            else {"op": 0, "s": seq, "t": event, "id": f"ev-{seq}", "d": data}
        )
        self.events.append(frame)
        if self._ws is not None and not self._ws.closed:
            await self._ws.send_json(frame)
        return seq

    async def c2c(self, openid: str, text: str, **extra: Any) -> str:
        """A private message from ``openid``; returns its message id."""
        msg_id = f"ROBOT1.0_c2c_{next(self._ids)}"
        data = {"id": msg_id, "author": {"id": openid, "user_openid": openid}, "content": text,
                "timestamp": "2026-11-23T10:00:00+08:00", **extra}  # fmt: skip
        await self.dispatch("C2C_MESSAGE_CREATE", data)
        return msg_id

    async def group(self, group: str, member: str, text: str) -> str:
        """A group message that @-mentions the bot; returns its message id."""
        msg_id = f"ROBOT1.0_group_{next(self._ids)}"
        data = {"id": msg_id, "group_openid": group, "author": {"member_openid": member},
                "content": f" {text}", "timestamp": "2026-11-23T10:00:00+08:00"}  # fmt: skip
        await self.dispatch("GROUP_AT_MESSAGE_CREATE", data)
        return msg_id

    async def drop(self) -> None:
        """Close the gateway connection (the client should resume)."""
        ws, self._ws = self._ws, None
        if ws is not None and not ws.closed:
            await ws.close()

    async def wait_connections(self, count: int, timeout: float = 20.0) -> None:
        """Wait until ``count`` gateway connections were made."""
        async with asyncio.timeout(timeout):
            while self.connections < count:
                await asyncio.sleep(0.01)
