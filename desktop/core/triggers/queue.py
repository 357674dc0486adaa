"""Delivering queued trigger messages as turns in their chats (the app's and the gateway's part
of nanobot 0.3.5's local triggers; ``nanobot-desktop trigger`` runs it once when neither runs).

A delivery becomes an :class:`InboundMessage` from ``trigger`` in the trigger's chat and
session, with the text nanobot keeps in the session (``Local trigger received: <name>`` and
the message), so the chat shows it and the model answers it like any message there; the
answer goes where that chat's answers go. The delivery is done (``ok``) when its turn ended;
a turn that failed is recorded as an error and not retried (it reached the agent, as in
0.3.5); anything else before the turn is retried up to :data:`~.store.MAX_ATTEMPTS` times.

While it runs the queue looks at ``inbox/`` when a file lands there (nanobot's command line
writes there without telling anyone; an inotify watch,
:class:`~desktop.core.utils.dir_watch.DirWatch`, wakes it) and at once when
:meth:`TriggerQueue.wake` is called (our command line says so over the agent socket). Where no watch can be had (not Linux, the folder gone) it looks
every :data:`POLL_S` seconds instead, and tries the watch again each time.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from desktop.core.bus.events import (
    Ack,
    AckOutcome,
    InboundMessage,
    RunEvent,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.bus.queue import MessageBus
from desktop.core.triggers.store import TriggerStore
from desktop.core.triggers.types import Delivery, Trigger
from desktop.core.utils.dir_watch import DirWatch
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

POLL_S = 2.0
META_KEY = "_local_trigger"  # nanobot 0.3.5's metadata key


class DeliveryRefused(Exception):
    """The delivery cannot be made and never will (no trigger, turned off, no channel)."""


class TurnEnded(Exception):
    """The delivery's turn reached the agent and failed."""


def history_text(trigger: Trigger, delivery: Delivery) -> str:
    """What the session keeps as the user message (nanobot's ``persist_content``)."""
    label = trigger.name.strip() or trigger.id
    return f"Local trigger received: {label}\n\n{delivery.content}"


