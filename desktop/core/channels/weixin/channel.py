"""The Weixin channel: a personal WeChat account as a bot, through the iLink bot HTTP API.

Logging in. Without a bot token (typed in Settings, or saved by an earlier login in nanobot's
``account.json``, :mod:`~desktop.core.channels.weixin.account`), the channel asks for a QR code
(``ilink/bot/get_bot_qrcode``) and waits for it to be scanned with WeChat
(``ilink/bot/get_qrcode_status``: ``wait``, ``scaned``, ``scaned_but_redirect`` to another
host, ``expired`` for a new code, ``confirmed`` with ``bot_token`` and ``baseurl``). Meanwhile
its status carries the code (Settings draws it); ``nanobot-desktop channels login weixin``
draws it in the terminal. The token is saved where nanobot keeps it, so one login serves both.

Receiving. ``ilink/bot/getupdates`` is a long poll with a cursor (``get_updates_buf``): each
answer carries the messages since the cursor and the next cursor. Each message is handed to
the agent (kept in the channel's journal until saved) before the cursor is saved, and its id is
remembered once handled, so nothing is lost and none answered twice. A message carries a
``context_token`` that a reply to that person must carry; the last one per person is kept.
A stranger (not in ``allowFrom``, not paired) writing directly is answered with a pairing code
(:mod:`~desktop.core.channels.pairing.gate`; as in nanobot 0.3.5, not in a group chat, nor
without a context token); nothing of the message reaches the agent. Text and voice transcripts
are read; pictures, files, videos and voice messages without a transcript are downloaded
from WeChat's CDN and decrypted into ``<media>/weixin``
(:mod:`~desktop.core.channels.weixin.media`).

Sending. ``ilink/bot/sendmessage`` with the person's last ``context_token``; Markdown is cleaned
of what WeChat shows badly (angle brackets outside code become full-width, images and
strike-through go) and split under :data:`MAX_CHARS`, code fences closed and reopened across
pieces. Each piece's ``client_id`` comes from the delivery, so a piece sent again is the same
message. Files are encrypted and uploaded to the CDN, then sent as picture, video, voice or file
messages. While the agent works, the person sees "typing" (``getconfig`` for the ticket,
``sendtyping``).

An expired login (error -14) stops the channel as unavailable: log in again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import aiohttp

from desktop.core.bus.events import (
    OutboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, split_message
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import admit
from desktop.core.channels.weixin import account, media
from desktop.core.channels.weixin.api import IlinkApi, IlinkError, LoginExpired
from desktop.core.config.channels.weixin import WeixinConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact, register_secret

log = logging.getLogger(__name__)

MAX_CHARS = 1800  # what nanobot sends per message
MAX_STRANGERS = 1000  # context tokens kept for pairing-code replies
SETTINGS = Phrase(QT_TR_NOOP("Settings → Channels → WeChat"))
LOGIN_HINT = QT_TR_NOOP(
    "Run `nanobot-desktop channels login weixin`, or enable the channel and scan the code in Settings."
)
NOT_LOGGED_IN = QT_TR_NOOP("WeChat is not logged in yet")
QR_REFRESHES = 3
QR_POLL_S = 1.0
RETRY_S = 2.0
TYPING, TYPING_DONE = 1, 2
ITEM_TEXT, ITEM_IMAGE, ITEM_VOICE, ITEM_FILE, ITEM_VIDEO = 1, 2, 3, 4, 5
BOT_MESSAGE, FINISHED = 2, 2
_CODE = re.compile(r"(```[\s\S]*?```|`[^`\n]*`)")


def clean_markdown(text: str) -> str:
    """Markdown as WeChat shows it well: outside code, ``<``/``>`` become full-width (WeChat
    hides what follows a bare one), images and ``~~`` go, ``#####`` headings become text."""
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):
        part = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", parts[i])
        part = part.replace("<", "＜").replace(">", "＞").replace("~~", "")
        parts[i] = re.sub(r"(?m)^#{5,6}\s+", "", part)
    return "".join(parts)


def split_markdown(text: str, limit: int = MAX_CHARS) -> list[str]:
    """``text`` cleaned and split under ``limit``; a code fence cut between two pieces is
    closed at the end of one and opened again at the start of the next."""
    pieces: list[str] = []
    open_fence = False
    for raw in split_message(clean_markdown(text).strip(), limit - 8):
        piece = ("```\n" + raw) if open_fence else raw
        if raw.count("```") % 2:
            open_fence = not open_fence
        pieces.append(piece + "\n```" if open_fence else piece)
    return pieces


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


