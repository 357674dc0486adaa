"""A local socket through which ``nanobot-desktop agent`` hands its message to a running app or
gateway: one agent, one writer per session, and no second LiteLLM import for the CLI.

The socket (``<config dir>/agent.sock``, mode 0600 in a 0700 folder: only this user) speaks
JSON lines. A client sends ``{"op": "turn", "session", "content", "media"}``; the server
publishes it as an :class:`InboundMessage` on the ``cli`` channel (or the session's channel)
and streams that turn's events back (``{"event": "text_delta", …}``), then
``{"event": "done", "status", "content", "message"}``. Slash commands are answered with
``{"event": "command", "content"}``. ``{"op": "hello"}`` answers with the server's workspace
and model, so a client for another workspace keeps to itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

from desktop.core.agent.commands import parse_command
from desktop.core.bus.events import InboundMessage, OutboundMessage, RunEvent
from desktop.core.bus.queue import MessageBus
from desktop.core.ipc.client import socket_path
from desktop.core.utils.tasks import TaskOwner
from desktop.core.utils.validate import parse_json

__all__ = ["AgentSocketServer", "event_json", "socket_path"]

log = logging.getLogger(__name__)

MAX_LINE = 1 << 20
END_KINDS = ("turn_finished", "turn_stopped", "turn_failed")


def event_json(event: RunEvent | OutboundMessage) -> dict[str, Any]:
    """A run event (or outbound message) as a JSON object with an ``event`` key."""
    data = dataclasses.asdict(event)
    if isinstance(event, OutboundMessage):
        data["event"] = "outbound"
    else:
        data["event"] = data.pop("kind")
    return data


class _Client:
    """One connection: its writer and the turns it waits for."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.requests: dict[str, str] = {}  # inbound message id -> session key
        self.turns: dict[str, str] = {}  # turn id -> session key
        self.chats: set[str] = set()  # "channel:chat" the client talks in
        self.done = asyncio.Queue[None]()

    async def send(self, data: dict[str, Any]) -> None:
        self.writer.write(json.dumps(data, ensure_ascii=False).encode() + b"\n")
        await self.writer.drain()


