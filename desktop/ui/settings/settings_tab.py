"""The Settings tab: a sidebar of pages; every change saved atomically, keys in the keyring."""

from __future__ import annotations

import asyncio
import importlib
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.errors import ConfigError
from desktop.ui.i18n import localized, tr
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.search import SettingsSearch
from desktop.ui.settings.sections import ALIASES
from desktop.ui.settings.sections import SECTIONS as SECTIONS
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus

if TYPE_CHECKING:
    from desktop.ui.services import AppServices

log = logging.getLogger(__name__)


class SettingsTab(OwnsTasks, QWidget):
    """All settings, one page per section.

    Args:
        services: The shared services (config, secrets, agent once ready).
        parent: Parent widget.

    Signals:
        appearanceChanged(str): ``system``, ``light`` or ``dark`` was saved (apply the theme).
        prefsChanged(): a desktop preference (tray, approval mode, start at login) was saved.
        keyChanged(str): a provider key was stored or deleted (registry name): a provider
            built with the old key should be rebuilt. Config changes (model, provider, API
            base…) arrive as ``services.configChanged``.
        setupRequested(): the first-run setup assistant was asked for (Providers page).
    """

    appearanceChanged = Signal(str)
    prefsChanged = Signal()
    keyChanged = Signal(str)
    setupRequested = Signal()

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.setAccessibleName(tr("Settings"))
        self.pages: dict[str, SettingsPage] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        self.banner = QFrame()
        self.banner.setFrameShape(QFrame.Shape.StyledPanel)
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.setContentsMargins(12, 6, 12, 6)
        self.banner_text = InlineStatus(accessible=tr("Config file problem"))
        self.recheck = QPushButton(tr("Check again"))
        self.recheck.setAccessibleName(tr("Check the config file again"))
        self.recheck.clicked.connect(lambda: self.spawn(self.check_config_file(), "config-check"))
        banner_layout.addWidget(self.banner_text, 1)
        banner_layout.addWidget(self.recheck)
        self.banner.hide()
        outer.addWidget(self.banner)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.sidebar = QListWidget()
        self.sidebar.setAccessibleName(tr("Settings sections"))
        self.sidebar.setFrameShape(QFrame.Shape.NoFrame)
        self.sidebar.setSpacing(2)
        for name, (label, _module, _cls) in SECTIONS.items():
            item = QListWidgetItem(tr(label))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setSizeHint(QSize(160, self.sidebar.fontMetrics().height() + 14))
            self.sidebar.addItem(item)
        self.stack = QStackedWidget()
        side = QWidget()
        side.setFixedWidth(200)
        side_column = QVBoxLayout(side)
        side_column.setContentsMargins(0, 0, 0, 0)
        side_column.setSpacing(0)
        self.search = SettingsSearch(self)
        self.search.searching.connect(lambda active: self.sidebar.setVisible(not active))
        side_column.addWidget(self.search, 0)
        side_column.addWidget(self.sidebar, 1)
        self.sidebar.setFixedWidth(200)
        find = QShortcut(QKeySequence.StandardKey.Find, self)
        find.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        find.activated.connect(self.search.start)
        row.addWidget(side)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.VLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        row.addWidget(line)
        row.addWidget(self.stack, 1)
        outer.addLayout(row, 1)
        # The first section is selected, but its page is built when the tab is first shown:
        # a window that starts on another tab loads none of it (the Providers page brings the
        # HTTP and sign-in stacks).
        self.sidebar.setCurrentRow(0)
        self.sidebar.currentRowChanged.connect(self._show_row)
        services.configChanged.connect(self._config_changed)
        self.spawn(self.check_config_file(), "config-check")

    # -- navigation --------------------------------------------------------------------------
    @Slot(str)
    def show_section(self, name: str) -> None:
        """Show section ``name`` (``providers``, ``agent``, ``tools``, ``mcp``, ``channels``,
        ``dream``, ``automations`` (or its old name ``reminders``), ``appearance``). ``providers/openai`` (or ``providers:openai``) also
        selects that provider; ``channels/telegram`` that channel."""
        section, _, detail = name.replace(":", "/").partition("/")
        section = ALIASES.get(section, section)
        if section not in SECTIONS:
            log.warning("unknown settings section %r", name)
            return
        self.sidebar.setCurrentRow(list(SECTIONS).index(section))
        page = self.page(section)
        if detail:
            for method in ("show_provider", "show_channel", "show_server"):
                if hasattr(page, method):
                    getattr(page, method)(detail)
                    break

    def page(self, section: str) -> SettingsPage:
        """The page of ``section`` (built on first use)."""
        if section not in self.pages:
            _label, module_name, class_name = SECTIONS[section]
            cls = getattr(importlib.import_module(module_name), class_name)
            page: SettingsPage = cls(self.services)
            page.configError.connect(self._show_config_error)
            if hasattr(page, "appearanceChanged"):
                page.appearanceChanged.connect(self.appearanceChanged)
            if hasattr(page, "prefsChanged"):
                page.prefsChanged.connect(self.prefsChanged)
            if hasattr(page, "keyChanged"):
                page.keyChanged.connect(self.keyChanged)
            if hasattr(page, "setupRequested"):
                page.setupRequested.connect(self.setupRequested)
            self.adopt(page)
            self.pages[section] = page
            self.stack.addWidget(page)
            page.reload()
        return self.pages[section]

    def current_section(self) -> str:
        """The name of the section shown."""
        row = self.sidebar.currentRow()
        return list(SECTIONS)[row] if 0 <= row < len(SECTIONS) else ""

    def _show_row(self, row: int) -> None:
        if 0 <= row < len(SECTIONS):
            self.stack.setCurrentWidget(self.page(list(SECTIONS)[row]))

    def showEvent(self, event: QShowEvent) -> None:
        """Build the selected section's page the first time the tab is shown."""
        if self.stack.currentWidget() is None:
            self._show_row(self.sidebar.currentRow())
        super().showEvent(event)

    # -- config file health -------------------------------------------------------------------
    def _config_changed(self) -> None:
        """Another page (or another part of the app) saved: refresh pages without edits."""
        self.banner.hide()
        for page in self.pages.values():
            if not page.dirty:
                page.reload()

    def _show_config_error(self, message: str) -> None:
        self.banner_text.error(
            tr(
                "The config file cannot be read: {error}. Settings are not saved until it is "
                "fixed (nanobot Desktop never overwrites it)."
            ).format(error=message)
        )
        self.banner.show()

    async def check_config_file(self) -> bool:
        """Check that the config file on disk can be read; show a banner when not."""
        from desktop.core.config.loader import read_json_object

        path = self.services.config_path
        try:
            exists = await asyncio.to_thread(path.exists)
            if exists:
                await asyncio.to_thread(read_json_object, path)
        except ConfigError as exc:
            self._show_config_error(localized(exc))
            return False
        self.banner.hide()
        return True

    # -- shutdown ----------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Cancel and await every task of the tab, its pages and the widgets inside them, and
        stop what pages own (MCP test connections)."""
        self.cancel_tasks()  # everything below the tab's owner stops at once
        for page in self.pages.values():
            try:
                await page.aclose()
            except Exception:
                log.exception("closing the %s page failed", page.section)
        await self.tasks.aclose()

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel running tasks, the pages' too (call :meth:`aclose` on shutdown to stop MCP
        children as well)."""
        self.cancel_tasks()
        super().closeEvent(event)
