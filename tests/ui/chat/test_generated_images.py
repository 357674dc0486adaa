"""Images the agent generated are shown in the chat: when they arrive, and when the chat is
opened again later (from the saved ``generate_image`` result)."""

from __future__ import annotations

import json
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.bus.events import OutboundMessage
from desktop.ui.chat.items import items_from_messages
from tests.core.tools.test_spawn_images import png
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat, write_session


def _image(workspace: Path, name: str) -> str:
    folder = workspace / "media" / "generated" / "2026-11-28"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(png(48, 32))
    return str(path)


def _html(chat: ChatHarness, row: int) -> str:
    layout = chat.tab.pane.view.layout_of(row)
    return "".join(part.doc.toHtml() for part in layout.parts)


def _saved_call(path: str) -> list[dict[str, object]]:
    result = json.dumps({"artifacts": [{"id": "img_1", "path": path}], "next_step": "shown"})
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "generate_image", "arguments": '{"prompt": "a red square"}'},
    }
    return [
        {"role": "user", "content": "draw a red square"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "name": "generate_image", "content": result},
        {"role": "assistant", "content": "Here it is."},
    ]


def test_a_saved_generate_image_result_shows_its_images() -> None:
    items = items_from_messages(_saved_call("/ws/media/generated/x/img_1.png"))
    assert [i.kind for i in items] == ["user", "tool", "outbound", "assistant"]
    assert items[2].media == ["/ws/media/generated/x/img_1.png"]
    assert items[2].tool == "Generated image"
    failed = _saved_call("/x.png")
    failed[2]["content"] = "Error: image generation failed: quota"
    assert "outbound" not in [i.kind for i in items_from_messages(failed)]


def test_generated_images_appear_in_the_open_chat(make_chat: MakeChat, workspace: Path) -> None:
    path = _image(workspace, "img_live.png")
    chat: ChatHarness = make_chat()
    chat_id = chat.tab.current.partition(":")[2]
    chat.services.bridge.deliver_outbound(
        OutboundMessage(
            "desktop",
            chat_id,
            "Generated image: a red square",
            media=[path],
            metadata={"generated_images": True},
        )
    )
    chat.wait(lambda: chat.kinds()[-1:] == ["outbound"])
    row = len(chat.items()) - 1
    assert chat.items()[row].media == [path] and chat.items()[row].tool == "Generated image"
    chat.wait(lambda: 'src="thumb:0"' in _html(chat, row))


def test_generated_images_are_shown_again_when_the_chat_is_reopened(
    make_chat: MakeChat, workspace: Path
) -> None:
    path = _image(workspace, "img_saved.png")
    write_session(workspace, "desktop:drawn", _saved_call(path))
    chat: ChatHarness = make_chat(ready=False)
    chat.wait(lambda: chat.tab.current == "desktop:drawn" and "outbound" in chat.kinds())
    row = chat.kinds().index("outbound")
    chat.wait(lambda: 'src="thumb:0"' in _html(chat, row))


def test_an_attached_document_reaches_the_model_as_text(
    make_chat: MakeChat, tmp_path: Path
) -> None:
    """A PDF attached in the window: its chip is accepted, the model reads its text, the
    person's message row names the file."""
    from tests.core.tools.test_documents import make_pdf
    from tests.fakes.openai_server import Reply

    path = tmp_path / "invoice.pdf"
    path.write_bytes(make_pdf(["Invoice 4711 total 99 EUR"]))
    chat: ChatHarness = make_chat()
    composer = chat.tab.pane.composer
    composer.add_files([str(path), str(tmp_path / "notes.txt")])
    assert composer.attachments == [str(path)]
    chat.server.push(Reply("99 EUR."))
    chat.send("what is the total?")
    chat.idle()
    sent = json.dumps(chat.requests()[0]["messages"][-1]["content"])
    assert "Invoice 4711 total 99 EUR" in sent
    assert chat.items()[0].media == [str(path)]
    assert "[file: invoice.pdf]" in _html(chat, 0)


def test_typing_at_offers_the_other_chats_and_the_agent_gets_the_mention(
    make_chat: MakeChat, workspace: Path, qtbot: QtBot
) -> None:
    """ "@lis" in the composer lists the Lisbon chat by handle and title; picking it writes its
    handle; the sent message names that chat for the agent and offers the session tools."""
    from PySide6.QtCore import Qt

    from tests.fakes.openai_server import Reply

    write_session(
        workspace,
        "telegram:42",
        [
            {"role": "user", "content": "Plan the Lisbon trip"},
            {"role": "assistant", "content": "Ok."},
        ],
        title="Lisbon trip",
    )
    chat: ChatHarness = make_chat()
    edit = chat.tab.pane.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, "ask @lis")
    chat.wait(lambda: edit.mentions.visible)
    popup = edit.mentions.completer.popup()
    assert "Lisbon trip" in present(popup).model().index(0, 0).data()
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    chat.wait(lambda: edit.toPlainText().startswith("ask @") and not edit.mentions.visible)
    handle = edit.toPlainText().split("@", 1)[1].strip()
    assert handle.isalpha() and edit.toPlainText() == f"ask @{handle} "
    chat.server.push(Reply("It was Alfama."))
    chat.send(edit.toPlainText())
    chat.idle()
    body = chat.requests()[0]
    assert f"Mentioned chat @{handle}: session telegram:42" in json.dumps(body["messages"][-1])
    assert "read_session" in [t["function"]["name"] for t in body["tools"]]
