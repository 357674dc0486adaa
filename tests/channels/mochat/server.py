"""A local Mochat server for the tests: Socket.IO (python-socketio's AsyncServer on aiohttp)
and the HTTP API, speaking the protocol nanobot's Mochat channel uses.

* Socket.IO, ``auth: {"token": …}`` checked on connect (a wrong token is refused);
  ``com.claw.im.subscribeSessions`` answers ``{"result": true, "data": {"sessions": [{
  "sessionId", "cursor", "events": [...]}]}}`` with the events after the client's cursor;
  ``com.claw.im.subscribePanels`` answers ``{"result": true}``. Messages are pushed as
  ``claw.session.events`` (sessions) and ``notify:chat.message.add`` (panels).
* HTTP: ``POST /api/claw/sessions/send``, ``/api/claw/groups/panels/send`` (recorded; the
  message is echoed into the session's event log as the agent's, as a real server does),
  ``/api/claw/sessions/list``, ``/api/claw/groups/get``; every request needs ``X-Claw-Token``;
  answers are wrapped as ``{"code": 200, "data": …}``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import socketio  # type: ignore[import-untyped]  # no py.typed
from aiohttp import web

from tests.typed import narrow

TOKEN = "claw_test_token_123456"
AGENT = "agent-user-1"
GROUP = "group-1"


@dataclass
class Sent:
    """A message the agent posted over HTTP."""

    path: str
    body: dict[str, Any]

    @property
    def content(self) -> str:
        return str(self.body.get("content", ""))


@dataclass
class Session:
    """A session's event log."""

    id: str
    converse: str
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cursor(self) -> int:
        return self.events[-1]["seq"] if self.events else 0


