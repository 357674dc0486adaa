"""A key entry bound to the OS keyring: masked input, where the current key comes from, delete.

The input never gets narrower than its placeholder ("Paste a new key") needs in its own font,
at any scale (:class:`KeyEdit`); when the row is too narrow for the input and its buttons, the
buttons move to a line of their own instead of squeezing the input to "Pa…".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QCloseEvent, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyle,
    QStyleOptionFrame,
    QVBoxLayout,
    QWidget,
)

from desktop.core.config.secrets import KeyringUnavailable
from desktop.core.utils.redact import redact
from desktop.ui.i18n import QT_TR_NOOP, localized, tr
from desktop.ui.settings.tasks import OwnsTasks
from desktop.ui.settings.widgets import InlineStatus

# What a key field may hold (its ``noun``), marked for translation.
NOUNS: dict[str, str] = {
    "key": QT_TR_NOOP("key"),
    "password": QT_TR_NOOP("password"),
    "token": QT_TR_NOOP("token"),
    "secret": QT_TR_NOOP("secret"),
}


class StoredWithWarning(RuntimeError):
    """Raised by a backend's ``store`` when the key was stored but a follow-up step failed."""


@dataclass(frozen=True)
class KeySource:
    """What the field shows about the current key.

    Attributes:
        found: Whether a key is in effect.
        source: ``keyring``, ``session``, ``config``, ``config-ref``, ``env`` or ``none``.
        detail: Where it comes from, in words.
        masked: The key with all but its last characters hidden (or ``""``).
    """

    found: bool
    source: str
    detail: str
    masked: str = ""


@dataclass(frozen=True)
class KeyBackend:
    """How a :class:`KeyField` reads, stores and deletes its key (all coroutines).

    Attributes:
        resolve: Where the current key comes from.
        store: Store a new key in the keyring (may raise ``KeyringUnavailable``).
        delete: Remove the stored key; returns whether one existed.
        store_session: Hold a key for this session only (when no keyring works), or ``None``.
    """

    resolve: Callable[[], Awaitable[KeySource]]
    store: Callable[[str], Awaitable[None]]
    delete: Callable[[], Awaitable[bool]]
    store_session: Callable[[str], Awaitable[None]] | None = None


def readable_width(edit: QLineEdit, text: str = "") -> int:
    """The width ``edit`` needs to show ``text`` (default: its placeholder) whole, in its
    font: text, text margins, the frame and the clear button."""
    metrics = edit.fontMetrics()
    shown = text or edit.placeholderText()
    margins = edit.textMargins()
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    frame = edit.style().pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth, option, edit)
    clear = metrics.height() + 8 if edit.isClearButtonEnabled() else 0
    inner = metrics.horizontalAdvance(shown) + metrics.averageCharWidth() * 2
    return inner + margins.left() + margins.right() + 2 * frame + 8 + clear


class KeyEdit(QLineEdit):
    """A line edit whose minimum width shows its placeholder whole (in its font, at any
    scale)."""

    def minimumSizeHint(self) -> QSize:
        """At least as wide as the placeholder needs."""
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), readable_width(self)), hint.height())


