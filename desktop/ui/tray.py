"""The tray icon: state badges, unread count, and the menu (show, new chat, reminders, quit).

States: ``idle``; ``working`` while any turn streams or runs tools (an amber dot); and
``attention`` while reminders are unread or tool calls wait for approval (a red badge with the
count), a chat channel has dropped or a Dream proposal waits for review (a red badge with ``!``
when there is no count). The menu lists the next five enabled cron jobs in local time, can pause
reminder pop-ups and, while a Dream proposal waits, offers "Review Dream changes".
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont, QGuiApplication, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from desktop.core.utils.dates import MONTHS_SHORT, WEEKDAYS_SHORT
from desktop.ui.i18n import localized, tr
from desktop.ui.theme import app_icon

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop.core.bus.events import ChannelStatusChanged, TurnEnd, TurnStarted
    from desktop.core.cron.service import CronService
    from desktop.ui.bridge import CoreBridge

log = logging.getLogger(__name__)
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128)
WORKING_COLOUR = "#f5a623"
ATTENTION_COLOUR = "#d93025"
UPCOMING_LIMIT = 5


# Short day and month names for the menu's times (marked; shown through tr()): the same in
# every locale of the machine, in the window's language.
def badge_text(*, unread: int = 0, alert: bool = False) -> str:
    """What the red badge shows: the count (``9+`` past nine), ``!`` for an alert without a
    count, or ``""`` for no badge."""
    if unread > 0:
        return "9+" if unread > 9 else str(unread)
    return "!" if alert else ""


def badge_icon(*, working: bool = False, unread: int = 0, alert: bool = False) -> QIcon:
    """The app icon with a working dot (bottom right) and a red badge (top right) holding the
    unread count, or ``!`` when ``alert`` (a channel dropped) and nothing is unread."""
    base = app_icon()
    text = badge_text(unread=unread, alert=alert)
    if not working and not text:
        return base
    icon = QIcon()
    for size in ICON_SIZES:
        pixmap = base.pixmap(size, size)
        if pixmap.isNull():
            pixmap = QPixmap(size, size)
            pixmap.fill(QColor("#2b59c3"))
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        if working:
            radius = max(2.5, size * 0.17)
            painter.setBrush(QColor(WORKING_COLOUR))
            painter.drawEllipse(QPointF(size - radius - 0.5, size - radius - 0.5), radius, radius)
        if text:
            radius = max(3.5, size * 0.25)
            centre = QPointF(size - radius, radius)
            painter.setBrush(QColor(ATTENTION_COLOUR))
            painter.drawEllipse(centre, radius, radius)
            if size >= 22:
                font = QFont()
                font.setBold(True)
                font.setPixelSize(int(radius * 1.3))
                painter.setFont(font)
                painter.setPen(QColor("#ffffff"))
                box = QRectF(centre.x() - radius, centre.y() - radius, radius * 2, radius * 2)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        painter.end()
        icon.addPixmap(pixmap)
    return icon


def place_menu(shown: QRect, size: QSize, area: QRect) -> QRect:
    """Where an open menu goes once it is ``size``: it keeps the edge it was opened against
    (its bottom when it sat in the lower half of the screen, else its top; its right edge when
    it sat in the right half) and is moved inside ``area``."""
    bottom_anchored = shown.center().y() > area.center().y()
    right_anchored = shown.center().x() > area.center().x()
    y = shown.y() + shown.height() - size.height() if bottom_anchored else shown.y()
    x = shown.x() + shown.width() - size.width() if right_anchored else shown.x()
    width, height = min(size.width(), area.width()), min(size.height(), area.height())
    x = min(max(x, area.x()), area.x() + area.width() - width)
    y = min(max(y, area.y()), area.y() + area.height() - height)
    return QRect(x, y, width, height)


def format_when(moment: dt.datetime, now: dt.datetime) -> str:
    """``14:30``, ``tomorrow 09:00`` or ``Tue 3 Jun 14:30`` (local time; in the window's
    language)."""
    clock = moment.strftime("%H:%M")
    days = (moment.date() - now.date()).days
    if days == 0:
        return clock
    if days == 1:
        return tr("tomorrow {time}").format(time=clock)
    return tr("{weekday} {day} {month} {time}").format(
        weekday=tr(WEEKDAYS_SHORT[moment.weekday()]),
        day=moment.day,
        month=tr(MONTHS_SHORT[moment.month - 1]),
        time=clock,
    )


def upcoming_reminders(
    cron: CronService | None, *, limit: int = UPCOMING_LIMIT, now: dt.datetime | None = None
) -> list[str]:
    """Menu lines for the next ``limit`` enabled jobs, soonest first (blocking: reads the store).

    System jobs (Dream, heartbeat) are not reminders and are left out.
    """
    if cron is None:
        return []
    jobs = [
        j
        for j in cron.list_jobs(include_disabled=False)
        if j.enabled and j.state.next_run_at_ms is not None and j.payload.kind != "system_event"
    ]
    jobs.sort(key=lambda j: j.state.next_run_at_ms or 0)
    now = now or dt.datetime.now().astimezone()
    lines = []
    for job in jobs[:limit]:
        moment = dt.datetime.fromtimestamp((job.state.next_run_at_ms or 0) / 1000).astimezone()
        name = job.name if len(job.name) <= 40 else job.name[:39] + "…"
        lines.append(f"{format_when(moment, now)}  {name}")
    return lines


class Tray(QObject):
    """The system-tray icon and its menu.

    Args:
        parent: Owner.

    Signals:
        showRequested(): Show (menu) or a click on the icon.
        newChatRequested(): New chat (menu).
        pauseToggled(bool): Pause reminders was checked or unchecked.
        quitRequested(): Quit (menu).
        messageClicked(): a balloon shown with :meth:`show_message` was clicked.
        reviewDreamRequested(): Review Dream changes (menu, while a proposal waits).
    """

    reviewDreamRequested = Signal()
    showRequested = Signal()
    newChatRequested = Signal()
    pauseToggled = Signal(bool)
    quitRequested = Signal()
    messageClicked = Signal()
    pairingAnswered = Signal(str, bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cron: CronService | None = None
        self._lines: list[str] = []
        self._refresh: asyncio.Task[None] | None = None
        self._active: set[str] = set()
        self._unread = 0
        self._approvals = 0
        self._channel_problems: dict[str, str] = {}
        self._dream_changes = 0
        self._paused = False
        self._pause_action: QAction | None = None
        self._pairing: dict[str, str] = {}
        self.icon = QSystemTrayIcon(app_icon(), self)
        self.menu = QMenu()
        self.menu.setAccessibleName(tr("nanobot tray menu"))
        self.menu.aboutToShow.connect(self._about_to_show)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self.icon.messageClicked.connect(self.messageClicked.emit)
        self.refresh_menu()
        self._update()

    @staticmethod
    def available() -> bool:
        """Whether the desktop has a system tray."""
        return QSystemTrayIcon.isSystemTrayAvailable()

    # -- state ------------------------------------------------------------------------------
    @property
    def state(self) -> str:
        """``attention`` (unread reminders, tool calls waiting for approval, a chat channel
        that dropped, a Dream proposal waiting), ``working`` (a turn runs) or ``idle``."""
        if self._unread > 0 or self._approvals > 0 or self._channel_problems:
            return "attention"
        if self._dream_changes:
            return "attention"
        return "working" if self._active else "idle"

    @property
    def unread(self) -> int:
        """Unread reminders shown on the badge."""
        return self._unread

    @property
    def badge(self) -> str:
        """What the icon's red badge shows: a count, ``!`` (a channel dropped) or ``""``."""
        return badge_text(unread=self._unread + self._approvals, alert=self._alert)

    @property
    def _alert(self) -> bool:
        return bool(self._channel_problems) or self._dream_changes > 0

    def set_dream_review(self, changes: int) -> None:
        """A Dream proposal with ``changes`` changes waits for review (0: none); the menu
        offers "Review Dream changes" meanwhile."""
        changes = max(0, changes)
        if changes == self._dream_changes:
            return
        self._dream_changes = changes
        self.refresh_menu()
        self._update()

    @property
    def channel_problems(self) -> dict[str, str]:
        """Chat channels that dropped or failed, with why (a copy)."""
        return dict(self._channel_problems)

    def set_pairing_requests(self, requests: dict[str, str]) -> None:
        """The DM pairing requests waiting for an answer (code → who), offered in the menu
        with Approve / Deny (:attr:`pairingAnswered`)."""
        self._pairing = dict(requests)
        self.refresh_menu()

    def set_unread(self, count: int) -> None:
        """Show ``count`` unread reminders on the icon."""
        self._unread = max(0, count)
        self._update()

    def set_waiting_approvals(self, count: int) -> None:
        """Tool calls waiting for the person's approval, across all chats (badge + tooltip)."""
        self._approvals = max(0, count)
        self._update()

    def set_channel_problem(self, channel: str, problem: str | None) -> None:
        """A chat channel dropped or failed (``problem`` says why), or is fine again (``None``)."""
        if problem:
            self._channel_problems[channel] = problem
        else:
            self._channel_problems.pop(channel, None)
        self._update()

    def set_paused(self, paused: bool) -> None:
        """Reflect the Pause reminders preference in the menu."""
        self._paused = paused
        action = self._pause_action
        if action is not None and action.isChecked() != paused:
            action.blockSignals(True)  # a change from the menu itself must not echo back
            action.setChecked(paused)
            action.blockSignals(False)

    def set_working(self, turn_id: str, working: bool) -> None:
        """Mark a turn as running or ended."""
        if working:
            self._active.add(turn_id)
        else:
            self._active.discard(turn_id)
        self._update()

    def attach(self, bridge: CoreBridge) -> None:
        """Follow the agent's turns: working from a turn's start until its end (finished,
        stopped or failed: every turn has exactly one end, so the dot never stays on)."""
        bridge.turnStarted.connect(self._busy)
        bridge.turnFinished.connect(self._idle)
        bridge.turnStopped.connect(self._idle)
        bridge.turnFailed.connect(self._idle)
        bridge.channelStatus.connect(self._channel_status)

    def _channel_status(self, event: ChannelStatusChanged) -> None:
        """A dropped or failed channel needs attention until it is connected again or stopped
        (disabled); ``connecting`` between retries keeps the attention on."""
        channel, state, reason = event.channel, event.state, localized(event.reason)
        if event.login_code:  # not broken: waiting for the person to link it
            self.set_channel_problem(
                channel, tr("not linked yet — scan the QR code in Settings → Channels")
            )
        elif state == "error":
            self.set_channel_problem(
                channel,
                tr("disconnected — {reason}").format(reason=reason)
                if reason
                else tr("disconnected"),
            )
        elif state == "unavailable":
            self.set_channel_problem(
                channel,
                tr("unavailable — {reason}").format(reason=reason) if reason else tr("unavailable"),
            )
        elif state in ("connected", "stopped"):
            self.set_channel_problem(channel, None)

    def _busy(self, event: TurnStarted) -> None:
        self.set_working(event.turn_id, True)

    def _idle(self, event: TurnEnd) -> None:
        self.set_working(event.turn_id, False)

    def _update(self) -> None:
        self.icon.setIcon(
            badge_icon(
                working=bool(self._active),
                unread=self._unread + self._approvals,
                alert=self._alert,
            )
        )
        self.icon.setToolTip(self._tooltip())

    def _tooltip(self) -> str:
        """The icon's tooltip: the most pressing state in a line (and dropped channels)."""
        approvals, unread, dream = self._approvals, self._unread, self._dream_changes
        if approvals:
            tip = (
                tr("nanobot — 1 tool call waiting for your approval")
                if approvals == 1
                else tr("nanobot — {count} tool calls waiting for your approval").format(
                    count=approvals
                )
            )
        elif unread:
            tip = (
                tr("nanobot — 1 unread reminder")
                if unread == 1
                else tr("nanobot — {count} unread reminders").format(count=unread)
            )
        elif self._channel_problems:
            name, problem = next(iter(self._channel_problems.items()))
            tip = tr("nanobot — {channel}: {problem}").format(channel=name, problem=problem)
        elif dream:
            tip = (
                tr("nanobot — Dream proposes 1 change to review")
                if dream == 1
                else tr("nanobot — Dream proposes {count} changes to review").format(count=dream)
            )
        elif self._active:
            tip = tr("nanobot — working…")
        else:
            tip = "nanobot"
        dropped = len(self._channel_problems)
        if dropped and (approvals or unread):
            tip += "\n" + (
                tr("1 chat channel disconnected")
                if dropped == 1
                else tr("{count} chat channels disconnected").format(count=dropped)
            )
        elif dropped > 1:
            tip += " " + (
                tr("(and 1 more channel)")
                if dropped == 2
                else tr("(and {count} more channels)").format(count=dropped - 1)
            )
        return tip

    # -- reminders --------------------------------------------------------------------------
    def set_cron(self, cron: CronService | None) -> None:
        """Show ``cron``'s upcoming jobs in the menu (``None``: no scheduler, no section)."""
        self.cron = cron
        self._lines = []
        self.refresh_menu()
        if cron is not None:
            self._start_refresh()

    async def refresh_reminders(self) -> None:
        """Re-read the upcoming jobs in a thread (the store touches the disk), then the menu."""
        cron = self.cron
        if cron is None:
            return
        lines = await asyncio.to_thread(upcoming_reminders, cron)
        if cron is self.cron and lines != self._lines:
            self._lines = lines
            self.refresh_menu()

    def _start_refresh(self) -> None:
        if self._refresh is not None and not self._refresh.done():
            return
        try:
            self._refresh = asyncio.ensure_future(self.refresh_reminders())
        except RuntimeError:  # no event loop (a test without one)
            return
        self._refresh.add_done_callback(_log_refresh_failure)

    def _about_to_show(self) -> None:
        # The menu is not rebuilt here (Qt has sized and placed it already); the jobs are
        # re-read in the background and the menu is rebuilt only if they changed.
        self._start_refresh()

    # -- menu -------------------------------------------------------------------------------
    def refresh_menu(self) -> None:
        """Rebuild the menu from the last known upcoming jobs.

        An open menu is rebuilt in place and kept on its screen: it grows away from the edge
        it was opened against (upwards from a tray at the bottom), never off the screen.
        """
        menu = self.menu
        shown = menu.geometry() if menu.isVisible() else None
        menu.clear()
        self._action(menu, tr("Show nanobot"), self.showRequested.emit)
        self._action(menu, tr("New chat", "action"), self.newChatRequested.emit)
        if self._dream_changes:
            self._action(menu, tr("Review Dream changes"), self.reviewDreamRequested.emit)
        for code, who in self._pairing.items():
            self._action(
                menu,
                tr("Approve {who} ({code})").format(who=who, code=code),
                partial(self.pairingAnswered.emit, code, True),
            )
            self._action(
                menu,
                tr("Deny {who} ({code})").format(who=who, code=code),
                partial(self.pairingAnswered.emit, code, False),
            )
        menu.addSeparator()
        lines = self._lines
        if self.cron is not None:
            header = menu.addAction(
                tr("Upcoming reminders") if lines else tr("No upcoming reminders")
            )
            header.setEnabled(False)
            for line in lines:
                item = menu.addAction("    " + line)
                item.setEnabled(False)
        pause = self._action(menu, tr("Pause reminders"), lambda: None)
        pause.setCheckable(True)
        pause.setChecked(self._paused)
        pause.toggled.connect(self._on_pause_toggled)
        self._pause_action = pause
        menu.addSeparator()
        self._action(menu, tr("Quit"), self.quitRequested.emit)
        if shown is not None:
            self._keep_on_screen(shown)

    def _keep_on_screen(self, shown: QRect) -> None:
        menu = self.menu
        screen = QGuiApplication.screenAt(shown.center()) or QGuiApplication.primaryScreen()
        if screen is None:
            return
        menu.adjustSize()
        size = menu.sizeHint().expandedTo(menu.size())
        menu.setGeometry(place_menu(shown, size, screen.availableGeometry()))

    def _action(self, menu: QMenu, text: str, slot: Callable[[], object]) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(slot)
        return action

    def _on_pause_toggled(self, checked: bool) -> None:
        self._paused = checked
        self.pauseToggled.emit(checked)

    def action_texts(self) -> list[str]:
        """The menu's item texts (separators as ``""``), for tests and accessibility checks."""
        return [a.text() for a in self.menu.actions()]

    def action(self, text: str) -> QAction:
        """The menu item with ``text``."""
        for action in self.menu.actions():
            if action.text() == text:
                return action
        raise KeyError(text)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.showRequested.emit()

    # -- visibility -------------------------------------------------------------------------
    def show(self) -> None:
        """Put the icon in the tray."""
        self.icon.show()

    def hide(self) -> None:
        """Take the icon out of the tray (and stop a pending menu refresh)."""
        if self._refresh is not None:
            self._refresh.cancel()
        self.icon.hide()

    def close(self) -> None:
        """Take the icon away for good: :meth:`hide`, then delete the menu (a QMenu without
        a parent widget outlives the tray otherwise)."""
        self.hide()
        self.menu.deleteLater()

    def show_message(self, title: str, body: str) -> None:
        """A balloon from the tray icon (the fallback when there is no notification service)."""
        self.icon.showMessage(title, body, self.icon.icon(), 10_000)


def _log_refresh_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("reading the upcoming reminders failed: %s", task.exception())
