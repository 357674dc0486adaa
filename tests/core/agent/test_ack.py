"""The agent loop resolves an inbound message's :class:`Ack` once its user message is in the
session file, or when it drops the message on purpose (a command answered, a sender not
allowed); a turn cancelled before its first save leaves it unresolved."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from desktop.core.bus.events import Ack, AckOutcome, InboundMessage
from desktop.core.channels.journal import InboundJournal, to_json
from desktop.core.channels.state import ChannelStateStore
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer, Stall


def _message(text: str, outcomes: list[tuple[AckOutcome, list[str]]], loop) -> InboundMessage:  # type: ignore[no-untyped-def]
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
    make_loop, scripted_server: ScriptedOpenAIServer
) -> None:
    scripted_server.push(Reply("Hello Ada."))
    loop = make_loop()
    outcomes: list[tuple[AckOutcome, list[str]]] = []
    await loop.dispatch(_message("hi there", outcomes, loop))
    assert outcomes == [("saved", ["hi there"])], "resolved once, after the user message was saved"
    await loop.dispatch(_message("/help", outcomes, loop))
    assert outcomes[-1][0] == "dropped" and len(outcomes) == 2


async def test_a_turn_cancelled_before_its_save_leaves_the_ack_open(
    make_loop, scripted_server: ScriptedOpenAIServer
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
