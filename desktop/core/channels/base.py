"""What every chat channel is: start/stop/send, who may talk to the agent, and a typed status.

A channel turns a chat network into bus traffic: what a person writes becomes an
:class:`~desktop.core.bus.events.InboundMessage` (only when :meth:`BaseChannel.is_allowed`), and
the agent's answers come back through :meth:`BaseChannel.send`. The
:class:`~desktop.core.channels.manager.ChannelManager` starts channels, restarts them with
backoff when :meth:`BaseChannel.run` fails, retries failed sends and reports status changes.

``allowFrom`` (nanobot's semantics): an empty list lets nobody in (unless the channel says so,
see :attr:`BaseChannel.open_when_empty`); ``"*"`` lets everyone in; otherwise an entry must
name the sender exactly. Where a network gives a sender as ``"id|name"`` (Telegram, Discord:
:attr:`BaseChannel.sender_shape`), an entry may also be the id alone, or an ``"id|name"`` pair
whose name has changed since; never the name alone: names can be changed and taken over by
someone else, ids cannot. Where both halves are ids (Feishu ``open_id|user_id``, WhatsApp
``phone|lid``) either one matches.

Nothing lost across a crash: a channel confirms a message to its network only once the agent
has it safe in a session (:meth:`BaseChannel.publish` with ``confirm``, resolved through the
message's :class:`~desktop.core.bus.events.Ack`), or, where the network cannot wait for that,
keeps it in its :class:`~desktop.core.channels.journal.InboundJournal` until then
(``journal=True``) and publishes it again after a restart (:meth:`BaseChannel.replay_journal`).

An answer is delivered whole: the channel says which pieces it becomes (:meth:`BaseChannel.pieces`)
and how one piece is sent (:meth:`BaseChannel.send_piece`); :meth:`BaseChannel.deliver` sends
them in order from the first one not yet acknowledged, so a retry resumes where a failure
stopped it, and the manager keeps the unfinished rest across a stop
(:mod:`~desktop.core.channels.outbox`).
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal

from typing_extensions import TypeVar  # a default for ConfigT (PEP 696); pydantic brings it

from desktop.core.bus.events import Ack, AckOutcome, InboundMessage, OutboundMessage, RunEvent
from desktop.core.bus.limits import describe_size, max_inbound_kb, refusal, utf8_size
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.approvals import ReplyApprover
from desktop.core.channels.journal import journal_for
from desktop.core.channels.outbox import Delivery, outbox_for
from desktop.core.channels.pairing.gate import admit, approved_senders, is_direct
from desktop.core.channels.state import ChannelStateStore
from desktop.core.config.base import ChannelBase
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.redact import register_secret
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

StatusName = Literal["stopped", "connecting", "connected", "error", "unavailable"]


@dataclass(frozen=True)
class ChannelStatus:
    """Where a channel stands.

    Attributes:
        state: ``stopped``, ``connecting``, ``connected``, ``error`` (with ``reason``; the
            manager retries) or ``unavailable`` (a missing dependency or setting; ``hint``
            says how to fix it; not retried).
        reason: One sentence for the person (redacted).
        hint: What to do about it (an install command, the setting to fill in).
        account: Who the channel is connected as (``@my_bot``), when known.
        login_code: While the channel waits for the person to link an account by scanning a
            code (WhatsApp's QR login), the text that code encodes; empty otherwise. Settings
            draws it. It is a credential of sorts, so it stays out of ``repr`` (and logs).
    """

    state: StatusName
    reason: str = ""
    hint: str = ""
    account: str = ""
    login_code: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        # The reason and hint are phrases (marked texts or Phrases with fields), so the window
        # shows them in its language (``localized``); the English is unchanged.
        for name in ("reason", "hint"):
            text = getattr(self, name)
            if text and not isinstance(text, Phrase):
                object.__setattr__(self, name, Phrase(text))

    @property
    def ok(self) -> bool:
        """Connected."""
        return self.state == "connected"


class ChannelUnavailable(Exception):
    """The channel cannot run as configured (missing token, dependency…); not retried.

    Args:
        reason: One sentence for the person: a text marked with ``QT_TR_NOOP`` or a
            :class:`~desktop.core.utils.i18n.Phrase` (never an f-string).
        hint: What to do about it (likewise).
        extra: When the channel's SDK is missing, the pip extra that installs it (Settings
            offers to install it in a source install: :mod:`desktop.core.utils.extras`).
    """

    def __init__(self, reason: str, hint: str = "", *, extra: str = "") -> None:
        # Kept as phrases (a marked text or a Phrase with fields) so the window can show them
        # in its language (``localized``); the English stays the same everywhere else.
        self.reason = reason if isinstance(reason, Phrase) else Phrase(reason)
        self.hint = hint if isinstance(hint, Phrase) or not hint else Phrase(hint)
        super().__init__(self.reason)
        self.extra = extra

    def with_hint(self) -> str:
        """The reason followed by the hint (one text, e.g. a connection test's result)."""
        if not self.hint:
            return self.reason
        return Phrase(QT_TR_NOOP("{reason} {hint}"), reason=self.reason, hint=self.hint)


SenderShape = Literal["opaque", "id|name", "id|id"]
"""How a channel writes its sender ids (see :func:`allowed`)."""


def _ids(text: str, shape: SenderShape) -> set[str]:
    """The ids a sender (or an ``allowFrom`` entry) stands for under ``shape``."""
    ids = {text}
    if shape == "opaque" or "|" not in text:
        return ids
    parts = [p.strip() for p in text.split("|")]
    ids.update(p for p in (parts[:1] if shape == "id|name" else parts) if p)
    return ids


def allowed(
    allow_from: Sequence[str],
    sender: str,
    *,
    shape: SenderShape = "opaque",
    open_when_empty: bool = False,
) -> bool:
    """nanobot's ``allowFrom`` check (see the module docstring).

    Args:
        allow_from: The entries.
        sender: The sender as the channel writes it.
        shape: ``opaque``: the sender is one id, matched whole (nanobot's base rule);
            ``id|name``: the part before ``|`` is the id, the rest a display name that never
            matches alone; ``id|id``: every ``|``-separated part is an id.
        open_when_empty: What an empty list means.
    """
    entries = [str(e).strip() for e in allow_from if str(e).strip()]
    if not entries:
        return open_when_empty
    if "*" in entries:
        return True
    ids = _ids(sender, shape)
    return any(_ids(entry, shape) & ids for entry in entries)


def name_only_entries(allow_from: Sequence[str], sender: str) -> list[str]:
    """Entries that name only the name half of an ``id|name`` sender (they let nobody in)."""
    _, bar, name = sender.partition("|")
    if not bar or not name:
        return []
    names = {name, f"@{name}"}
    return [str(e).strip() for e in allow_from if str(e).strip() in names]


def split_message(text: str, limit: int) -> list[str]:
    """Split ``text`` into pieces of at most ``limit`` characters, on paragraph, then line,
    then word boundaries (a piece is only cut mid-word when a word is longer than ``limit``).
    """
    if limit <= 0:
        raise ValueError("limit must be positive")
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind("\n\n"), -1)
        if cut <= 0:
            cut = window.rfind("\n")
        if cut <= 0:
            cut = window.rfind(" ")
        if cut <= 0:
            cut = limit
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip("\n ")
    if rest.strip() or not pieces:
        pieces.append(rest)
    return [p for p in pieces if p.strip()] or [text[:limit]]


