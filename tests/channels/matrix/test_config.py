"""The Matrix settings load nanobot's ``channels.matrix`` section unchanged."""

from __future__ import annotations

from desktop.core.config.channels.matrix import MatrixConfig

# Every key of nanobot 0.3.5's Matrix section, as written in its config.json.
NANOBOT_SECTION = {
    "enabled": True,
    "homeserver": "https://matrix.example.org",
    "userId": "@bot:example.org",
    "password": "",
    "accessToken": "syt_token",
    "deviceId": "ABCDEF",
    "e2eeEnabled": False,
    "sasVerification": True,
    "syncStopGraceSeconds": 5,
    "maxMediaBytes": 1234,
    "maxConcurrentMediaDownloads": 3,
    "allowFrom": ["@alice:example.org"],
    "groupPolicy": "mention",
    "groupAllowFrom": ["!room:example.org"],
    "allowRoomMentions": True,
    "streaming": True,
    "proxy": "http://127.0.0.1:3128",
}


def test_a_nanobot_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    config = MatrixConfig.model_validate(NANOBOT_SECTION)
    assert not config.model_extra, f"keys that did not reach a field: {config.model_extra}"
    assert (config.user_id, config.access_token, config.device_id) == (
        "@bot:example.org", "syt_token", "ABCDEF",
    )  # fmt: skip
    assert config.e2ee_enabled is False and config.group_policy == "mention"
    assert config.group_allow_from == ["!room:example.org"] and config.allow_room_mentions
    assert config.model_dump(by_alias=True) == NANOBOT_SECTION


def test_defaults_are_nanobots() -> None:
    config = MatrixConfig()
    assert config.homeserver == "https://matrix.org" and config.group_policy == "open"
    assert config.max_media_bytes == 20 * 1024 * 1024 and config.sync_stop_grace_seconds == 2
    assert not config.allow_room_mentions and not config.streaming and config.proxy is None
