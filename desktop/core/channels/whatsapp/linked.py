"""The WhatsApp channel as a linked device, through neonize (as nanobot 0.3.5 does it).

neonize wraps whatsmeow (Go) in a shared library; its async client (``neonize.aioze``) runs the
connection in a worker thread (``asyncio.to_thread``) and calls our handlers on the event loop.
The session (the device's keys, WhatsApp's contacts and LID map) lives in one SQLite file,
``whatsapp-auth/neonize.db`` beside the config file unless ``databasePath`` says otherwise: the
same file nanobot 0.3.5 uses, so one linking serves both programs (never both at once: WhatsApp
keeps one connection per linked device).

Status. Connected means WhatsApp accepted the session (``ConnectedEv``). Without a session
neonize offers QR codes: the status then says to scan and carries the code as its
``login_code`` (Settings draws it). A lost connection (``DisconnectedEv``) is reconnected by
whatsmeow itself; answers wait for ``connected``. When neonize's connection ends the run
raises and the manager starts it again.

Receiving. Ids are 0.3.5's (:mod:`~desktop.core.channels.whatsapp.events`): the chat is the
chat's JID (session ``whatsapp:<jid>``), the sender a phone number or a LID. Messages from
before the start, from ourselves and status broadcasts are skipped; in groups with
``groupPolicy: mention`` only messages that mention the linked account or reply to it count.
Attachments are downloaded (after the sender is allowed) into the media folder.

Sending. Markdown becomes WhatsApp markup split under 4,096 characters; files go as image,
video, audio or document messages. Each is a piece of the delivery (WhatsApp takes no
idempotency key from neonize: a piece whose acknowledgement was lost is sent again).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import mimetypes
import re
import secrets
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, SenderShape
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing import gate as pairing
from desktop.core.channels.whatsapp import events as ev
from desktop.core.channels.whatsapp import markup
from desktop.core.channels.whatsapp.login import LoginUpdate
from desktop.core.config.channels.whatsapp import WhatsAppConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

SESSION_FILE = Path("whatsapp-auth") / "neonize.db"
"""Where nanobot 0.3.5 keeps the linked-device session, relative to its config file's folder."""
NOT_LINKED = QT_TR_NOOP("WhatsApp is not linked yet")
SCAN_HINT = QT_TR_NOOP(
    "On your phone open WhatsApp → Settings → Linked devices → Link a device and scan the QR "
    "code (shown in Settings → Channels → WhatsApp and by `nanobot-desktop channels login`)."
)
LOGGED_OUT_HINT = QT_TR_NOOP(
    "Link it again: `nanobot-desktop channels login whatsapp`, or Connect here."
)
INSTALL_HINT = 'pip install "nanobot-desktop[whatsapp]"'
DIRECT_AUDIO = frozenset({"audio/aac", "audio/amr", "audio/mp4", "audio/mpeg"})
"""Audio WhatsApp plays as audio; anything else goes as a document (0.3.5 does the same)."""


@dataclass(frozen=True)
class Neonize:
    """The parts of neonize the channel uses (imported once, off the event loop)."""

    client: Any
    connected: Any
    disconnected: Any
    logged_out: Any
    message: Any
    pair_status: Any
    build_jid: Callable[..., Any]
    proxy: Any


_API: Neonize | None = None


def _import() -> Neonize:
    """neonize's parts (blocking: it loads its Go library).

    On Linux its import leaves an unclosed ``uname -a`` pipe behind; the next subprocess
    start reaps it, with ResourceWarnings. That happens here, where they are hidden, rather
    than somewhere later (one short ``uname`` run).
    """
    global _API
    if _API is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            importlib.import_module("neonize")
            if sys.platform.startswith("linux"):
                gc.collect()
                subprocess.run(["uname"], capture_output=True, check=False)
                gc.collect()
        client = importlib.import_module("neonize.aioze.client")
        events = importlib.import_module("neonize.aioze.events")
        jid = importlib.import_module("neonize.utils.jid")
        binder = importlib.import_module("neonize._binder")
        _API = Neonize(
            client.NewAClient,
            events.ConnectedEv,
            events.DisconnectedEv,
            events.LoggedOutEv,
            events.MessageEv,
            events.PairStatusEv,
            jid.build_jid,
            binder.ProxySettings,
        )
    return _API


def preload() -> None:
    """Import neonize now when it is installed (blocking; the manager imports the channel's
    module in a thread)."""
    with contextlib.suppress(ImportError):
        _import()


