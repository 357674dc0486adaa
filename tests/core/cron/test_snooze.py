"""Snooze and Done on a reminder, through the real runtime and scheduler (fake clock)."""

from __future__ import annotations

from pathlib import Path

from desktop.core.cron.snooze import mark_done, snooze, snooze_until
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
        assert again.payload.message == first.text, "the one-shot job is gone: its text comes back"
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
