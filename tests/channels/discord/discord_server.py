"""A local Discord for the tests: the REST API and the gateway, as Discord documents them.

One aiohttp server on an ephemeral 127.0.0.1 port serves

* the REST API under ``/api/v10`` (``GET /users/@me``, ``GET /oauth2/applications/@me``,
  ``GET /gateway/bot``, ``POST /channels/{id}/messages`` as JSON or multipart with
  ``payload_json`` and ``files[n]``, ``GET /channels/{id}/messages`` (a channel's history:
  ``limit`` 1-100, default 50, and one of ``before``/``after``/``around``; newest first; no
  ``guild_id`` or ``member`` in the messages; :attr:`DiscordServer.history_error` makes it
  fail with a 5xx or a 429 as Discord's rate limiter sends it), ``PATCH`` of a message, ``POST /channels/{id}/typing``,
  reactions, ``POST /interactions/{id}/{token}/callback``), each call recorded; a request
  without ``Authorization: Bot <token>`` gets 401;
* files under ``/cdn/`` (attachment downloads);
* the gateway WebSocket at ``/gateway`` (JSON text frames, no compression): HELLO with a short
  heartbeat interval, HEARTBEAT → HEARTBEAT_ACK, IDENTIFY → READY (+ GUILD_CREATE), RESUME →
  the events after the client's sequence number, then RESUMED; a bad token closes with 4004.

Events the tests put (``put_message``, ``put_click``) get the next sequence number and are kept
in the session, so a client that resumes after :meth:`DiscordServer.drop` gets the ones it
missed — and only those. :meth:`DiscordServer.hold` creates a message but keeps the answer to
its ``POST`` back (a slow link: the message, and clicks on it, exist before the bot hears so).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

TOKEN = "MTAx.discord-test-token.abcdef"
BOT_ID = 900000000000000001
APP_ID = 900000000000000002
GUILD_ID = 900000000000000003
GENERAL = 900000000000000004  # a server text channel
# For ``DiscordChannel.guild_ready_timeout`` against this server: it announces its one server
# (GUILD_CREATE) right behind READY, in the same burst of frames, so discord.py's 2 s wait
# for "one more server" is dead time here; 0.2 s still leaves a loaded machine ample room to
# read a frame that is already on its way.
GUILD_READY_TIMEOUT = 0.2
DM = 900000000000000005  # the direct-message channel with Ada
ADA = 900000000000000006


def _json(data: Any, status: int = 200) -> web.Response:
    """A JSON response with Discord's exact content type (discord.py compares it as is)."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, content_type="application/json"
    )


@dataclass
class Call:
    """One REST request."""

    method: str
    path: str
    body: dict[str, Any] | None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    query: dict[str, str] = field(default_factory=dict)
    at: float = 0.0


def user(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    """A user object."""
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": name.title(),
        "avatar": None,
        "bot": bot,
    }


