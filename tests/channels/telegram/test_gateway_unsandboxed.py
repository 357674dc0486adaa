"""``gateway`` on a machine without bubblewrap: its start-up output says commands run without
the sandbox (and how to install it), and so does the first command question in the chat.

The real gateway subprocess, the local Bot API server and the scripted model, as in
``test_gateway.py``; "no bubblewrap" is a ``PATH`` without ``bwrap``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from tests.channels.telegram.bot_api_server import BotApiServer
from tests.channels.telegram.conftest import CHAT, until
from tests.channels.telegram.test_gateway import _READERS, _config, _interrupt, _route
from tests.conftest import REPO, cli_env
from tests.fakes.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")


async def _start_without_bwrap(
    config: Path, home: Path, empty: Path
) -> tuple[asyncio.subprocess.Process, list[str]]:
    empty.mkdir(exist_ok=True)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop", "gateway", "--config", str(config),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(home, PATH=str(empty)),
        cwd=REPO,
    )  # fmt: skip
    lines: list[str] = []

    async def read() -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            lines.append(raw.decode().rstrip("\n"))  # noqa: PERF401 - read while it runs

    reader = asyncio.ensure_future(read())
    _READERS.add(reader)
    reader.add_done_callback(_READERS.discard)
    return process, lines


def _questions(api: BotApiServer) -> dict[object, str]:
    """Questions still waiting (with their buttons), by message id."""
    return {key: m["text"] for key, m in api.messages.items() if m.get("reply_markup")}


async def test_start_up_and_the_first_question_say_commands_run_unsandboxed(
    api: BotApiServer,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    isolated_env: Path,
) -> None:
    marker = tmp_path / "workspace" / "ran"
    scripted_server.route = _route(marker)
    config = _config(tmp_path, api, scripted_server, "ask")
    process, lines = await _start_without_bwrap(config, isolated_env, tmp_path / "empty-bin")
    try:
        await until(
            lambda: (
                any("running; Ctrl-C to stop" in line for line in lines)
                or process.returncode is not None
            ),
            timeout=90,
            what="the gateway started",
        )
        [warning] = [line for line in lines if "WARNING:" in line]
        assert "Commands run without the sandbox: bubblewrap (bwrap) is not installed" in warning
        assert "apt install bubblewrap" in warning and "restart nanobot Desktop" in warning

        api.put_message(CHAT, "run it")
        await until(lambda: len(_questions(api)) == 1, what="the first question")
        [(first_id, first)] = _questions(api).items()
        assert "Commands run without the sandbox" in first and "apt install bubblewrap" in first
        question = next(m for m in api.messages.values() if m.get("reply_markup"))
        rows = question["reply_markup"]["inline_keyboard"]
        deny = next(b for row in rows for b in row if b["text"] == "Deny")
        api.put_callback(question, deny["callback_data"], user_id=CHAT, username="ada")
        await until(  # a loaded machine: the gateway's turn after the answer may be slow
            lambda: any(t.startswith("Tool said:") for t in api.texts(CHAT)),
            timeout=90,
            what="the denial",
        )

        api.put_message(CHAT, "run it")
        await until(
            lambda: any(key != first_id for key in _questions(api)), what="the second question"
        )
        [second] = [text for key, text in _questions(api).items() if key != first_id]
        assert "without the sandbox" in second and "apt install" not in second
    finally:
        stderr = await _interrupt(process)
    assert process.returncode == 0, stderr
    assert not marker.exists()
