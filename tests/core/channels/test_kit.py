"""The channel kit: what every channel gets from ``BaseChannel`` without an ``__init__`` of its
own (a typed config, secrets registered, a task owner closed on stop, a ``setup`` hook)."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.bus.events import OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.base import BaseChannel
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.state import ChannelStateStore
from desktop.core.config.base import ChannelBase
from desktop.core.utils.redact import redact_known


class _KitConfig(ChannelBase):
    api_token: str = ""


class _KitChannel(BaseChannel[_KitConfig]):
    name: ClassVar[str] = "kit"
    secret_fields: ClassVar[tuple[str, ...]] = ("api_token",)

    def setup(self) -> None:
        self.seen_state = self.state is not None and self.owner is not None
        self.token_length = len(self.config.api_token)

    async def run(self) -> None:
        await self.wait_stopped()

    async def pieces(self, message: OutboundMessage) -> list[str]:
        return [message.content]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        return None


async def test_the_base_does_what_every_channel_repeated(tmp_path: Path) -> None:
    secret = "kit-secret-token-8c1f27"
    state = await asyncio.to_thread(ChannelStateStore, tmp_path / "kit.json")
    channel = _KitChannel(
        _KitConfig(api_token=secret), MessageBus(), state, tmp_path / "media", app_config=None
    )
    assert channel.seen_state and channel.token_length == len(secret), "setup() ran, after the base"
    assert secret not in redact_known(f"the token {secret} leaked"), "secret_fields registered"

    started = asyncio.Event()

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    task = channel.spawn(forever(), name="background")
    assert task is not None and task.get_name() == "kit:background"
    await started.wait()
    await channel.stop()
    assert channel.stopping and task.cancelled(), "stop() cancelled and awaited the task"

    late = forever()
    assert channel.spawn(late, name="late") is None, "nothing starts once stopping"
    assert inspect.getcoroutinestate(late) == inspect.CORO_CLOSED, "closed, not left unawaited"
