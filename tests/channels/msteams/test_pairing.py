"""DM pairing on Teams end to end: the channel reads personal (one-to-one) chats only, so a
stranger's message there gets a pairing code and reaches nobody; once the code is approved
(the pairing store, as the window and the CLI do) the stranger's next message reaches the
agent; a stranger in a group chat gets nothing."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from desktop.core.bus.events import PairingRequested, RunEvent
from desktop.core.channels.pairing import PairingStore
from tests.channels.msteams.conftest import Microsoft, echo, start_runtime, until
from tests.channels.msteams.server import ALICE_AAD, MALLORY_AAD
from tests.fakes.openai_server import ScriptedOpenAIServer

MALLORY_CHAT = "a:1personal-chat-with-mallory"


async def test_a_stranger_pairs_by_code_in_a_personal_chat(
    microsoft: Microsoft, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    bf = microsoft.bot_framework
    runtime = await start_runtime(tmp_path, microsoft, scripted_server, allowFrom=[ALICE_AAD])
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)

    def texts(chat: str) -> list[str]:
        return [s.activity.get("text") or "" for s in bf.sent if s.conversation == chat]

    try:
        group = bf.activity(
            "let me in too", sender=MALLORY_AAD, conversation="19:group",
            conversation_type="groupChat",
        )  # fmt: skip
        assert await bf.say(microsoft.endpoint, group) in (200, 201)
        hello = bf.activity("hello?", sender=MALLORY_AAD, conversation=MALLORY_CHAT)
        assert await bf.say(microsoft.endpoint, hello) in (200, 201)
        await until(lambda: texts(MALLORY_CHAT), what="the pairing code")
        reply = texts(MALLORY_CHAT)[0]
        match = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", reply)
        assert match is not None, reply
        code = match.group(1)
        assert scripted_server.chat_requests() == []  # nothing reached the agent
        requested = [e for e in events if isinstance(e, PairingRequested)]
        assert [(e.channel, e.sender, e.code) for e in requested] == [
            ("msteams", MALLORY_AAD, code)
        ]

        store = PairingStore(tmp_path / "nanobot")
        approved = await asyncio.to_thread(store.approve, code)
        assert approved is not None and approved.sender == MALLORY_AAD

        now = bf.activity("now?", sender=MALLORY_AAD, conversation=MALLORY_CHAT)
        assert await bf.say(microsoft.endpoint, now) in (200, 201)
        await until(lambda: len(texts(MALLORY_CHAT)) == 2, what="the agent's answer")
        assert texts(MALLORY_CHAT)[1] == "echo: now?"
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert texts("19:group") == []
    assert len(scripted_server.chat_requests()) == 1
