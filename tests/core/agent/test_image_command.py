"""``/image <prompt>`` (the window's image mode): an image from the configured image provider
(the scripted server's OpenAI images API, through LiteLLM), saved in the workspace, posted to
the chat and recorded in the session; no chat model call."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.bus.events import OutboundMessage
from tests.core.tools.test_spawn_images import _runtime, png
from tests.fakes.openai_server import Fail, ScriptedOpenAIServer

SETTINGS = {"enabled": True, "provider": "custom", "model": "img-model"}


async def test_image_command_makes_saves_shows_and_records_the_image(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.images = png(8, 8)
    runtime = _runtime(scripted_server, tmp_path, {"imageGeneration": SETTINGS})
    sent: list[OutboundMessage] = []
    try:
        reply = await runtime.agent.process_direct(
            "/image a lighthouse at dusk", session_key="desktop:m", channel="desktop", chat_id="m"
        )
        while not runtime.bus.outbound.empty():
            sent.append(await runtime.bus.consume_outbound())
        session = runtime.agent.sessions.get_or_create("desktop:m")
    finally:
        await runtime.stop()
    assert scripted_server.chat_requests() == []  # no model turn
    (call,) = [r for r in scripted_server.requests if r.path.endswith("/images/generations")]
    assert call.body["prompt"] == "a lighthouse at dusk" and call.body["model"] == "img-model"
    (shown,) = [m for m in sent if m.media]
    path = Path(shown.media[0])
    assert path.read_bytes() == png(8, 8) and shown.chat_id == "m"
    assert path.is_relative_to(tmp_path / "ws" / "media" / "generated")
    assert reply == f"Saved in the workspace: {path}"
    roles = [m["role"] for m in session.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert session.messages[1]["tool_calls"][0]["function"]["name"] == "generate_image"
    assert json.loads(session.messages[2]["content"])["artifacts"][0]["path"] == str(path)
    saved = Path(runtime.agent.sessions.path_for("desktop:m")).read_text()
    assert "a lighthouse at dusk" in saved and str(path) in saved


async def test_image_command_says_plainly_when_it_cannot_make_one(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "off").mkdir()
    off = _runtime(scripted_server, tmp_path / "off", {})
    try:
        assert "Image generation is off" in await off.agent.process_direct("/image a cat")
        assert (await off.agent.process_direct("/image")).startswith("Usage: /image")
    finally:
        await off.stop()
    scripted_server.images = Fail(500, "the image backend is down")
    failing = _runtime(scripted_server, tmp_path, {"imageGeneration": SETTINGS})
    try:
        reply = await failing.agent.process_direct("/image a cat", session_key="cli:f")
        messages = failing.agent.sessions.get_or_create("cli:f").messages
    finally:
        await failing.stop()
    assert reply.startswith("No image: image generation failed")
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[0]["content"] == "/image a cat"
