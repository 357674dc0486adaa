"""nanobot 0.3.5's ``channels.napcat`` section, as its own model writes it, loads into ours
unchanged and starts the channel; the defaults are the same."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from desktop.core.config.channels.napcat import NapcatConfig
from tests.channels.napcat.conftest import PRIVATE, echo, start_runtime, until
from tests.channels.napcat.onebot_server import ALICE, TOKEN, OneBotServer
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.interop.conftest import nanobot_bin

__all__ = ["nanobot_bin"]

_DUMP = """
import json, sys
from nanobot.channels.napcat.runtime import NapcatConfig
section = NapcatConfig.model_validate(json.loads(sys.argv[1]))
print(json.dumps(section.model_dump(by_alias=True)))
"""


def nanobots(nanobot: Path, section: dict[str, Any]) -> dict[str, Any]:
    """``section`` validated and written back by nanobot 0.3.5's own model."""
    done = subprocess.run(
        [str(nanobot.parent / "python"), "-c", _DUMP, json.dumps(section)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    written: dict[str, Any] = json.loads(done.stdout)
    return written


def test_the_defaults_are_nanobots(nanobot_bin: Path) -> None:
    assert NapcatConfig().model_dump(by_alias=True) == nanobots(nanobot_bin, {})


async def test_a_section_written_by_nanobot_loads_unchanged_and_starts_the_channel(
    nanobot_bin: Path,
    napcat: OneBotServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
) -> None:
    section = nanobots(
        nanobot_bin,
        {
            "enabled": True,
            "wsUrl": napcat.url,
            "accessToken": TOKEN,
            "allowFrom": [str(ALICE)],
            "groupPolicy": 0.25,
            "groupPolicyOverrides": {"778899": "open", "123": 0.5},
            "welcomeNewMembers": False,
            "maxImageBytes": 1024,
        },
    )
    ours = NapcatConfig.model_validate(section)
    assert not ours.model_extra, f"keys that did not reach a field: {ours.model_extra}"
    assert ours.model_dump(by_alias=True) == section
    assert ours.group_policy == 0.25 and ours.group_policy_overrides["778899"] == "open"

    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, napcat, scripted_server, raw=section)
    try:
        await napcat.say("from nanobot's config")
        await until(lambda: napcat.texts() == ["echo: from nanobot's config"], what="answered")
        await runtime.agent.idle()
        assert runtime.sessions.path_for(f"napcat:{PRIVATE}").exists()
    finally:
        await runtime.stop()


def test_a_group_policy_is_mention_open_or_a_probability() -> None:
    assert NapcatConfig(groupPolicy="0.3").group_policy == 0.3  # the Settings text box
    assert NapcatConfig(groupPolicy=" open ").group_policy == "open"
    for bad in ("sometimes", 1.5, -0.1):
        with pytest.raises(ValidationError, match="group policy"):
            NapcatConfig(groupPolicy=bad)
