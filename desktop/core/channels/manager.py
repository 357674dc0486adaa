"""The channel manager: runs the chat channels and delivers every outbound message.

Every front end is a channel: the desktop window registers itself (``desktop``); the chat
networks enabled in the config (``channels.<name>.enabled``) are started here, in the app and
in ``gateway`` alike. The manager

* imports each channel's SDK lazily (in a worker thread); a missing optional dependency
  makes that channel ``unavailable`` with the install hint, and nothing else fails;
* supervises each channel: when :meth:`BaseChannel.run` fails it is restarted with growing
  backoff (1 s … 60 s), and every status change becomes a
  :class:`~desktop.core.bus.events.ChannelStatusChanged` event (Settings and the tray show it);
* owns the one consumer of the bus's outbound queue and delivers each answer whole
  (:mod:`~desktop.core.channels.outbox`): its pieces in order, a failed piece retried from
  that piece; when the channel is reconnecting, the answer waits until it is connected again
  (at most ``reconnect_wait``, 10 minutes) and goes on; an answer that finally cannot be
  delivered becomes a :class:`~desktop.core.bus.events.DeliveryFailed` event (never dropped
  silently). Answers for a chat network are kept in its outbox until their last piece is
  acknowledged; :meth:`ChannelManager.stop` waits a bounded time (``stop_grace``) for those
  in flight, and what is left goes out after the next start;
* forwards the run events of a channel's sessions to it (typing indicators);
* registers a channel's own approver (inline buttons, reply keywords) with the approval gate.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from desktop.core.bus.events import (
    ChannelStatusChanged,
    DeliveryFailed,
    OutboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable
from desktop.core.channels.errors import explain
from desktop.core.channels.outbox import MAX_AGE_S, NOTE_PART, NOTE_WHOLE, Delivery
from desktop.core.channels.registry import CHANNELS, ChannelInfo
from desktop.core.channels.state import ChannelStateStore
from desktop.core.session.unified import UNIFIED_SESSION_KEY
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.tasks import TaskOwner, cancel_and_wait

if TYPE_CHECKING:
    from desktop.core.agent.approval import ApprovalGate
    from desktop.core.config.schema import Config

log = logging.getLogger(__name__)

Fallback = Callable[[OutboundMessage], Awaitable[None] | None]
BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
STABLE_S = 60.0  # connected this long: the next failure starts the backoff from the beginning
SEND_DELAYS_S: tuple[float, ...] = (1.0, 3.0)
RECONNECT_WAIT_S = 600.0  # how long an answer waits for its reconnecting channel
STOP_GRACE_S = 5.0  # how long stopping waits for answers in flight to connected channels

__all__ = ["Channel", "ChannelManager", "explain"]


class Channel(Protocol):
    """Anything messages can be delivered to (the window, a chat network)."""

    @property
    def name(self) -> str:
        """The channel's name (a class or an instance attribute satisfies it)."""
        ...

    async def send(self, message: OutboundMessage) -> None:
        """Deliver ``message`` (raise on failure)."""
        ...


