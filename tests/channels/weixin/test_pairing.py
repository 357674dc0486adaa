"""DM pairing on WeChat end to end (nanobot 0.3.5's rules): a stranger's direct message gets a
pairing code, sent with the stranger's context token, and reaches nobody; the code approved
with ``nanobot-desktop channels pair approve`` (a real subprocess) lets the next message
through to the agent. A group (``…@chatroom``) and a message without a context token (no reply
could be delivered) get no code."""

from __future__ import annotations

import json
import re
from pathlib import Path

from desktop.core.bus.events import PairingRequested, RunEvent
from tests.channels.telegram.test_pairing import _cli
from tests.channels.weixin.conftest import ALICE, echo, logged_in, start_runtime, until
from tests.channels.weixin.server import IlinkServer
from tests.fakes.openai_server import ScriptedOpenAIServer

STRANGER = "zoe@im.wechat"
GROUP = "12345@chatroom"
QUIET = "quiet@im.wechat"


async def test_a_stranger_pairs_by_code_approved_on_the_command_line(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    logged_in(tmp_path, ilink)
    runtime = await start_runtime(tmp_path, ilink, scripted_server, allowFrom=[ALICE])
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    config = tmp_path / "nanobot" / "config.json"
    try:
        ilink.say("let me in too", user=GROUP)
        ilink.push(QUIET, [{"type": 1, "text_item": {"text": "no token"}}], context_token="")
        ilink.say("hello?", user=STRANGER)
        await until(lambda: ilink.texts(STRANGER), what="the pairing code")
        (reply,) = [m for m in ilink.sent if m["to_user_id"] == STRANGER]
        assert reply["context_token"] == ilink.context[STRANGER], "WeChat delivers it"
        text = ilink.texts(STRANGER)[0]
        match = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", text)
        assert match is not None, text
        code = match.group(1)
        assert f"nanobot-desktop channels pair approve {code}" in text
        assert scripted_server.chat_requests() == []  # nothing reached the agent
        requested = [e for e in events if isinstance(e, PairingRequested)]
        assert [(e.channel, e.sender, e.code) for e in requested] == [("weixin", STRANGER, code)]

        status, said = await _cli(
            tmp_path, "channels", "pair", "approve", code, "--config", str(config)
        )
        assert status == 0 and "Approved" in said, said

        ilink.say("now?", user=STRANGER)
        await until(lambda: len(ilink.texts(STRANGER)) == 2, what="the agent's answer")
        assert ilink.texts(STRANGER)[1] == "echo: now?"
    finally:
        await runtime.stop()
    assert ilink.texts(GROUP) == [] and ilink.texts(QUIET) == []  # no code, no answer
    assert len(scripted_server.chat_requests()) == 1
    stored = json.loads((tmp_path / "nanobot" / "pairing.json").read_text(encoding="utf-8"))
    assert stored == {"approved": {"weixin": [STRANGER]}, "pending": {}}
    saved = json.loads((tmp_path / "nanobot" / "weixin" / "account.json").read_text())
    assert set(saved["context_tokens"]) <= {STRANGER}, "a stranger's token is not saved"
