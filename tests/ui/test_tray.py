"""The tray icon: menu content (with a real scheduler on a temporary workspace), actions, state
badges that follow the agent's events."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from desktop.core.bus.events import (
    ChannelStatusChanged,
    TurnFailed,
    TurnFinished,
    TurnStarted,
    TurnStopped,
)
from desktop.core.cron.service import CronService
from desktop.core.cron.types import CronPayload, CronSchedule
from desktop.ui.bridge import CoreBridge
from desktop.ui.tray import Tray, badge_icon, badge_text, format_when
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop")


@pytest.fixture
def tray() -> Iterator[Tray]:
    item = Tray()
    yield item
    item.close()
    item.menu.deleteLater()


def test_tray_menu_without_scheduler(tray: Tray) -> None:
    """Show, New chat, Pause reminders, Quit; no reminders section without a scheduler."""
    assert tray.action_texts() == ["Show nanobot", "New chat", "", "Pause reminders", "", "Quit"]


async def _no_job(_job: object) -> None:
    return None


def test_tray_menu_lists_the_next_five_reminders(
    tray: Tray, tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """The next five enabled user jobs, soonest first, in local time; no system or disabled jobs."""
    cron = CronService(tmp_path / "workspace" / "cron" / "jobs.json", on_job=_no_job)
    now = dt.datetime.now().astimezone()
    for hours in (7, 3, 1, 5, 2, 6):
        at = int((now + dt.timedelta(hours=hours)).timestamp() * 1000)
        cron.add_job(f"job in {hours} h", CronSchedule("at", at_ms=at), message="hi")
    cron.add_job("disabled", CronSchedule("every", every_ms=60_000), message="x", enabled=False)
    cron.add_job(
        "Dream",
        CronSchedule("every", every_ms=60_000),
        CronPayload(kind="system_event", message="dream"),
        job_id="dream",
    )
    tray.set_cron(cron)
    run_async(qtbot, qloop, tray.refresh_reminders())
    texts = tray.action_texts()
    start = texts.index("Upcoming reminders")
    lines = [t.strip() for t in texts[start + 1 : start + 6]]
    assert [line.split("  ", 1)[1] for line in lines] == [f"job in {h} h" for h in (1, 2, 3, 5, 6)]
    first = now + dt.timedelta(hours=1)
    assert lines[0].startswith(format_when(first, now))
    assert texts[start + 6] == "Pause reminders"
    assert not any("disabled" in t or "Dream" in t for t in texts)
    assert not tray.action("Upcoming reminders").isEnabled()


def test_tray_menu_with_no_upcoming_jobs(
    tray: Tray, tmp_path: Path, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """An empty scheduler says so."""
    tray.set_cron(CronService(tmp_path / "jobs.json", on_job=_no_job))
    run_async(qtbot, qloop, tray.refresh_reminders())
    assert "No upcoming reminders" in tray.action_texts()


def test_format_when() -> None:
    """Today: the time; tomorrow: 'tomorrow'; later: weekday and date."""
    now = dt.datetime(2026, 5, 4, 10, 0)
    assert format_when(dt.datetime(2026, 5, 4, 14, 30), now) == "14:30"
    assert format_when(dt.datetime(2026, 5, 5, 9, 5), now) == "tomorrow 09:05"
    assert format_when(dt.datetime(2026, 5, 8, 18, 0), now) == "Fri 8 May 18:00"


def test_tray_actions_emit(tray: Tray, qtbot: QtBot) -> None:
    """Menu items emit their signals; Pause reminders is a checkbox that follows the pref."""
    with qtbot.waitSignal(tray.showRequested, timeout=500):
        tray.action("Show nanobot").trigger()
    with qtbot.waitSignal(tray.newChatRequested, timeout=500):
        tray.action("New chat").trigger()
    pause = tray.action("Pause reminders")
    assert pause.isCheckable() and not pause.isChecked()
    with qtbot.waitSignal(tray.pauseToggled, timeout=500) as toggled:
        pause.trigger()
    assert toggled.args == [True]
    tray.set_paused(False)
    assert not tray.action("Pause reminders").isChecked()
    with qtbot.waitSignal(tray.quitRequested, timeout=500):
        tray.action("Quit").trigger()


def test_tray_state_follows_the_agent(tray: Tray) -> None:
    """A turn's start means working; its end (finished, stopped or failed) idle; unread wins."""
    bridge = CoreBridge()
    tray.attach(bridge)
    assert tray.state == "idle"
    bridge.deliver(TurnStarted("t1", "desktop:a", "message", "desktop", "a", "hi"))
    assert tray.state == "working" and "working" in tray.icon.toolTip()
    bridge.deliver(TurnStarted("t2", "desktop:b", "cron", "desktop", "b", "stretch"))
    bridge.deliver(TurnStarted("t3", "desktop:c", "message", "desktop", "c", "long"))
    bridge.deliver(TurnFinished("t1", "desktop:a", "Hello"))
    assert tray.state == "working"  # b and c still run
    bridge.deliver(TurnFailed("t2", "desktop:b", "boom"))
    assert tray.state == "working"
    bridge.deliver(TurnStopped("t3", "desktop:c", "partial"))
    assert tray.state == "idle", "a stopped turn clears the working dot"
    tray.set_unread(2)
    assert tray.state == "attention" and "2 unread reminders" in tray.icon.toolTip()
    tray.set_unread(0)
    assert tray.state == "idle" and tray.icon.toolTip() == "nanobot"
    tray.set_waiting_approvals(1)
    assert (
        tray.state == "attention" and "1 tool call waiting for your approval" in tray.icon.toolTip()
    )
    tray.set_waiting_approvals(0)
    assert tray.state == "idle"


