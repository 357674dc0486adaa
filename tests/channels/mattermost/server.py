"""A local Mattermost server for the tests: the parts of the REST API v4 and the WebSocket that
a bot uses, as Mattermost documents them (developers.mattermost.com/api-documentation).

* REST, every request with ``Authorization: Bearer <token>`` (else HTTP 401 with Mattermost's
  error body ``{"id", "message", "detailed_error", "request_id", "status_code"}``):
  ``GET /api/v4/users/me``, ``GET /api/v4/users/{id}``, ``GET /api/v4/channels/{id}``,
  ``POST /api/v4/posts`` (201, the created post; it is also broadcast as a ``posted`` event,
  as a real server does, so the bot sees its own posts), ``POST /api/v4/files`` (multipart
  ``channel_id`` + ``files``; 201 ``{"file_infos": [...], "client_ids": []}``),
  ``GET /api/v4/files/{id}`` and ``/info``, ``POST /api/v4/reactions``,
  ``DELETE /api/v4/users/{user}/posts/{post}/reactions/{emoji}``.
* WebSocket ``/api/v4/websocket``: the client sends ``{"seq": 1, "action":
  "authentication_challenge", "data": {"token": …}}``; the server answers ``{"status": "OK",
  "seq_reply": 1}`` (or ``"FAIL"`` with an error) and sends the ``hello`` event. Events are
  ``{"event", "data", "broadcast", "seq"}``; a ``posted`` event's ``data.post`` is the post
  as a JSON string, with ``channel_type`` (``D`` direct, ``O`` open …), ``team_id`` and
  ``sender_name``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.typed import narrow

TOKEN = "mm-bot-token-0123456789abcdef"
BOT_ID = "botuser0000000000000000001"
BOT = "nanobot"
ALICE = "aliceuser00000000000000001"
MALLORY = "malloryuser000000000000001"
TEAM = "team00000000000000000000001"
DM = "dmchannel00000000000000001"
MALLORY_DM = "dmmallory0000000000000001"  # mallory's own direct message with the bot
TOWN = "townsquare0000000000000001"


def new_id() -> str:
    """A 26-character id, as Mattermost's."""
    return secrets.token_hex(13)


@dataclass
class Channel:
    """A channel: ``type`` ``D`` (direct), ``O`` (open), ``P`` (private)."""

    id: str
    type: str
    team_id: str = ""


