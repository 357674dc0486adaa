"""The Feishu / Lark channel: a self-built app's bot on the WebSocket long connection.

Receiving. Events arrive over lark-oapi's long connection (:mod:`.longconn`), which confirms
each event frame once its handler returned; an unconfirmed event is delivered again by the
platform. The handler hands the message to the agent through the channel's journal
(``publish(..., journal=True)``) before returning, so a message is confirmed only once it is
safe on disk, and is handed over again after a restart if the agent had not saved it yet. An
event delivered twice (its confirmation lost with the connection) is recognised by its
message id (in the journal, or marked handled when the journal let it go). A malformed event
is logged and confirmed (skipped). Text, rich text (post), images and files are read
(:mod:`.inbound`); images are saved under ``<media>/feishu/`` and passed to the model.

In group chats the bot answers only when @mentioned (``groupPolicy: mention``) or always
(``open``). While a message is being worked on it carries ``reactEmoji``; when its turn ends
that reaction goes (and ``doneEmoji`` is put, when set).

Sending. Markdown answers become interactive cards (:mod:`.cards`), split between paragraphs;
attachments are uploaded (images as image messages, other files as file messages). An answer
to a message in a topic stays in the topic (a reply in thread); with ``replyToMessage`` the
first piece quotes the message. Each message is a piece of the answer's delivery
(:mod:`~desktop.core.channels.outbox`): a retry resumes at the piece that failed, and every
piece carries a ``uuid`` derived from the delivery, so the platform does not show a piece
twice when the answer to its request was lost. Tool hints are plain text with
``toolHintPrefix``. Approval questions are cards with buttons (:mod:`.buttons`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

import lark_oapi as lark
from lark_oapi.event.callback.model.p2_card_action_trigger import (
    P2CardActionTrigger,
    P2CardActionTriggerResponse,
)
from lark_oapi.event.custom import CustomizedEvent

from desktop.core.bus.events import (
    OutboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.channels.base import (
    BaseChannel,
    ChannelStatus,
    ChannelUnavailable,
    SenderShape,
)
from desktop.core.channels.feishu import cards
from desktop.core.channels.feishu.api import FeishuError, OpenApi
from desktop.core.channels.feishu.buttons import ActionResult, CardApprover
from desktop.core.channels.feishu.inbound import Malformed, Received, read_event
from desktop.core.channels.feishu.longconn import (
    CredentialsRefused,
    LongConnection,
    quiet_sdk_logging,
)
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.config.channels.feishu import FeishuConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

REMEMBERED = 1000  # turns, reactions and half-sent answers remembered (oldest forgotten)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".bmp")
_SIGNATURES = {b"\x89PNG": ".png", b"\xff\xd8\xff": ".jpg", b"GIF8": ".gif", b"RIFF": ".webp"}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _remember(store: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    store[key] = value
    while len(store) > REMEMBERED:
        store.popitem(last=False)


def _image_suffix(data: bytes) -> str:
    for signature, suffix in _SIGNATURES.items():
        if data.startswith(signature):
            return suffix
    return ".jpg"


class FeishuChannel(BaseChannel[FeishuConfig]):
    """A Feishu / Lark bot (see the module docstring)."""

    name: ClassVar[str] = "feishu"
    display_name: ClassVar[str] = "Feishu / Lark"
    sender_shape: ClassVar[SenderShape] = "id|id"
    secret_fields: ClassVar[tuple[str, ...]] = ("app_secret", "encrypt_key", "verification_token")

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._api: OpenApi | None = None
        self._conn: LongConnection | None = None
        self._bot_open_id = ""
        self._inbound: OrderedDict[str, Received] = OrderedDict()
        self._turns: OrderedDict[str, str] = OrderedDict()  # turn → the message it answers
        self._reactions: OrderedDict[str, str] = OrderedDict()  # message → our reaction
        self._reacting: dict[str, asyncio.Task[None]] = {}  # reactions still being put
        quiet_sdk_logging()

    def make_approver(self) -> CardApprover:
        """Approval questions as cards with buttons."""
        return CardApprover(self)

    # -- connection -----------------------------------------------------------------------
    def _credentials(self) -> tuple[str, str]:
        app_id = (self.config.app_id or "").strip()
        secret = (self.config.app_secret or "").strip()
        if not app_id or not secret:
            raise ChannelUnavailable(
                QT_TR_NOOP("No app ID or app secret is set."),
                QT_TR_NOOP(
                    "Create a self-built app with the bot feature on the Feishu / Lark developer "
                    "console and enter its App ID and App Secret in Settings → Channels → Feishu."
                ),
            )
        return app_id, secret

    def _refused(self, detail: str) -> ChannelUnavailable:
        return ChannelUnavailable(
            Phrase(
                QT_TR_NOOP("Feishu did not accept the app's credentials ({error})."),
                error=redact(detail),
            ),
            QT_TR_NOOP(
                "Check the App ID, the App Secret and the platform (Feishu or Lark) in Settings → "
                "Channels → Feishu."
            ),
        )

    async def _profile(self, api: OpenApi) -> dict[str, Any]:
        try:
            return await api.bot_info()
        except FeishuError as exc:
            if exc.credentials:
                raise self._refused(str(exc)) from None
            raise ConnectionError(str(exc)) from None

    async def run(self) -> None:
        """Connect, then receive until stopped (a lost connection raises)."""
        app_id, secret = self._credentials()
        if self._api is None:
            self._api = OpenApi(app_id, secret, self.config.api_base)
        bot = await self._profile(self._api)
        self._bot_open_id = str(bot.get("open_id") or "")
        handler = (
            lark.EventDispatcherHandler.builder("", "")
            .register_p2_customized_event("im.message.receive_v1", self._on_message_event)
            .register_p2_card_action_trigger(self._on_card_action)
            .build()
        )
        conn = LongConnection(app_id, secret, self.config.api_base, handler, self.owner)
        self._conn = conn
        stopped: asyncio.Task[None] | None = None
        ended: asyncio.Task[None] | None = None
        try:
            try:
                await conn.connect()
            except CredentialsRefused as exc:
                raise ChannelUnavailable(
                    Phrase(
                        QT_TR_NOOP("Feishu refused the long connection ({error})."),
                        error=redact(exc),
                    ),
                    QT_TR_NOOP(
                        "Check the App ID, the App Secret and the platform in Settings → Channels "
                        "→ Feishu, and that the app has the bot feature and a published version."
                    ),
                ) from None
            self.set_status(ChannelStatus("connected", account=str(bot.get("app_name") or "")))
            await self.replay_journal()
            stopped = asyncio.create_task(self.wait_stopped(), name="feishu-stopped")
            ended = asyncio.create_task(conn.wait_closed(), name="feishu-ended")
            await asyncio.wait({stopped, ended}, return_when=asyncio.FIRST_COMPLETED)
            if not self.stopping:
                ended.result()  # what ended it, if anything
                raise ConnectionError("the Feishu long connection was closed")
        finally:
            for task in (stopped, ended):
                if task is not None:
                    task.cancel()
            await asyncio.gather(*(t for t in (stopped, ended) if t), return_exceptions=True)
            self._conn = None
            await conn.close()

    async def stop(self) -> None:
        """Stop receiving and close the connection; background calls are cancelled."""
        await super().stop()
        conn = self._conn
        if conn is not None:
            await conn.close()

    async def check(self) -> str:
        """Settings → "Test": read the bot's profile with these settings."""
        app_id, secret = self._credentials()
        try:
            bot = await self._profile(OpenApi(app_id, secret, self.config.api_base))
        except ChannelUnavailable as exc:
            raise ValueError(exc.reason) from None
        return Phrase(QT_TR_NOOP("Connected as {account}"), account=bot.get("app_name") or app_id)

    # -- receiving (the SDK calls these on the connection's thread) -------------------------
    def _on_message_event(self, data: CustomizedEvent) -> None:
        conn = self._conn
        if conn is None:
            raise ConnectionError("not connected")
        conn.call(self._receive(data.event))

    def _on_card_action(self, data: P2CardActionTrigger) -> P2CardActionTriggerResponse:
        conn = self._conn
        if conn is None:
            raise ConnectionError("not connected")
        result = conn.call(self._card_action(data))
        return P2CardActionTriggerResponse(result.to_json() if result is not None else {})

    # -- receiving (on the app's loop) ------------------------------------------------------
    async def _card_action(self, data: P2CardActionTrigger) -> ActionResult | None:
        event = data.event
        if event is None or event.action is None:
            return None
        who = event.operator.open_id if event.operator is not None else None
        card_message = event.context.open_message_id if event.context is not None else None
        if not who or not card_message:
            return None
        user_id = event.operator.user_id if event.operator is not None else None
        sender = f"{who}|{user_id}" if user_id else who
        if not self.is_allowed(sender):
            log.info("Feishu: button tap from %s ignored (not in allowFrom)", sender)
            return ActionResult("error", "You may not answer this.")
        assert isinstance(self.approvals, CardApprover)
        return await self.approvals.on_action(card_message, event.action.value, who)

    def _session_key(self, received: Received) -> str | None:
        """nanobot's session: with ``topicIsolation`` each group thread (a message and the
        replies to it) is its own conversation; otherwise one per chat."""
        if received.chat_type == "p2p" or not self.config.topic_isolation:
            return None
        return f"{self.name}:{received.chat_id}:{received.root_id or received.message_id}"

    def _addressed(self, received: Received) -> bool:
        if received.chat_type == "p2p" or self.config.group_policy == "open":
            return True
        if received.mentions_all:
            return True
        return bool(self._bot_open_id) and self._bot_open_id in received.mentions

    async def _receive(self, event: Any) -> None:
        """One message event; raising leaves it unconfirmed (the platform sends it again)."""
        try:
            await self._receive_message(event)
        except OSError:  # no connection, no disk: worth the platform's retry
            raise
        except Exception:  # a bug must not block the event forever
            log.exception("Feishu: handling a message event failed; skipped")

    async def _receive_message(self, event: Any) -> None:
        try:
            received = read_event(event, self._bot_open_id)
        except Malformed as exc:
            log.warning("Feishu: skipping a malformed message event (%s)", exc)
            return
        key = received.message_id
        if self.state.seen(key):
            log.info("Feishu: message %s was handled before (delivered again)", key)
            return
        if received.sender_type != "user" or received.sender_open_id == self._bot_open_id:
            return
        direct = received.chat_type == "p2p"
        if not await admit(self, received.sender, _conversation(received), direct=direct):
            log.info("Feishu: message from %s ignored (not in allowFrom)", received.sender)
            return
        if not self._addressed(received):
            return
        lines, media = await self._attachments(received)
        text = "\n".join(p for p in (received.text, *lines) if p) or "[empty message]"
        metadata = {
            "message_id": key,
            "chat_id": received.chat_id,
            "chat_type": received.chat_type,
            "open_id": received.sender_open_id,
            "is_group": received.chat_type != "p2p",
            "thread_id": received.thread_id or None,
            "root_id": received.root_id or None,
            "parent_id": received.parent_id or None,
        }
        _remember(self._inbound, key, received)
        published = await self.publish(
            received.sender,
            _conversation(received),
            text,
            media=media,
            metadata=metadata,
            message_id=key,
            journal=True,  # confirmed to the platform when this returns
            seen=[key],
            session_key=self._session_key(received),
        )
        if published and self.config.react_emoji:
            task = self.owner.try_spawn(
                self._react(key, self.config.react_emoji), name="feishu-react"
            )
            if task is not None:
                self._reacting[key] = task
                task.add_done_callback(lambda _: self._reacting.pop(key, None))

    async def _attachments(self, received: Received) -> tuple[list[str], list[str]]:
        """``[image: path]`` / ``[file: path]`` lines and the image paths for the model."""
        api = self._require_api()
        folder = self.media_dir / "feishu"
        lines: list[str] = []
        media: list[str] = []
        wanted = [(key, "", "image") for key in received.images] + received.files
        for key, name, kind in wanted:
            label = "image" if kind == "image" else "file"
            try:
                data = await api.download(received.message_id, key, label)
            except FeishuError as exc:
                log.warning("Feishu: downloading an attachment failed: %s", redact(exc))
                lines.append(f"[{label}: download failed]")
                continue
            stem = _UNSAFE.sub("_", f"{received.message_id}_{key}")[-80:]
            if kind == "image":
                path = folder / f"{stem}{_image_suffix(data)}"
            else:
                path = folder / f"{stem}_{_UNSAFE.sub('_', name)[-60:]}"
            await asyncio.to_thread(_write, path, data)
            lines.append(f"[{label}: {path}]")
            if kind == "image":
                media.append(str(path))
        return lines, media

    # -- working indicator ------------------------------------------------------------------
    async def _react(self, message_id: str, emoji: str) -> None:
        api = self._api
        if api is None:
            return
        try:
            reaction = await api.react(message_id, emoji)
        except (FeishuError, ConnectionError) as exc:
            log.debug("Feishu: reaction failed: %s", redact(exc))
            return
        if reaction:
            _remember(self._reactions, message_id, reaction)

    async def _finish(self, message_id: str) -> None:
        pending = self._reacting.get(message_id)
        if pending is not None:  # a quick turn: its reaction may still be on its way
            await asyncio.wait({pending})
        api = self._api
        reaction = self._reactions.pop(message_id, None)
        if api is None:
            return
        try:
            if reaction:
                await api.unreact(message_id, reaction)
            if self.config.done_emoji:
                await api.react(message_id, self.config.done_emoji)
        except (FeishuError, ConnectionError) as exc:
            log.debug("Feishu: updating the reaction failed: %s", redact(exc))

    async def on_event(self, event: RunEvent) -> None:
        """The working reaction goes when the turn that answers the message ends."""
        if isinstance(event, TurnStarted):
            if event.channel == self.name and event.request_id:
                _remember(self._turns, event.turn_id, event.request_id)
        elif isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            message_id = self._turns.get(event.turn_id)  # kept: its answer is sent after
            known = message_id in self._reactions or message_id in self._reacting
            if message_id and (known or self.config.done_emoji):
                self.spawn(self._finish(message_id), name="feishu-unreact")

    # -- sending --------------------------------------------------------------------------
    def _require_api(self) -> OpenApi:
        if self._api is None:
            raise ConnectionError("Feishu is not connected")
        return self._api

    def _target(self, message: OutboundMessage) -> tuple[str | None, bool]:
        """The message to reply to (``None``: a new message) and whether in its thread."""
        meta = message.metadata
        request = str(meta.get("request_id") or "")
        if not request and meta.get("turn_id"):
            request = self._turns.get(str(meta["turn_id"]), "")
        if message.reply_to:
            request = str(message.reply_to)
        received = self._inbound.get(request) if request else None
        if received is None or _conversation(received) != message.chat_id:
            return None, False
        if received.thread_id and self.config.topic_isolation:
            return received.message_id, True
        if self.config.reply_to_message and not meta.get("progress") and not meta.get("reminder"):
            return received.message_id, False
        return None, False

    def _steps(self, message: OutboundMessage) -> list[tuple[str, Any]]:
        steps: list[tuple[str, Any]] = [("file", Path(path)) for path in message.media]
        if not message.content.strip():
            return steps
        if message.metadata.get("tool_hint"):
            prefix = self.config.tool_hint_prefix or ""
            text = f"{prefix} {message.content}".strip() if prefix else message.content
            parts = cards.split_markdown(text, cards.TEXT_LIMIT)
            steps.extend(("text", {"text": part}) for part in parts)
        else:
            steps.extend(("interactive", body) for body in cards.markdown_cards(message.content))
        return steps

    async def pieces(self, message: OutboundMessage) -> list[tuple[str, Any]]:
        """Attachments, then the text as cards (a tool hint: plain text)."""
        return self._steps(message)

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One message; its ``uuid`` comes from the delivery, so Feishu keeps one copy of a
        piece sent again (a retry, or after a restart within Feishu's hour)."""
        api = self._require_api()
        message = delivery.message
        kind, body = piece
        if kind == "file":
            sent = await self._file_step(api, body)
            if sent is None:
                return
            kind, body = sent
        reply_to, in_thread = self._target(message)
        await api.send(
            message.chat_id,
            kind,
            cards.content(body),
            uuid=f"{delivery.id[:24]}-{index}",
            reply_to=reply_to if (index == 0 or in_thread) else None,
            in_thread=in_thread,
        )

    async def _file_step(self, api: OpenApi, path: Path) -> tuple[str, dict[str, Any]] | None:
        if not await asyncio.to_thread(path.is_file):
            log.warning("Feishu: attachment %s not sent: no such file", path.name)
            return None
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return "image", {"image_key": await api.upload_image(path)}
        return "file", {"file_key": await api.upload_file(path)}

    async def send_card(self, chat_id: str, body: dict[str, Any]) -> str:
        """An approval question (a card); returns its message id."""
        api = self._require_api()
        return await api.send(
            chat_id, "interactive", cards.content(body), uuid=uuid.uuid4().hex[:32]
        )

    async def update_card(self, message_id: str, body: dict[str, Any]) -> None:
        """Replace an approval question's card (best effort)."""
        api = self._api
        if api is None or not message_id:
            return
        try:
            await api.patch_card(message_id, cards.content(body))
        except (FeishuError, ConnectionError) as exc:
            log.info("Feishu: updating an approval card failed: %s", redact(exc))


def _conversation(received: Received) -> str:
    """nanobot's chat id: the group's chat id, or in a direct chat the person's open id."""
    return received.chat_id if received.chat_type != "p2p" else received.sender_open_id


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
