"""The model picker in the chat header: this chat's model, recent models, any other model.

Picking emits :attr:`ModelPicker.modelChosen` (model, provider); the chat tab gives the shown
chat that model (its own model, kept in the chat: :mod:`desktop.core.providers.chat_model`).
The default model — the one every chat without a model of its own uses, as in Settings →
Providers — changes only through "Make … the default for new chats" here, or in Settings.
"Other model…" opens a small inline form (provider + model name, with the provider's model
list fetched in the background when it offers one) — no dialog, no nested event loop. The
config's model presets (``modelPresets``) are listed too: picking one emits
:attr:`ModelPicker.presetChosen` and puts the shown chat on it (``""``: back to its model); a
chat is on a preset or on a model of its own, never both.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QWidget,
)

from desktop.core.config.provider_registry import PROVIDERS, find_by_name
from desktop.ui.i18n import tr

log = logging.getLogger(__name__)
AUTO = "auto"
RECENT = 6
MODEL_CHARS = 36
Fetch = Callable[[str], Coroutine[Any, Any, list[str]]]


def short_model(model: str, limit: int = MODEL_CHARS) -> str:
    """A model name for the header button (``…`` in the middle when long)."""
    if len(model) <= limit:
        return model
    half = (limit - 1) // 2
    return model[:half] + "…" + model[-(limit - 1 - half) :]


def provider_label(name: str) -> str:
    """``Auto`` or the provider's display name."""
    if not name or name == AUTO:
        return tr("Auto")
    spec = find_by_name(name)
    return spec.display_name if spec else name


def remember(recent: list[dict[str, str]], model: str, provider: str) -> list[dict[str, str]]:
    """``recent`` with (model, provider) moved to the front, at most :data:`RECENT` long."""
    entry = {"model": model, "provider": provider or AUTO}
    rest = [r for r in recent if (r.get("model"), r.get("provider")) != (model, entry["provider"])]
    return [entry, *rest][:RECENT]


