"""A loopback chat network for testing the channel framework (not any real SDK).

:class:`LoopbackChannel` is a real :class:`BaseChannel`; its "network" is a
:class:`Network` object the test drives: messages people write, failures to inject, what the
bot sent.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, ClassVar

from desktop.core.bus.events import OutboundMessage, RunEvent
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, split_message
from desktop.core.channels.outbox import Delivery


@dataclass
class Network:
    """What the test controls."""

    incoming: asyncio.Queue[tuple[str, str, str]] = field(default_factory=asyncio.Queue)
    sent: list[OutboundMessage] = field(default_factory=list)
    connects: int = 0
    fail_connects: int = 0  # the next N connects fail
    fail_sends: int = 0  # the next N pieces fail
    fail_at: dict[int, int] = field(default_factory=dict)  # piece index → its next N sends fail
    limit: int = 10_000  # an answer goes in pieces of at most this many characters
    hold: asyncio.Event | None = None  # while set to an unset event, a piece waits for it
    hold_at: int | None = None  # only the piece with this index waits (None: every piece)
    waiting: int = 0  # pieces waiting for ``hold``
    drop_after: int | None = None  # the connection breaks after N received messages
    events: list[str] = field(default_factory=list)


NETWORK = Network()


class LoopbackChannel(BaseChannel):
    """A channel on :data:`NETWORK`."""

    name: ClassVar[str] = "loopback"
    display_name: ClassVar[str] = "Loopback"

    async def run(self) -> None:
        NETWORK.connects += 1
        if getattr(self.config, "token", "") == "":
            raise ChannelUnavailable("no token set", "Fill in the token in Settings")
        if NETWORK.fail_connects:
            NETWORK.fail_connects -= 1
            raise ConnectionError("the network is down")
        self.set_status(ChannelStatus("connected", account="@loopback_bot"))
        received = 0
        while not self.stopping:
            sender, chat_id, text = await NETWORK.incoming.get()
            await self.publish(sender, chat_id, text)
            received += 1
            if NETWORK.drop_after is not None and received >= NETWORK.drop_after:
                NETWORK.drop_after = None
                raise ConnectionError("connection reset by peer")

    async def pieces(self, message: OutboundMessage) -> list[str]:
        return split_message(message.content, NETWORK.limit) if message.content else [""]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        hold = NETWORK.hold
        if hold is not None and not hold.is_set() and NETWORK.hold_at in (None, index):
            NETWORK.waiting += 1
            try:
                await hold.wait()
            finally:
                NETWORK.waiting -= 1
        if NETWORK.fail_at.get(index):
            NETWORK.fail_at[index] -= 1
            raise ConnectionError(f"the connection was reset while sending part {index + 1}")
        if NETWORK.fail_sends:
            NETWORK.fail_sends -= 1
            raise ConnectionError("send failed")
        message = delivery.message
        NETWORK.sent.append(OutboundMessage(message.channel, message.chat_id, piece))

    async def check(self) -> str:
        if getattr(self.config, "token", "") != "good":
            raise ValueError("the token was rejected")
        return "Connected as @loopback_bot"

    async def on_event(self, event: RunEvent) -> None:
        NETWORK.events.append(event.kind)


def section(**values: Any) -> Any:
    """A config section for the loopback channel."""
    from types import SimpleNamespace

    base = {"enabled": True, "allow_from": ["*"], "token": "t"}
    base.update(values)
    return SimpleNamespace(**base)
