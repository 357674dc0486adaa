"""A long Matrix answer against a real Synapse: split under the event size, every piece
posted once, in order, each with its own transaction id."""

from __future__ import annotations

from desktop.core.channels.base import split_message
from desktop.core.channels.matrix.channel import MAX_CHARS
from tests.channels.matrix.conftest import MatrixWorld, until
from tests.fakes.openai_server import Reply

TURN_S = 90.0  # waits that include a model turn (the first imports LiteLLM; slow when loaded)


async def test_a_long_answer_is_split_and_every_piece_arrives_once_in_order(
    world: MatrixWorld,
) -> None:
    paragraphs = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 40 for i in range(14)]
    reply = "\n\n".join(p.strip() for p in paragraphs)
    expected = split_message(reply, MAX_CHARS)
    assert len(expected) >= 3
    world.model.route = None
    world.model.push(Reply(reply, chunk=500))
    await world.start()
    room = await world.dm()
    await world.alice.say(room, "write a lot")
    await until(
        lambda: world.answers(room) == expected, what="every piece, once, in order", timeout=TURN_S
    )
    assert "\n\n".join(world.answers(room)) == reply
