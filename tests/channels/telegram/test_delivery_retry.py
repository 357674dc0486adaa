"""An answer survives a channel that is down for longer than the quick send retries: it waits
for the reconnect (bounded) and is delivered once, against the local Bot API server."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktop.core.bus.events import DeliveryFailed, OutboundMessage, RunEvent
from desktop.core.bus.queue import MessageBus
from desktop.core.channels import manager as manager_module
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.registry import CHANNELS
from desktop.core.config.channels.telegram import TelegramConfig
from desktop.core.utils.tasks import TaskOwner
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer
from tests.channels.telegram.conftest import CHAT, until


def _manager(
    api: BotApiServer, bus: MessageBus, tmp_path: Path, **options: object
) -> tuple[ChannelManager, TaskOwner]:
    owner = TaskOwner("test")
    section = TelegramConfig(
        enabled=True, token=TOKEN, base_url=api.base_url, allow_from=["*"], react_emoji=""
    )
    manager = ChannelManager(
        bus,
        owner,
        config=SimpleNamespace(channels=SimpleNamespace(telegram=section)),  # type: ignore[arg-type]
        state_dir=tmp_path / "state",
        media_dir=tmp_path / "media",
        registry={"telegram": CHANNELS["telegram"]},
        backoff=(0.3,),
        **options,  # type: ignore[arg-type]
    )
    return manager, owner


async def test_an_answer_waits_for_the_reconnect_and_arrives_once(
    api: BotApiServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Down past the quick retries: the answer waits for the reconnect and arrives once."""
    caplog.set_level(logging.WARNING, logger=manager_module.__name__)
    bus = MessageBus()
    events: list[RunEvent] = []
    bus.subscribe(events.append)
    # Two quick retries as by default (1 s, 3 s), made short: what is tested is what
    # happens after they are used up, not their length.
    manager, owner = _manager(api, bus, tmp_path, send_delays=(0.05, 0.15))
    await manager.start()
    try:
        await until(lambda: manager.status("telegram").ok, what="connected")
        await api.stop()
        await until(lambda: manager.status("telegram").state == "error", what="reconnecting")
        await bus.publish_outbound(OutboundMessage("telegram", str(CHAT), "Still here."))
        # The test: the quick retries are over and the answer waits for the channel, which
        # is still down.
        await until(lambda: "the message waits for it" in caplog.text, what="the answer to wait")
        assert api.texts(CHAT) == []
        await api.start()
        await until(lambda: api.texts(CHAT) == ["Still here."], what="the answer")
        # Nothing more arrives: answers to a channel go out one after another, so a second
        # copy of the first would come before the next answer.
        await bus.publish_outbound(OutboundMessage("telegram", str(CHAT), "Next."))
        await until(lambda: len(api.texts(CHAT)) >= 2, what="the next answer")
    finally:
        await manager.stop()
        await owner.aclose()
    assert api.texts(CHAT) == ["Still here.", "Next."]
    assert not [e for e in events if isinstance(e, DeliveryFailed)]


async def test_a_channel_that_stays_down_fails_the_delivery_after_the_bound(
    api: BotApiServer, tmp_path: Path
) -> None:
    bus = MessageBus()
    events: list[RunEvent] = []
    bus.subscribe(events.append)
    manager, owner = _manager(api, bus, tmp_path, send_delays=(0.1,), reconnect_wait=0.5)
    await manager.start()
    try:
        await until(lambda: manager.status("telegram").ok, what="connected")
        await api.stop()
        await until(lambda: manager.status("telegram").state == "error", what="reconnecting")
        await bus.publish_outbound(OutboundMessage("telegram", str(CHAT), "Lost?"))
        await until(lambda: any(isinstance(e, DeliveryFailed) for e in events), what="the failure")
    finally:
        await manager.stop()
        await owner.aclose()
    failed = [e for e in events if isinstance(e, DeliveryFailed)]
    assert len(failed) == 1 and failed[0].chat_id == str(CHAT)
