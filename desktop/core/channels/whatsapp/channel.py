"""The legacy WhatsApp channel: a WebSocket client of the older nanobot's WhatsApp bridge.

Used only when ``bridgeUrl`` is set; otherwise WhatsApp is a linked device through neonize
(:mod:`~desktop.core.channels.whatsapp.linked`), as nanobot 0.3.5 does it.

WhatsApp Web has no Python SDK that nanobot uses: nanobot runs a small Node.js bridge that
links a WhatsApp account (by QR code) and speaks a JSON protocol on a local WebSocket
(:mod:`~desktop.core.channels.whatsapp.protocol`). This channel is that protocol's client,
built on the ``websockets`` library; the bridge itself is started by the person (see
``docs/channels/whatsapp.md``).

Receiving. The bridge pushes every message once and keeps nothing, so there is nothing to
confirm to it: each message is written to the channel's journal before it is handed to the
agent and leaves it when the agent has saved it (then its id is remembered as handled). A
message WhatsApp delivers again after a reconnect is recognised by its id; one the app had
received but not saved when it ended is handed over again after the restart.

Status. Connected means the bridge took the token; the bridge's own events then say whether
WhatsApp is linked: a ``qr`` event means it is not (the status says to scan the code and
carries it as its ``login_code``, which Settings draws; :attr:`WhatsAppChannel.qr` holds it
too), ``status: disconnected`` means the bridge is reconnecting to WhatsApp. In both cases
answers wait (the manager waits for ``connected``).

Login. :meth:`WhatsAppChannel.login` is ``nanobot-desktop channels login``: a second client of
the same bridge that only watches the login (QR codes, then ``connected``) and leaves the
messages to the channel that runs in the app or the gateway. The bridge repeats nothing to a
client that connects later, and says nothing at all while WhatsApp stays linked, so a bridge
that offers no code for a while (longer than the 60 s a first code lives) is linked.

Sending. Markdown answers become WhatsApp markup, split under 4,096 characters
(:mod:`~desktop.core.channels.whatsapp.markup`); files go as ``send_media`` with the text as
their caption when it fits. Commands go one at a time and each waits for the bridge's
``sent`` / ``error``; each is a piece of the answer's delivery
(:mod:`~desktop.core.channels.outbox`): a retry resumes at the piece that failed. While a turn runs, the chat shows "typing…" (``presence``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import mimetypes
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

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
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.whatsapp import markup, protocol
from desktop.core.channels.whatsapp.login import LoginUpdate
from desktop.core.channels.whatsapp.protocol import Event, Malformed, Message
from desktop.core.config.channels.whatsapp import WhatsAppConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.mime import guess_type
from desktop.core.utils.redact import redact, register_secret

log = logging.getLogger(__name__)

TOKEN_FILE = Path("whatsapp-auth") / "bridge-token"
"""Where nanobot keeps the token it made up for its bridge (beside its config file)."""
NOT_LINKED = QT_TR_NOOP("WhatsApp is not linked to the bridge yet")
LINK_STEPS = Phrase(
    QT_TR_NOOP("On your phone open WhatsApp → Settings → Linked devices → Link a device")
)
SCAN_HINT = Phrase(
    QT_TR_NOOP(
        "{steps} and scan the QR code (shown in Settings → Channels → WhatsApp, by "
        "`nanobot-desktop channels login` and in the bridge's terminal)."
    ),
    steps=LINK_STEPS,
)
LOGGED_OUT_HINT = QT_TR_NOOP(
    "Delete the bridge's auth folder (whatsapp-auth), restart the bridge and scan its new QR code."
)


class BridgeError(RuntimeError):
    """The bridge answered a command with ``error``."""


class WhatsAppChannel(BaseChannel[WhatsAppConfig]):
    """WhatsApp through nanobot's bridge (see the module docstring)."""

    name: ClassVar[str] = "whatsapp"
    display_name: ClassVar[str] = "WhatsApp"
    sender_shape: ClassVar[SenderShape] = "id|id"
    secret_fields: ClassVar[tuple[str, ...]] = ("bridge_token",)
    ack_timeout: ClassVar[float] = 30.0
    """Seconds the bridge has to confirm a command."""
    auth_grace: ClassVar[float] = 0.5
    """Seconds to wait after the token for the bridge to refuse it (it never says yes)."""
    typing_every: ClassVar[float] = 10.0

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        self._ws: ClientConnection | None = None
        self._linked = False
        self._lock = asyncio.Lock()
        self._waiting: tuple[str, asyncio.Future[Event]] | None = None
        self._ids = itertools.count(1)
        self._typing: dict[str, asyncio.Event] = {}  # chat → set when its turns are over
        self._turns: dict[str, str] = {}  # turn id → chat
        self.qr: str | None = None
        """The login code the bridge last offered (``None`` once WhatsApp is linked)."""

    # -- connection -----------------------------------------------------------------------
    def _url(self) -> str:
        url = (self.config.bridge_url or "").strip()
        parts = urlsplit(url)
        if parts.scheme not in ("ws", "wss") or not parts.hostname:
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("The bridge address {url} is not a ws:// address."),
                    url=repr(redact(url)),
                ),
                QT_TR_NOOP(
                    "Set Bridge address to the bridge's WebSocket, e.g. ws://localhost:3001."
                ),
            )
        return url

    async def _token(self) -> str:
        token = (self.config.bridge_token or "").strip()
        if not token:
            path = self.state.path.parent.parent / TOKEN_FILE
            with contextlib.suppress(OSError, UnicodeDecodeError):
                token = (await asyncio.to_thread(path.read_text, encoding="utf-8")).strip()
        register_secret(token or None)
        return token

    def _refused(self, ws: ClientConnection) -> Exception:
        """Why the bridge closed ``ws``: a token problem (not retried) or a lost connection."""
        code, reason = ws.close_code, ws.close_reason or ""
        hint = QT_TR_NOOP(
            "Set Bridge token (Settings → Channels → WhatsApp) to the BRIDGE_TOKEN the bridge "
            "was started with."
        )
        if code == protocol.CLOSE_BAD_TOKEN:
            return ChannelUnavailable(QT_TR_NOOP("The WhatsApp bridge refused the token."), hint)
        if code == protocol.CLOSE_AUTH_TIMEOUT:
            return ChannelUnavailable(QT_TR_NOOP("The WhatsApp bridge wants a token."), hint)
        if code in (None, 1000, 1001):
            return ConnectionError(Phrase(QT_TR_NOOP("The WhatsApp bridge closed the connection")))
        return ConnectionError(
            Phrase(
                QT_TR_NOOP("The WhatsApp bridge closed the connection ({detail})"),
                detail=f"{code} {redact(reason)}",
            )
        )

    async def _open(self, url: str, token: str) -> tuple[ClientConnection, list[str | bytes]]:
        """Connect, authenticate, and wait briefly for a refusal; returns the connection and
        the frames that arrived meanwhile."""
        try:
            ws = await connect(url, proxy=None, open_timeout=10, max_size=4 * 1024 * 1024)
        except InvalidURI:
            raise ChannelUnavailable(
                QT_TR_NOOP("The bridge address is not a valid WebSocket address."),
                QT_TR_NOOP(
                    "Set Bridge address to the bridge's WebSocket, e.g. ws://localhost:3001."
                ),
            ) from None
        except InvalidHandshake as exc:
            raise ConnectionError(
                f"The WhatsApp bridge did not accept the connection ({redact(exc)})"
            ) from None
        early: list[str | bytes] = []
        try:
            if token:
                await ws.send(protocol.dumps({"type": "auth", "token": token}))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.auth_grace):
                    early.append(await ws.recv())
        except ConnectionClosed:
            await ws.close()
            raise self._refused(ws) from None
        return ws, early

    async def run(self) -> None:
        """Connect to the bridge, then receive until stopped (a lost connection raises)."""
        url = self._url()
        token = await self._token()
        ws, early = await self._open(url, token)
        self._ws = ws
        self._linked = True  # until the bridge says otherwise (it repeats no old state)
        try:
            self.set_status(ChannelStatus("connected"))
            for frame in early:
                await self._handle(frame)
            await self.replay_journal()
            async for frame in ws:
                await self._handle(frame)
            if not self.stopping:
                raise self._refused(ws)
        except ConnectionClosed:
            if not self.stopping:
                raise self._refused(ws) from None
        finally:
            self._ws = None
            waiting, self._waiting = self._waiting, None
            if waiting is not None and not waiting[1].done():
                waiting[1].set_exception(ConnectionError("the bridge connection was lost"))
            await ws.close()

    async def stop(self) -> None:
        """Stop receiving, end typing indicators, close the connection."""
        await super().stop()
        self._typing.clear()
        ws = self._ws
        if ws is not None:
            await ws.close()

    async def check(self) -> str:
        """Settings → "Test": connect to the bridge with these settings."""
        try:
            ws, early = await self._open(self._url(), await self._token())
        except ChannelUnavailable as exc:
            raise ValueError(exc.with_hint()) from None
        try:
            with contextlib.suppress(TimeoutError, ConnectionClosed):
                async with asyncio.timeout(self.auth_grace):
                    early.append(await ws.recv())
            if ws.close_code is not None:
                refused = self._refused(ws)
                reason = refused.reason if isinstance(refused, ChannelUnavailable) else str(refused)
                raise ValueError(reason)
        finally:
            await ws.close()
        found = Phrase(QT_TR_NOOP("Connected to the WhatsApp bridge"))
        for frame in early:
            with contextlib.suppress(Malformed):
                if isinstance(item := protocol.parse(frame), Event) and item.type == "qr":
                    return Phrase(
                        QT_TR_NOOP("{found}, but {problem}. {hint}"),
                        found=found,
                        problem=Phrase(NOT_LINKED),
                        hint=SCAN_HINT,
                    )
        return found

    async def login(  # noqa: C901  # the bridge's login conversation, one branch per update
        self, on_update: Callable[[LoginUpdate], None], *, quiet: float = protocol.LOGIN_QUIET_S
    ) -> bool:
        """Connect to the bridge with these settings and wait until WhatsApp is linked,
        passing on every QR code the bridge offers (``channels login``; see the module
        docstring). Messages are left alone: the running channel answers them.

        Args:
            on_update: Called with each new code, and when the bridge reconnects to WhatsApp.
            quiet: Seconds without a word from the bridge (before any code) that mean it is
                linked already.

        Returns:
            ``True`` when the bridge said WhatsApp is linked now, ``False`` when it stayed
            silent for ``quiet`` seconds (linked already).

        Raises:
            ChannelUnavailable: A bad address, a refused or missing token, or WhatsApp logged
                the bridge out.
            ConnectionError: The bridge closed the connection.
            OSError: The bridge is not reachable (refused, no such host, no answer).
        """
        ws, frames = await self._open(self._url(), await self._token())
        shown = False
        try:
            while True:
                if not frames:
                    try:
                        async with asyncio.timeout(None if shown else quiet):
                            frames.append(await ws.recv())
                    except TimeoutError:
                        return False
                try:
                    item = protocol.parse(frames.pop(0))
                except Malformed:
                    continue
                if not isinstance(item, Event):
                    continue
                if item.type == "qr" and item.value:
                    shown = True
                    on_update(LoginUpdate("qr", item.value))
                elif item.type == "status":
                    status = item.value.strip().lower()
                    if status in protocol.CONNECTED:
                        return True
                    if status in protocol.LOGGED_OUT:
                        raise ChannelUnavailable(
                            QT_TR_NOOP("WhatsApp logged the bridge out."), LOGGED_OUT_HINT
                        )
                    on_update(LoginUpdate("reconnecting"))
        except ConnectionClosed:
            raise self._refused(ws) from None
        finally:
            await ws.close()

    # -- receiving ------------------------------------------------------------------------
    async def _handle(self, frame: str | bytes) -> None:
        """One frame from the bridge; a malformed one is logged and skipped."""
        try:
            item = protocol.parse(frame)
        except Malformed as exc:
            log.warning("WhatsApp: skipping a malformed bridge frame (%s)", redact(exc))
            return
        if isinstance(item, Event):
            self._on_event(item)
            return
        try:
            await self._on_message(item)
        except ConnectionError:
            raise
        except Exception:
            log.exception("WhatsApp: handling message %s failed; skipped", item.id)

    def _on_event(self, event: Event) -> None:
        if event.type in ("sent", "error"):
            waiting = self._waiting
            if waiting is not None and event.msg_id in ("", waiting[0]):
                if not waiting[1].done():
                    waiting[1].set_result(event)
                return
            if event.type == "error":
                log.warning("WhatsApp bridge error: %s", redact(event.value))
        elif event.type == "qr":
            self.qr = event.value or None
            self._linked = False
            log.info("WhatsApp: the bridge waits for its QR code to be scanned")
            self.set_status(ChannelStatus("error", NOT_LINKED, SCAN_HINT, login_code=event.value))
        elif event.type == "status":
            self._on_status(event.value.strip().lower())
        else:
            log.debug("WhatsApp: ignoring a %r frame from the bridge", event.type)

    def _on_status(self, status: str) -> None:
        log.info("WhatsApp bridge status: %s", redact(status))
        if status in protocol.CONNECTED:
            self._linked, self.qr = True, None
            self.set_status(ChannelStatus("connected"))
        elif status in protocol.LOGGED_OUT:
            self._linked = False
            self.set_status(
                ChannelStatus(
                    "error", QT_TR_NOOP("WhatsApp logged the bridge out"), LOGGED_OUT_HINT
                )
            )
        elif status:
            self._linked = False
            self.set_status(
                ChannelStatus(
                    "error",
                    QT_TR_NOOP("The bridge lost its connection to WhatsApp"),
                    QT_TR_NOOP("It reconnects by itself; answers wait until it is back."),
                )
            )

    async def _on_message(self, message: Message) -> None:
        key = f"{message.chat}:{message.id}" if message.id else f"{message.chat}:{uuid.uuid4()}"
        if message.id and self.state.seen(key):
            log.info("WhatsApp: message %s was handled before; skipped", message.id)
            return
        if message.is_group and self.config.group_policy == "mention" and not message.mentioned:
            return
        lines = [message.content] if message.content else []
        for path in message.media:
            kind = await guess_type(path) or ""
            lines.append(f"[{'image' if kind.startswith('image/') else 'file'}: {path}]")
        await self.publish(
            message.sender,
            message.chat,
            "\n".join(lines) or "[empty message]",
            media=message.media,
            metadata={
                "message_id": message.id,
                "timestamp": message.timestamp,
                "is_group": message.is_group,
                "phone": message.phone,
            },
            message_id=key,
            journal=True,  # the bridge keeps nothing: the journal keeps it until it is saved
            seen=[key] if message.id else [],
        )

    # -- sending --------------------------------------------------------------------------
    async def _command(self, payload: dict[str, Any], timeout: float | None = None) -> None:
        """Send one command and wait for the bridge's ``sent`` (raises on ``error``)."""
        async with self._lock:
            ws = self._ws
            if ws is None:
                raise ConnectionError("The WhatsApp bridge is not connected")
            msg_id = f"nd-{next(self._ids)}"
            future: asyncio.Future[Event] = asyncio.get_running_loop().create_future()
            self._waiting = (msg_id, future)
            try:
                try:
                    await ws.send(protocol.dumps({**payload, "msg_id": msg_id}))
                except ConnectionClosed:
                    raise ConnectionError("The WhatsApp bridge connection was lost") from None
                try:
                    async with asyncio.timeout(timeout or self.ack_timeout):
                        answer = await future
                except TimeoutError:
                    raise TimeoutError("The WhatsApp bridge did not confirm the message") from None
            finally:
                if self._waiting is not None and self._waiting[1] is future:
                    self._waiting = None
        if answer.type == "error":
            raise BridgeError(f"The WhatsApp bridge could not send it: {redact(answer.value)}")

    def _steps(self, message: OutboundMessage) -> list[dict[str, Any]]:
        """The commands that deliver ``message``: text pieces and files."""
        to = message.chat_id
        text = markup.to_whatsapp(message.content) if message.content.strip() else ""
        files: list[dict[str, Any]] = []
        for item in message.media:
            path = Path(item).expanduser()
            if not path.is_file():
                log.warning("WhatsApp: %s is not a file; not sent", path.name)
                continue
            mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            files.append(
                {"type": "send_media", "to": to, "filePath": str(path.resolve()),
                 "mimetype": mime, "fileName": path.name}
            )  # fmt: skip
        if files and text and len(text) <= markup.CAPTION_LIMIT:
            files[0]["caption"] = text
            return files
        texts = [{"type": "send", "to": to, "text": p} for p in markup.pieces(text)] if text else []
        return [*texts, *files]

    async def pieces(self, message: OutboundMessage) -> list[dict[str, Any]]:
        """The commands that deliver ``message`` (the files are looked at in a thread)."""
        return await asyncio.to_thread(self._steps, message)

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One command, confirmed by the bridge (it has no idempotency key: a piece whose
        confirmation was lost with the connection is sent again)."""
        if self._ws is None:
            raise ConnectionError("The WhatsApp bridge is not connected")
        if not self._linked:
            raise ConnectionError(self.status.reason or NOT_LINKED)
        await self._command(piece)

    # -- typing ---------------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """ "typing…" in a chat while one of its turns runs."""
        if isinstance(event, TurnStarted) and event.channel == self.name:
            self._turns[event.turn_id] = event.chat_id
            if event.chat_id not in self._typing:
                done = self._typing[event.chat_id] = asyncio.Event()
                self.owner.try_spawn(
                    self._keep_typing(event.chat_id, done), name=f"typing:{event.chat_id}"
                )
        elif isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            chat = self._turns.pop(event.turn_id, None)
            if chat is not None and chat not in self._turns.values():
                finished = self._typing.pop(chat, None)
                if finished is not None:
                    finished.set()

    async def _keep_typing(self, chat: str, done: asyncio.Event) -> None:
        """Renew "composing" until ``done``, then send "paused" (never cancelled halfway
        through a command, so the bridge's answers stay in step)."""
        while not done.is_set():
            await self._presence(chat, "composing")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.typing_every):
                    await done.wait()
        await self._presence(chat, "paused")

    async def _presence(self, chat: str, presence: str) -> None:
        if self._ws is None or not self._linked:
            return
        try:
            await self._command({"type": "presence", "to": chat, "presence": presence}, 5.0)
        except (ConnectionError, TimeoutError, BridgeError) as exc:
            log.debug("WhatsApp: presence for a chat failed: %s", redact(exc))
