"""DM pairing on Signal end to end (as nanobot 0.3.5 does it): a stranger's direct message
gets a pairing code and reaches nobody; the code approved with ``nanobot-desktop channels pair
approve`` (a real subprocess) lets the stranger's next message through to the agent, under
any form of their number; a stranger in a group gets no code."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from tests.channels.signal.conftest import echo, start_runtime, until
from tests.channels.signal.daemon import ACCOUNT, GROUP, STRANGER, SignalDaemon
from tests.conftest import CLI, cli_env
from tests.fakes.openai_server import ScriptedOpenAIServer

STRANGER_UUID = "5e5e5e5e-0000-4000-8000-000000005e5e"


async def _cli(home: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        CLI, *args, env=cli_env(home), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode()


def _to(daemon: SignalDaemon, number: str) -> list[str]:
    return [p["message"] for p in daemon.sent() if p.get("recipient") in (number, [number])]


async def test_a_stranger_pairs_by_code_approved_on_the_command_line(
    daemon: SignalDaemon, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, daemon, scripted_server)
    config = tmp_path / "nanobot" / "config.json"
    try:
        daemon.say("let me in too", sender=STRANGER, uuid=STRANGER_UUID, group=GROUP)
        daemon.say("hello?", sender=STRANGER, uuid=STRANGER_UUID, name="Zoe")
        await until(lambda: _to(daemon, STRANGER), what="the pairing code")
        reply = _to(daemon, STRANGER)[0]
        match = re.search(r"\b([A-Z0-9]{4}-[A-Z0-9]{4})\b", reply)
        assert match is not None, reply
        code = match.group(1)
        assert scripted_server.chat_requests() == []  # nothing reached the agent

        status, said = await _cli(
            tmp_path, "channels", "pair", "approve", code, "--config", str(config)
        )
        assert status == 0 and "Approved" in said, said

        # the same person, the number written without "+" this time (signal-cli varies)
        daemon.say("now?", sender=STRANGER.removeprefix("+"), uuid=STRANGER_UUID, name="Zoe")
        await until(lambda: "echo: now?" in daemon.texts(), what="the agent's answer")
    finally:
        await runtime.stop()
    assert not any(p.get("groupId") == GROUP for p in daemon.sent())  # no code in the group
    assert len(_to(daemon, STRANGER)) == 1  # one code, never a second one
    assert len(scripted_server.chat_requests()) == 1
    stored = json.loads((tmp_path / "nanobot" / "pairing.json").read_text(encoding="utf-8"))
    assert stored["approved"] == {"signal": [f"{STRANGER}|{STRANGER_UUID}"]}
    assert ACCOUNT not in json.dumps(stored)
