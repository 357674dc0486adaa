"""Attachments in (0.3.5's ``media`` of a ``message`` frame: base64 data URLs): saved under
the media folder and handed to the agent; a type 0.3.5 refuses is refused whole."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import aiohttp

from desktop.core.bus.events import OutboundMessage
from tests.channels.websocket.conftest import Client, start_runtime, url_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until


def tiny_png() -> bytes:
    """A valid 1×1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


async def test_an_image_and_a_document_reach_the_agent_and_a_bad_type_is_refused(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("a red pixel and your notes"))
    runtime = await start_runtime(tmp_path, scripted_server, websocketRequiresToken=False)
    png = tiny_png()
    try:
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        chat = client.default_chat
        await client.send(
            type="message",
            chat_id=chat,
            content="what is in these?",
            media=[
                {"data_url": data_url("image/png", png), "name": "pixel.png"},
                {"data_url": data_url("text/plain", b"my notes\n"), "name": "notes.txt"},
            ],
        )
        await until(lambda: client.of("turn_end", chat), what="the answer")
        await client.send(
            type="message",
            chat_id=chat,
            content="run this",
            media=[{"data_url": data_url("application/x-msdownload", b"MZ"), "name": "x.exe"}],
            turn_id="t-bad",
        )
        await until(lambda: client.of("error", chat), what="the refusal")
        await runtime.agent.idle()
        await client.close()
    finally:
        await runtime.stop()
    folder = [p for p in tmp_path.rglob("*") if p.parent.name == "websocket" and p.is_file()]
    saved = [p for p in folder if p.parent.parent.name == "media"]
    assert sorted(p.suffix for p in saved) == [".png", ".txt"], folder
    assert next(p for p in saved if p.suffix == ".png").read_bytes() == png
    assert next(p for p in saved if p.suffix == ".txt").name.endswith("_notes.txt")
    refusal = client.of("error", chat)[0]
    assert (refusal["detail"], refusal["reason"], refusal["turn_id"]) == (
        "attachment_rejected", "mime", "t-bad",
    )  # fmt: skip
    requests = scripted_server.chat_requests()
    assert len(requests) == 1, "the refused message never reached the agent"
    sent = json.dumps(requests[0].body)
    assert "image_url" in sent and base64.b64encode(png).decode() in sent, "the image is seen"
    notes = next(p for p in saved if p.suffix == ".txt")
    assert f"[Attachment: {notes}]" in sent, "the agent is told where the text file is"
    assert "[Attachment: " + str(next(p for p in saved if p.suffix == ".png")) not in sent


async def test_a_file_the_agent_sends_is_named_and_linked_for_the_browser(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """An answer with a file: the ``message`` event names it (``media``) and links it
    (``media_urls``, a signed ``/api/media/…`` URL that opens without a token); a forged
    link opens nothing."""
    report = tmp_path / "report.png"
    report.write_bytes(tiny_png())
    runtime = await start_runtime(tmp_path, scripted_server, websocketRequiresToken=False)
    http = url_of(runtime, "http")
    try:
        client = await Client.open(f"{url_of(runtime)}/?client_id=alice")
        chat = client.default_chat
        message = OutboundMessage("websocket", chat, "here is the chart", media=[str(report)])
        assert await runtime.channels.deliver(message)
        await until(lambda: client.of("message", chat), what="the file's message")
        await client.close()
        event = client.of("message", chat)[0]
        link = event["media_urls"][0]
        async with aiohttp.ClientSession() as web:
            async with web.get(http + link["url"]) as response:
                got = (response.status, await response.read(), response.content_type)
            sig, payload = link["url"].rsplit("/", 2)[-2:]
            async with web.get(f"{http}/api/media/{sig[:-2]}AA/{payload}") as response:
                forged = response.status
    finally:
        await runtime.stop()
    assert event["text"] == "here is the chart" and event["media"] == [str(report)]
    assert link["name"] == "report.png"
    assert got == (200, tiny_png(), "image/png")
    assert forged == 404
