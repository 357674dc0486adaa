"""The chat header at the narrowest window: "Code copied" never overlaps anything (issue 9 C)."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop.ui.chat.conversation import ConversationPane
from desktop.ui.chat.records import TurnUsage


def _rect(widget: QWidget, pane: QWidget) -> QRect:
    return QRect(widget.mapTo(pane, widget.rect().topLeft()), widget.size())


def test_copied_notice_overlaps_nothing_and_stays_for_the_last_copy(qtbot: QtBot) -> None:
    pane = ConversationPane()
    qtbot.addWidget(pane)
    pane.resize(500, 600)  # the right column of a 760 px window with the chat list open
    pane.show()
    qtbot.waitExposed(pane)
    pane.set_title("A rather long chat title that has to be elided somewhere " * 2, "telegram")
    pane.show_usage(TurnUsage(123_456, 7_890, 0.1234, 50_000, 65_536))
    qtbot.waitUntil(lambda: pane.usage.isVisible())
    if hasattr(pane, "picker"):
        pane.picker.set_model("openrouter/anthropic/claude-3-5-sonnet-20241022", "openrouter")
        pane.fit_header()
    parts = ("title", "channel", "picker", "usage", "more")
    header = [getattr(pane, n) for n in parts if getattr(pane, n, None) is not None]
    header = [w for w in header if w.isVisible()]
    QApplication.processEvents()  # let the layout settle (no timer involved)
    before = [_rect(w, pane) for w in header]
    for rect in before:
        assert pane.rect().contains(rect), "a header widget is cut off by the pane's edge"
    pane.flash_copied("Code")
    qtbot.waitUntil(lambda: pane.copied.isVisible() and "Code copied" in pane.copied.text())
    QApplication.processEvents()
    notice = _rect(pane.copied, pane)
    after = [_rect(w, pane) for w in header]
    assert after == before, "showing the notice moved the header"
    for widget, rect in zip(header, after, strict=True):
        assert not rect.intersects(notice), f"the notice overlaps {widget.accessibleName()}"
    for i, a in enumerate(after):
        for b in after[i + 1 :]:
            assert not a.intersects(b), "header widgets overlap"
    assert pane.rect().contains(notice)
    pane.flash_copied("Message")  # a second copy: its notice gets its full time
    assert pane.copied.text() == "Message copied"
    qtbot.waitUntil(lambda: not pane.copied.isVisible(), timeout=3000)
