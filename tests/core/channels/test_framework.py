"""The channel framework: allowFrom, message splitting, persistent state, the manager's
supervision (restart with backoff, status events), delivery (retries, failures reported) and
approvals answered by a reply keyword — with a real agent runtime on the scripted server."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalGate, ApprovalPolicy, ApprovalRequest, Decision
from desktop.core.bus.events import (
    ChannelStatusChanged,
    DeliveryFailed,
    OutboundMessage,
    RunEvent,
)
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.approvals import parse_answer
from desktop.core.channels.base import SenderShape, allowed, split_message
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.registry import ChannelInfo
from desktop.core.channels.state import ChannelStateStore
from desktop.core.utils.tasks import TaskOwner
from tests.core.channels import loopback
from tests.core.channels.loopback import Network
from tests.waiting import until

INFO = ChannelInfo("loopback", "Loopback", "tests.core.channels.loopback", "LoopbackChannel", "x")
MISSING = ChannelInfo("ghost", "Ghost", "tests.core.channels.loopback", "LoopbackChannel",
                      "ghost", ("a_module_that_is_not_installed",))  # fmt: skip


@pytest.fixture(autouse=True)
def fresh_network(monkeypatch: pytest.MonkeyPatch) -> Network:
    network = Network()
    monkeypatch.setattr(loopback, "NETWORK", network)
    return network


def _manager(tmp_path: Path, bus: MessageBus, **section: Any) -> tuple[ChannelManager, TaskOwner]:
    owner = TaskOwner("test-channels")
    config = SimpleNamespace(
        channels=SimpleNamespace(loopback=loopback.section(**section), ghost=loopback.section())
    )
    manager = ChannelManager(
        bus,
        owner,
        config=config,  # type: ignore[arg-type]
        state_dir=tmp_path / "state",
        media_dir=tmp_path / "media",
        send_delays=(0.01, 0.01),
        backoff=(0.05, 0.1),
        registry={"loopback": INFO, "ghost": MISSING},
    )
    return manager, owner


@pytest.mark.parametrize(
    ("allow", "sender", "shape", "expected"),
    [
        ([], "42|ada", "id|name", False),
        (["*"], "42|ada", "id|name", True),
        (["42"], "42|ada", "id|name", True),
        (["42|ada"], "42|ada", "id|name", True),
        (["42|ada_before"], "42|ada", "id|name", True),  # renamed since: the id still matches
        (["ada"], "42|ada", "id|name", False),  # a name alone never matches
        (["@ada"], "42|ada", "id|name", False),
        (["|ada"], "42|ada", "id|name", False),
        (["43|ada"], "42|ada", "id|name", False),  # someone else who had the name
        (["43"], "42|ada", "id|name", False),
        (["4"], "42|ada", "id|name", False),  # no partial matches
        (["42"], "42", "id|name", True),  # no username
        (["ou_1"], "ou_1|u_9", "id|id", True),  # Feishu open_id|user_id: both are ids
        (["u_9"], "ou_1|u_9", "id|id", True),
        (["u_8"], "ou_1|u_9", "id|id", False),
        (["4915112345678"], "4915112345678|2222", "id|id", True),  # WhatsApp phone|lid
        (["alice@example.org"], "alice@example.org", "opaque", True),
        (["bob@example.org"], "alice@example.org", "opaque", False),
        (["alice@example.org"], "evil|alice@example.org", "opaque", False),  # matched whole
        (["evil"], "evil|alice@example.org", "opaque", False),
        ([" ", ""], "42", "opaque", False),
    ],
)
def test_allow_from_semantics(
    allow: list[str], sender: str, shape: SenderShape, expected: bool
) -> None:
    assert allowed(allow, sender, shape=shape) is expected


def test_an_empty_allow_list_may_mean_everyone_when_the_channel_says_so() -> None:
    assert allowed([], "x", open_when_empty=True) is True


def test_split_message_keeps_boundaries_and_limits() -> None:
    paragraphs = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(30))
    pieces = split_message(paragraphs, 1000)
    assert all(len(p) <= 1000 for p in pieces)
    assert all(p.startswith("Paragraph") for p in pieces), "cut on paragraph boundaries"
    assert " ".join(" ".join(pieces).split()) == " ".join(paragraphs.split())
    long_word = "x" * 2500
    assert [len(p) for p in split_message(long_word, 1000)] == [1000, 1000, 500]
    assert split_message("short", 10) == ["short"]


def test_state_store_survives_restarts_and_sets_damage_aside(tmp_path: Path) -> None:
    path = tmp_path / "telegram.json"
    store = ChannelStateStore(path)
    store.update(offset=41, seen=["m1", "m2"])
    again = ChannelStateStore(path)
    assert again.get("offset") == 41 and again.seen("m1") and not again.seen("m3")
    path.write_text("{broken", encoding="utf-8")
    damaged = ChannelStateStore(path)
    assert damaged.get("offset") is None and damaged.warning
    assert list(tmp_path.glob("telegram.json.corrupt-*"))


def test_keyword_answers() -> None:
    assert parse_answer(" Allow ") is Decision.ALLOW_ONCE
    assert parse_answer("allow chat") is Decision.ALLOW_SESSION
    assert parse_answer("ALWAYS!") is Decision.ALWAYS
    assert parse_answer("deny.") is Decision.DENY
    assert parse_answer("please allow it") is None


async def test_missing_sdk_makes_the_channel_unavailable_with_a_hint(tmp_path: Path) -> None:
    bus = MessageBus()
    events: list[RunEvent] = []
    bus.subscribe(events.append)
    manager, owner = _manager(tmp_path, bus)
    status = await manager.start_channel("ghost")
    assert status.state == "unavailable" and 'pip install "nanobot-desktop[ghost]"' in status.hint
    await until(lambda: any(isinstance(e, ChannelStatusChanged) for e in events))
    await owner.aclose()


async def test_a_failing_channel_is_restarted_and_reports_its_status(
    tmp_path: Path, fresh_network: Network
) -> None:
    bus = MessageBus()
    states: list[str] = []
    bus.subscribe(lambda e: states.append(e.state) if isinstance(e, ChannelStatusChanged) else None)
    fresh_network.fail_connects = 2
    manager, owner = _manager(tmp_path, bus)
    await manager.start()
    await until(lambda: manager.status("loopback").state == "connected")
    assert fresh_network.connects == 3
    await until(lambda: states and states[-1] == "connected")  # events follow the status
    assert states.count("error") == 2
    assert manager.status("loopback").account == "@loopback_bot"
    # the connection drops while receiving: reconnected, nothing lost
    fresh_network.drop_after = 1
    await fresh_network.incoming.put(("42|ada", "42", "first"))
    await fresh_network.incoming.put(("42|ada", "42", "second"))
    first = await asyncio.wait_for(bus.consume_inbound(), 30)
    second = await asyncio.wait_for(bus.consume_inbound(), 30)
    assert [first.content, second.content] == ["first", "second"]
    assert fresh_network.connects == 4
    await manager.stop()
    assert manager.status("loopback").state == "stopped"
    await owner.aclose()


async def test_a_missing_setting_is_not_retried(tmp_path: Path, fresh_network: Network) -> None:
    bus = MessageBus()
    manager, owner = _manager(tmp_path, bus, token="")
    await manager.start_channel("loopback")
    await until(lambda: manager.status("loopback").state == "unavailable")
    assert manager.status("loopback").hint == "Fill in the token in Settings"
    await asyncio.sleep(0.3)  # the test: no retry comes
    assert fresh_network.connects == 1
    await owner.aclose()


async def test_delivery_is_retried_and_a_final_failure_is_reported(
    tmp_path: Path, fresh_network: Network
) -> None:
    bus = MessageBus()
    failures: list[DeliveryFailed] = []
    bus.subscribe(lambda e: failures.append(e) if isinstance(e, DeliveryFailed) else None)
    manager, owner = _manager(tmp_path, bus)
    await manager.start()
    await until(lambda: manager.status("loopback").ok)
    fresh_network.fail_sends = 2
    assert await manager.deliver(OutboundMessage("loopback", "42", "after two failures"))
    assert [m.content for m in fresh_network.sent] == ["after two failures"]
    fresh_network.fail_sends = 3
    assert not await manager.deliver(OutboundMessage("loopback", "42", "never arrives"))
    assert [(f.channel, f.chat_id, f.preview) for f in failures] == [
        ("loopback", "42", "never arrives")
    ]
    assert not await manager.deliver(OutboundMessage("nowhere", "1", "lost?"))
    assert failures[-1].channel == "nowhere" and "not running" in failures[-1].reason
    await manager.stop()
    await owner.aclose()


async def test_not_allowed_senders_never_reach_the_agent(
    tmp_path: Path, fresh_network: Network
) -> None:
    bus = MessageBus()
    manager, owner = _manager(tmp_path, bus, allow_from=["42|ada"])
    await manager.start()
    await until(lambda: manager.status("loopback").ok)
    await fresh_network.incoming.put(("7|mallory", "7", "let me in"))
    await fresh_network.incoming.put(("42|ada", "42", "hello"))
    message = await asyncio.wait_for(bus.consume_inbound(), 30)
    assert (message.sender_id, message.content) == ("42|ada", "hello")
    assert bus.inbound.empty()
    await manager.stop()
    await owner.aclose()


async def test_an_approval_is_answered_by_a_reply_in_the_chat(
    tmp_path: Path, fresh_network: Network
) -> None:
    """The gate asks in the channel's chat; "allow chat" answers it and is not a message for
    the agent; the desktop approver (every channel) is withdrawn."""
    bus = MessageBus()
    policy = ApprovalPolicy()
    gate = ApprovalGate(policy)
    withdrawn = asyncio.Event()

    class Desktop:
        async def request_approval(self, request: ApprovalRequest) -> Decision:
            try:
                await asyncio.Future()
            finally:
                withdrawn.set()
            return Decision.DENY

    gate.add_approver(Desktop())
    owner = TaskOwner("t")
    config = SimpleNamespace(channels=SimpleNamespace(loopback=loopback.section()))
    manager = ChannelManager(bus, owner, config=config, state_dir=tmp_path,  # type: ignore[arg-type]
                             approval=gate, registry={"loopback": INFO})  # fmt: skip
    await manager.start()
    await until(lambda: manager.status("loopback").ok)
    from desktop.core.tools.base import ToolContext

    ctx = ToolContext(workspace=tmp_path, session_key="loopback:42", channel="loopback",
                      chat_id="42")  # fmt: skip
    check = asyncio.ensure_future(gate.check("c1", "exec", {"command": "ls"}, ctx))
    await until(lambda: fresh_network.sent)
    question = fresh_network.sent[0]
    assert (
        question.chat_id == "42" and "exec" in question.content and "allow chat" in question.content
    )
    await fresh_network.incoming.put(("42|ada", "42", "Allow chat"))
    assert await asyncio.wait_for(check, 30) is None
    assert withdrawn.is_set() and policy.is_allowed("loopback:42", "exec")
    assert bus.inbound.empty(), "the answer is not passed to the agent"
    await fresh_network.incoming.put(("42|ada", "42", "allow"))  # no question waits: a message
    assert (await asyncio.wait_for(bus.consume_inbound(), 30)).content == "allow"
    await manager.stop()
    await owner.aclose()


async def test_run_events_of_a_channels_sessions_reach_it(
    tmp_path: Path, fresh_network: Network
) -> None:
    from desktop.core.bus.events import TurnFinished, TurnStarted

    bus = MessageBus()
    manager, owner = _manager(tmp_path, bus)
    await manager.start()
    await until(lambda: manager.status("loopback").ok)
    await bus.emit(TurnStarted("t", "loopback:42", "message", "loopback", "42", "hi"))
    await bus.emit(TurnStarted("u", "desktop:x", "message", "desktop", "x", "hi"))
    await bus.emit(TurnFinished("t", "loopback:42", "done"))
    assert fresh_network.events == ["turn_started", "turn_finished"]
    await manager.stop()
    await owner.aclose()


async def test_run_events_of_a_unified_session_reach_the_channel_of_their_turn(
    tmp_path: Path, fresh_network: Network
) -> None:
    """unifiedSession: every channel's turns share ``unified:default``; a turn's events go to
    the channel its message came from (typing, reactions), another channel's turn's do not."""
    from desktop.core.bus.events import TurnFinished, TurnStarted, TurnStopped

    bus = MessageBus()
    manager, owner = _manager(tmp_path, bus)
    await manager.start()
    try:
        await until(lambda: manager.status("loopback").ok)
        await bus.emit(TurnStarted("t", "unified:default", "message", "loopback", "42", "hi"))
        await bus.emit(TurnStarted("u", "unified:default", "message", "slack", "C9", "hi"))
        await bus.emit(TurnStopped("u", "unified:default", ""))
        await bus.emit(TurnFinished("t", "unified:default", "done"))
        await bus.emit(TurnFinished("t", "unified:default", "late repeat"))
        assert fresh_network.events == ["turn_started", "turn_finished"]
    finally:
        await manager.stop()
        await owner.aclose()


async def test_a_slow_channel_does_not_hold_up_the_others(
    tmp_path: Path, fresh_network: Network
) -> None:
    """A channel whose send hangs (reconnecting) delays only its own messages."""
    bus = MessageBus()
    manager, owner = _manager(tmp_path, bus)
    release = asyncio.Event()
    delivered: list[str] = []

    class Slow:
        name = "slow"

        async def send(self, message: OutboundMessage) -> None:
            await release.wait()
            delivered.append(f"slow:{message.content}")

    class Fast:
        name = "fast"

        async def send(self, message: OutboundMessage) -> None:
            delivered.append(f"fast:{message.content}")

    manager.register(Slow())
    manager.register(Fast())
    await manager.start(networks=False)
    await bus.publish_outbound(OutboundMessage("slow", "1", "a"))
    await bus.publish_outbound(OutboundMessage("fast", "1", "b"))
    await bus.publish_outbound(OutboundMessage("slow", "1", "c"))
    await bus.publish_outbound(OutboundMessage("fast", "1", "d"))
    await until(lambda: delivered == ["fast:b", "fast:d"])
    release.set()
    await until(lambda: len(delivered) == 4)
    assert delivered[2:] == ["slow:a", "slow:c"]
    await manager.stop()
    await owner.aclose()


async def test_a_refused_connection_wrapped_by_an_sdk_reads_plainly() -> None:
    """aiohttp (Slack, Discord, QQ, Mochat) wraps the refusal in its own error; the status
    still says what happened, without the SDK's jargon (before: "Cannot connect to host …
    ssl:default [Connect call failed …]")."""
    import aiohttp

    from desktop.core.channels.manager import explain

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.ClientConnectorError) as caught:
            await session.get(f"http://127.0.0.1:{port}/")
    assert explain(caught.value).startswith("The server refused the connection")
    try:
        raise RuntimeError("handshake failed") from ConnectionRefusedError(111, "refused")
    except RuntimeError as exc:
        assert explain(exc).startswith("The server refused the connection")
    assert explain(ValueError("bad frame")) == "Bad frame"
