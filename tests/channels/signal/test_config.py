"""nanobot 0.3.5's ``channels.signal`` section, as its own model writes it, loads into ours
unchanged and starts the channel; the defaults are the same."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from desktop.core.config.channels.signal import SignalConfig
from tests.channels.signal.conftest import echo, start_runtime, until
from tests.channels.signal.daemon import ALICE, SignalDaemon
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.interop.conftest import nanobot_bin

__all__ = ["nanobot_bin"]

_DUMP = """
import json, sys
from nanobot.channels.signal.runtime import SignalConfig
section = SignalConfig.model_validate(json.loads(sys.argv[1]))
print(json.dumps(section.model_dump(by_alias=True)))
"""


def nanobots(nanobot: Path, section: dict[str, Any]) -> dict[str, Any]:
    """``section`` validated and written back by nanobot 0.3.5's own model."""
    python = nanobot.parent / "python"
    done = subprocess.run(
        [str(python), "-c", _DUMP, json.dumps(section)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    written: dict[str, Any] = json.loads(done.stdout)
    return written


def test_the_defaults_are_nanobots(nanobot_bin: Path) -> None:
    assert SignalConfig().model_dump(by_alias=True) == nanobots(nanobot_bin, {})


async def test_a_section_written_by_nanobot_loads_unchanged_and_starts_the_channel(
    nanobot_bin: Path,
    daemon: SignalDaemon,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
) -> None:
    section = nanobots(
        nanobot_bin,
        {
            "enabled": True,
            "phoneNumber": "+4915100000000",
            "daemonHost": "127.0.0.1",
            "daemonPort": daemon.port,
            "attachmentsDir": str(daemon.attachments),
            "groupMessageBufferSize": 5,
            "dm": {"enabled": True, "policy": "allowlist", "allowFrom": [ALICE]},
            "group": {"enabled": True, "policy": "open", "requireMention": False},
        },
    )
    ours = SignalConfig.model_validate(section)
    assert not ours.model_extra, f"keys that did not reach a field: {ours.model_extra}"
    assert ours.model_dump(by_alias=True) == section
    assert ours.dm.allow_from == [ALICE] and ours.group.policy == "open"

    scripted_server.route = echo()
    runtime = await start_runtime(tmp_path, daemon, scripted_server, raw=section)
    try:
        daemon.say("from nanobot's config")
        await until(lambda: daemon.texts() == ["echo: from nanobot's config"], what="answered")
        await runtime.agent.idle()
        assert runtime.sessions.path_for(f"signal:{ALICE}").exists()
    finally:
        await runtime.stop()
