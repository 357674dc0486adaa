"""The chat list, the context view and the preview pane in the pseudo locale (every text they
show, paint or tell a screen reader went through the translation system), and in Chinese.

Painted text (the list's cards, the charts) is not a widget's text: :class:`RecordingPainter`
keeps what is drawn so the same rule (:func:`tests.ui.i18n.pseudo._english`) judges it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QMenu, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from desktop.core.session.temporary import new_temporary_key
from desktop.core.usage.rounds import Compaction, Round, SessionContext
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.chat import context_chart
from desktop.ui.chat.context_chart import ContextChart, round_text
from desktop.ui.chat.context_dialog import ContextView, summary_text
from desktop.ui.chat.preview_pane import PreviewPage, PreviewPane
from desktop.ui.chat.session_delegate import SessionDelegate, status_text
from desktop.ui.chat.session_list_model import SessionEntry, SessionListModel, when_text
from desktop.ui.chat.session_panel import SessionPanel
from desktop.ui.chat.session_store import SessionStore
from desktop.ui.chat.sessions_controller import SessionsController
from desktop.ui.i18n import install_language
from tests.ui.chat.conftest import write_session
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale, untranslated


class RecordingPainter(QPainter):
    """A painter that keeps every text it draws (in :attr:`texts`, shared by all)."""

    texts: ClassVar[list[str]] = []

    def drawText(self, *args: Any) -> Any:
        """Keep the text, then draw it."""
        RecordingPainter.texts.extend(a for a in args if isinstance(a, str))
        return super().drawText(*args)


def english_in(texts: list[str], allow: list[str]) -> list[str]:
    """The texts (painted, read out) with English wording outside ``⟦…⟧``."""
    allowed = frozenset(allow)
    return [text for text in texts if _english(text, allowed)]


def painted(chart: Any, module: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ``chart`` draws (its module's painter swapped for the recording one)."""
    monkeypatch.setattr(module, "QPainter", RecordingPainter)
    RecordingPainter.texts.clear()
    assert not chart.grab().isNull()
    monkeypatch.undo()
    return list(RecordingPainter.texts)