class AgentSocketServer:
    """Serves CLI clients on a Unix socket; it is also the ``cli`` channel of the runtime (what
    the agent sends to a terminal chat reaches the client talking in it).

    Args:
        path: The socket file.
        bus: The runtime's bus (messages go in, events come out).
        owner: Owns the server and its connections.
        workspace: Reported by ``hello``.
        model: Reported by ``hello``.
    """

    def __init__(
        self, path: Path, bus: MessageBus, owner: TaskOwner, *, workspace: Path, model: str
    ) -> None:
        self.path = path
        self.bus = bus
        self.workspace = workspace
        self.model = model
        self._owner = owner
        self.name = "cli"
        self._server: asyncio.AbstractServer | None = None
        self._clients: set[_Client] = set()
        self._unsubscribe: Any = None

    @property
    def serving(self) -> bool:
        """Whether the socket is open."""
        return self._server is not None

    async def start(self) -> bool:
        """Open the socket; ``False`` (logged) when another live process serves it already or
        the platform has no Unix sockets."""
        if not hasattr(asyncio, "start_unix_server"):
            return False
        folder = self.path.parent
        await asyncio.to_thread(folder.mkdir, mode=0o700, parents=True, exist_ok=True)
        await asyncio.to_thread(os.chmod, folder, 0o700)
        if await asyncio.to_thread(self.path.exists):
            if await self._alive():
                log.info("another process serves %s; not serving it here", self.path)
                return False
            with contextlib.suppress(FileNotFoundError):
                await asyncio.to_thread(self.path.unlink)  # stale, after a crash
        old = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(
                self._serve, path=str(self.path), limit=MAX_LINE
            )
        except OSError as exc:
            log.warning("cannot serve %s: %s", self.path, exc)
            return False
        finally:
            os.umask(old)
        self._unsubscribe = self.bus.subscribe(self._on_event)
        log.info("serving the agent on %s", self.path)
        return True

    async def _alive(self) -> bool:
        try:
            _reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(str(self.path)), 2
            )
        except (TimeoutError, OSError):
            return False
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return True

    async def stop(self) -> None:
        """Close the socket and every connection, remove the file."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for client in list(self._clients):
            client.writer.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()
        with contextlib.suppress(FileNotFoundError, OSError):
            st = os.lstat(self.path)
            if stat.S_ISSOCK(st.st_mode):
                os.unlink(self.path)

    # -- connections ----------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        client = _Client(writer)
        self._clients.add(client)
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    await client.send({"event": "error", "message": "request too large"})
                    return
                if not line:
                    return
                try:
                    request = parse_json(line)
                    if not isinstance(request, dict):
                        raise ValueError("not an object")
                except ValueError:
                    await client.send({"event": "error", "message": "not a JSON object"})
                    continue
                await self._handle(client, request)
        except (ConnectionError, OSError):
            return
        finally:
            self._clients.discard(client)
            writer.close()

    async def _handle(self, client: _Client, request: dict[str, Any]) -> None:
        op = request.get("op")
        if op == "hello":
            await client.send(
                {"event": "hello", "workspace": str(self.workspace), "model": self.model}
            )
            return
        if op != "turn":
            await client.send({"event": "error", "message": f"unknown op {op!r}"})
            return
        session = str(request.get("session") or "cli:direct")
        channel, _, chat_id = session.partition(":")
        content = str(request.get("content") or "")
        media = [m for m in request.get("media") or [] if isinstance(m, str)]
        message = InboundMessage(
            channel or "cli",
            "cli-user",
            chat_id or "direct",
            content,
            media=media,
            session_key_override=session,
            metadata={"origin": "cli-socket"},
        )
        client.chats.add(f"{message.channel}:{message.chat_id}")
        client.requests[message.id] = session
        await self.bus.publish_inbound(message)
        if parse_command(content) is not None and not media:
            return  # the reply comes back as an outbound message with the request id
        await client.done.get()  # until the turn ends; the events flow meanwhile

    async def _on_event(self, event: RunEvent) -> None:
        for client in list(self._clients):
            try:
                await self._route(client, event)
            except (ConnectionError, OSError):
                self._clients.discard(client)

    async def _route(self, client: _Client, event: RunEvent) -> None:
        turn_id = getattr(event, "turn_id", None)
        if event.kind == "turn_started":
            request = getattr(event, "request_id", "")
            if request in client.requests:
                client.requests.pop(request)
                client.turns[event.turn_id] = event.session_key
            else:
                return
        if turn_id is None or turn_id not in client.turns:
            return
        await client.send(event_json(event))
        if event.kind in END_KINDS:
            client.turns.pop(turn_id, None)
            data = event_json(event)
            status = {"turn_finished": "finished", "turn_stopped": "stopped"}.get(
                event.kind, "failed"
            )
            await client.send(
                {
                    "event": "done",
                    "status": status,
                    "content": data.get("content") or data.get("partial") or "",
                    "message": data.get("message", ""),
                }
            )
            client.done.put_nowait(None)

    async def send(self, message: OutboundMessage) -> None:
        """The channel contract: deliver to the clients in that chat (nobody there: logged)."""
        if not await self.deliver(message):
            log.info("no terminal is connected to %s:%s", message.channel, message.chat_id)

    async def deliver(self, message: OutboundMessage) -> bool:
        """Show an outbound message to the clients talking in its chat; whether one took it."""
        key = f"{message.channel}:{message.chat_id}"
        taken = False
        request = str(message.metadata.get("request_id") or "")
        for client in list(self._clients):
            if key not in client.chats:
                continue
            if request and request in client.requests:
                client.requests.pop(request, None)
                await client.send({"event": "command", "content": message.content})
                taken = True
                continue
            if not message.metadata.get("command"):
                await client.send(event_json(message))
                taken = True
        return taken
