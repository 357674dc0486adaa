"""A WhatsApp answer (a socket channel: commands on the bridge's WebSocket) arrives whole: the
bridge drops the connection when one piece arrives, or the app stops while a piece waits for
the bridge and starts again — either way every piece reaches WhatsApp exactly once, in order
(a real agent runtime; the model is the scripted server through LiteLLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop.core.channels.whatsapp import markup
from tests.channels.whatsapp.bridge_server import ALICE, BridgeServer
from tests.channels.whatsapp.conftest import start_runtime, until
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PARAGRAPHS = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 30 for i in range(12)]
CODE = "```\n" + "\n".join(f"print({i} * {i})" for i in range(200)) + "\n```"
REPLY = "\n\n".join([*PARAGRAPHS[:5], CODE, *PARAGRAPHS[5:]])
PIECES = markup.pieces(markup.to_whatsapp(REPLY))

TURN_S = 90.0  # waits that include a model turn (the first imports LiteLLM; slow when loaded)


def _marked(command: dict[str, Any]) -> bool:
    return command["type"] == "send" and "Part 8." in command["text"]


def _outbox(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "nanobot" / "channel-state" / "whatsapp.json"
    return list(json.loads(path.read_text())["values"].get("outbox", []))


def _k() -> int:
    k = next(i for i, p in enumerate(PIECES) if "Part 8." in p)
    assert 0 < k < len(PIECES) - 1, "piece k is in the middle"
    return k


async def test_a_dropped_connection_mid_answer_resends_that_piece_once_after_the_reconnect(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    _k()
    bridge.drop_when = _marked
    scripted_server.push(Reply(REPLY, chunk=500))
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("write a lot")
        await until(
            lambda: bridge.texts() == PIECES,
            what="the whole answer, once, in order",
            timeout=TURN_S,
        )
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert len(bridge.auths) == 2, "the connection was dropped and opened again"
    sends = [c["text"] for c in bridge.commands if c["type"] == "send"]
    assert sends.count(PIECES[_k()]) == 2, "piece k went twice: lost with the connection, then"
    assert bridge.texts() == PIECES
    assert _outbox(tmp_path) == []


async def test_an_answer_cut_by_a_stop_is_finished_once_after_the_restart(
    bridge: BridgeServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    k = _k()
    bridge.hold_when = _marked
    scripted_server.push(Reply(REPLY, chunk=500))
    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await bridge.say("write a lot")
        await until(
            lambda: bridge.holding == 1, what="piece k waiting for the bridge", timeout=TURN_S
        )
        runtime.channels.stop_grace = 0.2  # the bridge does not confirm within the grace
    finally:
        await runtime.stop()
    await until(lambda: bridge.holding == 0, what="the connection closed")
    assert bridge.texts() == PIECES[:k], "piece k and the rest never reached WhatsApp"
    (kept,) = _outbox(tmp_path)
    assert (kept["chat_id"], kept["content"], kept["done"]) == (ALICE, REPLY, k)

    runtime = await start_runtime(tmp_path, bridge, scripted_server)
    try:
        await until(
            lambda: bridge.texts() == PIECES, what="the rest, once, in order", timeout=TURN_S
        )
        await until(lambda: _outbox(tmp_path) == [], what="the outbox empty")
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 1, "the answer was not made again"
