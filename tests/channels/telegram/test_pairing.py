"""DM pairing on Telegram end to end: a stranger's private message gets a pairing code and
reaches nobody; the code approved with ``nanobot-desktop channels pair approve`` (a real
subprocess) lets the stranger's next message through to the agent; a stranger in a group
gets no code."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from desktop.core.bus.events import PairingRequested, RunEvent
from tests.channels.telegram.bot_api_server import BotApiServer
from tests.channels.telegram.conftest import CHAT, echo, start_runtime, until
from tests.conftest import CLI, cli_env
from tests.fakes.openai_server import ScriptedOpenAIServer

STRANGER = CHAT + 7
GROUP = -1001234


async def _cli(home: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        CLI, *args, env=cli_env(home), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode()


async def test_a_stranger_pairs_by_code_approved_on_the_command_line(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, api, scripted_server, telegram={"allowFrom": [str(CHAT)], "groupPolicy": "open"}
    )
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    config = tmp_path / "nanobot" / "config.json"
    try:
        api.put_message(GROUP, "let me in too", user_id=CHAT + 8, username="eve", chat_type="group")
        api.put_message(STRANGER, "hello?", user_id=STRANGER, username="zoe")
        await until(lambda: api.texts(STRANGER), what="the pairing code")
        reply = api.texts(STRANGER)[0]
        match = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", reply)
        assert match is not None, reply
        code = match.group(1)
        assert f"nanobot-desktop channels pair approve {code}" in reply
        assert scripted_server.chat_requests() == []  # nothing reached the agent
        requested = [e for e in events if isinstance(e, PairingRequested)]
        assert [(e.channel, e.sender, e.code) for e in requested] == [
            ("telegram", f"{STRANGER}|zoe", code)
        ]

        status, listed = await _cli(tmp_path, "channels", "pair", "--config", str(config))
        assert status == 0 and code in listed and f"{STRANGER}|zoe" in listed, listed
        status, said = await _cli(
            tmp_path, "channels", "pair", "approve", code, "--config", str(config)
        )
        assert status == 0 and "Approved" in said, said

        api.put_message(STRANGER, "now?", user_id=STRANGER, username="zoe")
        await until(lambda: len(api.texts(STRANGER)) == 2, what="the agent's answer")
        assert api.texts(STRANGER)[1] == "echo: now?"
    finally:
        await runtime.stop()
    assert api.sent(GROUP) == []  # the group stranger: no code, no answer
    assert len(scripted_server.chat_requests()) == 1
    stored = json.loads((tmp_path / "nanobot" / "pairing.json").read_text(encoding="utf-8"))
    assert stored == {"approved": {"telegram": [f"{STRANGER}|zoe"]}, "pending": {}}


async def test_an_allowed_sender_approves_with_the_pairing_command_in_the_chat(
    api: BotApiServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """``/pairing`` from the owner's own Telegram chat lists the request and approves it (the
    agent loop answers the command; no model call), then the stranger is let in."""
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, api, scripted_server, telegram={"allowFrom": [str(CHAT)]}
    )
    try:
        api.put_message(STRANGER, "hello?", user_id=STRANGER, username="zoe")
        await until(lambda: api.texts(STRANGER), what="the pairing code")
        match = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", api.texts(STRANGER)[0])
        assert match is not None
        code = match.group(1)
        api.put_message(CHAT, "/pairing", username="ada")
        await until(lambda: api.texts(CHAT), what="the list")
        assert code in api.texts(CHAT)[0] and f"{STRANGER}|zoe" in api.texts(CHAT)[0]
        api.put_message(CHAT, f"/pairing approve {code.lower()}", username="ada")
        await until(lambda: len(api.texts(CHAT)) == 2, what="the approval")
        assert "Approved" in api.texts(CHAT)[1]
        assert scripted_server.chat_requests() == []
        api.put_message(STRANGER, "in now?", user_id=STRANGER, username="zoe")
        await until(lambda: len(api.texts(STRANGER)) == 2, what="the agent's answer")
        assert api.texts(STRANGER)[1] == "echo: in now?"
    finally:
        await runtime.stop()
