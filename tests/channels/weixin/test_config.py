"""nanobot 0.3.5's ``channels.weixin`` section: validated by nanobot's own model, it loads into
ours unchanged, saves back the same, and (with nanobot's account.json) starts the channel."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.channels.weixin import WeixinConfig
from desktop.core.config.secret_fields import channel_secret_paths
from tests.channels.weixin.conftest import ALICE, echo, logged_in, start_runtime, until
from tests.channels.weixin.server import IlinkServer
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.interop.conftest import NANOBOT_VENV, nanobot_executable

# Every key of nanobot 0.3.5's WeChat section, values other than the defaults.
NANOBOT_SECTION: dict[str, Any] = {
    "enabled": True,
    "allowFrom": [ALICE],
    "token": "",
    "baseUrl": "https://ilinkai.weixin.qq.com",
    "cdnBaseUrl": "https://cdn.example.org/c2c",
    "routeTag": "tag-7",
    "stateDir": "",
    "pollTimeout": 20,
    "sendProgress": True,
    "sendToolHints": False,
    "replyProgressMessages": False,
    "replyProgressMaxMessages": 3,
    "contextMessageBudget": 6,
    "streaming": False,
    "blockStreaming": True,
    "blockStreamingMinChars": 1500,
    "blockStreamingMaxMessages": 2,
}


def _nanobot_dump(section: dict[str, Any]) -> dict[str, Any]:
    """``section`` as nanobot 0.3.5's own WeixinConfig validates and writes it."""
    if nanobot_executable() is None:
        if os.environ.get("NANOBOT_TEST_REQUIRE_NANOBOT") == "1":
            pytest.fail("nanobot 0.3.5 is not installed (scripts/setup.sh --test)")
        pytest.skip("nanobot 0.3.5 is not installed (scripts/setup.sh --test)")
    code = (
        "import json, sys\n"
        "from nanobot.channels.weixin.runtime import WeixinConfig\n"
        "c = WeixinConfig.model_validate(json.loads(sys.stdin.read()))\n"
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
    config = WeixinConfig.model_validate(written)
    assert config.allow_from == [ALICE] and config.poll_timeout == 20
    assert config.route_tag == "tag-7" and config.cdn_base_url == "https://cdn.example.org/c2c"
    assert config.model_dump(by_alias=True) == NANOBOT_SECTION
    defaults = WeixinConfig().model_dump(by_alias=True)
    assert defaults == _nanobot_dump({}), "the same defaults"


def test_a_typed_token_is_kept_in_the_keyring() -> None:
    assert channel_secret_paths("weixin") == ["channels.weixin.token"]


async def test_nanobots_section_and_login_start_the_channel(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """nanobot's section (the server moved to the local one) with the account.json nanobot
    left after its QR login: no new login, the cursor and context tokens carry on."""
    scripted_server.route = echo()
    ilink.say("said while nanobot ran")  # nanobot answered this one; its cursor is saved
    logged_in(tmp_path, ilink, get_updates_buf="buf-1", context_tokens={ALICE: "ctx-old"})
    section = {**_nanobot_dump(NANOBOT_SECTION), "baseUrl": ilink.url, "routeTag": ""}
    runtime = await start_runtime(tmp_path, ilink, scripted_server, **section)
    try:
        ilink.say("hi again")
        await until(lambda: ilink.texts(ALICE), what="the answer")
        await runtime.agent.idle()
        check = await runtime.channels.check("weixin", runtime.config.channels.weixin)
    finally:
        await runtime.stop()
    assert ilink.texts(ALICE) == ["echo: hi again"], "nothing before nanobot's cursor"
    assert ilink.calls_to("get_bot_qrcode") == []
    assert ilink.calls_to("getupdates")[0].body["get_updates_buf"] == "buf-1"
    assert check.startswith("Logged in")
