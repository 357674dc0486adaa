"""The DingTalk settings load nanobot's ``channels.dingtalk`` section unchanged, and a group
member gets their own conversation with ``groupUserIsolation``."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.config.channels.dingtalk import DEFAULT_BASE_URL, DingTalkConfig
from desktop.core.config.secret_fields import is_secret_field
from tests.channels.dingtalk.conftest import start_runtime, until
from tests.channels.dingtalk.server import DingTalkServer
from tests.channels.telegram.conftest import echo
from tests.fakes.openai_server import ScriptedOpenAIServer

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "nanobot_0_3_5" / "config.json"

# Every key of nanobot 0.3.5's DingTalk section, with values other than the defaults.
NANOBOT_SECTION = {
    "enabled": True,
    "clientId": "dingabc123",
    "clientSecret": "secret-xyz-789",
    "allowFrom": ["staff-1"],
    "allowRemoteMediaRedirects": True,
    "remoteMediaRedirectAllowedHosts": ["cdn.example.com"],
    "groupUserIsolation": True,
    "disablePrivateChat": True,
}


def test_a_nanobot_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    config = DingTalkConfig.model_validate(NANOBOT_SECTION)
    assert not config.model_extra, f"keys that did not reach a field: {config.model_extra}"
    assert (config.client_id, config.client_secret) == ("dingabc123", "secret-xyz-789")
    assert config.group_user_isolation and config.disable_private_chat
    assert config.remote_media_redirect_allowed_hosts == ["cdn.example.com"]
    dumped = config.model_dump(by_alias=True)
    assert {k: dumped[k] for k in NANOBOT_SECTION} == NANOBOT_SECTION
    assert set(dumped) - set(NANOBOT_SECTION) == {"baseUrl", "oapiUrl"}  # ours
    assert is_secret_field("client_secret") and not is_secret_field("client_id")


def test_the_fixtures_section_loads_with_nanobots_defaults() -> None:
    section = json.loads(FIXTURE.read_text())["channels"]["dingtalk"]
    config = DingTalkConfig.model_validate(section)
    assert not config.model_extra
    assert config.model_dump(by_alias=True, exclude={"base_url", "oapi_url"}) == section
    assert config.base_url == DEFAULT_BASE_URL and not config.enabled


async def test_group_user_isolation_and_groups_only(
    dingtalk: DingTalkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path, dingtalk, scripted_server, groupUserIsolation=True, disablePrivateChat=True
    )
    try:
        await dingtalk.push(dingtalk.message("private"))
        await dingtalk.push(dingtalk.message("from alice", group="cid-g"))
        await dingtalk.push(dingtalk.message("from bob", group="cid-g", sender="staff-bob"))
        await until(lambda: len(dingtalk.texts()) == 2, what="two answers")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    assert sorted(dingtalk.texts()) == ["echo: from alice", "echo: from bob"]
    assert runtime.sessions.path_for("dingtalk:group:cid-g:staff-alice").exists()
    assert runtime.sessions.path_for("dingtalk:group:cid-g:staff-bob").exists()
    assert not runtime.sessions.path_for("dingtalk:staff-alice").exists()
