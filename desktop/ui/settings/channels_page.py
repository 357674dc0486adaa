"""The Channels page: global progress flags, then one generated form per chat channel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QStackedWidget,
    QWidget,
)

from desktop.core.config import secret_fields
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.channel_form import ChannelForm, channel_title, status_dot
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.pairing_list import PairingList

if TYPE_CHECKING:
    from desktop.core.bus.events import ChannelStatusChanged
    from desktop.ui.services import AppServices


class ChannelsPage(SettingsPage):
    """Telegram, Email, Matrix, … : enable, credentials (keyring), allowed senders, options,
    the live status with the last error, Connect / Disconnect and a connection test.

    The forms are generated from the config schema (field titles and descriptions).
    """

    section = "channels"
    title = QT_TR_NOOP("Channels")
    labels: ClassVar[dict[str, str]] = {
        "channels.send_progress": QT_TR_NOOP("Send progress"),
        "channels.send_tool_hints": QT_TR_NOOP("Send tool hints"),
    }

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description=tr(
                "Reach the agent from chat apps. Tokens and passwords are stored in the OS keyring."
            ),
        )
        self.send_progress = QCheckBox(tr("Send progress messages while the agent works"))
        self.send_progress.setAccessibleName(tr("Send progress"))
        self.send_tool_hints = QCheckBox(tr("Send a short note when a tool runs"))
        self.send_tool_hints.setAccessibleName(tr("Send tool hints"))
        self.body_layout.addWidget(self.send_progress)
        self.body_layout.addWidget(self.send_tool_hints)
        row = QHBoxLayout()
        self.list = QListWidget()
        self.list.setAccessibleName(tr("Channels"))
        self.list.setFixedWidth(150)
        self.names = secret_fields.channel_names()
        for name in self.names:
            item = QListWidgetItem(channel_title(name))
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.list.addItem(item)
        self.stack = QStackedWidget()
        self.forms: dict[str, ChannelForm] = {}
        self._scrolls: dict[str, QScrollArea] = {}
        row.addWidget(self.list)
        row.addWidget(self.stack, 1)
        self.body_layout.addLayout(row, 1)
        # Its reads are the page's tasks: closing the page cancels and awaits them.
        self.pairing = self.adopt(PairingList(services.config_path.parent))
        self.body_layout.addWidget(self.pairing)
        services.bridge.pairingRequested.connect(lambda _event: self.pairing.refresh())
        self.list.currentRowChanged.connect(self._show_row)
        self.watch(self.send_progress, self.send_tool_hints)
        services.bridge.channelStatus.connect(self._on_channel_status)
        services.agentReady.connect(self._mark_all)
        self._mark_all()

    def _on_channel_status(self, event: ChannelStatusChanged) -> None:
        self._mark(event.channel, _shown_state(event.state, event.login_code))

    def _mark_all(self) -> None:
        runtime = self.services.runtime
        for name in self.names:
            state = "stopped"
            if runtime is not None:
                status = runtime.channels.status(name)
                state = _shown_state(status.state, status.login_code)
            self._mark(name, state)

    def _mark(self, name: str, state: str) -> None:
        """Show a channel's state in the list: a coloured dot and a tooltip."""
        if name not in self.names:
            return
        item = self.list.item(self.names.index(name))
        enabled = bool(getattr(getattr(self.services.config.channels, name, None), "enabled", 0))
        words = tr(_STATE_WORDS.get(state, _STATE_WORDS["on"] if enabled else _STATE_WORDS["off"]))
        item.setIcon(status_dot(state if state != "stopped" or enabled else "off"))
        item.setToolTip(tr("{channel}: {state}").format(channel=channel_title(name), state=words))
        item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, words)

    def form(self, name: str) -> ChannelForm:
        """The form of channel ``name`` (built on first use)."""
        if name not in self.forms:
            form = self.adopt(ChannelForm(self.services, name))
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QScrollArea.Shape.NoFrame)
            scroll.setWidget(form)
            self.forms[name] = form
            self._scrolls[name] = scroll
            self.stack.addWidget(scroll)
            self._loading = True
            try:
                form.load()
            finally:
                self._loading = False
            self.watch(*form.widgets())
            form.enableRequested.connect(lambda n=name: self.spawn(self.turn_on(n), f"on-{n}"))
        return self.forms[name]

    async def turn_on(self, name: str) -> bool:
        """The "Turn on" step after a test that worked: keep the typed keys, tick the channel's
        ``enabled`` box and save the page (the window then connects the channel)."""
        form = self.forms[name]
        for key in form.keys.values():
            if key.typed() and not await key.save():
                return False  # the key field says why
        enabled = form.controls.get("enabled")
        if isinstance(enabled, QCheckBox):
            enabled.setChecked(True)
        if not await self.save():
            return False
        form.steps.clear()
        form.test_status.ok(tr("{channel} is on.").format(channel=channel_title(name)))
        return True

    def show_channel(self, name: str) -> None:
        """Select channel ``name``."""
        if name in self.names:
            self.list.setCurrentRow(self.names.index(name))

    def _show_row(self, row: int) -> None:
        if 0 <= row < len(self.names):
            name = self.names[row]
            self.form(name)
            self.stack.setCurrentWidget(self._scrolls[name])

    def load(self) -> None:
        """Show the saved values."""
        channels = self.services.config.channels
        self.send_progress.setChecked(channels.send_progress)
        self.send_tool_hints.setChecked(channels.send_tool_hints)
        for form in self.forms.values():
            form.load()
        if self.list.currentRow() < 0:
            enabled = [i for i, n in enumerate(self.names) if getattr(channels, n).enabled]
            self.list.setCurrentRow(enabled[0] if enabled else 0)

    def collect(self) -> dict[str, Any]:
        """Global flags and every opened channel form."""
        changes: dict[str, Any] = {
            "channels.send_progress": self.send_progress.isChecked(),
            "channels.send_tool_hints": self.send_tool_hints.isChecked(),
        }
        for form in self.forms.values():
            changes.update(form.collect())
        return changes


_STATE_WORDS = {
    "connected": QT_TR_NOOP("connected"),
    "connecting": QT_TR_NOOP("connecting…"),
    "waiting": QT_TR_NOOP("waiting for you to scan the QR code"),
    "error": QT_TR_NOOP("disconnected (retrying)"),
    "unavailable": QT_TR_NOOP("cannot run"),
    "on": QT_TR_NOOP("on, not running"),
    "off": QT_TR_NOOP("off"),
}
"""How the channel list names a channel's state (its tooltip and accessible description)."""


def _shown_state(state: str, login_code: str) -> str:
    """The state as the list shows it: a channel waiting for a code to be scanned is not a
    failure (amber "waiting", not red), though it cannot carry messages yet."""
    return "waiting" if login_code else state
