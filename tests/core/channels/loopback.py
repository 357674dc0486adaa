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
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable


@dataclass
class Network:
    """What the test controls."""

    incoming: asyncio.Queue[tuple[str, str, str]] = field(default_factory=asyncio.Queue)
    sent: list[OutboundMessage] = field(default_factory=list)
    connects: int = 0
    fail_connects: int = 0  # the next N connects fail
    fail_sends: int = 0  # the next N sends fail
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

    async def send(self, message: OutboundMessage) -> None:
        if NETWORK.fail_sends:
            NETWORK.fail_sends -= 1
            raise ConnectionError("send failed")
        NETWORK.sent.append(message)

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
