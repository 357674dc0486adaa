"""The agent loop resolves an inbound message's :class:`Ack` once its user message is in the
session file, or when it drops the message on purpose (a command answered, a sender not
allowed); a turn cancelled before its first save leaves it unresolved."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from desktop.core.agent.loop import AgentLoop
from desktop.core.bus.events import Ack, AckOutcome, InboundMessage
from desktop.core.channels.journal import InboundJournal, to_json
from desktop.core.channels.state import ChannelStateStore
from tests.core.agent.conftest import MakeLoop
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer, Stall


def _message(
    text: str, outcomes: list[tuple[AckOutcome, list[str]]], loop: AgentLoop
) -> InboundMessage:
    """A message whose ack records its outcome and the user messages on disk at that time."""
    message = InboundMessage("probe", "ada", "c1", text)

    async def done(outcome: AckOutcome) -> None:
        path = loop.sessions.path_for(message.session_key)
        lines = path.read_text().splitlines()[1:] if path.exists() else []
        users = [json.loads(line)["content"] for line in lines if '"role": "user"' in line]
        outcomes.append((outcome, users))

    message.ack = Ack(done)
    return message


async def test_the_ack_follows_the_first_save_and_commands_drop(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    scripted_server.push(Reply("Hello Ada."))
    loop = make_loop()
    outcomes: list[tuple[AckOutcome, list[str]]] = []
    await loop.dispatch(_message("hi there", outcomes, loop))
    assert outcomes == [("saved", ["hi there"])], "resolved once, after the user message was saved"
    await loop.dispatch(_message("/help", outcomes, loop))
    assert outcomes[-1][0] == "dropped" and len(outcomes) == 2


async def test_a_turn_cancelled_before_its_save_leaves_the_ack_open(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """A message waiting behind a busy session when the app ends is not confirmed."""
    scripted_server.push(Stall(5))
    loop = make_loop()
    outcomes: list[tuple[AckOutcome, list[str]]] = []
    busy = asyncio.ensure_future(loop.dispatch(_message("busy", outcomes, loop)))
    await asyncio.sleep(0)
    while not scripted_server.chat_requests():
        await asyncio.sleep(0.02)
    waiting = _message("queued", outcomes, loop)
    queued = asyncio.ensure_future(loop.dispatch(waiting))
    await asyncio.sleep(0.2)
    for task in (busy, queued):
        task.cancel()
    await asyncio.gather(busy, queued, return_exceptions=True)
    assert [o for o, _ in outcomes] == ["saved"], "only the first message was saved"
    assert waiting.ack is not None and not waiting.ack.done


async def test_the_journal_keeps_messages_across_a_restart_and_drops_damage(
    tmp_path: Path,
) -> None:
    path = tmp_path / "probe.json"
    journal = InboundJournal(ChannelStateStore(path))
    kept = InboundMessage("probe", "ada", "c1", "keep me", media=["/tmp/a.png"], id="m1")
    await journal.add(kept)
    await journal.add(InboundMessage("probe", "ada", "c1", "gone", id="m2"))
    await journal.remove("m2", seen=["k2"])
    again = ChannelStateStore(path)
    assert again.seen("k2")
    (restored,) = InboundJournal(again).pending()
    assert (restored.id, restored.content, restored.media) == ("m1", "keep me", ["/tmp/a.png"])
    data = json.loads(path.read_text())
    data["values"]["pending"].append({"id": 5})  # damaged entry
    data["values"]["pending"].append(to_json(InboundMessage("probe", "b", "c2", "two", id="m3")))
    path.write_text(json.dumps(data))
    assert [m.id for m in InboundJournal(ChannelStateStore(path)).pending()] == ["m1", "m3"]


async def test_a_message_is_recognised_while_its_journal_entry_is_being_removed(
    tmp_path: Path,
) -> None:
    """While the journal saves a message as handled, a copy arriving then (a redelivery, or
    the same message by catch-up) is still recognised: by the journal until ``seen`` holds it
    (before: the entry left memory before ``seen`` was saved — a window for a second answer)."""
    state = ChannelStateStore(tmp_path / "probe.json")
    journal = InboundJournal(state)
    await journal.add(InboundMessage("probe", "ada", "c1", "hello", id="m1"))
    known_during_save: list[bool] = []
    update = state.update

    def watching_update(**kwargs: object) -> None:
        known_during_save.append("m1" in journal or "m1" in journal.in_flight or state.seen("k1"))
        update(**kwargs)  # type: ignore[arg-type]

    state.update = watching_update  # type: ignore[method-assign]
    await journal.remove("m1", seen=["k1"])
    assert known_during_save == [True]
    assert "m1" not in journal and "m1" not in journal.in_flight and state.seen("k1")


async def test_a_kept_message_marks_its_channel_ids_handled_when_safe_after_a_restart(
    tmp_path: Path,
) -> None:
    """The ids a channel marks handled (``seen``) are kept with the journal entry, so the message
    handed over again after a restart records them once safe: a copy the network delivers
    later is not answered twice (before: the replayed message marked nothing)."""
    path = tmp_path / "probe.json"
    await InboundJournal(ChannelStateStore(path)).add(
        InboundMessage("probe", "ada", "c1", "queued", id="m1"), seen=["chat:m1", "uid-7"]
    )
    data = json.loads(path.read_text())
    data["values"]["pending"].append(to_json(InboundMessage("probe", "b", "c2", "old", id="m2")))
    path.write_text(json.dumps(data))  # an entry written before ``seen`` was kept with it
    state = ChannelStateStore(path)
    journal = InboundJournal(state)
    assert (journal.seen_of("m1"), journal.seen_of("m2")) == (["chat:m1", "uid-7"], ["m2"])
    for message_id in ("m1", "m2"):
        await journal.remove(message_id, seen=journal.seen_of(message_id))
    again = ChannelStateStore(path)
    assert all(again.seen(item) for item in ("chat:m1", "uid-7", "m2"))
    assert InboundJournal(again).pending() == []
