"""The Feishu settings load nanobot's ``channels.feishu`` section unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.config.channels.feishu import FeishuConfig

FIXTURE = Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "config.json"
NANOBOT_KEPT = {"instanceId", "name", "identityKey"}  # nanobot's multi-instance bookkeeping


def _nanobot_section() -> dict[str, object]:
    section: dict[str, object] = json.loads(FIXTURE.read_text())["channels"]["feishu"]
    return section


def test_nanobots_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    section = {
        **_nanobot_section(),
        "enabled": True,
        "appId": "cli_a1b2",
        "appSecret": "s3cret",
        "allowFrom": ["ou_1", "ou_2"],
        "reactEmoji": "OnIt",
        "doneEmoji": "DONE",
        "groupPolicy": "open",
        "replyToMessage": True,
        "domain": "lark",
    }
    config = FeishuConfig.model_validate(section)
    assert set(config.model_extra or {}) == NANOBOT_KEPT, "every other key reaches a field"
    assert (config.app_id, config.app_secret, config.allow_from) == (
        "cli_a1b2", "s3cret", ["ou_1", "ou_2"],
    )  # fmt: skip
    assert (config.react_emoji, config.done_emoji, config.group_policy) == ("OnIt", "DONE", "open")
    assert config.reply_to_message and config.tool_hint_prefix == "\U0001f527"
    assert config.api_base == "https://open.larksuite.com"
    saved = config.model_dump(by_alias=True, exclude={"base_url"})
    assert saved == section


def test_defaults_are_nanobots() -> None:
    config = FeishuConfig()
    nanobot = _nanobot_section()
    dumped = config.model_dump(by_alias=True)
    for key, value in nanobot.items():
        if key not in NANOBOT_KEPT:
            assert dumped[key] == value, key
    assert config.api_base == "https://open.feishu.cn"
    assert FeishuConfig(base_url="http://127.0.0.1:9/").api_base == "http://127.0.0.1:9"


def test_the_platform_picks_the_open_api_address_the_sdk_uses() -> None:
    from desktop.core.channels.feishu.api import OpenApi

    for domain, address in (
        ("feishu", "https://open.feishu.cn"),
        ("lark", "https://open.larksuite.com"),
    ):
        config = FeishuConfig(domain=domain, app_id="cli_x", app_secret="s")
        api = OpenApi(config.app_id, config.app_secret, config.api_base)
        assert api.client._config.domain == address
