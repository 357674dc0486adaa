"""Pause reminders (do not disturb) through the app's own start-up: the runtime the window starts
reads the same preference as the notifier, so a reminder's receipt says "quietly" exactly when
the notifier showed no pop-up."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.prefs import PrefsStore
from desktop.core.cron.types import CronSchedule
from desktop.ui.notifications import Notifier
from desktop.ui.startup import AgentStarter
from tests.conftest import custom_config, write_config
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop", "memory_keyring")


def test_paused_reminders_arrive_quietly_and_the_receipt_agrees_with_the_notifier(
    tmp_path: Path,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    path = custom_config(tmp_path, scripted_server.url, timezone="UTC")
    prefs = PrefsStore(write_config(path.parent / "desktop.json", {"remindersPaused": True}))
    starter = AgentStarter(path, prefs=prefs)
    with qtbot.waitSignal(starter.agentReady, timeout=30_000):
        starter.start()
    services = starter.services
    assert services is not None and services.cron is not None
    notifier = Notifier(is_paused=lambda: prefs.prefs.reminders_paused)  # as the shell does
    services.bridge.reminderDue.connect(notifier.on_reminder)
    how: list[str] = []
    notifier.delivered.connect(lambda way, _request: how.append(way))
    cron = services.cron
    job = cron.add_job("tea", CronSchedule("every", every_ms=3_600_000), message="Tea")
    scripted_server.push(Reply("Tea time."), Reply("Tea time again."))
    try:
        run_async(qtbot, qloop, cron.run_now(job.id), 30_000)
        qtbot.waitUntil(lambda: how == ["paused"], timeout=10_000)
        prefs.update(reminders_paused=False)  # the tray's "Pause reminders" unticked
        run_async(qtbot, qloop, cron.run_now(job.id), 30_000)
        qtbot.waitUntil(lambda: len(how) == 2, timeout=10_000)
    finally:
        run_async(qtbot, qloop, notifier.aclose())
        run_async(qtbot, qloop, starter.stop(), 30_000)
    assert how[1] != "paused"  # a pop-up (D-Bus, tray balloon or banner) this time
    quiet, loud = cron.receipts.read(job.id)
    assert (quiet.outcome, quiet.delivered_to, quiet.quiet) == ("delivered", ("desktop",), True)
    assert (loud.outcome, loud.delivered_to, loud.quiet) == ("delivered", ("desktop",), False)
