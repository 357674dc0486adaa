"""DM pairing on NapCat, as nanobot 0.3.5 has it: nobody is offered a pairing code (the
account is a person's QQ; a stranger's private message is ignored, as a group one is), but a
sender approved in ``pairing.json`` is let in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop.core.channels.pairing.store import PairingStore
from tests.channels.napcat.conftest import echo, start_runtime, until, user_text
from tests.channels.napcat.onebot_server import GROUP, STRANGER, OneBotServer
from tests.fakes.openai_server import ScriptedOpenAIServer


def _to(napcat: OneBotServer, user: int) -> list[dict[str, Any]]:
    return [a for a in napcat.sent() if a["params"].get("user_id") == user]


async def test_a_stranger_gets_no_code_and_a_paired_sender_is_let_in(
    napcat: OneBotServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server, groupPolicy="open")
    folder = tmp_path / "nanobot"
    try:
        await napcat.say("hello?", user=STRANGER, nickname="Mallory")
        await napcat.say("me too", user=STRANGER, nickname="Mallory", group=GROUP)
        await napcat.say("barrier")  # Alice, answered after anything the stranger caused
        await until(lambda: "echo: barrier" in napcat.texts(), what="Alice answered")
        assert _to(napcat, STRANGER) == [] and napcat.texts() == ["echo: barrier"]
        assert not (folder / "pairing.json").exists()  # no request was made

        store = PairingStore(folder)  # approved elsewhere (the window, another channel's code)
        request, _ = store.request("napcat", str(STRANGER))
        assert store.approve(request.code) is not None
        await napcat.say("now?", user=STRANGER, nickname="Mallory")
        await until(lambda: "echo: now?" in napcat.texts(), what="the paired sender answered")
    finally:
        await runtime.stop()
    assert [a["params"]["user_id"] for a in _to(napcat, STRANGER)] == [STRANGER]
    asked = [user_text(r.body) for r in scripted_server.chat_requests()]
    assert asked == ["barrier", "now?"], asked
