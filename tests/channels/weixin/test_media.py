"""Pictures and files people send: fetched from the (local) CDN, decrypted into media."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from tests.channels.weixin.conftest import ALICE, logged_in, start_runtime, until, user_text
from tests.channels.weixin.server import IlinkServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(200))


def _refused(data: bytes, key: bytes) -> bool:
    """Whether ``key`` does not decrypt ``data`` (a wrong key can, rarely, end in valid
    padding: the test picks one that does not)."""
    from desktop.core.channels.weixin.media import decrypt

    try:
        decrypt(data, key)
    except ValueError:
        return True
    return False


async def test_a_picture_and_a_file_are_decrypted_into_media(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.push(Reply("Got them."))
    logged_in(tmp_path, ilink)
    image_key, file_key = os.urandom(16), os.urandom(16)
    report = "季度报告 Q3\n".encode() * 40
    image = {"media": {"encrypt_query_param": ilink.put_file(PNG, image_key)},
             "aeskey": image_key.hex()}  # fmt: skip
    document = {
        "file_name": "../季度 报告.pdf",
        "media": {
            "encrypt_query_param": ilink.put_file(report, file_key),
            "aes_key": base64.b64encode(file_key.hex().encode()).decode(),
        },
    }
    wrong_param = ilink.put_file(b"x" * 40, os.urandom(16))
    wrong_key = next(
        k for k in iter(lambda: os.urandom(16), b"") if _refused(ilink.cdn[wrong_param], k)
    )
    wrong = {"file_name": "x.bin", "media": {"encrypt_query_param": wrong_param,
             "aes_key": base64.b64encode(wrong_key).decode()}}  # fmt: skip
    runtime = await start_runtime(tmp_path, ilink, scripted_server, cdnBaseUrl=f"{ilink.url}/c2c")
    try:
        message_id = ilink.push(
            ALICE,
            [{"type": 2, "image_item": image}, {"type": 4, "file_item": document},
             {"type": 4, "file_item": wrong}],
        )  # fmt: skip
        await until(lambda: ilink.texts(ALICE), what="the answer")
        await runtime.agent.idle()
    finally:
        await runtime.stop()
    folder = tmp_path / "ws" / "media" / "weixin"
    picture = folder / f"image_{message_id}_0.jpg"
    assert picture.read_bytes() == PNG
    assert (folder / "季度_报告.pdf").read_bytes() == report, "decrypted, no path from the sender"
    body = scripted_server.chat_requests()[0].body
    text = user_text(body)
    assert f"[image: {picture}]" in text and f"[file: {folder / '季度_报告.pdf'}]" in text
    assert "[file: x.bin: download failed]" in text, "a wrong key is said, not saved"
    assert not (folder / "x.bin").exists()
    user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
    assert any(p.get("type") == "image_url" for p in user["content"]), "the model sees it"


async def test_files_out_are_encrypted_uploaded_and_sent(
    ilink: IlinkServer, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from desktop.core.bus.events import OutboundMessage

    scripted_server.push(Reply("Hello."))
    logged_in(tmp_path, ilink)
    chart, notes = tmp_path / "chart.png", tmp_path / "notes.txt"
    chart.write_bytes(PNG)
    notes.write_text("the numbers\n" * 30)
    runtime = await start_runtime(tmp_path, ilink, scripted_server, cdnBaseUrl=f"{ilink.url}/c2c")
    try:
        ilink.say("hi")  # gives the context token replies carry
        await until(lambda: ilink.texts(ALICE), what="the answer")
        await runtime.agent.idle()
        channel = runtime.channels.channel("weixin")
        assert channel is not None
        await channel.send(
            OutboundMessage("weixin", ALICE, "Here:", media=[str(chart), str(notes)])
        )
    finally:
        await runtime.stop()
    *_, text, image, document = ilink.sent
    assert text["item_list"][0]["text_item"]["text"] == "Here:"
    assert image["context_token"] == ilink.context[ALICE]
    [image_item] = image["item_list"]
    assert image_item["type"] == 2 and ilink.received_file(image_item["image_item"]) == PNG
    [doc_item] = document["item_list"]
    assert doc_item["type"] == 4 and doc_item["file_item"]["file_name"] == "notes.txt"
    assert ilink.received_file(doc_item["file_item"]) == notes.read_bytes()
    kinds = [(r["media_type"], r["rawsize"]) for r in ilink.upload_requests]
    assert kinds == [(1, len(PNG)), (3, notes.stat().st_size)]