class KeyField(OwnsTasks, QWidget):
    """Masked key input with Save / Delete and a line saying where the current key comes from.

    The typed text never leaves the widget except to the backend's ``store``; it is cleared
    once stored. :meth:`typed` lets a "Test" button try a key before it is saved.

    Args:
        backend: Reading, storing and deleting the key.
        label: What the key is for ("OpenAI API key"), used for accessible names.
        needs_key: ``False`` for servers that work without a key (says so when none is set).

    Signals:
        changed(): a key was stored or deleted.
    """

    changed = Signal()

    def __init__(
        self,
        backend: KeyBackend,
        *,
        label: str,
        needs_key: bool = True,
        noun: str = "key",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.backend = backend
        self.needs_key = needs_key
        self.noun = tr(NOUNS[noun]) if noun in NOUNS else noun
        noun = self.noun
        self.current: KeySource | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.source_label = QLabel(tr("Checking the keyring…"))
        self.source_label.setWordWrap(True)
        self.source_label.setAccessibleName(
            tr("{what}: where the current key comes from").format(what=label)
        )
        layout.addWidget(self.source_label)
        row = QHBoxLayout()
        self.edit = KeyEdit()
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setPlaceholderText(tr("Paste a new {noun}").format(noun=noun))
        self.edit.setAccessibleName(label)
        self.edit.setClearButtonEnabled(True)
        self.edit.returnPressed.connect(self._save_clicked)
        self.reveal = QPushButton(tr("Show"))
        self.reveal.setCheckable(True)
        self.reveal.setAccessibleName(tr("Show or hide the typed {what}").format(what=label))
        self.reveal.toggled.connect(self._toggle_reveal)
        self.save_button = QPushButton(tr("Save {noun}").format(noun=noun))
        self.save_button.setAccessibleName(tr("Save {what} in the keyring").format(what=label))
        self.save_button.clicked.connect(self._save_clicked)
        self.delete_button = QPushButton(tr("Delete"))
        self.delete_button.setAccessibleName(tr("Delete the stored {what}").format(what=label))
        self.delete_button.clicked.connect(self._delete_clicked)
        row.addWidget(self.edit, 1)
        row.addWidget(self.reveal)
        row.addWidget(self.save_button)
        row.addWidget(self.delete_button)
        layout.addLayout(row)
        self._row = row
        self._below = QHBoxLayout()  # the buttons, when the row is too narrow for them
        layout.addLayout(self._below)
        self._wrapped = False
        self.status = InlineStatus(accessible=tr("{what} status").format(what=label))
        layout.addWidget(self.status)
        self.session_button = QPushButton(tr("Use for this session only"))
        self.session_button.setAccessibleName(
            tr("Keep the {what} in memory for this session only").format(what=label)
        )
        self.session_button.clicked.connect(self._session_clicked)
        self.session_button.hide()
        layout.addWidget(self.session_button)
        self.edit.textChanged.connect(lambda text: self.save_button.setEnabled(bool(text.strip())))
        self.save_button.setEnabled(False)
        self.delete_button.setEnabled(False)

    # -- layout ----------------------------------------------------------------------------
    def _buttons(self) -> list[QPushButton]:
        return [self.reveal, self.save_button, self.delete_button]

    def _one_row_width(self) -> int:
        spacing = max(0, self._row.spacing())
        widths = [b.sizeHint().width() for b in self._buttons()]
        return self.edit.minimumSizeHint().width() + sum(widths) + spacing * len(widths)

    def minimumSizeHint(self) -> QSize:
        """Narrow enough for the input alone: the buttons then go below it."""
        hint = super().minimumSizeHint()
        spacing = max(0, self._row.spacing())
        buttons = sum(b.sizeHint().width() + spacing for b in self._buttons())
        return QSize(max(self.edit.minimumSizeHint().width(), buttons), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Put the buttons below the input when one row would squeeze it (and back)."""
        super().resizeEvent(event)
        wrap = self.width() < self._one_row_width()
        if wrap == self._wrapped:
            return
        self._wrapped = wrap
        target = self._below if wrap else self._row
        for button in self._buttons():
            target.addWidget(button)
        if wrap:
            self._below.addStretch(1)
        else:
            while self._below.count():
                self._below.takeAt(0)

    def typed(self) -> str:
        """The key typed but not saved yet (``""`` when none)."""
        return self.edit.text().strip()

    def refresh(self) -> None:
        """Read where the key comes from again (in the background)."""
        self.spawn(self._refresh(), "key-refresh")

    async def _refresh(self) -> None:
        try:
            current = await self.backend.resolve()
        except Exception as exc:  # noqa: BLE001 - the keyring may fail in many ways: say so, do not crash
            self.source_label.setText(
                tr("Cannot read the keyring: {error}").format(error=redact(exc))
            )
            return
        self.current = current
        if current.found:
            masked = f" · {current.masked}" if current.masked else ""
            self.source_label.setText(
                tr("Current {noun}: {source}").format(
                    noun=self.noun, source=localized(current.detail)
                )
                + masked
            )
        elif self.needs_key:
            self.source_label.setText(tr("No {noun} set.").format(noun=self.noun))
        else:
            self.source_label.setText(
                tr("No {noun} set (not needed for this server).").format(noun=self.noun)
            )
        self.delete_button.setEnabled(current.source in ("keyring", "session"))

    def _toggle_reveal(self, shown: bool) -> None:
        self.edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.reveal.setText(tr("Hide") if shown else tr("Show"))

    def _save_clicked(self) -> None:
        if self.typed():
            self.spawn(self.save(), "key-save")

    async def save(self) -> bool:
        """Store the typed key in the keyring."""
        value = self.typed()
        if not value:
            self.status.error(tr("Paste a {noun} first.").format(noun=self.noun))
            return False
        if any(ch.isspace() for ch in value):
            self.status.error(
                tr(
                    "A {noun} has no spaces or line breaks; check what was pasted. "
                    "Nothing was saved."
                ).format(noun=self.noun)
            )
            return False
        self.save_button.setEnabled(False)
        try:
            await self.backend.store(value)
        except StoredWithWarning as exc:
            self.edit.clear()
            self.status.warn(str(exc))
            await self._refresh()
            self.changed.emit()
            return True
        except KeyringUnavailable as exc:
            self.status.error(tr("{error} Nothing was saved.").format(error=localized(exc)))
            self.session_button.setVisible(self.backend.store_session is not None)
            self.save_button.setEnabled(True)
            return False
        except Exception as exc:  # noqa: BLE001 - the message is for the person
            self.status.error(tr("Not saved: {error}").format(error=redact(exc)))
            self.save_button.setEnabled(True)
            return False
        self.edit.clear()
        self.session_button.hide()
        self.status.ok(tr("Saved in the OS keyring."))
        await self._refresh()
        self.changed.emit()
        return True

    def _session_clicked(self) -> None:
        self.spawn(self._store_session(), "key-session")

    async def _store_session(self) -> None:
        value = self.typed()
        if not value or self.backend.store_session is None:
            return
        await self.backend.store_session(value)
        self.edit.clear()
        self.session_button.hide()
        self.status.warn(tr("Held in memory for this session only; it is gone when the app quits."))
        await self._refresh()
        self.changed.emit()

    def _delete_clicked(self) -> None:
        self.spawn(self.delete(), "key-delete")

    async def delete(self) -> bool:
        """Remove the stored key."""
        try:
            existed = await self.backend.delete()
        except Exception as exc:  # noqa: BLE001 - the message is for the person
            self.status.error(tr("Not deleted: {error}").format(error=redact(exc)))
            return False
        self.status.ok(
            (tr("Stored {noun} removed.") if existed else tr("No stored {noun} to remove.")).format(
                noun=self.noun
            )
        )
        await self._refresh()
        self.changed.emit()
        return existed

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel what this field started."""
        self.cancel_tasks()
        super().closeEvent(event)
