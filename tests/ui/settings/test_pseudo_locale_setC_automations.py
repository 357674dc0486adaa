"""Settings › Automations in the pseudo locale, over a real runtime: the list (statuses,
schedules, filters with counts), the details, the form, the menus, the empty states, the
status messages of pause, save, delete and Undo, and the page before the agent runs; every
text went through the translation system. In zh_CN the page reads Chinese."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QLabel, QMenu, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.cron.types import CronSchedule
from desktop.ui.i18n import install_language
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.automations_page import AutomationsPage
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import pseudo_locale, untranslated
from tests.ui.settings.pages import page_of

# What the test puts on screen: the jobs' names and messages, times in their zone, commands.
DATA = ["Green tea", "tea", "Standup", "dream", "heartbeat", "UTC", "nanobot-desktop"]


def _open(make_tab: Callable[[], SettingsTab]) -> AutomationsPage:
    tab = make_tab()
    tab.show_section("automations")
    return page_of(tab, "automations", AutomationsPage)


def shown_words(texts: Iterable[str], allow: list[str], parent: QWidget) -> list[str]:
    """What of ``texts`` (table cells, list items: text ``untranslated`` does not read) is
    untranslated, by the same rule: each shown in a label it walks."""
    found: list[str] = []
    for text in texts:
        label = QLabel(text, parent)
        found += untranslated(label, allow)
        label.deleteLater()
    return found


def cells(page: AutomationsPage) -> list[str]:
    """Every cell of the list of automations, every past run of the selected one, and the
    Undo bar's message and button."""
    table = page.table
    texts = [
        present(table.item(row, column)).text()
        for row in range(table.rowCount())
        for column in range(1, table.columnCount())  # the name is the job's own
    ]
    past = page.details.past
    bar = [page.snackbar.label.text(), page.snackbar.button.text()]
    return texts + [past.item(row).text() for row in range(past.count())] + bar


def check(page: AutomationsPage, allow: list[str] = DATA) -> None:
    """No untranslated text on the page, its table cells, its past runs and its Undo bar."""
    # The past runs' list: its model has no header ``untranslated`` can read (a list model's
    # columnCount needs a parent there); the Undo bar is the chat's widget (its own name is
    # translated there): what this page puts in both is checked through ``cells``.
    skip = [page.details.past, page.snackbar]
    assert untranslated(page, allow, skip=skip) == []
    assert shown_words(cells(page), allow, page) == []


def test_the_automations_page_shows_no_untranslated_text(
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
    tea = cron.add_job("tea", CronSchedule("every", every_ms=3_600_000), message="Green tea")
    standup = cron.add_job("Standup", CronSchedule("cron", expr="0 9 * * 1-5"), message="Standup")
    cron.enable_job(standup.id, False)
    with pseudo_locale():
        page = _open(make_tab)
        qtbot.waitUntil(lambda: len(page.rows) >= 2, timeout=10_000)
        names = [row.name for row in page.rows]
        allow = [*DATA, *names, "0 9 * * 1-5"]
        check(page, allow)  # nothing selected
        # Each automation selected: details, the form, the actions' words, the context menu.
        for index, row in enumerate(page.rows):
            page.table.selectRow(index)
            name = row.name
            qtbot.waitUntil(lambda: page.details.title.text().count(name) == 1)  # noqa: B023
            page._menu(QPoint(0, 0))
            check(page, allow)
            for menu in page.findChildren(QMenu):
                menu.close()
        # The overdue problem: the clock moves past the next run without running it.
        clock.advance(3 * 3600)
        run_async(qtbot, qloop, page.refresh())
        check(page, allow)
        # Pause and resume, a saved reminder, a form error, a rename.
        page.table.selectRow(names.index("tea"))
        for _ in range(2):
            run_async(qtbot, qloop, page._toggle())
            check(page, allow)
        page.new_button.click()
        page.form.message.setText("Green tea")
        page.form.when.setText("soon")
        run_async(qtbot, qloop, page._save())
        assert page.status.kind == "error"
        check(page, [*allow, "'soon'"])
        page.form.when.setText("30")
        run_async(qtbot, qloop, page._save())
        assert page.status.kind == "ok"
        check(page, allow)
        run_async(qtbot, qloop, page._rename(tea.id, "tea"))
        check(page, allow)
        # Delete with its Undo bar, then Undo.
        page.table.selectRow([row.id for row in page.rows].index(tea.id))
        run_async(qtbot, qloop, page._delete(present(page.selected_row())))
        assert page.snackbar.isVisible()
        check(page, allow)
        page.snackbar.trigger()
        qtbot.waitUntil(lambda: page.status.text().count("tea") == 1, timeout=10_000)
        check(page, allow)
        # The empty states: a search with an unknown status, one that matches nothing.
        page.search.setText("status:sleepy")
        check(page, [*allow, "sleepy"])
        page.search.setText("zzz")
        check(page, [*allow, "zzz"])
        page.search.clear()
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_the_automations_page_before_the_agent_and_without_jobs(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    with pseudo_locale():
        page = _open(make_tab)
        qtbot.waitUntil(lambda: page.status.kind == "error")  # the agent is not running yet
        check(page)
        runtime = build_runtime(services.config, make_provider(scripted_server.url))
        services.set_runtime(runtime)
        run_async(qtbot, qloop, page.refresh())
        qtbot.waitUntil(lambda: page.empty.isVisibleTo(page))
        check(page)
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_the_automations_page_reads_chinese_in_zh_cn(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = build_runtime(services.config, make_provider(scripted_server.url), clock=clock)
    services.set_runtime(runtime)
    runtime.cron.add_job("tea", CronSchedule("every", every_ms=3_600_000), message="Green tea")
    try:
        assert install_language("zh_CN") == "zh_CN"
        page = _open(make_tab)
        qtbot.waitUntil(lambda: len(page.rows) >= 1, timeout=10_000)
        row = [r.name for r in page.rows].index("tea")
        assert page.filter.itemText(0).startswith("全部（")
        assert present(page.table.horizontalHeaderItem(2)).text() == "计划"
        assert present(page.table.item(row, 1)).text() == "活动"
        assert present(page.table.item(row, 2)).text() == "每 1 小时"
        assert page.run_button.text() == "立即运行"
    finally:
        install_language("en")
        run_async(qtbot, qloop, runtime.stop(), 60_000)
        services.clear_runtime()
