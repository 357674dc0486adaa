"""The Skills tab: listing with availability, rendering, create / edit / delete, read-only builtins."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from desktop.core.engine.skills import SkillListing
from desktop.ui.skills import SkillsTab
from desktop.ui.skills.skill_list import ListingRole, accessible_text
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.skills.conftest import MISSING_BIN, MISSING_ENV, NOTES


def listing(tab: SkillsTab, name: str, source: str) -> SkillListing:
    found = [item for item in tab.list.listings() if item.name == name and item.source == source]
    assert found, f"{source} skill {name} not listed"
    return found[0]


def select(qtbot: QtBot, tab: SkillsTab, item: SkillListing) -> None:
    assert tab.list.select_path(item.path)
    qtbot.waitUntil(lambda: tab.view.listing is not None and tab.view.listing.path == item.path)


def test_list_shows_source_always_and_availability(tab: SkillsTab) -> None:
    names = {(item.name, item.source) for item in tab.list.listings()}
    assert {
        ("notes", "workspace"),
        ("needs-tools", "workspace"),
        ("broken", "workspace"),
        ("weather", "builtin"),
        ("skill-creator", "builtin"),
    } <= names

    notes = listing(tab, "notes", "workspace")
    assert notes.skill is not None and notes.skill.always and notes.skill.available
    assert "always on" in accessible_text(notes)

    needs = listing(tab, "needs-tools", "workspace")
    assert needs.skill is not None and not needs.skill.available
    row = accessible_text(needs)
    assert f"binary: {MISSING_BIN}" in row and f"env: {MISSING_ENV}" in row and "Unavailable" in row

    broken = listing(tab, "broken", "workspace")
    assert broken.skill is None and broken.error and "YAML" in broken.error
    assert "not usable" in accessible_text(broken).lower()
    assert "not usable here" in tab.summary.text()
    # the item's data is what the delegate paints
    assert tab.list.item(0).data(ListingRole) == tab.list.listings()[0]


def test_unavailable_skill_names_what_is_missing(qtbot: QtBot, tab: SkillsTab) -> None:
    select(qtbot, tab, listing(tab, "needs-tools", "workspace"))
    text = tab.view.availability.text()
    assert "Unavailable" in text and MISSING_BIN in text and MISSING_ENV in text
    assert "not installed" in text and "not set" in text


def test_selecting_renders_skill_md(qtbot: QtBot, tab: SkillsTab) -> None:
    select(qtbot, tab, listing(tab, "notes", "workspace"))
    rendered = tab.view.browser.toPlainText()
    assert "Write notes to notes/<topic>.md." in rendered  # inline code rendered, not raw
    assert (
        "---" not in rendered and "# Notes" not in rendered
    )  # frontmatter hidden, heading rendered
    assert "Keep project notes" in rendered
    assert "always on" in tab.view.facts.text()
    assert tab.view.edit_button.isEnabled() and tab.view.delete_button.isVisibleTo(tab.view)


def test_search_filters(tab: SkillsTab) -> None:
    tab.search.setText("weather")
    assert [item.name for item in tab.list.listings(visible_only=True)] == ["weather"]
    tab.search.clear()
    assert len(tab.list.listings(visible_only=True)) == len(tab.list.listings())


def test_builtin_skills_are_read_only(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, tab: SkillsTab
) -> None:
    weather = listing(tab, "weather", "builtin")
    before = weather.path.read_bytes()
    select(qtbot, tab, weather)
    assert not tab.view.edit_button.isEnabled()
    assert not tab.view.delete_button.isVisibleTo(tab.view)
    assert "read-only" in tab.view.facts.text()
    run_async(qtbot, qloop, tab._open_editor(weather.path))  # even when asked directly
    assert tab.pages.currentWidget() is tab.view
    assert tab.notice.tone == "warning" and "read-only" in tab.notice.text
    assert weather.path.read_bytes() == before


def test_copy_builtin_then_edit_the_copy(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: SkillsTab
) -> None:
    select(qtbot, tab, listing(tab, "weather", "builtin"))
    tab.view.copy_button.click()
    qtbot.waitUntil(
        lambda: any(i.name == "weather" and i.source == "workspace" for i in tab.list.listings()),
        timeout=5_000,
    )
    assert (workspace / "skills" / "weather" / "SKILL.md").is_file()
    assert listing(tab, "weather", "builtin").shadowed
    tab.notice.trigger("Edit it")
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.editor)
    assert tab.editor.path == workspace / "skills" / "weather" / "SKILL.md"


def test_edit_saves_valid_text_and_refuses_bad_frontmatter(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: SkillsTab
) -> None:
    path = workspace / "skills" / "notes" / "SKILL.md"
    select(qtbot, tab, listing(tab, "notes", "workspace"))
    tab.view.edit_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.editor)
    assert not tab.list.isEnabled()  # no switching away mid-edit
    assert tab.editor.text.toPlainText() == NOTES

    bad = NOTES.replace("description: Keep", "description: [Keep")
    tab.editor.text.setPlainText(bad)
    assert run_async(qtbot, qloop, tab.editor.save()) is False
    assert tab.editor.notice.tone == "error" and "not valid YAML" in tab.editor.notice.text
    assert path.read_text(encoding="utf-8") == NOTES  # nothing written
    assert tab.editor.text.toPlainText() == bad  # nothing lost

    renamed = NOTES.replace("name: notes", "name: other")
    tab.editor.text.setPlainText(renamed)
    assert run_async(qtbot, qloop, tab.editor.save()) is False
    assert "does not match the folder name" in tab.editor.notice.text

    good = NOTES.replace("always: true", "always: false") + "2. Link related notes.\n"
    tab.editor.text.setPlainText(good)
    tab.editor.save_button.click()
    qtbot.waitUntil(lambda: tab.editor.notice.tone == "success", timeout=5_000)
    assert path.read_text(encoding="utf-8") == good
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    tab.editor.close_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.view)
    qtbot.waitUntil(
        lambda: not present(listing(tab, "notes", "workspace").skill).always, timeout=5_000
    )
    assert tab.list.isEnabled()


def test_close_with_unsaved_edits_asks_first(qtbot: QtBot, tab: SkillsTab, workspace: Path) -> None:
    select(qtbot, tab, listing(tab, "notes", "workspace"))
    tab.view.edit_button.click()
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.editor)
    tab.editor.text.appendPlainText("3. Unsaved.")
    tab.editor.close_button.click()
    box = tab.editor.confirm_box
    assert box is not None and box.isVisible()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: tab.editor.confirm_box is None)
    assert tab.pages.currentWidget() is tab.editor and "Unsaved" in tab.editor.text.toPlainText()
    tab.editor.close_button.click()
    present(tab.editor.confirm_box).button(QMessageBox.StandardButton.Discard).click()
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.view)
    assert (workspace / "skills" / "notes" / "SKILL.md").read_text(encoding="utf-8") == NOTES


def test_create_from_template_with_validated_name(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: SkillsTab
) -> None:
    tab.new_button.click()
    dialog = tab.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.description_edit.setText("Extract tables: from PDFs to CSV. Use for PDF data.")
    for bad, why in (
        ("PDF_Tables", "lowercase"),
        ("pdf--tables", "single hyphens"),
        ("notes", "already exists"),
    ):
        dialog.name_edit.setText(bad)
        assert not dialog.create_button.isEnabled()
        assert why in dialog.problem.text()
    dialog.name_edit.setText("weather")  # allowed: replaces the builtin, and says so
    assert dialog.create_button.isEnabled() and "replace" in dialog.problem.text()
    dialog.name_edit.setText("pdf-tables")
    assert dialog.create_button.isEnabled()
    dialog.create_button.click()

    path = workspace / "skills" / "pdf-tables" / "SKILL.md"
    qtbot.waitUntil(lambda: tab.pages.currentWidget() is tab.editor, timeout=5_000)
    assert tab.editor.path == path
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\nname: pdf-tables\n")
    assert "description: 'Extract tables: from PDFs to CSV. Use for PDF data.'" in text
    assert "# Pdf tables" in text and "1. ..." in text  # the skill-creator example's body
    assert "pdftotext" not in text  # the example's requirement is not copied
    created = listing(tab, "pdf-tables", "workspace")
    assert created.skill is not None and created.skill.available


def test_delete_sets_the_folder_aside_and_undo_restores_it(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, workspace: Path, tab: SkillsTab
) -> None:
    select(qtbot, tab, listing(tab, "notes", "workspace"))
    tab.view.delete_button.click()
    box = tab.confirm_box
    assert box is not None and box.isVisible() and "notes" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: tab.confirm_box is None)
    assert (workspace / "skills" / "notes").is_dir()

    tab.view.delete_button.click()
    box = tab.confirm_box
    delete = next(b for b in present(box).buttons() if b.text() == "Delete")
    delete.click()
    qtbot.waitUntil(lambda: not any(i.name == "notes" for i in tab.list.listings()), timeout=5_000)
    assert not (workspace / "skills" / "notes").exists()
    aside = list((workspace / "skills" / ".deleted").iterdir())
    assert len(aside) == 1 and (aside[0] / "SKILL.md").read_text(encoding="utf-8") == NOTES
    assert "skills/.deleted/" in tab.notice.text

    tab.notice.trigger("Undo")
    qtbot.waitUntil(lambda: any(i.name == "notes" for i in tab.list.listings()), timeout=5_000)
    assert (workspace / "skills" / "notes" / "SKILL.md").read_text(encoding="utf-8") == NOTES
