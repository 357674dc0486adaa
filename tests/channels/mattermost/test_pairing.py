"""DM pairing on Mattermost end to end (as nanobot 0.3.5): a stranger's direct message gets a
pairing code and reaches nobody; once the code is approved with ``nanobot-desktop channels
pair approve`` (a real subprocess) the stranger's next message reaches the agent; a stranger
in a channel gets no code. It holds whether the stranger is left out by ``allowFrom`` or by
the ``dm`` sub-section's allowlist (0.3.5's own case)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from desktop.core.bus.events import PairingRequested, RunEvent
from tests.channels.mattermost.conftest import echo, start_runtime, until
from tests.channels.mattermost.server import (
    ALICE,
    BOT,
    MALLORY,
    MALLORY_DM,
    TOWN,
    MattermostServer,
)
from tests.conftest import CLI, cli_env
from tests.fakes.openai_server import ScriptedOpenAIServer


async def _cli(home: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        CLI, *args, env=cli_env(home), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode()


@pytest.mark.parametrize(
    "gate",
    [
        {"allowFrom": [ALICE]},
        {"allowFrom": ["*"], "dm": {"policy": "allowlist", "allowFrom": [ALICE]}},
    ],
    ids=["allowFrom", "dm-allowlist"],
)
async def test_a_stranger_pairs_by_code_approved_on_the_command_line(
    gate: dict[str, Any],
    mattermost: MattermostServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mattermost, scripted_server, **gate)
    events: list[RunEvent] = []
    runtime.bus.subscribe(events.append)
    config = tmp_path / "nanobot" / "config.json"
    try:
        if gate["allowFrom"] != ["*"]:  # a channel post from a stranger: no code, no answer
            await mattermost.say(TOWN, f"@{BOT} let me in too", user=MALLORY)
        await mattermost.say(MALLORY_DM, "hello?", user=MALLORY)
        await until(lambda: mattermost.texts(MALLORY_DM), what="the pairing code")
        reply = mattermost.texts(MALLORY_DM)[0]
        match = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", reply)
        assert match is not None, reply
        code = match.group(1)
        assert f"nanobot-desktop channels pair approve {code}" in reply
        assert scripted_server.chat_requests() == []  # nothing reached the agent
        requested = [e for e in events if isinstance(e, PairingRequested)]
        assert [(e.channel, e.sender, e.code) for e in requested] == [("mattermost", MALLORY, code)]

        status, said = await _cli(
            tmp_path, "channels", "pair", "approve", code, "--config", str(config)
        )
        assert status == 0 and "Approved" in said, said

        await mattermost.say(MALLORY_DM, "now?", user=MALLORY)
        await until(lambda: len(mattermost.texts(MALLORY_DM)) == 2, what="the agent's answer")
        assert mattermost.texts(MALLORY_DM)[1] == "echo: now?"
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mattermost.bot_posts(TOWN) == []
    assert len(scripted_server.chat_requests()) == 1
