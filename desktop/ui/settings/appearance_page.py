"""Appearance and start-up: theme, close to tray, start at login (desktop preferences)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QCheckBox, QComboBox, QRadioButton, QWidget

from desktop.core.config.edit import ChangeError
from desktop.ui.chat.diff_view import DIFF_LABELS
from desktop.ui.i18n import LANGUAGES, QT_TR_NOOP, tr
from desktop.ui.settings import autostart
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.prefs_access import prefs_store, update_prefs
from desktop.ui.settings.widgets import heading, hint

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

THEMES = (
    ("system", QT_TR_NOOP("Follow the system")),
    ("light", QT_TR_NOOP("Light")),
    ("dark", QT_TR_NOOP("Dark")),
)


class AppearancePage(SettingsPage):
    """Theme, language, how file changes show in the chat, close-to-tray and start-at-login;
    stored in ``desktop.json``, not config.json.

    Signals:
        appearanceChanged(str): the saved theme (``system``, ``light`` or ``dark``).
        prefsChanged(): preferences were saved.
    """

    appearanceChanged = Signal(str)
    prefsChanged = Signal()

    section = "appearance"
    title = QT_TR_NOOP("Appearance & startup")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            description=tr(
                "How the window looks and behaves. These settings "
                "belong to this app and are kept in desktop.json."
            ),
        )
        add = self.body_layout.addWidget
        add(heading(tr("Theme"), level=2))
        self.theme = QButtonGroup(self)
        self.theme_buttons: dict[str, QRadioButton] = {}
        for value, name in THEMES:
            label = tr(name)
            button = QRadioButton(label)
            button.setAccessibleName(tr("Theme: {choice}").format(choice=label))
            self.theme.addButton(button)
            self.theme_buttons[value] = button
            add(button)
        add(heading(tr("Language"), level=2))
        self.language = QComboBox()
        self.language.setAccessibleName(tr("Language"))
        for code, name in LANGUAGES.items():
            self.language.addItem(tr(name) if code == "system" else name, code)
        add(self.language)
        self.language_hint = hint(tr("The window shows the new language from the next start."))
        add(self.language_hint)
        add(heading(tr("Chat"), level=2))
        add(hint(tr("Show file changes as:")))
        self.diff_display = QButtonGroup(self)
        self.diff_buttons: dict[str, QRadioButton] = {}
        for value, name in DIFF_LABELS.items():
            label = tr(name)
            button = QRadioButton(label)
            button.setAccessibleName(tr("Show file changes as: {choice}").format(choice=label))
            self.diff_display.addButton(button)
            self.diff_buttons[value] = button
            add(button)
        add(heading(tr("Window"), level=2))
        self.close_to_tray = QCheckBox(
            tr("Closing the window keeps nanobot running in the system tray")
        )
        self.close_to_tray.setAccessibleName(tr("Close to tray"))
        add(self.close_to_tray)
        add(hint(tr("Only where a system tray exists; otherwise closing the window quits.")))
        self.start_at_login = QCheckBox(tr("Start nanobot Desktop when I log in"))
        self.start_at_login.setAccessibleName(tr("Start at login"))
        add(self.start_at_login)
        self.login_hint = hint("")
        add(self.login_hint)
        if not autostart.supported():
            self.start_at_login.setEnabled(False)
            self.login_hint.setText(tr(autostart.unsupported_reason()))
        else:
            self.login_hint.setText(
                tr("Adds {path} (removed again when unticked).").format(
                    path=autostart.autostart_path()
                )
            )
        self.body_layout.addStretch(1)
        self.watch(
            *self.theme_buttons.values(),
            *self.diff_buttons.values(),
            self.language,
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
            self.language.setCurrentIndex(max(0, self.language.findData(prefs.language)))
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
                tr("Start at login: cannot change {path} ({error}). Nothing was saved.").format(
                    path=autostart.autostart_path(), error=exc.strerror or exc
                )
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
                language=str(self.language.currentData() or "system"),
            )
        except (ChangeError, OSError) as exc:
            self.status.error(tr("Not saved: {error}").format(error=exc))
            return False
        self._set_dirty(False)
        if "language" in changed:
            self.status.ok(tr("Saved. The new language shows from the next start."))
        else:
            self.status.ok(tr("Saved."))
        if "appearance" in changed:
            self.appearanceChanged.emit(theme)
        self.prefsChanged.emit()
        self.saved.emit()
        return True
