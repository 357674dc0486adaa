"""Appearance and start-up: theme, close to tray, start at login (desktop preferences)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QCheckBox, QRadioButton, QWidget

from desktop.core.config.edit import ChangeError
from desktop.ui.chat.diff_view import DIFF_LABELS
from desktop.ui.settings import autostart
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.prefs_access import prefs_store, update_prefs
from desktop.ui.settings.widgets import heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

THEMES = (("system", "Follow the system"), ("light", "Light"), ("dark", "Dark"))


class AppearancePage(SettingsPage):
    """Theme, how file changes show in the chat, close-to-tray and start-at-login; stored in
    ``desktop.json``, not config.json.

    Signals:
        appearanceChanged(str): the saved theme (``system``, ``light`` or ``dark``).
        prefsChanged(): preferences were saved.
    """

    appearanceChanged = Signal(str)
    prefsChanged = Signal()

    section = "appearance"
    title = "Appearance & startup"

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description="How the window looks and behaves. These settings "
            "belong to this app and are kept in desktop.json.",
        )
        add = self.body_layout.addWidget
        add(heading("Theme", level=2))
        self.theme = QButtonGroup(self)
        self.theme_buttons: dict[str, QRadioButton] = {}
        for value, label in THEMES:
            button = QRadioButton(label)
            button.setAccessibleName(f"Theme: {label}")
            self.theme.addButton(button)
            self.theme_buttons[value] = button
            add(button)
        add(heading("Chat", level=2))
        add(hint("Show file changes as:"))
        self.diff_display = QButtonGroup(self)
        self.diff_buttons: dict[str, QRadioButton] = {}
        for value, label in DIFF_LABELS.items():
            button = QRadioButton(label)
            button.setAccessibleName(f"Show file changes as: {label}")
            self.diff_display.addButton(button)
            self.diff_buttons[value] = button
            add(button)
        add(heading("Window", level=2))
        self.close_to_tray = QCheckBox(
            "Closing the window keeps nanobot running in the system tray"
        )
        self.close_to_tray.setAccessibleName("Close to tray")
        add(self.close_to_tray)
        add(hint("Only where a system tray exists; otherwise closing the window quits."))
        self.start_at_login = QCheckBox("Start nanobot Desktop when I log in")
        self.start_at_login.setAccessibleName("Start at login")
        add(self.start_at_login)
        self.login_hint = hint("")
        add(self.login_hint)
        if not autostart.supported():
            self.start_at_login.setEnabled(False)
            self.login_hint.setText(autostart.unsupported_reason())
        else:
            self.login_hint.setText(
                f"Adds {autostart.autostart_path()} (removed again when unticked)."
            )
        self.body_layout.addStretch(1)
        self.watch(
            *self.theme_buttons.values(),
            *self.diff_buttons.values(),
            self.close_to_tray,
            self.start_at_login,
        )

    def load(self) -> None:
        """Read the preferences (in the background the first time)."""
        self.spawn(self._load(), "load-prefs")

    async def _load(self) -> None:
        store = await prefs_store(self.services)
        enabled = await asyncio.to_thread(autostart.is_enabled) if autostart.supported() else False
        prefs = store.prefs
        self._loading = True
        try:
            self.theme_buttons.get(prefs.appearance, self.theme_buttons["system"]).setChecked(True)
            self.close_to_tray.setChecked(prefs.close_to_tray)
            self.diff_buttons.get(prefs.diff_display, self.diff_buttons["inline"]).setChecked(True)
            self.start_at_login.setChecked(enabled)  # the entry on disk is the truth
        finally:
            self._loading = False
        self._set_dirty(False)

    def _chosen_theme(self) -> str:
        return next(
            (value for value, button in self.theme_buttons.items() if button.isChecked()), "system"
        )

    async def save(self) -> bool:
        """Save the preferences; write or remove the autostart entry."""
        theme = self._chosen_theme()
        login = self.start_at_login.isChecked() and autostart.supported()
        try:
            if autostart.supported():
                await asyncio.to_thread(autostart.set_enabled, login)
        except OSError as exc:
            self.status.error(
                f"Start at login: cannot change {autostart.autostart_path()} "
                f"({exc.strerror or exc}). Nothing was saved."
            )
            return False
        try:
            changed = await update_prefs(
                self.services,
                appearance=theme,
                close_to_tray=self.close_to_tray.isChecked(),
                start_at_login=login,
                diff_display=next(
                    (v for v, b in self.diff_buttons.items() if b.isChecked()), "inline"
                ),
            )
        except (ChangeError, OSError) as exc:
            self.status.error(f"Not saved: {exc}")
            return False
        self._set_dirty(False)
        self.status.ok("Saved.")
        if "appearance" in changed:
            self.appearanceChanged.emit(theme)
        self.prefsChanged.emit()
        self.saved.emit()
        return True
