"""The file preview pane (issue 25 §3): clicking a path in a tool card or in an answer opens the
file read-only in a tab beside the chat: text with syntax colours, Markdown rendered, images
with zoom, and a clear message for a too large or binary file. Real clicks on the real links of
a real turn through the scripted model server."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QMouseEvent, QTextCursor, QWheelEvent
from PySide6.QtWidgets import QApplication, QSplitter

from desktop.ui.chat.diff_view import preview_href
from desktop.ui.chat.preview_files import MAX_TEXT
from desktop.ui.chat.preview_pane import PreviewPage, PreviewPane
from tests.fakes.openai_server import Reply
from tests.typed import narrow
from tests.ui.chat.conftest import ChatHarness, MakeChat
from tests.ui.settings.pages import widget_as


def _link_point(chat: ChatHarness, row: int, href: str) -> QPoint:
    """Where the link ``href`` of ``row`` is drawn, in the view's viewport."""
    view = chat.tab.pane.view
    view.reveal(row)
    view.visible_rows()
    layout = view.layout_of(row)
    top = view.row_rect(row).topLeft()
    for part in layout.parts:
        block = part.doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.charFormat().anchorHref() == href:
                    position = fragment.position() + fragment.length() // 2
                    cursor = QTextCursor(part.doc)
                    cursor.setPosition(position)
                    line = block.layout().lineForTextPosition(position - block.position())
                    box = part.doc.documentLayout().blockBoundingRect(block)
                    # PySide's stub says object; it returns (x, cursor position)
                    x: float = narrow(line.cursorToX(position - block.position()), tuple)[0]
                    y = box.top() + line.y() + line.height() / 2
                    point = top + QPointF(part.x + box.left() + x, part.y + y)
                    return point.toPoint()
                it += 1
            block = block.next()
    raise AssertionError(f"no link {href} in row {row}")