class MochatServer:
    """The server (see the module docstring)."""

    def __init__(self) -> None:
        serializer = "msgpack" if importlib.util.find_spec("msgpack") else "default"
        self.sio = socketio.AsyncServer(async_mode="aiohttp", serializer=serializer)
        self.app = web.Application()
        self.sio.attach(self.app, socketio_path="socket.io")
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.sessions: dict[str, Session] = {}
        self.panels: dict[str, str] = {}  # panel id → group id
        self.sent: list[Sent] = []
        self.calls: list[tuple[str, Any]] = []  # (event, data) of socket calls
        self.connects: list[dict[str, Any]] = []  # the auth of each accepted connection
        self.refused = 0
        self.subscribed_sessions: dict[str, set[str]] = {}  # sid → session ids
        self.subscribed_panels: set[str] = set()
        self.fail_sends = 0  # answer the next N sends with HTTP 500
        self.ignore_cursors = False  # replay every session's whole log on subscribe
        self._ids = itertools.count(1)
        self._register()
        for path in ("sessions/send", "groups/panels/send", "sessions/list", "groups/get"):
            self.app.router.add_post(f"/api/claw/{path}", self._http)

    # -- lifecycle --------------------------------------------------------------------------
    async def start(self) -> MochatServer:
        self.runner = web.AppRunner(self.app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = narrow(site._server, asyncio.Server).sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        await self.sio.shutdown()  # its background tasks (pings, the service task) end too
        if self.runner is not None:
            await self.runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def clients(self) -> list[str]:
        return list(self.subscribed_sessions)

    async def drop(self) -> None:
        """Close every client's connection (the server side of a network drop)."""
        for sid in list(self.subscribed_sessions):
            await self.sio.disconnect(sid)

    # -- Socket.IO --------------------------------------------------------------------------
    def _register(self) -> None:
        sio = self.sio

        @sio.event  # type: ignore[untyped-decorator]  # python-socketio is untyped
        async def connect(sid: str, environ: dict[str, Any], auth: Any = None) -> None:
            if not isinstance(auth, dict) or auth.get("token") != TOKEN:
                self.refused += 1
                raise socketio.exceptions.ConnectionRefusedError("unauthorized: bad claw token")
            self.connects.append(dict(auth))
            self.subscribed_sessions[sid] = set()

        @sio.event  # type: ignore[untyped-decorator]  # python-socketio is untyped
        async def disconnect(sid: str, *_: Any) -> None:
            self.subscribed_sessions.pop(sid, None)

        @sio.on("com.claw.im.subscribeSessions")  # type: ignore[untyped-decorator]  # python-socketio is untyped
        async def subscribe_sessions(sid: str, data: dict[str, Any]) -> dict[str, Any]:
            self.calls.append(("com.claw.im.subscribeSessions", data))
            cursors = data.get("cursors") or {}
            limit = int(data.get("limit") or 100)
            found = []
            for session_id in data.get("sessionIds", []):
                session = self.sessions.get(session_id)
                if session is None:
                    continue
                self.subscribed_sessions.setdefault(sid, set()).add(session_id)
                after = 0 if self.ignore_cursors else int(cursors.get(session_id, 0))
                events = [e for e in session.events if e["seq"] > after][-limit:]
                found.append({"sessionId": session_id, "cursor": session.cursor, "events": events})
            return {"result": True, "data": {"sessions": found}}

        @sio.on("com.claw.im.subscribePanels")  # type: ignore[untyped-decorator]  # python-socketio is untyped
        async def subscribe_panels(sid: str, data: dict[str, Any]) -> dict[str, Any]:
            self.calls.append(("com.claw.im.subscribePanels", data))
            self.subscribed_panels.update(data.get("panelIds", []))
            return {"result": True}

    def calls_of(self, event: str) -> list[Any]:
        return [data for name, data in self.calls if name == event]

    # -- people writing ---------------------------------------------------------------------
    def add_session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            session = self.sessions[session_id] = Session(session_id, f"converse-{session_id}")
        return session

    def _event(self, session: Session, payload: dict[str, Any]) -> dict[str, Any]:
        event = {
            "seq": session.cursor + 1,
            "sessionId": session.id,
            "type": "message.add",
            "timestamp": datetime.now(UTC).isoformat(),
            "payload": payload,
        }
        session.events.append(event)
        return event

    def message(
        self, author: str, content: Any, *, nickname: str = "", **extra: Any
    ) -> dict[str, Any]:
        """A message payload."""
        payload: dict[str, Any] = {
            "messageId": f"msg-{next(self._ids)}",
            "author": author,
            "authorInfo": {"userId": author, "nickname": nickname or author, "type": "user"},
            "content": content,
            "meta": {},
        }
        payload.update(extra)
        return payload

    async def say(self, session_id: str, content: Any, *, author: str = "alice") -> str:
        """``author`` writes in a session; returns the message id."""
        session = self.add_session(session_id)
        payload = self.message(author, content, converseId=session.converse)
        event = self._event(session, payload)
        await self.push_session(session_id, [event])
        return str(payload["messageId"])

    async def push_session(self, session_id: str, events: list[Any], cursor: Any = None) -> None:
        """Push ``claw.session.events`` to the clients subscribed to the session."""
        session = self.add_session(session_id)
        data = {
            "sessionId": session_id,
            "cursor": session.cursor if cursor is None else cursor,
            "events": events,
        }
        for sid, subscribed in list(self.subscribed_sessions.items()):
            if session_id in subscribed:
                await self.sio.emit("claw.session.events", data, to=sid)

    async def say_in_panel(
        self, panel_id: str, content: Any, *, author: str = "alice", mention: bool = False
    ) -> str:
        """``author`` writes in a panel (``notify:chat.message.add``); returns its id."""
        group = self.panels.setdefault(panel_id, GROUP)
        payload = self.message(author, content, groupId=group, converseId=panel_id)
        payload["_id"] = payload.pop("messageId")
        payload["createdAt"] = datetime.now(UTC).isoformat()
        if mention:
            payload["meta"] = {"mentions": [AGENT]}
        await self.emit_raw("notify:chat.message.add", payload)
        return str(payload["_id"])

    async def emit_raw(self, event: str, data: Any) -> None:
        """Send any event to every connected client."""
        for sid in list(self.subscribed_sessions):
            await self.sio.emit(event, data, to=sid)

    # -- HTTP -------------------------------------------------------------------------------
    async def _http(self, request: web.Request) -> web.Response:
        if request.headers.get("X-Claw-Token") != TOKEN:
            return web.json_response({"error": {"code": "UNAUTHORIZED"}}, status=401)
        body = json.loads(await request.text() or "{}")
        path = request.path.removeprefix("/api/claw/")
        if path.endswith("send"):
            if self.fail_sends:
                self.fail_sends -= 1
                return web.json_response({"error": {"code": "INTERNAL"}}, status=500)
            self.sent.append(Sent(path, body))
            message_id = f"msg-{next(self._ids)}"
            if path == "sessions/send":
                session = self.add_session(body["sessionId"])
                payload = self.message(AGENT, body["content"], converseId=session.converse)
                payload["messageId"] = message_id
                await self.push_session(session.id, [self._event(session, payload)])
            return web.json_response({"code": 200, "data": {"messageId": message_id}})
        if path == "sessions/list":
            sessions = [
                {"sessionId": s.id, "converseId": s.converse} for s in self.sessions.values()
            ]
            return web.json_response({"code": 200, "data": {"sessions": sessions}})
        panels = [{"id": p, "type": 0, "name": p} for p in self.panels]
        return web.json_response({"code": 200, "data": {"_id": GROUP, "panels": panels}})

    def texts(self, target: str) -> list[str]:
        """What the agent posted into a session or panel."""
        return [
            s.content
            for s in self.sent
            if s.body.get("sessionId") == target or s.body.get("panelId") == target
        ]