def _pixel(icon_size: int, x: int, y: int, **kwargs: object) -> QColor:
    image = badge_icon(**kwargs).pixmap(icon_size, icon_size).toImage()  # type: ignore[arg-type]
    return image.pixelColor(x, y)


def test_badges_are_drawn() -> None:
    """Unread: a red badge top right; working: an amber dot bottom right."""
    size = 64
    plain = _pixel(size, size - 6, 6)
    unread = _pixel(size, size - 10, 10, unread=3)
    assert unread.red() > 180 and unread.green() < 90 and unread != plain
    working = _pixel(size, size - 8, size - 8, working=True)
    assert working.red() > 200 and 120 < working.green() < 200 and working.blue() < 90


def _badge_is_red(tray: Tray, size: int = 64) -> bool:
    """Whether the tray's current icon has the red attention badge (top right)."""
    colour = tray.icon.icon().pixmap(size, size).toImage().pixelColor(size - 10, 10)
    return colour.red() > 180 and colour.green() < 90 and colour.blue() < 90


def test_a_dropped_channel_shows_attention_on_the_icon(tray: Tray) -> None:
    """A channel that drops (error, or unavailable) puts the red ``!`` badge on the icon and
    names it in the tooltip; reconnect attempts keep it; connected again or stopped (disabled)
    clears it. Approvals still show their count, with the dropped channel in the tooltip."""
    bridge = CoreBridge()
    tray.attach(bridge)
    bridge.deliver(ChannelStatusChanged("telegram", "connecting"))
    bridge.deliver(ChannelStatusChanged("telegram", "connected", account="@bot"))
    assert tray.state == "idle" and tray.badge == "" and not _badge_is_red(tray)

    bridge.deliver(ChannelStatusChanged("telegram", "error", "the network is unreachable"))
    assert tray.state == "attention" and tray.badge == "!"
    assert _badge_is_red(tray), "the icon itself shows the attention state"
    assert tray.icon.toolTip() == "nanobot — telegram: disconnected — the network is unreachable"
    bridge.deliver(ChannelStatusChanged("telegram", "connecting"))
    assert tray.state == "attention" and _badge_is_red(tray), "retrying is not reconnected"

    bridge.deliver(ChannelStatusChanged("matrix", "connected"))
    bridge.deliver(ChannelStatusChanged("matrix", "unavailable", "the token was refused"))
    assert "(and 1 more channel)" in tray.icon.toolTip()
    tray.set_waiting_approvals(2)
    assert tray.badge == "2" and _badge_is_red(tray)
    assert tray.icon.toolTip().endswith("\n2 chat channels disconnected")
    tray.set_waiting_approvals(0)

    bridge.deliver(ChannelStatusChanged("telegram", "connected", account="@bot"))
    assert tray.state == "attention" and tray.channel_problems == {
        "matrix": "unavailable — the token was refused"
    }
    bridge.deliver(ChannelStatusChanged("matrix", "stopped"))  # disabled in Settings
    assert tray.state == "idle" and tray.badge == "" and tray.icon.toolTip() == "nanobot"
    assert not _badge_is_red(tray)


def test_a_channel_waiting_for_its_qr_code_asks_to_link_it_rather_than_reporting_a_drop(
    tray: Tray,
) -> None:
    """WhatsApp waiting for its QR code to be scanned is not broken: the tooltip says what to
    do (not "disconnected"), the icon still asks for attention until it is linked."""
    bridge = CoreBridge()
    tray.attach(bridge)
    bridge.deliver(
        ChannelStatusChanged(
            "whatsapp", "error", "WhatsApp is not linked", "Scan it.", login_code="2@abc,def"
        )
    )
    assert tray.state == "attention" and _badge_is_red(tray)
    tip = tray.icon.toolTip()
    assert tip == "nanobot — whatsapp: not linked yet — scan the QR code in Settings → Channels"
    assert "disconnected" not in tip and "2@abc" not in tip
    bridge.deliver(ChannelStatusChanged("whatsapp", "connected"))
    assert tray.state == "idle" and tray.icon.toolTip() == "nanobot"


def test_badge_text() -> None:
    assert badge_text() == ""
    assert badge_text(alert=True) == "!"
    assert badge_text(unread=3, alert=True) == "3"
    assert badge_text(unread=12) == "9+"
