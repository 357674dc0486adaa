"""DM pairing requests in the window: a banner with Approve / Deny, and a notification.

A :class:`~desktop.core.bus.events.PairingRequested` (someone not in a channel's
``allowFrom`` wrote to the bot directly and got a code) becomes a banner naming the channel,
the sender and the code, with **Approve** and **Deny**, plus a desktop notification (the tray
balloon when no notification service answers). The answer is written to ``pairing.json``
beside the config in a worker thread (:class:`~desktop.core.channels.pairing.PairingStore`);
dismissing the banner leaves the request pending (it expires, or is answered in Settings ›
Channels or with ``nanobot-desktop channels pair``).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop.core.bus.events import PairingRequested
from desktop.core.channels.pairing import PairingStore
from desktop.core.channels.pairing.gate import display_name
from desktop.core.utils.resources import data_path
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.freedesktop import DEFAULT_ACTION, NotificationRequest
from desktop.ui.i18n import tr

if TYPE_CHECKING:
    from desktop.ui.freedesktop import FreedesktopNotifications
    from desktop.ui.main_window import MainWindow
    from desktop.ui.services import AppServices
    from desktop.ui.tray import Tray

log = logging.getLogger(__name__)


def banner_key(code: str) -> str:
    """The banner name of one request."""
    return f"pairing:{code}"


def who(event: PairingRequested) -> str:
    """The sender for people: ``zoe (4249)`` for ``4249|zoe``."""
    sender_id, _, name = event.sender.partition("|")
    return f"{name} ({sender_id})" if name else sender_id


def describe(event: PairingRequested) -> str:
    """The request in a sentence."""
    return tr(
        "{who} wrote to the assistant on {channel} and asks to be let in (pairing code {code})."
    ).format(who=who(event), channel=display_name(event.channel), code=event.code)


class PairingPrompts(QObject):
    """Shows pairing requests and writes the person's answers.

    Args:
        services: The bridge the requests come from and the config's folder.
        window: Shows the banners.
        notifications: The desktop notification service (``None``: banners only).
        tray: Balloon fallback when no notification service answers.
        parent: Owner.

    Signals:
        answered(str, bool): a code was approved (``True``) or denied; ``pairing.json`` changed.
    """

    answered = Signal(str, bool)

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
        self.window = window
        self.notifications = notifications
        self.tray = tray
        self.folder = Path(services.config_path).parent
        self._tasks = TaskOwner("pairing-prompts")
        self.waiting: dict[str, str] = {}
        """Requests shown and not yet answered here: code → who (the tray's menu lists them)."""
        services.bridge.pairingRequested.connect(self.on_requested)
        if tray is not None:
            tray.pairingAnswered.connect(lambda code, ok: self.answer(code, approve=ok))

    def on_requested(self, event: PairingRequested) -> None:
        """Ask the person."""
        code = event.code
        self.window.show_banner(
            banner_key(code),
            describe(event),
            actions=[
                (tr("Approve"), lambda: self.answer(code, approve=True)),
                (tr("Deny"), lambda: self.answer(code, approve=False)),
            ],
        )
        self._set_waiting(code, who(event))
        if self.notifications is not None or self.tray is not None:
            self._tasks.try_spawn(self._notify(event), name="pairing-notification")

    def answer(self, code: str, *, approve: bool) -> None:
        """Approve or deny ``code`` (in the background; the banner says how it went)."""
        self._tasks.try_spawn(self._answer(code, approve), name="pairing-answer")

    async def _answer(self, code: str, approve: bool) -> None:
        store = PairingStore(self.folder)
        key = banner_key(code)
        try:
            found = await asyncio.to_thread(store.approve if approve else store.deny, code)
        except OSError as exc:
            self.window.show_banner(
                key,
                tr("The pairing file cannot be changed: {error}").format(error=exc),
                severity="error",
            )
            return
        self._set_waiting(code, None)
        if found is None:
            self.window.show_banner(
                key, tr("The pairing code {code} expired or was already used.").format(code=code)
            )
            return
        self.window.remove_banner(key)
        self.answered.emit(code, approve)

    def _set_waiting(self, code: str, who: str | None) -> None:
        if who is None:
            self.waiting.pop(code, None)
        else:
            self.waiting[code] = who
        if self.tray is not None:
            self.tray.set_pairing_requests(self.waiting)

    async def _notify(self, event: PairingRequested) -> None:
        summary = tr("Pairing request")
        body = tr("{request} Open nanobot to approve or deny it.").format(request=describe(event))
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
            log.exception("showing a pairing notification failed")

    async def aclose(self) -> None:
        """Cancel answers and notifications still running."""
        await self._tasks.aclose()
