"""Step 1: pick a provider, or an OpenAI-compatible server by URL."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from desktop.core.config.provider_registry import PROVIDERS, find_by_name
from desktop.ui.i18n import QT_TR_NOOP, tr
from desktop.ui.settings.widgets import hint

# The ones most people look for first; the rest follow in registry order.
POPULAR = ("openai", "anthropic", "openrouter", "gemini", "deepseek")
LOCAL_LABELS = {  # marked; shown through tr()
    "custom": QT_TR_NOOP("Another OpenAI-compatible server (enter its URL)"),
    "ollama": QT_TR_NOOP("Ollama (on this computer)"),
    "lm_studio": QT_TR_NOOP("LM Studio (on this computer)"),
    "vllm": QT_TR_NOOP("vLLM server"),
}


class ProviderStep(QWidget):
    """A list of providers in two groups: cloud services, and servers you run.

    Signals:
        chosen(str): the selection changed (registry name).
        activated(str): a provider was double-clicked (go on).
    """

    chosen = Signal(str)
    activated = Signal(str)

    title = QT_TR_NOOP("Choose where your assistant's model runs")  # shown through tr()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(
            hint(
                tr(
                    "Pick the service you have an account with, or a model server you run "
                    "yourself. You can add more providers later in Settings."
                )
            )
        )
        self.list = QListWidget()
        self.list.setAccessibleName(tr("Providers"))
        self.list.setSpacing(2)
        cloud = list(POPULAR) + [
            s.name
            for s in PROVIDERS
            # OAuth providers are signed in to under Settings → Providers (no key to enter).
            if not s.is_local
            and not s.oauth
            and s.chats
            and not s.alias_for
            and s.name != "custom"
            and s.name not in POPULAR
        ]
        self._group(tr("Cloud services"))
        for name in cloud:
            spec = find_by_name(name)
            assert spec is not None
            self._add(name, spec.display_name)
        self._group(tr("Servers you run (no account needed)"))
        for name in ("ollama", "lm_studio", "vllm", "custom"):
            self._add(name, tr(LOCAL_LABELS[name]))
        layout.addWidget(self.list, 1)
        self.list.currentItemChanged.connect(self._changed)
        self.list.itemDoubleClicked.connect(self._activated)

    def _group(self, text: str) -> None:
        item = QListWidgetItem(text)
        item.setFlags(Qt.ItemFlag.NoItemFlags)
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        self.list.addItem(item)

    def _add(self, name: str, label: str) -> None:
        item = QListWidgetItem("    " + label)
        item.setData(Qt.ItemDataRole.UserRole, name)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, label)
        self.list.addItem(item)

    def selected(self) -> str:
        """The chosen registry name (``""`` when none)."""
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole) or "") if item is not None else ""

    def select(self, name: str) -> None:
        """Select provider ``name``."""
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(row)
                return

    def _changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        self.chosen.emit(
            str(current.data(Qt.ItemDataRole.UserRole) or "") if current is not None else ""
        )

    def _activated(self, item: QListWidgetItem) -> None:
        name = item.data(Qt.ItemDataRole.UserRole)
        if name:
            self.activated.emit(str(name))
