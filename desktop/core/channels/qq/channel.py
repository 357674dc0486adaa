"""The QQ channel: a QQ Open Platform bot (qq-botpy for the API, the gateway driven here).

Receiving. Private (C2C) messages, group messages that @-mention the bot and guild direct
messages arrive over the WebSocket gateway (:mod:`~desktop.core.channels.qq.gateway`). Each
is handled in order: checked against ``allowFrom``, its attachments saved, then kept in the
channel's journal and handed to the agent (``journal=True``). Only then does the gateway
count its sequence number as received, so a resumed connection gets again what was not yet
handled; the session id and sequence are saved, so a restarted app resumes too (QQ sends what
it missed while the session is still fresh). Message ids already handled, or still with the
agent, are skipped: nothing is answered twice. A malformed event is logged and skipped.

Sending. QQ answers are *passive replies*: they name the message they answer (``msg_id``)
and number the replies to it (``msg_seq``: QQ refuses a second reply with the same pair, and
says so). Every piece of an answer gets its own number, kept with the answer's delivery
(:mod:`~desktop.core.channels.outbox`), so a piece sent again reuses its number (one that did
arrive is recognised by QQ's "duplicate" answer and not shown twice), also after a restart,
and the numbers spent per message are saved, so a restart does not reuse them. Reminders are active
messages (no ``msg_id``), and so are replies QQ would refuse: after its reply window (60
minutes in private chats, 5 in groups) or beyond four replies to one message. Text is plain
or QQ markdown (``msgFormat``), split under :data:`MESSAGE_LIMIT` characters; images are
uploaded (base64) and sent as rich media.

Approvals are asked in the chat and answered with a reply keyword (QQ's message keyboards
need a template approved by the platform, so buttons are not used).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.bus.events import OutboundMessage, RunEvent, TurnStarted
from desktop.core.channels.approvals import parse_answer
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, split_message
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.channels.qq.client import CredentialsRefused, QQApi, is_duplicate
from desktop.core.channels.qq.gateway import Dispatch, Gateway, Session
from desktop.core.channels.qq.inbound import (
    IMAGE_SUFFIXES,
    Incoming,
    Malformed,
    describe,
    download,
    parse,
)
from desktop.core.channels.render import plain_text
from desktop.core.config.channels.qq import QQConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

MESSAGE_LIMIT = 2000
"""Characters per message (QQ documents no exact limit; long texts are refused)."""
PASSIVE_REPLIES = 4
"""Passive replies QQ takes per message; later pieces go as new (active) messages."""
REMEMBERED = 500  # turns, reply numbers and half-sent answers kept (oldest forgotten first)
SETUP_HINT = QT_TR_NOOP(
    "Enter the bot's AppID and AppSecret (q.qq.com → Development) in Settings → Channels → QQ."
)


def _remember(store: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    store[key] = value
    store.move_to_end(key)
    while len(store) > REMEMBERED:
        store.popitem(last=False)


class QQChannel(BaseChannel[QQConfig]):
    """A QQ bot (see the module docstring)."""

    name: ClassVar[str] = "qq"
    display_name: ClassVar[str] = "QQ"
    secret_fields: ClassVar[tuple[str, ...]] = ("secret",)
    passive_window_s: ClassVar[dict[str, float]] = {"c2c": 3600.0, "group": 300.0, "dm": 300.0}
    """How long QQ takes passive replies to a message (private: 60 min, groups: 5 min)."""
    media_hosts: ClassVar[tuple[str, ...]] = ("qq.com", "qpic.cn", "qq.com.cn")
    """Hosts attachments are downloaded from (QQ's media servers)."""

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._api: QQApi | None = None
        self._connected = False
        self._account = ""
        self._turns: OrderedDict[str, str] = OrderedDict()  # turn → the msg_id it answers
        self._latest: dict[str, str] = {}  # chat → the msg_id of its latest message
        self._received: OrderedDict[str, tuple[str, float]] = OrderedDict()  # msg_id → kind, when
        chats = self.state.get("chats", {})
        self._chats: dict[str, str] = dict(chats) if isinstance(chats, dict) else {}
        seqs = self.state.get("seqs", {})
        self._seqs: OrderedDict[str, int] = OrderedDict(
            (str(k), int(v))
            for k, v in (seqs.items() if isinstance(seqs, dict) else ())
            if isinstance(v, int)
        )

    # -- connection -----------------------------------------------------------------------
    def _make_api(self) -> QQApi:
        app_id = (self.config.app_id or "").strip()
        secret = (self.config.secret or "").strip()
        if not app_id or not secret:
            raise ChannelUnavailable(
                QT_TR_NOOP("The QQ bot's AppID or AppSecret is not set."), SETUP_HINT
            )
        return QQApi(app_id, secret)

    async def _login(self, api: QQApi) -> dict[str, Any]:
        try:
            return await api.login()
        except CredentialsRefused as exc:
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("QQ did not accept the AppID and AppSecret ({error})."),
                    error=str(exc),
                ),
                SETUP_HINT,
            ) from None

    async def run(self) -> None:
        """Connect, then receive until stopped (a lost connection raises)."""
        if self._api is None:
            self._api = self._make_api()
        api = self._api
        me = await self._login(api)
        self._account = str(me.get("username") or me.get("id") or "")
        url = await api.gateway_url()
        saved = self.state.get("gateway", {})
        saved = saved if isinstance(saved, dict) else {}
        session = Session(str(saved.get("session_id") or ""), int(saved.get("seq") or 0))

        async def token() -> str:
            await api.token.check_token()
            return str(api.token.get_string())

        gateway = Gateway(url, token, session, self._on_dispatch, self._on_ready, self._save)
        try:
            await gateway.run()
        finally:
            self._connected = False

    async def _on_ready(self, data: dict[str, Any] | None) -> None:
        user = (data or {}).get("user")
        if isinstance(user, dict) and user.get("username"):
            self._account = str(user["username"])
        self._connected = True
        self.set_status(ChannelStatus("connected", account=self._account))
        await self.replay_journal()

    async def _save(self, session: Session) -> None:
        gateway = {"session_id": session.session_id, "seq": session.seq}
        await asyncio.to_thread(self.state.update, gateway=gateway)

    async def stop(self) -> None:
        """Stop receiving, end background sends, close the connection pool."""
        await super().stop()
        api, self._api = self._api, None
        if api is not None:
            try:
                await api.close()
            except Exception as exc:  # noqa: BLE001 - stopping must go on
                log.debug("closing the QQ connection failed: %s", redact(exc))

    async def check(self) -> str:
        """Settings → "Test": the access token and ``/users/@me`` with these settings."""
        api = self._make_api()
        try:
            me = await api.login()
        except CredentialsRefused as exc:
            raise ValueError(
                Phrase(
                    QT_TR_NOOP("QQ did not accept the AppID and AppSecret ({error})."),
                    error=str(exc),
                )
            ) from None
        finally:
            await api.close()
        return Phrase(
            QT_TR_NOOP("Connected as {account}"), account=str(me.get("username") or me.get("id"))
        )

    # -- receiving ------------------------------------------------------------------------
    async def _on_dispatch(self, dispatch: Dispatch) -> None:
        try:
            incoming = parse(dispatch.event, dispatch.data)
        except Malformed as exc:
            log.warning("QQ: skipping a malformed event (%s)", exc)
            return
        if incoming is None:
            return
        msg_id = incoming.msg_id
        journal = self.journal
        if self.state.seen(msg_id) or msg_id in journal or msg_id in journal.in_flight:
            log.info("QQ: message %s was handled before; skipped", msg_id)
            return
        if self._chats.get(incoming.chat_id) != incoming.kind:
            self._chats[incoming.chat_id] = incoming.kind
            await asyncio.to_thread(self.state.update, chats=dict(self._chats))
        direct = incoming.kind != "group"
        if not await admit(self, incoming.sender, incoming.chat_id, direct=direct):
            log.info("QQ: message from %s ignored (not in allowFrom)", incoming.sender)
            await asyncio.to_thread(self.state.update, seen=[msg_id])
            return
        self._latest[incoming.chat_id] = msg_id
        _remember(self._received, msg_id, (incoming.kind, time.monotonic()))
        await self._publish(incoming)

    async def _publish(self, incoming: Incoming) -> None:
        media_dir = self.config.media_dir
        folder = Path(media_dir).expanduser() if media_dir else None  # noqa: ASYNC240  # expanduser reads $HOME, not the disk
        saved = []
        for attachment in incoming.attachments:
            path = await download(
                attachment,
                folder or self.media_dir,
                hosts=self.media_hosts,
                max_bytes=self.config.download_max_bytes,
                chunk_size=self.config.download_chunk_size,
            )
            saved.append((attachment, path))
        content = describe(incoming.text, saved)
        if not content:
            return
        answer = bool(self.approvals.pending(incoming.chat_id)) and (
            parse_answer(incoming.text) is not None
        )
        published = await self.publish(
            incoming.sender,
            incoming.chat_id,
            content,
            media=[str(p) for _, p in saved if p is not None],
            metadata={"message_id": incoming.msg_id, "chat_type": incoming.kind},
            message_id=incoming.msg_id,
            journal=True,  # the gateway's sequence moves on before the agent has it safe
            seen=[incoming.msg_id],
        )
        if answer:
            await asyncio.to_thread(self.state.update, seen=[incoming.msg_id])
        elif published and self.config.ack_message:
            seq = await self._next_seq(incoming.msg_id)
            self.spawn(
                self._quietly(
                    incoming.kind, incoming.chat_id, self.config.ack_message, incoming.msg_id, seq
                ),
                name="qq-ack",
            )

    async def _quietly(self, kind: str, chat: str, text: str, msg_id: str, seq: int) -> None:
        try:
            await self._post_text(kind, chat, text, msg_id, seq)
        except Exception as exc:  # noqa: BLE001 - an acknowledgement is best effort
            log.info("QQ: the acknowledgement was not sent: %s", redact(exc))

    # -- run events -----------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """Remember which message a turn answers (its replies name it)."""
        if isinstance(event, TurnStarted) and event.channel == self.name and event.request_id:
            _remember(self._turns, event.turn_id, event.request_id)
            self._latest[event.chat_id] = event.request_id

    # -- sending --------------------------------------------------------------------------
    def _require_api(self) -> QQApi:
        if self._api is None or not self._connected:
            raise ConnectionError("QQ is not connected")
        return self._api

    def _reply_to(self, message: OutboundMessage) -> str | None:
        """The QQ message an answer replies to (``None``: an active message)."""
        meta = message.metadata
        if meta.get("reminder"):
            return None
        if message.reply_to:
            return str(message.reply_to)
        if meta.get("request_id"):
            return str(meta["request_id"])
        turn = self._turns.get(str(meta.get("turn_id") or ""))
        return turn or self._latest.get(message.chat_id)

    async def _next_seq(self, msg_id: str) -> int:
        seq = self._seqs.get(msg_id, 0) + 1
        _remember(self._seqs, msg_id, seq)
        await asyncio.to_thread(self.state.update, seqs=dict(self._seqs))
        return seq

    async def pieces(self, message: OutboundMessage) -> list[str | Path]:
        """Images, then the text in pieces (markdown rendered as plain text unless
        ``msgFormat`` is ``markdown``)."""
        steps: list[str | Path] = [Path(m) for m in message.media]
        markdown = self.config.msg_format == "markdown"
        text = message.content if markdown else plain_text(message.content)  # no "**" shown
        steps += split_message(text, MESSAGE_LIMIT) if text.strip() else []
        return steps

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One message. The message it replies to and its reply number are kept with the
        delivery (saved before the number is used), so a piece sent again, even after a
        restart, carries the same pair and QQ's "duplicate" answer shows it arrived."""
        self._require_api()
        message = delivery.message
        chat = message.chat_id
        kind = self._chats.get(chat, "c2c")
        if "msg_id" not in delivery.keys:
            delivery.keys["msg_id"] = self._reply_to(message)
        found = delivery.keys["msg_id"]
        msg_id = found if isinstance(found, str) and found else None
        seqs = delivery.keys.setdefault("seqs", {})
        if msg_id and str(index) not in seqs:
            seqs[str(index)] = await self._next_seq(msg_id)
            await delivery.save()
        seq = int(seqs.get(str(index), 1))
        if isinstance(piece, Path):
            await self._post_file(kind, chat, piece, msg_id, seq)
        else:
            await self._post_text(kind, chat, piece, msg_id, seq)

    def _text_payload(self, text: str) -> dict[str, Any]:
        if self.config.msg_format == "markdown":
            return {"msg_type": 2, "markdown": {"content": text}}
        return {"msg_type": 0, "content": text}

    async def _post_text(
        self, kind: str, chat: str, text: str, msg_id: str | None, seq: int
    ) -> None:
        await self._post(kind, chat, self._text_payload(text), msg_id, seq)

    async def _post(
        self, kind: str, chat: str, payload: dict[str, Any], msg_id: str | None, seq: int
    ) -> None:
        """One message; QQ's "duplicate" answer counts as delivered."""
        api = self._require_api().api
        if msg_id and not self._passive_ok(msg_id, seq):
            log.info("QQ: the reply window of %s has passed; sending a new message", msg_id)
            msg_id, seq = None, 1
        try:
            await self._call(api, kind, chat, payload, msg_id, seq)
        except Exception as exc:
            if msg_id and is_duplicate(exc):
                log.info("QQ: reply %s/%s was delivered before", msg_id, seq)
                return
            raise

    def _passive_ok(self, msg_id: str, seq: int) -> bool:
        """Whether QQ still takes reply ``seq`` to ``msg_id`` (its reply window and count)."""
        received = self._received.get(msg_id)
        if received is None:
            return seq <= PASSIVE_REPLIES  # from before a restart: its age is unknown
        kind, when = received
        window = self.passive_window_s.get(kind, 300.0)
        return seq <= PASSIVE_REPLIES and time.monotonic() - when < window

    @staticmethod
    async def _call(
        api: Any, kind: str, chat: str, payload: dict[str, Any], msg_id: str | None, seq: int
    ) -> None:
        if kind == "group":
            result = await api.post_group_message(
                group_openid=chat, msg_id=msg_id, msg_seq=seq, **payload
            )
        elif kind == "dm":
            fields = {k: v for k, v in payload.items() if k in ("content", "markdown")}
            result = await api.post_dms(guild_id=chat, msg_id=msg_id, **fields)
        else:
            result = await api.post_c2c_message(openid=chat, msg_id=msg_id, msg_seq=seq, **payload)
        if result is None:
            raise ConnectionError("QQ did not answer in time")

    async def _post_file(
        self, kind: str, chat: str, path: Path, msg_id: str | None, seq: int
    ) -> None:
        """An image as rich media (uploaded as base64); other files as a note."""
        api = self._require_api()
        image = path.suffix.lower() in IMAGE_SUFFIXES
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except OSError as exc:
            log.warning("QQ: attachment %s not sent: %s", path.name, exc)
            return
        if kind == "dm" or not image:
            note = f"[{path.name} not sent: QQ bots can send images only]"
            await self._post_text(kind, chat, note, msg_id, seq)
            return
        target = ("/v2/groups/{group_openid}/files", "group_openid")
        if kind == "c2c":
            target = ("/v2/users/{openid}/files", "openid")
        upload = {
            "file_type": 1,
            "file_data": base64.b64encode(data).decode(),
            "srv_send_msg": False,
        }
        info = await api.request("POST", target[0], upload, **{target[1]: chat})
        if not isinstance(info, dict) or "file_info" not in info:
            raise ConnectionError("QQ did not accept the image upload")
        payload = {"msg_type": 7, "media": {"file_info": info["file_info"]}, "content": " "}
        await self._post(kind, chat, payload, msg_id, seq)
