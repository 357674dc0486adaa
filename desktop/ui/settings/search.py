"""Search over every setting (Ctrl+F in the Settings tab): find a field by its label or help
text on any page, every channel's and every provider's included (fields under a closed
"Advanced" too), and jump to it.

The index has three parts:

- the fields of the tab's own pages, read from the built widgets (a form row's label, a check
  box's words, else the accessible name; the tooltip and description as help);
- every channel's fields, from the config schema (titles and descriptions, the same words the
  channel form shows), without building the forms;
- every provider's fields (key or sign-in, API base, headers, a section's own fields, test
  and models), with the "how to get a key" paragraph as help.

Every label, place and help text is indexed as the window shows it (translated), so a search
in the window's language finds it.

Jumping shows the page (and the channel or provider), opens the closed sections around the
field, scrolls it into view, focuses it and outlines it for a moment.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config import secret_fields
from desktop.core.config.provider_registry import PROVIDERS
from desktop.ui.i18n import tr
from desktop.ui.settings.channel_form import ChannelForm, channel_title, field_label, has_control
from desktop.ui.settings.channel_guides import guide_for, section_of
from desktop.ui.settings.guided import Collapsible, EmojiField
from desktop.ui.settings.key_field import KeyField
from desktop.ui.settings.provider_extras import extra_fields
from desktop.ui.settings.provider_guides import endpoint_is_essential
from desktop.ui.settings.provider_guides import guide_for as provider_guide
from desktop.ui.settings.sections import SECTIONS

if TYPE_CHECKING:
    from desktop.ui.settings.settings_tab import SettingsTab

INPUTS = (QLineEdit, QPlainTextEdit, QAbstractSpinBox, QComboBox, QCheckBox)
"""The widgets that count as a setting's field on the tab's own pages."""
HIGHLIGHT_MS = 1600
MAX_RESULTS = 60


@dataclass(frozen=True)
class Entry:
    """One setting the search can find.

    Attributes:
        label: The field's label.
        where: The page (and channel or provider, and part) it is on.
        help: Its help text.
        locate: Shows its page and returns the field (``None``: gone).
    """

    label: str
    where: str
    help: str
    locate: Callable[[SettingsTab], QWidget | None]

    def score(self, words: list[str]) -> int | None:
        """How well the entry matches ``words`` (lower case): ``None`` when one is missing;
        lower is better (label first, then place, then help)."""
        label, where, text = self.label.lower(), self.where.lower(), self.help.lower()
        if not all(w in label or w in where or w in text for w in words):
            return None
        if label.startswith(" ".join(words)):
            return 0
        if all(w in label for w in words):
            return 1
        if all(w in label or w in where for w in words):
            return 2
        return 3


def find(entries: list[Entry], query: str) -> list[Entry]:
    """The entries matching every word of ``query``, best first."""
    words = query.lower().split()
    if not words:
        return []
    scored = [(s, i, e) for i, e in enumerate(entries) if (s := e.score(words)) is not None]
    return [e for _s, _i, e in sorted(scored, key=lambda t: (t[0], t[1]))][:MAX_RESULTS]


# -- the index ---------------------------------------------------------------------------------
def build_index(tab: SettingsTab) -> list[Entry]:
    """Every setting of the tab (builds the pages not built yet)."""
    entries: list[Entry] = []
    for section, (title, _module, _cls) in SECTIONS.items():
        entries.extend(_page_entries(tab, section, tr(title)))
    entries.extend(_provider_entries())
    entries.extend(_channel_entries(tab))
    return entries


def _page_entries(tab: SettingsTab, section: str, title: str) -> list[Entry]:
    """The fields of a page's own widgets (channel forms and provider panels excluded)."""
    from desktop.ui.settings.provider_panel import ProviderPanel

    page = tab.page(section)
    labels = _form_labels(page)
    entries = []
    for widget in page.findChildren(QWidget):
        if not isinstance(widget, INPUTS) or isinstance(widget.parentWidget(), INPUTS):
            continue  # a spin box's or combo box's own line edit
        if _inside(widget, (ChannelForm, ProviderPanel)) or not _reachable(widget, page):
            continue
        label = labels.get(widget) or (widget.text() if isinstance(widget, QCheckBox) else "")
        label = (label or widget.accessibleName()).strip().rstrip(":")
        if not label:
            continue
        extra = [widget.toolTip(), widget.accessibleDescription(), widget.accessibleName()]
        entries.append(
            Entry(
                label,
                title,
                " ".join(t for t in extra if t and t != label),
                functools.partial(_shown, section=section, widget=widget),
            )
        )
    return entries


def _shown(tab: SettingsTab, *, section: str, widget: QWidget) -> QWidget:
    tab.show_section(section)
    return widget


def _form_labels(page: QWidget) -> dict[QWidget, str]:
    """Each input inside a form row, with the row's label."""
    found: dict[QWidget, str] = {}
    for form in page.findChildren(QFormLayout):
        for row in range(form.rowCount()):
            label_item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            field_item = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
            label = label_item.widget() if label_item is not None else None
            if not isinstance(label, QLabel) or not label.text() or field_item is None:
                continue
            for widget in _widgets_of(field_item.widget(), field_item.layout()):
                for inner in [widget, *widget.findChildren(QWidget)]:
                    if isinstance(inner, INPUTS):
                        found.setdefault(inner, label.text())
    return found


