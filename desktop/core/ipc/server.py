"""A local socket through which ``nanobot-desktop agent`` hands its message to a running app or
gateway: one agent, one writer per session, and no second LiteLLM import for the CLI.

The socket (``<config dir>/agent.sock``, mode 0600 in a 0700 folder: only this user) speaks
JSON lines. A client sends ``{"op": "turn", "session", "content", "media"}``; the server
publishes it as an :class:`InboundMessage` on the ``cli`` channel (or the session's channel)
and streams that turn's events back (``{"event": "text_delta", …}``), then
``{"event": "done", "status", "content", "message"}``. Slash commands are answered with
``{"event": "command", "content"}``. ``{"op": "hello"}`` answers with the server's workspace
and the model in use, so a client for another workspace keeps to itself. ``{"op": "trigger"}``
(``nanobot-desktop trigger`` queued a delivery) makes the trigger queue look at its inbox now
and is answered ``{"event": "trigger", "queued": true}`` (``false``: this process delivers no
triggers). A line that is not a
valid request is answered with ``{"event": "error", "message"}`` and the connection goes on.
A message longer than ``channels.maxInboundKb`` is not published: ``done`` comes at once with
``"status": "refused"`` and the reason.

While its turn runs (or waits behind another turn of the session) the client may answer
approval questions: the server asks every approval of the client's turns in the terminal too
(``{"event": "approval", "id", "tool", "reason", "question", "window"}``, ``window``: someone
else, the app's window, is asked as well) and takes ``{"op": "approve", "id", "decision"}``
(``allow_once``, ``allow_session``, ``always``, ``deny``); the first answer wins, anywhere, and
the terminal is told when its question closes (``{"event": "approval_closed", "id"}``). A
client that goes away (Ctrl-C, ``timeout``) before its message's turn began takes the message
back: it is dropped, not run later.

Events reach a client without the agent waiting for it: a terminal that stops reading (paused,
piped into a pager) holds up neither its own turn nor anyone else's; once more than
:data:`MAX_BACKLOG` bytes wait for it, its connection is closed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import json
import logging
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.core.agent.approval import ApprovalGate, ApprovalRequest, Decision, serves
from desktop.core.agent.commands import parse_command
from desktop.core.bus.events import InboundMessage, OutboundMessage, RunEvent
from desktop.core.bus.limits import DEFAULT_MAX_INBOUND_KB, refusal
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.approvals import question_text
from desktop.core.ipc.client import socket_path
from desktop.core.utils.tasks import TaskOwner
from desktop.core.utils.validate import parse_json

__all__ = ["AgentSocketServer", "event_json", "socket_path"]

log = logging.getLogger(__name__)

MAX_LINE = 1 << 20
MAX_BACKLOG = 4 * MAX_LINE  # bytes waiting for a client that does not read: then it is let go
MAX_LATER = 16  # requests a client may send ahead while its turn runs
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
        self.waiting: dict[str, InboundMessage] = {}  # published, its turn not begun yet
        self.turns: dict[str, str] = {}  # turn id -> session key
        self.chats: set[str] = set()  # "channel:chat" the client talks in
        self.approvals: dict[str, asyncio.Future[Decision]] = {}  # question id -> its answer
        self.later: collections.deque[bytes] = collections.deque()  # sent during a turn
        self.done = asyncio.Queue[None]()

    def withdraw(self) -> None:
        """The client left: what it sent that has not begun is not to be run."""
        for message in self.waiting.values():
            message.withdrawn = True
        self.waiting.clear()

    async def send(self, data: dict[str, Any]) -> None:
        """Answer a request (waits until the client takes it: only its own handler waits)."""
        self.post(data)
        await self.writer.drain()

    def post(self, data: dict[str, Any]) -> None:
        """Queue an event without waiting for the client.

        Raises:
            ConnectionError: The client is gone, or so far behind that it was let go.
        """
        transport = self.writer.transport
        if transport.is_closing():
            raise ConnectionResetError("the client is gone")
        self.writer.write(json.dumps(data, ensure_ascii=False).encode() + b"\n")
        if transport.get_write_buffer_size() > MAX_BACKLOG:
            transport.abort()
            raise ConnectionAbortedError("the client does not read; let go")

    def drop(self) -> None:
        """Close the connection and release its handler if it waits for a turn."""
        self.writer.transport.abort()
        self.done.put_nowait(None)


class AgentSocketServer:
    """Serves CLI clients on a Unix socket; it is also the ``cli`` channel of the runtime (what
    the agent sends to a terminal chat reaches the client talking in it).

    Args:
        path: The socket file.
        bus: The runtime's bus (messages go in, events come out).
        owner: Owns the server and its connections.
        workspace: Reported by ``hello``.
        model: Reported by ``hello``: the model, or a function giving the one in use now.
        approval: The gate whose questions about its clients' turns are asked in the terminal
            too (the server registers as an approver while it serves).
        max_inbound_kb: ``channels.maxInboundKb`` (or a function giving it now).
        on_trigger: Wakes the trigger queue (``None``: triggers are not delivered here).
    """

    def __init__(
        self,
        path: Path,
        bus: MessageBus,
        owner: TaskOwner,
        *,
        workspace: Path,
        model: str | Callable[[], str],
        approval: ApprovalGate | None = None,
        max_inbound_kb: int | Callable[[], int] = DEFAULT_MAX_INBOUND_KB,
        on_trigger: Callable[[], None] | None = None,
    ) -> None:
        self.path = path
        self.bus = bus
        self.workspace = workspace
        self._model = model
        self._owner = owner
        self._gate = approval
        self._remove_approver: Callable[[], None] | None = None
        self._max_inbound_kb = max_inbound_kb
        self._on_trigger = on_trigger
        self.name = "cli"
        self._server: asyncio.AbstractServer | None = None
        self._clients: set[_Client] = set()
        self._unsubscribe: Any = None

    @property
    def model(self) -> str:
        """The model ``hello`` reports."""
        return self._model() if callable(self._model) else self._model

    @property
    def serving(self) -> bool:
        """Whether the socket is open."""
        return self._server is not None

    @property
    def waiting(self) -> int:
        """Messages from connected terminals whose turns have not begun yet."""
        return sum(len(c.waiting) for c in self._clients)

    async def start(self) -> bool:
        """Open the socket; ``False`` (logged) when another live process serves it already or
        the platform has no Unix sockets."""
        if not hasattr(asyncio, "start_unix_server"):
            return False
        try:
            await asyncio.to_thread(self._private_folder)
        except OSError as exc:
            log.warning("cannot serve %s: %s", self.path, exc)
            return False
        if await asyncio.to_thread(os.path.lexists, self.path):
            if await self._alive():
                log.info("another process serves %s; not serving it here", self.path)
                return False
            with contextlib.suppress(FileNotFoundError):
                await asyncio.to_thread(self.path.unlink)  # stale, after a crash
        try:
            sock = self._bind()
            self._server = await asyncio.start_unix_server(self._serve, sock=sock, limit=MAX_LINE)
        except OSError as exc:
            log.warning("cannot serve %s: %s", self.path, exc)
            return False
        self._unsubscribe = self.bus.subscribe(self._on_event)
        if self._gate is not None:
            self._remove_approver = self._gate.add_approver(self)
        log.info("serving the agent on %s", self.path)
        return True

    def _private_folder(self) -> None:
        """Make the socket's folder ours alone (0700), or raise."""
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            raise PermissionError(f"{folder} is not a folder of this user")
        os.chmod(folder, 0o700)

    def _bind(self) -> socket.socket:
        """The socket bound at :attr:`path` and made 0600 before it listens.

        The process umask is left alone: changing it would also change the permissions of
        whatever other threads and tasks create meanwhile.
        """
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(str(self.path))
        except OSError:
            sock.close()
            raise
        try:
            os.chmod(self.path, 0o600)
        except OSError:
            sock.close()
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            raise
        return sock

    async def _alive(self) -> bool:
        try:
            async with asyncio.timeout(2):
                _reader, writer = await asyncio.open_unix_connection(str(self.path))
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
        if self._remove_approver is not None:
            self._remove_approver()
            self._remove_approver = None
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for client in list(self._clients):
            client.writer.close()
        with contextlib.suppress(Exception):
            await server.wait_closed()
        await asyncio.to_thread(self._remove_socket_file)

    def _remove_socket_file(self) -> None:
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
                    line = client.later.popleft() if client.later else await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    await client.send({"event": "error", "message": "request too large"})
                    return
                if not line:
                    return
                try:
                    request = parse_json(line)
                except ValueError:
                    request = None
                if not isinstance(request, dict):
                    await client.send({"event": "error", "message": "not a JSON object"})
                    continue
                problem = _problem(request)
                if problem:
                    await client.send({"event": "error", "message": problem})
                    continue
                await self._handle(client, request, reader)
        except (ConnectionError, OSError):
            return
        finally:
            self._clients.discard(client)
            writer.close()

    async def _handle(
        self, client: _Client, request: dict[str, Any], reader: asyncio.StreamReader
    ) -> None:
        op = request.get("op")
        if op == "hello":
            await client.send(
                {"event": "hello", "workspace": str(self.workspace), "model": self.model}
            )
            return
        if op == "approve":
            self._answer(client, request)
            return
        if op == "trigger":
            if self._on_trigger is not None:
                self._on_trigger()
            await client.send({"event": "trigger", "queued": self._on_trigger is not None})
            return
        assert op == "turn", "checked by _problem"
        session = request.get("session") or "cli:direct"
        channel, _, chat_id = session.partition(":")
        content = request.get("content") or ""
        media = list(request.get("media") or [])
        limit = self._max_inbound_kb
        refused = refusal(content, limit() if callable(limit) else limit)
        if refused is not None:
            await client.send(
                {"event": "done", "status": "refused", "content": "", "message": refused}
            )
            return
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
        if parse_command(content) is not None and not media:
            await self.bus.publish_inbound(message)
            return  # the reply comes back as an outbound message with the request id
        client.waiting[message.id] = message
        await self.bus.publish_inbound(message)
        await self._until_done(client, reader)

    async def _until_done(self, client: _Client, reader: asyncio.StreamReader) -> None:
        """Wait until the client's turn ends (its events flow meanwhile), reading its approval
        answers; a client that leaves first withdraws its message if the turn has not begun.

        Raises:
            ConnectionResetError: The client left.
        """
        done = asyncio.ensure_future(client.done.get())
        line: asyncio.Future[bytes] | None = None
        try:
            while not done.done():
                line = asyncio.ensure_future(reader.readline())
                await asyncio.wait({done, line}, return_when=asyncio.FIRST_COMPLETED)
                if not line.done():
                    break  # the turn ended
                try:
                    raw = line.result()
                except (ValueError, asyncio.LimitOverrunError):
                    client.post({"event": "error", "message": "request too large"})
                    continue
                if not raw:
                    client.withdraw()
                    raise ConnectionResetError("the client left")
                self._read_during_turn(client, raw)
        finally:
            for pending in (done, line):
                if pending is not None and not pending.done():
                    pending.cancel()
                    await asyncio.gather(pending, return_exceptions=True)

    def _read_during_turn(self, client: _Client, raw: bytes) -> None:
        try:
            request = parse_json(raw)
        except ValueError:
            request = None
        if isinstance(request, dict) and request.get("op") == "approve":
            self._answer(client, request)
        elif len(client.later) < MAX_LATER:
            client.later.append(raw)  # the next request: served once this turn has ended
        else:
            client.post({"event": "error", "message": "too many requests ahead; send them later"})

    def _answer(self, client: _Client, request: dict[str, Any]) -> None:
        """An ``approve`` line: the answer to one of the client's open questions."""
        future = client.approvals.get(str(request.get("id") or ""))
        try:
            decision = Decision(str(request.get("decision") or ""))
        except ValueError:
            client.post(
                {
                    "event": "error",
                    "message": "decision must be one of " + ", ".join(d.value for d in Decision),
                }
            )
            return
        if future is not None and not future.done():
            future.set_result(decision)

    # -- approvals (the gate asks the terminal too) --------------------------------------
    def _client_of(self, request: ApprovalRequest) -> _Client | None:
        return next((c for c in self._clients if request.turn_id in c.turns), None)

    def serves(self, request: ApprovalRequest) -> bool:
        """Whether the turn asking is one a connected terminal started."""
        return self._client_of(request) is not None

    async def request_approval(self, request: ApprovalRequest) -> Decision:
        """Ask the terminal whose turn it is; wait for its answer (cancelled when someone
        else answers first, or the turn stops). A terminal that is gone never answers."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        client = self._client_of(request)
        if client is None:
            return await future  # left meanwhile: the others answer
        key = f"{request.turn_id}:{request.call_id}"
        client.approvals[key] = future
        others = self._gate is not None and any(
            a is not self and serves(a, request) for a in self._gate.approvers_for(request.channel)
        )
        try:
            client.post(
                {
                    "event": "approval",
                    "id": key,
                    "tool": request.tool,
                    "reason": request.reason,
                    "question": question_text(request, keywords=False),
                    "window": others,
                }
            )
            return await future
        except (ConnectionError, OSError):
            never: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
            return await never  # gone: the others answer
        finally:
            client.approvals.pop(key, None)
            if not future.done() or future.cancelled():
                with contextlib.suppress(ConnectionError, OSError):
                    client.post({"event": "approval_closed", "id": key})

    def _drop(self, client: _Client) -> None:
        self._clients.discard(client)
        client.drop()

    async def _on_event(self, event: RunEvent) -> None:
        for client in list(self._clients):
            try:
                self._route(client, event)
            except (ConnectionError, OSError) as exc:
                log.info("a terminal client left: %s", exc)
                self._drop(client)

    def _route(self, client: _Client, event: RunEvent) -> None:
        turn_id = getattr(event, "turn_id", None)
        if event.kind == "turn_started":
            request = getattr(event, "request_id", "")
            if request in client.requests:
                client.requests.pop(request)
                client.waiting.pop(request, None)
                client.turns[event.turn_id] = event.session_key
            else:
                return
        if turn_id is None or turn_id not in client.turns:
            return
        client.post(event_json(event))
        if event.kind in END_KINDS:
            client.turns.pop(turn_id, None)
            data = event_json(event)
            status = {"turn_finished": "finished", "turn_stopped": "stopped"}.get(
                event.kind, "failed"
            )
            client.post(
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
            try:
                if request and request in client.requests:
                    client.requests.pop(request, None)
                    client.post({"event": "command", "content": message.content})
                    taken = True
                elif not message.metadata.get("command"):
                    client.post(event_json(message))
                    taken = True
            except (ConnectionError, OSError) as exc:
                log.info("a terminal client left: %s", exc)
                self._drop(client)
        return taken


def _problem(request: dict[str, Any]) -> str:
    """What is wrong with a request (``""``: nothing)."""
    op = request.get("op")
    if op in ("hello", "approve", "trigger"):
        return ""
    if op != "turn":
        return f"unknown op {op!r}"
    session = request.get("session")
    if session is not None and not isinstance(session, str):
        return "session must be a string like 'cli:direct'"
    if not isinstance(request.get("content", ""), str):
        return "content must be a string"
    media = request.get("media")
    if media is not None and not (
        isinstance(media, list) and all(isinstance(m, str) for m in media)
    ):
        return "media must be a list of file paths"
    if not request.get("content") and not media:
        return "the message is empty"
    return ""
