"""Snooze and Done on a reminder, through the real runtime and scheduler (fake clock)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from desktop.core.cron.overview import delete_reminder, job_rows, undo_delete
from desktop.core.cron.past import DAY_MS, KEEP_DAYS
from desktop.core.cron.snooze import (
    SNOOZE_CHOICES,
    mark_done,
    reminder_for,
    snooze,
    snooze_choice,
    snooze_until,
)
from desktop.core.cron.types import CronSchedule
from tests.core.cron.test_cron import FakeClock, ms
from tests.core.cron.test_receipts import NOW, Window, _runtime
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def test_snooze_times_in_the_persons_zone() -> None:
    now = ms("2026-05-01T22:30:00+00:00")  # 00:30 on 2 May in Berlin
    assert snooze_until("10m", now, "Europe/Berlin") == now + 600_000
    assert snooze_until("1h", now, "Europe/Berlin") == now + 3_600_000
    assert snooze_until("tomorrow", now, "Europe/Berlin") == ms("2026-05-03T07:00:00+00:00")
    assert snooze_until("tomorrow", now, "UTC") == ms("2026-05-02T09:00:00+00:00")


def test_snooze_choice_accepts_the_menu_keys_and_names_a_bad_one() -> None:
    assert [snooze_choice(name) for name in SNOOZE_CHOICES] == ["10m", "1h", "tomorrow"]
    with pytest.raises(ValueError, match=r"'2h'.*10m, 1h, tomorrow"):
        snooze_choice("2h")


async def test_snooze_brings_the_reminder_back_and_done_is_recorded(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock)
    window = Window(runtime)
    job = runtime.cron.add_job(
        "water",
        CronSchedule("at", at_ms=ms("2026-05-01T10:01:00+00:00")),
        message="Water plants",
        delete_after_run=True,
    )
    scripted_server.push(Reply("Water the plants now."), Reply("Plants, again!"))
    await runtime.start()
    try:
        clock.advance(60)
        await runtime.cron.tick()
        (first,) = window.seen
        assert first.run_id, "the notification knows which run it shows"
        assert runtime.cron.get_job(job.id) is None, "the one-shot job is gone after its run"
        again = snooze(runtime.cron, first, "10m")
        assert again.schedule.at_ms == ms("2026-05-01T10:11:00+00:00") and again.delete_after_run
        assert first.text == "Water the plants now." and first.message == "Water plants"
        assert again.payload.message == "Water plants", "its own text, not the answer it got"
        assert again.payload.session_key == first.session_key
        clock.set("2026-05-01T10:10:59+00:00")
        await runtime.cron.tick()
        assert len(window.seen) == 1, "not back before its time"
        clock.set("2026-05-01T10:11:00+00:00")
        await runtime.cron.tick()
        assert [e.text for e in window.seen] == ["Water the plants now.", "Plants, again!"]
        assert runtime.cron.get_job(again.id) is None
        mark_done(runtime.cron, window.seen[1])
    finally:
        await runtime.stop()
    receipts = runtime.cron.receipts.read(job.id)
    assert [(r.outcome, r.run_id) for r in receipts] == [
        ("delivered", None),
        ("snoozed", first.run_id),
    ]
    assert receipts[0].id == first.run_id
    run, answer = runtime.cron.receipts.last_run(again.id)
    assert run is not None and run.outcome == "delivered"
    assert answer is not None and answer.outcome == "done" and answer.run_id == run.id


async def test_a_snoozed_reminder_keeps_its_own_text_however_it_is_snoozed(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """One-shot and recurring; from a notification, from an older notification that did not
    carry the text (read from the ended job), and from the Reminders view: the snoozed job
    always says "Stretch your legs" / "Tea", never the answer ("Reminder / done")."""
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock)
    window = Window(runtime)
    at = CronSchedule("at", at_ms=ms("2026-05-01T10:01:00+00:00"))
    once = runtime.cron.add_job("Stretch", at, message="Stretch your legs", delete_after_run=True)
    tea = runtime.cron.add_job("tea", CronSchedule("every", every_ms=60_000), message="Tea")
    scripted_server.route = lambda body: Reply("Reminder / done")
    await runtime.start()
    try:
        clock.advance(60)
        await runtime.cron.tick()
        await runtime.cron.idle()
        by_job = {event.job_id: event for event in window.seen}
        assert runtime.cron.get_job(once.id) is None, "the one-shot job is gone after its run"
        texts = [
            snooze(runtime.cron, by_job[once.id], "10m").payload.message,
            snooze(runtime.cron, by_job[tea.id], "1h").payload.message,
            # A notification from before the text travelled with it: read from the ended job.
            snooze(
                runtime.cron, dataclasses.replace(by_job[once.id], message=""), "1h"
            ).payload.message,
        ]
        from_view = reminder_for(runtime.cron, once.id)
        assert from_view is not None and from_view.run_id == by_job[once.id].run_id
        texts.append(snooze(runtime.cron, from_view, "tomorrow").payload.message)
        recurring_view = reminder_for(runtime.cron, tea.id)
        assert recurring_view is not None
        texts.append(snooze(runtime.cron, recurring_view, "10m").payload.message)
    finally:
        await runtime.stop()
    assert texts == ["Stretch your legs", "Tea", "Stretch your legs", "Stretch your legs", "Tea"]
    assert reminder_for(runtime.cron, "dream") is None, "a system job is not snoozed"


async def test_a_fired_one_shot_reminder_stays_in_the_view_with_its_receipts(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """After it ran, the one-shot reminder is listed (ended) with its receipts -- delivered,
    then the person's snooze -- for KEEP_DAYS days; Delete hides it and Undo shows it again;
    a scheduled job deleted and undone comes back as it was."""
    clock = FakeClock(NOW)
    runtime = _runtime(scripted_server, tmp_path, clock)
    window = Window(runtime)
    at = CronSchedule("at", at_ms=ms("2026-05-01T10:01:00+00:00"))
    once = runtime.cron.add_job("Stretch", at, message="Stretch your legs", delete_after_run=True)
    weekly = runtime.cron.add_job("plan", CronSchedule("cron", expr="0 9 * * 1"), message="Plan")
    scripted_server.push(Reply("Stretch now."))
    await runtime.start()
    try:
        clock.advance(60)
        await runtime.cron.tick()
        await runtime.cron.idle()
        snooze(runtime.cron, window.seen[0], "10m")
        rows = {row.id: row for row in job_rows(runtime.cron)}
        ended = rows[once.id]
        assert ended.ended and not ended.enabled and ended.ran and ended.next_run == "—"
        assert ended.message == "Stretch your legs"
        assert ended.past[0].startswith("delivered to desktop at 2026-05-01 10:01")
        assert "; snoozed by you at 2026-05-01 10:01 UTC until 2026-05-01 10:11" in ended.past[0]
        assert list(rows)[-1] == once.id, "ended reminders come after the scheduled ones"

        deleted = delete_reminder(runtime.cron, once.id)
        assert deleted is not None and deleted.job is None
        assert once.id not in {row.id for row in job_rows(runtime.cron)}
        undo_delete(runtime.cron, deleted)
        assert once.id in {row.id for row in job_rows(runtime.cron)}

        before = runtime.cron.get_job(weekly.id)
        gone = delete_reminder(runtime.cron, weekly.id)
        assert gone is not None and runtime.cron.get_job(weekly.id) is None
        undo_delete(runtime.cron, gone)
        back = runtime.cron.get_job(weekly.id)
        assert back is not None and before is not None
        assert back.to_json() == before.to_json(), "put back as it was"

        clock.advance(KEEP_DAYS * DAY_MS / 1000 + 60)
        assert once.id not in {row.id for row in job_rows(runtime.cron)}, "gone after a week"
    finally:
        await runtime.stop()
    assert runtime.cron.receipts.read(once.id), "receipts are never deleted"
