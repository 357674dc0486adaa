"""``nanobot-desktop gateway`` as a user runs it: a subprocess with the Telegram channel
configured against the local Bot API server and the scripted model. It answers in the chat,
asks before a risky tool call in "ask" mode (inline buttons) instead of running it, and stops
cleanly on SIGINT. Also ``channels status`` (in processes forked from the pre-imported zygote)."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from desktop.core.agent.approval import DENIED_RESULT
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer
from tests.channels.telegram.conftest import CHAT, until, user_text
from tests.cli_runner import fork_cli
from tests.conftest import REPO, cli_env, write_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def _config(tmp_path: Path, api: BotApiServer, model: ScriptedOpenAIServer, mode: str) -> Path:
    """config.json (custom provider → the scripted model, Telegram → the local Bot API) and
    desktop.json with the approval mode beside it."""
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
            "providers": {"custom": {"apiBase": model.url}},
            "channels": {
                "telegram": {
                    "enabled": True,
                    "token": TOKEN,
                    "baseUrl": api.base_url,
                    "allowFrom": ["*"],
                    "reactEmoji": "",
                }
            },
        },
    )
    write_config(config.parent / "desktop.json", {"approvalMode": mode})
    return config


def _route(marker: Path) -> Any:
    """Greets; for "run it" asks to run ``touch marker``; reports the tool's result."""

    def route(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "tool":
            return Reply(f"Tool said: {last['content']}")
        if user_text(body) == "run it":
            return Reply(tool_calls=[("exec", json.dumps({"command": f"touch {marker}"}))])
        return Reply("Hi from the gateway.")

    return route


_READERS: set[asyncio.Future[None]] = set()  # output readers, kept until the output ends


async def _start(config: Path, home: Path) -> tuple[asyncio.subprocess.Process, list[str]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop", "gateway", "--config", str(config),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home), cwd=REPO,
    )  # fmt: skip
    lines: list[str] = []

    async def read() -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            lines.append(raw.decode().rstrip("\n"))  # noqa: PERF401 - read while it runs

    reader = asyncio.ensure_future(read())  # ends with the process's output
    _READERS.add(reader)
    reader.add_done_callback(_READERS.discard)
    return process, lines


async def _interrupt(process: asyncio.subprocess.Process) -> str:
    """SIGINT; the gateway must end by itself, with exit code 0. Returns its stderr."""
    if process.returncode is None:
        process.send_signal(signal.SIGINT)
    try:
        await asyncio.wait_for(process.wait(), 30)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.stderr is not None
    return (await process.stderr.read()).decode()


async def test_the_gateway_answers_asks_before_a_risky_call_and_stops_on_sigint(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    marker = tmp_path / "workspace" / "ran"
    scripted_server.route = _route(marker)
    config = _config(tmp_path, api, scripted_server, "ask")
    process, lines = await _start(config, isolated_env)
    try:
        await until(
            lambda: (
                # Connected, and the summary printed: the channel may connect before the
                # summary (ending "running") is out, or after.
                (
                    any("channel telegram: connected" in line for line in lines)
                    and any("running; Ctrl-C to stop" in line for line in lines)
                )
                or process.returncode is not None
            ),
            timeout=90,
            what="the gateway connected to Telegram",
        )
        assert process.returncode is None, lines
        assert any("approvals: ask" in line for line in lines), lines
        api.put_message(CHAT, "hello")
        await until(lambda: api.texts(CHAT) == ["Hi from the gateway."], what="the answer")

        api.put_message(CHAT, "run it")
        await until(
            lambda: any(m.get("reply_markup") for m in api.messages.values()), what="the question"
        )
        question = next(m for m in api.messages.values() if m.get("reply_markup"))
        assert "Allow the tool exec?" in question["text"] and "touch" in question["text"]
        # The test: unanswered, the call must not run. No wait is needed to see it: the
        # marker is checked again at the end, after the denial, so a call run at any moment
        # before the answer would have left it.
        assert not marker.exists(), "the call waits for the answer"
        rows = question["reply_markup"]["inline_keyboard"]
        deny = next(b for row in rows for b in row if b["text"] == "Deny")
        api.put_callback(question, deny["callback_data"], user_id=CHAT, username="ada")
        await until(
            lambda: any(t.startswith("Tool said:") for t in api.texts(CHAT)), what="the end"
        )
    finally:
        stderr = await _interrupt(process)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert lines[-1].endswith("stopped"), lines
    assert not marker.exists(), "denied: never run"
    final = next(t for t in api.texts(CHAT) if t.startswith("Tool said:"))
    assert DENIED_RESULT.format(tool="exec")[:40] in final


async def test_the_gateway_in_autonomous_mode_asks_nothing(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    marker = tmp_path / "workspace" / "ran"
    scripted_server.route = _route(marker)
    config = _config(tmp_path, api, scripted_server, "autonomous")
    process, lines = await _start(config, isolated_env)
    try:
        await until(
            lambda: (
                # Connected, and the summary printed: the channel may connect before the
                # summary (ending "running") is out, or after.
                (
                    any("channel telegram: connected" in line for line in lines)
                    and any("running; Ctrl-C to stop" in line for line in lines)
                )
                or process.returncode is not None
            ),
            timeout=90,
            what="the gateway connected to Telegram",
        )
        assert any("approvals: autonomous" in line for line in lines), lines
        api.put_message(CHAT, "run it")
        await until(
            lambda: any(t.startswith("Tool said:") for t in api.texts(CHAT)), what="the end"
        )
    finally:
        stderr = await _interrupt(process)
    assert process.returncode == 0, stderr
    assert not any(m.get("reply_markup") for m in api.messages.values()), "nothing was asked"


async def _channels_status(config: Path, home: Path, *args: str) -> tuple[int, str, str]:
    """``channels status`` in its own process, forked from the pre-imported zygote."""
    result = await asyncio.to_thread(
        fork_cli, ["channels", "status", *args, "--config", str(config)], cli_env(home), None, 120
    )
    return result.returncode, result.stdout, result.stderr


def _rows(out: str) -> dict[str, str]:
    """``channels status`` lines as {channel: what it says} (names are padded to a column;
    the sandbox's line follows after a blank line)."""
    rows = (line.split("  ", 1) for line in out.split("\n\n")[0].splitlines())
    return {name: rest.strip() for name, rest in rows}


async def test_channels_status_lists_every_channel_and_tests_the_enabled_ones(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    from desktop.core.channels.registry import CHANNELS

    config = _config(tmp_path, api, scripted_server, "ask")
    code, out, err = await _channels_status(config, isolated_env)
    assert code == 0, err
    lines = _rows(out)
    assert set(lines) == {info.display_name for info in CHANNELS.values()}
    assert lines["Telegram"] == "enabled, installed"
    assert lines["Email"].startswith("disabled, ")
    assert api.calls_of("getMe") == [], "no call without --test"

    code, out, err = await _channels_status(config, isolated_env, "--test")
    assert code == 0, err
    assert _rows(out)["Telegram"] == "enabled, installed, Connected as @test_bot"
    assert len(api.calls_of("getMe")) == 1

    data = json.loads(config.read_text())
    data["channels"]["telegram"]["token"] = "999:not-the-bot"
    config.write_text(json.dumps(data))
    code, out, _ = await _channels_status(config, isolated_env, "--test")
    assert code == 1 and _rows(out)["Telegram"].startswith("enabled, installed, test failed:"), out

    # a server that is not there: the same readable sentence the Settings page shows
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    data["channels"]["telegram"]["baseUrl"] = f"http://127.0.0.1:{free_port}/bot"
    config.write_text(json.dumps(data))
    code, out, _ = await _channels_status(config, isolated_env, "--test")
    assert code == 1 and _rows(out)["Telegram"] == (
        "enabled, installed, test failed: "
        "The server refused the connection (is it running, and is the port right?)"
    ), out
