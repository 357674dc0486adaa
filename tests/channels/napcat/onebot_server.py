"""A local NapCat for the tests: a WebSocket server speaking OneBot v11 as NapCat does (the
access token as ``Authorization: Bearer`` or ``?access_token=``, HTTP 401 without the right
one; a ``lifecycle`` and ``heartbeat`` ``meta_event`` on connect; actions answered with their
``echo``: ``get_login_info``, ``send_private_msg``, ``send_group_msg``, ``send_msg``,
``get_group_member_info``). Only QQ is missing: what would go to QQ is recorded, and what
people send is played by the test (:meth:`OneBotServer.say`). Plain HTTP requests to
``/files/<name>`` serve :attr:`OneBotServer.images` (QQ's image links).
"""

from __future__ import annotations

import base64
import http
import itertools
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

TOKEN = "napcat-secret-token-0123"
BOT = 3889000001
ALICE = 10001
STRANGER = 66666
GROUP = 778899


class OneBotServer:
    """NapCat's OneBot v11 WebSocket server (see the module docstring)."""

    def __init__(self, token: str = TOKEN) -> None:
        self.token = token
        self.clients: set[ServerConnection] = set()
        self.connections = 0
        self.refused = 0
        self.actions: list[dict[str, Any]] = []  # every action frame, in order
        self.images: dict[str, bytes] = {}
        self.drop_when: Callable[[dict[str, Any]], bool] | None = None
        self._server: Server | None = None
        self._ids = itertools.count(5001)

    async def start(self) -> OneBotServer:
        """Listen on an ephemeral loopback port."""
        self._server = await serve(self._handler, "127.0.0.1", 0, process_request=self._http)
        return self

    async def stop(self) -> None:
        """Close every connection and stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    @property
    def port(self) -> int:
        """The port."""
        assert self._server is not None
        return int(next(iter(self._server.sockets)).getsockname()[1])

    @property
    def url(self) -> str:
        """The WebSocket address."""
        return f"ws://127.0.0.1:{self.port}"

    # -- what the test sees ---------------------------------------------------------------
    def sent(self) -> list[dict[str, Any]]:
        """The send actions that went to QQ (answered ``ok``)."""
        return [a for a in self.actions if a["action"].startswith("send_") and a.get("_ok")]

    def texts(self) -> list[str]:
        """The texts that went to QQ."""
        return [
            s["data"]["text"]
            for a in self.sent()
            for s in a["params"]["message"]
            if s["type"] == "text"
        ]

    # -- what people do -------------------------------------------------------------------
    async def push(self, event: dict[str, Any] | str) -> None:
        """Send one frame to every client."""
        data = event if isinstance(event, str) else json.dumps(event)
        for ws in list(self.clients):
            try:
                await ws.send(data)
            except ConnectionClosed:
                pass

    async def say(
        self,
        message: str | list[dict[str, Any]],
        *,
        user: int = ALICE,
        group: int | None = None,
        nickname: str = "Alice",
        message_id: int | None = None,
    ) -> dict[str, Any]:
        """A person sends ``message`` (text or segments), privately or in ``group``."""
        segments = (
            [{"type": "text", "data": {"text": message}}] if isinstance(message, str) else message
        )
        event: dict[str, Any] = {
            "time": int(time.time()), "self_id": BOT, "post_type": "message",
            "message_type": "group" if group else "private",
            "sub_type": "normal" if group else "friend",
            "message_id": message_id or next(self._ids), "user_id": user,
            "message": segments, "raw_message": "", "font": 14,
            "sender": {"user_id": user, "nickname": nickname, "card": ""},
        }  # fmt: skip
        if group:
            event["group_id"] = group
        await self.push(event)
        return event

    async def drop(self) -> None:
        """Close every connection (NapCat restarts, say)."""
        for ws in list(self.clients):
            await ws.close()

    # -- the protocol ---------------------------------------------------------------------
    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path)
        if path.path.startswith("/files/"):
            body = self.images.get(path.path.removeprefix("/files/"))
            if body is None:
                return connection.respond(http.HTTPStatus.NOT_FOUND, "no such file\n")
            headers = Headers([("Content-Type", "image/png"), ("Content-Length", str(len(body)))])
            return Response(200, "OK", headers, body)
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        given = given or parse_qs(path.query).get("access_token", [""])[0]
        if self.token and given != self.token:
            self.refused += 1
            return connection.respond(http.HTTPStatus.UNAUTHORIZED, "token check failed\n")
        return None

    async def _handler(self, ws: ServerConnection) -> None:
        self.clients.add(ws)
        self.connections += 1
        try:
            now = int(time.time())
            await ws.send(
                json.dumps(
                    {
                        "time": now,
                        "self_id": BOT,
                        "post_type": "meta_event",
                        "meta_event_type": "lifecycle",
                        "sub_type": "connect",
                    }
                )
            )
            await ws.send(json.dumps({"time": now, "self_id": BOT, "post_type": "meta_event",
                                      "meta_event_type": "heartbeat", "interval": 30000,
                                      "status": {"online": True, "good": True}}))  # fmt: skip
            async for raw in ws:
                frame = json.loads(raw)
                assert set(frame) <= {"action", "params", "echo"}, frame
                self.actions.append(frame)
                if self.drop_when is not None and self.drop_when(frame):
                    self.drop_when = None
                    await ws.close()
                    return
                answer = self._answer(frame)
                frame["_ok"] = answer["status"] == "ok"
                frame["_data"] = answer["data"]
                await ws.send(json.dumps({**answer, "echo": frame.get("echo")}))
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(ws)

    def _answer(self, frame: dict[str, Any]) -> dict[str, Any]:
        action, params = frame["action"], frame.get("params") or {}

        def ok(data: Any) -> dict[str, Any]:
            return {"status": "ok", "retcode": 0, "data": data, "message": "", "wording": ""}

        if action == "get_login_info":
            return ok({"user_id": BOT, "nickname": "nanobot"})
        if action == "get_group_member_info":
            return ok({"user_id": params["user_id"], "nickname": "Newbie", "card": ""})
        if action in ("send_private_msg", "send_group_msg"):
            key = "user_id" if action == "send_private_msg" else "group_id"
            assert isinstance(params.get(key), int), params
            for segment in params["message"]:
                assert segment["type"] in ("text", "image", "file", "at", "reply", "face")
                file = segment["data"].get("file", "")
                if file.startswith("base64://"):
                    base64.b64decode(file.removeprefix("base64://"), validate=True)
            return ok({"message_id": next(self._ids)})
        return {"status": "failed", "retcode": 1404, "data": None, "message": "unknown action",
                "wording": f"{action} is not supported"}  # fmt: skip
