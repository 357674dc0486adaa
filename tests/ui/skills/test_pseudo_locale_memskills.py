"""The Skills tab in the pseudo locale: every text it shows went through the translation system.

The tab is built inside :func:`pseudo_locale` and brought into each state that shows text: the
list (its painted rows checked through :func:`badges` and :func:`status_line`), each kind of
skill in the view, the new-skill dialog with each problem, the editor with each message, the
confirmation boxes and the notices. A last test installs the real zh_CN translation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from desktop.core.engine.skills import SkillListing
from desktop.ui.i18n import install_language
from desktop.ui.services import AppServices
from desktop.ui.skills import SkillsTab
from desktop.ui.skills.skill_list import accessible_text, badges, status_line
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import pseudo_locale
from tests.ui.memory.test_pseudo_locale_memskills import english, untranslated_here
from tests.ui.skills.conftest import MISSING_BIN, MISSING_ENV, NOTES


@contextmanager
def shown_tab(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> Iterator[SkillsTab]:
    """A shown Skills tab with its list loaded (build it inside ``pseudo_locale()``)."""
    tab = SkillsTab(services)
    tab.resize(1024, 700)
    tab.show()
    qtbot.waitExposed(tab)
    run_async(qtbot, qloop, tab.refreshed_once())
    try:
        yield tab
    finally:
        run_async(qtbot, qloop, tab.aclose())
        tab.close()
        tab.deleteLater()


def data(tab: SkillsTab, *more: str) -> list[str]:
    """What the tab shows that is data: skill names, descriptions, paths, parse errors."""
    found = [*more, MISSING_BIN, MISSING_ENV]
    for item in tab.list.listings():
        found += [item.name, str(item.path), item.error or ""]
        found += [item.skill.description] if item.skill is not None else []
    return found


def listing(tab: SkillsTab, name: str, source: str) -> SkillListing:
    found = [item for item in tab.list.listings() if item.name == name and item.source == source]
    assert found, f"{source} skill {name} not listed"
    return found[0]


def select(qtbot: QtBot, tab: SkillsTab, item: SkillListing) -> None:
    assert tab.list.select_path(item.path)
    qtbot.waitUntil(lambda: tab.view.listing is not None and tab.view.listing.path == item.path)


def test_the_list_and_each_kind_of_skill_show_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> None:
    with pseudo_locale(), shown_tab(qtbot, qloop, services) as tab:
        assert untranslated_here(tab, allow=data(tab)) == []
        select(qtbot, tab, listing(tab, "weather", "builtin"))  # so one builtin is replaced
        tab.view.copy_button.click()
        qtbot.waitUntil(lambda: listing(tab, "weather", "builtin").shadowed, timeout=5_000)
        assert tab.notice.action_labels() == ["⟦Edit it⟧"]
        assert untranslated_here(tab, allow=data(tab)) == []
        # the painted rows: badges and the status line, and what a screen reader hears
        for item in tab.list.listings():
            painted = [label for label, _tone in badges(item)]
            status = status_line(item)
            painted += [status[1]] if status else []
            assert english([*painted, accessible_text(item)], allow=data(tab)) == [], item.name
        assert "⟦always on⟧" in [label for label, _ in badges(listing(tab, "notes", "workspace"))]
        # each kind of skill in the view
        for name, source in (
            ("notes", "workspace"),
            ("needs-tools", "workspace"),
            ("broken", "workspace"),
            ("weather", "builtin"),
            ("weather", "workspace"),
            ("skill-creator", "builtin"),
        ):
            select(qtbot, tab, listing(tab, name, source))
            assert untranslated_here(tab.view, allow=data(tab)) == [], (name, source)
        # nothing selected
        tab.view.set_skill(None, "")
        assert untranslated_here(tab.view) == []
        assert english([tab.view.browser.toPlainText()]) == []
        # a search that finds nothing
        tab.search.setText("zzz")
        assert untranslated_here(tab, allow=data(tab, "zzz")) == []
        # a builtin cannot be edited
        run_async(qtbot, qloop, tab._open_editor(listing(tab, "skill-creator", "builtin").path))
        assert untranslated_here(tab.notice) == []


def test_the_new_skill_dialog_shows_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> None:
    with pseudo_locale(), shown_tab(qtbot, qloop, services) as tab:
        tab.new_button.click()
        dialog = present(tab.dialog)
        assert untranslated_here(dialog) == []
        for name, description in (
            ("", "Tables from PDFs."),  # no name
            ("PDF_Tables", "Tables from PDFs."),  # the core's rule for names
            ("notes", "Tables from PDFs."),  # taken
            ("pdf-tables", ""),  # no description
            ("weather", "Tables from PDFs."),  # replaces a builtin
            ("pdf-tables", "Tables from PDFs."),  # fine
        ):
            dialog.name_edit.setText(name)
            dialog.description_edit.setText(description)
            allow = [name, description, "pdf-tables"]
            assert untranslated_here(dialog, allow=allow) == [], (name, description)
        dialog.reject()
        # creating a skill that exists already fails with a message; creating one works
        assert run_async(qtbot, qloop, tab.create("notes", "Again.")) is None
        assert untranslated_here(tab.notice, allow=["notes", "'notes'"]) == []
        assert run_async(qtbot, qloop, tab.create("pdf-tables", "Tables from PDFs.")) is not None
        assert untranslated_here(tab, allow=data(tab)) == []


def test_the_editor_and_the_confirmations_show_no_untranslated_text(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, services: AppServices
) -> None:
    path = workspace / "skills" / "notes" / "SKILL.md"
    with pseudo_locale(), shown_tab(qtbot, qloop, services) as tab:
        select(qtbot, tab, listing(tab, "notes", "workspace"))
        tab.view.edit_button.click()
        qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.editor)
        editor = tab.editor
        assert untranslated_here(editor, allow=data(tab, "notes/SKILL.md")) == []
        # bad frontmatter: the reason comes from the YAML parser (data)
        editor.text.setPlainText(NOTES.replace("description: Keep", "description: [Keep"))
        assert run_async(qtbot, qloop, editor.save()) is False
        assert editor.notice.text.startswith("⟦Not saved: ")
        # changed on disk meanwhile
        path.write_text(NOTES + "2. Outside.\n", encoding="utf-8")
        editor.text.setPlainText(NOTES + "2. Mine.\n")
        assert run_async(qtbot, qloop, editor.save()) is False
        assert editor.notice.action_labels() == ["⟦Save anyway⟧", "⟦Reload (discard my edits)⟧"]
        assert untranslated_here(editor.notice, allow=["notes/SKILL.md"]) == []
        assert run_async(qtbot, qloop, editor.save(force=True)) is True
        assert untranslated_here(editor, allow=data(tab, "notes/SKILL.md")) == []
        # leaving with unsaved edits asks first
        editor.text.appendPlainText("3. Unsaved.")
        editor.close_button.click()
        box = present(editor.confirm_box)
        assert untranslated_here(box) == []
        box.button(QMessageBox.StandardButton.Discard).click()
        qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.view)
        # deleting asks, then offers Undo; undoing says so
        select(qtbot, tab, listing(tab, "notes", "workspace"))
        tab.view.delete_button.click()
        box = present(tab.confirm_box)
        assert untranslated_here(box, allow=["notes", "skills/.deleted/"]) == []
        next(b for b in box.buttons() if b.text() == "⟦Delete⟧").click()
        qtbot.waitUntil(lambda: not any(i.name == "notes" for i in tab.list.listings()))
        assert untranslated_here(tab.notice, allow=["notes"]) == []
        tab.notice.trigger("⟦Undo⟧")
        qtbot.waitUntil(lambda: any(i.name == "notes" for i in tab.list.listings()))
        assert untranslated_here(tab.notice, allow=["notes"]) == []
        qtbot.waitUntil(lambda: tab.view.listing is not None)


def test_the_skills_tab_shows_chinese_with_the_zh_cn_translation(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> None:
    try:
        assert install_language("zh_CN") == "zh_CN"
        with shown_tab(qtbot, qloop, services) as tab:
            assert tab.new_button.text() == "新建技能…"
            assert tab.search.placeholderText() == "搜索技能"
            assert "工作区 3 个" in tab.summary.text()
            notes = listing(tab, "notes", "workspace")
            assert [label for label, _ in badges(notes)] == ["工作区", "始终启用"]
    finally:
        install_language("en")