MEDIA_ITEMS = {ITEM_IMAGE: ("image_item", "image"), ITEM_FILE: ("file_item", "file"),
               ITEM_VIDEO: ("video_item", "video"), ITEM_VOICE: ("voice_item", "voice")}  # fmt: skip
EXTENSIONS = {"image": ".jpg", "video": ".mp4", "voice": ".silk", "file": ""}


async def read_items(
    items: Any, message_id: str, cdn_base_url: str, folder: Path
) -> tuple[str, list[str]]:
    """The text of a message's ``item_list`` and the files it brought (downloaded into
    ``folder``; one that cannot be is named in the text)."""
    lines: list[str] = []
    saved: list[str] = []
    for number, item in enumerate(items if isinstance(items, list) else ()):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == ITEM_TEXT:
            text = _text((item.get("text_item") or {}).get("text"))
            if text:
                lines.append(text)
            continue
        if not isinstance(kind, int) or kind not in MEDIA_ITEMS:
            continue
        field, label = MEDIA_ITEMS[kind]
        found = item.get(field)
        inner: dict[str, Any] = found if isinstance(found, dict) else {}
        said = _text(inner.get("text"))
        if label == "voice" and said:
            lines.append(f"[voice] {said}")
            continue
        name = _text(inner.get("file_name"))
        fallback = f"{label}_{message_id}_{number}{EXTENSIONS[label]}"
        if not media.sources(inner, cdn_base_url):
            lines.append(f"[{label}: {name}]" if name else f"[{label}]")
            continue
        try:
            path = await media.download(
                inner, label, media.safe_name(name, fallback), cdn_base_url, folder
            )
        except (ValueError, aiohttp.ClientError, TimeoutError, OSError) as exc:
            log.warning("weixin: downloading a %s failed: %s", label, redact(exc))
            lines.append(f"[{label}: {name + ': ' if name else ''}download failed]")
            continue
        saved.append(str(path))
        lines.append(f"[{label}: {path}]")
    return "\n".join(lines), saved


LoginShown = Callable[[str], None]