def _widgets_of(widget: QWidget | None, layout: QLayout | None) -> list[QWidget]:
    if widget is not None:
        return [widget]
    found: list[QWidget] = []
    if layout is not None:
        for index in range(layout.count()):
            item = layout.itemAt(index)
            if item is not None:
                found.extend(_widgets_of(item.widget(), item.layout()))
    return found


def _inside(widget: QWidget, kinds: tuple[type[QWidget], ...]) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parentWidget()
    return False


def _reachable(widget: QWidget, page: QWidget) -> bool:
    """Shown on its page, or hidden only by closed sections (which a jump opens)."""
    current: QWidget | None = widget
    while current is not None and current is not page:
        parent = current.parentWidget()
        if current.isHidden() and not (isinstance(parent, Collapsible) and current is parent.body):
            return False
        current = parent
    return current is page


def _place(*parts: str) -> str:
    """Where a setting is, as the search shows it (``Channels › Telegram › Advanced``)."""
    return " › ".join(part for part in parts if part)


def _provider_entries() -> list[Entry]:
    entries = []
    for spec in PROVIDERS:
        where = _place(tr("Providers"), spec.display_name)
        advanced = _place(where, tr("Advanced"))
        how_to = tr(provider_guide(spec).how_to) if provider_guide(spec).how_to else ""

        def add(label: str, place: str, text: str, attr: str, name: str = spec.name) -> None:
            entries.append(Entry(label, place, text, lambda tab: _provider_field(tab, name, attr)))

        if spec.oauth:
            add(tr("Account"), where, " ".join((tr("Sign in."), how_to)).strip(), "sign_in")
        else:
            add(tr("API key"), where, how_to, "key")
        base_place = where if endpoint_is_essential(spec) else advanced
        add(
            tr("API base"),
            base_place,
            tr("The address requests go to (endpoint, URL)."),
            "api_base",
        )
        add(tr("Extra headers"), advanced, tr("HTTP headers sent with every request."), "headers")
        for field, label, tip in extra_fields(spec):
            add(tr(label), advanced, tr(tip) if tip else "", f"extras.{field}")
        if not spec.transcription_only:
            add(
                tr("Test with model"),
                where,
                tr("Test connection: one tiny real request."),
                "test_model",
            )
            add(tr("Models"), where, tr("Fetch models: the provider's model list."), "fetch_button")
    return entries


def _provider_field(tab: SettingsTab, name: str, attr: str) -> QWidget | None:
    from desktop.ui.settings.providers_page import ProvidersPage

    tab.show_section(f"providers/{name}")
    page = tab.page("providers")
    assert isinstance(page, ProvidersPage)
    panel = page.panel(name)
    if attr.startswith("extras."):
        return panel.extras.fields.get(attr.removeprefix("extras."))
    found = getattr(panel, attr, None)
    return found if isinstance(found, QWidget) else None


def _channel_entries(tab: SettingsTab) -> list[Entry]:
    entries = []
    for name in secret_fields.channel_names():
        model = type(getattr(tab.services.config.channels, name))
        guide = guide_for(name)
        title = channel_title(name)
        for field, info in model.model_fields.items():
            if not has_control(model, field):
                continue
            part = {
                "essentials": "",
                "access": tr("Who may talk to the agent"),
                "advanced": tr("Advanced"),
            }[section_of(guide, field)]
            help_text = tr(info.description) if info.description else ""
            if section_of(guide, field) == "essentials" and guide.how_to:
                help_text = " ".join((help_text, tr(guide.how_to))).strip()
            entries.append(
                Entry(
                    tr(info.title or field_label(field)),
                    _place(tr("Channels"), title, part),
                    help_text,
                    functools.partial(_channel_field, name=name, field=field),
                )
            )
    return entries


def _channel_field(tab: SettingsTab, *, name: str, field: str) -> QWidget | None:
    from desktop.ui.settings.channels_page import ChannelsPage

    tab.show_section(f"channels/{name}")
    page = tab.page("channels")
    assert isinstance(page, ChannelsPage)
    form = page.form(name)
    return form.keys.get(field) or form.controls.get(field)


# -- jumping -----------------------------------------------------------------------------------
def focus_target(widget: QWidget) -> QWidget:
    """What takes the keyboard for a field: a key box's edit, an emoji field's edit, or the
    first focusable widget inside a box."""
    if isinstance(widget, KeyField | EmojiField):
        return widget.edit
    if widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
        return widget
    for inner in widget.findChildren(QWidget):
        if inner.focusPolicy() & Qt.FocusPolicy.TabFocus and not inner.isHidden():
            return inner
    return widget


