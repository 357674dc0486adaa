"""@-mentions of skills and MCP servers (issue #25 §2): "@" in the composer offers the installed
skills and the configured MCP servers beside the other chats; a picked one is sent as a
structured reference with the message (not text for the model to guess at), so the turn's
runtime block names the skill's SKILL.md to read first, or the server whose tools to use. A
token deleted before sending is not sent. A real ChatTab and runtime on the scripted server.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.core.agent.mentions import MENTIONS
from desktop.core.bus.events import InboundMessage
from desktop.core.config.schema import MCPServerConfig
from tests.fakes.openai_server import Reply
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat


def _pick(chat: ChatHarness, qtbot: QtBot, typed: str, wanted: str) -> None:
    edit = chat.tab.pane.composer.edit
    edit.setFocus()
    qtbot.keyClicks(edit, typed)
    chat.wait(lambda: edit.mentions.visible)
    popup = edit.mentions.completer.popup()
    texts = [
        present(popup).model().index(r, 0).data() for r in range(present(popup).model().rowCount())
    ]
    row = next(r for r, t in enumerate(texts) if t.startswith(wanted))
    present(popup).setCurrentIndex(present(popup).model().index(row, 0))
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    chat.wait(lambda: not edit.mentions.visible)


def test_a_picked_skill_is_sent_as_a_reference_and_its_file_named(
    make_chat: MakeChat, qtbot: QtBot
) -> None:
    chat: ChatHarness = make_chat()
    published: list[InboundMessage] = []
    runtime = chat.services.runtime
    assert runtime is not None
    original = runtime.bus.publish_inbound

    async def spy(message: InboundMessage) -> None:
        published.append(message)
        await original(message)

    runtime.bus.publish_inbound = spy  # type: ignore[method-assign]
    _pick(chat, qtbot, "what is it like outside? @weat", "@skill:weather")
    edit = chat.tab.pane.composer.edit
    assert edit.toPlainText() == "what is it like outside? @skill:weather "
    chat.server.push(Reply("Sunny."))
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    chat.idle()
    assert published[-1].metadata[MENTIONS] == [{"kind": "skill", "ref": "weather"}]
    sent = json.dumps(chat.requests()[0]["messages"][-1])
    assert "Mentioned skill weather: read " in sent and "SKILL.md first" in sent


def test_a_deleted_token_is_not_sent_and_servers_are_offered(
    make_chat: MakeChat, qtbot: QtBot
) -> None:
    chat: ChatHarness = make_chat()
    _pick(chat, qtbot, "@summ", "@skill:summarize")
    edit = chat.tab.pane.composer.edit
    assert edit.mentions.structured(edit.toPlainText()) == [{"kind": "skill", "ref": "summarize"}]
    edit.setPlainText("never mind the skill")
    assert edit.mentions.structured(edit.toPlainText()) == []
    chat.server.push(Reply("Ok."))
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    chat.idle()
    assert "Mentioned skill" not in json.dumps(chat.requests()[0]["messages"][-1])
    # A configured server is offered (read from the settings when "@" is typed).
    chat.services.config.tools.mcp_servers = {
        "github": MCPServerConfig.model_validate({"command": "github-mcp"})
    }
    edit.setPlainText("")
    qtbot.keyClicks(edit, "@mcp")
    chat.wait(lambda: edit.mentions.visible)
    popup = edit.mentions.completer.popup()
    assert present(popup).model().index(0, 0).data() == "@mcp:github  MCP server"
