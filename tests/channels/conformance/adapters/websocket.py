"""WebSocket: the channel is the server here; the "platform" is a client speaking nanobot
0.3.5's protocol to it (``websockets``), as its WebUI does: it attaches one chat and reads the
events (``message``, ``delta``/``stream_end``, ``turn_end``); files the agent sends are
fetched from their signed ``media_urls``, as the WebUI shows them."""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Sequence
from typing import Any

import aiohttp
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from desktop.core.runtime import Runtime
from desktop.core.utils.tasks import TaskOwner
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.websocket.conftest import free_port

CHAT = "conformance-chat-1"


class WebSocket:
    """The WebSocket channel under test (a client attached to one chat)."""

    name = "websocket"
    caps = Capabilities(
        limit=None,  # one frame per answer (up to maxMessageBytes, 36 MiB by default)
        flavour="markdown",  # the client renders the Markdown (0.3.5's WebUI does)
        approvals="words",
        xfail={},
    )
    person, stranger = "alice", "mallory"
    person_entry = "alice"

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.port = free_port()
        self.account = f"127.0.0.1:{self.port}"  # the status and the check name the address
        self.events: list[dict[str, Any]] = []
        self.files: dict[int, list[tuple[str, bytes]]] = {}  # event index -> fetched files
        self.ws: ClientConnection | None = None
        self.owner = TaskOwner("conformance-websocket")

    async def start_server(self) -> None:
        return None  # the channel listens itself

    async def stop_server(self) -> None:
        await self._close()
        await self.owner.aclose()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "port": self.port,
            "websocketRequiresToken": False,
            "streaming": False,  # whole answers as ``message`` events (streaming: own tests)
        }

    def chat(self) -> str:
        return CHAT

    def sender_id(self, who: str) -> str:
        return who

    # -- the client -----------------------------------------------------------------------
    def _url(self, who: str) -> str:
        return f"ws://127.0.0.1:{self.port}/?client_id={who}"

    async def _open(self) -> None:
        self.ws = ws = await connect(self._url(self.person))
        ready = json.loads(await ws.recv())
        assert ready["event"] == "ready", ready
        await ws.send(json.dumps({"type": "attach", "chat_id": CHAT}))
        attached = json.loads(await ws.recv())
        assert attached == {"event": "attached", "chat_id": CHAT}, attached
        self.owner.spawn(self._read(ws), name="conformance-websocket:read")

    async def _read(self, ws: ClientConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                event = json.loads(raw)
                if event.get("chat_id") != CHAT:
                    continue
                fetched = [await self._fetch(link) for link in event.get("media_urls", [])]
                if fetched:
                    self.files[len(self.events)] = fetched
                self.events.append(event)

    async def _fetch(self, link: dict[str, str]) -> tuple[str, bytes]:
        url = f"http://127.0.0.1:{self.port}{link['url']}"
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            assert response.status == 200, (url, response.status)
            return link["name"], await response.read()

    async def _close(self) -> None:
        ws, self.ws = self.ws, None
        if ws is not None:
            await ws.close()
            await ws.wait_closed()

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        media = [
            {"data_url": f"data:text/plain;base64,{base64.b64encode(data).decode()}", "name": n}
            for n, data in files
        ]
        frame: dict[str, Any] = {"type": "message", "chat_id": CHAT, "content": text}
        if media:
            frame["media"] = media
        who = sender or self.person
        if who == self.person:
            assert self.ws is not None
            await self.ws.send(json.dumps(frame))
            return
        try:  # someone else, on their own connection
            async with connect(self._url(who)) as ws:
                await ws.recv()  # ready
                await ws.send(json.dumps(frame))
                await ws.recv()  # accepted, or an error
        except InvalidStatus as refused:  # not in allowFrom: refused at the handshake
            assert refused.response.status_code == 403, refused

    def sent(self) -> list[Sent]:
        return [
            Sent(str(e.get("text", "")), str(e.get("text", "")), self.files.get(i, []), [], e)
            for i, e in enumerate(self.events)
            if e.get("event") == "message"
        ]

    def markup(self, markdown: str) -> str:
        return markdown  # sent as written

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        # The channel is the server: the person's connection drops and the client comes
        # back, attaching its chat again (as 0.3.5's WebUI does on reconnecting).
        await self._close()
        await self._open()

    async def on_runtime(self, runtime: Runtime) -> None:
        await self._close()
        await until(lambda: runtime.channels.status(self.name).ok, what="listening")
        await self._open()
