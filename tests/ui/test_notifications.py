"""Reminders become notifications: the request built, a real D-Bus round trip on a private bus
(Notify with the right signature, a click opens the chat), pausing, and the fallbacks."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.bus.events import ReminderDue
from desktop.ui.freedesktop import NOTIFY_SIGNATURE, FreedesktopNotifications
from desktop.ui.main_window import MainWindow
from desktop.ui.notifications import BODY_LIMIT, Notifier, build_request
from desktop.ui.tray import Tray
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop")

EVENT = ReminderDue(
    session_key="desktop:direct",
    job_id="j1",
    job_name="Stretch",
    text="Time to stand up <now> & stretch.",
)


def test_request_for_a_reminder() -> None:
    """Summary names the job, body carries the text, a default action opens the chat."""
    request = build_request(EVENT)
    assert request.summary == "Reminder: Stretch"
    assert request.body == "Time to stand up <now> & stretch."
    assert request.actions[0] == "default"
    assert request.hints["desktop-entry"] == ("s", "nanobot-desktop")
    assert request.app_icon.endswith("nanobot.svg")
    args = request.dbus_args()
    assert len(args) == 8
    assert args[1] == 0 and args[7] == -1 and args[5][:2] == ["default", "Open chat"]
    assert "Snooze 10 min" in args[5] and "Done" in args[5]


def test_request_escapes_for_markup_servers_and_shortens() -> None:
    """Servers with body-markup get escaped text; long texts are cut with an ellipsis."""
    assert build_request(EVENT, markup=True).body == "Time to stand up &lt;now&gt; &amp; stretch."
    long = ReminderDue("desktop:direct", "j", "n", "word " * 500)
    body = build_request(long).body
    assert len(body) == BODY_LIMIT and body.endswith("…")
    heartbeat = ReminderDue(
        "desktop:direct", "heartbeat", "heartbeat", "All tasks done.", source="heartbeat"
    )
    assert build_request(heartbeat).summary == "nanobot"
    assert build_request(ReminderDue("k", "j", "", "")).body == "(no text)"


@pytest.fixture
def private_bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private session bus for this test (skipped without dbus-daemon)."""
    from tests.fakes.notification_server import PrivateBus

    try:
        bus = PrivateBus()
    except FileNotFoundError:
        pytest.skip("dbus-daemon is not installed")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
    yield bus.address
    bus.close()


@pytest.fixture
def server(private_bus: str) -> Iterator[object]:
    """The scripted notification service on the private bus."""
    from tests.fakes.notification_server import FakeNotificationServer

    fake = FakeNotificationServer(
        private_bus, capabilities=("body", "body-markup", "actions")
    ).start()
    yield fake
    fake.stop()


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    win = MainWindow()
    qtbot.addWidget(win)
    yield win
    win.allow_close()
    win.close()


def _close(qtbot: QtBot, loop: asyncio.AbstractEventLoop, notifier: Notifier) -> None:
    run_async(qtbot, loop, notifier.aclose())


