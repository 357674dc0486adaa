"""Small building blocks shared by the settings pages and the onboarding flow."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QPushButton, QSizePolicy, QWidget

from desktop.core.config.edit import ChangeError
from desktop.ui.i18n import tr

_COLOURS = {  # (light palette, dark palette)
    "error": ("#b3261e", "#ff8a80"),
    "ok": ("#1b7f3b", "#7ed99a"),
    "warn": ("#8a5a00", "#ffd580"),
}


def is_dark(widget: QWidget) -> bool:
    """Whether ``widget`` is drawn on a dark background."""
    return widget.palette().color(QPalette.ColorRole.Window).lightness() < 128


class InlineStatus(QLabel):
    """A one- or two-line message under a control: error, success, warning or plain info.

    Empty and hidden until something is shown, so it takes no space.
    """

    def __init__(self, parent: QWidget | None = None, *, accessible: str = "") -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setAccessibleName(accessible or tr("Status"))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.kind = ""
        self.hide()

    def _show(self, kind: str, text: str) -> None:
        self.kind = kind
        self._recolour()
        self.setText(text)
        self.setVisible(bool(text))

    def _recolour(self) -> None:
        colours = _COLOURS.get(self.kind)
        sheet = f"color: {colours[1] if is_dark(self) else colours[0]};" if colours else ""
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)

    def changeEvent(self, event: QEvent) -> None:
        """Follow a switch between the light and dark palettes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._recolour()

    def error(self, text: str) -> None:
        """Show a problem."""
        self._show("error", text)

    def ok(self, text: str) -> None:
        """Show a success."""
        self._show("ok", text)

    def warn(self, text: str) -> None:
        """Show a warning."""
        self._show("warn", text)

    def info(self, text: str) -> None:
        """Show neutral information."""
        self._show("info", text)

    def clear(self) -> None:
        self.kind = ""
        super().clear()
        self.hide()


def heading(text: str, *, level: int = 1) -> QLabel:
    """A page (level 1) or group (level 2) heading."""
    label = QLabel(text)
    font = QFont(label.font())
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * (1.35 if level == 1 else 1.08))
    label.setFont(font)
    label.setAccessibleName(text)
    if level > 1:
        label.setContentsMargins(0, 6, 0, 0)
    return label


def hint(text: str) -> QLabel:
    """Secondary explanatory text (wrapped, muted)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
    return label


def button(text: str, accessible: str, *, parent: QWidget | None = None) -> QPushButton:
    """A push button that keeps its natural width (never stretched across a row)."""
    widget = QPushButton(text, parent)
    widget.setAccessibleName(accessible)
    widget.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    return widget


def separator() -> QFrame:
    """A thin horizontal line between groups."""
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


class LinesEdit(QPlainTextEdit):
    """A short multi-line editor for "one entry per line" values."""

    def __init__(
        self,
        *,
        placeholder: str = "",
        rows: int = 3,
        accessible: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setPlaceholderText(placeholder)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        height = self.fontMetrics().lineSpacing() * rows + 14
        self.setFixedHeight(height)
        if accessible:
            self.setAccessibleName(accessible)

    def lines(self) -> list[str]:
        """Non-empty, stripped lines."""
        return [line.strip() for line in self.toPlainText().splitlines() if line.strip()]

    def set_lines(self, lines: list[str]) -> None:
        """Replace the text with one entry per line."""
        self.setPlainText("\n".join(lines))


# -- parsing helpers (raise ChangeError with the field's label) --------------------------------

_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_mapping(
    lines: list[str], *, label: str, separator_char: str, kind: str
) -> dict[str, str]:
    """``Name: value`` (headers) or ``NAME=value`` (environment) lines into a dict."""
    result: dict[str, str] = {}
    pattern = _HEADER_NAME if kind == "header" else _ENV_NAME
    example = tr("Name: value") if kind == "header" else tr("NAME=value")
    invalid = (
        tr("line {number}: {name} is not a valid header name")
        if kind == "header"
        else tr("line {number}: {name} is not a valid variable name")
    )
    for number, line in enumerate(lines, 1):
        name, found, value = line.partition(separator_char)
        name = name.strip()
        if not found or not name:
            raise ChangeError(
                label,
                tr("line {number} should look like '{example}'").format(
                    number=number, example=example
                ),
            )
        if not pattern.match(name):
            raise ChangeError(label, invalid.format(number=number, name=repr(name)))
        result[name] = value.strip()
    return result


def format_mapping(mapping: dict[str, str] | None, separator_char: str) -> list[str]:
    """The inverse of :func:`parse_mapping`."""
    joiner = f"{separator_char} " if separator_char == ":" else separator_char
    return [f"{key}{joiner}{value}" for key, value in (mapping or {}).items()]


def check_url(
    text: str, *, label: str, required: bool = False, schemes: tuple[str, ...] = ("http", "https")
) -> str | None:
    """A stripped URL, ``None`` when empty (and allowed), else :class:`ChangeError`."""
    text = text.strip()
    if not text:
        if required:
            raise ChangeError(label, tr("enter a URL"))
        return None
    parsed = urlparse(text)
    if parsed.scheme not in schemes or not parsed.netloc:
        raise ChangeError(
            label,
            tr("{text} is not a URL starting with {schemes}").format(
                text=repr(text), schemes=tr(" or ").join(f"{s}://" for s in schemes)
            ),
        )
    return text


def check_patterns(lines: list[str], *, label: str) -> list[str]:
    """Regular expressions, each compiled once to report mistakes early."""
    for number, pattern in enumerate(lines, 1):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ChangeError(
                label,
                tr("line {number}: not a valid regular expression ({error})").format(
                    number=number, error=exc
                ),
            ) from None
    return lines


def mask(value: str | None) -> str:
    """A key as ``••••abcd`` (only the last four characters, and only for long keys)."""
    if not value:
        return ""
    return "••••" + value[-4:] if len(value) >= 12 else "••••"
