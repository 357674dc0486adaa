"""The Automations page over a real runtime: past receipts shown; create, edit, pause, delete."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

from filelock import FileLock
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.config.budgets import Budgets
from desktop.core.cron.receipts import KeptReminder
from desktop.core.cron.types import CronSchedule
from desktop.core.usage.record import UsageRecord
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.automations_page import AutomationsPage
from tests.core.agent.conftest import make_provider
from tests.core.cron.test_cron import FakeClock
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.typed import present
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of


def test_automations_page_shows_receipts_and_edits_jobs(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = build_runtime(services.config, make_provider(scripted_server.url), clock=clock)
    services.set_runtime(runtime)  # the window's bridge is the desktop channel
    cron = runtime.cron
    tea = cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    scripted_server.push(Reply("Tea time."))
    clock.advance(60)
    run_async(qtbot, qloop, cron.tick(), 60_000)

    tab = make_tab()
    tab.show_section("automations")
    page = page_of(tab, "automations", AutomationsPage)
    qtbot.waitUntil(lambda: any(r.id == tea.id for r in page.rows), timeout=10_000)
    index = next(i for i, r in enumerate(page.rows) if r.id == tea.id)
    assert present(page.table.item(index, 4)).text().startswith("delivered to desktop at ")
    page.table.selectRow(index)
    assert page.details.past.item(0).text().startswith("delivered to desktop")
    assert page.form.message.text() == "Tea" and page.form.when.text() == "1"

    # Edit the selected job: every 5 minutes now.
    page.form.when.setText("5")
    page.form.save_button.click()
    qtbot.waitUntil(
        lambda: present(cron.get_job(tea.id)).schedule.every_ms == 300_000, timeout=10_000
    )

    # A new one from the form.
    page.new_button.click()
    page.form.message.setText("Drink water")
    page.form.kind.setCurrentIndex(1)
    page.form.when.setText("0 9 * * 1-5")
    page.form.save_button.click()
    qtbot.waitUntil(lambda: any(r.message == "Drink water" for r in page.rows), timeout=10_000)
    stored = json.loads(cron.store_path.read_text())["jobs"]
    water = next(j for j in stored if j["payload"]["message"] == "Drink water")
    assert water["schedule"]["expr"] == "0 9 * * 1-5"
    assert water["payload"]["sessionKey"] == "desktop:reminders"

    # Pause, then delete it.
    row = next(i for i, r in enumerate(page.rows) if r.id == water["id"])
    page.table.selectRow(row)
    page.pause_button.click()
    qtbot.waitUntil(lambda: not present(cron.get_job(water["id"])).enabled, timeout=10_000)
    qtbot.waitUntil(lambda: page.pause_button.text() == "Resume", timeout=10_000)
    page.delete_button.click()
    qtbot.waitUntil(lambda: cron.get_job(water["id"]) is None, timeout=10_000)
    qtbot.waitUntil(lambda: all(r.id != water["id"] for r in page.rows), timeout=10_000)
    # System jobs are listed but cannot be deleted here.
    dream = next((i for i, r in enumerate(page.rows) if r.protected), None)
    if dream is not None:
        page.table.selectRow(dream)
        assert not page.delete_button.isEnabled()
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_kept_reminder_reaches_the_window_and_answers_go_to_core(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """A reminder kept while no window was open is shown when the window attaches; Snooze from
    the notification becomes a one-shot job in core, Done a receipt."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = build_runtime(services.config, make_provider(scripted_server.url), clock=clock)
    cron = runtime.cron
    cron.kept.keep(
        KeptReminder(
            id="k1",
            job_id="gone",
            job_name="Pills",
            text="Take the pills",
            session_key="desktop:reminders",
            channel="desktop",
            chat_id="reminders",
            at_ms=1,
            run_id="r1",
        )
    )
    with qtbot.waitSignal(services.bridge.reminderDue, timeout=10_000) as shown:
        services.set_runtime(runtime)
    event = shown.args[0]
    assert (event.text, event.job_name, event.run_id) == ("Take the pills", "Pills", "r1")
    qtbot.waitUntil(lambda: cron.kept.pending() == [], timeout=10_000)

    services.answer_reminder(event, "1h")
    qtbot.waitUntil(
        lambda: any(j.name == "Pills (snoozed)" for j in cron.list_jobs()), timeout=10_000
    )
    snoozed = next(j for j in cron.list_jobs() if j.name == "Pills (snoozed)")
    assert snoozed.schedule.at_ms == int(clock() * 1000) + 3_600_000
    # The job is added before its receipt is written: wait for both, or "done" may come first.
    qtbot.waitUntil(
        lambda: [r.outcome for r in cron.receipts.read("gone")] == ["snoozed"], timeout=10_000
    )
    services.answer_reminder(event, "done")
    qtbot.waitUntil(
        lambda: [r.outcome for r in cron.receipts.read("gone")] == ["snoozed", "done"],
        timeout=10_000,
    )
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_a_reminder_skipped_over_budget_reads_so_with_the_reason(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """The cron budget is spent and nobody is asked: the page lists the run as skipped over
    budget (its text shown in the window) with the governor's reason, and the one-shot
    reminder stays, paused."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    budgets = Budgets.model_validate({"sources": {"cron": {"dailyTokens": 1000}}})
    runtime = build_runtime(
        services.config, make_provider(scripted_server.url), clock=clock, budgets=lambda: budgets
    )
    assert runtime.ledger is not None
    runtime.ledger.append(
        UsageRecord(time=time.time() - 1, source="cron", model="m", prompt_tokens=1200)
    )
    services.set_runtime(runtime)
    cron = runtime.cron
    job = cron.add_job(
        "dentist",
        CronSchedule("at", at_ms=int(clock() * 1000) + 60_000),
        message="Call the dentist",
        delete_after_run=True,
    )
    with qtbot.waitSignal(services.bridge.reminderDue, timeout=30_000) as shown:
        clock.advance(60)
        run_async(qtbot, qloop, cron.tick(), 60_000)
        run_async(qtbot, qloop, cron.idle(), 60_000)
    assert shown.args[0].text == "Reminder: Call the dentist"
    assert scripted_server.chat_requests() == []

    tab = make_tab()
    tab.show_section("automations")
    page = page_of(tab, "automations", AutomationsPage)
    qtbot.waitUntil(lambda: any(r.id == job.id for r in page.rows), timeout=10_000)
    index = next(i for i, r in enumerate(page.rows) if r.id == job.id)
    last = present(page.table.item(index, 4)).text()
    assert last.startswith("skipped (over budget; its text shown on desktop) at "), last
    assert "Paused by the budget: Cron wants more tokens; today's Cron budget is 1,000" in last
    assert present(page.table.item(index, 0)).text() == "dentist"
    assert present(page.table.item(index, 1)).text() == "Paused"  # kept, not deleted
    assert present(page.table.item(index, 4)).toolTip() == last  # whole, where the cell cuts it
    page.table.selectRow(index)
    assert page.details.past.item(0).text() == last and page.details.past.wordWrap()
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_new_clicked_while_an_edit_saves_adds_a_reminder_instead_of_overwriting(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Save changes, then New at once (before the save finished): the form stays a new
    reminder; the save that finishes later used to turn it back into an edit of the first job,
    so the next "Add reminder" overwrote that job's message."""
    runtime = build_runtime(services.config, make_provider(scripted_server.url))
    services.set_runtime(runtime)
    cron = runtime.cron
    tea = cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    tab = make_tab()
    tab.show_section("automations")
    page = page_of(tab, "automations", AutomationsPage)
    qtbot.waitUntil(lambda: any(r.id == tea.id for r in page.rows), timeout=10_000)
    page.table.selectRow(next(i for i, r in enumerate(page.rows) if r.id == tea.id))
    page.form.when.setText("5")
    store_lock = FileLock(str(cron.store_path.parent) + ".lock")  # another process writing
    with store_lock:
        page.form.save_button.click()
        qtbot.wait(200)  # the save has read the form and waits for the store
        assert page.busy
        page.new_button.click()
    page.form.message.setText("Stretch")
    page.form.kind.setCurrentIndex(0)
    page.form.when.setText("30")
    qtbot.waitUntil(lambda: not page.busy, timeout=10_000)  # the first save has finished
    assert page.form.editing is None and page.form.save_button.text() == "Add reminder"
    page.form.save_button.click()
    qtbot.waitUntil(lambda: any(r.message == "Stretch" for r in page.rows), timeout=10_000)
    qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
    job = cron.get_job(tea.id)
    assert job is not None and job.payload.message == "Tea"
    assert job.schedule.every_ms == 300_000
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()


def test_a_fired_one_shot_reminder_stays_listed_and_snoozes_with_its_own_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """ "Stretch your legs" fires once and its job leaves the schedule: the page still lists it
    (ran) with its receipt; Snooze -- from the notification and from the page -- brings back
    "Stretch your legs", not the model's answer; Delete hides it and Undo shows it again."""
    clock = FakeClock("2026-05-01T10:00:00+00:00")
    runtime = build_runtime(services.config, make_provider(scripted_server.url), clock=clock)
    services.set_runtime(runtime)
    cron = runtime.cron
    job = cron.add_job(
        "Stretch",
        CronSchedule("at", at_ms=int(clock() * 1000) + 60_000),
        message="Stretch your legs",
        delete_after_run=True,
    )
    scripted_server.push(Reply("Reminder / done"))
    with qtbot.waitSignal(services.bridge.reminderDue, timeout=30_000) as shown:
        clock.advance(60)
        run_async(qtbot, qloop, cron.tick(), 60_000)
        run_async(qtbot, qloop, cron.idle(), 60_000)
    assert shown.args[0].text == "Reminder / done" and cron.get_job(job.id) is None
    services.answer_reminder(shown.args[0], "10m")  # the notification's "Snooze 10 min"
    qtbot.waitUntil(lambda: [r.outcome for r in cron.receipts.read(job.id)][-1:] == ["snoozed"])
    [from_notification] = [j for j in cron.list_jobs() if j.name == "Stretch (snoozed)"]
    assert from_notification.payload.message == "Stretch your legs"

    tab = make_tab()
    tab.show_section("reminders")
    page = page_of(tab, "automations", AutomationsPage)
    qtbot.waitUntil(lambda: any(r.id == job.id for r in page.rows), timeout=10_000)
    index = next(i for i, r in enumerate(page.rows) if r.id == job.id)
    assert present(page.table.item(index, 0)).text() == "Stretch"
    assert present(page.table.item(index, 1)).text() == "Ran"
    assert present(page.table.item(index, 3)).text() == "—"
    assert (
        present(page.table.item(index, 4))
        .text()
        .startswith("delivered to desktop at 2026-05-01 10:01")
    )
    page.table.selectRow(index)
    assert "snoozed by you" in page.details.past.item(0).text()
    assert not page.pause_button.isEnabled() and page.snooze_button.isEnabled()
    assert page.form.editing is None and page.form.message.text() == "Stretch your legs"
    assert page.form.save_button.text() == "Add reminder"  # again, as a new reminder

    later = next(a for a in page.snooze_button.menu().actions() if a.text() == "1 hour")
    later.trigger()
    qtbot.waitUntil(lambda: len([j for j in cron.list_jobs() if "snoozed" in j.name]) == 2)
    texts = {j.payload.message for j in cron.list_jobs() if "snoozed" in j.name}
    assert texts == {"Stretch your legs"}
    qtbot.waitUntil(lambda: "Snoozed 'Stretch'" in page.status.text(), timeout=10_000)

    index = next(i for i, r in enumerate(page.rows) if r.id == job.id)
    page.table.selectRow(index)
    page.delete_button.click()
    qtbot.waitUntil(lambda: all(r.id != job.id for r in page.rows), timeout=10_000)
    assert page.snackbar.active and page.snackbar.button.text() == "Undo"
    page.snackbar.button.click()
    qtbot.waitUntil(lambda: any(r.id == job.id for r in page.rows), timeout=10_000)
    assert not page.snackbar.isVisible()
    run_async(qtbot, qloop, runtime.stop(), 60_000)
    services.clear_runtime()
