"""``spawn`` with ``wait`` and ``generate_image``, through the real runtime and LiteLLM on the
scripted server (which also speaks the OpenAI images API)."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import OutboundMessage
from desktop.core.config.schema import Config
from desktop.core.runtime import Runtime
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer

SUBAGENT_PROMPT = "You are a background worker for nanobot"


def png(width: int = 2, height: int = 2) -> bytes:
    """A valid RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\0" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _runtime(server: ScriptedOpenAIServer, tmp_path: Path, tools: dict[str, Any]) -> Runtime:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    config = Config.model_validate(
        {
            "agents": {"defaults": {"workspace": str(workspace)}},
            "providers": {"custom": {"apiBase": server.url, "apiKey": "sk-img"}},
            "tools": tools,
        }
    )
    return build_runtime(config, make_provider(server.url))


def _tool_texts(server: ScriptedOpenAIServer, index: int) -> list[str]:
    body = server.chat_requests()[index].body
    return [str(m["content"]) for m in body["messages"] if m["role"] == "tool"]


async def test_spawn_with_wait_returns_the_report_in_the_same_turn(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    def route(body: dict[str, Any]) -> Reply | None:
        system = str(body["messages"][0]["content"])
        if SUBAGENT_PROMPT in system:
            return Reply("The answer is 42.")
        return None

    scripted_server.route = route
    scripted_server.push(
        Reply(tool_calls=[("spawn", json.dumps({"task": "Compute it.", "wait": True}))]),
        Reply("It said 42."),
    )
    runtime = _runtime(scripted_server, tmp_path, {})
    try:
        out = await runtime.agent.process_direct("ask a helper", session_key="cli:s")
    finally:
        await runtime.stop()
    assert out == "It said 42."
    (report,) = _tool_texts(scripted_server, 2)
    assert "completed" in report and "The answer is 42." in report
    assert runtime.subagents.running == {}


async def test_generate_image_saves_it_and_shows_it_in_the_chat(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.images = png()
    settings = {"enabled": True, "provider": "custom", "model": "img-model", "maxImagesPerTurn": 2}
    runtime = _runtime(scripted_server, tmp_path, {"imageGeneration": settings})
    sent: list[OutboundMessage] = []
    scripted_server.push(
        Reply(tool_calls=[("generate_image", json.dumps({"prompt": "a red square", "count": 2}))]),
        Reply("Here it is."),
    )
    try:
        out = await runtime.agent.process_direct(
            "draw", session_key="desktop:i", channel="desktop", chat_id="i"
        )
        while not runtime.bus.outbound.empty():
            sent.append(await runtime.bus.consume_outbound())
    finally:
        await runtime.stop()
    assert out == "Here it is."
    image_calls = [r for r in scripted_server.requests if r.path.endswith("/images/generations")]
    assert len(image_calls) == 1
    assert image_calls[0].body["model"] == "img-model" and image_calls[0].body["n"] == 2
    assert image_calls[0].headers.get("Authorization") == "Bearer sk-img"
    result = json.loads(_tool_texts(scripted_server, 1)[0])
    paths = [Path(a["path"]) for a in result["artifacts"]]
    assert len(paths) == 2
    for path in paths:
        assert path.read_bytes() == png()
        assert path.parent.parent == tmp_path / "ws" / "media" / "generated"
        sidecar = json.loads(path.with_suffix(".json").read_text())
        assert sidecar["prompt"] == "a red square" and sidecar["mime"] == "image/png"
        assert sidecar["id"] == path.stem and sidecar["provider"] == "custom"
    shown = [m for m in sent if m.media]
    assert shown and shown[0].media == [str(p) for p in paths] and shown[0].chat_id == "i"


async def test_a_failing_image_provider_is_an_error_for_the_model(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.images = Fail(400, "content policy violation")
    settings = {"enabled": True, "provider": "custom", "model": "img-model"}
    runtime = _runtime(scripted_server, tmp_path, {"imageGeneration": settings})
    scripted_server.push(
        Reply(tool_calls=[("generate_image", json.dumps({"prompt": "x"}))]), Reply("Sorry.")
    )
    try:
        await runtime.agent.process_direct("draw", session_key="cli:f")
    finally:
        await runtime.stop()
    (result,) = _tool_texts(scripted_server, 1)
    assert result.startswith("Error: image generation failed") and "content policy" in result
    assert not (tmp_path / "ws" / "media" / "generated").exists()
