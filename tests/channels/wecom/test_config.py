"""nanobot 0.3.5's ``channels.wecom`` section: validated by nanobot's own model, it loads into
ours unchanged, saves back the same, and starts the channel."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.channels.wecom import DEFAULT_WS_URL, WecomConfig
from desktop.core.config.secret_fields import channel_secret_paths
from tests.channels.wecom.conftest import echo, start_runtime, until
from tests.channels.wecom.server import BOT_ID, SECRET, WecomServer
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.interop.conftest import NANOBOT_VENV, nanobot_executable

# Every key of nanobot 0.3.5's WeCom section, as its config.json has it.
NANOBOT_SECTION = {
    "enabled": True,
    "botId": BOT_ID,
    "secret": SECRET,
    "allowFrom": ["alice", "bob"],
    "welcomeMessage": "你好, I am the agent.",
}


def _nanobot_dump(section: dict[str, object]) -> dict[str, object]:
    """``section`` as nanobot 0.3.5's own WecomConfig validates and writes it."""
    if nanobot_executable() is None:
        if os.environ.get("NANOBOT_TEST_REQUIRE_NANOBOT") == "1":
            pytest.fail("nanobot 0.3.5 is not installed (scripts/setup.sh --test)")
        pytest.skip("nanobot 0.3.5 is not installed (scripts/setup.sh --test)")
    code = (
        "import json, sys\n"
        "from nanobot.channels.wecom.runtime import WecomConfig\n"
        "c = WecomConfig.model_validate(json.loads(sys.stdin.read()))\n"
        "print(json.dumps(c.model_dump(by_alias=True)))\n"
    )
    done = subprocess.run(
        [str(NANOBOT_VENV / "bin" / "python"), "-c", code],
        input=json.dumps(section),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return dict(json.loads(done.stdout))


def test_nanobots_section_loads_and_saves_back_the_same() -> None:
    written = _nanobot_dump(NANOBOT_SECTION)
    assert written == NANOBOT_SECTION, "the keys are nanobot's own"
    config = WecomConfig.model_validate(written)
    assert (config.bot_id, config.secret) == (BOT_ID, SECRET)
    assert config.allow_from == ["alice", "bob"]
    assert config.welcome_message == "你好, I am the agent."
    assert config.ws_url == DEFAULT_WS_URL
    dumped = config.model_dump(by_alias=True)
    assert {k: dumped[k] for k in NANOBOT_SECTION} == NANOBOT_SECTION
    assert _nanobot_dump(dumped) == NANOBOT_SECTION, "what we save, nanobot still reads"


def test_the_secret_is_kept_in_the_keyring() -> None:
    assert channel_secret_paths("wecom") == ["channels.wecom.secret"]


async def test_nanobots_section_starts_the_channel(
    wecom: WecomServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """nanobot's section (only the server moved to the local one) connects and answers."""
    scripted_server.route = echo()
    section: dict[str, Any] = _nanobot_dump(NANOBOT_SECTION)
    runtime = await start_runtime(tmp_path, wecom, scripted_server, **section)
    try:
        await wecom.say("hi", user="bob")
        await until(lambda: wecom.texts() == ["echo: hi"], what="the answer")
        await runtime.agent.idle()
        assert await runtime.channels.check("wecom", runtime.config.channels.wecom) == (
            f"Connected as bot {BOT_ID}"
        )
    finally:
        await runtime.stop()
    assert wecom.subscribes[0] == {"bot_id": BOT_ID, "secret": SECRET}
    assert len(wecom.subscribes) == 2, "Settings' test subscribed once more"
