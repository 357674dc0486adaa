"""A local WhatsApp bridge for the tests: a WebSocket server speaking nanobot's bridge
protocol exactly (``auth`` first — close 4003 on a wrong token, 4001 after 5 s without one —,
browser ``Origin`` refused, ``message`` / ``qr`` / ``status`` events pushed to every
authenticated client, ``send`` / ``send_media`` / ``presence`` commands answered with
``sent`` or ``error``). Only WhatsApp itself is missing: what would go to WhatsApp is recorded,
and the login is played by the test (:meth:`BridgeServer.offer_qr`, then
:meth:`BridgeServer.link`), as WhatsApp Web's would be: like the real bridge, nothing of it is
repeated to a client that connects later. A test can make the bridge drop the connection when
a chosen command arrives (:attr:`BridgeServer.drop_when`), or keep a chosen command from
WhatsApp until the client leaves (:attr:`BridgeServer.hold_when`); neither is delivered.

Run as a script it is a bridge to try the app against by hand (screenshots):
``python -m tests.channels.whatsapp.bridge_server PORT`` offers a new login code every 20 s
until a line ``link`` arrives on standard input (then it says ``connected``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

TOKEN = "bridge-secret-0123456789abcdef"
ALICE = "4915112345678@s.whatsapp.net"
ALICE_LID = "123456789012345@lid"
GROUP = "120363000000000000@g.us"


class BridgeServer:
    """The bridge end of the protocol (see the module docstring).

    Args:
        token: The BRIDGE_TOKEN it was started with.
        echo_msg_id: Echo a command's ``msg_id`` in its answer (newer bridges do; the original
            one does not).
    """

    def __init__(self, token: str = TOKEN, *, echo_msg_id: bool = False) -> None:
        self.token = token
        self.echo_msg_id = echo_msg_id
        self.auth_timeout = 5.0
        self.clients: set[ServerConnection] = set()
        self.auths: list[dict[str, Any]] = []
        self.refused: list[int] = []  # close codes of refused connections
        self.commands: list[dict[str, Any]] = []  # every command, in order
        self.delivered: list[dict[str, Any]] = []  # commands answered "sent" (went to WhatsApp)
        self.files: dict[str, bytes] = {}  # send_media: the file the bridge read
        self.errors: list[str] = []  # the next sends fail with these
        self.drop_when: Callable[[dict[str, Any]], bool] | None = None
        self.hold_when: Callable[[dict[str, Any]], bool] | None = None  # once: never answered
        self.holding = 0  # commands held now (they go nowhere; the connection ends first)
        self._server: Server | None = None
        self._ids = itertools.count(1)

    async def start(self) -> BridgeServer:
        """Listen on an ephemeral loopback port."""
        self._server = await serve(self._handler, "127.0.0.1", 0, process_request=self._no_browsers)
        return self

    async def stop(self) -> None:
        """Close every connection and stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    @property
    def url(self) -> str:
        """The bridge's WebSocket address."""
        assert self._server is not None
        port = next(iter(self._server.sockets)).getsockname()[1]
        return f"ws://127.0.0.1:{port}"

    @staticmethod
    def _no_browsers(connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Origin"):
            return connection.respond(
                403, "Browser-originated WebSocket connections are not allowed\n"
            )
        return None

    async def _handler(self, ws: ServerConnection) -> None:
        try:
            async with asyncio.timeout(self.auth_timeout):
                first = await ws.recv()
        except TimeoutError:
            self.refused.append(4001)
            await ws.close(4001, "Auth timeout")
            return
        except ConnectionClosed:
            return
        try:
            auth = json.loads(first)
        except ValueError:
            auth = {}
        if (
            not isinstance(auth, dict)
            or auth.get("type") != "auth"
            or auth.get("token") != self.token
        ):
            self.refused.append(4003)
            await ws.close(4003, "Invalid token")
            return
        self.auths.append(auth)
        self.clients.add(ws)
        try:
            async for data in ws:
                await self._command(ws, json.loads(data))
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(ws)

    async def _command(self, ws: ServerConnection, command: dict[str, Any]) -> None:
        self.commands.append(command)
        if self.drop_when is not None and self.drop_when(command):
            self.drop_when = None
            await ws.close(1011, "bridge restarting")  # the command never reached WhatsApp
            return
        if self.hold_when is not None and self.hold_when(command):
            self.hold_when = None
            self.holding += 1
            try:
                await ws.wait_closed()  # WhatsApp is slow: the client leaves before it went out
            finally:
                self.holding -= 1
            return
        answer: dict[str, Any]
        if self.errors and command.get("type") in ("send", "send_media"):
            answer = {"type": "error", "error": self.errors.pop(0)}
        elif command.get("type") == "send_media" and not Path(command["filePath"]).is_file():
            answer = {"type": "error", "error": f"Error: ENOENT: {command['filePath']}"}
        else:
            if command.get("type") == "send_media":
                self.files[command["filePath"]] = Path(command["filePath"]).read_bytes()
            self.delivered.append(command)
            answer = {"type": "sent", "to": command.get("to")}
        if self.echo_msg_id and "msg_id" in command:
            answer["msg_id"] = command["msg_id"]
        await ws.send(json.dumps(answer))

    # -- what WhatsApp would do -----------------------------------------------------------
    async def push(self, event: dict[str, Any] | str) -> None:
        """Send an event (or a raw frame) to every authenticated client."""
        data = event if isinstance(event, str) else json.dumps(event)
        for ws in list(self.clients):
            with contextlib.suppress(ConnectionClosed):
                await ws.send(data)

    async def say(
        self,
        text: str,
        *,
        chat: str = ALICE,
        pn: str = "",
        message_id: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """A person writes ``text`` in ``chat`` (a ``message`` event, as the bridge sends it)."""
        event = {"type": "message", "id": message_id or f"3EB0{next(self._ids):012X}",
                 "sender": chat, "pn": pn, "content": text, "timestamp": 1767225600,
                 "isGroup": chat.endswith("@g.us"), **extra}  # fmt: skip
        await self.push(event)
        return event

    async def offer_qr(self, code: str) -> None:
        """WhatsApp Web offers a login code (the bridge relays it as a ``qr`` event)."""
        await self.push({"type": "qr", "qr": code})

    async def link(self) -> None:
        """The person scanned the code: WhatsApp is linked (``status: connected``)."""
        await self.push({"type": "status", "status": "connected"})

    async def drop(self) -> None:
        """Lose every client connection (the bridge restarts)."""
        for ws in list(self.clients):
            await ws.close(1012, "restarting")

    def sent(self, chat: str = ALICE) -> list[dict[str, Any]]:
        """``send`` / ``send_media`` commands delivered to ``chat``."""
        return [c for c in self.delivered if c.get("to") == chat and c["type"] != "presence"]

    def texts(self, chat: str = ALICE) -> list[str]:
        """The texts delivered to ``chat``."""
        return [c["text"] for c in self.sent(chat) if c["type"] == "send"]

    def presences(self, chat: str = ALICE) -> list[str]:
        """The presence updates sent for ``chat``."""
        return [
            c["presence"] for c in self.delivered if c["type"] == "presence" and c["to"] == chat
        ]


def login_code() -> str:
    """A login code shaped like WhatsApp Web's (a ref, then three base64 keys; ~180 chars)."""

    def b64(size: int) -> str:
        return base64.b64encode(os.urandom(size)).decode()

    return f"2@{b64(66)},{b64(32)},{b64(32)},{b64(32)}"


async def _serve_by_hand(port: int) -> None:
    """A bridge on ``port`` (token :data:`TOKEN`) offering a new code every 20 s until
    ``link`` is typed."""
    server = BridgeServer()
    server._server = await serve(server._handler, "127.0.0.1", port)
    print(f"bridge on {server.url}, token {TOKEN}; type 'link' + Enter to link", flush=True)
    loop = asyncio.get_running_loop()
    line = loop.run_in_executor(None, sys.stdin.readline)
    while not line.done():
        await server.offer_qr(login_code())
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(20):
                await asyncio.shield(line)
    await server.link()
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_serve_by_hand(int(sys.argv[1])))

__all__ = ["ALICE", "ALICE_LID", "GROUP", "TOKEN", "BridgeServer", "login_code"]