@dataclass
class MattermostServer:
    """The server (see the module docstring)."""

    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    channels: dict[str, Channel] = field(default_factory=dict)
    posts: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, tuple[dict[str, Any], bytes]] = field(default_factory=dict)
    reactions: list[tuple[str, str, str]] = field(default_factory=list)  # (op, post, emoji)
    calls: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    challenges: list[dict[str, Any]] = field(default_factory=list)
    sockets: list[web.WebSocketResponse] = field(default_factory=list)
    connections: int = 0
    port: int = 0

    def __post_init__(self) -> None:
        self.app = web.Application(client_max_size=60 * 1024 * 1024)
        self.runner: web.AppRunner | None = None
        self._seq = itertools.count(1)
        self.users.update(
            {
                BOT_ID: {"id": BOT_ID, "username": BOT, "email": "bot@example.org", "is_bot": True},
                ALICE: {"id": ALICE, "username": "alice", "email": "Alice@Example.org"},
                MALLORY: {"id": MALLORY, "username": "mallory", "email": "m@example.org"},
            }
        )
        self.channels.update(
            {
                DM: Channel(DM, "D"),
                MALLORY_DM: Channel(MALLORY_DM, "D"),
                TOWN: Channel(TOWN, "O", TEAM),
            }
        )
        r = self.app.router
        r.add_get("/api/v4/websocket", self._websocket)
        r.add_get("/api/v4/users/me", self._me)
        r.add_get("/api/v4/users/{id}", self._user)
        r.add_get("/api/v4/channels/{id}", self._channel)
        r.add_post("/api/v4/posts", self._create_post)
        r.add_post("/api/v4/files", self._upload)
        r.add_get("/api/v4/files/{id}", self._download)
        r.add_get("/api/v4/files/{id}/info", self._file_info)
        r.add_post("/api/v4/reactions", self._react)
        r.add_delete("/api/v4/users/{user}/posts/{post}/reactions/{emoji}", self._unreact)

    # -- life -----------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> MattermostServer:
        self.runner = web.AppRunner(self.app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        await self.drop()
        if self.runner is not None:
            await self.runner.cleanup()

    async def drop(self) -> None:
        """Close every WebSocket (the server restarting)."""
        for ws in list(self.sockets):
            await ws.close()

    # -- what a person does ---------------------------------------------------------------
    async def say(
        self,
        channel_id: str,
        message: str,
        *,
        user: str = ALICE,
        root_id: str = "",
        file_ids: list[str] | None = None,
    ) -> str:
        """``user`` posts ``message``; returns the post id."""
        post = self._post(user, channel_id, message, root_id, file_ids or [])
        await self._broadcast_posted(post)
        return str(post["id"])

    async def broadcast_again(self, post: dict[str, Any]) -> None:
        """Send the ``posted`` event of ``post`` once more."""
        await self._broadcast_posted(post)

    def add_file(self, name: str, content: bytes, mime: str) -> str:
        """A file a person attached (uploaded); returns its id."""
        file_id = new_id()
        info = {"id": file_id, "name": name, "size": len(content), "mime_type": mime}
        self.files[file_id] = (info, content)
        return file_id

    def bot_posts(self, channel_id: str | None = None) -> list[dict[str, Any]]:
        """The bot's posts (in ``channel_id``), in order."""
        return [
            p
            for p in self.posts
            if p["user_id"] == BOT_ID and channel_id in (None, p["channel_id"])
        ]

    def texts(self, channel_id: str | None = None) -> list[str]:
        """The messages of the bot's posts that have text."""
        return [p["message"] for p in self.bot_posts(channel_id) if p["message"]]

    # -- internals ------------------------------------------------------------------------
    def _post(
        self, user: str, channel_id: str, message: str, root_id: str, file_ids: list[str]
    ) -> dict[str, Any]:
        now = int(time.time() * 1000)
        post = {
            "id": new_id(),
            "create_at": now,
            "update_at": now,
            "edit_at": 0,
            "delete_at": 0,
            "user_id": user,
            "channel_id": channel_id,
            "root_id": root_id,
            "original_id": "",
            "message": message,
            "type": "",
            "props": {},
            "hashtags": "",
            "file_ids": file_ids,
            "pending_post_id": "",
            "metadata": {},
        }
        self.posts.append(post)
        return post

    async def _broadcast_posted(self, post: dict[str, Any]) -> None:
        channel = self.channels[post["channel_id"]]
        user = self.users.get(post["user_id"], {})
        event = {
            "event": "posted",
            "data": {
                "channel_display_name": channel.id,
                "channel_name": channel.id,
                "channel_type": channel.type,
                "post": json.dumps(post),
                "sender_name": f"@{user.get('username', '')}",
                "set_online": True,
                "team_id": channel.team_id,
            },
            "broadcast": {
                "omit_users": None,
                "user_id": "",
                "channel_id": channel.id,
                "team_id": "",
            },
        }
        await self._send_all(event)

    async def _send_all(self, event: dict[str, Any]) -> None:
        for ws in list(self.sockets):
            if not ws.closed:
                await ws.send_str(json.dumps({**event, "seq": next(self._seq)}))

    @staticmethod
    def _error(status: int, message: str) -> web.Response:
        body = {
            "id": "api.context.session_expired.app_error" if status == 401 else "api.error",
            "message": message,
            "detailed_error": "",
            "request_id": new_id(),
            "status_code": status,
        }
        return web.json_response(body, status=status)

    def _authorized(self, request: web.Request) -> bool:
        self.calls.append((request.method, request.path))
        return request.headers.get("Authorization") == f"Bearer {TOKEN}"

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        authed = False
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                break
            data = json.loads(message.data)
            if data.get("action") != "authentication_challenge":
                continue
            self.challenges.append(data)
            if data.get("data", {}).get("token") != TOKEN:
                reply = {
                    "status": "FAIL",
                    "seq_reply": data.get("seq"),
                    "error": {"id": "api.web_socket_router.not_authenticated.app_error",
                              "message": "Invalid or expired session, please login again."},
                }  # fmt: skip
                await ws.send_str(json.dumps(reply))
                continue
            authed = True
            await ws.send_str(json.dumps({"status": "OK", "seq_reply": data.get("seq")}))
            self.connections += 1
            self.sockets.append(ws)
            hello = {"event": "hello", "data": {"server_version": "10.5.0"}, "broadcast": {}}
            await ws.send_str(json.dumps({**hello, "seq": 0}))
        if authed:
            self.sockets.remove(ws)
        return ws

    async def _me(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        return web.json_response(self.users[BOT_ID])

    async def _user(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        user = self.users.get(request.match_info["id"])
        return web.json_response(user) if user else self._error(404, "Unable to find the user.")

    async def _channel(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        channel = self.channels.get(request.match_info["id"])
        if channel is None:
            return self._error(404, "Unable to find the existing channel.")
        return web.json_response(
            {"id": channel.id, "type": channel.type, "team_id": channel.team_id}
        )

    async def _create_post(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        body = await request.json()
        channel_id = str(body.get("channel_id") or "")
        if channel_id not in self.channels:
            return self._error(403, "You do not have the appropriate permissions.")
        message = str(body.get("message") or "")
        file_ids = list(body.get("file_ids") or [])
        if len(message) > 16383:
            return self._error(400, "Invalid message: too long.")
        if not message and not file_ids:
            return self._error(400, "Invalid message: empty.")
        post = self._post(BOT_ID, channel_id, message, str(body.get("root_id") or ""), file_ids)
        await self._broadcast_posted(post)
        return web.json_response(post, status=201)

    async def _upload(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        form = await request.post()
        channel_id = str(form.get("channel_id") or "")
        upload = form.get("files")
        if channel_id not in self.channels or not isinstance(upload, web.FileField):
            return self._error(400, "Unable to upload file(s). Missing channel_id or files.")
        content = upload.file.read()
        file_id = new_id()
        info = {
            "id": file_id,
            "user_id": BOT_ID,
            "channel_id": channel_id,
            "name": upload.filename,
            "size": len(content),
            "mime_type": upload.content_type,
        }
        self.files[file_id] = (info, content)
        return web.json_response({"file_infos": [info], "client_ids": []}, status=201)

    async def _download(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        found = self.files.get(request.match_info["id"])
        if found is None:
            return self._error(404, "Unable to find the file.")
        return web.Response(body=found[1], content_type=found[0]["mime_type"])

    async def _file_info(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        found = self.files.get(request.match_info["id"])
        return (
            web.json_response(found[0]) if found else self._error(404, "Unable to find the file.")
        )

    async def _react(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        body = await request.json()
        self.reactions.append(("add", str(body["post_id"]), str(body["emoji_name"])))
        return web.json_response({**body, "create_at": int(time.time() * 1000)}, status=201)

    async def _unreact(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "Invalid or expired session, please login again.")
        info = request.match_info
        self.reactions.append(("remove", info["post"], info["emoji"]))
        return web.json_response({"status": "OK"})
