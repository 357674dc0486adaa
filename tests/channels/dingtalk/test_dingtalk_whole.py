"""A DingTalk answer (a webhook/REST channel) arrives whole: the local DingTalk resets the
connection while it reads one piece, or the app stops while a piece is on its way and starts
again — either way every piece arrives exactly once, in order (a real agent runtime; the
model is the scripted server through LiteLLM)."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.channels.dingtalk.markup import LIMIT, pieces
from tests.channels.dingtalk.conftest import start_runtime, state_values, until
from tests.channels.dingtalk.server import DingTalkServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PARAGRAPHS = [f"Part {i}. " + "lorem ipsum dolor sit amet " * 30 for i in range(16)]
CODE = "```python\n" + "\n".join(f"print({i})" for i in range(200)) + "\n```"
REPLY = "\n\n".join([*PARAGRAPHS[:4], CODE, *PARAGRAPHS[4:]])
PIECES = pieces(REPLY)

TURN_S = 90.0  # waits that include a model turn (the first imports LiteLLM; slow when loaded)


def _robot_texts(server: DingTalkServer) -> list[str]:
    """What reached the chat through the robot API, in order."""
    return [s.param["text"] for s in server.sent() if s.via == "robot"]


def _index(marker: str) -> int:
    return next(i for i, p in enumerate(PIECES) if marker in p)


async def test_a_connection_reset_while_a_piece_is_read_sends_that_piece_again_once(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    assert len(PIECES) >= 4 and all(len(p) <= LIMIT for p in PIECES)
    k = _index("Part 6.")
    assert 0 < k < len(PIECES) - 1
    dingtalk.reset_when = lambda body: "Part 6." in body.get("msgParam", "")
    scripted_server.push(Reply(REPLY, chunk=500))
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        data = dingtalk.message("write a lot")
        dingtalk.expire(data["sessionWebhook"].rsplit("=", 1)[1])
        await dingtalk.push(data)
        await until(
            lambda: _robot_texts(dingtalk) == PIECES, what="the whole answer, once", timeout=TURN_S
        )
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert dingtalk.resets == 1, "the connection was reset while piece k was read"
    assert _robot_texts(dingtalk) == PIECES
    assert state_values(tmp_path)["outbox"] == []


async def test_an_answer_cut_by_a_stop_is_finished_once_after_the_restart(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    k = _index("Part 6.")
    dingtalk.hold_when = lambda body: "Part 6." in body.get("msgParam", "")
    scripted_server.push(Reply(REPLY, chunk=500))
    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        data = dingtalk.message("write a lot")
        dingtalk.expire(data["sessionWebhook"].rsplit("=", 1)[1])
        await dingtalk.push(data)
        await until(lambda: dingtalk.holding == 1, what="piece k on its way", timeout=TURN_S)
        runtime.channels.stop_grace = 0.2  # DingTalk does not answer within the grace
    finally:
        await runtime.stop()
    dingtalk.release.set()
    await until(lambda: dingtalk.holding == 0, what="the held request ended")
    assert _robot_texts(dingtalk) == PIECES[:k], "piece k and the rest never went out"
    (kept,) = state_values(tmp_path)["outbox"]
    assert (kept["chat_id"], kept["content"], kept["done"]) == ("staff-alice", REPLY, k)

    runtime = await start_runtime(tmp_path, dingtalk, scripted_server)
    try:
        await until(
            lambda: _robot_texts(dingtalk) == PIECES,
            what="the rest, once, in order",
            timeout=TURN_S,
        )
        await until(lambda: state_values(tmp_path)["outbox"] == [], what="the outbox empty")
    finally:
        await runtime.stop()
    assert len(scripted_server.chat_requests()) == 1, "the answer was not made again"
    robot = [c for c in dingtalk.calls if c.path == "/v1.0/robot/oToMessages/batchSend"]
    assert [json.loads(c.body["msgParam"])["text"] for c in robot] == PIECES
