"""The conversation pane in the pseudo locale: header, menu, editing bar, approval prompt and
the copied notice, and what the chat's actions say (export, regenerate) on a real agent; and
the same widgets in the real zh_CN translation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.core.agent.approval import ApprovalRequest, approval_reason
from desktop.ui.chat.conversation import ConversationPane
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.message_model import MessageModel
from desktop.ui.chat.row_layout import RowBuilder
from desktop.ui.i18n import install_language
from tests.fakes.openai_server import Reply
from tests.typed import present
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import pseudo_locale, untranslated

KEY = "desktop:t"


def _pane(qtbot: QtBot) -> ConversationPane:
    pane = ConversationPane()
    qtbot.addWidget(pane)
    pane.resize(900, 700)
    with qtbot.waitExposed(pane):
        pane.show()
    qtbot.waitUntil(lambda: not pane.view.reader.tasks.tasks)  # the synthesiser was looked up
    return pane


def _others(pane: ConversationPane) -> list[QWidget]:
    """The pane's widgets that belong to other parts of the window (translated there)."""
    return [
        pane.picker,
        pane.usage,
        pane.other_model,
        pane.temporary,
        pane.banner,
        pane.guidance,
        pane.composer,
        pane.view.chip,
    ]


def _request(workspace: Path, arguments: dict[str, str]) -> ApprovalRequest:
    reason = approval_reason("exec", arguments, workspace)
    assert reason is not None
    return ApprovalRequest(KEY, "c1", "exec", arguments, reason)


def test_the_conversation_pane_shows_no_untranslated_text(qtbot: QtBot, workspace: Path) -> None:
    with pseudo_locale():
        pane = _pane(qtbot)
        pane.view.setModel(MessageModel(KEY))
        pane.set_title("Weekly plan", "telegram")
        pane.editing.show()
        pane.approval.show_request(_request(workspace, {"command": "ls"}), waiting=2)
        pane.flash_copied("Code")
        data = ["Weekly plan", "exec", "ls", "command", "telegram"]
        assert untranslated(pane, allow=data, skip=_others(pane)) == []
        assert pane.approval.reason.text() == (
            "⟦The agent wants to use exec: it ⟦runs a shell command⟧.⟧"
        )
        assert pane.approval.queue_label.text() == "⟦2 more waiting⟧"
        assert pane.channel.text() == "⟦from telegram⟧"
        assert pane.copied.text() == "⟦Code copied⟧"
        pane.approval.show_request(_request(workspace, {}), waiting=0)
        assert pane.approval.arguments.toPlainText() == "⟦(no arguments)⟧"
        pane.set_title("New chat", "desktop")
        assert pane.title.text() == "⟦New chat⟧"
        assert untranslated(pane, skip=_others(pane)) == []


@pytest.fixture
def snack_texts(make_chat: MakeChat) -> Iterator[tuple[ChatHarness, list[str]]]:
    """A chat on the real agent (built in the pseudo locale) and every snackbar text shown."""
    with pseudo_locale():
        chat: ChatHarness = make_chat()
        shown: list[str] = []
        label = chat.tab.panel.snackbar.label
        original = label.setText

        def record(text: str) -> None:
            shown.append(text)
            original(text)

        label.setText = record  # type: ignore[method-assign]
        yield chat, shown


def test_the_chat_actions_say_everything_translated(
    snack_texts: tuple[ChatHarness, list[str]], tmp_path: Path
) -> None:
    chat, shown = snack_texts
    tab = chat.tab
    tab.export("md")
    assert shown[-1] == "⟦Nothing to export yet.⟧"
    chat.server.push(Reply("An answer."), Reply("Another answer."))
    chat.send("first question")
    chat.idle()
    chat.wait(lambda: not present(tab.sessions.entry(tab.current)).draft)
    tab.export("md")
    dialog = tab._export_dialog
    chat.wait(dialog.isVisible)
    assert dialog.windowTitle() == "⟦Export chat⟧"
    assert dialog.nameFilters() == ["⟦Markdown (*.md)⟧"]
    dialog.close()
    assert run_async(chat.qtbot, chat.loop, tab.export_to(tab.current, "md", tmp_path / "a.md"))
    assert shown[-1] == "⟦Exported to a.md.⟧"
    tab.regenerate()
    chat.wait(lambda: "⟦The previous version is kept" in shown[-1])
    chat.idle()
    assert shown[-1] == "⟦The previous version is kept: switch with ‹ › under your message.⟧"
    model = present(tab.pane.view.model())
    fork = next(i for i in model.items if i.fork is not None).fork
    assert fork is not None and fork[1:] == (2, 2)


def test_the_chat_speaks_chinese(qtbot: QtBot, workspace: Path) -> None:
    """With the real zh_CN translation: the prompt's answers, the editing bar, a running
    card's status, the row menu and the copied notice are in Chinese."""
    try:
        assert install_language("zh_CN") == "zh_CN"
        pane = _pane(qtbot)
        card = ChatItem("tool", tool="exec", arguments={"command": "ls"})
        model = MessageModel(KEY)
        model.set_items([card, ChatItem("assistant", "An answer")])
        pane.view.setModel(model)
        pane.approval.show_request(_request(workspace, {"command": "ls"}), waiting=1)
        pane.editing.show()
        pane.flash_copied("Code")
        answers = [b.text() for b in pane.approval.buttons.values()]
        assert answers == ["拒绝", "允许一次", "在此聊天中允许", "始终允许此工具"]
        assert pane.approval.reason.text() == "智能体想使用 exec：它要运行一条 shell 命令。"
        assert pane.editing.cancel.text() == "取消编辑"
        assert pane.copied.text() == "代码已复制"
        builder = RowBuilder(pane.font(), pane.view.builder().colors)
        painted = builder.build(card, 900.0).parts[0].doc.toPlainText()
        assert "运行中…" in painted
        pane.view.visible_rows()
        labels = [label for label, _ in pane.view.row_actions(1)]
        assert labels[:1] == ["复制消息"] and "重新生成回答" in labels
    finally:
        install_language("en")
