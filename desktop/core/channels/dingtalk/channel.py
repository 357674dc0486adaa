"""The DingTalk channel: a robot in stream mode (``dingtalk-stream``).

Receiving. The connection is registered at the gateway (``/v1.0/gateway/connections/open``,
:mod:`~desktop.core.channels.dingtalk.api`), then the stream's WebSocket is read here, frame
by frame, in order: robot messages (``CALLBACK`` on ``/v1.0/im/bot/messages/get``) go through
the SDK's ``DingTalkStreamClient.route_message`` to this channel's ``CallbackHandler``, and the
SDK sends the ACK frame when the handler returns; ``SYSTEM`` pings are answered with the SDK's
``SystemHandler``; ``disconnect`` opens a new connection at once. The SDK's own ``start`` loop
is not used: it retries every failure forever on its own (no status, no backoff the person
sees), starts unowned tasks and calls the gateway with blocking ``requests`` on the event loop.

DingTalk sends a message again until it is ACKed, so the handler returns (and the ACK goes)
only once the message is in the channel's journal on disk (:meth:`publish` with
``journal=True``): a crash before that gets the message again, a crash after it hands it over
again from the journal after the restart. A message handled before is recognised by its
``msgId`` (kept in the channel state once the agent has saved it) and not answered twice. A
malformed frame or message is logged and skipped; the connection goes on.

Sending. Answers are DingTalk markdown (:mod:`~desktop.core.channels.dingtalk.markup`), split
under the limit, posted to the session webhook of the chat's latest message while it is
valid (kept in the state, so it survives a restart); when it has expired or refuses, and for
reminders, through the robot API (one-to-one batch send, or group send). Images and files go
up to DingTalk's media store and out as image or file messages through the robot API. Each is
a piece of the answer's delivery (:mod:`~desktop.core.channels.outbox`): a retry resumes at
the piece that failed.

Approvals are answered by a reply keyword (``allow``, ``deny``…; DingTalk's robot messages
have no buttons in this path): :class:`~desktop.core.channels.approvals.ReplyApprover`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote_plus

import websockets
from dingtalk_stream import (
    AckMessage,
    CallbackHandler,
    CallbackMessage,
    ChatbotMessage,
    Credential,
    DingTalkStreamClient,
    SystemMessage,
)
from dingtalk_stream.version import VERSION_STRING

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable
from desktop.core.channels.dingtalk import inbound, markup
from desktop.core.channels.dingtalk.api import DingTalkApi, Refused, Rejected
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.config.channels.dingtalk import (
    DEFAULT_BASE_URL,
    DEFAULT_OAPI_URL,
    DingTalkConfig,
)
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp"})
WEBHOOK_MARGIN_MS = 60_000  # a session webhook this close to expiring is not used
WEBHOOKS_KEPT = 200
UA = f"dingtalk-sdk-python/v{VERSION_STRING}-union"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class _RobotHandler(CallbackHandler):  # type: ignore[misc]  # the SDK is untyped
    """The SDK's callback handler for robot messages: hands them to the channel."""

    def __init__(self, channel: DingTalkChannel) -> None:
        super().__init__()
        self.channel = channel

    async def process(self, message: CallbackMessage) -> tuple[int, str]:
        """Handle one robot message; the SDK ACKs it when this returns."""
        await self.channel.on_robot_message(message.data)
        return AckMessage.STATUS_OK, "OK"