@pytest.fixture
def owner(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> Iterator[TaskOwner]:
    """Owns the tasks the widgets start; closed (cancelled and awaited) after the test."""
    tasks = TaskOwner("pseudo-locale test")
    yield tasks
    run_async(qtbot, qloop, tasks.aclose())


# -- the chat list ------------------------------------------------------------------------------
TITLES = ["Plan a trip", "hello from telegram", "hello there"]


def _panel_texts(panel: SessionPanel, allow: list[str]) -> list[str]:
    """:func:`untranslated` for the panel. The list view is walked on its own: the pseudo
    check's header reading calls ``columnCount()`` without a parent, which a
    ``QAbstractListModel`` subclass refuses in PySide6, so the view's own texts are read here."""
    found = untranslated(panel, allow, skip=[panel.snackbar, panel.list])
    found += untranslated(panel.empty, allow)
    view = panel.list
    found += english_in(
        [view.accessibleName(), view.toolTip(), view.accessibleDescription()], allow
    )
    return found


def _cards(panel: SessionPanel) -> list[str]:
    """The texts every row of the list paints, and what it tells a screen reader."""
    model = panel.model
    delegate = panel.list.itemDelegate()
    assert isinstance(delegate, SessionDelegate)
    image = QImage(400, 60, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    texts: list[str] = []
    for row in range(model.rowCount()):
        index = model.index(row)
        option = QStyleOptionViewItem()
        option.initFrom(panel.list)
        option.rect = QRect(0, 0, 400, 60)
        RecordingPainter.texts.clear()
        painter = RecordingPainter(image)
        delegate.paint(painter, option, index)
        painter.end()
        texts += RecordingPainter.texts
        texts.append(str(index.data(Qt.ItemDataRole.AccessibleTextRole)))
        texts.append(str(index.data(Qt.ItemDataRole.DisplayRole)))
    return texts


def test_the_chat_list_shows_no_untranslated_text(
    workspace: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop, owner: TaskOwner
) -> None:
    """Every state of the list: cards with each status, badge and date, a search that finds
    messages, one that finds nothing, the menu, a delete with Undo and failed operations."""
    now = datetime.now()
    write_session(
        workspace,
        "desktop:a",
        [{"role": "user", "content": "where to go"}],
        title="Plan a trip",
        updated=(now - timedelta(days=3)).isoformat(),
    )
    write_session(
        workspace,
        "telegram:42",
        [{"role": "user", "content": "hello from telegram"}],
        updated=(now - timedelta(days=40)).isoformat(),
    )
    write_session(
        workspace,
        "desktop:reminders",
        [{"role": "user", "content": "[Scheduled task] water the plants"}],
        updated=now.replace(year=now.year - 1).isoformat(),
    )
    write_session(workspace, "desktop:b", [], updated=now.isoformat())
    keys = ["desktop:a", "telegram:42", "desktop:reminders", "desktop:b", "telegram"]
    with pseudo_locale():
        store = SessionStore(workspace, config_dir=workspace.parent)
        model = SessionListModel()
        panel = SessionPanel(model)
        qtbot.addWidget(panel)
        controller = SessionsController(store, model, panel, owner.spawn, panel)
        panel.resize(320, 600)
        panel.show()
        run_async(qtbot, qloop, controller.refresh())
        assert len(model.all_keys()) == 4
        controller.add_draft("desktop:draft")
        temporary = new_temporary_key()
        model.upsert(SessionEntry(temporary, "desktop", "hello there", now.isoformat()))
        model.update("desktop:a", running=True)
        model.update("telegram:42", unread=True)
        model.update(temporary, attention=True)
        allow = [*TITLES, *keys, temporary]
        assert _panel_texts(panel, allow) == []
        cards = _cards(panel)
        assert english_in(cards, allow) == []
        drawn = "\n".join(cards)  # each state was drawn (in the pseudo locale's brackets)
        for text in ("⟦New chat⟧", "⟦Reminders⟧", "⟦new⟧", "⟦temporary⟧", "⟦working…⟧"):
            assert text in drawn
        assert "⟦needs your approval⟧" in drawn and "⟦new message⟧" in drawn
        assert "⟦unread⟧" in drawn and "⟦needs approval⟧" in drawn and "⟦running⟧" in drawn

        # The menu of a chat.
        panel._menu(panel.list.visualRect(model.index(0)).center())
        menu = panel.findChild(QMenu)
        assert menu is not None
        assert untranslated(menu) == []
        menu.close()

        # A search: "Searching…", then the messages found (snippets), then nothing found.
        controller.search("zzz")
        assert panel.empty.isVisible() and "⟦Searching…⟧" in panel.empty.text()
        assert _panel_texts(panel, allow) == []
        qtbot.waitUntil(lambda: "zzz" in panel.empty.text())
        assert _panel_texts(panel, [*allow, "zzz"]) == []
        controller.search("water")
        qtbot.waitUntil(lambda: model.hit("desktop:reminders") is not None)
        assert english_in(_cards(panel), [*allow, "Scheduled task", "water", "the plants"]) == []
        controller.search("")

        # Delete with Undo, and the operations that fail.
        run_async(qtbot, qloop, controller.delete("desktop:a"))
        bar = panel.snackbar
        assert "Plan a trip" in bar.label.text() and bar.button.isVisible()
        assert english_in([bar.label.text(), bar.button.text()], allow) == []

        async def refused(*_args: Any) -> None:
            raise OSError("disk full")

        for name in ("rename", "set_aside", "restore"):
            setattr(store, name, refused)
        run_async(qtbot, qloop, controller.undo())
        assert "disk full" in bar.label.text()
        assert english_in([bar.label.text()], ["disk full"]) == []
        run_async(qtbot, qloop, controller.rename("telegram:42", "Renamed"))
        assert english_in([bar.label.text()], ["disk full"]) == []
        run_async(qtbot, qloop, controller.delete("telegram:42"))
        assert english_in([bar.label.text()], ["disk full"]) == []


def test_dates_in_the_list_are_translated() -> None:
    """A weekday, a day and month, and a date of another year (numbers only)."""
    now = datetime(2026, 11, 28, 12, 0)
    with pseudo_locale():
        texts = [
            when_text((now - timedelta(days=days)).isoformat(), now) for days in (1, 3, 40, 400)
        ]
    assert texts[:3] == ["⟦Fri⟧", "⟦Wed⟧", "⟦19 ⟦Oct⟧⟧"] and texts[3] == "2025-10-24"
    assert english_in(texts, []) == []


# -- the context view --------------------------------------------------------------------------
def _context(rounds: int, *, cached: bool = True) -> SessionContext:
    return SessionContext(
        "desktop:a",
        tuple(
            Round(
                float(n),
                "gpt-test",
                1000 + n,
                50,
                cached_tokens=n if cached else 0,
                outcome="failed" if n == 1 else "ok",
                estimated=n == 2,
            )
            for n in range(rounds)
        ),
        (Compaction(1.5, 2),),
    )


def test_the_context_view_shows_no_untranslated_text(
    qtbot: QtBot, owner: TaskOwner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading, filled (window, cache, compaction), compacting, no rounds, no known window,
    and more rounds than fit; the chart's painted text and its tooltips too."""
    contexts = [_context(4)]

    async def load(_key: str) -> SessionContext:
        return contexts[-1]

    allow = ["Plan a trip", "gpt-test", "/compact"]
    with pseudo_locale():
        view = ContextView(
            "desktop:a", "Plan a trip", 32768, load=load, spawn=owner.spawn, compact=print
        )
        qtbot.addWidget(view)
        view.show()
        assert untranslated(view, allow) == []  # "Reading the usage ledger…"
        view.reload()
        qtbot.waitUntil(lambda: view.loads == 1)
        assert untranslated(view, allow) == []
        drawn = painted(view.chart, context_chart, monkeypatch)
        assert "⟦compacted⟧" in drawn and english_in(drawn, allow) == []
        tips = [round_text(n + 1, r) for n, r in enumerate(view.context.rounds)]
        assert english_in(tips, allow) == []
        assert "⟦failed⟧" in tips[1]  # a field's value is wording too (inside its template)
        view.compact_now()
        assert "⟦Compacting…⟧" in view.compact_button.text()
        assert untranslated(view, allow) == []

        for context, window in (
            (SessionContext("desktop:a"), 32768),
            (_context(3, cached=False), 0),
        ):
            view.window_tokens = window
            view.show_context(context)
            assert untranslated(view, allow) == []
            drawn = painted(view.chart, context_chart, monkeypatch)
            assert english_in(drawn, allow) == []
        assert "⟦No rounds recorded yet⟧" in painted(
            _chart(SessionContext("k"), qtbot), context_chart, monkeypatch
        )
        long = _chart(_context(300), qtbot)
        drawn = painted(long, context_chart, monkeypatch)
        assert any("latest" in text for text in drawn) and english_in(drawn, allow) == []
        assert english_in([summary_text(_context(3, cached=False), 0)], allow) == []


def _chart(context: SessionContext, qtbot: QtBot) -> ContextChart:
    chart = ContextChart()
    qtbot.addWidget(chart)
    chart.resize(400, 260)
    chart.set_data(context, 4096)
    return chart


# -- the preview pane --------------------------------------------------------------------------
def _files(folder: Path) -> dict[str, Path]:
    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor("teal"))
    assert image.save(str(folder / "photo.png"))
    (folder / "app.py").write_text("print('hi')\n", encoding="utf-8")
    (folder / "notes.md").write_text("# Notes\n\nSome text.\n", encoding="utf-8")
    (folder / "data.bin").write_bytes(b"\x00\x01\x02" * 100)
    (folder / "latin.txt").write_bytes("café".encode("latin-1"))
    (folder / "broken.png").write_bytes(b"not an image at all")
    with (folder / "huge.log").open("wb") as handle:
        handle.truncate(600 * 1024)
    with (folder / "huge.png").open("wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n")
        handle.truncate(26 * 1024 * 1024)
    many = folder / "many"
    many.mkdir()
    for n in range(205):
        (many / f"f{n:03}.txt").write_text("x", encoding="utf-8")
    small = folder / "small"
    small.mkdir()
    (small / "one.txt").write_text("1", encoding="utf-8")
    names = ["photo.png", "app.py", "notes.md", "data.bin", "latin.txt", "broken.png"]
    names += ["huge.log", "huge.png", "many", "small", "gone.txt"]
    return {name: folder / name for name in names}


def test_the_preview_pane_shows_no_untranslated_text(
    tmp_path: Path, qtbot: QtBot, owner: TaskOwner
) -> None:
    """A tab for each kind of file: text, Markdown, an image, folders (short and long), and
    each message (binary, too large, not UTF-8, undecodable image, missing)."""
    files = _files(tmp_path)
    with pseudo_locale():
        pane = PreviewPane(lambda: tmp_path, owner.spawn)
        qtbot.addWidget(pane)
        pane.resize(500, 400)
        pages: dict[str, PreviewPage] = {}
        for name, path in files.items():
            pages[name] = pane.open_path(str(path))
        assert untranslated(pane, files) == []  # "Loading…"
        pane.show()
        qtbot.waitUntil(lambda: all(p.preview is not None for p in pages.values()))
        qtbot.waitUntil(lambda: not pages["photo.png"].image.isHidden())
        allow = [*files, *(f"f{n:03}.txt" for n in range(205)), "one.txt", "café"]
        for name, page in pages.items():
            pane.tabs.setCurrentWidget(page)
            assert untranslated(pane, allow) == [], name
            preview = page.preview
            assert preview is not None
            if preview.kind == "message" or name == "broken.png":
                assert english_in([page.text.toPlainText()], allow) == [], name
        message = pages["many"].text.toPlainText()
        assert "⟦" in message and "f204.txt" not in message and "f199.txt" in message


# -- Chinese ------------------------------------------------------------------------------------
def test_the_chat_list_and_its_panes_show_chinese(qtbot: QtBot, tmp_path: Path) -> None:
    """With the zh_CN translation installed, the list, its cards and dates, the context view
    and the preview pane's buttons show Chinese."""
    try:
        assert install_language("zh_CN") == "zh_CN"
        model = SessionListModel()
        panel = SessionPanel(model)
        qtbot.addWidget(panel)
        assert panel.new_button.text() == "新建聊天"  # the action; an untitled chat: 新聊天
        assert panel.search.placeholderText() == "搜索聊天（Ctrl+K）"
        draft = SessionEntry("desktop:d", "desktop", "New chat", "", draft=True)
        model.upsert(draft)
        assert model.data(model.index(0)) == "新聊天" and status_text(draft) == "新建"
        now = datetime(2026, 11, 28, 12, 0)
        assert when_text("2026-11-25T09:00:00", now) == "周三"
        assert when_text("2026-03-03T09:00:00", now) == "3月3日"
        assert summary_text(SessionContext("k"), 0) == "此聊天尚无模型调用记录。"
        assert summary_text(_context(3), 4096).startswith("3 轮 · 最近一次请求 1,002 / 4,096")
        view = ContextView("k", "Trip", 0, load=_never, spawn=print, compact=print)
        qtbot.addWidget(view)
        assert view.compact_button.text() == "立即压缩" and view.windowTitle() == "上下文 — Trip"
        pane = PreviewPane(lambda: tmp_path, print)
        qtbot.addWidget(pane)
        page = PreviewPage(tmp_path / "a.txt", pane)
        assert page.editor.text() == "在编辑器中打开" and page.text.toPlainText() == "正在加载…"
    finally:
        install_language("en")
    english = SessionPanel(SessionListModel())
    qtbot.addWidget(english)
    assert english.new_button.text() == "New chat"


async def _never(_key: str) -> SessionContext:
    raise AssertionError("not loaded in this test")