def test_reminder_over_dbus_and_click_opens_the_chat(
    server: object, window: MainWindow, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """Notify arrives with signature susssasa{sv}i; ActionInvoked(default) opens the origin chat;
    without a tray an in-app banner shows the reminder too; the unread count goes up and clears."""
    notifier = Notifier(is_paused=lambda: False, tray=None, window=window)
    notifier.openSessionRequested.connect(window.open_session)  # as the shell wires it
    try:
        with qtbot.waitSignal(notifier.delivered, timeout=10_000) as delivered:
            notifier.on_reminder(EVENT)
        assert delivered.args[0] == "dbus"
        calls = server.calls  # type: ignore[attr-defined]
        assert len(calls) == 1
        call = calls[0]
        assert call.signature == NOTIFY_SIGNATURE
        assert call.summary == "Reminder: Stretch"
        assert call.body == "Time to stand up &lt;now&gt; &amp; stretch."  # server has body-markup
        assert call.args[0] == "nanobot Desktop" and call.args[1] == 0
        assert list(call.args[5])[:2] == ["default", "Open chat"]
        assert list(call.args[5])[2::2] == ["snooze-10m", "snooze-1h", "snooze-tomorrow", "done"]
        assert notifier.unread == 1
        banner = window.banner("reminder")
        assert banner is not None and "Stretch" in banner.text()
        notification_id = next(iter(notifier._by_id))
        with qtbot.waitSignal(window.openSessionRequested, timeout=5000) as opened:
            server.invoke_action(notification_id, "default")  # type: ignore[attr-defined]
        assert opened.args == ["desktop:direct"]
        assert notifier.unread == 0
        assert window.banner("reminder") is None
        assert window.current_tab_key() == "chat"
        with qtbot.waitSignal(notifier.answered, timeout=5000) as answered:
            server.invoke_action(notification_id, "snooze-1h")  # type: ignore[attr-defined]
        assert answered.args == [EVENT, "1h"]
        server.close_notification(notification_id)  # type: ignore[attr-defined]
        qtbot.waitUntil(lambda: notification_id not in notifier._by_id, timeout=5000)
    finally:
        _close(qtbot, qloop, notifier)


def test_paused_reminders_are_only_counted(
    server: object, window: MainWindow, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """While paused nothing pops up; the unread count still grows."""
    tray = Tray()
    notifier = Notifier(is_paused=lambda: True, tray=tray, window=window)
    try:
        with qtbot.waitSignal(notifier.delivered, timeout=2000) as delivered:
            notifier.on_reminder(EVENT)
        notifier.on_reminder(EVENT)
        assert delivered.args[0] == "paused"
        assert notifier.unread == 2 and tray.unread == 2 and tray.state == "attention"
        qtbot.wait(300)
        assert server.calls == []  # type: ignore[attr-defined]
        assert window.banner("reminder") is None  # there is a tray: no banner
        window.activated.emit()
        assert notifier.unread == 0 and tray.unread == 0
    finally:
        _close(qtbot, qloop, notifier)
        tray.close()


def test_without_a_notification_service_the_tray_balloon_is_used(
    private_bus: str, window: MainWindow, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """No service on the bus: showMessage on the tray icon; clicking it opens the chat."""
    tray = Tray()
    shown: list[tuple[str, str]] = []
    tray.show_message = lambda title, body: shown.append((title, body))  # type: ignore[method-assign]
    notifier = Notifier(is_paused=lambda: False, tray=tray, window=window)
    notifier.openSessionRequested.connect(window.open_session)
    try:
        with qtbot.waitSignal(notifier.delivered, timeout=10_000) as delivered:
            notifier.on_reminder(EVENT)
        assert delivered.args[0] == "tray"
        assert shown == [("Reminder: Stretch", "Time to stand up <now> & stretch.")]
        assert notifier.service.error and "notification service" in notifier.service.error
        with qtbot.waitSignal(window.openSessionRequested, timeout=1000) as opened:
            tray.messageClicked.emit()
        assert opened.args == ["desktop:direct"]
    finally:
        _close(qtbot, qloop, notifier)
        tray.close()


def test_without_any_bus_the_banner_remains(
    monkeypatch: pytest.MonkeyPatch,
    window: MainWindow,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
) -> None:
    """No session bus and no tray: the in-app banner is how the reminder reaches the person."""
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
    notifier = Notifier(is_paused=lambda: False, tray=None, window=window)
    try:
        with qtbot.waitSignal(notifier.delivered, timeout=10_000) as delivered:
            notifier.on_reminder(EVENT)
        assert delivered.args[0] == "banner"
        assert window.banner("reminder") is not None
    finally:
        _close(qtbot, qloop, notifier)


def test_client_retries_after_a_daemon_appears(
    private_bus: str, qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    """A failed connection is not cached: once a daemon runs, notifications go through."""
    from tests.fakes.notification_server import FakeNotificationServer

    client = FreedesktopNotifications()
    assert run_async(qtbot, qloop, client.open()) is False
    fake = FakeNotificationServer(private_bus).start()
    try:
        number = run_async(qtbot, qloop, client.notify(build_request(EVENT)))
        assert number > 0 and len(fake.calls) == 1
        assert not client.markup()
    finally:
        run_async(qtbot, qloop, client.close())
        fake.stop()
