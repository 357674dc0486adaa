"""The channel manager: delivers outbound messages to the channel they are addressed to.

Every front end is a channel: the desktop window registers itself (``desktop``), the chat
networks (Telegram, e-mail, Matrix, …) are started from the config. The manager owns the one
consumer of the bus's outbound queue and hands each message to its channel's ``send``. A
message for a channel that is not running goes to the fallback (the gateway prints it; the app
logs it), never silently nowhere.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from desktop.core.bus.events import OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

Fallback = Callable[[OutboundMessage], Awaitable[None] | None]


class Channel(Protocol):
    """A place messages go: the window, a chat network."""

    name: str

    async def send(self, message: OutboundMessage) -> None:
        """Deliver ``message`` (raise on failure)."""
        ...


class ChannelManager:
    """Routes the bus's outbound messages to registered channels.

    Args:
        bus: The message bus (its outbound queue has exactly one consumer: this manager).
        owner: Owns the dispatcher task.
    """

    def __init__(self, bus: MessageBus, owner: TaskOwner) -> None:
        self.bus = bus
        self._owner = owner
        self._channels: dict[str, Channel] = {}
        self._fallback: Fallback | None = None

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

    def channel(self, name: str) -> Channel | None:
        """The registered channel called ``name``."""
        return self._channels.get(name)

    def start(self) -> None:
        """Start delivering."""
        self._owner.spawn(self._dispatch(), name="outbound")

    async def _dispatch(self) -> None:
        while True:
            message = await self.bus.consume_outbound()
            await self.deliver(message)

    async def deliver(self, message: OutboundMessage) -> None:
        """Hand ``message`` to its channel (a failure is logged; the dispatcher goes on)."""
        channel = self._channels.get(message.channel)
        try:
            if channel is not None:
                await channel.send(message)
            elif self._fallback is not None:
                result = self._fallback(message)
                if result is not None:
                    await result
            else:
                log.info("no channel %r is running; message not delivered", message.channel)
        except Exception:
            log.exception("delivering a message to %s failed", message.channel)
