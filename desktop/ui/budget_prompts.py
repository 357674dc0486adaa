"""The spend governor's questions and reports in the window: banners plus a notification.

:class:`~desktop.core.bus.events.BudgetPaused` (a background source waits before a call that
would pass its budget) becomes a banner with **Run once**, **Raise** and **Keep paused** and a
desktop notification (the tray balloon when no notification service answers). The answer goes
back through :class:`~desktop.ui.services.AppServices` (:meth:`answer_budget`,
:meth:`raise_budget`). :class:`~desktop.core.bus.events.BudgetResolved` closes the banner;
warnings and runaway stops are banners the person dismisses.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from desktop.core.bus.events import BudgetPaused, BudgetResolved, BudgetWarning, RunawayStopped
from desktop.core.utils.resources import data_path
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.freedesktop import DEFAULT_ACTION, NotificationRequest
from desktop.ui.i18n import localized, tr

if TYPE_CHECKING:
    from desktop.ui.freedesktop import FreedesktopNotifications
    from desktop.ui.main_window import MainWindow
    from desktop.ui.services import AppServices
    from desktop.ui.tray import Tray

log = logging.getLogger(__name__)


def banner_key(request_id: str) -> str:
    """The banner name of one pause."""
    return f"budget:{request_id}"


class BudgetPrompts(QObject):
    """Shows budget pauses, warnings and runaway stops; sends the person's answers.

    Args:
        services: Where answers go (and the bridge the events come from).
        window: Shows the banners.
        notifications: The desktop notification service (``None``: banners only).
        tray: Balloon fallback when no notification service answers.
        parent: Owner.
    """

    def __init__(
        self,
        services: AppServices,
        window: MainWindow,
        *,
        notifications: FreedesktopNotifications | None = None,
        tray: Tray | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.services = services
        self.window = window
        self.notifications = notifications
        self.tray = tray
        self._tasks = TaskOwner("budget-prompts")
        bridge = services.bridge
        bridge.budgetPaused.connect(self.on_paused)
        bridge.budgetResolved.connect(self.on_resolved)
        bridge.budgetWarning.connect(self.on_warning)
        bridge.runawayStopped.connect(self.on_runaway)

    def on_paused(self, event: BudgetPaused) -> None:
        """Ask (or, when the run was already refused, say so)."""
        key = banner_key(event.request_id)
        if not event.asked:
            self.window.show_banner(
                key, tr("{message}. It was kept paused.").format(message=localized(event.message))
            )
            return
        rid = event.request_id
        banner = self.window.show_banner(
            key,
            tr("{message}.").format(message=localized(event.message)),
            actions=[
                (tr("Run once"), lambda: self._answer(rid, "run")),
                (tr("Raise"), lambda: self._spawn(self.services.raise_budget(event))),
                (tr("Keep paused"), lambda: self._answer(rid, "keep")),
            ],
        )
        # Dismissing the question is an answer too: the run must not wait for nobody.
        banner.dismissed.connect(lambda: self.services.answer_budget(rid, "keep"))
        self._notify(
            tr("Paused by the budget"),
            tr("{message}. Open nanobot to decide.").format(message=localized(event.message)),
        )

    def on_resolved(self, event: BudgetResolved) -> None:
        """The pause was answered (here, by a timeout, or by another window): close it."""
        self.window.remove_banner(banner_key(event.request_id))

    def on_warning(self, event: BudgetWarning) -> None:
        """A chat budget nears (or, with a hard cap, reached) its limit."""
        severity = "error" if event.refused else "info"
        self.window.show_banner(
            f"budget-warning:{event.scope}",
            localized(event.message),
            severity=severity,
            actions=[(tr("Budgets"), self.show_budgets)],
        )

    def on_runaway(self, event: RunawayStopped) -> None:
        """A background run was stopped: the person must know."""
        message = localized(event.message)
        self.window.show_banner(f"runaway:{event.run}", message, severity="error")
        self._notify(tr("A background run was stopped"), message)

    def show_budgets(self) -> None:
        """Open Settings › Usage & budgets."""
        self.window.show_settings("usage")

    def _answer(self, request_id: str, choice: str) -> None:
        self.services.answer_budget(request_id, choice)
        self.window.remove_banner(banner_key(request_id))

    def _spawn(self, coro: Any) -> None:
        self._tasks.try_spawn(coro, name="budget-notification")

    def _notify(self, summary: str, body: str) -> None:
        if self.notifications is None and self.tray is None:
            return
        self._spawn(self._deliver(summary, body))

    async def _deliver(self, summary: str, body: str) -> None:
        try:
            if self.notifications is None:
                raise ConnectionError("no notification service")
            await self.notifications.notify(
                NotificationRequest(
                    summary=summary,
                    body=body,
                    actions=(DEFAULT_ACTION, tr("Open chat")),
                    app_icon=str(data_path("resources", "icons", "nanobot.svg")),
                    hints={"desktop-entry": ("s", "nanobot-desktop"), "urgency": ("y", 1)},
                )
            )
        except ConnectionError:
            if self.tray is not None:
                self.tray.show_message(summary, body)
        except Exception:  # a notification must never break the window
            log.exception("showing a budget notification failed")

    async def aclose(self) -> None:
        """Cancel notifications still being sent."""
        await self._tasks.aclose()
