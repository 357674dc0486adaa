"""The WebSocket settings are nanobot 0.3.5's ``channels.websocket`` section: the section as
0.3.5 validates it loads here unchanged and starts the channel; our defaults are 0.3.5's
(except that an absent section leaves the channel off); ``channels status`` lists it."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop.core.config.channels.websocket import WebSocketConfig
from desktop.core.config.loader import load_config
from desktop.core.config.secret_fields import channel_secret_paths
from tests.channels.websocket.conftest import Client, free_port, start_runtime, url_of
from tests.conftest import CLI, REPO, cli_env, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.interop.conftest import nanobot_executable
from tests.waiting import until

NANOBOT_SECTION: dict[str, Any] = {
    "enabled": True,
    "host": "127.0.0.1",
    "port": 18765,
    "unixSocketPath": "",
    "path": "/chat",
    "publicWsUrl": "",
    "token": "fixed-token-abc",
    "tokenIssuePath": "/auth/token",
    "tokenIssueSecret": "issue-secret-xyz",
    "trustedProxyAuth": None,
    "tokenTtlS": 600,
    "websocketRequiresToken": False,
    "allowFrom": ["phone", "laptop"],
    "streaming": False,
    "maxMessageBytes": 1048576,
    "pingIntervalS": 30.0,
    "pingTimeoutS": 15.0,
    "sslCertfile": "",
    "sslKeyfile": "",
}


def nanobot_validates(section: dict[str, Any]) -> dict[str, Any]:
    """``section`` through 0.3.5's own model (its venv, a subprocess), dumped back."""
    nanobot = nanobot_executable()
    if nanobot is None:
        pytest.skip("nanobot-ai 0.3.5 is not installed (scripts/setup.sh --test)")
    script = (
        "import json, sys\n"
        "from nanobot.channels.websocket.runtime import WebSocketConfig\n"
        "section = json.loads(sys.argv[1])\n"
        "print(json.dumps(WebSocketConfig.model_validate(section).model_dump(by_alias=True)))\n"
    )
    done = subprocess.run(
        [str(nanobot.parent / "python"), "-c", script, json.dumps(section)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return dict(json.loads(done.stdout))


def test_nanobots_section_loads_unchanged() -> None:
    assert nanobot_validates(NANOBOT_SECTION) == NANOBOT_SECTION, "0.3.5 accepts it as it is"
    config = WebSocketConfig.model_validate(NANOBOT_SECTION)
    assert (config.path, config.token_issue_path, config.token_ttl_s) == (
        "/chat", "/auth/token", 600,
    )  # fmt: skip
    assert config.allow_from == ["phone", "laptop"] and config.streaming is False
    dumped = config.model_dump(by_alias=True)
    assert dumped.pop("webuiDist") == ""
    assert dumped == NANOBOT_SECTION, "saved back as it came"


def test_the_defaults_are_nanobots_but_an_absent_section_is_off() -> None:
    theirs = nanobot_validates({})
    ours = WebSocketConfig().model_dump(by_alias=True)
    assert theirs.pop("enabled") is True and ours.pop("enabled") is False
    ours.pop("webuiDist")
    for kept in ("unixSocketPath", "publicWsUrl", "trustedProxyAuth"):
        theirs.pop(kept)  # read and saved unchanged (extras), not used here
    assert ours == theirs


def test_the_section_nanobot_onboard_writes_runs_the_channel(tmp_path: Path) -> None:
    """``nanobot onboard`` writes ``"websocket": {"enabled": true}`` (the shared fixture): the
    channel runs here too, on 0.3.5's defaults (this computer only, a token required)."""
    fixture = REPO / "tests" / "fixtures" / "nanobot_0_3_5" / "config.json"
    data = json.loads(fixture.read_text())
    assert data["channels"]["websocket"] == {"enabled": True}
    config = load_config(write_config(tmp_path / "config.json", data)).channels.websocket
    assert config.enabled and config.host == "127.0.0.1" and config.websocket_requires_token
    assert config.open_to_everyone() == ""


def test_the_secrets_go_to_the_keyring_and_the_switch_does_not() -> None:
    assert sorted(channel_secret_paths("websocket")) == [
        "channels.websocket.token",
        "channels.websocket.token_issue_secret",
    ]


async def test_nanobots_section_starts_the_channel(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    section = {**NANOBOT_SECTION, "port": free_port(), "allowFrom": ["*"]}
    section.pop("enabled")
    runtime = await start_runtime(tmp_path, scripted_server, **section)
    try:
        assert runtime.channels.status("websocket").account.endswith("/chat")
        client = await Client.open(f"{url_of(runtime)}/chat?token=fixed-token-abc")
        await client.close()
    finally:
        await runtime.stop()


def test_channels_status_lists_it(tmp_path: Path) -> None:
    port = free_port()
    config = write_config(
        tmp_path / "nanobot" / "config.json",
        {"channels": {"websocket": {"enabled": True, "port": port}}},
    )
    done = subprocess.run(
        [CLI, "--config", str(config), "channels", "status", "--test"],
        env=cli_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = next(x for x in done.stdout.splitlines() if x.startswith("WebSocket"))
    assert "enabled, installed" in line and f"ws://127.0.0.1:{port}/" in line, done.stdout


async def test_a_port_in_use_is_a_clear_error_and_retried(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Another program (a nanobot gateway on the same config) holds the port: the channel
    says so and tries again later; the rest of the app runs."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        runtime = await start_runtime(tmp_path, scripted_server, connected=False, port=port)
        try:
            await until(lambda: runtime.channels.status("websocket").state == "error")
            reason = runtime.channels.status("websocket").reason
        finally:
            await runtime.stop()
    assert f"listen on 127.0.0.1:{port}: Address already in use" in reason, reason
    assert "nanobot gateway" in reason
