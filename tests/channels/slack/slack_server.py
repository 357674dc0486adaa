"""A local Slack for tests (aiohttp, loopback only): the Web API and Socket Mode.

Web API: ``POST /api/<method>`` with a bearer token (form, multipart or JSON parameters;
``{"ok": true, …}`` or ``{"ok": false, "error": …}`` answers) for the methods the channel uses:
``auth.test``, ``apps.connections.open`` (app-level token only; answers this server's
``ws://`` URL), ``chat.postMessage`` (at most 40,000 characters of text, blocks checked
against Block Kit's shape), ``chat.update``, ``reactions.add``/``remove``,
``files.getUploadURLExternal`` + the upload URL + ``files.completeUploadExternal``,
``conversations.history`` and ``conversations.replies`` (GET or POST; ``oldest``/``latest``
with ``inclusive``, ``limit``, ``cursor`` → ``response_metadata.next_cursor``; history newest
first with ``has_more``, replies the parent first then oldest first, as Slack documents) over
the messages put in with :meth:`SlackServer.put_history`; :attr:`SlackServer.fail_history`
makes them answer HTTP 500 or 429 ``ratelimited`` with ``Retry-After``. Files put
in with :meth:`SlackServer.put_file` are served at their ``url_private_download`` to the bot
token only (anything else gets Slack's HTML sign-in page). Every call is recorded.

Socket Mode: the WebSocket says ``hello``, then sends envelopes (``events_api``,
``interactive``, ``disconnect``). An ``events_api`` or ``interactive`` envelope stays pending
until the app acknowledges it (``{"envelope_id": …}``); one still pending when a connection
ends is delivered again on the next connection, with ``retry_attempt`` raised, as Slack does.
:meth:`SlackServer.put_disconnect` asks the app to move to a new connection;
:attr:`SlackServer.close_delay` makes the server answer the app's close handshake late.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.typed import narrow

BOT_TOKEN = "xoxb-1111-2222-local-test-bot-token"
APP_TOKEN = "xapp-1-A0001-3333-local-test-app-token"
BOT_USER = "UBOT0001"
TEAM = "Test Team"
TEXT_LIMIT = 40_000
LOGIN_PAGE = b"<!DOCTYPE html><html><body>Sign in to Slack</body></html>"


@dataclass
class Call:
    """One Web API call."""

    method: str
    params: dict[str, Any]
    token: str
    at: float = field(default_factory=time.monotonic)


class SlackServer:
    """The local Slack (see the module docstring)."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.acks: list[str] = []
        self.holds: list[tuple[str, Callable[[dict[str, Any]], bool], asyncio.Event]] = []
        self.connections = 0
        self.files: dict[str, tuple[bytes, str]] = {}
        self.uploads: dict[str, bytes] = {}
        self.drop_on_ack = 0  # close the connection on the next n acks (the ack is lost)
        self.close_delay = 0.0  # seconds before answering the app's close (a slow network)
        self.refuse_bot_token = False
        self.history: dict[str, list[dict[str, Any]]] = {}  # channel → messages as stored
        self.fail_history: str | None = None  # "500" or "ratelimited": history calls fail
        self._pending: dict[str, dict[str, Any]] = {}
        self._sockets: set[web.WebSocketResponse] = set()
        self._tasks: set[asyncio.Future[None]] = set()
        self._ts = itertools.count(1)
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._stopping = asyncio.Event()
        self.port = 0

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self) -> SlackServer:
        """Listen on an ephemeral loopback port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)
        app.router.add_get("/link", self._socket)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_get("/files/{file_id}", self._download)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        """Close every connection and stop listening."""
        self._stopping.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.drop()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """The Web API base URL (``baseUrl``)."""
        return f"{self.url}/api/"

    # -- what tests put in ----------------------------------------------------------------
    def next_ts(self) -> str:
        """A fresh message timestamp."""
        return f"{1_700_000_000 + next(self._ts)}.{next(self._ts):06d}"

    def put_envelope(self, kind: str, payload: Any) -> str:
        """Send an envelope now (or on the next connection); returns its id."""
        envelope_id = f"env-{next(self._ids)}"
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": False,
        }
        if kind == "events_api":
            envelope["retry_attempt"] = 0
            envelope["retry_reason"] = ""
        self._pending[envelope_id] = envelope
        for socket in list(self._sockets):
            task = asyncio.ensure_future(socket.send_str(json.dumps(envelope)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            break
        return envelope_id

    def put_disconnect(self, reason: str = "refresh_requested") -> None:
        """Ask the app to move to a new connection (Slack's ``disconnect`` message: no
        envelope id, nothing to acknowledge)."""
        message = {"type": "disconnect", "reason": reason, "debug_info": {"host": "local"}}
        for socket in list(self._sockets):
            task = asyncio.ensure_future(socket.send_str(json.dumps(message)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def put_event(self, event: dict[str, Any]) -> str:
        """An ``events_api`` envelope carrying ``event``; returns the envelope id."""
        payload = {
            "token": "verification",
            "team_id": "T0001",
            "api_app_id": "A0001",
            "event": event,
            "type": "event_callback",
            "event_id": f"Ev{next(self._ids):08d}",
            "event_time": int(time.time()),
        }
        return self.put_envelope("events_api", payload)

    def put_message(
        self,
        channel: str,
        text: str,
        *,
        user: str = "UALICE01",
        kind: str = "message",
        channel_type: str | None = None,
        ts: str | None = None,
        thread_ts: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """A person's message event (``message`` or ``app_mention``); returns the event."""
        event: dict[str, Any] = {
            "type": kind,
            "user": user,
            "text": text,
            "ts": ts or self.next_ts(),
            "channel": channel,
            "event_ts": ts,
            **extra,
        }
        if kind == "message":
            event["channel_type"] = channel_type or ("im" if channel.startswith("D") else "channel")
        if thread_ts:
            event["thread_ts"] = thread_ts
        event["event_ts"] = event["ts"]
        if kind == "message":  # what was said stays in the conversation's history
            skip = ("channel", "channel_type", "event_ts")
            kept = {k: v for k, v in event.items() if k not in skip}
            self.history.setdefault(channel, []).append(kept)
        self.put_event(event)
        return event

    def hold(self, method: str, when: Callable[[dict[str, Any]], bool]) -> asyncio.Event:
        """The next call of ``method`` whose parameters match ``when`` is carried out, but its
        answer is kept back until the returned event is set (a slow link)."""
        release = asyncio.Event()
        self.holds.append((method, when, release))
        return release

    def put_click(self, channel: str, user: str, message_ts: str, action: dict[str, Any]) -> str:
        """A ``block_actions`` interactive envelope (a button click)."""
        payload = {
            "type": "block_actions",
            "user": {"id": user, "username": "alice", "team_id": "T0001"},
            "api_app_id": "A0001",
            "team": {"id": "T0001"},
            "channel": {"id": channel, "name": "general"},
            "container": {"type": "message", "message_ts": message_ts, "channel_id": channel},
            "message": {"type": "message", "ts": message_ts, "user": BOT_USER},
            "trigger_id": "trigger",
            "response_url": f"{self.url}/response",
            "actions": [{**action, "type": "button", "action_ts": str(time.time())}],
        }
        return self.put_envelope("interactive", payload)

    def put_file(self, file_id: str, data: bytes, *, name: str, mimetype: str) -> dict[str, Any]:
        """Keep a file and return its Slack ``file`` object."""
        self.files[file_id] = (data, mimetype)
        url = f"{self.url}/files/{file_id}"
        return {
            "id": file_id,
            "name": name,
            "title": name,
            "mimetype": mimetype,
            "size": len(data),
            "url_private": url,
            "url_private_download": url + "?download=1",
        }

    def put_history(
        self,
        channel: str,
        text: str,
        *,
        user: str = "UALICE01",
        ts: str | None = None,
        thread_ts: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """A message that is in ``channel``'s history (sent while the app was not listening;
        no event is delivered); returns it as ``conversations.history`` shows it."""
        message: dict[str, Any] = {
            "type": "message", "user": user, "text": text, "ts": ts or self.next_ts(), **extra,
        }  # fmt: skip
        if thread_ts:
            message["thread_ts"] = thread_ts
        self.history.setdefault(channel, []).append(message)
        return message

    async def drop(self) -> None:
        """Close the open Socket Mode connections (the network drops them)."""
        for socket in list(self._sockets):
            await socket.close()

    # -- what tests look at ---------------------------------------------------------------
    def calls_of(self, method: str) -> list[Call]:
        """The recorded calls of ``method``."""
        return [c for c in self.calls if c.method == method]

    def posted(self, channel: str | None = None) -> list[dict[str, Any]]:
        """The parameters of every ``chat.postMessage`` (to ``channel``)."""
        return [
            c.params
            for c in self.calls_of("chat.postMessage")
            if channel is None or c.params.get("channel") == channel
        ]

    def texts(self, channel: str | None = None) -> list[str]:
        """The texts posted (to ``channel``)."""
        return [str(p.get("text")) for p in self.posted(channel)]

    @property
    def pending(self) -> list[str]:
        """Envelopes sent and not acknowledged."""
        return list(self._pending)

    # -- handlers -------------------------------------------------------------------------
    async def _params(self, request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            data = await request.json()
            return dict(data) if isinstance(data, dict) else {}
        params: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            form = await request.post()
            params.update({k: v for k, v in form.items() if isinstance(v, str)})
        for key in ("blocks", "files"):
            if isinstance(params.get(key), str):
                params[key] = json.loads(params[key])
        return params

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ").strip()
        params = await self._params(request)
        token = token or str(params.pop("token", ""))
        self.calls.append(Call(method, params, token))
        if method == "apps.connections.open":
            if not token.startswith("xapp-"):
                return self._error("not_allowed_token_type")
            if token != APP_TOKEN:
                return self._error("invalid_auth")
            return self._ok(url=f"ws://127.0.0.1:{self.port}/link?ticket=t{next(self._ids)}")
        if method.startswith("conversations.") and self.fail_history == "500":
            return web.Response(status=500, text="Internal Server Error")
        if method.startswith("conversations.") and self.fail_history == "ratelimited":
            return web.json_response(
                {"ok": False, "error": "ratelimited"}, status=429, headers={"Retry-After": "0"}
            )
        if token != BOT_TOKEN or (self.refuse_bot_token and method == "auth.test"):
            return self._error("invalid_auth")
        handler = getattr(self, "_m_" + method.replace(".", "_"), None)
        if handler is None:
            return self._error("unknown_method")
        result: web.Response = handler(params)
        for index, (name, when, release) in enumerate(self.holds):
            if name == method and when(params):
                del self.holds[index]
                await release.wait()
                break
        return result

    @staticmethod
    def _ok(**fields: Any) -> web.Response:
        return web.json_response({"ok": True, **fields})

    @staticmethod
    def _error(error: str) -> web.Response:
        return web.json_response({"ok": False, "error": error})

    def _m_auth_test(self, params: dict[str, Any]) -> web.Response:
        return self._ok(
            url="https://test.slack.com/", team=TEAM, user="nanobot", team_id="T0001",
            user_id=BOT_USER, bot_id="B0001",
        )  # fmt: skip

    def _m_chat_postMessage(self, params: dict[str, Any]) -> web.Response:
        text, blocks = params.get("text"), params.get("blocks")
        if not params.get("channel"):
            return self._error("channel_not_found")
        if not text and not blocks:
            return self._error("no_text")
        if isinstance(text, str) and len(text) > TEXT_LIMIT:
            return self._error("msg_too_long")
        if blocks is not None and not _valid_blocks(blocks):
            return self._error("invalid_blocks")
        ts = self.next_ts()
        posted = {"type": "message", "user": BOT_USER, "bot_id": "B0001", "text": text, "ts": ts}
        if params.get("thread_ts"):
            posted["thread_ts"] = params["thread_ts"]
        self.history.setdefault(str(params["channel"]), []).append(posted)
        return self._ok(channel=params["channel"], ts=ts, message={"text": text, "ts": ts})

    def _m_chat_update(self, params: dict[str, Any]) -> web.Response:
        if not params.get("channel") or not params.get("ts"):
            return self._error("message_not_found")
        if params.get("blocks") is not None and not _valid_blocks(params["blocks"]):
            return self._error("invalid_blocks")
        return self._ok(channel=params["channel"], ts=params["ts"])

    def _m_reactions_add(self, params: dict[str, Any]) -> web.Response:
        if not (params.get("channel") and params.get("timestamp") and params.get("name")):
            return self._error("invalid_arguments")
        return self._ok()

    _m_reactions_remove = _m_reactions_add

    def _m_files_getUploadURLExternal(self, params: dict[str, Any]) -> web.Response:
        if not params.get("filename") or not str(params.get("length", "")).isdigit():
            return self._error("invalid_arguments")
        file_id = f"F{next(self._ids):06d}"
        return self._ok(upload_url=f"{self.url}/upload/{file_id}", file_id=file_id)

    def _m_files_completeUploadExternal(self, params: dict[str, Any]) -> web.Response:
        files = params.get("files") or []
        if any(f.get("id") not in self.uploads for f in files):
            return self._error("file_not_found")
        return self._ok(files=[{"id": f["id"], "title": f.get("title")} for f in files])

    @staticmethod
    def _window(params: dict[str, Any], messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` between ``oldest`` and ``latest`` (``inclusive`` keeps the ends)."""
        inclusive = str(params.get("inclusive", "0")).lower() in ("1", "true")
        oldest = float(params.get("oldest") or 0)
        latest = float(params["latest"]) if params.get("latest") else float("inf")

        def inside(ts: float) -> bool:
            if inclusive:
                return oldest <= ts <= latest
            return oldest < ts < latest

        return [m for m in messages if inside(float(m["ts"]))]

    @staticmethod
    def _page(
        params: dict[str, Any], found: list[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], str]:
        """One page of ``found`` (``limit``, default 100, at most 999; ``cursor``)."""
        limit = min(int(params.get("limit") or 100), 999)
        cursor = str(params.get("cursor") or "")
        start = int(cursor.removeprefix("next:")) if cursor.startswith("next:") else 0
        page = found[start : start + limit]
        more = start + limit < len(found)
        return page, f"next:{start + limit}" if more else ""

    def _m_conversations_history(self, params: dict[str, Any]) -> web.Response:
        channel = str(params.get("channel") or "")
        if channel not in self.history and not channel.startswith(("C", "D", "G")):
            return self._error("channel_not_found")
        top = [
            m
            for m in self.history.get(channel, [])
            if not m.get("thread_ts") or m["thread_ts"] == m["ts"]
        ]
        found = sorted(self._window(params, top), key=lambda m: float(m["ts"]), reverse=True)
        page, cursor = self._page(params, found)
        return self._ok(
            messages=page, has_more=bool(cursor), pin_count=0,
            response_metadata={"next_cursor": cursor},
        )  # fmt: skip

    def _m_conversations_replies(self, params: dict[str, Any]) -> web.Response:
        channel, ts = str(params.get("channel") or ""), str(params.get("ts") or "")
        messages = self.history.get(channel, [])
        parent = next((m for m in messages if m["ts"] == ts), None)
        if parent is None:
            return self._error("thread_not_found")
        replies = [m for m in messages if m.get("thread_ts") == ts and m["ts"] != ts]
        found = sorted(self._window(params, replies), key=lambda m: float(m["ts"]))
        page, cursor = self._page(params, found)
        if not params.get("cursor"):
            page = [parent, *page]  # the parent comes first, whatever the window
        return self._ok(
            messages=page, has_more=bool(cursor), response_metadata={"next_cursor": cursor}
        )

    def _m_files_info(self, params: dict[str, Any]) -> web.Response:
        return self._ok(file={"id": params.get("file")})

    async def _upload(self, request: web.Request) -> web.Response:
        file_id = request.match_info["file_id"]
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            part = await reader.next()
            data = await part.read() if part is not None else b""  # type: ignore[union-attr]
        else:
            data = await request.read()
        self.uploads[file_id] = bytes(data)
        return web.Response(text=f"OK - {len(data)}")

    async def _download(self, request: web.Request) -> web.Response:
        file_id = request.match_info["file_id"]
        found = self.files.get(file_id)
        if request.headers.get("Authorization") != f"Bearer {BOT_TOKEN}" or found is None:
            return web.Response(body=LOGIN_PAGE, content_type="text/html")
        return web.Response(body=found[0], content_type=found[1])

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(autoping=True, autoclose=False)
        await socket.prepare(request)
        self.connections += 1
        self._sockets.add(socket)
        try:
            await socket.send_str(
                json.dumps({"type": "hello", "num_connections": 1,
                            "connection_info": {"app_id": "A0001"}})
            )  # fmt: skip
            for envelope in list(self._pending.values()):
                if envelope.get("type") == "events_api" and self.connections > 1:
                    envelope["retry_attempt"] = int(envelope.get("retry_attempt", 0)) + 1
                    envelope["retry_reason"] = "timeout"
                await socket.send_str(json.dumps(envelope))
            while not socket.closed:
                message = await socket.receive()
                if message.type == WSMsgType.CLOSE:  # the app closes: answer (after a while)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self.close_delay):
                            await self._stopping.wait()
                    await socket.close()
                    break
                if message.type in (WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                    break
                if message.type != WSMsgType.TEXT:
                    continue
                data = json.loads(message.data)
                envelope_id = data.get("envelope_id") if isinstance(data, dict) else None
                if not envelope_id:
                    continue
                if self.drop_on_ack > 0:
                    self.drop_on_ack -= 1
                    await socket.close()  # the ack never arrived
                    break
                self.acks.append(str(envelope_id))
                self._pending.pop(str(envelope_id), None)
        finally:
            self._sockets.discard(socket)
        return socket


def _valid_blocks(blocks: Any) -> bool:
    """Block Kit's shape for the blocks the channel sends (sections and button actions)."""
    if not isinstance(blocks, list) or not blocks or len(blocks) > 50:
        return False
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "section":
            text = block.get("text") or {}
            if text.get("type") not in ("mrkdwn", "plain_text") or not text.get("text"):
                return False
            if len(text["text"]) > 3000:
                return False
        elif kind == "actions":
            elements = block.get("elements") or []
            if not elements or len(elements) > 25:
                return False
            ids = [e.get("action_id") for e in elements]
            if len(set(ids)) != len(ids):
                return False
            for element in elements:
                if element.get("type") != "button" or len(str(element.get("value", ""))) > 2000:
                    return False
                label = element.get("text") or {}
                if label.get("type") != "plain_text" or len(label.get("text", "")) > 75:
                    return False
        else:
            return False
    return True
