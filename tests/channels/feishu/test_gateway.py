"""``nanobot-desktop gateway`` with the Feishu channel, as a user runs it: a subprocess that
opens the long connection to the local platform, answers in the chat, and ends cleanly on
SIGINT (the connection's thread included)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

from tests.channels.feishu.conftest import CHAT, USER, until
from tests.channels.feishu.feishu_server import APP_ID, APP_SECRET, FeishuServer
from tests.conftest import REPO, cli_env, write_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


async def test_the_gateway_answers_on_feishu_and_stops_on_sigint(
    feishu: FeishuServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    scripted_server.push(Reply("Hi from the gateway."))
    config = write_config(
        tmp_path / "config" / "config.json",
        {
            "agents": {
                "defaults": {
                    "model": "any-name",
                    "provider": "custom",
                    "workspace": str(tmp_path / "workspace"),
                    "timezone": "UTC",
                }
            },
            "providers": {"custom": {"apiBase": scripted_server.url}},
            "channels": {
                "feishu": {
                    "enabled": True,
                    "appId": APP_ID,
                    "appSecret": APP_SECRET,
                    "baseUrl": feishu.base_url,
                    "allowFrom": [USER],
                    "reactEmoji": "",
                }
            },
        },
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop", "gateway", "--config", str(config),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(isolated_env), cwd=REPO,
    )  # fmt: skip
    lines: list[str] = []

    async def read() -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            lines.append(raw.decode().rstrip("\n"))  # noqa: PERF401 - read while it runs

    reader = asyncio.ensure_future(read())
    try:
        await until(
            lambda: feishu.connected or process.returncode is not None,
            timeout=90,
            what="the gateway opened the long connection",
        )
        assert process.returncode is None, lines
        await feishu.push_text(CHAT, USER, "hello")
        await until(lambda: feishu.texts(CHAT) == ["Hi from the gateway."], what="the answer")
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
        try:
            async with asyncio.timeout(30):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()
            raise
        await reader
    assert process.stderr is not None
    stderr = (await process.stderr.read()).decode()
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert any("channel feishu: connected" in line for line in lines), lines
    assert lines[-1].endswith("stopped"), lines
    assert not feishu.connected, "the long connection was closed"
