"""The Providers page: the default model on top, then one page per provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStackedWidget,
    QWidget,
)

from desktop.core.config.provider_registry import PROVIDERS, find_by_name
from desktop.core.config.secrets import KeyringUnavailable
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.default_model import DefaultModelBox
from desktop.ui.settings.page import SettingsPage
from desktop.ui.settings.provider_panel import ProviderPanel

if TYPE_CHECKING:
    from desktop.ui.services import AppServices


class ProvidersPage(SettingsPage):
    """Default model, and per provider: key, endpoint, test, model list.

    Provider panels are built when first shown (each reads the keyring).

    Signals:
        keyChanged(str): a provider's key was stored or deleted (registry name).
        setupRequested(): open the first-run setup assistant again.
    """

    keyChanged = Signal(str)
    setupRequested = Signal()

    section = "providers"
    title = QT_TR_NOOP("Providers")

    def __init__(self, services: AppServices, parent: QWidget | None = None) -> None:
        super().__init__(
            services,
            parent,
            buttons=False,
            description=tr(
                "API keys are stored in the OS keyring, never in config.json. Pick a provider on the "
                "left to set its key and endpoint, test it, or fetch its models. ChatGPT (Codex), "
                "xAI Grok and GitHub Copilot are signed in to with your account instead of a key."
            ),
        )
        self.setup_button = QPushButton(tr("Set up with the assistant…"))
        self.setup_button.setAccessibleName(tr("Open the setup assistant"))
        self.setup_button.setToolTip(
            tr("The first-run steps again: provider, key and test, model, workspace")
        )
        self.setup_button.clicked.connect(self.setupRequested)
        setup_row = QHBoxLayout()
        setup_row.addStretch(1)
        setup_row.addWidget(self.setup_button)
        self.body_layout.addLayout(setup_row)
        self.default_model = self.adopt(DefaultModelBox(services))
        self.default_model.configError.connect(self.configError)
        self.default_model.saved.connect(self.saved)
        self.body_layout.addWidget(self.default_model)
        row = QHBoxLayout()
        row.setSpacing(8)
        self.list = QListWidget()
        self.list.setAccessibleName(tr("Providers"))
        self.list.setFixedWidth(200)
        for spec in PROVIDERS:
            item = QListWidgetItem(tr(spec.display_name))
            item.setData(Qt.ItemDataRole.UserRole, spec.name)
            self.list.addItem(item)
        self.stack = QStackedWidget()
        self.panels: dict[str, ProviderPanel] = {}
        row.addWidget(self.list)
        row.addWidget(self.stack, 1)
        self.body_layout.addLayout(row, 1)
        self.list.currentRowChanged.connect(self._show_row)
        self._marked = False
        self._auto_row = -1  # the row chosen for the person (not by them)

    def load(self) -> None:
        """Refresh the default model, the open panels and the key marks."""
        self.default_model.load()
        for panel in self.panels.values():
            panel.load()
        if self.list.currentRow() in (-1, self._auto_row):
            # Follow the default model's provider (a setup just made, say) until the person
            # picks a provider of their own.
            self._auto_row = self._initial_row()
            self.list.setCurrentRow(self._auto_row)
        self.spawn(self._mark_configured(), "provider-marks")

    def _initial_row(self) -> int:
        """The provider of the default model, else the first one."""
        forced = self.services.config.agents.defaults.provider
        names = [spec.name for spec in PROVIDERS]
        if forced in names:
            return names.index(forced)
        lowered = self.services.config.agents.defaults.model.lower()
        for index, spec in enumerate(PROVIDERS):
            if spec.keywords and any(k in lowered for k in spec.keywords):
                return index
        return 0

    def panel(self, name: str) -> ProviderPanel:
        """The panel of provider ``name`` (built on first use)."""
        if name not in self.panels:
            spec = find_by_name(name)
            if spec is None:
                raise KeyError(name)
            panel = self.adopt(ProviderPanel(self.services, spec))
            panel.modelsFetched.connect(self.default_model.suggest)
            panel.useModel.connect(self.default_model.choose)
            panel.keyChanged.connect(lambda: self.spawn(self._after_key_change(), "key-changed"))
            panel.keyChanged.connect(lambda n=name: self.keyChanged.emit(n))
            panel.configError.connect(self.configError)
            self.panels[name] = panel
            self.stack.addWidget(panel)
            panel.load()
        return self.panels[name]

    def show_provider(self, name: str) -> None:
        """Select provider ``name`` (registry name)."""
        spec = find_by_name(name)
        if spec is not None:
            self.list.setCurrentRow([s.name for s in PROVIDERS].index(spec.name))

    def _show_row(self, row: int) -> None:
        if 0 <= row < len(PROVIDERS):
            name = PROVIDERS[row].name
            fresh = name not in self.panels
            panel = self.panel(name)
            if not fresh:  # a key may have been stored (or a sign-in made) elsewhere
                panel.refresh_credentials()
            self.stack.setCurrentWidget(panel)

    async def _after_key_change(self) -> None:
        await self.default_model.describe_route()
        await self._mark_configured()

    async def _mark_configured(self) -> None:
        """Put a ✓ after providers that have a key (or, for local ones, an endpoint)."""
        config = self.services.config
        for row, spec in enumerate(PROVIDERS):
            try:
                key = await self.services.secrets.aresolve(spec.name, config)
                found = key.found
            except KeyringUnavailable:
                found = False
            section = config.provider_config(spec.name)
            ready = found or (not spec.needs_key and bool(section and section.api_base))
            item = self.list.item(row)
            if item is not None:
                name = tr(spec.display_name)
                item.setText(f"{name}  ✓" if ready else name)
                if spec.oauth:
                    item.setToolTip(tr("Signed in") if ready else tr("Not signed in"))
                else:
                    item.setToolTip(tr("Configured") if ready else tr("Not configured"))
