"""The Automations page from the keyboard, over a real runtime and the scripted model server:
run now (a delivered run and a failed one), filter, search, sort, rename in place (F2), pause,
delete (Del) with the Undo snackbar (Ctrl+Z), the copied command, and its empty states."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLineEdit, QMenu, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.cron.types import CronSchedule
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.automations_page import AutomationsPage
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of


def _open(make_tab: Callable[[], SettingsTab]) -> AutomationsPage:
    tab = make_tab()
    tab.show_section("automations")
    page = page_of(tab, "automations", AutomationsPage)
    assert isinstance(page, AutomationsPage)
    return page


def _names(page: AutomationsPage) -> list[str]:
    return [row.name for row in page.rows]


def _focus(qtbot: QtBot, widget: QWidget) -> None:
    widget.activateWindow()
    widget.setFocus(Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(widget.hasFocus)


def _select(qtbot: QtBot, page: AutomationsPage, name: str) -> None:
    page.table.selectRow(_names(page).index(name))
    _focus(qtbot, page.table)


def _stored(page: AutomationsPage, job_id: str) -> dict[str, object] | None:
    assert page.cron is not None
    jobs = json.loads(page.cron.store_path.read_text())["jobs"]
    return next((j for j in jobs if j["id"] == job_id), None)


def test_automations_from_the_keyboard(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = build_runtime(services.config, make_provider(scripted_server.url), clock=clock)
    services.set_runtime(runtime)
    cron = runtime.cron
    tea = cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Green tea")
    pills = cron.add_job("pills", CronSchedule("every", every_ms=120_000), message="Pills")
    standup = cron.add_job("Standup", CronSchedule("cron", expr="0 9 * * 1-5"), message="Standup")
    cron.enable_job(standup.id, False)

    page = _open(make_tab)
    qtbot.waitUntil(lambda: len(page.rows) == 3, timeout=10_000)
    assert page.filter.itemText(0) == "All (3)" and page.filter.itemText(2) == "Paused (1)"

    # Run now, through the real model path: tea is delivered, pills fails (the model is down).
    scripted_server.push(Reply("Tea time."))
    _select(qtbot, page, "tea")
    page.run_button.click()
    qtbot.waitUntil(lambda: "Ran 'tea'" in page.status.text(), timeout=30_000)
    qtbot.waitUntil(lambda: page.selected_row() is not None, timeout=10_000)
    assert page.details.past.item(0).text().startswith("delivered to desktop")
    scripted_server.push(Fail(401, "bad key"))
    _select(qtbot, page, "pills")
    page.run_button.click()
    qtbot.waitUntil(lambda: "Ran 'pills'" in page.status.text(), timeout=30_000)
    index = _names(page).index("pills")
    assert present(page.table.item(index, 1)).text() == "Active · last run failed"
    assert page.details.past.item(0).text().startswith("failed")

    # Filter, search, sort.
    page.filter.setCurrentIndex(page.filter.findData("attention"))
    assert _names(page) == ["pills"] and page.filter.currentText() == "Needs attention (1)"
    page.filter.setCurrentIndex(0)
    _focus(qtbot, page.table)
    qtbot.keyClick(page.table, Qt.Key.Key_H, Qt.KeyboardModifier.AltModifier)
    assert page.search.hasFocus()
    qtbot.keyClicks(page.search, "schedule:every status:active")
    assert sorted(_names(page)) == ["pills", "tea"]
    page.search.setText("green")
    assert _names(page) == ["tea"], "plain words search the message"
    page.search.setText("status:sleepy")
    assert page.empty.isVisible() and not page.table.isVisible()
    assert "No status called “sleepy”" in page.empty.text()
    page.search.clear()
    assert page.table.isVisible() and not page.empty.isVisible()
    page.sort.setCurrentIndex(page.sort.findData("last"))
    assert _names(page) == ["pills", "tea", "Standup"]
    page.sort.setCurrentIndex(page.sort.findData("name"))
    assert _names(page) == ["pills", "Standup", "tea"]

    # Rename in place: F2, type, Enter; the name is saved in jobs.json.
    _select(qtbot, page, "tea")
    qtbot.keyClick(page.table, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, "Afternoon tea")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: (_stored(page, tea.id) or {}).get("name") == "Afternoon tea")
    qtbot.waitUntil(lambda: "Afternoon tea" in _names(page), timeout=10_000)
    # A system job cannot be renamed.
    cron.register_system_job("dream", CronSchedule("every", every_ms=7_200_000))
    run_async(qtbot, qloop, page.refresh())
    _select(qtbot, page, "dream")
    assert not page.rename_button.isEnabled() and not page.delete_button.isEnabled()
    assert present(page.table.item(_names(page).index("dream"), 1)).text() == "System"

    # Pause from the keyboard (Space on the focused button).
    _select(qtbot, page, "pills")
    _focus(qtbot, page.pause_button)
    qtbot.keyClick(page.pause_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: (_stored(page, pills.id) or {}).get("enabled") is False)
    qtbot.waitUntil(lambda: page.pause_button.text() == "Resume", timeout=10_000)

    # The local trigger: the command names the app's (non-default) config file.
    _select(qtbot, page, "Afternoon tea")
    page.details.copy_button.click()
    command = QGuiApplication.clipboard().text()
    assert command == f"nanobot-desktop cron run --config {services.config_path} {tea.id}"
    assert page.details.command.text() == command

    # Delete with Del, Undo with Ctrl+Z: the job is back exactly as it was, same id.
    before = _stored(page, tea.id)
    _select(qtbot, page, "Afternoon tea")
    qtbot.keyClick(page.table, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: _stored(page, tea.id) is None, timeout=10_000)
    qtbot.waitUntil(lambda: "Afternoon tea" not in _names(page), timeout=10_000)
    assert page.snackbar.isVisible() and page.snackbar.button.text() == "Undo"
    assert "Deleted “Afternoon tea”" in page.snackbar.label.text()
    qtbot.keyClick(page.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: _stored(page, tea.id) == before, timeout=10_000)
    qtbot.waitUntil(lambda: "Afternoon tea" in _names(page), timeout=10_000)
    assert not page.snackbar.isVisible()
    assert page.selected_row() is not None and page.selected_row().id == tea.id  # type: ignore[union-attr]
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_empty_states(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    page = _open(make_tab)
    qtbot.waitUntil(lambda: page.empty.isVisible(), timeout=10_000)
    assert page.empty.text().startswith("No automations yet.")
    assert not page.run_button.isEnabled() and not page.details.copy_button.isEnabled()
    runtime.cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    _focus(qtbot, page.search)
    qtbot.keyClick(page.search, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: _names(page) == ["tea"], timeout=10_000)
    page.filter.setCurrentIndex(page.filter.findData("paused"))
    assert page.empty.text().startswith("No automations match this view.")
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_a_second_delete_keeps_its_undo_and_a_rename_reaches_the_form(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Two deletes in a row: Undo brings back the second (the first's bar expiring used to
    drop it). A rename of the job the form shows updates the form's name (Save changes used
    to write the old name back)."""
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    cron = runtime.cron
    tea = cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    cron.add_job("water", CronSchedule("every", every_ms=60_000), message="Water")
    page = _open(make_tab)
    qtbot.waitUntil(lambda: len(page.rows) == 2, timeout=10_000)

    _select(qtbot, page, "tea")
    assert page.form.name.text() == "tea"
    page.rename_button.click()
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit)
    editor.setText("green tea")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "green tea" in _names(page), timeout=10_000)
    assert page.form.name.text() == "green tea"
    page.form.save_button.click()
    qtbot.waitUntil(lambda: "Saved" in page.status.text(), timeout=10_000)
    assert (_stored(page, tea.id) or {}).get("name") == "green tea"

    _select(qtbot, page, "water")
    qtbot.keyClick(page.table, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: "water" not in _names(page), timeout=10_000)
    _select(qtbot, page, "green tea")
    qtbot.keyClick(page.table, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: _names(page) == [], timeout=10_000)
    assert "green tea" in page.snackbar.label.text()
    qtbot.keyClick(page.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: _names(page) == ["green tea"], timeout=10_000)
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_the_menu_key_opens_the_actions(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    runtime.cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    page = _open(make_tab)
    qtbot.waitUntil(lambda: _names(page) == ["tea"], timeout=10_000)
    _select(qtbot, page, "tea")
    qtbot.keyClick(page.table, Qt.Key.Key_Menu)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
    menu = QApplication.activePopupWidget()
    assert isinstance(menu, QMenu) and menu.accessibleName() == "Actions for tea"
    labels = [a.text() for a in menu.actions() if a.text()]
    assert labels == ["Run now", "Pause", "Rename", "Copy command", "Delete"]
    pause = next(a for a in menu.actions() if a.text() == "Pause")
    pause.trigger()
    menu.close()
    qtbot.waitUntil(lambda: page.pause_button.text() == "Resume", timeout=10_000)
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_tab_reaches_every_control_in_reading_order(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    runtime.cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    page = _open(make_tab)
    qtbot.waitUntil(lambda: _names(page) == ["tea"], timeout=10_000)
    _select(qtbot, page, "tea")
    _focus(qtbot, page.filter)
    expected = [
        page.search,
        page.sort,
        page.refresh_button,
        page.table,
        page.new_button,
        page.run_button,
        page.pause_button,
        page.rename_button,
        page.delete_button,  # Snooze is off: tea has not run
        page.details.past,
        page.details.command,
        page.details.copy_button,
        page.form.name,
    ]
    for widget in expected:
        QTest.keyClick(present(QApplication.focusWidget()), Qt.Key.Key_Tab)
        assert QApplication.focusWidget() is widget, (
            widget.accessibleName(),
            QApplication.focusWidget(),
        )
        assert widget.accessibleName(), "every stop has a name a screen reader says"
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()
