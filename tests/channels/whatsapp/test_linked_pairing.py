"""DM pairing on the linked-device WhatsApp end to end (nanobot 0.3.5: ``is_dm`` is "not a
group"): a stranger's direct message gets a pairing code and reaches nobody; the code approved
with ``nanobot-desktop channels pair approve`` (a real subprocess) lets the stranger's next
message in, its attachment saved as anyone's; a stranger in a group gets no code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from desktop.core.bus.events import PairingRequested, RunEvent
from tests.channels.conformance.adapters.whatsapp_linked import _document
from tests.channels.telegram.test_pairing import _cli
from tests.channels.whatsapp.conftest import echo, until, user_text
from tests.channels.whatsapp.neonize_fake import FakeWhatsApp, install, message
from tests.channels.whatsapp.test_linked import ALICE, GROUP, channel_api, start
from tests.fakes.openai_server import ScriptedOpenAIServer

STRANGER = "4930999999"
STRANGER_JID = f"{STRANGER}@s.whatsapp.net"


@pytest.fixture
def whatsapp(monkeypatch: pytest.MonkeyPatch) -> FakeWhatsApp:
    world = FakeWhatsApp()
    install(monkeypatch, world)
    return world


async def test_a_stranger_pairs_by_code_approved_on_the_command_line(
    whatsapp: FakeWhatsApp, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start(tmp_path, scripted_server, allowFrom=[ALICE], groupPolicy="open")
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    config = tmp_path / "nanobot" / "config.json"
    kind = channel_api().message

    def texts(to: str) -> list[str]:
        return [s.body for s in whatsapp.sent if s.to == to and s.kind == "text"]

    try:
        group = message("me too", chat=GROUP, sender="4930888888@s.whatsapp.net", group=True,
                        msg_id="g1")  # fmt: skip
        await whatsapp.client.fire(kind, group)
        await whatsapp.client.fire(kind, message("hello?", chat=STRANGER_JID, msg_id="s1"))
        await until(lambda: texts(STRANGER_JID), what="the pairing code")
        match = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", texts(STRANGER_JID)[0])
        assert match is not None, texts(STRANGER_JID)
        code = match.group(1)
        assert scripted_server.chat_requests() == []  # nothing reached the agent
        requested = [e for e in events if isinstance(e, PairingRequested)]
        assert [(e.channel, e.sender, e.code) for e in requested] == [("whatsapp", STRANGER, code)]

        status, said = await _cli(
            tmp_path, "channels", "pair", "approve", code, "--config", str(config)
        )
        assert status == 0 and "Approved" in said, said

        whatsapp.media = b"the minutes\n"
        note = _document("my notes", "minutes.txt", chat=STRANGER_JID, msg_id="s2")
        await whatsapp.client.fire(kind, note)
        await until(lambda: len(texts(STRANGER_JID)) == 2, what="the agent's answer")
    finally:
        await runtime.stop()
    assert texts(GROUP) == []  # the group stranger: no code, no answer
    (request,) = scripted_server.chat_requests()
    saved = tmp_path / "ws" / "media" / "whatsapp"
    (path,) = saved.iterdir()
    assert path.read_bytes() == b"the minutes\n", "the paired sender's file is saved"
    assert user_text(request.body) == f"my notes\n[file: {path}]"
    stored = json.loads((tmp_path / "nanobot" / "pairing.json").read_text(encoding="utf-8"))
    assert stored == {"approved": {"whatsapp": [STRANGER]}, "pending": {}}
