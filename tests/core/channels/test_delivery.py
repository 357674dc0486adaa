"""An answer is delivered whole (the framework, on the loopback network): its pieces go in
order, a failed piece is sent again from that piece, stopping waits a bounded time for an
answer in flight and keeps the rest in the channel's outbox, and the next start delivers it
once — or, when it is too old, says that it could not."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from desktop.core.bus.events import DeliveryFailed, OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.outbox import NOTE_PART
from desktop.core.channels.registry import ChannelInfo
from desktop.core.utils.tasks import TaskOwner
from tests.core.channels import loopback
from tests.core.channels.loopback import Network
from tests.waiting import until

INFO = ChannelInfo("loopback", "Loopback", "tests.core.channels.loopback", "LoopbackChannel", "x")
PARTS = [f"Part {i}. " + " ".join(["word"] * 8) for i in range(6)]
ANSWER = "\n\n".join(PARTS)


@pytest.fixture(autouse=True)
def network(monkeypatch: pytest.MonkeyPatch) -> Network:
    fresh = Network(limit=60)  # every part of ANSWER is one piece
    monkeypatch.setattr(loopback, "NETWORK", fresh)
    return fresh


def _manager(tmp_path: Path, bus: MessageBus, **options: Any) -> tuple[ChannelManager, TaskOwner]:
    owner = TaskOwner("test-delivery")
    config = SimpleNamespace(channels=SimpleNamespace(loopback=loopback.section()))
    manager = ChannelManager(
        bus,
        owner,
        config=config,  # type: ignore[arg-type]
        state_dir=tmp_path / "state",
        media_dir=tmp_path / "media",
        send_delays=(0.01, 0.01),
        backoff=(0.05, 0.1),
        registry={"loopback": INFO},
        **options,
    )
    return manager, owner


def _outbox(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "state" / "loopback.json"
    if not path.exists():
        return []
    return list(json.loads(path.read_text())["values"].get("outbox", []))


def _texts(network: Network) -> list[str]:
    return [m.content for m in network.sent]


def _failures(bus: MessageBus) -> list[DeliveryFailed]:
    found: list[DeliveryFailed] = []
    bus.subscribe(lambda e: found.append(e) if isinstance(e, DeliveryFailed) else None)
    return found


async def _started(
    tmp_path: Path, bus: MessageBus, **options: Any
) -> tuple[ChannelManager, TaskOwner]:
    manager, owner = _manager(tmp_path, bus, **options)
    await manager.start()
    await until(lambda: manager.status("loopback").ok, what="connected")
    return manager, owner


async def _close(manager: ChannelManager, owner: TaskOwner) -> None:
    await manager.stop()
    await owner.aclose()


async def test_a_failed_piece_is_sent_again_from_that_piece_never_skipped_never_twice(
    tmp_path: Path, network: Network
) -> None:
    bus = MessageBus()
    failures = _failures(bus)
    manager, owner = await _started(tmp_path, bus)
    try:
        network.fail_at = {3: 2}  # the fourth piece fails twice (a connection reset)
        await bus.publish_outbound(OutboundMessage("loopback", "42", ANSWER))
        await until(lambda: _texts(network) == PARTS, what="every piece, in order, once")
        await until(lambda: _outbox(tmp_path) == [], what="the answer leaves the outbox")
        # a piece that keeps failing: the answer is reported, with how much of it arrived
        network.fail_at = {2: 99}
        assert not await manager.deliver(OutboundMessage("loopback", "42", ANSWER))
        assert _texts(network) == PARTS + PARTS[:2]
        assert [f.reason for f in failures] == [
            "The connection was reset while sending part 3 (2 of its parts arrived)"
        ]
    finally:
        await _close(manager, owner)


async def test_stopping_waits_for_an_answer_in_flight(tmp_path: Path, network: Network) -> None:
    bus = MessageBus()
    manager, owner = await _started(tmp_path, bus)
    network.hold, network.hold_at = asyncio.Event(), 2
    await bus.publish_outbound(OutboundMessage("loopback", "42", ANSWER))
    await until(lambda: network.waiting == 1, what="the third piece on its way")
    stopping = asyncio.create_task(manager.stop())
    await until(lambda: manager.stopping, what="stop begun")
    assert not stopping.done() and manager.status("loopback").ok, "the channel is still up"
    network.hold.set()  # the network answers within the grace period
    await stopping
    await owner.aclose()
    assert _texts(network) == PARTS
    assert _outbox(tmp_path) == []


async def test_stopping_mid_answer_keeps_the_rest_and_the_next_start_delivers_it_once(
    tmp_path: Path, network: Network
) -> None:
    bus = MessageBus()
    failures = _failures(bus)
    manager, owner = await _started(tmp_path, bus, stop_grace=0.05)
    network.hold, network.hold_at = asyncio.Event(), 2
    more = ["And then. " + " ".join(["more"] * 8), "The end. " + " ".join(["done"] * 8)]
    second = "\n\n".join(more)
    await bus.publish_outbound(
        OutboundMessage("loopback", "42", ANSWER, metadata={"turn_id": "t1"})
    )
    await bus.publish_outbound(
        OutboundMessage("loopback", "42", "thinking…", metadata={"progress": True})
    )
    await bus.publish_outbound(OutboundMessage("loopback", "42", second))
    await until(lambda: network.waiting == 1, what="the third piece on its way")
    await _close(manager, owner)  # the grace passes: the third piece never arrived
    assert _texts(network) == PARTS[:2]
    kept = _outbox(tmp_path)
    assert [(k["content"], k["done"]) for k in kept] == [(ANSWER, 2), (second, 0)]
    assert kept[0]["metadata"] == {"turn_id": "t1"}, "the progress note is not kept"

    network.hold = None
    network.fail_connects = 1  # the kept answers wait for the connection
    bus = MessageBus()
    failures = _failures(bus)
    manager, owner = _manager(tmp_path, bus)
    await manager.start()
    try:
        expected = PARTS + more
        await until(lambda: _texts(network) == expected, what="the rest, once, in order")
        await until(lambda: _outbox(tmp_path) == [], what="the outbox empty")
        assert network.connects == 3 and failures == []
        # restarting the channel (new settings) in the same process sends nothing again
        await manager.start_channel("loopback")
        await until(lambda: manager.status("loopback").ok, what="connected again")
        await bus.publish_outbound(OutboundMessage("loopback", "42", "later"))
        await until(lambda: _texts(network)[-1:] == ["later"], what="the next answer")
        assert _texts(network) == [*expected, "later"]
    finally:
        await _close(manager, owner)


async def test_an_answer_kept_too_long_is_replaced_by_a_note(
    tmp_path: Path, network: Network
) -> None:
    old: dict[str, Any] = {"id": "a" * 32, "channel": "loopback", "chat_id": "42", "content": ANSWER,
           "reply_to": None, "media": [], "metadata": {}, "created": time.time() - 3 * 86400,
           "done": 2, "keys": {}}  # fmt: skip
    state = tmp_path / "state" / "loopback.json"
    state.parent.mkdir(parents=True)
    unusable = {"id": 7, "content": None}
    state.write_text(json.dumps({"values": {"outbox": [unusable, old]}, "seen": []}))
    bus = MessageBus()
    failures = _failures(bus)
    manager, owner = await _started(tmp_path, bus)
    try:
        await until(lambda: _texts(network) == [NOTE_PART], what="the note")
        await until(lambda: failures, what="the window told")
        assert failures[0].reason == "it was too old to send after the restart"
        await until(lambda: _outbox(tmp_path) == [], what="the outbox empty")
    finally:
        await _close(manager, owner)


async def test_an_outbox_that_cannot_be_saved_does_not_stop_delivery(
    tmp_path: Path, network: Network, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "state").write_text("a file where the state folder should be")
    bus = MessageBus()
    failures = _failures(bus)
    manager, owner = await _started(tmp_path, bus)
    try:
        await bus.publish_outbound(OutboundMessage("loopback", "42", ANSWER))
        await until(lambda: _texts(network) == PARTS, what="every piece all the same")
        await bus.publish_outbound(OutboundMessage("loopback", "42", "and the next one"))
        await until(lambda: _texts(network)[-1:] == ["and the next one"], what="the next answer")
        assert failures == []
        assert "undelivered answers could not be saved" in caplog.text
    finally:
        await _close(manager, owner)
