"""The shared part of button approvals: button data within a limit, every posted question
closed exactly once, however it ends, and a click that overtakes its question's post."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import pytest

from desktop.core.agent.approval import ApprovalRequest, Decision
from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.buttons import ButtonApprover, ButtonIds
from tests.waiting import until


def _request(call_id: str = "call-1", chat_id: str = "chat") -> ApprovalRequest:
    return ApprovalRequest(
        tool="exec",
        arguments={"command": "ls"},
        reason="runs a shell command",
        channel="test",
        chat_id=chat_id,
        session_key=f"test:{chat_id}",
        call_id=call_id,
    )


def test_button_data_round_trips_and_long_ids_become_digests() -> None:
    ids = ButtonIds("ap", lambda data: len(data.encode()) <= 64)
    short = ids.encode(Decision.ALWAYS, "call-1")
    assert short == "ap:3:call-1"
    assert ids.decode(short) == (Decision.ALWAYS, "call-1")

    long_id = "toolu_" + "x" * 80
    data = ids.encode(Decision.DENY, long_id)
    assert len(data.encode()) <= 64 and data.startswith("ap:4:#")
    assert ids.decode(data) == (Decision.DENY, long_id)
    ids.forget(long_id)
    assert ids.decode(data) == (Decision.DENY, None)  # no longer waiting


def test_data_that_is_not_ours_decodes_to_nothing() -> None:
    ids = ButtonIds("nb-ap", lambda data: len(data) <= 100)
    assert ids.decode("other:1:call") == (None, None)
    assert ids.decode("nb-ap:9:call") == (None, "call")
    assert ids.decode("nb-ap:1:") == (Decision.ALLOW_ONCE, None)
    assert ids.decode("") == (None, None)


@dataclass
class _Question:
    number: int
    clicked: bool = False
    answered_by: str = ""


@dataclass
class _Channel:
    name: str = "test"
    sent: list[OutboundMessage] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def send(self, message: OutboundMessage) -> None:
        self.sent.append(message)

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        self.tasks.append(asyncio.get_running_loop().create_task(coro, name=name))


class _Approver(ButtonApprover[_Question]):
    def __init__(self, channel: _Channel) -> None:
        super().__init__(channel)
        self.posted: list[str] = []
        self.closed: list[tuple[str, int, Decision | None]] = []
        self.sending: set[str] = set()  # posts that have started, not ended
        self.answered: asyncio.Event | None = None  # when set: the platform's answer arrives
        self.refusal: Exception | None = None  # what the platform answers instead

    async def post(self, request: ApprovalRequest) -> _Question:
        self.sending.add(request.call_id)
        try:
            if self.answered is not None:
                await self.answered.wait()
            if self.refusal is not None:
                raise self.refusal
        finally:
            self.sending.discard(request.call_id)
        self.posted.append(request.call_id)
        return _Question(len(self.posted))

    def shows_outcome(self, question: _Question) -> bool:
        return question.clicked

    async def close(
        self, request: ApprovalRequest, question: _Question, decision: Decision | None
    ) -> None:
        self.closed.append((request.call_id, question.number, decision))


async def test_every_question_is_closed_once_with_how_it_ended() -> None:
    channel = _Channel()
    approver = _Approver(channel)

    # answered by keyword: closed with the decision
    waiting = asyncio.create_task(approver.request_approval(_request("a")))
    await asyncio.sleep(0)
    assert approver.waiting("chat", "a") and approver.question("chat", "a") is not None
    assert approver.intercept("chat", "always")
    assert await waiting is Decision.ALWAYS

    # ended without an answer (timeout, /stop): closed with None
    stopped = asyncio.create_task(approver.request_approval(_request("b")))
    await asyncio.sleep(0)
    stopped.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopped

    # answered by a click that already showed the outcome: not edited again
    clicked = asyncio.create_task(approver.request_approval(_request("c")))
    await asyncio.sleep(0)
    found = approver.find(lambda chat, call, _q: call == "c")
    assert found is not None
    found[2].clicked = True
    assert approver.answer("chat", Decision.DENY, "c")
    assert await clicked is Decision.DENY

    await asyncio.gather(*channel.tasks)
    assert approver.posted == ["a", "b", "c"]
    assert approver.closed == [("a", 1, Decision.ALWAYS), ("b", 2, None)]
    assert approver.question("chat", "a") is None and not approver.waiting("chat", "a")
    assert [t.get_name() for t in channel.tasks] == ["approval-close", "approval-close"]


def test_ids_apart_from_the_call_id_and_as_an_object() -> None:
    ids = ButtonIds("ap", lambda _data: True)
    assert ids.action(Decision.ALLOW_SESSION) == "ap:2"  # Slack: the call id is the value
    assert ids.decode(ids.action(Decision.ALLOW_SESSION)) == (Decision.ALLOW_SESSION, None)
    value = ids.fields(Decision.DENY, "call-9")  # Feishu: the value is an object
    assert value == {"kind": "ap", "decision": "4", "call_id": "call-9"}
    assert ids.read_fields(value) == (Decision.DENY, "call-9")
    assert ids.read_fields({**value, "kind": "other"}) == (None, None)
    assert ids.read_fields("ap:4:call-9") == (None, None)
    assert ids.read_fields({**value, "call_id": ""}) == (Decision.DENY, None)


async def test_a_click_claims_only_a_waiting_question_in_its_chat() -> None:
    channel = _Channel()
    approver = _Approver(channel)
    waiting = asyncio.create_task(approver.request_approval(_request("a", chat_id="room")))
    await asyncio.sleep(0)

    def in_room(chat: str, _q: _Question) -> bool:
        return chat == "room"

    assert (
        await approver.claim(Decision.ALWAYS, "a", "bob", lambda chat, _q: chat == "hall") is None
    )
    assert await approver.claim(None, "a", "bob", in_room) is None, "not a decision"
    assert await approver.claim(Decision.ALWAYS, None, "bob", in_room) is None, "not ours"
    assert await approver.claim(Decision.ALWAYS, "zz", "bob", in_room) is None, "unknown call"
    found = await approver.claim(Decision.ALWAYS, "a", "bob", in_room)
    assert found is not None and found[0] == "room" and found[1].answered_by == "bob"
    assert approver.answer(found[0], Decision.ALWAYS, "a")
    assert await waiting is Decision.ALWAYS
    assert await approver.claim(Decision.DENY, "a", "eve", in_room) is None, "closed"
    await asyncio.gather(*channel.tasks)


async def test_a_click_before_the_post_returned_waits_for_it_and_counts() -> None:
    channel = _Channel()
    approver = _Approver(channel)
    approver.answered = asyncio.Event()
    waiting = asyncio.create_task(approver.request_approval(_request("a", chat_id="room")))
    await until(lambda: "a" in approver.sending, what="the post under way")
    click = asyncio.create_task(
        approver.claim(Decision.DENY, "a", "bob", lambda chat, _q: chat == "room")
    )
    other = await approver.claim(Decision.DENY, "zz", "bob", lambda chat, _q: True)
    assert other is None, "a click on another question does not wait"
    await asyncio.sleep(0)
    assert not click.done(), "the click waits for the post"
    approver.answered.set()
    found = await click
    assert found is not None and found[0] == "room" and found[1].answered_by == "bob"
    assert approver.answer("room", Decision.DENY, "a")
    assert await waiting is Decision.DENY
    await asyncio.gather(*channel.tasks)
    assert approver.closed == [("a", 1, Decision.DENY)]


class _Patient(_Approver):
    posting_wait = 3600.0  # only the post's end can release a click in time


async def test_a_click_on_a_question_whose_post_failed_is_told_closed_at_once() -> None:
    channel = _Channel()
    approver = _Patient(channel)
    approver.answered = asyncio.Event()
    approver.refusal = ConnectionError("the platform refused the message")
    waiting = asyncio.create_task(approver.request_approval(_request("a")))
    await until(lambda: "a" in approver.sending, what="the post under way")
    click = asyncio.create_task(approver.claim(Decision.ALWAYS, "a", "bob", lambda *_: True))
    await asyncio.sleep(0)
    assert not click.done()
    approver.answered.set()  # the answer is a refusal
    assert await asyncio.wait_for(click, 60) is None, "the failed post ended the wait"
    with pytest.raises(ConnectionError):
        await waiting
    assert not approver.waiting("chat", "a") and approver.closed == []


class _Hanging(_Approver):
    posting_wait = 0.3


async def test_a_click_waits_for_a_hanging_post_only_up_to_the_bound() -> None:
    channel = _Channel()
    approver = _Hanging(channel)
    approver.answered = asyncio.Event()  # never set: the send hangs
    waiting = asyncio.create_task(approver.request_approval(_request("a")))
    await until(lambda: "a" in approver.sending, what="the post under way")
    assert await approver.claim(Decision.ALWAYS, "a", "bob", lambda *_: True) is None
    assert not waiting.done() and approver.waiting("chat", "a"), "the question still waits"
    waiting.cancel()  # the gate's timeout or /stop
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert approver.sending == set() and approver.closed == []
