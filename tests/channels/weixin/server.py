"""A local iLink bot API server: what the WeChat bot client speaks over HTTP.

QR login: ``POST ilink/bot/get_bot_qrcode?bot_type=3`` issues a code (``qrcode`` and the
``qrcode_img_content`` to draw); ``GET ilink/bot/get_qrcode_status?qrcode=…`` answers ``wait``
until :meth:`IlinkServer.scan` (then ``confirmed`` with ``bot_token``, ``baseurl``,
``ilink_bot_id``), or ``expired`` after :meth:`IlinkServer.expire`. Then, with
``Authorization: Bearer <token>`` (else ``ret: -14``): ``getupdates`` is a long poll with the
cursor ``get_updates_buf`` (messages after it, the next cursor; it holds a while when there is
nothing new), ``sendmessage`` takes ``msg`` (``to_user_id``, ``context_token``, ``client_id``,
``item_list``), ``getconfig`` gives a ``typing_ticket`` and ``sendtyping`` records a status.
Every call must carry ``AuthorizationType: ilink_bot_token`` and ``iLink-App-Id``.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.typed import narrow

TOKEN = "ilink-bot-token-abcdef123456"
BOT = "b0f5@im.bot"
HOLD_S = 0.3


@dataclass
class Call:
    """A call the client made."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]


class IlinkServer:
    """The server (``url``: its base address)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.log: list[dict[str, Any]] = []  # every message people sent, in order
        self.sent: list[dict[str, Any]] = []  # the bot's messages
        self.typing: list[tuple[str, int]] = []
        self.codes: list[str] = []
        self.token = TOKEN
        self.scanned = False
        self.expired_codes: set[str] = set()
        self.context: dict[str, str] = {}  # person → the context token last issued
        self.failing = 0  # how many getupdates calls still fail with HTTP 502
        self.cdn: dict[str, bytes] = {}  # encrypt_query_param → the encrypted file
        self.upload_requests: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._new = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> IlinkServer:
        app = web.Application()
        app.router.add_route("*", "/ilink/bot/{name}", self._handle)
        app.router.add_get("/c2c/download", self._download)
        app.router.add_post("/c2c/upload", self._upload)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        self._new.set()
        if self._runner is not None:
            await self._runner.cleanup()

    def calls_to(self, name: str) -> list[Call]:
        return [c for c in self.calls if c.path == name]

    # -- the people's side ------------------------------------------------------------------
    def say(self, text: str, user: str = "alice@im.wechat") -> str:
        """``user`` writes ``text``; returns the message id."""
        return self.push(user, [{"type": 1, "text_item": {"text": text}}])

    def push(self, user: str, items: list[dict[str, Any]], **extra: Any) -> str:
        """``user`` sends a message of ``items``; returns the message id."""
        number = next(self._ids)
        self.context[user] = f"ctx-{user}-{number}"
        message = {
            "seq": number,
            "message_id": 7000 + number,
            "from_user_id": user,
            "to_user_id": BOT,
            "create_time_ms": 1_700_000_000_000 + number,
            "message_type": 1,
            "context_token": self.context[user],
            "item_list": items,
            **extra,
        }
        self.log.append(message)
        self._new.set()
        return str(message["message_id"])

    def scan(self) -> None:
        self.scanned = True

    def expire(self, code: str) -> None:
        self.expired_codes.add(code)

    def texts(self, user: str = "alice@im.wechat") -> list[str]:
        return [
            item["text_item"]["text"]
            for m in self.sent
            if m["to_user_id"] == user
            for item in m.get("item_list", [])
            if item.get("type") == 1
        ]

    # -- the API ----------------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        body: dict[str, Any] = (
            await request.json() if request.method == "POST" else dict(request.query)
        )
        self.calls.append(Call(name, body, dict(request.headers)))
        if request.headers.get("AuthorizationType") != "ilink_bot_token" or not request.headers.get(
            "iLink-App-Id"
        ):
            return web.json_response({"ret": -1, "errmsg": "bad headers"})
        if name == "get_bot_qrcode":
            code = f"qr-{next(self._ids)}"
            self.codes.append(code)
            return web.json_response(
                {
                    "ret": 0,
                    "qrcode": code,
                    "qrcode_img_content": f"https://liteapp.weixin.qq.com/q/{code}",
                }
            )
        if name == "get_qrcode_status":
            code = body.get("qrcode", "")
            if code in self.expired_codes:
                return web.json_response({"ret": 0, "status": "expired"})
            if self.scanned and code == self.codes[-1]:
                return web.json_response(
                    {"ret": 0, "status": "confirmed", "bot_token": self.token, "baseurl": self.url,
                     "ilink_bot_id": BOT, "ilink_user_id": "owner@im.wechat"}
                )  # fmt: skip
            return web.json_response({"ret": 0, "status": "wait"})
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            return web.json_response({"ret": -14, "errmsg": "session timeout"})
        if name == "getupdates" and self.failing:
            self.failing -= 1
            return web.json_response({"error": "bad gateway"}, status=502)
        if name == "getupdates":
            return web.json_response(await self._updates(str(body.get("get_updates_buf") or "")))
        if name == "sendmessage":
            self.sent.append(body["msg"])
            return web.json_response({"ret": 0})
        if name == "getuploadurl":
            self.upload_requests.append(body)
            return web.json_response({"ret": 0, "upload_param": f"up-{body['filekey']}"})
        if name == "getconfig":
            return web.json_response({"ret": 0, "typing_ticket": "ticket-1"})
        if name == "sendtyping":
            self.typing.append((body["ilink_user_id"], body["status"]))
            return web.json_response({"ret": 0})
        return web.json_response({"ret": -1, "errmsg": f"unknown {name}"}, status=404)

    def put_file(self, data: bytes, key: bytes) -> str:
        """Keep ``data`` on the CDN, AES-128-ECB encrypted with ``key``; its query param."""
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

        pad = 16 - len(data) % 16
        encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        param = f"enc-{next(self._ids)}"
        self.cdn[param] = encryptor.update(data + bytes([pad]) * pad) + encryptor.finalize()
        return param

    async def _download(self, request: web.Request) -> web.Response:
        found = self.cdn.get(request.query.get("encrypted_query_param", ""))
        return web.Response(body=found) if found is not None else web.Response(status=404)

    async def _upload(self, request: web.Request) -> web.Response:
        assert request.query["encrypted_query_param"] == f"up-{request.query['filekey']}"
        param = f"dl-{next(self._ids)}"
        self.cdn[param] = await request.read()
        return web.Response(headers={"x-encrypted-param": param})

    def received_file(self, item: dict[str, Any]) -> bytes:
        """The plain bytes of a file the bot sent (``item``: its media item)."""
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

        media = item["media"]
        key = bytes.fromhex(base64.b64decode(media["aes_key"]).decode())
        decryptor = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
        plain = decryptor.update(self.cdn[media["encrypt_query_param"]]) + decryptor.finalize()
        return plain[: -plain[-1]]

    async def _updates(self, cursor: str) -> dict[str, Any]:
        done = int(cursor.removeprefix("buf-") or 0)
        if done >= len(self.log):
            self._new.clear()
            try:
                async with asyncio.timeout(HOLD_S):
                    await self._new.wait()
            except TimeoutError:
                pass
        fresh = self.log[done:]
        return {"ret": 0, "msgs": fresh, "get_updates_buf": f"buf-{len(self.log)}"}