class DingTalkChannel(BaseChannel[DingTalkConfig]):
    """A DingTalk robot (see the module docstring)."""

    name: ClassVar[str] = "dingtalk"
    display_name: ClassVar[str] = "DingTalk"
    secret_fields: ClassVar[tuple[str, ...]] = ("client_secret",)

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._api: DingTalkApi | None = None
        stored = self.state.get("webhooks", {})
        self._webhooks: dict[str, tuple[str, int]] = {}
        for chat, value in (stored if isinstance(stored, dict) else {}).items():
            if isinstance(value, list) and len(value) == 2 and isinstance(value[1], int):
                self._webhooks[str(chat)] = (str(value[0]), value[1])

    # -- connection -----------------------------------------------------------------------
    def _make_api(self) -> DingTalkApi:
        client_id = (self.config.client_id or "").strip()
        secret = (self.config.client_secret or "").strip()
        if not client_id or not secret:
            raise ChannelUnavailable(
                QT_TR_NOOP("The Client ID or Client secret is not set."),
                QT_TR_NOOP(
                    "Create an app with a robot in stream mode at open-dev.dingtalk.com and enter "
                    "its Client ID and Client secret in Settings → Channels → DingTalk."
                ),
            )
        return DingTalkApi(
            client_id,
            secret,
            self.config.base_url or DEFAULT_BASE_URL,
            self.config.oapi_url or DEFAULT_OAPI_URL,
        )

    @staticmethod
    def _refused(reason: str) -> ChannelUnavailable:
        return ChannelUnavailable(
            Phrase(
                QT_TR_NOOP("DingTalk did not accept the Client ID and secret ({error})."),
                error=reason,
            ),
            QT_TR_NOOP("Check the Client ID and Client secret in Settings → Channels → DingTalk."),
        )

    async def run(self) -> None:
        """Connect, then receive until stopped (a lost connection raises)."""
        if self._api is None:
            self._api = self._make_api()
        api = self._api
        client = DingTalkStreamClient(
            Credential(api.client_id, self.config.client_secret), logger=log.getChild("sdk")
        )
        client.register_callback_handler(ChatbotMessage.TOPIC, _RobotHandler(self))
        client.pre_start()
        topics = [{"type": "CALLBACK", "topic": ChatbotMessage.TOPIC}]
        while not self.stopping:
            try:
                endpoint, ticket = await api.open_connection(topics, UA)
            except Refused as exc:
                raise self._refused(str(exc)) from None
            uri = f"{endpoint}?ticket={quote_plus(ticket)}"
            async with websockets.connect(uri, open_timeout=15, max_size=2**22) as websocket:
                client.websocket = websocket
                self.set_status(ChannelStatus("connected", account=api.client_id))
                await self.replay_journal()
                moved = await self._receive(client, websocket)
            if not moved:
                raise ConnectionError("DingTalk closed the stream connection")
            log.info("DingTalk asked to reconnect; opening a new stream connection")

    async def _receive(self, client: DingTalkStreamClient, websocket: Any) -> bool:
        """Handle frames until the connection ends (``False``) or DingTalk asks the client to
        move to a new one (``True``)."""
        async for raw in websocket:
            try:
                frame = json.loads(raw)
                if not isinstance(frame, dict):
                    raise ValueError("not an object")
                if frame.get("type") == SystemMessage.TYPE:
                    system = SystemMessage.from_dict(frame)
                    ack = await client.system_handler.raw_process(system)
                    await websocket.send(json.dumps(ack.to_dict()))
                    if system.headers.topic == SystemMessage.TOPIC_DISCONNECT:
                        return True
                    continue
                await client.route_message(frame)
            except websockets.ConnectionClosed:
                raise
            except (ConnectionError, OSError):
                raise
            except Exception as exc:  # noqa: BLE001 - a malformed frame must not end the stream
                log.warning("DingTalk: skipping a malformed frame (%s)", redact(exc))
        return False

    async def stop(self) -> None:
        """Stop receiving and close the HTTP connections."""
        await super().stop()
        api, self._api = self._api, None
        if api is not None:
            await api.aclose()

    async def check(self) -> str:
        """Settings → "Test": an access token with these settings."""
        api = self._make_api()
        try:
            await api.token()
            return Phrase(QT_TR_NOOP("Credentials accepted (robot {robot})"), robot=api.client_id)
        except Refused as exc:
            raise ValueError(self._refused(str(exc)).reason) from None
        finally:
            await api.aclose()

    # -- receiving ------------------------------------------------------------------------
    async def on_robot_message(self, data: Any) -> None:
        """A robot message from the stream: read, then handed to the agent (journaled)."""
        try:
            received = inbound.read(data)
        except inbound.Malformed as exc:
            log.warning("DingTalk: skipping a malformed robot message (%s)", exc)
            return
        if self.state.seen(received.message_id):
            log.info("DingTalk: message %s was handled before", received.message_id)
            return
        if self.config.disable_private_chat and not received.is_group:
            log.info("DingTalk: one-to-one message ignored (disablePrivateChat)")
            return
        direct = not received.is_group
        if not await admit(self, received.sender, received.chat_id, direct=direct):
            log.info("DingTalk: message from %s ignored (not in allowFrom)", received.sender)
            return
        if received.webhook:
            await self._remember_webhook(received.chat_id, received.webhook, received)
        media, notes = await self._fetch(received)
        content = " ".join(p for p in (received.text, *notes) if p)
        if not content:
            content = "[image]" if media else "[empty message]"
        session = None
        if received.is_group and self.config.group_user_isolation:
            session = f"{self.name}:{received.chat_id}:{received.sender}"
        await self.publish(
            received.sender,
            received.chat_id,
            content,
            media=media,
            metadata={
                "message_id": received.message_id,
                "sender_name": received.nick,
                "conversation_type": "2" if received.is_group else "1",
                "is_group": received.is_group,
            },
            message_id=received.message_id,
            journal=True,  # the ACK goes when this returns: keep it until the agent has it
            seen=[received.message_id],
            session_key=session,
        )

    async def _remember_webhook(self, chat_id: str, url: str, received: Any) -> None:
        self._webhooks.pop(chat_id, None)
        self._webhooks[chat_id] = (url, int(received.webhook_expires_ms))
        while len(self._webhooks) > WEBHOOKS_KEPT:
            self._webhooks.pop(next(iter(self._webhooks)))
        stored = {chat: [u, e] for chat, (u, e) in self._webhooks.items()}
        await asyncio.to_thread(self.state.update, webhooks=stored)

    async def _fetch(self, received: inbound.Received) -> tuple[list[str], list[str]]:
        """Download the message's files; returns the saved paths and notes for the text."""
        media: list[str] = []
        notes: list[str] = []
        api = self._api
        for index, attachment in enumerate(received.attachments):
            name = _UNSAFE.sub("_", attachment.name).strip("._") or "file"
            stem = _UNSAFE.sub("_", received.message_id)[-32:]
            target = self.media_dir / "dingtalk" / f"{stem}-{index}-{name}"
            try:
                if api is None:
                    raise ConnectionError("not connected")
                path = await api.download(attachment.code, target)
            except (Rejected, Refused, ConnectionError) as exc:
                log.warning("DingTalk: a received file could not be fetched (%s)", redact(exc))
                notes.append(f"[{attachment.name}: could not be downloaded]")
                continue
            media.append(str(path))
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                notes.append(f"[file: {path}]")
        return media, notes

    # -- sending --------------------------------------------------------------------------
    def _require_api(self) -> DingTalkApi:
        if self._api is None:
            self._api = self._make_api()
        return self._api

    def webhook_for(self, chat_id: str) -> str | None:
        """The session webhook of ``chat_id``'s latest message, while it is valid."""
        found = self._webhooks.get(chat_id)
        if found is None:
            return None
        url, expires = found
        if expires and expires - WEBHOOK_MARGIN_MS <= time.time() * 1000:
            return None
        return url

    async def pieces(self, message: OutboundMessage) -> list[str | Path]:
        """The text in pieces under the limit, then the attachments."""
        return [*markup.pieces(message.content), *map(Path, message.media)]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One piece: text through the webhook or the robot API, or a file (raises on
        failure; the robot API has no idempotency key, so a piece in doubt is sent again)."""
        api = self._require_api()
        try:
            if isinstance(piece, Path):
                await self._send_file(api, delivery.message.chat_id, piece)
            else:
                title = markup.title_of(delivery.message.content)
                await self._send_text(api, delivery.message, title, piece)
        except Refused as exc:
            raise self._refused(str(exc)) from None

    async def _send_text(
        self, api: DingTalkApi, message: OutboundMessage, title: str, text: str
    ) -> None:
        webhook = None if message.metadata.get("reminder") else self.webhook_for(message.chat_id)
        if webhook is not None:
            try:
                await api.send_webhook(webhook, title, text)
                return
            except Rejected as exc:
                log.info("DingTalk: the session webhook refused (%s); using the robot API", exc)
                self._webhooks.pop(message.chat_id, None)
        await api.send_robot(message.chat_id, "sampleMarkdown", {"title": title, "text": text})

    async def _send_file(self, api: DingTalkApi, chat_id: str, path: Path) -> None:
        if not await asyncio.to_thread(path.is_file):
            raise Rejected(f"the file {path.name} does not exist")
        if path.suffix.lower() in IMAGE_SUFFIXES:
            media_id = await api.upload(path, "image")
            await api.send_robot(chat_id, "sampleImageMsg", {"photoURL": media_id})
            return
        media_id = await api.upload(path, "file")
        file_type = path.suffix.lower().lstrip(".") or "bin"
        await api.send_robot(
            chat_id,
            "sampleFile",
            {"mediaId": media_id, "fileName": path.name, "fileType": file_type},
        )