StatusListener = Callable[[str, ChannelStatus], None]
ConfigT = TypeVar("ConfigT", bound=ChannelBase, default=ChannelBase)
"""A channel's config section class (``TelegramChannel(BaseChannel[TelegramConfig])``); a
bare ``BaseChannel`` is ``BaseChannel[ChannelBase]``."""
Confirm = Callable[[AckOutcome], Awaitable[None]]
"""Confirms a message to its network once the agent has it safe (see :class:`Ack`)."""


class BaseChannel(ABC, Generic[ConfigT]):
    """A chat network as a channel.

    Subclasses name their config class (``BaseChannel[TelegramConfig]``: :attr:`config` is
    typed), set :attr:`name`, implement :meth:`run` (connect, then receive until stopped or
    the connection fails: raise to be restarted with backoff), :meth:`pieces` and
    :meth:`send_piece`; they call :meth:`publish` for every message a person sends.

    The base owns the channel's background work: :meth:`spawn` runs a coroutine under
    :attr:`owner`, which :meth:`stop` closes (every task still running is cancelled and
    awaited). A subclass that overrides :meth:`stop` to close its connection does so after
    ``await super().stop()`` (a wake-up signal for :meth:`run` may come before it). The manager makes a new channel object for every start,
    so a stopped channel is never started again (a restart after a failure reuses the object
    without stopping it: the owner stays open).

    Args:
        config: The channel's config section (``channels.<name>``).
        bus: The message bus.
        state: Persistent per-channel state (cursors: update offsets, UIDs, sync tokens).
        media_dir: Where received files are saved (``<workspace>/media``).
        app_config: The whole config (for settings shared with the app), when known.
    """

    name: ClassVar[str] = ""
    display_name: ClassVar[str] = ""
    open_when_empty: ClassVar[bool] = False
    """Whether an empty ``allowFrom`` lets everybody in (the channel's own choice)."""
    sender_shape: ClassVar[SenderShape] = "opaque"
    """How the channel writes sender ids: ``id|name`` where the network has a display name
    (only the id may be named in ``allowFrom``), ``id|id`` where both halves are ids."""
    secret_fields: ClassVar[tuple[str, ...]] = ()
    """Config fields that hold credentials: registered for redaction when the channel is
    made, so they never reach a log or an error shown to the person."""

    def __init__(
        self,
        config: ConfigT,
        bus: MessageBus,
        state: ChannelStateStore,
        media_dir: Path,
        *,
        app_config: Any = None,
    ) -> None:
        self.config: ConfigT = config
        self.owner = TaskOwner(self.name or type(self).__name__)
        """Owns the channel's background tasks (closed by :meth:`stop`)."""
        self.app_config = app_config
        """The whole config, for settings shared with the rest of the app (a provider key
        for voice transcription); ``None`` when unknown."""
        self.bus = bus
        self.state = state
        self.media_dir = media_dir
        self._status = ChannelStatus("stopped")
        self._listeners: list[StatusListener] = []
        self._stopping = asyncio.Event()
        self.journal = journal_for(state)
        self.outbox = outbox_for(state)
        for secret in self.secret_fields:
            register_secret(str(getattr(config, secret, "") or "") or None)
        self.setup()
        self.approvals = self.make_approver()

    def setup(self) -> None:
        """Set up the channel's own state (called once by the constructor, after
        :attr:`config`, :attr:`state`, :attr:`owner`, :attr:`journal` and :attr:`outbox`
        exist and before :meth:`make_approver`): a channel needs no ``__init__`` of its own."""

    def make_approver(self) -> ReplyApprover:
        """The approver that asks in this channel's chats (override for buttons)."""
        return ReplyApprover(self.name, self.send)

    def approver(self) -> ReplyApprover:
        """What the manager registers with the approval gate for this channel's turns."""
        return self.approvals

    # -- status ---------------------------------------------------------------------------
    @property
    def status(self) -> ChannelStatus:
        """The current status."""
        return self._status

    def set_status(self, status: ChannelStatus) -> None:
        """Change the status and tell the listeners (the manager)."""
        if status == self._status:
            return
        self._status = status
        for listener in list(self._listeners):
            try:
                listener(self.name, status)
            except Exception:
                log.exception("channel status listener failed")

    def add_status_listener(self, listener: StatusListener) -> Callable[[], None]:
        """Be told about status changes; returns the remove function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    # -- lifecycle ------------------------------------------------------------------------
    @abstractmethod
    async def run(self) -> None:
        """Connect and receive until :meth:`stop` (return) or a failure (raise).

        Set the status to ``connected`` once connected. Raise :class:`ChannelUnavailable`
        for problems a retry cannot fix.
        """

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any] | None:
        """Run ``coro`` in the background, owned by the channel (cancelled and awaited on
        :meth:`stop`; a failure is logged).

        Returns:
            The task, or ``None`` (``coro`` closed unrun) once the channel is stopping.
        """
        return self.owner.try_spawn(coro, name=name)

    async def stop(self) -> None:
        """Ask :meth:`run` to end (the manager also cancels it) and end the background tasks.

        :attr:`stopping` is set before anything is awaited, so whatever a subclass does before
        or after ``await super().stop()`` sees it.
        """
        self._stopping.set()
        await self.owner.aclose()

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stopping.is_set()

    async def wait_stopped(self) -> None:
        """Wait until :meth:`stop` is called (for :meth:`run` implementations that idle)."""
        await self._stopping.wait()

    # -- messages -------------------------------------------------------------------------
    @abstractmethod
    async def pieces(self, message: OutboundMessage) -> Sequence[Any]:
        """The pieces ``message`` is delivered as, in order (text under the network's limit,
        files): the same for the same message and settings, since a delivery resumed after a
        restart counts its progress in them. Empty: nothing to send (a progress note the
        network does not show).

        Raises:
            ChannelUnavailable: The message cannot be sent as configured (not retried).
            Exception: Anything else is retried.
        """

    @abstractmethod
    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """Send piece ``index`` of ``delivery`` (one of :meth:`pieces`); return once the
        network has acknowledged it, raise otherwise (it is sent again later, from this piece:
        use :attr:`Delivery.id` and :attr:`Delivery.keys` for an idempotency key if the network
        has one; call :meth:`Delivery.save` after changing ``keys``)."""

    async def send(self, message: OutboundMessage) -> None:
        """Deliver ``message`` whole, now (raise on failure). The manager delivers the bus's
        answers through :meth:`deliver` (retried, resumed, kept across a stop); this is for
        direct sends (approval questions, tests)."""
        await self.deliver(Delivery(message))

    async def deliver(self, delivery: Delivery) -> None:
        """Send ``delivery``'s pieces in order from the first one not yet acknowledged,
        saving the progress after each (raise on failure: a later call resumes there)."""
        pieces = await self.pieces(delivery.message)
        for index in range(delivery.done, len(pieces)):
            await self.send_piece(delivery, index, pieces[index])
            delivery.done = index + 1
            await delivery.save()

    async def check(self) -> str:
        """A cheap real call that proves the settings work (Settings → "Test").

        Returns:
            What was found (``"Connected as @my_bot"``).

        Raises:
            Exception: with a message for the person when it does not work.
        """
        raise NotImplementedError(f"{self.name} has no connection test")

    def is_allowed(self, sender: str) -> bool:
        """Whether ``sender`` may talk to the agent (``allowFrom``, or paired: see
        :mod:`~desktop.core.channels.pairing.gate`).

        An entry naming only the name half of an ``id|name`` sender lets nobody in; the log
        says which id to write instead.
        """
        entries = list(getattr(self.config, "allow_from", []) or [])
        if allowed(entries, sender, shape=self.sender_shape, open_when_empty=self.open_when_empty):
            return True
        paired = approved_senders(self)
        if paired and allowed(paired, sender, shape=self.sender_shape):
            return True
        if self.sender_shape == "id|name":
            for entry in name_only_entries(entries, sender):
                log.warning(
                    "%s: the allowFrom entry %r is a name, which can change hands; it lets "
                    "nobody in. Write the id %r instead.",
                    self.name,
                    entry,
                    sender.partition("|")[0],
                )
        return False

    async def publish(  # noqa: C901  # the inbound checks (allowFrom, size, approvals, duplicates) in the order they apply
        self,
        sender: str,
        chat_id: str,
        content: str,
        *,
        media: Iterable[str] = (),
        metadata: dict[str, Any] | None = None,
        message_id: str | None = None,
        confirm: Confirm | None = None,
        journal: bool = False,
        seen: Sequence[str] = (),
        session_key: str | None = None,
    ) -> bool:
        """Hand a person's message to the agent; ``False`` (and logged) when not allowed (a
        direct message is answered with a pairing code: ``metadata`` ``is_direct``, or
        ``is_group`` false; see :mod:`~desktop.core.channels.pairing.gate`), or
        when it is longer than ``channels.maxInboundKb`` (:mod:`desktop.core.bus.limits`): the
        sender is told so, and nothing of it reaches the journal, the session or the model.

        A reply that answers a waiting approval question is consumed here (``True``).
        ``message_id`` becomes :attr:`InboundMessage.id` (unique; the turn it starts carries
        it as ``TurnStarted.request_id``, so the channel can find the message it answers).
        A message whose id is still with the agent (published with ``confirm`` or ``journal``
        and not yet safe, e.g. by this channel before a restart with new settings) is not
        published again (``True``).

        Args:
            sender: Who wrote it (``id|username`` when the network has both).
            chat_id: The conversation.
            content: The text.
            media: Saved attachments.
            metadata: Channel specifics.
            message_id: The message's unique id (stable across restarts when ``confirm`` or
                ``journal`` is used, so a message still with the agent is recognised).
            confirm: Awaited once the message is safe in its session or dropped on purpose
                (at once when it is not allowed or answers an approval question): confirm it
                to the network here (IMAP ``\\Seen``).
            journal: Keep the message in :attr:`journal` until it is safe (for networks whose
                cursor cannot wait); saved before this returns.
            seen: Ids to mark handled in the channel state when the journal entry goes.
            session_key: The session it belongs to, when not ``<channel>:<chat_id>`` (one
                conversation per group member).
        """
        if not await admit(self, sender, chat_id, direct=is_direct(metadata)):
            log.info("%s: message from %s ignored (not in allowFrom)", self.name, sender)
            if confirm is not None:
                await confirm("dropped")
            return False
        if await self._refused_as_too_long(chat_id, content, message_id):
            if confirm is not None:
                await confirm("dropped")
            return False
        if self.approvals.intercept(chat_id, content):
            if confirm is not None:
                await confirm("dropped")
            return True
        if message_id and (
            message_id in self.journal.in_flight or (journal and message_id in self.journal)
        ):
            log.info("%s: message %s is already with the agent", self.name, message_id)
            return True
        message = InboundMessage(
            self.name,
            sender,
            chat_id,
            content,
            media=list(media),
            metadata=dict(metadata or {}),
            session_key_override=session_key,
        )
        if message_id:
            message.id = message_id
        if journal:
            await self.journal.add(message, seen=list(seen))
        elif confirm is not None:
            self.journal.in_flight.add(message.id)
        message.ack = self._ack(message.id, confirm, journal, list(seen))
        await self.bus.publish_inbound(message)
        return True

    async def _refused_as_too_long(
        self, chat_id: str, content: str, message_id: str | None
    ) -> bool:
        """Answer a message longer than ``channels.maxInboundKb`` and say it is not to be
        handed on (nothing of it is kept)."""
        max_kb = max_inbound_kb(self.app_config)
        answer = refusal(content, max_kb)
        if answer is None:
            return False
        log.warning(
            "%s: a message of %s in chat %s was not read (the limit is %s KB)",
            self.name,
            describe_size(utf8_size(content)),
            chat_id,
            max_kb,
        )
        metadata = {"refused": "too_long", "request_id": message_id or ""}
        await self.bus.publish_outbound(
            OutboundMessage(self.name, chat_id, answer, metadata=metadata)
        )
        return True

    def _ack(
        self, message_id: str, confirm: Confirm | None, journal: bool, seen: list[str]
    ) -> Ack | None:
        if confirm is None and not journal:
            return None

        async def done(outcome: AckOutcome) -> None:
            if journal:
                await self.journal.remove(message_id, seen=seen)  # ends in_flight once saved
            else:
                self.journal.in_flight.discard(message_id)
            if confirm is not None:
                await confirm(outcome)

        return Ack(done)

    async def replay_journal(self) -> int:
        """Publish again what the journal kept from before a restart (once per process:
        later reconnects and restarted channel objects find them with the agent already);
        returns how many."""
        if self.journal.replayed:
            return 0
        self.journal.replayed = True
        pending = [m for m in self.journal.pending() if m.id not in self.journal.in_flight]
        for message in pending:
            log.info("%s: handing over message %s again (not saved before)", self.name, message.id)
            message.ack = self._ack(message.id, None, True, self.journal.seen_of(message.id))
            await self.bus.publish_inbound(message)
        return len(pending)

    async def on_event(self, event: RunEvent) -> None:
        """A run event of one of this channel's sessions (typing indicators, reactions)."""
