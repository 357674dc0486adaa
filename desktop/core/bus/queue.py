"""The message bus: two asyncio queues and a fan-out for run events."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from desktop.core.bus.events import InboundMessage, OutboundMessage, RunEvent

log = logging.getLogger(__name__)

EventListener = Callable[[RunEvent], Awaitable[None] | None]


class MessageBus:
    """Inbound messages for the agent, outbound messages for channels, events for front ends."""

    def __init__(self) -> None:
        self.inbound: asyncio.Queue[InboundMessage] = asyncio.Queue()
        self.outbound: asyncio.Queue[OutboundMessage] = asyncio.Queue()
        self._listeners: list[EventListener] = []

    async def publish_inbound(self, message: InboundMessage) -> None:
        """Queue a message for the agent."""
        await self.inbound.put(message)

    async def publish_outbound(self, message: OutboundMessage) -> None:
        """Queue a message for a channel."""
        await self.outbound.put(message)

    async def consume_inbound(self) -> InboundMessage:
        """Wait for the next message for the agent."""
        return await self.inbound.get()

    async def consume_outbound(self) -> OutboundMessage:
        """Wait for the next message for a channel."""
        return await self.outbound.get()

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """Receive every run event; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def emit(self, event: RunEvent) -> None:
        """Deliver ``event`` to every listener; a failing listener is logged and skipped."""
        for listener in list(self._listeners):
            try:
                result = listener(event)
                if result is not None:
                    await result
            except Exception:
                log.exception("run event listener failed on %s", event.kind)
