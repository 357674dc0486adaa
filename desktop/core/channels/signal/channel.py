"""The Signal channel: a client of signal-cli's daemon in HTTP mode.

Signal has no bot API: a phone number is registered (or linked) with signal-cli, which then
runs as ``signal-cli -a +NUMBER daemon --http HOST:PORT`` (nanobot 0.3.5's setup, see
``docs/channels/signal.md``). This channel talks to that daemon as nanobot does: JSON-RPC 2.0
requests to ``POST /api/v1/rpc`` (``send``, ``sendTyping``, ``updateConfiguration``,
``version``), received messages as Server-Sent Events from ``GET /api/v1/events`` (each event's
data is a ``receive`` notification with an ``envelope``, :mod:`.envelope`), and
``GET /api/v1/check`` to see the daemon is up.

Who may talk (nanobot's rules): direct messages follow ``dm`` (``enabled``, ``policy``
``open``/``allowlist``, ``allowFrom`` phone numbers or UUIDs; the top-level ``allowFrom`` counts
too), groups follow ``group`` (off by default; ``policy`` ``open`` or ``allowlist`` of group
ids; ``requireMention``: answer only when the account is mentioned, or a ``/command``). A group
message that passes the group rules is kept as context for the next mention
(``groupMessageBufferSize``).

Receiving. The daemon pushes each message once, so each is written to the channel's journal
before it is handed to the agent and leaves it once saved; a message still there after a
restart is handed over again, one the daemon repeats is recognised by sender and timestamp.
Attachments are read from signal-cli's attachments folder (by the attachment's id) and copied
into the media folder as ``signal_<name>``.

Sending. Markdown becomes plain text with ``textStyle`` ranges (:mod:`.markup`), split under
64,000 characters; files go with the first piece as ``attachments`` (paths the daemon reads).
Signal has no buttons: approvals are answered by reply word. While a turn runs the chat shows
"typing…" (``sendTyping``, renewed every 10 s, stopped at the end).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import json
import logging
import re
import shutil
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

import httpx

from desktop.core.bus.events import (
    OutboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, SenderShape
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import approved_senders
from desktop.core.channels.signal import envelope, markup
from desktop.core.channels.signal.envelope import Incoming
from desktop.core.config.channels.signal import SignalConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

DEFAULT_ATTACHMENTS = Path("~/.local/share/signal-cli/attachments")
"""Where signal-cli saves received attachments on Linux (its XDG data folder)."""
_ADMITTED: contextvars.ContextVar[bool] = contextvars.ContextVar("signal_admitted", default=False)


def _safe_name(name: str) -> str:
    """A file name without folders or odd characters (never empty or hidden)."""
    base = re.sub(r"[^\w.+-]+", "_", re.split(r"[\\/]", name)[-1]).strip("._")
    return base[:100] or "attachment"


class RpcError(RuntimeError):
    """signal-cli answered a request with a JSON-RPC error."""


class SignalChannel(BaseChannel[SignalConfig]):
    """Signal through signal-cli's HTTP daemon (see the module docstring)."""

    name: ClassVar[str] = "signal"
    display_name: ClassVar[str] = "Signal"
    sender_shape: ClassVar[SenderShape] = "id|id"
    typing_every: ClassVar[float] = 10.0
    request_timeout: ClassVar[float] = 60.0

    def setup(self) -> None:
        """The connection, the group context and the typing indicators (their own owner:
        :meth:`stop` lets each indicator send its "stopped" before closing it)."""
        self._typing_owner = TaskOwner("signal:typing")
        self._http: httpx.AsyncClient | None = None
        self._ids = itertools.count(1)
        self._context: dict[str, deque[tuple[str, str]]] = {}
        self._typing: dict[str, asyncio.Event] = {}
        self._turns: dict[str, str] = {}

    # -- connection -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """The daemon's address."""
        return f"http://{self.config.daemon_host}:{self.config.daemon_port}"

    def _account(self) -> str:
        number = (self.config.phone_number or "").strip()
        if not number:
            raise ChannelUnavailable(
                QT_TR_NOOP("No Signal phone number is set."),
                QT_TR_NOOP("Set Phone number to the number signal-cli is registered with."),
            )
        return number

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(self.request_timeout, read=None),
            trust_env=False,  # the daemon is local: no proxy from the environment
        )

    async def _check_daemon(self, http: httpx.AsyncClient) -> None:
        try:
            response = await http.get("/api/v1/check")
        except httpx.HTTPError as exc:
            raise ConnectionError(
                Phrase(
                    QT_TR_NOOP(
                        "The signal-cli daemon at {url} is not reachable ({error}). Start it "
                        "with: {command}"
                    ),
                    url=self.base_url,
                    error=redact(exc) or type(exc).__name__,
                    command=f"signal-cli -a {self.config.phone_number} daemon --http "
                    f"{self.config.daemon_host}:{self.config.daemon_port}",
                )
            ) from None
        if response.status_code != 200:
            raise ConnectionError(
                Phrase(
                    QT_TR_NOOP("The signal-cli daemon answered the check with HTTP {code}"),
                    code=response.status_code,
                )
            )

    async def _rpc(
        self, method: str, params: dict[str, Any], http: httpx.AsyncClient | None = None
    ) -> Any:
        """One JSON-RPC request; its ``result`` (raises :class:`RpcError` on an ``error``)."""
        client = http or self._http
        if client is None:
            raise ConnectionError(Phrase(QT_TR_NOOP("The signal-cli daemon is not connected")))
        request = {"jsonrpc": "2.0", "method": method, "params": params, "id": next(self._ids)}
        try:
            response = await client.post("/api/v1/rpc", json=request)
            response.raise_for_status()
            answer = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise ConnectionError(f"signal-cli {method} failed: {redact(exc)}") from None
        if not isinstance(answer, dict):
            raise RpcError(f"signal-cli {method}: not a JSON-RPC answer")
        if answer.get("error"):
            error = answer["error"]
            message = error.get("message", error) if isinstance(error, dict) else error
            raise RpcError(f"signal-cli {method}: {redact(message)}")
        return answer.get("result")

    async def run(self) -> None:
        """Check the daemon, subscribe to its events, then receive until stopped."""
        account = self._account()
        async with self._client() as http:
            await self._check_daemon(http)
            try:
                await self._rpc("updateConfiguration", {"typingIndicators": True}, http)
            except (RpcError, ConnectionError) as exc:
                log.warning("Signal: typing indicators could not be switched on: %s", exc)
            async with http.stream("GET", "/api/v1/events") as response:
                if response.status_code != 200:
                    raise ConnectionError(
                        Phrase(
                            QT_TR_NOOP("The signal-cli event stream answered HTTP {code}"),
                            code=response.status_code,
                        )
                    )
                self._http = http
                try:
                    self.set_status(ChannelStatus("connected", account=account))
                    await self.replay_journal()
                    async for event in self._events(response):
                        await self._handle(event)
                finally:
                    self._http = None
            if not self.stopping:
                raise ConnectionError(
                    Phrase(QT_TR_NOOP("The signal-cli daemon ended the event stream"))
                )

    async def _events(self, response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
        """The JSON objects of a Server-Sent Events stream (comments and bad data skipped)."""
        data: list[str] = []
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                data.append(line[6:] if line[5:6] == " " else line[5:])
            elif not line and data:
                raw, data = "\n".join(data), []
                try:
                    event = json.loads(raw)
                except ValueError:
                    log.warning("Signal: skipping an event that is not JSON")
                    continue
                if isinstance(event, dict):
                    yield event
            if self.stopping:
                return

    async def stop(self) -> None:
        """Stop receiving and end typing indicators."""
        await super().stop()
        for done in self._typing.values():
            done.set()
        await self._typing_owner.aclose()
        self._typing.clear()

    async def check(self) -> str:
        """Settings → "Test": the daemon answers, and with which signal-cli version."""
        account = self._account()
        async with self._client() as http:
            await self._check_daemon(http)
            result = await self._rpc("version", {}, http)
        version = result.get("version", "") if isinstance(result, dict) else ""
        found = (
            Phrase(QT_TR_NOOP("signal-cli {version} at {url}"), version=version, url=self.base_url)
            if version
            else self.base_url
        )
        return Phrase(QT_TR_NOOP("Connected to {found} as {account}"), found=found, account=account)

    # -- receiving ------------------------------------------------------------------------
    def is_allowed(self, sender: str) -> bool:
        """Whether ``sender`` may write directly (``dm.allowFrom`` or ``allowFrom``; ``dm.policy``
        ``open``: anyone), or paired (any of its ids, in any form). A message already admitted
        by the group rules passes."""
        if _ADMITTED.get():
            return True
        dm = self.config.dm
        if dm.policy == "open":
            return True
        entries = [*dm.allow_from, *self.config.allow_from, *approved_senders(self)]
        return envelope.matches(sender, entries)

    def _account_ids(self) -> set[str]:
        return envelope.variants(self.config.phone_number or "")

    def _remember(self, message: Incoming, text: str) -> None:
        size = self.config.group_message_buffer_size
        chat = self._context.setdefault(message.chat_id, deque(maxlen=size))
        if chat.maxlen != size:
            chat = self._context[message.chat_id] = deque(chat, maxlen=size)
        chat.append((message.name or message.number, text))

    def _group_admits(self, message: Incoming) -> bool:
        group = self.config.group
        if not group.enabled:
            log.info("Signal: a group message ignored (groups are off)")
            return False
        listed = "*" in group.allow_from or message.chat_id in group.allow_from
        if group.policy == "allowlist" and not listed:
            log.info("Signal: a message of group %s ignored (not allowed)", message.chat_id)
            return False
        self._remember(message, message.text)
        if message.text.strip().startswith("/") or not group.require_mention:
            return True
        return envelope.mentioned(message, self._account_ids())

    async def _handle(self, event: dict[str, Any]) -> None:
        try:
            message = envelope.parse(event)
            if message is None or message.reaction:
                return
            if not message.text and not message.attachments:
                return
            if envelope.variants(message.number) & self._account_ids():
                return  # our own message, synced back
            await self._on_message(message)
        except (ConnectionError, asyncio.CancelledError):
            raise
        except Exception:
            log.exception("Signal: handling a received message failed; skipped")

    async def _on_message(self, message: Incoming) -> None:
        key = f"{message.number}:{message.timestamp}" if message.timestamp else ""
        if key and self.state.seen(key):
            log.info("Signal: message %s was handled before; skipped", key)
            return
        if message.is_group and not self._group_admits(message):
            return
        if not message.is_group and not self.config.dm.enabled:
            log.info("Signal: a direct message ignored (direct messages are off)")
            return
        lines: list[str] = []
        if message.is_group:
            context = list(self._context.get(message.chat_id, ()))[:-1]
            if context:
                recent = "\n".join(f"{who}: {text[:200]}" for who, text in context)
                lines.append(f"[Recent group messages for context:]\n{recent}\n---")
            text = envelope.without_mentions(message, self._account_ids())
            if text:
                lines.append(f"[{message.name or message.number}]: {text}")
        elif message.text:
            lines.append(message.text)
        media = await asyncio.to_thread(self._fetch_attachments, message, lines)
        token = _ADMITTED.set(message.is_group)
        try:
            await self.publish(
                message.sender,
                message.chat_id,
                "\n".join(lines) or "[empty message]",
                media=media,
                metadata={
                    "timestamp": message.timestamp,
                    "sender_name": message.name or None,
                    "sender_number": message.number,
                    "is_group": message.is_group,
                    "group_id": message.group_id,
                },
                message_id=f"signal:{key}" if key else None,
                journal=True,  # the daemon keeps nothing: the journal keeps it until saved
                seen=[key] if key else [],
            )
        finally:
            _ADMITTED.reset(token)

    def _attachments_dir(self) -> Path:
        return Path(self.config.attachments_dir or DEFAULT_ATTACHMENTS).expanduser()

    def _fetch_attachments(self, message: Incoming, lines: list[str]) -> list[str]:
        """Copy the message's attachments from signal-cli's folder into the media folder
        (in a thread); notes what became of each in ``lines``."""
        saved: list[str] = []
        for attachment in message.attachments:
            ident = attachment.get("id")
            if not isinstance(ident, str) or not ident or Path(ident).name != ident:
                continue
            filename = attachment.get("filename") or f"attachment_{ident}"
            source = self._attachments_dir() / ident
            if not source.is_file():
                log.warning("Signal: attachment %s not found in %s", ident, source.parent)
                lines.append(f"[attachment: {filename} - not found]")
                continue
            self.media_dir.mkdir(parents=True, exist_ok=True)
            target = self.media_dir / f"signal_{_safe_name(str(filename))}"
            shutil.copyfile(source, target)
            saved.append(str(target))
            kind = str(attachment.get("contentType") or "").partition("/")[0]
            lines.append(f"[{kind if kind in ('image', 'audio', 'video') else 'file'}: {target}]")
        return saved

    # -- sending --------------------------------------------------------------------------
    @staticmethod
    def _recipient(chat_id: str) -> dict[str, Any]:
        if envelope.is_group_chat(chat_id):
            return {"groupId": chat_id}
        return {"recipient": [chat_id]}

    @staticmethod
    def _files(media: list[str]) -> list[str]:
        """The absolute paths of the files among ``media`` (in a thread)."""
        found: list[str] = []
        for item in media:
            path = Path(item).expanduser().resolve()
            if path.is_file():
                found.append(str(path))
            else:
                log.warning("Signal: %s is not a file; not sent", path.name)
        return found

    async def pieces(self, message: OutboundMessage) -> list[dict[str, Any]]:
        """The ``send`` requests that deliver ``message``: text pieces, files with the first."""
        found = await asyncio.to_thread(self._files, message.media)
        steps: list[dict[str, Any]] = []
        for text, styles in markup.pieces(message.content):
            step: dict[str, Any] = {"message": text, **self._recipient(message.chat_id)}
            if styles:
                step["textStyle"] = styles
            steps.append(step)
        if found:
            if not steps:
                steps.append({"message": "", **self._recipient(message.chat_id)})
            steps[0]["attachments"] = found
        return steps

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """One ``send`` request (signal-cli has no idempotency key: a piece whose answer was
        lost is sent again)."""
        await self._rpc("send", piece)

    # -- typing ---------------------------------------------------------------------------
    async def on_event(self, event: RunEvent) -> None:
        """ "typing…" in a chat while one of its turns runs."""
        if isinstance(event, TurnStarted) and event.channel == self.name:
            self._turns[event.turn_id] = event.chat_id
            if event.chat_id not in self._typing and not self.stopping:
                done = self._typing[event.chat_id] = asyncio.Event()
                self._typing_owner.try_spawn(
                    self._keep_typing(event.chat_id, done), name=f"typing:{event.chat_id}"
                )
        elif isinstance(event, TurnFinished | TurnStopped | TurnFailed):
            chat = self._turns.pop(event.turn_id, None)
            if chat is not None and chat not in self._turns.values():
                finished = self._typing.pop(chat, None)
                if finished is not None:
                    finished.set()

    async def _keep_typing(self, chat: str, done: asyncio.Event) -> None:
        while not done.is_set():
            await self._typing_request(chat, stop=False)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.typing_every):
                    await done.wait()
        await self._typing_request(chat, stop=True)

    async def _typing_request(self, chat: str, *, stop: bool) -> None:
        if self._http is None:
            return
        params: dict[str, Any] = self._recipient(chat)
        if stop:
            params["stop"] = True
        try:
            await self._rpc("sendTyping", params)
        except (RpcError, ConnectionError) as exc:
            log.debug("Signal: typing indicator failed: %s", exc)
