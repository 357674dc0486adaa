"""``channels.sendProgress`` and ``channels.sendToolHints`` decide what a chat channel gets
while a turn works: the model's interim text, a one-line hint per tool call, or neither. A
real runtime (``build_runtime`` on the scripted server); the channel records what the
manager delivers to it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage, OutboundMessage
from desktop.core.config.schema import Config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


class Recorder:
    """A chat channel that keeps every message delivered to it."""

    name = "probe"

    def __init__(self) -> None:
        self.received: list[OutboundMessage] = []

    async def send(self, message: OutboundMessage) -> None:
        self.received.append(message)


@pytest.mark.parametrize(
    ("progress", "hints"), [(True, False), (False, True), (True, True), (False, False)]
)
async def test_progress_and_tool_hints_follow_the_settings(
    progress: bool, hints: bool, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("remember the milk\n")
    config = Config.model_validate(
        {
            "agents": {"defaults": {"workspace": str(workspace), "timezone": "UTC"}},
            "channels": {"sendProgress": progress, "sendToolHints": hints},
        }
    )
    scripted_server.push(
        Reply(
            "Let me look at your notes.",
            tool_calls=[("read_file", json.dumps({"path": "notes.md"}))],
        ),
        Reply("You wrote: remember the milk."),
    )
    runtime = await asyncio.to_thread(
        build_runtime, config, make_provider(scripted_server.url), serve_socket=False
    )
    recorder = Recorder()
    runtime.channels.register(recorder)
    await runtime.start()
    try:
        await runtime.bus.publish_inbound(InboundMessage("probe", "ada", "c1", "what did I note?"))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while not any(m.content.startswith("You wrote") for m in recorder.received):
            assert loop.time() < deadline, recorder.received
            await asyncio.sleep(0.02)
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    got = [(m.content, bool(m.metadata.get("tool_hint"))) for m in recorder.received]
    expected = []
    if progress:
        expected.append(("Let me look at your notes.", False))
    if hints:
        expected.append(('read_file("notes.md")', True))
    expected.append(("You wrote: remember the milk.", False))
    assert got == expected
    assert all(m.metadata.get("progress") for m in recorder.received[:-1])