class ChannelManager:
    """Runs the configured chat channels and routes the bus's outbound messages.

    Args:
        bus: The message bus (its outbound queue has exactly one consumer: this manager).
        owner: Owns the dispatcher and every channel's supervisor.
        config: The config (``channels.*`` sections); ``None``: no chat channels (tests).
        state_dir: Where channels keep their cursors.
        media_dir: Where channels save received files.
        approval: The approval gate channels register their approvers with.
        send_delays: Backoff between delivery attempts (its length is the number of retries);
            a channel that is reconnecting gets this round again once it is connected.
        reconnect_wait: How long, from the first failure, a message waits for its reconnecting
            channel before it is reported as not delivered.
        stop_grace: How long :meth:`stop` waits for answers in flight to connected channels
            (the rest is kept in the channels' outboxes and goes out after the next start).
        backoff: Restart delays of a failing channel.
        registry: The known channels (tests pass their own).
    """

    def __init__(
        self,
        bus: MessageBus,
        owner: TaskOwner,
        *,
        config: Config | None = None,
        state_dir: Path | None = None,
        media_dir: Path | None = None,
        approval: ApprovalGate | None = None,
        send_delays: Sequence[float] = SEND_DELAYS_S,
        reconnect_wait: float = RECONNECT_WAIT_S,
        stop_grace: float = STOP_GRACE_S,
        backoff: Sequence[float] = BACKOFF_S,
        registry: Mapping[str, ChannelInfo] = CHANNELS,
    ) -> None:
        self.bus = bus
        self.config = config
        self.state_dir = state_dir
        self.media_dir = media_dir
        self.approval = approval
        self.send_delays = tuple(send_delays)
        self.reconnect_wait = reconnect_wait
        self.stop_grace = stop_grace
        self.backoff = tuple(backoff)
        self.registry = registry
        self._owner = owner
        self._channels: dict[str, Channel] = {}
        self._running: dict[str, BaseChannel[Any]] = {}
        self._unified_turns: dict[str, str] = {}  # turn id → its channel (unifiedSession)
        self._supervisors: dict[str, asyncio.Task[None]] = {}
        self._statuses: dict[str, ChannelStatus] = {}
        self._cleanups: dict[str, list[Callable[[], None]]] = {}
        self._fallback: Fallback | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._queues: dict[str, asyncio.Queue[Delivery]] = {}
        self._drains: dict[str, asyncio.Task[None]] = {}
        self._dispatcher: asyncio.Task[None] | None = None
        self._busy: set[str] = set()  # channels with a delivery in progress
        self._changed = asyncio.Event()  # a delivery ended, a status changed (for stop)
        self._status_waiters: dict[str, set[asyncio.Event]] = {}
        self._states: dict[Path, ChannelStateStore] = {}  # one per file: restarts share it
        self.stopping = False
        """Whether :meth:`stop` has begun."""

    # -- registration ---------------------------------------------------------------------
    def register(self, channel: Channel) -> Callable[[], None]:
        """Deliver messages for ``channel.name`` to ``channel``; returns the unregister call."""
        self._channels[channel.name] = channel

        def remove() -> None:
            if self._channels.get(channel.name) is channel:
                del self._channels[channel.name]

        return remove

    def set_fallback(self, fallback: Fallback | None) -> None:
        """Where messages for channels that are not running go (default: the log)."""
        self._fallback = fallback

    @property
    def has_fallback(self) -> bool:
        """Whether messages for channels that are not running go somewhere (a gateway prints)."""
        return self._fallback is not None

    def channel(self, name: str) -> Channel | None:
        """The registered (or running) channel called ``name``."""
        return self._channels.get(name)

    def status(self, name: str) -> ChannelStatus:
        """The last known status of ``name``."""
        return self._statuses.get(name, ChannelStatus("stopped"))

    def statuses(self) -> dict[str, ChannelStatus]:
        """Statuses of every known chat channel."""
        return {name: self.status(name) for name in self.registry}

    # -- lifecycle ------------------------------------------------------------------------
    async def start(self, *, networks: bool = True) -> None:
        """Start delivering, then (``networks``) every enabled chat channel."""
        self._dispatcher = self._owner.spawn(self._dispatch(), name="outbound")
        self._unsubscribe = self.bus.subscribe(self._forward)
        if networks:
            for name in self.enabled():
                await self.start_channel(name)

    def enabled(self) -> list[str]:
        """Chat channels enabled in the config."""
        if self.config is None:
            return []
        sections = self.config.channels
        return [n for n in self.registry if getattr(getattr(sections, n, None), "enabled", False)]

    async def start_channel(self, name: str) -> ChannelStatus:
        """Start (or restart) the chat channel ``name``; returns its status right after."""
        await self.stop_channel(name)
        info = self.registry.get(name)
        if info is None:
            return self._set(
                name,
                ChannelStatus(
                    "unavailable", Phrase(QT_TR_NOOP("unknown channel {name}"), name=repr(name))
                ),
            )
        try:
            channel = await self.create(info)
        except ChannelUnavailable as exc:
            return self._set(name, ChannelStatus("unavailable", exc.reason, exc.hint))
        self._running[name] = channel
        self._channels[name] = channel
        cleanups = self._cleanups.setdefault(name, [])

        def on_status(channel_name: str, status: ChannelStatus) -> None:
            self._set(channel_name, status)

        cleanups.append(channel.add_status_listener(on_status))
        if self.approval is not None:
            cleanups.append(self.approval.add_approver(channel.approver(), channels=[name]))
        self._supervisors[name] = self._owner.spawn(self._supervise(channel), name=name)
        if not channel.outbox.resumed:  # what was kept from before a restart: first in line
            channel.outbox.resumed = True
            for delivery in channel.outbox.pending():
                log.info("%s: an answer from before the restart goes on", name)
                self._enqueue(delivery)
        return self.status(name)

    async def create(self, info: ChannelInfo, section: Any = None) -> BaseChannel[Any]:
        """A channel object for ``info`` (its SDK imported off the event loop).

        Raises:
            ChannelUnavailable: The SDK is missing or the config cannot be used.
        """
        try:
            module = await asyncio.to_thread(importlib.import_module, info.module)
            for required in info.requires:
                await asyncio.to_thread(importlib.import_module, required)
        except ImportError as exc:
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("{channel} needs a package that is not installed ({error})"),
                    channel=info.display_name,
                    error=str(exc.name or exc),
                ),
                info.install_hint,
                extra=info.extra,
            ) from None
        cls = getattr(module, info.class_name)
        if section is None:
            assert self.config is not None
            section = getattr(self.config.channels, info.name)
        state_dir = self.state_dir or Path.home() / ".nanobot" / "channel-state"
        path = state_dir / f"{info.name}.json"
        state = self._states.get(path)
        if state is None:
            state = self._states[path] = await asyncio.to_thread(ChannelStateStore, path)
        media = self.media_dir or state_dir / "media"
        channel: BaseChannel[Any] = cls(section, self.bus, state, media, app_config=self.config)
        return channel

    async def check(self, name: str, section: Any) -> str:
        """Settings → "Test": a cheap real call with ``section`` (not necessarily saved).

        Raises:
            ChannelUnavailable: The SDK is missing.
            Exception: The call failed; its message is for the person.
        """
        info = self.registry[name]
        channel = await self.create(info, section)
        return await channel.check()

    async def stop_channel(self, name: str) -> None:
        """Stop the chat channel ``name`` (if it runs) and wait for it."""
        channel = self._running.pop(name, None)
        task = self._supervisors.pop(name, None)
        for cleanup in self._cleanups.pop(name, []):
            cleanup()
        if channel is not None:
            if self._channels.get(name) is channel:
                del self._channels[name]
            try:
                await channel.stop()
            except Exception:
                log.exception("stopping %s failed", name)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if channel is not None:
            self._set(name, ChannelStatus("stopped"))

    async def stop(self) -> None:
        """Stop delivering and every chat channel.

        Answers in flight to connected channels get ``stop_grace`` seconds to go out; then
        delivering stops (between pieces or in the middle of one) and the rest stays in the
        channels' outboxes, with what the bus still held, for the next start.
        """
        self.stopping = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        await self._settle()
        tasks = [t for t in (self._dispatcher, *self._drains.values()) if t is not None]
        self._dispatcher = None
        self._drains.clear()
        self._queues.clear()
        for task in tasks:
            await cancel_and_wait(task)
        while not self.bus.outbound.empty():  # taken from the bus by nobody yet: keep it
            await self._keep(Delivery(self.bus.outbound.get_nowait()))
        for name in list(self._running):
            await self.stop_channel(name)

    async def _settle(self) -> None:
        """Wait (``stop_grace`` at most) until no answer is on its way to a connected channel."""

        def waiting() -> list[str]:
            names = [n for n, q in self._queues.items() if not q.empty() or n in self._busy]
            return [n for n in names if n not in self._running or self.status(n).ok]

        def undispatched() -> bool:
            running = self._dispatcher is not None and not self._dispatcher.done()
            return running and not self.bus.outbound.empty()

        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.stop_grace
        while (names := waiting()) or undispatched():
            remaining = deadline - loop.time()
            if remaining <= 0:
                log.warning(
                    "stopping with answers on their way to %s; the rest goes out after the "
                    "next start",
                    ", ".join(names) or "the channels",
                )
                return
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await self._changed.wait()

    def _set(self, name: str, status: ChannelStatus) -> ChannelStatus:
        if self._statuses.get(name) != status:
            self._statuses[name] = status
            for waiter in self._status_waiters.get(name, ()):
                waiter.set()
            self._changed.set()
            self._owner.try_spawn(
                self.bus.emit(
                    ChannelStatusChanged(
                        name,
                        status.state,
                        status.reason,
                        status.hint,
                        status.account,
                        login_code=status.login_code,
                    )
                ),
                name=f"status:{name}",
            )
        return status

    async def _supervise(self, channel: BaseChannel[Any]) -> None:
        """Run ``channel``; restart it with backoff when it fails, until it is stopped."""
        loop = asyncio.get_running_loop()
        failures = 0
        while not channel.stopping:
            channel.set_status(ChannelStatus("connecting"))
            started = loop.time()
            try:
                await channel.run()
                if channel.stopping:
                    break
                raise ConnectionError(Phrase(QT_TR_NOOP("the connection ended")))
            except asyncio.CancelledError:
                raise
            except ChannelUnavailable as exc:
                channel.set_status(ChannelStatus("unavailable", exc.reason, exc.hint))
                return
            except Exception as exc:  # noqa: BLE001 - a failing channel is restarted with backoff
                if channel.stopping:
                    break
                if loop.time() - started >= STABLE_S:
                    failures = 0
                delay = self.backoff[min(failures, len(self.backoff) - 1)]
                delay *= 1 + random.uniform(0, 0.1)
                failures += 1
                reason = explain(exc)
                log.warning("%s failed (%s); reconnecting in %.0f s", channel.name, reason, delay)
                again = Phrase(QT_TR_NOOP("Reconnecting in {delay} s."), delay=f"{delay:.0f}")
                channel.set_status(ChannelStatus("error", reason, again))
                await asyncio.sleep(delay)
        channel.set_status(ChannelStatus("stopped"))

    # -- delivery -------------------------------------------------------------------------
    async def _dispatch(self) -> None:
        """Hand each outbound message to its channel's own queue: a channel that is slow or
        reconnecting never holds up the others (the window included); order per channel is
        kept. An answer for a running chat channel is kept in its outbox from here on."""
        while True:
            delivery = Delivery(await self.bus.consume_outbound())
            await self._keep(delivery)
            self._enqueue(delivery)

    async def _keep(self, delivery: Delivery) -> None:
        """Keep ``delivery`` in its chat channel's outbox (answers only, running channels)."""
        channel = self._running.get(delivery.message.channel)
        if channel is not None and not delivery.interim:
            await channel.outbox.add(delivery)

    def _enqueue(self, delivery: Delivery) -> None:
        name = delivery.message.channel
        queue = self._queues.get(name)
        if queue is None:
            queue = self._queues[name] = asyncio.Queue()
            task = self._owner.try_spawn(self._drain(name, queue), name=f"deliver:{name}")
            if task is not None:
                self._drains[name] = task
        queue.put_nowait(delivery)
        self._changed.set()

    async def _drain(self, name: str, queue: asyncio.Queue[Delivery]) -> None:
        while True:
            delivery = await queue.get()
            self._busy.add(name)
            try:
                await self._deliver(delivery)
            finally:
                self._busy.discard(name)
                self._changed.set()

    async def deliver(self, message: OutboundMessage) -> bool:
        """Hand ``message`` to its channel now, retrying; ``False`` when it could not be
        delivered (a :class:`DeliveryFailed` event says so). Not kept across a stop: callers
        keep their own record (cron's receipts)."""
        return await self._deliver(Delivery(message))

    async def _deliver(self, delivery: Delivery) -> bool:  # noqa: C901  # one delivery unit: pieces, retry, outbox and report together
        """Deliver ``delivery`` whole (see :meth:`deliver`); it leaves its outbox once
        delivered or reported, never when cancelled (the app stops: it goes on after the next
        start)."""
        message = delivery.message
        channel = self._channels.get(message.channel)
        if channel is None:
            await delivery.forget()
            if self._fallback is not None:
                try:
                    result = self._fallback(message)
                    if result is not None:
                        await result
                    return True
                except Exception:
                    log.exception("the fallback for %s failed", message.channel)
                    return False
            if delivery.interim:
                return False  # interim notes for a channel that is not running: not worth a notice
            await self._failed(
                message,
                Phrase(QT_TR_NOOP("the {channel} channel is not running"), channel=message.channel),
            )
            return False
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.reconnect_wait
        if delivery.resumed:
            if time.time() - delivery.created > MAX_AGE_S:
                return await self._too_old(channel, delivery, deadline)
            if not self.status(message.channel).ok:
                await self._reconnected(message.channel, deadline)
        while True:
            error = await self._attempt(channel, delivery)
            if error is None:
                await delivery.forget()
                return True
            if delivery.interim or not await self._reconnected(message.channel, deadline):
                break
            log.info("%s is connected again; the waiting answer goes on", message.channel)
            channel = self._channels.get(message.channel)
            if channel is None:
                break
        log.error("giving up sending to %s:%s: %s", message.channel, message.chat_id, error)
        await delivery.forget()
        if not delivery.interim:
            reason = explain(error)
            if delivery.done:
                reason = Phrase(
                    QT_TR_NOOP("{error} ({done} of its parts arrived)"),
                    error=reason,
                    done=delivery.done,
                )
            await self._failed(message, reason)
        return False

    async def _too_old(self, channel: Channel, delivery: Delivery, deadline: float) -> bool:
        """An answer kept too long to send now: the chat gets a note, the window a notice."""
        message = delivery.message
        note = Delivery(
            OutboundMessage(
                message.channel, message.chat_id, NOTE_PART if delivery.done else NOTE_WHOLE
            )
        )
        if not self.status(message.channel).ok:
            await self._reconnected(message.channel, deadline)
        error = await self._attempt(channel, note)
        if error is not None:
            log.warning("%s: the note about an old answer failed too (%s)", message.channel, error)
        await delivery.forget()
        await self._failed(message, Phrase(QT_TR_NOOP("it was too old to send after the restart")))
        return False

    async def _attempt(self, channel: Channel, delivery: Delivery) -> BaseException | None:
        """One round of sending with the quick retries (each resumes at the piece that
        failed); the last error, ``None`` when delivered."""
        error: BaseException | None = None
        message = delivery.message
        for attempt in range(len(self.send_delays) + 1):
            try:
                if isinstance(channel, BaseChannel):
                    await channel.deliver(delivery)
                else:
                    await channel.send(message)
                return None
            except asyncio.CancelledError:
                raise
            except ChannelUnavailable as exc:
                return exc  # a retry cannot fix it
            except Exception as exc:  # noqa: BLE001 - a failed delivery is retried, then reported
                error = exc
                if attempt < len(self.send_delays):
                    log.warning(
                        "sending to %s failed (%s); retrying from part %d",
                        message.channel,
                        explain(exc),
                        delivery.done + 1,
                    )
                    await asyncio.sleep(self.send_delays[attempt])
        assert error is not None
        return error

    async def _reconnected(self, name: str, deadline: float) -> bool:
        """Wait while the chat channel ``name`` is reconnecting; ``True`` once it is connected
        again, ``False`` when it is not reconnecting (connected but refusing, stopped,
        unavailable) or ``deadline`` passed."""
        loop = asyncio.get_running_loop()
        if name not in self._running or self.status(name).state not in ("connecting", "error"):
            return False
        log.warning("%s is reconnecting; the message waits for it", name)
        waiter = asyncio.Event()
        self._status_waiters.setdefault(name, set()).add(waiter)
        try:
            while name in self._running:
                state = self.status(name).state
                if state == "connected":
                    return True
                if state not in ("connecting", "error"):
                    return False
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return False
                waiter.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(remaining):
                        await waiter.wait()
            return False
        finally:
            self._status_waiters[name].discard(waiter)

    async def _failed(self, message: OutboundMessage, reason: str) -> None:
        preview = " ".join(message.content.split())[:120]
        await self.bus.emit(DeliveryFailed(message.channel, message.chat_id, reason, preview))

    async def _forward(self, event: RunEvent) -> None:
        key = getattr(event, "session_key", None)
        if not isinstance(key, str):
            return
        name = key.partition(":")[0]
        if key == UNIFIED_SESSION_KEY:  # one session, many channels: the turn's own channel
            turn = str(getattr(event, "turn_id", ""))
            if isinstance(event, TurnStarted):
                self._unified_turns[turn] = event.channel
            ended = isinstance(event, TurnFinished | TurnStopped | TurnFailed)
            found = self._unified_turns.pop(turn, "") if ended else self._unified_turns.get(turn)
            name = found or ""
        channel = self._running.get(name)
        if channel is not None:
            try:
                await channel.on_event(event)
            except Exception:
                log.exception("%s failed to handle %s", channel.name, event.kind)
