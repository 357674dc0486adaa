"""Reminders to the person: desktop notifications, tray balloons, in-app banners, unread count.

A :class:`~desktop.core.bus.events.ReminderDue` becomes a freedesktop notification over D-Bus
(clicking it opens the origin chat). Without a notification service the tray balloon is the
fallback (with an XEmbed tray Qt draws that balloon itself). Without a tray, an in-app banner
shows it too. While reminders are paused they are only counted as unread.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop.core.bus.events import ReminderDue
from desktop.core.utils.resources import data_path
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.freedesktop import FreedesktopNotifications, NotificationRequest
from desktop.ui.i18n import QT_TR_NOOP, tr

if TYPE_CHECKING:
    from desktop.ui.main_window import MainWindow
    from desktop.ui.tray import Tray

log = logging.getLogger(__name__)

BODY_LIMIT = 400
BANNER_KEY = "reminder"
#: Answers offered on a scheduled reminder: action key -> (answer, label). The answer is a
#: :data:`desktop.core.cron.snooze.SnoozeChoice` or ``done``. Labels marked; shown through tr().
ANSWERS: dict[str, tuple[str, str]] = {
    "snooze-10m": ("10m", QT_TR_NOOP("Snooze 10 min")),
    "snooze-1h": ("1h", QT_TR_NOOP("Snooze 1 h")),
    "snooze-tomorrow": ("tomorrow", QT_TR_NOOP("Tomorrow")),
    "done": ("done", QT_TR_NOOP("Done")),
}


def build_request(
    event: ReminderDue, *, markup: bool = False, icon: str | None = None
) -> NotificationRequest:
    """The notification for ``event`` (text shortened; escaped when the server uses markup)."""
    if event.source == "heartbeat":
        summary = "nanobot"
    else:
        summary = (
            tr("Reminder: {name}").format(name=event.job_name) if event.job_name else tr("Reminder")
        )
    body = " ".join(event.text.split()) or tr("(no text)")
    if len(body) > BODY_LIMIT:
        body = body[: BODY_LIMIT - 1] + "…"
    if markup:
        body = html.escape(body, quote=False)
    actions: tuple[str, ...] = ("default", tr("Open chat"))
    if event.source == "cron":
        actions += tuple(part for key, (_, label) in ANSWERS.items() for part in (key, tr(label)))
    return NotificationRequest(
        summary=summary,
        body=body,
        actions=actions,
        app_icon=icon if icon is not None else str(data_path("resources", "icons", "nanobot.svg")),
        hints={"desktop-entry": ("s", "nanobot-desktop"), "urgency": ("y", 1)},
    )


class Notifier(QObject):
    """Delivers reminders and keeps the unread count.

    Args:
        is_paused: Returns whether reminders are paused (the ``remindersPaused`` preference).
        tray: The tray icon, or ``None`` when the desktop has no tray.
        window: The main window (banners when there is no tray; activation clears unread).
        service: The D-Bus client (a new one by default).
        parent: Owner.

    Signals:
        openSessionRequested(str): the person clicked a reminder; open this session key.
        unreadChanged(int): the unread count changed.
        delivered(str, object): how a reminder was shown — ``dbus``, ``tray``, ``banner`` or
            ``paused`` — and the :class:`NotificationRequest` built for it.
        answered(object, str): the person snoozed a reminder (``10m``, ``1h``, ``tomorrow``) or
            marked it ``done``; the :class:`ReminderDue` and the answer (the shell hands it to
            core: :mod:`desktop.core.cron.snooze`).
    """

    openSessionRequested = Signal(str)
    answered = Signal(object, str)
    unreadChanged = Signal(int)
    delivered = Signal(str, object)

    def __init__(
        self,
        *,
        is_paused: Callable[[], bool],
        tray: Tray | None = None,
        window: MainWindow | None = None,
        service: FreedesktopNotifications | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.is_paused = is_paused
        self.tray = tray
        self.window = window
        self.service = service or FreedesktopNotifications()
        self.service.on_action = self._on_action
        self.service.on_closed = self._on_closed
        self.unread = 0
        self._by_id: dict[int, str] = {}
        self._events: dict[int, ReminderDue] = {}
        self._last_balloon: str | None = None
        self._tasks = TaskOwner("notifications")
        if tray is not None:
            tray.messageClicked.connect(self._on_balloon_clicked)
        if window is not None:
            window.activated.connect(self.clear_unread)

    # -- input ------------------------------------------------------------------------------
    def on_reminder(self, event: ReminderDue) -> None:
        """Slot for ``CoreBridge.reminderDue``."""
        if self.window is None or not (self.window.isVisible() and self.window.isActiveWindow()):
            self._set_unread(self.unread + 1)
        if self.tray is None and self.window is not None:
            self._banner(event)
        request = build_request(event, markup=self.service.markup())
        if self.is_paused():
            self.delivered.emit("paused", request)
            return
        self._tasks.try_spawn(self._deliver(event), name="notify")

    async def _deliver(self, event: ReminderDue) -> None:
        try:
            await self.service.open()
            request = build_request(event, markup=self.service.markup())
            notification_id = await self.service.notify(request)
        except ConnectionError as exc:
            log.info("reminder via fallback: %s", exc)
            request = build_request(event)
            if self.tray is not None:
                self._last_balloon = event.session_key
                self.tray.show_message(request.summary, request.body)
                self.delivered.emit("tray", request)
            else:
                self.delivered.emit("banner", request)
            return
        except Exception:
            log.exception("showing a reminder failed")
            return
        self._by_id[notification_id] = event.session_key
        self._events[notification_id] = event
        self.delivered.emit("dbus", request)

    def _banner(self, event: ReminderDue) -> None:
        window = self.window
        assert window is not None
        name = event.job_name or tr("Reminder")
        text = " ".join(event.text.split())
        if len(text) > 200:
            text = text[:199] + "…"
        key = event.session_key
        actions: list[tuple[str, Callable[[], object]]] = [
            (tr("Open chat"), lambda: self._open(key))
        ]
        if event.source == "cron":  # the tray fallback: answer it in the window
            actions += [
                (tr(label), self._answerer(event, answer)) for answer, label in ANSWERS.values()
            ]
        window.show_banner(
            BANNER_KEY,
            tr("Reminder — {name}: {text}").format(name=name, text=text),
            actions=actions,
        )

    # -- clicks -----------------------------------------------------------------------------
    def _on_action(self, notification_id: int, action: str) -> None:
        key = self._by_id.get(notification_id)
        if key is not None and action in ("default", "open"):
            self._open(key)
        event = self._events.get(notification_id)
        if event is not None and action in ANSWERS:
            self._answer(event, ANSWERS[action][0])

    def _answerer(self, event: ReminderDue, answer: str) -> Callable[[], None]:
        return lambda: self._answer(event, answer)

    def _answer(self, event: ReminderDue, answer: str) -> None:
        if self.window is not None:
            self.window.remove_banner(BANNER_KEY)
        self.answered.emit(event, answer)

    def _on_closed(self, notification_id: int, _reason: int) -> None:
        self._by_id.pop(notification_id, None)
        self._events.pop(notification_id, None)

    def _on_balloon_clicked(self) -> None:
        if self._last_balloon is not None:
            self._open(self._last_balloon)

    def _open(self, session_key: str) -> None:
        if self.window is not None:
            self.window.remove_banner(BANNER_KEY)
        self.clear_unread()
        self.openSessionRequested.emit(session_key)

    # -- unread -----------------------------------------------------------------------------
    def clear_unread(self) -> None:
        """Everything has been seen (the window was activated or a reminder opened)."""
        self._set_unread(0)

    def _set_unread(self, count: int) -> None:
        if count == self.unread:
            return
        self.unread = count
        if self.tray is not None:
            self.tray.set_unread(count)
        self.unreadChanged.emit(count)

    async def aclose(self) -> None:
        """Cancel pending deliveries and close the D-Bus connection."""
        await self._tasks.aclose()
        await self.service.close()
