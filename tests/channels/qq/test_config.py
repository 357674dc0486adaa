"""The QQ settings load nanobot's ``channels.qq`` section unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.config.channels.qq import QQConfig

FIXTURE = Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "config.json"


def test_nanobots_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    section = json.loads(FIXTURE.read_text())["channels"]["qq"]
    section = {**section, "appId": "102030405", "secret": "s3cret-value", "msgFormat": "markdown",
               "allowFrom": ["E4F4"], "mediaDir": "~/qq-media"}  # fmt: skip
    config = QQConfig.model_validate(section)
    assert not config.model_extra, f"keys that did not reach a field: {config.model_extra}"
    assert (config.app_id, config.secret, config.msg_format) == (
        "102030405",
        "s3cret-value",
        "markdown",
    )
    assert config.allow_from == ["E4F4"] and config.media_dir == "~/qq-media"
    assert config.model_dump(by_alias=True) == section


def test_defaults_are_nanobots() -> None:
    defaults = json.loads(FIXTURE.read_text())["channels"]["qq"]
    assert QQConfig().model_dump(by_alias=True) == defaults