class WeixinChannel(BaseChannel[WeixinConfig]):
    """A WeChat account (chat id: the person's ``from_user_id``)."""

    name: ClassVar[str] = "weixin"
    display_name: ClassVar[str] = "WeChat"

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        register_secret(self.config.token or None)
        self.folder = account.account_dir(self.config.state_dir, self.state.path.parent.parent)
        self._api: IlinkApi | None = None
        self._context: dict[str, str] = {}
        self._strangers: dict[str, str] = {}  # person not let in → context token (pairing)
        self._tickets: dict[str, str] = {}
        self._typing: dict[str, str] = {}  # turn id → person

    # -- account ---------------------------------------------------------------------------
    async def _load(self) -> dict[str, Any]:
        saved = await asyncio.to_thread(account.load, self.folder)
        context = saved.get("context_tokens")
        if isinstance(context, dict):
            self._context = {str(k): str(v) for k, v in context.items() if k and v}
        register_secret(_text(saved.get("token")) or None)
        return saved

    def _client(self, saved: dict[str, Any]) -> IlinkApi:
        token = (self.config.token or "").strip() or _text(saved.get("token"))
        base = _text(saved.get("base_url")) if not self.config.token else ""
        tag = self.config.route_tag
        return IlinkApi(
            base or self.config.base_url, token, "" if tag is None else str(tag).strip()
        )

    async def _save(self, **values: Any) -> None:
        await asyncio.to_thread(account.save, self.folder, **values)

    # -- login -----------------------------------------------------------------------------
    async def login(self, shown: LoginShown) -> bool:
        """Log in by QR code unless a token is there; ``shown`` gets each code to scan.

        A saved token is tried first; one WeChat refuses as expired is replaced by a new login.

        Returns:
            Whether a new login was made (``False``: a working one was there already).

        Raises:
            ChannelUnavailable: The login failed or its codes kept expiring.
        """
        saved = await self._load()
        api = self._client(saved)
        try:
            if api.token:
                try:
                    await api.call("ilink/bot/getconfig", {"ilink_user_id": ""})
                    return False
                except LoginExpired:
                    if (self.config.token or "").strip():
                        raise ChannelUnavailable(
                            QT_TR_NOOP("The WeChat bot token typed in Settings has expired."),
                            Phrase(
                                QT_TR_NOOP("Clear it in {settings}, then log in again."),
                                settings=SETTINGS,
                            ),
                        ) from None
                    api.token = ""
            await self._scan(api, shown)
            return True
        finally:
            await api.close()

    async def _scan(self, api: IlinkApi, shown: LoginShown) -> None:
        """Show codes until one is confirmed; save the token (nanobot's account.json)."""
        for _ in range(QR_REFRESHES + 1):
            issued = await api.call("ilink/bot/get_bot_qrcode?bot_type=3", {"local_token_list": []})
            code = _text(issued.get("qrcode"))
            if not code:
                raise ConnectionError(Phrase(QT_TR_NOOP("WeChat gave no QR code")))
            shown(_text(issued.get("qrcode_img_content")) or code)
            host = ""
            while True:
                answer = await api.call(
                    "ilink/bot/get_qrcode_status", None, params={"qrcode": code}, base_url=host,
                    timeout=60,
                )  # fmt: skip
                status = _text(answer.get("status"))
                if status == "confirmed":
                    token = _text(answer.get("bot_token"))
                    if not token:
                        raise ChannelUnavailable(
                            QT_TR_NOOP("WeChat confirmed the scan but gave no token.")
                        )
                    register_secret(token)
                    base = _text(answer.get("baseurl")) or api.base_url
                    await self._save(
                        token=token,
                        base_url=base,
                        get_updates_buf="",
                        ilink_bot_id=_text(answer.get("ilink_bot_id")),
                    )
                    api.token, api.base_url = token, base.rstrip("/")
                    log.info("weixin: logged in as %s", _text(answer.get("ilink_bot_id")))
                    return
                if status == "expired":
                    break
                if status == "scaned_but_redirect":
                    redirect = _text(answer.get("redirect_host")).strip()
                    if redirect:
                        host = redirect if "://" in redirect else f"https://{redirect}"
                await asyncio.sleep(QR_POLL_S)
        raise ChannelUnavailable(QT_TR_NOOP("The WeChat QR codes expired unscanned."), LOGIN_HINT)

    # -- running ---------------------------------------------------------------------------
    async def run(self) -> None:
        """Log in if needed, then long-poll for messages until stopped (a failure raises)."""
        saved = await self._load()
        api = self._client(saved)
        self._api = api
        try:
            if not api.token:
                await self._scan(
                    api,
                    lambda code: self.set_status(
                        ChannelStatus("connecting", NOT_LOGGED_IN, LOGIN_HINT, login_code=code)
                    ),
                )
                saved = await self._load()
            self.set_status(ChannelStatus("connected", account=self._account_name(saved)))
            await self.replay_journal()
            cursor = _text(saved.get("get_updates_buf"))
            while not self.stopping:
                cursor = await self._poll(api, cursor)
        except LoginExpired:
            raise ChannelUnavailable(
                QT_TR_NOOP("The WeChat login has expired."), LOGIN_HINT
            ) from None
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ConnectionError(
                Phrase(QT_TR_NOOP("WeChat's API did not answer: {error}"), error=redact(exc))
            ) from None
        finally:
            self._api = None
            await api.close()

    def _account_name(self, saved: dict[str, Any]) -> str:
        return _text(saved.get("ilink_bot_id")) or "WeChat"

    async def _poll(self, api: IlinkApi, cursor: str) -> str:
        """One long poll: hand over what arrived, then save the new cursor."""
        answer = await api.call(
            "ilink/bot/getupdates",
            {"get_updates_buf": cursor},
            timeout=self.config.poll_timeout + 10,
        )
        messages = answer.get("msgs")
        for message in messages if isinstance(messages, list) else ():
            try:
                await self._on_message(message)
            except (ConnectionError, ChannelUnavailable):
                raise
            except Exception:
                log.exception("weixin: skipping a message that could not be handled")
        new = _text(answer.get("get_updates_buf"))
        if new and new != cursor:
            await self._save(get_updates_buf=new)
            return new
        return cursor

    async def _on_message(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("message_type") == BOT_MESSAGE:
            return
        sender = _text(message.get("from_user_id"))
        if not sender:
            return
        message_id = str(message.get("message_id") or message.get("seq") or "")
        message_id = message_id or f"{sender}_{message.get('create_time_ms', '')}"
        if self.state.seen(message_id):
            return
        context = _text(message.get("context_token"))
        if not self.is_allowed(sender):
            # A stranger's direct message gets a pairing code (0.3.5: not a group's, and not
            # without the context token its reply must carry); the token is kept in memory.
            direct = bool(context) and not sender.endswith("@chatroom")
            if direct:
                self._strangers.pop(sender, None)
                self._strangers[sender] = context
                while len(self._strangers) > MAX_STRANGERS:  # the oldest go first
                    del self._strangers[next(iter(self._strangers))]
            if not await admit(self, sender, sender, direct=direct):
                log.info("weixin: message from %s ignored (not in allowFrom)", sender)
                await asyncio.to_thread(self.state.update, seen=[message_id])
                return
        if context and self._context.get(sender) != context:
            self._context[sender] = context
            await self._save(context_tokens=dict(self._context))
        content, files = await read_items(
            message.get("item_list"),
            message_id,
            self.config.cdn_base_url,
            self.media_dir / "weixin",
        )
        if not content:
            await asyncio.to_thread(self.state.update, seen=[message_id])
            return
        await self.publish(
            sender,
            sender,
            content,
            media=files,
            metadata={"message_id": message_id},
            message_id=message_id,
            journal=True,
            seen=[message_id],
        )

    # -- typing ----------------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """Show "typing" to the person while a turn of theirs runs (best effort)."""
        if isinstance(event, TurnStarted) and event.chat_id in self._context:
            self._typing[event.turn_id] = event.chat_id
            await self._send_typing(event.chat_id, TYPING)
        elif isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            person = self._typing.pop(event.turn_id, "")
            if person:
                await self._send_typing(person, TYPING_DONE)

    async def _send_typing(self, person: str, status: int) -> None:
        api = self._api
        if api is None:
            return
        try:
            ticket = self._tickets.get(person)
            if ticket is None:
                found = await api.call(
                    "ilink/bot/getconfig",
                    {"ilink_user_id": person, "context_token": self._context.get(person)},
                )
                ticket = self._tickets[person] = _text(found.get("typing_ticket"))
            if ticket:
                await api.call(
                    "ilink/bot/sendtyping",
                    {"ilink_user_id": person, "typing_ticket": ticket, "status": status},
                )
        except (IlinkError, aiohttp.ClientError, TimeoutError) as exc:
            log.debug("weixin: typing for %s failed: %s", person, redact(exc))

    # -- sending ---------------------------------------------------------------------------
    async def pieces(self, message: OutboundMessage) -> list[tuple[str, str]]:
        """The text, cleaned for WeChat and split, then each file."""
        text = message.content.strip()
        out = [("text", piece) for piece in split_markdown(text)] if text else []
        out.extend(("file", path) for path in message.media if path.strip())
        return out

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """Send one piece with the person's context token (same ``client_id`` when resent);
        a file is uploaded to the CDN first (:func:`~desktop.core.channels.weixin.media.upload`)."""
        api = self._api
        if api is None:
            raise ConnectionError(Phrase(QT_TR_NOOP("WeChat is not connected")))
        kind, value = piece
        person = delivery.message.chat_id
        digest = hashlib.sha256(f"{delivery.id}:{index}".encode()).hexdigest()
        item: dict[str, Any] = {"type": ITEM_TEXT, "text_item": {"text": value}}
        if kind == "file":
            try:
                item = await media.upload(
                    api, Path(value), person, digest[:32], self.config.cdn_base_url
                )
            except (OSError, ValueError) as exc:
                log.warning("weixin: cannot send %s: %s", Path(value).name, redact(exc))
                item = {"type": ITEM_TEXT, "text_item": {"text": f"[file: {Path(value).name}]"}}
        body: dict[str, Any] = {
            "from_user_id": "",
            "to_user_id": person,
            "client_id": f"nanobot-{digest[:20]}",
            "message_type": BOT_MESSAGE,
            "message_state": FINISHED,
            "item_list": [item],
        }
        context = self._context.get(person) or self._strangers.get(person)
        if context:
            body["context_token"] = context
        try:
            await api.call("ilink/bot/sendmessage", {"msg": body})
        except LoginExpired:
            raise ChannelUnavailable(
                QT_TR_NOOP("The WeChat login has expired."), LOGIN_HINT
            ) from None

    async def check(self) -> str:
        """Settings → "Test": one cheap call with the saved or typed token (only an expired
        login fails it)."""
        saved = await self._load()
        api = self._client(saved)
        try:
            if not api.token:
                raise ValueError(
                    Phrase(QT_TR_NOOP("Not logged in yet: {hint}"), hint=Phrase(LOGIN_HINT))
                )
            await api.call("ilink/bot/getconfig", {"ilink_user_id": ""}, timeout=15)
        except LoginExpired:
            raise ValueError(
                Phrase(QT_TR_NOOP("The WeChat login has expired. {hint}"), hint=Phrase(LOGIN_HINT))
            ) from None
        except IlinkError as exc:  # the token was taken; only the call's argument refused
            log.debug("weixin: the connection test's call was refused: %s", exc)
        finally:
            await api.close()
        return Phrase(QT_TR_NOOP("Logged in ({account})"), account=self._account_name(saved))
