"""The Mattermost settings load nanobot 0.3.5's ``channels.mattermost`` section unchanged, and
such a section, as 0.3.5 itself validates it, starts the channel."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.channels.mattermost import MattermostConfig
from tests.channels.mattermost.conftest import echo, start_runtime, until
from tests.channels.mattermost.server import ALICE, DM, TOKEN, MattermostServer
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.interop.conftest import NANOBOT_VENV, nanobot_executable

# Every key of nanobot 0.3.5's Mattermost section, as its config.json holds it, with values
# other than the defaults.
NANOBOT_SECTION = {
    "enabled": True,
    "serverUrl": "https://chat.example.org",
    "token": "mm-token-abc",
    "teamId": "team123",
    "allowFromMatchMode": "username",
    "allowFrom": ["alice"],
    "groupPolicy": "open",
    "groupPolicyInThread": "allowlist",
    "groupAllowFrom": ["chan1"],
    "replyInThread": False,
    "includeThreadContext": False,
    "threadContextLimit": 5,
    "streaming": False,
    "reactEmoji": "hourglass",
    "doneEmoji": "",
    "sendProgress": False,
    "sendToolHints": False,
    "dm": {"enabled": True, "policy": "allowlist", "allowFrom": ["bob"]},
}


def nanobot_validates(section: dict[str, object]) -> dict[str, object]:
    """``section`` as nanobot 0.3.5's own model validates and writes it back."""
    if nanobot_executable() is None:
        pytest.skip("nanobot-ai 0.3.5 is not installed (scripts/setup.sh --test)")
    code = (
        "import json, sys\n"
        "from nanobot.channels.mattermost.runtime import MattermostConfig\n"
        "c = MattermostConfig.model_validate(json.loads(sys.argv[1]))\n"
        "print(json.dumps(c.model_dump(by_alias=True)))\n"
    )
    done = subprocess.run(
        [str(NANOBOT_VENV / "bin" / "python"), "-c", code, json.dumps(section)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return dict(json.loads(done.stdout))


def test_a_nanobot_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    assert nanobot_validates(NANOBOT_SECTION) == NANOBOT_SECTION, "0.3.5 writes it so"
    config = MattermostConfig.model_validate(NANOBOT_SECTION)
    assert (config.server_url, config.token, config.team_id) == (
        "https://chat.example.org", "mm-token-abc", "team123",
    )  # fmt: skip
    assert config.allow_from_match_mode == "username" and config.allow_from == ["alice"]
    assert (config.group_policy, config.group_policy_in_thread) == ("open", "allowlist")
    assert config.reply_in_thread is False and config.react_emoji == "hourglass"
    dm = config.dm_policy
    assert (dm.enabled, dm.policy, dm.allow_from) == (True, "allowlist", ["bob"])
    assert set(config.model_extra or {}) == {"sendProgress", "sendToolHints", "dm"}
    assert config.model_dump(by_alias=True) == NANOBOT_SECTION


def test_without_a_thread_policy_threads_follow_the_channel_policy_as_in_nanobot() -> None:
    section: dict[str, object] = {"groupPolicy": "open"}
    theirs = nanobot_validates(section)
    ours = MattermostConfig.model_validate(section)
    assert theirs["groupPolicyInThread"] == ours.group_policy_in_thread == "open"
    assert MattermostConfig().group_policy_in_thread == "mention"


async def test_the_section_nanobot_writes_starts_the_channel(
    mattermost: MattermostServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    section: dict[str, Any] = nanobot_validates(
        {"enabled": True, "serverUrl": mattermost.url, "token": TOKEN, "allowFrom": [ALICE]}
    )
    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, mattermost, scripted_server, **section)
    try:
        await mattermost.say(DM, "hi from 0.3.5's config")
        await until(lambda: mattermost.texts(DM), what="the answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert mattermost.texts(DM) == ["echo: hi from 0.3.5's config"]