async def load_neonize() -> Neonize:
    """neonize (imported in a thread: it loads its Go library).

    Raises:
        ChannelUnavailable: It is not installed.
    """
    try:
        return await asyncio.to_thread(_import)
    except ImportError as exc:
        raise ChannelUnavailable(
            Phrase(
                QT_TR_NOOP("WhatsApp needs neonize, which is not installed ({error})"),
                error=str(exc.name or exc),
            ),
            INSTALL_HINT,
            extra="whatsapp",
        ) from None


class LinkedChannel(BaseChannel[WhatsAppConfig]):
    """WhatsApp as a linked device through neonize (see the module docstring)."""

    name: ClassVar[str] = "whatsapp"
    display_name: ClassVar[str] = "WhatsApp"
    sender_shape: ClassVar[SenderShape] = "id|id"
    stop_timeout: ClassVar[float] = 10.0
    """Seconds neonize's worker has to end after ``stop``."""

    _client: Any = None
    qr: str | None = None
    """The login code neonize last offered (``None`` once linked)."""
    phone: str = ""
    """The linked account's phone number (once connected)."""

    # -- the session ----------------------------------------------------------------------
    def database_path(self) -> Path:
        """The session file: ``databasePath``, else 0.3.5's place beside the config file."""
        configured = (self.config.database_path or "").strip()
        if configured:
            return Path(configured).expanduser()
        return self.state.path.parent.parent / SESSION_FILE

    def _proxy(self, api: Neonize) -> Any:
        proxy = (self.config.proxy or "").strip()
        if not proxy:
            return None
        return api.proxy(proxy_address=proxy if "://" in proxy else f"http://{proxy}")

    async def _open(self, api: Neonize) -> Any:
        path = self.database_path()
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        return api.client(str(path))

    async def _close(self, client: Any, task: asyncio.Future[Any] | None) -> None:
        """Stop neonize's worker and wait for it (it holds the database open)."""
        if task is not None and task.done():
            await asyncio.gather(task, return_exceptions=True)
            return
        with contextlib.suppress(Exception):
            await client.stop()
        if task is not None:
            try:
                async with asyncio.timeout(self.stop_timeout):
                    await asyncio.shield(task)
            except TimeoutError:
                task.cancel()
            except Exception:  # noqa: BLE001 - ending; the run reported its error already
                pass
            await asyncio.gather(task, return_exceptions=True)

    # -- running --------------------------------------------------------------------------
    async def run(self) -> None:
        """Connect with the saved session (or offer QR codes), receive until stopped."""
        api = await load_neonize()
        client = await self._open(api)
        self._client, self._me, self._lids = client, set[str](), self._lid_mappings()
        self._started = time.time()
        self._handlers(client, api)
        task: asyncio.Future[Any] | None = None
        try:
            task = await client.connect(self._proxy(api))
            stopped = asyncio.ensure_future(self.wait_stopped())
            try:
                await asyncio.wait({task, stopped}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                stopped.cancel()
                await asyncio.gather(stopped, return_exceptions=True)
            if task.done() and not self.stopping:
                exc = task.exception()
                raise ConnectionError(
                    f"The WhatsApp connection ended ({redact(exc) if exc else 'closed'})"
                )
        finally:
            self._client = None
            await self._close(client, task)

    async def stop(self) -> None:
        """Stop receiving and disconnect (the run waits for neonize's worker)."""
        await super().stop()
        client = self._client
        if client is not None:
            with contextlib.suppress(Exception):
                await client.stop()

    def _lid_mappings(self) -> dict[str, str]:
        return {
            str(lid).strip(): str(phone).strip()
            for lid, phone in (self.config.lid_mappings or {}).items()
            if str(phone).strip()
        }

    def _handlers(self, client: Any, api: Neonize) -> None:
        async def _qr(_client: Any, data: bytes) -> None:
            self.qr = data.decode("utf-8", "replace")
            log.info("WhatsApp: waiting for the QR code to be scanned")
            self.set_status(ChannelStatus("error", NOT_LINKED, SCAN_HINT, login_code=self.qr))

        client.qr(_qr)

        async def _connected(current: Any, _event: Any) -> None:
            self.qr = None
            await self._remember_me(current)
            self.set_status(ChannelStatus("connected", account=self.phone))
            await self.replay_journal()

        client.event(api.connected)(_connected)

        async def _disconnected(_client: Any, _event: Any) -> None:
            if not self.stopping:
                self.set_status(
                    ChannelStatus(
                        "error",
                        QT_TR_NOOP("The connection to WhatsApp was lost"),
                        QT_TR_NOOP("It reconnects by itself; answers wait until it is back."),
                    )
                )

        client.event(api.disconnected)(_disconnected)

        async def _logged_out(_client: Any, _event: Any) -> None:
            self.set_status(
                ChannelStatus(
                    "error", QT_TR_NOOP("WhatsApp logged this device out"), LOGGED_OUT_HINT
                )
            )

        client.event(api.logged_out)(_logged_out)

        async def _pair(_client: Any, event: Any) -> None:
            if error := str(ev.attr(event, "Error", "") or ""):
                self.set_status(
                    ChannelStatus(
                        "error",
                        Phrase(QT_TR_NOOP("Linking failed: {error}"), error=redact(error)),
                        SCAN_HINT,
                    )
                )

        client.event(api.pair_status)(_pair)

        async def _message(current: Any, event: Any) -> None:
            try:
                await self._on_message(current, event)
            except Exception:
                log.exception("WhatsApp: handling a message failed; skipped")

        client.event(api.message)(_message)

    async def _remember_me(self, client: Any) -> None:
        device = ev.attr(client, "me")
        if device is None:
            with contextlib.suppress(Exception):
                device = await client.get_me()
        for name in ("JID", "LID"):
            if jid := ev.jid_text(ev.attr(device, name)):
                self._me.update((jid, ev.bare(jid)))
        self.phone = ev.bare(ev.attr(device, "JID")) or self.phone

    # -- receiving ------------------------------------------------------------------------
    async def _on_message(self, client: Any, event: Any) -> None:
        info, message = ev.attr(event, "Info"), ev.attr(event, "Message")
        source = ev.attr(info, "MessageSource")
        if message is None or source is None or ev.attr(source, "IsFromMe", False):
            return
        chat = ev.jid_text(ev.attr(source, "Chat"))
        if not chat or chat == "status@broadcast":
            return
        stamp = float(ev.attr(info, "Timestamp", 0) or 0)
        if stamp and stamp < self._started:
            return  # history WhatsApp syncs after linking: not for the agent
        group = bool(ev.attr(source, "IsGroup", False))
        if group and self.config.group_policy == "mention" and not ev.addresses(message, self._me):
            return
        message_id = str(ev.attr(info, "ID", "") or "")
        key = f"{chat}:{message_id}" if message_id else ""
        if key and self.state.seen(key):
            return
        participant = ev.jid_text(ev.attr(source, "Sender"))
        alt = ev.jid_text(ev.attr(source, "SenderAlt"))
        phone, lid = ev.phone_and_lid([alt, participant, *([] if group else [chat])])
        if phone and lid:
            self._lids[lid] = phone
        sender = phone or self._lids.get(lid, "") or lid
        if not sender:
            log.warning("WhatsApp: a message without a sender; skipped")
            return
        text = ev.text_of(message)
        media: list[str] = []
        attachment = ev.attachment_of(message)
        if attachment is not None and await self._admits(sender, chat):
            path = await self._download(client, message, message_id, attachment)
            media.append(str(path))
            label = attachment.kind if attachment.kind != "sticker" else "image"
            text = "\n".join(filter(None, [text, f"[{label}: {path}]"]))
        if not text:
            return
        await self.publish(
            sender,
            chat,
            text,
            media=media,
            metadata={
                "message_id": message_id or None,
                "timestamp": int(stamp) if stamp else None,
                "is_group": group,
                "participant": participant or None,
                "sender_alt": alt or None,
                "lid": lid or None,
                "phone": phone or None,
            },
            message_id=key or None,
            journal=True,
            seen=[key] if key else [],
        )

    async def _admits(self, sender: str, chat: str) -> bool:
        """Whether an attachment from ``sender`` in ``chat`` is worth downloading (allowed, or
        paired: the pairing file is read again first, for a sender approved since)."""
        await asyncio.to_thread(pairing.reload, self)
        return self.is_allowed(sender) or self.is_allowed(chat)

    async def _download(
        self, client: Any, message: Any, message_id: str, attachment: ev.Attachment
    ) -> Path:
        path = await asyncio.to_thread(self._media_path, message_id, attachment)
        await client.download_any(message, str(path))
        return path

    def _media_path(self, message_id: str, attachment: ev.Attachment) -> Path:
        """A new file under ``<media>/whatsapp`` (blocking: the folder, the type tables)."""
        folder = self.media_dir / "whatsapp"
        folder.mkdir(parents=True, exist_ok=True)
        suffix = Path(attachment.filename).suffix or mimetypes.guess_extension(attachment.mimetype)
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", message_id or str(int(time.time())))
        return folder / f"wa_{stem}_{secrets.token_hex(4)}{suffix or '.bin'}"

    # -- sending --------------------------------------------------------------------------
    def _steps(self, message: OutboundMessage) -> list[dict[str, Any]]:
        text = markup.to_whatsapp(message.content) if message.content.strip() else ""
        steps: list[dict[str, Any]] = (
            [{"text": part} for part in markup.pieces(text)] if text else []
        )
        for item in message.media:
            path = Path(item).expanduser()
            if not path.is_file():
                log.warning("WhatsApp: %s is not a file; not sent", path.name)
                continue
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            kind = mime.split("/", 1)[0]
            if (kind == "audio" and mime not in DIRECT_AUDIO) or kind not in (
                "image",
                "video",
                "audio",
            ):
                kind = "document"
            steps.append({"file": str(path.resolve()), "kind": kind, "mimetype": mime})
        return steps

    async def pieces(self, message: OutboundMessage) -> list[dict[str, Any]]:
        """Text pieces, then the files (looked at in a thread)."""
        return await asyncio.to_thread(self._steps, message)

    def jid(self, chat: str) -> Any:
        """neonize's JID for a chat id (``user@server``, or a bare phone number)."""
        assert _API is not None, "neonize is loaded by run()"
        match = ev.JID_PATTERN.match(ev.jid_text(chat))
        if match is None:
            return _API.build_jid(chat.strip())
        return _API.build_jid(match.group("user").split(":", 1)[0], match.group("server"))

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One message to WhatsApp, acknowledged by its servers."""
        client = self._client
        if client is None or not self.status.ok:
            raise ConnectionError(self.status.reason or "WhatsApp is not connected")
        to = self.jid(delivery.message.chat_id)
        if "text" in piece:
            await client.send_message(to, piece["text"])
        elif piece["kind"] == "image":
            await client.send_image(to, piece["file"])
        elif piece["kind"] == "video":
            await client.send_video(to, piece["file"])
        elif piece["kind"] == "audio":
            await client.send_audio(to, piece["file"])
        else:
            name = Path(piece["file"]).name
            await client.send_document(to, piece["file"], filename=name, mimetype=piece["mimetype"])

    # -- checks and login -----------------------------------------------------------------
    async def check(self) -> str:
        """Settings → "Test": is a linked-device session saved (and neonize installed)?"""
        await load_neonize()
        path = self.database_path()
        size = await asyncio.to_thread(lambda: path.stat().st_size if path.is_file() else 0)
        if not size:
            raise ValueError(
                Phrase(
                    QT_TR_NOOP("{problem}. {hint}"),
                    problem=Phrase(NOT_LINKED),
                    hint=Phrase(SCAN_HINT),
                )
            )
        if self.phone:
            return Phrase(
                QT_TR_NOOP("Linked as {phone}. A linked-device session is saved in {path}"),
                phone=self.phone,
                path=str(path),
            )
        return Phrase(QT_TR_NOOP("A linked-device session is saved in {path}"), path=str(path))

    async def login(self, on_update: Callable[[LoginUpdate], None], *, quiet: float = 0) -> bool:
        """Link this device (``channels login``): show every QR code neonize offers until
        WhatsApp accepts the session. ``quiet`` is unused (neonize says when it is linked).

        Returns:
            ``True`` when linked now, ``False`` when the saved session was linked already.

        Raises:
            ChannelUnavailable: neonize is missing, or the linking failed.
            ConnectionError: The connection to WhatsApp ended first.
        """
        del quiet
        api = await load_neonize()
        client = await self._open(api)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        shown = False

        def finish(result: bool | BaseException) -> None:
            if not done.done():
                if isinstance(result, BaseException):
                    done.set_exception(result)
                else:
                    done.set_result(result)

        async def _qr(_client: Any, data: bytes) -> None:
            nonlocal shown
            shown = True
            on_update(LoginUpdate("qr", data.decode("utf-8", "replace")))

        client.qr(_qr)

        async def _connected(_client: Any, _event: Any) -> None:
            finish(shown)

        client.event(api.connected)(_connected)

        async def _pair(_client: Any, event: Any) -> None:
            if error := str(ev.attr(event, "Error", "") or ""):
                finish(
                    ChannelUnavailable(
                        Phrase(QT_TR_NOOP("Linking failed: {error}"), error=redact(error)),
                        SCAN_HINT,
                    )
                )

        client.event(api.pair_status)(_pair)

        async def _logged_out(_client: Any, _event: Any) -> None:
            finish(
                ChannelUnavailable(QT_TR_NOOP("WhatsApp logged this device out"), LOGGED_OUT_HINT)
            )

        client.event(api.logged_out)(_logged_out)

        task: asyncio.Future[Any] | None = None
        try:
            task = await client.connect(self._proxy(api))
            await asyncio.wait({task, done}, return_when=asyncio.FIRST_COMPLETED)
            if not done.done():
                exc = task.exception()
                raise ConnectionError(
                    f"The connection to WhatsApp ended ({redact(exc) if exc else 'closed'})"
                )
            return done.result()
        finally:
            await self._close(client, task)
