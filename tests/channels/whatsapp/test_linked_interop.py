"""The linked-device session is the one nanobot 0.3.5 uses: the real neonize package (offline:
no WhatsApp servers are reachable here) and nanobot 0.3.5's own code on one config.

Real: neonize (its Go library creating and opening the session database), our channel, and
nanobot 0.3.5's WhatsApp code run by ``.cache/nanobot-venv/bin/python``. Not possible here:
WhatsApp's servers, so no real linking (the connection fails at the network).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop.core.bus.queue import MessageBus
from desktop.core.channels.state import ChannelStateStore
from desktop.core.channels.whatsapp.linked import LinkedChannel
from desktop.core.config.loader import load_config
from tests.conftest import REPO, write_config
from tests.interop.conftest import NANOBOT_VENV

NANOBOT_PYTHON = NANOBOT_VENV / "bin" / "python"
SITE = next(iter(sorted((NANOBOT_VENV / "lib").glob("python3*/site-packages"))), None)

# 0.3.5's side, run in its venv: where its channel keeps the session, and whether its
# login-state check finds one there (nanobot's "configured" badge).
ASK_0_3_5 = """
import json, sys
from pathlib import Path
from nanobot.config.loader import set_config_path, load_config
set_config_path(Path(sys.argv[1]))
from nanobot.bus.queue import MessageBus
from nanobot.channels.whatsapp.runtime import WhatsAppChannel
from nanobot.channels.whatsapp.state import local_state_present
section = load_config().channels.whatsapp
data = section if isinstance(section, dict) else section.model_dump(by_alias=True)
channel = WhatsAppChannel(data, MessageBus())
print(json.dumps({"path": str(channel.connect_database_path()),
                  "present": local_state_present(section)}))
"""

# 0.3.5's channel opening its client on that database with the real neonize (this app's venv
# holds neonize; nanobot's site-packages are appended so its own code runs unchanged).
OPEN_0_3_5 = """
import asyncio, json, sys
sys.path.append(sys.argv[2])
from pathlib import Path
from nanobot.config.loader import set_config_path, load_config
set_config_path(Path(sys.argv[1]))
from nanobot.bus.queue import MessageBus
from nanobot.channels.whatsapp.runtime import WhatsAppChannel
section = load_config().channels.whatsapp
data = section if isinstance(section, dict) else section.model_dump(by_alias=True)
async def main():
    channel = WhatsAppChannel(data, MessageBus())
    client = channel._new_client()
    task = await channel._connect_client(client)
    try:
        await asyncio.wait_for(asyncio.shield(task), 60)
        error = ""
    except Exception as exc:
        error = str(exc)
    await client.stop()
    print(json.dumps({"db": client.name, "error": error}))
asyncio.run(main())
"""


def nanobot(script: str, *args: str, python: Path = NANOBOT_PYTHON) -> dict[str, Any]:
    if not python.is_file():
        pytest.skip(f"no nanobot 0.3.5 venv at {NANOBOT_VENV}")
    done = subprocess.run(
        [str(python), "-c", script, *args], capture_output=True, text=True, timeout=120,
        cwd=REPO, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def channel_for(config_path: Path) -> LinkedChannel:
    config = load_config(config_path)
    state = ChannelStateStore(config_path.parent / "channel-state" / "whatsapp.json")
    return LinkedChannel(
        config.channels.whatsapp, MessageBus(), state, config_path.parent / "media",
        app_config=config,
    )  # fmt: skip


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


@pytest.mark.parametrize("database_path", ["", "elsewhere/wa.db"])
async def test_our_session_path_is_the_one_0_3_5_computes(
    tmp_path: Path, database_path: str
) -> None:
    section: dict[str, Any] = {"enabled": True, "allowFrom": ["*"], "groupPolicy": "open"}
    if database_path:
        section["databasePath"] = str(tmp_path / database_path)
    path = write_config(tmp_path / "nanobot" / "config.json", {"channels": {"whatsapp": section}})
    theirs = await asyncio.to_thread(nanobot, ASK_0_3_5, str(path))
    assert Path(theirs["path"]) == channel_for(path).database_path()
    assert theirs["present"] is False, "nothing linked yet"


async def test_the_database_real_neonize_makes_for_us_is_found_and_opened_by_0_3_5(
    tmp_path: Path,
) -> None:
    path = write_config(
        tmp_path / "nanobot" / "config.json",
        {"channels": {"whatsapp": {"enabled": True, "allowFrom": ["*"]}}},
    )
    channel = channel_for(path)
    run = asyncio.create_task(channel.run())
    try:
        done, _ = await asyncio.wait({run}, timeout=120)
        assert done, "offline, neonize's connection fails at the network"
        with pytest.raises(ConnectionError, match="WhatsApp connection ended"):
            run.result()
    finally:
        if not run.done():
            await channel.stop()
        await asyncio.gather(run, return_exceptions=True)
    session = tmp_path / "nanobot" / "whatsapp-auth" / "neonize.db"
    assert {"whatsmeow_device", "whatsmeow_lid_map"} <= await asyncio.to_thread(tables, session)
    assert not channel.status.ok
    theirs = await asyncio.to_thread(nanobot, ASK_0_3_5, str(path))
    assert (Path(theirs["path"]), theirs["present"]) == (session, True)
    assert SITE is not None
    ours = REPO / ".venv" / "bin" / "python"
    opened = await asyncio.to_thread(nanobot, OPEN_0_3_5, str(path), str(SITE), python=ours)
    assert Path(opened["db"]) == session
    assert "web.whatsapp.com" in opened["error"] or "dial" in opened["error"], opened


DEFAULTS_0_3_5 = """
import json
from nanobot.channels.whatsapp.runtime import WhatsAppChannel
print(json.dumps(WhatsAppChannel.default_config()))
"""


async def test_the_section_0_3_5_writes_loads_whole_and_selects_the_linked_device(
    tmp_path: Path,
) -> None:
    from desktop.core.channels.whatsapp.select import open_channel
    from desktop.core.config.channels.whatsapp import WhatsAppConfig

    theirs = await asyncio.to_thread(nanobot, DEFAULTS_0_3_5)
    assert set(theirs) >= {"allowFrom", "groupPolicy", "databasePath", "proxy", "lidMappings"}
    ours = WhatsAppConfig.model_validate({**theirs, "enabled": True})
    assert not ours.model_extra, f"keys that did not reach a field: {ours.model_extra}"
    saved = ours.model_dump(by_alias=True)
    assert {key: saved[key] for key in theirs} == {**theirs, "enabled": True}
    state = ChannelStateStore(tmp_path / "channel-state" / "whatsapp.json")
    channel = open_channel(ours, MessageBus(), state, tmp_path / "media")
    assert isinstance(channel, LinkedChannel)
