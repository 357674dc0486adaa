"""The Mochat settings load nanobot's ``channels.mochat`` section unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.config.channels.mochat import MochatConfig
from desktop.core.config.loader import load_config

FIXTURE = Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "config.json"

# Every key of nanobot 0.3.5's Mochat section, as written in its config.json, with values
# other than the defaults.
NANOBOT_SECTION = {
    "enabled": True,
    "baseUrl": "https://chat.example.org",
    "clawToken": "claw_abcdef123456",
    "agentUserId": "bot-7",
    "sessions": ["session_a", "*"],
    "panels": ["panel-1"],
    "allowFrom": ["alice"],
    "socketUrl": "https://ws.example.org",
    "socketPath": "/io",
    "socketDisableMsgpack": True,
    "socketReconnectDelayMs": 2000,
    "socketMaxReconnectDelayMs": 20000,
    "socketConnectTimeoutMs": 5000,
    "refreshIntervalMs": 60000,
    "watchTimeoutMs": 20000,
    "watchLimit": 50,
    "retryDelayMs": 700,
    "maxRetryAttempts": 3,
    "mention": {"requireInGroups": True},
    "groups": {"group-9": {"requireMention": False}, "panel-2": {"requireMention": True}},
    "replyDelayMode": "off",
    "replyDelayMs": 5000,
}


def test_a_nanobot_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    config = MochatConfig.model_validate(NANOBOT_SECTION)
    assert set(config.model_extra or {}) == {"mention", "groups"}, "the nested rules are kept"
    assert (config.base_url, config.claw_token, config.agent_user_id) == (
        "https://chat.example.org", "claw_abcdef123456", "bot-7",
    )  # fmt: skip
    assert config.sessions == ["session_a", "*"] and config.panels == ["panel-1"]
    assert (config.socket_url, config.socket_path, config.socket_disable_msgpack) == (
        "https://ws.example.org", "/io", True,
    )  # fmt: skip
    assert config.socket_connect_timeout_ms == 5000 and config.refresh_interval_ms == 60000
    assert config.watch_limit == 50 and config.max_retry_attempts == 3
    assert config.reply_delay_mode == "off" and config.reply_delay_ms == 5000
    assert config.model_dump(by_alias=True) == NANOBOT_SECTION


def test_mention_rules_follow_groups_then_the_default() -> None:
    config = MochatConfig.model_validate(NANOBOT_SECTION)
    assert config.mention_rule("group-9", "panel-1") is False, "the group's own rule"
    assert config.mention_rule("group-x", "panel-2") is True, "the panel's rule"
    assert config.mention_rule("group-x", "panel-x") is True, "mention.requireInGroups"
    assert MochatConfig().mention_rule("g", "p") is False
    wildcard = MochatConfig.model_validate({"groups": {"*": {"requireMention": True}}})
    assert wildcard.mention_rule("g", "p") is True


def test_defaults_are_nanobots() -> None:
    config = MochatConfig()
    assert config.base_url == "https://mochat.io" and config.socket_path == "/socket.io"
    assert config.socket_url == "" and not config.socket_disable_msgpack
    assert config.reply_delay_mode == "non-mention" and config.reply_delay_ms == 120000
    assert config.watch_limit == 100 and config.refresh_interval_ms == 30000
    assert config.sessions == [] and config.panels == [] and config.allow_from == []


def test_the_nanobot_fixture_loads(tmp_path: Path) -> None:
    """The section nanobot 0.3.5 itself wrote (the shared fixture) loads into the app's
    config, every key kept."""
    data = json.loads(FIXTURE.read_text())
    section = data["channels"]["mochat"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    config = load_config(path).channels.mochat
    assert isinstance(config, MochatConfig)
    assert config.model_dump(by_alias=True) == section
