"""What :class:`StartOptions` starts: the app's and gateway's defaults run the scheduler and
serve the terminal's socket; a terminal command's (``one_command``) runs neither and leaves the
scheduler's files alone. Both load the keyring's stored secrets."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.config.loader import load_config
from desktop.core.config.secret_fields import WEB_SEARCH_KEY, keyring_name
from desktop.core.config.secrets import SecretStore
from desktop.core.ipc.client import socket_path
from tests.conftest import custom_config
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.skipif(
    not hasattr(asyncio, "start_unix_server"), reason="the socket is a Unix socket"
)

KEY = "BSA-options-test-key-0123456789"


def _jobs(tmp_path: Path) -> set[str]:
    path = tmp_path / "workspace" / "cron" / "jobs.json"
    return {job["id"] for job in json.loads(path.read_text())["jobs"]} if path.exists() else set()


@pytest.mark.parametrize("one_command", [False, True], ids=["app-gateway", "one-command"])
async def test_what_each_start_runs(
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: MemoryKeyring,
    isolated_env: Path,
    one_command: bool,
) -> None:
    SecretStore().set(keyring_name(WEB_SEARCH_KEY), KEY)
    path = custom_config(tmp_path, scripted_server.url)
    config = load_config(path)
    options = StartOptions.one_command() if one_command else StartOptions(probe_window=False)
    runtime = await start_runtime(config, options)
    try:
        assert config.tools.web.search.api_key == KEY  # stored secrets in effect either way
        if one_command:
            assert runtime.ipc is None and not socket_path(path.parent).exists()
            assert _jobs(tmp_path) == set(), "a terminal command leaves the scheduler alone"
        else:
            assert runtime.ipc is not None and runtime.ipc.serving
            assert {"dream", "heartbeat"} <= _jobs(tmp_path)
        answer = await runtime.agent.process_direct("hello")
        assert answer
    finally:
        await runtime.stop()