class OtherModelForm(QFrame):
    """Provider and model name, inline under the header.

    Signals:
        chosen(str, str): use this model (name, provider).
    """

    chosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("otherModel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(tr("Choose another model"))
        self.fetch: Fetch | None = None
        self.spawn: Callable[[Coroutine[Any, Any, Any]], Any] | None = None
        self.provider = QComboBox(self)
        self.provider.setAccessibleName(tr("Provider"))
        self.provider.addItem(tr("Auto (from the model name)"), AUTO)
        for spec in (s for s in PROVIDERS if s.chats):  # not the transcription-only ones
            self.provider.addItem(spec.display_name, spec.name)
        self.model = QComboBox(self)
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.setAccessibleName(tr("Model name"))
        self.model.setMinimumWidth(140)
        self.provider.setMinimumContentsLength(10)
        self.provider.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        edit = self.model.lineEdit()
        assert edit is not None  # the combo box is editable
        edit.setPlaceholderText(tr("model name"))
        edit.returnPressed.connect(self._use)
        self.use = QPushButton(tr("Use"), self)
        self.use.setAccessibleName(tr("Use this model"))
        self.use.clicked.connect(self._use)
        self.cancel = QPushButton(tr("Cancel"), self)
        self.cancel.clicked.connect(self.hide)
        self.note = QLabel(self)
        self.note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        layout = QGridLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(QLabel(tr("Provider"), self), 0, 0)
        layout.addWidget(self.provider, 0, 1)
        layout.addWidget(QLabel(tr("Model"), self), 0, 2)
        layout.addWidget(self.model, 0, 3, 1, 3)
        layout.addWidget(self.note, 1, 1, 1, 3)
        layout.addWidget(self.use, 1, 4)
        layout.addWidget(self.cancel, 1, 5)
        layout.setColumnStretch(3, 1)
        self.provider.currentIndexChanged.connect(lambda _i: self._refetch())
        self.hide()

    def open(self, model: str, provider: str) -> None:
        """Show the form with ``model`` / ``provider`` filled in, the cursor in the name."""
        index = self.provider.findData(provider or AUTO)
        self.provider.setCurrentIndex(max(index, 0))
        self.model.setEditText(model)
        self.show()
        self.model.setFocus(Qt.FocusReason.OtherFocusReason)
        edit = self.model.lineEdit()
        assert edit is not None  # the combo box is editable
        edit.selectAll()
        self._refetch()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc closes the form."""
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)

    def _refetch(self) -> None:
        if self.fetch is None or self.spawn is None or not self.isVisible():
            return
        self.spawn(self._fill(str(self.provider.currentData() or AUTO)))

    async def _fill(self, provider: str) -> None:
        assert self.fetch is not None
        self.note.setText(tr("listing models…"))
        try:
            models = await self.fetch(provider)
        except Exception:  # a listing is a convenience: typing the name always works
            log.debug("listing models of %s failed", provider, exc_info=True)
            models = []
        if str(self.provider.currentData() or AUTO) != provider:
            return  # the person picked another provider meanwhile
        typed = self.model.currentText()
        self.model.clear()
        self.model.addItems(models)
        self.model.setEditText(typed)
        self.note.setText(tr("{count} listed").format(count=len(models)) if models else "")

    def _use(self) -> None:
        model = self.model.currentText().strip()
        if not model or any(ch.isspace() for ch in model):
            self.note.setText(tr("enter a model name"))
            return
        self.hide()
        self.chosen.emit(model, str(self.provider.currentData() or AUTO))


class ModelPicker(QToolButton):
    """Shows the shown chat's model; its menu chooses the model of this chat.

    Signals:
        modelChosen(str, str): use this model in this chat (name, provider: ``auto`` or a
            registry name).
        otherRequested(): "Other model…" was chosen.
        defaultRequested(): make this chat's model the default for new chats.
        followDefaultRequested(): this chat goes back to the default model.
        settingsRequested(): open the default model's settings.
        presetChosen(str): put the shown chat on this model preset (``""``: on none).
    """

    modelChosen = Signal(str, str)
    otherRequested = Signal()
    defaultRequested = Signal()
    followDefaultRequested = Signal()
    settingsRequested = Signal()
    presetChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(tr("Model"))
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setAutoRaise(True)
        self.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        self.model = ""
        self.provider = AUTO
        self.own = False
        self.default = ("", AUTO)
        self.recent: list[dict[str, str]] = []
        self.presets: list[tuple[str, str]] = []  # (name, model) of the config's presets
        self.preset = ""  # the preset the shown chat is on
        self.busy = False
        self._width = 0
        self._menu = QMenu(self)
        self._menu.aboutToShow.connect(self._fill)
        self.setMenu(self._menu)
        self.set_model("", AUTO)

    def set_model(
        self,
        model: str,
        provider: str,
        *,
        via: str = "",
        own: bool = False,
        default: tuple[str, str] | None = None,
    ) -> None:
        """Show ``model`` (served by ``via``, a display name, when known).

        ``own``: the chat has it as its own model; ``default``: the default model (model,
        provider), which chats without their own model use.
        """
        self.model, self.provider = model, provider or AUTO
        self.own = own
        self.default = default or (model, self.provider)
        self._label()

        def served(name: str) -> str:
            return tr("{model} via {provider}").format(model=name, provider=via) if via else name

        if own:
            tip = tr(
                "This chat uses {model} (its own model). New chats use the default, "
                "{default}. Click to change this chat's model."
            ).format(model=served(model), default=self.default[0])
            about = tr("{model}, this chat's own model")
        else:
            tip = tr(
                "This chat uses the default model, {model}. "
                "Click to choose another model for this chat."
            ).format(model=served(model or tr("none")))
            about = tr("{model}, the default model")
        self.setToolTip(tip)
        self.setAccessibleDescription(about.format(model=served(model)))

    def fit(self, width: int) -> None:
        """Show the model name shortened (in the middle) to fit ``width`` pixels."""
        self._width = max(0, width)
        self.setMaximumWidth(width)
        self._label()

    def set_preset(self, name: str) -> None:
        """Show that the shown chat is on preset ``name`` (``""``: on none)."""
        self.preset = name
        self._label()
        if name:
            model = dict(self.presets).get(name, "")
            self.setToolTip(
                tr("This chat uses the preset {name} ({model}). Click to switch.").format(
                    name=name, model=model
                )
            )
            self.setAccessibleDescription(
                tr("preset {name}, {model}").format(name=name, model=model)
            )

    def _label(self) -> None:
        model = dict(self.presets).get(self.preset, "") if self.preset else ""
        text = f"{self.preset} · {short_model(model)}" if model else ""
        text = text or short_model(self.model) or tr("No model")
        if self._width:
            metrics = self.fontMetrics()
            room = self._width - metrics.horizontalAdvance(" ▾") - 16
            text = metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, max(20, room))
        self.setText(f"{text} ▾")

    def set_busy(self, busy: bool, text: str = "") -> None:
        """While switching: show ``text`` and refuse another pick."""
        self.busy = busy
        self.setEnabled(not busy)
        if busy and text:
            self.setText(text)
        elif not busy:
            self._label()

    def _fill(self) -> None:
        menu = self._menu
        menu.clear()
        entries = self.recent or [{"model": self.model, "provider": self.provider}]
        if entries:
            menu.addSection(tr("Model for this chat"))
        for entry in entries:
            model, provider = entry.get("model", ""), entry.get("provider", AUTO)
            if not model:
                continue
            label = model if provider in ("", AUTO) else f"{model}  ·  {provider_label(provider)}"
            action = QAction(label, menu)
            action.setCheckable(True)
            action.setChecked(model == self.model and provider == self.provider)
            action.triggered.connect(
                lambda _c=False, m=model, p=provider: self.modelChosen.emit(m, p)
            )
            menu.addAction(action)
        menu.addAction(tr("Other model…"), self.otherRequested.emit)
        menu.addSeparator()
        default = short_model(self.default[0])
        if self.own:
            menu.addAction(
                tr("Use the default model ({model})").format(model=default),
                self.followDefaultRequested.emit,
            )
            menu.addAction(
                tr("Make {model} the default for new chats").format(model=short_model(self.model)),
                self.defaultRequested.emit,
            )
        menu.addAction(tr("Default model settings…"), self.settingsRequested.emit)
        self._fill_presets(menu)

    def _fill_presets(self, menu: QMenu) -> None:
        """The config's model presets, for the shown chat."""
        if not self.presets:
            return
        menu.addSection(tr("Presets for this chat"))
        for name, model in self.presets:
            action = QAction(f"{name}  ·  {short_model(model)}", menu)
            action.setCheckable(True)
            action.setChecked(name == self.preset)
            action.setToolTip(
                tr("Answer this chat with the preset {name} ({model})").format(
                    name=name, model=model
                )
            )
            action.triggered.connect(lambda _c=False, n=name: self.presetChosen.emit(n))
            menu.addAction(action)
        if self.preset:
            menu.addAction(tr("No preset for this chat"), lambda: self.presetChosen.emit(""))
