"""Screen readers see the conversation as a list of messages (issue 9 C), not one opaque view."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtTest import QTest

from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat


def test_messages_are_accessible_list_items(make_chat: MakeChat) -> None:
    chat: ChatHarness = make_chat()
    chat.server.push(
        Reply(tool_calls=[("read_file", json.dumps({"path": "notes.txt"}))]),
        Reply("The file is **missing**."),
    )
    chat.send("read notes.txt")
    chat.idle()
    view = chat.tab.pane.view
    face = QAccessible.queryAccessibleInterface(view)
    assert face is not None and face.role() == QAccessible.Role.List
    assert face.childCount() == len(chat.items())
    children = [face.child(i) for i in range(face.childCount())]
    assert all(c.role() == QAccessible.Role.ListItem for c in children)
    names = [c.text(QAccessible.Text.Name) for c in children]
    assert names[0] == "You: read notes.txt"
    assert names[-1] == "Assistant: The file is **missing**."
    card = next(i for i, item in enumerate(chat.items()) if item.kind == "tool")
    assert names[card].startswith("Tool read_file, ")
    state = children[card].state()
    assert state.expandable and state.collapsed and not state.expanded
    assert face.indexOfChild(children[card]) == card
    assert children[card].parent() is face or children[card].parent() == face
    # the keyboard's row is the focused child, and expanding shows in the state
    view.setFocus()
    chat.wait(view.hasFocus)
    while view.current_row() > card:
        QTest.keyClick(view, Qt.Key.Key_Up)
    focused = face.focusChild()
    assert focused is not None and face.indexOfChild(focused) == card
    QTest.keyClick(view, Qt.Key.Key_Return)
    assert children[card].state().expanded
    assert "notes.txt" in children[card].text(QAccessible.Text.Name)
    rect = children[0].rect()
    assert rect.width() > 0 and rect.height() > 0