class DiscordServer:
    """See the module docstring.

    Args:
        heartbeat_ms: The heartbeat interval HELLO announces.
    """

    def __init__(self, *, heartbeat_ms: int = 500) -> None:
        self.heartbeat_ms = heartbeat_ms
        self.calls: list[Call] = []
        self.identifies: list[dict[str, Any]] = []
        self.resumes: list[dict[str, Any]] = []
        self.heartbeats = 0
        self.connections = 0
        self.messages: dict[int, dict[str, Any]] = {}  # every message, by id
        self.files: dict[str, bytes] = {}
        self.history_error: int | None = None  # the status GET .../messages answers with
        self.after_ready: list[dict[str, Any]] = []  # messages sent live as a session starts
        self.holds: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Event]] = []
        self._ids = itertools.count(1_300_000_000_000_000_000)
        self._events: list[dict[str, Any]] = []  # the session's dispatches (with "s")
        self._session = ""
        self._out: asyncio.Queue[str] | None = None
        self._socket: web.WebSocketResponse | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self) -> DiscordServer:
        """Serve on an ephemeral port."""
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/cdn/{name}", self._cdn)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets  # type: ignore[attr-defined]
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self

    async def stop(self) -> None:
        """Close the gateway and the server."""
        if self._socket is not None:
            await self._socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        """The REST API's address (``apiBase``)."""
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The gateway's address (what ``GET /gateway/bot`` names)."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    def next_id(self) -> int:
        """A fresh snowflake."""
        return next(self._ids)

    # -- what the tests do ----------------------------------------------------------------
    def dispatch(self, event: str, data: Any) -> int:
        """Send a DISPATCH (kept for a resume); returns its sequence number."""
        seq = len(self._events) + 1
        frame = {"op": 0, "t": event, "s": seq, "d": data}
        self._events.append(frame)
        if self._out is not None:
            self._out.put_nowait(json.dumps(frame))
        return seq

    def send_raw(self, frame: dict[str, Any]) -> None:
        """Send ``frame`` as it is (a dispatch with ``s`` is kept for a resume)."""
        if frame.get("op") == 0 and frame.get("s") is not None:
            self._events.append(frame)
        if self._out is not None:
            self._out.put_nowait(json.dumps(frame))

    @property
    def last_seq(self) -> int:
        """The sequence number of the last dispatch."""
        return len(self._events)

    def drop(self) -> None:
        """Cut the gateway connection (no close frame): the network went away."""
        socket, self._socket, self._out = self._socket, None, None
        if socket is not None and socket._req is not None and socket._req.transport:
            socket._req.transport.abort()

    @property
    def connected(self) -> bool:
        """Whether a client is on the gateway now."""
        return self._out is not None

    def message(
        self,
        channel_id: int,
        content: str,
        *,
        author: dict[str, Any] | None = None,
        guild: bool = False,
        mentions: list[dict[str, Any]] | None = None,
        attachments: list[dict[str, Any]] | None = None,
        reply_to: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A message object (not yet sent)."""
        data: dict[str, Any] = {
            "id": str(self.next_id()),
            "channel_id": str(channel_id),
            "author": author or user(ADA, "ada"),
            "content": content,
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": mentions or [],
            "mention_roles": [],
            "attachments": attachments or [],
            "embeds": [],
            "pinned": False,
            "type": 19 if reply_to else 0,
            "flags": 0,
            "components": [],
        }
        if guild:
            data["guild_id"] = str(GUILD_ID)
            data["member"] = {
                "roles": [],
                "joined_at": data["timestamp"],
                "deaf": False,
                "mute": False,
                "flags": 0,
            }
        if reply_to is not None:
            data["message_reference"] = {
                "type": 0,
                "message_id": reply_to["id"],
                "channel_id": reply_to["channel_id"],
            }
            data["referenced_message"] = reply_to
        return data

    def post_message(self, channel_id: int, content: str, **options: Any) -> dict[str, Any]:
        """A person writes while no session is open: only the history has it."""
        data = self.message(channel_id, content, **options)
        self.messages[int(data["id"])] = data
        return data

    def put_message(self, channel_id: int, content: str, **options: Any) -> dict[str, Any]:
        """A person writes: MESSAGE_CREATE on the gateway; returns the message."""
        data = self.message(channel_id, content, **options)
        self.messages[int(data["id"])] = data
        self.dispatch("MESSAGE_CREATE", data)
        return data

    def attachment(self, filename: str, data: bytes, content_type: str) -> dict[str, Any]:
        """An attachment object whose file this server serves."""
        attachment_id = self.next_id()
        name = f"{attachment_id}-{filename}"
        self.files[name] = data
        url = f"http://127.0.0.1:{self.port}/cdn/{name}"
        return {
            "id": str(attachment_id),
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
        }

    def put_click(
        self, message: dict[str, Any], custom_id: str, clicker: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A person clicks a button of ``message``: INTERACTION_CREATE (a component)."""
        data: dict[str, Any] = {
            "id": str(self.next_id()),
            "application_id": str(APP_ID),
            "type": 3,
            "data": {"custom_id": custom_id, "component_type": 2},
            "channel_id": message["channel_id"],
            "channel": {"id": message["channel_id"], "type": 1},
            "user": clicker or user(ADA, "ada"),
            "token": f"interaction-token-{self.next_id()}",
            "version": 1,
            "message": message,
            "app_permissions": "0",
            "locale": "en-US",
            "attachment_size_limit": 8388608,
            "entitlements": [],
            "authorizing_integration_owners": {},
            "context": 1,
        }
        self.dispatch("INTERACTION_CREATE", data)
        return data

    def hold(self, when: Callable[[dict[str, Any]], bool]) -> asyncio.Event:
        """The next message the bot posts whose body matches ``when`` is created, but the
        answer to its ``POST`` waits for the returned event."""
        release = asyncio.Event()
        self.holds.append((when, release))
        return release

    # -- what the tests look at -----------------------------------------------------------
    def calls_of(self, method: str, suffix: str) -> list[Call]:
        """REST calls with ``method`` whose path ends with ``suffix``."""
        return [c for c in self.calls if c.method == method and c.path.endswith(suffix)]

    def sent(self, channel_id: int) -> list[Call]:
        """Messages the bot posted in ``channel_id``."""
        return self.calls_of("POST", f"/channels/{channel_id}/messages")

    def texts(self, channel_id: int) -> list[str]:
        """Their text."""
        return [str((c.body or {}).get("content") or "") for c in self.sent(channel_id)]

    # -- REST -----------------------------------------------------------------------------
    def _bot_message(self, channel_id: str, body: dict[str, Any]) -> dict[str, Any]:
        data = self.message(
            int(channel_id),
            str(body.get("content") or ""),
            author=user(BOT_ID, "nanobot", bot=True),
        )
        data["components"] = body.get("components") or []
        if body.get("message_reference"):
            data["message_reference"] = body["message_reference"]
        self.messages[int(data["id"])] = data
        return data

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        body: dict[str, Any] | None = None
        files: list[tuple[str, bytes]] = []
        if request.content_type == "multipart/form-data":
            form = await request.post()
            for name, value in form.items():
                if name == "payload_json":
                    body = json.loads(str(value))
                elif isinstance(value, web.FileField):
                    files.append((value.filename, value.file.read()))
        elif request.can_read_body:
            body = await request.json()
        call = Call(
            request.method,
            path,
            body,
            files,
            dict(request.query),
            asyncio.get_running_loop().time(),
        )
        self.calls.append(call)
        if request.headers.get("Authorization") != f"Bot {TOKEN}" and not path.startswith(
            "/interactions/"
        ):
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        parts = path.strip("/").split("/")
        if request.method == "GET" and path == "/users/@me":
            return _json(user(BOT_ID, "nanobot", bot=True))
        if request.method == "GET" and path == "/oauth2/applications/@me":
            return _json(
                {
                    "id": str(APP_ID),
                    "name": "nanobot",
                    "description": "",
                    "icon": None,
                    "bot_public": False,
                    "bot_require_code_grant": False,
                    "verify_key": "00",
                    "owner": user(ADA, "ada"),
                    "flags": 0,
                    "team": None,
                }
            )
        if request.method == "GET" and path == "/gateway/bot":
            return _json(
                {
                    "url": self.gateway_url,
                    "shards": 1,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 999,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            )
        if parts[0] == "channels" and parts[-1] == "typing":
            return web.Response(status=204)
        if parts[0] == "channels" and "reactions" in parts:
            return web.Response(status=204)
        if parts[0] == "channels" and parts[2:] == ["messages"] and request.method == "GET":
            return self._history(parts[1], request.query)
        if parts[0] == "channels" and parts[-1] == "messages" and request.method == "POST":
            if parts[1] not in (str(GENERAL), str(DM)) and not parts[1].startswith("9"):
                return _json({"message": "Unknown Channel", "code": 10003}, status=404)
            data = self._bot_message(parts[1], body or {})
            data["attachments"] = [
                {
                    "id": str(self.next_id()),
                    "filename": name,
                    "size": len(raw),
                    "url": "",
                    "proxy_url": "",
                }
                for name, raw in files
            ]
            for index, (when, release) in enumerate(self.holds):
                if when(body or {}):
                    del self.holds[index]
                    await release.wait()
                    break
            return _json(data)
        if parts[0] == "channels" and len(parts) == 4 and request.method == "PATCH":
            message = self.messages.get(int(parts[3]))
            if message is None:
                return _json({"message": "Unknown Message", "code": 10008}, status=404)
            message.update(
                {k: v for k, v in (body or {}).items() if k in ("content", "components")}
            )
            return _json(message)
        if parts[0] == "interactions" and parts[-1] == "callback":
            data = (body or {}).get("data") or {}
            clicks = [e["d"] for e in self._events if e.get("t") == "INTERACTION_CREATE"]
            click = next((d for d in clicks if d["id"] == parts[1]), None)
            if click is None:
                return _json({"message": "Unknown interaction", "code": 10062}, status=404)
            source = self.messages.get(int(click["message"]["id"]))
            if source is not None and (body or {}).get("type") == 7:
                source.update({k: v for k, v in data.items() if k in ("content", "components")})
            return _json(
                {
                    "interaction": {
                        "id": parts[1],
                        "type": 3,
                        "response_message_id": source["id"] if source else None,
                    },
                    "resource": {"type": (body or {}).get("type", 7)},
                }
            )
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    def _history(self, channel_id: str, query: Any) -> web.Response:
        """``GET /channels/{id}/messages`` as Discord documents it (newest first)."""
        if self.history_error == 429:
            response = _json(
                {"message": "You are being rate limited.", "retry_after": 60.0, "global": False},
                status=429,
            )
            response.headers.update(
                {
                    "Retry-After": "60",
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset-After": "60.000",
                    "X-RateLimit-Bucket": "history",
                    "X-RateLimit-Scope": "user",
                    "Via": "1.1 google",
                }
            )
            return response
        if self.history_error is not None:
            return _json({"message": "500: Internal Server Error", "code": 0}, status=500)
        if not channel_id.startswith("9"):
            return _json({"message": "Unknown Channel", "code": 10003}, status=404)
        try:
            limit = int(query.get("limit", "50"))
            anchors = {k: int(query[k]) for k in ("before", "after", "around") if k in query}
        except ValueError:
            return _json({"message": "Invalid Form Body", "code": 50035}, status=400)
        if not 1 <= limit <= 100 or len(anchors) > 1:
            return _json({"message": "Invalid Form Body", "code": 50035}, status=400)
        found = sorted(
            (m for m in self.messages.values() if m["channel_id"] == channel_id),
            key=lambda m: int(m["id"]),
        )
        if "after" in anchors:  # the oldest ``limit`` after it
            found = [m for m in found if int(m["id"]) > anchors["after"]][:limit]
        elif "around" in anchors:
            older = [m for m in found if int(m["id"]) < anchors["around"]]
            newer = [m for m in found if int(m["id"]) >= anchors["around"]]
            found = older[-(limit // 2) :] if limit // 2 else []
            found += newer[: limit - len(found)]
        else:  # the newest ``limit`` (before ``before``)
            found = [m for m in found if int(m["id"]) < anchors.get("before", 1 << 64)][-limit:]
        stripped = [
            {k: v for k, v in m.items() if k not in ("guild_id", "member")} for m in reversed(found)
        ]
        return _json(stripped)

    async def _cdn(self, request: web.Request) -> web.StreamResponse:
        data = self.files.get(request.match_info["name"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data)

    # -- the gateway ----------------------------------------------------------------------
    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self.connections += 1
        out: asyncio.Queue[str] = asyncio.Queue()
        writer = asyncio.create_task(self._write(socket, out))
        await socket.send_json({"op": 10, "d": {"heartbeat_interval": self.heartbeat_ms}})
        try:
            async for frame in socket:
                if frame.type is not WSMsgType.TEXT:
                    continue
                payload = json.loads(frame.data)
                op, data = payload.get("op"), payload.get("d")
                if op == 1:
                    self.heartbeats += 1
                    out.put_nowait(json.dumps({"op": 11}))
                elif op == 2:
                    self.identifies.append(data)
                    if data.get("token") != TOKEN:
                        await socket.close(code=4004, message=b"Authentication failed.")
                        break
                    self._socket, self._out = socket, out
                    self._identified(out)
                elif op == 6:
                    self.resumes.append(data)
                    if data.get("session_id") != self._session or data.get("token") != TOKEN:
                        out.put_nowait(json.dumps({"op": 9, "d": False}))
                        continue
                    self._socket, self._out = socket, out
                    for event in self._events:
                        if event["s"] > (data.get("seq") or 0):
                            out.put_nowait(json.dumps(event))
                    out.put_nowait(json.dumps({"op": 0, "t": "RESUMED", "s": None, "d": {}}))
        finally:
            if self._socket is socket:
                self._socket, self._out = None, None
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
        return socket

    def _identified(self, out: asyncio.Queue[str]) -> None:
        self._session = f"session-{self.next_id()}"
        self._events = []  # a new session: nothing to resume from before
        ready = {
            "v": 10,
            "user": user(BOT_ID, "nanobot", bot=True),
            "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
            "session_id": self._session,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(APP_ID), "flags": 0},
        }
        self.dispatch("READY", ready)
        self.dispatch(
            "GUILD_CREATE",
            {
                "id": str(GUILD_ID),
                "name": "Test server",
                "unavailable": False,
                "owner_id": str(ADA),
                "member_count": 2,
                "roles": [],
                "emojis": [],
                "stickers": [],
                "features": [],
                "members": [],
                "presences": [],
                "voice_states": [],
                "threads": [],
                "stage_instances": [],
                "guild_scheduled_events": [],
                "soundboard_sounds": [],
                "channels": [
                    {
                        "id": str(GENERAL),
                        "type": 0,
                        "name": "general",
                        "position": 0,
                        "permission_overwrites": [],
                        "guild_id": str(GUILD_ID),
                    }
                ],
            },
        )
        for data in self.after_ready:
            self.dispatch("MESSAGE_CREATE", data)

    @staticmethod
    async def _write(socket: web.WebSocketResponse, out: asyncio.Queue[str]) -> None:
        while True:
            frame = await out.get()
            if socket.closed:
                return
            await socket.send_str(frame)