def _click_link(chat: ChatHarness, row: int, href: str) -> None:
    point = _link_point(chat, row, href)
    chat.qtbot.mouseClick(chat.tab.pane.view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def _loaded(page: PreviewPage) -> bool:
    return page.preview is not None


def _turn_with_files(chat: ChatHarness, workspace: Path) -> None:
    (workspace / "app.py").write_text("def main():\n    return 42\n")
    chat.server.push(
        Reply(
            tool_calls=[
                ("edit_file", json.dumps({"path": "app.py", "old_text": "42", "new_text": "43"}))
            ]
        ),
        Reply("I changed `app.py`; the notes are in `docs/notes.md`."),
    )
    chat.send("bump the answer")
    chat.idle()


def test_a_path_in_a_card_and_in_an_answer_opens_a_tab(
    make_chat: MakeChat, workspace: Path
) -> None:
    chat: ChatHarness = make_chat()
    (workspace / "docs").mkdir()
    (workspace / "docs" / "notes.md").write_text(
        "# Notes\n\nSome **bold** words.\n\n```sh\nmake test\n```\n"
    )
    _turn_with_files(chat, workspace)
    pane: PreviewPane = chat.tab.preview
    assert not pane.isVisible()
    items = chat.items()
    card = next(i for i, item in enumerate(items) if item.kind == "tool")
    _click_link(chat, card, preview_href("app.py"))  # the card header's path
    chat.wait(lambda: pane.isVisible() and pane.pages() and _loaded(pane.pages()[0]))
    page = pane.pages()[0]
    assert page.path == workspace / "app.py"
    assert page.text.toPlainText() == "def main():\n    return 43"  # read now, read-only
    assert page.text.isReadOnly()
    keyword = page.text.document().findBlockByNumber(0).begin().fragment().charFormat()
    assert keyword.foreground().color() != page.text.palette().text().color()  # coloured

    answer = max(i for i, item in enumerate(items) if item.kind == "assistant")
    _click_link(chat, answer, preview_href("docs/notes.md"))  # inline code in the answer
    chat.wait(lambda: len(pane.pages()) == 2 and _loaded(pane.pages()[1]))
    notes = pane.pages()[1]
    assert pane.tabs.currentWidget() is notes
    assert notes.text.toPlainText().startswith("Notes\nSome bold words.")  # rendered, no "#"
    notes.text.anchorClicked.emit(QUrl("copy-code:0"))  # the code block's "Copy"
    assert QApplication.clipboard().text() == "make test"
    (workspace / "app.py").write_text("def main():\n    return 44\n")  # changed since
    _click_link(chat, card, preview_href("app.py"))  # an open file: to the front, read again
    chat.wait(lambda: pane.tabs.currentWidget() is page)
    chat.wait(lambda: page.text.toPlainText().endswith("return 44"))
    assert len(pane.pages()) == 2

    opened: list[QUrl] = []
    pane.open_url = opened.append
    page.editor.click()
    page.folder.click()
    assert [u.toLocalFile() for u in opened] == [str(workspace / "app.py"), str(workspace)]

    page.text.setFocus()
    chat.qtbot.keyClick(page.text, Qt.Key.Key_Escape)  # Esc closes the pane, not the turn
    assert not pane.isVisible()
    pane.open_path("app.py")
    assert pane.isVisible()
    notes.text.setFocus()
    pane.tabs.setCurrentWidget(notes)
    chat.qtbot.keyClick(notes.text, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert pane.pages() == [page]  # Ctrl+W closed the shown tab
    pane.close_tab(0)
    assert not pane.isVisible() and not pane.pages()


def test_the_keyboard_reaches_the_links_of_a_card(make_chat: MakeChat, workspace: Path) -> None:
    chat: ChatHarness = make_chat()
    _turn_with_files(chat, workspace)
    view = chat.tab.pane.view
    card = next(i for i, item in enumerate(chat.items()) if item.kind == "tool")
    actions = dict(view.row_actions(card))
    assert "Preview app.py" in actions
    actions["Preview app.py"]()
    pane: PreviewPane = chat.tab.preview
    chat.wait(lambda: pane.pages() and _loaded(pane.pages()[0]))
    assert pane.pages()[0].path == workspace / "app.py"


def test_images_zoom_and_unshowable_files_say_why(make_chat: MakeChat, workspace: Path) -> None:
    chat: ChatHarness = make_chat(ready=False)
    pane: PreviewPane = chat.tab.preview
    image = QImage(1600, 1200, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366cc"))
    assert image.save(str(workspace / "photo.png"))
    (workspace / "huge.log").write_text("x" * (MAX_TEXT + 10))
    (workspace / "blob.dat").write_bytes(b"\x00\x01\x02binary\x00" * 10)

    page = pane.open_path("photo.png")
    chat.wait(lambda: _loaded(page))
    view = page.image
    assert view.isVisible() and not page.text.isVisible()
    fitted = view.scale()
    assert fitted < 1.0  # fits the pane
    assert view.label.pixmap().width() <= view.viewport().width()
    page.actual.click()
    assert view.scale() == 1.0 and view.label.pixmap().width() == 1600
    wheel = QWheelEvent(
        QPointF(10, 10),
        QPointF(view.mapToGlobal(QPoint(10, 10))),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(view.viewport(), wheel)
    assert view.scale() == 1.25
    page.fit.click()
    assert view.scale() == fitted
    assert "1600 × 1200" in page.info.text()

    large = pane.open_path("huge.log")
    binary = pane.open_path("blob.dat")
    missing = pane.open_path("nowhere.txt")
    chat.wait(lambda: _loaded(large) and _loaded(binary) and _loaded(missing))
    assert "too large to preview" in large.text.toPlainText()
    assert "binary file" in binary.text.toPlainText()
    assert "does not exist" in missing.text.toPlainText()
    assert len(pane.pages()) == 4


def test_the_pane_remembers_its_width(make_chat: MakeChat, workspace: Path) -> None:
    chat: ChatHarness = make_chat(ready=False)
    pane: PreviewPane = chat.tab.preview
    (workspace / "a.txt").write_text("a\n")
    chat.wait(lambda: chat.services.prefs is not None)
    pane.open_path("a.txt")
    chat.wait(lambda: pane.width() > 0)
    splitter = widget_as(pane.parentWidget(), QSplitter)
    handle = splitter.handle(splitter.indexOf(pane))
    start = handle.rect().center()
    bot = chat.qtbot
    bot.mousePress(handle, Qt.MouseButton.LeftButton, pos=start)
    target = start - QPoint(120, 0)
    move = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(target),
        QPointF(handle.mapToGlobal(target)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(handle, move)
    bot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=target)
    widened = pane.width()
    assert widened > 400
    desktop_json = workspace.parent / "desktop.json"
    chat.wait(
        lambda: (
            desktop_json.exists()
            and json.loads(desktop_json.read_text()).get("previewWidth") == widened
        )
    )
    assert chat.services.prefs is not None and chat.services.prefs.prefs.preview_width == widened
