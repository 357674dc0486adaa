"""The WeCom channel: a WeCom (企业微信) AI bot on its WebSocket long connection.

Connecting. The bot's long connection (``wecom-aibot-sdk-python``, the SDK nanobot 0.3.5 uses)
opens a WebSocket to WeCom and subscribes with the bot id and secret (``aibot_subscribe``);
the SDK keeps it alive with ``ping`` frames. No public address is needed. A lost connection
ends :meth:`WecomChannel.run` with an error, so the channel manager reconnects with its own
backoff and shows the status (the SDK's own reconnection is stopped with it). WeCom disconnects
a bot when another program connects with the same bot: the channel then stops as unavailable
instead of taking the connection back and forth.

Receiving. Message callbacks (``aibot_msg_callback``) are handled one after the other in the
order they arrive. WeCom does not send a message again, so each is kept in the channel's
journal until the agent has saved it (handed over again after a restart) and its id is
remembered once handled (one that arrives twice is answered once). Images and files are
downloaded and decrypted (AES key in the message) into ``<media>/wecom``. When ``welcomeMessage``
is set, someone allowed who opens a chat with the bot is greeted. A sender not in ``allowFrom``
is ignored without a pairing code, in a direct chat too (as nanobot 0.3.5 does on WeCom).

Sending. An answer goes back as a reply to the message it answers (``aibot_respond_msg``, a
finished ``stream`` message: WeCom renders its Markdown), split under :data:`MAX_CHARS`; each
piece's stream id comes from the delivery, so a piece sent again replaces itself. Where there
is no message to reply to (a cron job, an answer after the reply window), the piece is sent
proactively as Markdown (``aibot_send_msg``). Files are uploaded over the connection
(``aibot_upload_media_*``) and sent as image/file/voice/video messages.

Approvals are asked in the chat and answered with the reply word.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, split_message
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.wecom.inbound import Attachment, Incoming, parse, safe_name
from desktop.core.config.channels.wecom import WecomConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact, register_secret

log = logging.getLogger(__name__)

MAX_CHARS = 6000  # a stream message holds 20480 UTF-8 bytes; 6000 CJK characters stay under it
MAX_DOWNLOAD = 200 * 1024 * 1024
AUTH_TIMEOUT_S = 15.0
HEARTBEAT_MS = 30_000
REPLIES = "replies"  # state: chat id → req_id of the last message there (what answers reply to)
SETTINGS = Phrase(QT_TR_NOOP("Settings → Channels → WeCom"))
MESSAGE_EVENTS = ("text", "image", "voice", "file", "mixed")


class _SdkLog:
    """The SDK's logger: into ours, redacted (it logs the subscribe frame with the secret);
    a refused subscription is reported to ``on_refused``."""

    def __init__(self, on_refused: Any) -> None:
        self._on_refused = on_refused
        self._log = logging.getLogger(f"{__name__}.sdk")

    def debug(self, message: str, *args: Any) -> None:
        self._log.debug("%s", redact(message))

    def info(self, message: str, *args: Any) -> None:
        self._log.debug("%s", redact(message))

    def warn(self, message: str, *args: Any) -> None:
        self._log.info("%s", redact(message))

    def error(self, message: str, *args: Any) -> None:
        text = redact(message)
        if text.startswith("Authentication failed"):
            self._on_refused(text)
        self._log.warning("%s", text)


class WecomChannel(BaseChannel[WecomConfig]):
    """A WeCom AI bot (chat id: the group's chatid, or the person's userid in a direct chat)."""

    name: ClassVar[str] = "wecom"
    display_name: ClassVar[str] = "WeCom"

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`)."""
        register_secret(self.config.secret or None)
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._client: Any = None
        replies = self.state.get(REPLIES, {})
        self._replies: dict[str, str] = dict(replies) if isinstance(replies, dict) else {}

    # -- settings and connection ------------------------------------------------------------
    def _require_settings(self) -> None:
        if not (self.config.bot_id or "").strip() or not (self.config.secret or "").strip():
            raise ChannelUnavailable(
                QT_TR_NOOP("The bot id or secret is not set."),
                Phrase(
                    QT_TR_NOOP(
                        "Create an AI bot in WeCom (API mode: long connection) and enter its Bot ID "
                        "and Secret in {settings}."
                    ),
                    settings=SETTINGS,
                ),
            )
        if not (self.config.ws_url or "").startswith(("ws://", "wss://")):
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("The WeCom server {url} is not a ws(s) URL."),
                    url=repr(self.config.ws_url),
                ),
                SETTINGS,
            )

    def _new_client(self, queue: asyncio.Queue[tuple[str, Any]]) -> Any:
        from wecom_aibot_sdk import WSClient  # type: ignore[import-untyped]

        client = WSClient(
            {
                "bot_id": self.config.bot_id.strip(),
                "secret": self.config.secret.strip(),
                "ws_url": self.config.ws_url.strip(),
                "max_reconnect_attempts": 1,  # ours reconnects (the SDK's is stopped with run)
                "heartbeat_interval": HEARTBEAT_MS,
                "logger": _SdkLog(lambda why: queue.put_nowait(("refused", why))),
            }
        )

        def queue_as(kind: str) -> Any:
            async def handler(frame: Any) -> None:
                queue.put_nowait((kind, frame))

            return handler

        client.on("authenticated", queue_as("authenticated"))
        client.on("disconnected", queue_as("lost"))
        client.on("error", queue_as("lost"))
        client.on("event.disconnected_event", queue_as("kicked"))
        client.on("event.enter_chat", queue_as("enter"))
        for kind in MESSAGE_EVENTS:
            client.on(f"message.{kind}", queue_as("message"))
        return client

    def _refused(self, why: str) -> ChannelUnavailable:
        return ChannelUnavailable(
            Phrase(QT_TR_NOOP("WeCom did not accept the bot id and secret ({error})."), error=why),
            Phrase(QT_TR_NOOP("{settings}: check the Bot ID and Secret."), settings=SETTINGS),
        )

    async def _connect(self, client: Any, queue: asyncio.Queue[tuple[str, Any]]) -> None:
        """Open the connection and wait until WeCom accepted the subscription."""
        try:
            await client.connect_async()
        except OSError as exc:
            raise ConnectionError(f"could not reach WeCom ({redact(exc)})") from None
        try:
            async with asyncio.timeout(AUTH_TIMEOUT_S):
                while True:
                    kind, data = await queue.get()
                    if kind == "authenticated":
                        return
                    if kind == "refused":
                        raise self._refused(str(data).removeprefix("Authentication failed: "))
                    if kind in ("lost", "stop"):
                        raise ConnectionError("the connection to WeCom closed while subscribing")
        except TimeoutError:
            raise ConnectionError("WeCom did not answer the subscription") from None

    async def check(self) -> str:
        """Settings → "Test": subscribe with these settings, then disconnect."""
        self._require_settings()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        client = self._new_client(queue)
        try:
            await self._connect(client, queue)
        except ChannelUnavailable as exc:
            raise ValueError(exc.reason) from None
        finally:
            await client.disconnect()
        return Phrase(QT_TR_NOOP("Connected as bot {bot}"), bot=self.config.bot_id.strip())

    async def run(self) -> None:
        """Connect and subscribe, then handle callbacks until stopped (a loss raises)."""
        self._require_settings()
        queue = self._queue = asyncio.Queue()
        client = self._new_client(queue)
        try:
            await self._connect(client, queue)
            self._client = client
            self.set_status(ChannelStatus("connected", account=self.config.bot_id.strip()))
            log.info("wecom: connected as bot %s", self.config.bot_id)
            await self.replay_journal()
            await self._receive(queue)
        finally:
            self._client = None
            try:
                await client.disconnect()
            except Exception as exc:  # noqa: BLE001 - the connection is gone either way
                log.debug("wecom: disconnecting failed: %s", redact(exc))

    async def stop(self) -> None:
        """Stop receiving (run() disconnects)."""
        await super().stop()
        self._queue.put_nowait(("stop", None))

    # -- receiving --------------------------------------------------------------------------
    async def _receive(self, queue: asyncio.Queue[tuple[str, Any]]) -> None:
        while not self.stopping:
            kind, frame = await queue.get()
            if kind == "stop":
                return
            if kind == "lost":
                raise ConnectionError("the connection to WeCom was lost")
            if kind == "kicked":
                raise ChannelUnavailable(
                    QT_TR_NOOP(
                        "WeCom disconnected the bot: another program connected with the same bot."
                    ),
                    QT_TR_NOOP(
                        "Stop the other program (nanobot?) using this bot, then start the channel."
                    ),
                )
            try:
                if kind == "message":
                    await self._on_message(frame)
                elif kind == "enter":
                    await self._on_enter(frame)
            except (ConnectionError, ChannelUnavailable):
                raise
            except Exception:
                log.exception("wecom: skipping a callback that could not be handled")

    async def _remember_reply(self, chat_id: str, req_id: str) -> None:
        if req_id and self._replies.get(chat_id) != req_id:
            self._replies[chat_id] = req_id
            await asyncio.to_thread(self.state.update, replies=dict(self._replies))

    async def _on_message(self, frame: Any) -> None:
        message = parse(getattr(frame, "body", None))
        if message is None:
            log.warning("wecom: skipping a message callback without a sender")
            return
        if self.state.seen(message.message_id):
            return
        if not self.is_allowed(message.sender):
            log.info("wecom: message from %s ignored (not in allowFrom)", message.sender)
            await asyncio.to_thread(self.state.update, seen=[message.message_id])
            return
        req_id = str((getattr(frame, "headers", None) or {}).get("req_id") or "")
        await self._remember_reply(message.chat_id, req_id)
        media = await self._download_all(message)
        await self.publish(
            message.sender,
            message.chat_id,
            "\n".join(message.parts) or "[empty message]",
            media=media,
            metadata={
                "message_id": message.message_id,
                "msg_type": message.msg_type,
                "chat_type": message.chat_type,
            },
            message_id=message.message_id,
            journal=True,
            seen=[message.message_id],
        )

    async def _download_all(self, message: Incoming) -> list[str]:
        """Download and decrypt the attachments; each becomes a line of the text."""
        saved: list[str] = []
        for number, item in enumerate(message.attachments):
            fallback = f"{item.kind}_{message.message_id}_{number}"
            try:
                path = await self._download(item, safe_name(item.name, fallback), fallback)
            except Exception as exc:  # noqa: BLE001 - the message goes on without the file
                log.warning("wecom: downloading a %s failed: %s", item.kind, redact(exc))
                message.parts.append(f"[{item.kind}: {item.name or 'unnamed'}: download failed]")
                continue
            saved.append(str(path))
            message.parts.append(f"[{item.kind}: {path}]")
        return saved

    async def _download(self, item: Attachment, name: str, fallback: str) -> Path:
        client = self._client
        if client is None:
            raise ConnectionError("not connected")
        data, served_name = await client.download_file(item.url, item.aes_key)
        if len(data) > MAX_DOWNLOAD:
            raise ValueError(f"{len(data)} bytes is more than {MAX_DOWNLOAD}")
        if name == fallback and served_name:
            name = safe_name(str(served_name), fallback)
        path = self.media_dir / "wecom" / name
        await asyncio.to_thread(_write, path, bytes(data))
        return path

    async def _on_enter(self, frame: Any) -> None:
        body = getattr(frame, "body", None)
        data = body if isinstance(body, dict) else {}
        sender = data.get("from")
        who = str((sender if isinstance(sender, dict) else {}).get("userid") or "")
        welcome = (self.config.welcome_message or "").strip()
        if not welcome or not who or not self.is_allowed(who) or self._client is None:
            return
        await self._client.reply_welcome(frame, {"msgtype": "text", "text": {"content": welcome}})

    # -- sending ----------------------------------------------------------------------------
    async def pieces(self, message: OutboundMessage) -> list[tuple[str, str]]:
        """The text split under :data:`MAX_CHARS` (Markdown as it is), then each file."""
        text = message.content.strip()
        out = [("text", piece) for piece in split_message(text, MAX_CHARS)] if text else []
        out.extend(("file", path) for path in message.media if path.strip())
        return out

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """Send one piece: a reply to the chat's last message, else a proactive message."""
        client = self._client
        if client is None:
            raise ConnectionError("WeCom is not connected")
        kind, value = piece
        chat_id = delivery.message.chat_id
        if kind == "file":
            body = await self._upload(client, value)
            if body is None:
                body = {
                    "msgtype": "markdown",
                    "markdown": {"content": f"[file: {Path(value).name}]"},
                }
        else:
            body = {
                "msgtype": "stream",
                "stream": {"id": f"{delivery.id}-{index}", "content": value, "finish": True},
            }
        req_id = self._replies.get(chat_id)
        if req_id:
            try:
                await client.reply({"req_id": req_id}, body)
                return
            except RuntimeError as exc:  # WeCom refused the reply (its window has passed)
                log.info("wecom: replying in %s failed (%s); sending instead", chat_id, exc)
        if body["msgtype"] == "stream":
            body = {"msgtype": "markdown", "markdown": {"content": value}}
        await client.send_message(chat_id, body)

    async def _upload(self, client: Any, path: str) -> dict[str, Any] | None:
        """Upload ``path``; the message body that shows it (``None``: it cannot be sent)."""
        try:
            result = await client.upload_media(path)
        except (OSError, ValueError) as exc:
            log.warning("wecom: cannot send %s: %s", Path(path).name, redact(exc))
            return None
        return {"msgtype": result.media_type, result.media_type: {"media_id": result.media_id}}


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