def reveal(widget: QWidget) -> None:
    """Open the closed sections around ``widget`` and scroll every scroll area to it."""
    chain: list[QWidget] = []
    parent = widget.parentWidget()
    while parent is not None:
        chain.append(parent)
        if isinstance(parent, Collapsible) and not parent.is_open:
            parent.set_open(True)
        parent = parent.parentWidget()
    for ancestor in chain:  # lay out what just opened before measuring where it is
        layout = ancestor.layout()
        if layout is not None:
            layout.activate()
    for ancestor in chain:
        if isinstance(ancestor, QScrollArea):
            ancestor.ensureWidgetVisible(widget, 20, 40)


class SettingsSearch(QWidget):
    """The search box and its results (shown in the sidebar instead of the sections).

    Args:
        tab: The Settings tab searched.
        parent: Parent widget.

    Signals:
        searching(bool): results are shown (``True``) or the box was emptied.
    """

    searching = Signal(bool)

    def __init__(self, tab: SettingsTab, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tab = tab
        self.entries: list[Entry] | None = None
        self.found: list[Entry] = []  # the results shown, in order
        self.field = QLineEdit()
        self.field.setPlaceholderText(tr("Search settings (Ctrl+F)"))
        self.field.setAccessibleName(tr("Search settings"))
        self.field.setClearButtonEnabled(True)
        self.results = QListWidget()
        self.results.setAccessibleName(tr("Settings found"))
        self.results.setFrameShape(QFrame.Shape.NoFrame)
        self.results.setWordWrap(True)
        self.results.setAlternatingRowColors(True)  # where one result ends and the next begins
        self.results.setSpacing(1)
        self.results.hide()
        self.none_found = QLabel(tr("No setting matches."))
        self.none_found.setWordWrap(True)
        self.none_found.setAccessibleName(tr("Search result"))
        self.none_found.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(4)
        layout.addWidget(self.field)
        layout.addWidget(self.none_found)
        layout.addWidget(self.results, 1)
        self.field.textChanged.connect(self._search)
        self.field.installEventFilter(self)
        self.results.itemActivated.connect(self._activated)
        self.flash: QFrame | None = None
        self.flash_timer = QTimer(self)
        self.flash_timer.setSingleShot(True)
        self.flash_timer.setInterval(HIGHLIGHT_MS)
        self.flash_timer.timeout.connect(self._unflash)

    def start(self) -> None:
        """Focus the box with its text selected (Ctrl+F)."""
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def _search(self, text: str) -> None:
        self.results.clear()
        self.found = []
        active = bool(text.strip())
        if active and self.entries is None:
            self.entries = build_index(self.tab)
        if not active:
            self.entries = None  # built again next time: pages may have changed
        for entry in find(self.entries or [], text):
            item = QListWidgetItem(f"{entry.label}\n{entry.where}")
            item.setToolTip(entry.help)
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{entry.label}, {entry.where}")
            item.setData(Qt.ItemDataRole.UserRole, len(self.found))
            self.found.append(entry)
            self.results.addItem(item)
        if self.results.count():
            self.results.setCurrentRow(0)
        self.results.setVisible(active and self.results.count() > 0)
        self.none_found.setVisible(active and self.results.count() == 0)
        self.searching.emit(active)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """In the box: Down/Up move through the results, Return jumps, Escape empties."""
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up) and self.results.count():
                step = 1 if key == Qt.Key.Key_Down else -1
                row = max(0, min(self.results.count() - 1, self.results.currentRow() + step))
                self.results.setCurrentRow(row)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                item = self.results.currentItem()
                if item is not None:
                    self._activated(item)
                return True
            if key == Qt.Key.Key_Escape and self.field.text():
                self.field.clear()
                return True
        return super().eventFilter(watched, event)

    def _activated(self, item: QListWidgetItem) -> None:
        index = item.data(Qt.ItemDataRole.UserRole)
        if isinstance(index, int) and 0 <= index < len(self.found):
            self.jump(self.found[index])

    def jump(self, entry: Entry) -> QWidget | None:
        """Show ``entry``'s field: its page, open sections, in view, focused and outlined."""
        widget = entry.locate(self.tab)
        if widget is None:
            return None
        reveal(widget)
        target = focus_target(widget)
        target.setFocus(Qt.FocusReason.OtherFocusReason)
        self._outline(widget)
        return target

    def _outline(self, widget: QWidget) -> None:
        """A frame around ``widget`` for a moment (it takes no clicks)."""
        self._unflash()
        flash = QFrame(widget)
        flash.setObjectName("searchFlash")
        flash.setAccessibleName(tr("Found setting"))
        flash.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        colour = self.palette().highlight().color().name()
        flash.setStyleSheet(
            f"#searchFlash {{ border: 2px solid {colour}; border-radius: 4px; "
            "background: transparent; }"
        )
        flash.setGeometry(widget.rect())
        flash.show()
        flash.raise_()
        self.flash = flash
        self.flash_timer.start()

    def _unflash(self) -> None:
        self.flash_timer.stop()
        if self.flash is not None and shiboken6.isValid(self.flash):
            self.flash.hide()
            self.flash.deleteLater()
            self.flash = None
