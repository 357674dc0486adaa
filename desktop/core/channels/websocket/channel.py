"""The WebSocket channel: we listen; browsers, phones and scripts connect (nanobot 0.3.5's
protocol, so 0.3.5's own WebUI works against us).

One listener serves both the WebSocket (at ``path``) and the HTTP routes beside it
(:mod:`~desktop.core.channels.websocket.routes`: the token issue route, the WebUI's
bootstrap and API, the WebUI's files). A connection gets ``{"event": "ready", "chat_id",
"client_id"}`` and may then talk in many chats at once (multiplexed by ``chat_id``):

- client → us: ``{"type": "new_chat"}`` (answered ``attached`` with a fresh chat id),
  ``{"type": "attach", "chat_id"}``, ``{"type": "detach", "chat_id"}``, ``{"type":
  "message", "chat_id", "content", "turn_id"?}``; plain text or ``{"content": …}`` goes to
  the connection's default chat.
- us → client: ``delta`` (``text``, ``stream_id``) while the answer is written, then
  ``stream_end``; or one ``message`` (``text``) when nothing was streamed; ``turn_end``;
  ``error`` (``detail``). Every event names its ``chat_id``.

Session keys are ``websocket:<chat_id>``; the sender is the ``client_id`` the client gives in
its URL (``allowFrom`` matches it), so a conversation continues across the two programs.
A message is kept in the channel's journal until the agent has it safe, so a restart never
loses it or answers it twice. Approvals are asked in the chat and answered with a reply word.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import ssl
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request

from desktop.core.bus.events import (
    OutboundMessage,
    RunEvent,
    StreamReset,
    TextDelta,
    TurnFailed,
    TurnStarted,
    TurnStopped,
)
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.websocket.attachments import Refused, save_attachments, with_references
from desktop.core.channels.websocket.routes import Routes, valid_chat_id
from desktop.core.config.channels.websocket import WebSocketConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

log = logging.getLogger(__name__)

MAX_CLIENT_ID = 128


@dataclass
class _Stream:
    """The answer being streamed into one chat."""

    turn_id: str
    stream_id: str
    parts: list[str] = field(default_factory=list)


@dataclass
class _Hub:
    """Who listens to which chat, and the answers being streamed."""

    subs: dict[str, set[ServerConnection]] = field(default_factory=dict)
    chats_of: dict[ServerConnection, set[str]] = field(default_factory=dict)
    streams: dict[str, _Stream] = field(default_factory=dict)
    turns: dict[str, str] = field(default_factory=dict)  # chat -> running turn
    wire: dict[str, str] = field(default_factory=dict)  # agent's turn id -> the client's

    def wire_id(self, turn_id: str) -> str:
        """The turn id the client knows: the ``turn_id`` it sent with the message, else ours."""
        return self.wire.get(turn_id, turn_id)

    def attach(self, connection: ServerConnection, chat_id: str) -> None:
        self.subs.setdefault(chat_id, set()).add(connection)
        self.chats_of.setdefault(connection, set()).add(chat_id)

    def detach(self, connection: ServerConnection, chat_id: str) -> None:
        self.subs.get(chat_id, set()).discard(connection)
        if not self.subs.get(chat_id):
            self.subs.pop(chat_id, None)
        self.chats_of.get(connection, set()).discard(chat_id)

    def drop(self, connection: ServerConnection) -> None:
        for chat_id in list(self.chats_of.pop(connection, ())):
            self.subs.get(chat_id, set()).discard(connection)
            if not self.subs.get(chat_id):
                self.subs.pop(chat_id, None)


def _query(path: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(path).query).items() if v}


def _content(raw: str) -> str | None:
    """The text of a frame without a ``type`` (plain text, or ``content``/``text``/
    ``message`` of a JSON object), as 0.3.5 reads them."""
    text = raw.strip()
    if not text:
        return None
    if not text.startswith("{"):
        return text
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text
    if not isinstance(data, dict):
        return None
    for key in ("content", "text", "message"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _envelope(raw: str) -> dict[str, Any] | None:
    """A typed frame (a JSON object with a string ``type``); ``None`` for anything else."""
    if not raw.strip().startswith("{"):
        return None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict) and isinstance(data.get("type"), str):
        return data
    return None


class WebSocketChannel(BaseChannel[WebSocketConfig]):
    """A WebSocket server speaking nanobot 0.3.5's channel protocol."""

    name = "websocket"
    display_name = "WebSocket"
    routes: Routes | None = None
    """The listener's request handling while it runs."""
    address: str = ""
    """Where it listens (``ws://host:port/path``) once it does."""

    @cached_property
    def hub(self) -> _Hub:
        """The subscriptions and streams (made on first use)."""
        return _Hub()

    @property
    def settings(self) -> WebSocketConfig:
        """The channel's section, as our model."""
        config = self.config
        if isinstance(config, WebSocketConfig):
            return config
        return WebSocketConfig.model_validate(config or {})

    # -- lifecycle ------------------------------------------------------------------------
    async def _ssl_context(self) -> ssl.SSLContext | None:
        cfg = self.settings
        if not cfg.ssl_certfile.strip():
            return None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            await asyncio.to_thread(
                context.load_cert_chain, cfg.ssl_certfile.strip(), cfg.ssl_keyfile.strip()
            )
        except (OSError, ssl.SSLError) as exc:
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("The TLS certificate or key cannot be used: {error}"), error=str(exc)
                ),
                QT_TR_NOOP("Check sslCertfile and sslKeyfile (PEM files)."),
            ) from None
        return context

    async def run(self) -> None:
        cfg = self.settings
        refused = cfg.open_to_everyone()
        if refused:
            raise ChannelUnavailable(
                refused, QT_TR_NOOP("Set a token or tokenIssueSecret, or listen on 127.0.0.1.")
            )
        context = await self._ssl_context()
        routes = await Routes.create(self, cfg, secure=context is not None)
        self.set_status(ChannelStatus("connecting"))
        try:
            server = await serve(
                self._connection,
                cfg.host,
                cfg.port,
                process_request=routes.process_request,
                ssl=context,
                max_size=cfg.max_message_bytes,
                ping_interval=cfg.ping_interval_s,
                ping_timeout=cfg.ping_timeout_s,
                logger=logging.getLogger("desktop.core.channels.websocket.server"),
            )
        except OSError as exc:
            why = os.strerror(exc.errno) if exc.errno else str(exc)
            if exc.errno == errno.EADDRINUSE:
                why += " (another program, perhaps a nanobot gateway, listens there)"
            raise OSError(f"cannot listen on {cfg.host}:{cfg.port}: {why}") from None
        self.routes = routes
        try:
            sockets = list(server.sockets)
            port = sockets[0].getsockname()[1] if sockets else cfg.port
            scheme = "wss" if context else "ws"
            self.address = f"{scheme}://{cfg.host}:{port}{cfg.path}"
            log.info("websocket: listening on %s", self.address)
            self.set_status(ChannelStatus("connected", account=self.address))
            await self.replay_journal()
            await self.wait_stopped()
        finally:
            server.close()
            await server.wait_closed()
            routes.tokens.clear()
            self.routes = None
            self.hub.subs.clear()
            self.hub.chats_of.clear()

    async def check(self) -> str:
        cfg = self.settings
        refused = cfg.open_to_everyone()
        if refused:
            raise ChannelUnavailable(refused)
        await self._ssl_context()
        return Phrase(QT_TR_NOOP("Listens on {url}"), url=cfg.describe()["url"])

    # -- connections ----------------------------------------------------------------------
    async def _connection(self, connection: ServerConnection) -> None:
        request: Request | None = connection.request
        query = _query(request.path if request else "/")
        client_id = (query.get("client_id") or "").strip()[:MAX_CLIENT_ID]
        client_id = client_id or f"anon-{uuid.uuid4().hex[:12]}"
        default_chat = str(uuid.uuid4())
        try:
            await self._emit(connection, "ready", chat_id=default_chat, client_id=client_id)
            self.hub.attach(connection, default_chat)
            async for raw in connection:
                text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
                await self._frame(connection, client_id, default_chat, text)
        except ConnectionClosed:
            pass
        finally:
            self.hub.drop(connection)

    async def _frame(
        self, connection: ServerConnection, client_id: str, default_chat: str, raw: str
    ) -> None:
        envelope = _envelope(raw)
        if envelope is None:
            content = _content(raw)
            if content is not None:
                await self._inbound(connection, client_id, default_chat, content, None)
            return
        await self._command(connection, client_id, envelope)

    async def _command(
        self, connection: ServerConnection, client_id: str, envelope: dict[str, Any]
    ) -> None:
        kind = envelope["type"]
        raw_chat = envelope.get("chat_id")
        chat_id: str = str(raw_chat) if valid_chat_id(raw_chat) else ""
        if kind == "new_chat":
            chat_id = str(uuid.uuid4())
            self.hub.attach(connection, chat_id)
            await self._emit(connection, "attached", chat_id=chat_id)
        elif kind in ("attach", "detach", "message") and not chat_id:
            await self._emit(connection, "error", detail="invalid chat_id")
        elif kind == "attach":
            self.hub.attach(connection, chat_id)
            await self._emit(connection, "attached", chat_id=chat_id)
        elif kind == "detach":
            self.hub.detach(connection, chat_id)
            await self._emit(connection, "detached", chat_id=chat_id)
        elif kind == "message":
            await self._message(connection, client_id, chat_id, envelope)
        else:
            await self._emit(connection, "error", detail=f"unknown type: {kind!r}")

    async def _message(
        self,
        connection: ServerConnection,
        client_id: str,
        chat_id: str,
        envelope: dict[str, Any],
    ) -> None:
        """A ``message`` frame: its text, its attachments (saved first), its turn id."""
        content = envelope.get("content", "")
        turn = envelope.get("turn_id")
        turn_id = turn if isinstance(turn, str) and turn else None
        fields: dict[str, Any] = {"chat_id": chat_id, **({"turn_id": turn_id} if turn_id else {})}
        raw_media = envelope.get("media")
        media: list[Path] = []
        if not isinstance(content, str):
            await self._emit(connection, "error", detail="missing content", **fields)
            return
        if raw_media is not None:
            if not self.is_allowed(client_id):
                await self._emit(connection, "error", detail="access_denied", **fields)
                return
            try:
                if not isinstance(raw_media, list):
                    raise Refused("malformed")
                media = await asyncio.to_thread(save_attachments, raw_media, self.media_dir)
            except Refused as refused:
                await self._emit(
                    connection,
                    "error",
                    detail="attachment_rejected",
                    reason=refused.reason,
                    **fields,
                )
                return
        if not content.strip() and not media:
            await self._emit(connection, "error", detail="missing content", **fields)
            return
        self.hub.attach(connection, chat_id)
        content = with_references(content, media)
        await self._inbound(connection, client_id, chat_id, content, turn_id, media)

    async def _inbound(
        self,
        connection: ServerConnection,
        client_id: str,
        chat_id: str,
        content: str,
        turn_id: str | None,
        media: Sequence[Path] = (),
    ) -> None:
        if not self.is_allowed(client_id):
            await self._emit(connection, "error", detail="access_denied", chat_id=chat_id)
            return
        message_id = turn_id or uuid.uuid4().hex
        remote = connection.remote_address
        published = await self.publish(
            client_id,
            chat_id,
            content,
            media=[str(path) for path in media],
            metadata={"remote": str(remote[0]) if remote else ""},
            message_id=f"ws-{message_id}",
            journal=True,
        )
        if published:
            fields: dict[str, Any] = {"chat_id": chat_id}
            if turn_id:
                fields["turn_id"] = turn_id
            await self._emit(connection, "message_accepted", **fields)

    async def _emit(self, connection: ServerConnection, event: str, **fields: Any) -> None:
        await self._send_raw(connection, json.dumps({"event": event, **fields}, ensure_ascii=False))

    @staticmethod
    async def _send_raw(connection: ServerConnection, raw: str) -> bool:
        try:
            await connection.send(raw)
        except ConnectionClosed:
            return False
        return True

    async def _broadcast(self, chat_id: str, event: str, **fields: Any) -> int:
        """Send an event to every connection attached to ``chat_id``; how many got it."""
        raw = json.dumps({"event": event, "chat_id": chat_id, **fields}, ensure_ascii=False)
        sent = 0
        for connection in list(self.hub.subs.get(chat_id, ())):
            sent += await self._send_raw(connection, raw)
        return sent

    # -- answers --------------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        key = getattr(event, "session_key", "")
        if not isinstance(key, str) or not key.startswith(f"{self.name}:"):
            return
        chat_id = key.partition(":")[2]
        if isinstance(event, TurnStarted):
            self.hub.turns[chat_id] = event.turn_id
            if event.request_id.startswith("ws-"):
                self.hub.wire[event.turn_id] = event.request_id.removeprefix("ws-")
        elif isinstance(event, TextDelta) and self.settings.streaming and event.text:
            stream = self.hub.streams.get(chat_id)
            if stream is None or stream.turn_id != event.turn_id:
                stream = _Stream(event.turn_id, f"{key}:{uuid.uuid4().hex}")
                self.hub.streams[chat_id] = stream
            stream.parts.append(event.text)
            await self._broadcast(
                chat_id,
                "delta",
                text=event.text,
                stream_id=stream.stream_id,
                turn_id=self.hub.wire_id(event.turn_id),
            )
        elif isinstance(event, StreamReset):
            stream = self.hub.streams.pop(chat_id, None)
            if stream is not None:
                await self._broadcast(
                    chat_id,
                    "stream_end",
                    stream_id=stream.stream_id,
                    turn_id=self.hub.wire_id(stream.turn_id),
                )
        elif isinstance(event, TurnStopped | TurnFailed):
            await self._end_turn(chat_id, event.turn_id)

    async def _end_turn(self, chat_id: str, turn_id: str) -> None:
        stream = self.hub.streams.pop(chat_id, None)
        if stream is not None:
            await self._broadcast(
                chat_id,
                "stream_end",
                stream_id=stream.stream_id,
                turn_id=self.hub.wire_id(stream.turn_id),
            )
        wire = self.hub.wire.pop(turn_id, turn_id)
        if self.hub.turns.get(chat_id) == turn_id:
            del self.hub.turns[chat_id]
            await self._broadcast(chat_id, "turn_end", turn_id=wire)
            await self._broadcast(chat_id, "session_updated", scope="thread")

    async def pieces(self, message: OutboundMessage) -> Sequence[Any]:
        if not message.content.strip() and not message.media:
            return []
        return [message]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """Send a message to every connection attached to its chat. With nobody attached it
        is not kept waiting: it is in the session, and the chat shows it when opened again
        (as with 0.3.5).

        A turn's answer (it names its ``turn_id``) that was streamed ends the stream
        (``stream_end``, with the saved text only when it differs from what was streamed),
        else it is one ``message``; then ``turn_end``. Text the agent wrote before calling
        tools comes as a progress note too: when it was streamed, the stream just ends.
        Everything else (tool hints, approval questions, reminders) is a ``message``.
        """
        message: OutboundMessage = piece
        chat_id = message.chat_id
        meta = message.metadata
        turn_id = str(meta.get("turn_id") or "")
        hint = bool(meta.get("tool_hint"))
        progress = bool(meta.get("progress")) and not hint
        answer = bool(turn_id) and not (progress or hint)
        stream = self.hub.streams.get(chat_id)
        streamed = "".join(stream.parts).strip() if stream is not None else None
        fields: dict[str, Any] = {"turn_id": self.hub.wire_id(turn_id)} if turn_id else {}
        if stream is not None and (answer or (progress and streamed == message.content.strip())):
            del self.hub.streams[chat_id]
            if streamed != message.content.strip():
                fields["text"] = message.content  # the answer as saved, when it differs
            fields.setdefault("turn_id", self.hub.wire_id(stream.turn_id))
            await self._broadcast(chat_id, "stream_end", stream_id=stream.stream_id, **fields)
        else:
            if message.media:
                fields["media"] = list(message.media)
                if self.routes is not None:
                    fields["media_urls"] = [self.routes.signer.link(p) for p in message.media]
            if hint or progress:
                fields["kind"] = "tool_hint" if hint else "progress"
            await self._broadcast(chat_id, "message", text=message.content, **fields)
        if answer:
            await self._end_turn(chat_id, turn_id)
