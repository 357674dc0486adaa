"""The Feishu channel end to end: the real lark-oapi SDK (its long connection and its Open
API client) against the local platform, and a real agent runtime."""

from __future__ import annotations

from pathlib import Path

from tests.channels.feishu.conftest import CHAT, USER, echo, start_runtime, until
from tests.channels.feishu.feishu_server import FeishuServer
from tests.fakes.openai_server import ScriptedOpenAIServer


async def test_a_message_is_received_and_answered_as_a_card(
    feishu: FeishuServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, feishu, scripted_server)
    try:
        status = runtime.channels.status("feishu")
        assert status.account == "nanobot test bot"
        await feishu.push_text(CHAT, USER, "hello there")
        await until(lambda: feishu.sent_to(CHAT), what="the answer")
    finally:
        await runtime.stop()
    (answer,) = feishu.sent_to(CHAT)
    assert answer.msg_type == "interactive" and answer.reply_to is None
    assert answer.content == {
        "config": {"wide_screen_mode": True},
        "elements": [{"tag": "markdown", "content": "echo: hello there"}],
    }
    assert all(d.acked for d in feishu.deliveries)