class TriggerQueue:
    """Delivers the workspace's queued trigger messages (see the module docstring).

    Args:
        store: The workspace's trigger store.
        bus: Where the messages go in and the turns' events come out.
        owner: Owns the queue's task.
        channel_ready: Whether answers can go to a channel (a trigger of a channel that is
            not enabled here is refused, as in 0.3.5).
        poll_s: Seconds between looks at the inbox when it cannot be watched.
    """

    def __init__(
        self,
        store: TriggerStore,
        bus: MessageBus,
        owner: TaskOwner,
        *,
        channel_ready: Callable[[str], bool],
        poll_s: float = POLL_S,
    ) -> None:
        self.store = store
        self.bus = bus
        self._owner = owner
        self._ready = channel_ready
        self._poll_s = poll_s
        self._wake = asyncio.Event()
        self._started = False
        self._watch: DirWatch | None = None

    def start(self) -> None:
        """Requeue what a stopped runtime left half-delivered, then deliver until stopped."""
        if not self._started:
            self._started = True
            self._owner.try_spawn(self._run(), name="trigger-queue")

    def wake(self) -> None:
        """Look at the inbox now (a delivery was just queued)."""
        self._wake.set()

    async def _run(self) -> None:
        recovered = await asyncio.to_thread(self.store.recover)  # makes the folders too
        if recovered:
            log.warning("requeued %d interrupted trigger delivery(ies)", recovered)
        try:
            while True:
                self._wake.clear()
                watched = self._watch_inbox()  # before the look: nothing lands unseen
                try:
                    await self.drain()
                except asyncio.CancelledError:
                    raise
                except Exception:  # a broken store must not end the queue
                    log.exception("delivering trigger messages failed")
                if watched:
                    await self._wake.wait()  # no timer: asleep until a file lands
                    continue
                try:
                    async with asyncio.timeout(self._poll_s):
                        await self._wake.wait()
                except TimeoutError:
                    pass
        finally:
            if self._watch is not None:
                self._watch.close()

    def _watch_inbox(self) -> bool:
        """Keep an inotify watch on the inbox (a new one when the folder came back); whether
        there is one."""
        if self._watch is None or not self._watch.alive:
            self._watch = DirWatch.open(self.store.inbox, self._wake.set)
        return self._watch is not None

    async def drain(self) -> int:
        """Deliver everything queued now, oldest first; how many deliveries were handled."""
        handled = 0
        while await asyncio.to_thread(self.store.pending):
            batch = await asyncio.to_thread(self.store.claim)
            if not batch:
                break
            for delivery in batch:
                await self._handle(delivery)
                handled += 1
        return handled

    async def _handle(self, delivery: Delivery) -> None:
        store = self.store
        try:
            response = await self._deliver(delivery)
        except asyncio.CancelledError as exc:
            reason = str(exc) or "CancelledError"
            await asyncio.to_thread(store.retry, delivery, reason)
            await asyncio.to_thread(store.run_record, delivery, "interrupted", error=reason)
            raise
        except (DeliveryRefused, TurnEnded) as exc:
            await self._ended(delivery, str(exc))
            log.warning("trigger delivery %s for %s: %s", delivery.id, delivery.trigger_id, exc)
        except Exception as exc:
            error = str(exc) or type(exc).__name__
            again = await asyncio.to_thread(store.retry, delivery, error)
            await asyncio.to_thread(
                store.run_record, delivery, "retrying" if again else "error", error=error
            )
            await asyncio.to_thread(
                store.record,
                delivery.trigger_id,
                ok=False,
                error=error,
                at_ms=delivery.created_at_ms,
            )
            log.exception("trigger delivery %s failed", delivery.id)
        else:
            await asyncio.to_thread(
                store.record, delivery.trigger_id, ok=True, at_ms=delivery.created_at_ms
            )
            await asyncio.to_thread(store.run_record, delivery, "ok", response=response)
            await asyncio.to_thread(store.complete, delivery)

    async def _ended(self, delivery: Delivery, error: str) -> None:
        store = self.store
        await asyncio.to_thread(
            store.record, delivery.trigger_id, ok=False, error=error, at_ms=delivery.created_at_ms
        )
        await asyncio.to_thread(store.run_record, delivery, "error", error=error)
        await asyncio.to_thread(store.complete, delivery)

    async def _deliver(self, delivery: Delivery) -> str:
        """Run the delivery's turn in its chat; its answer.

        Raises:
            DeliveryRefused: See the class.
            TurnEnded: The turn failed or was stopped.
        """
        trigger = await asyncio.to_thread(self.store.get, delivery.trigger_id)
        if trigger is None:
            raise DeliveryRefused("trigger not found")
        if not trigger.enabled:
            raise DeliveryRefused("trigger is disabled")
        if not self._ready(trigger.channel):
            raise DeliveryRefused(f"target channel is not enabled: {trigger.channel}")
        await asyncio.to_thread(self.store.run_record, delivery, "processing", trigger=trigger)
        message = InboundMessage(
            trigger.channel,
            trigger.sender_id,
            trigger.chat_id,
            history_text(trigger, delivery),
            metadata=_metadata(trigger, delivery),
            session_key_override=trigger.session_key,
        )
        event = await self._turn(message)
        if isinstance(event, TurnFinished):
            return event.content
        if isinstance(event, TurnFailed):
            raise TurnEnded(event.message or "the turn failed")
        if isinstance(event, TurnStopped):
            raise TurnEnded("the turn was stopped")
        raise TurnEnded("the message was dropped before its turn began")

    async def _turn(self, message: InboundMessage) -> RunEvent | None:
        """Publish ``message`` and wait for the end of its turn (``None``: dropped unrun)."""
        ended: asyncio.Future[RunEvent | None] = asyncio.get_running_loop().create_future()
        turn: list[str] = []

        def on_event(event: RunEvent) -> None:
            if isinstance(event, TurnStarted) and event.request_id == message.id:
                turn.append(event.turn_id)
            elif (
                isinstance(event, TurnFinished | TurnStopped | TurnFailed)
                and event.turn_id in turn
                and not ended.done()
            ):
                ended.set_result(event)

        async def on_ack(outcome: AckOutcome) -> None:
            if outcome == "dropped" and not turn and not ended.done():
                ended.set_result(None)

        message.ack = Ack(on_ack)
        unsubscribe = self.bus.subscribe(on_event)
        try:
            await self.bus.publish_inbound(message)
            return await ended
        finally:
            unsubscribe()


def _metadata(trigger: Trigger, delivery: Delivery) -> dict[str, Any]:
    metadata = dict(trigger.origin_metadata)
    metadata[META_KEY] = {
        "trigger_id": trigger.id,
        "trigger_name": trigger.name,
        "delivery_id": delivery.id,
        "created_at_ms": delivery.created_at_ms,
        "persist_content": history_text(trigger, delivery),
    }
    return metadata
