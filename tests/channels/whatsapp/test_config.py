"""The WhatsApp settings load nanobot's ``channels.whatsapp`` section unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.channels.whatsapp.protocol import Message
from desktop.core.config.channels.whatsapp import WhatsAppConfig

# The older nanobot's bridge-based WhatsApp section, as written in its config.json.
NANOBOT_SECTION = {
    "enabled": True,
    "bridgeUrl": "ws://localhost:3002",
    "bridgeToken": "tok-123456",
    "allowFrom": ["4915112345678"],
    "groupPolicy": "mention",
}
FIXTURE = Path(__file__).parents[2] / "fixtures" / "nanobot_0_3_5" / "config.json"


def test_a_nanobot_section_loads_into_the_fields_and_saves_back_the_same() -> None:
    config = WhatsAppConfig.model_validate(NANOBOT_SECTION)
    assert not config.model_extra, f"keys that did not reach a field: {config.model_extra}"
    assert (config.bridge_url, config.bridge_token) == ("ws://localhost:3002", "tok-123456")
    assert config.allow_from == ["4915112345678"] and config.group_policy == "mention"
    saved = config.model_dump(by_alias=True)
    assert {key: saved[key] for key in NANOBOT_SECTION} == NANOBOT_SECTION


def test_keys_of_other_nanobot_versions_are_kept() -> None:
    section = json.loads(FIXTURE.read_text())["channels"]["whatsapp"]
    config = WhatsAppConfig.model_validate({**section, "identityResolution": True})
    assert config.model_dump(
        by_alias=True, exclude={"bridge_url", "bridge_token", "lid_mappings"}
    ) == {
        **section,
        "identityResolution": True,
    }


def test_defaults_are_nanobot_0_3_5s_and_select_the_linked_device() -> None:
    config = WhatsAppConfig()
    assert config.bridge_url == "" and config.bridge_token == "", "no bridge unless named"
    assert config.database_path == "" and config.proxy == "" and config.lid_mappings == {}
    assert config.group_policy == "open" and config.allow_from == [] and not config.enabled


def test_senders_are_identified_as_nanobot_does() -> None:
    phone, lid = "4915112345678@s.whatsapp.net", "123456789012345@lid"
    assert Message("1", phone, "", "hi").sender == "4915112345678"
    assert Message("1", lid, phone, "hi").sender == "4915112345678|123456789012345"
    assert Message("1", lid, "", "hi").sender == "123456789012345"
    assert Message("1", "4915112345678:12@s.whatsapp.net", "", "hi").sender == "4915112345678"
    assert Message("1", "120363000000000000@g.us", "", "hi").sender == "120363000000000000"
