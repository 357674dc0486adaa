"""Light and dark palettes, a small shared stylesheet, and "follow the system".

The Fusion style draws every control from the palette, so one palette per scheme gives a
consistent, readable look on every platform. The stylesheet only sets spacing and typography
and refers to palette roles, so it works in both schemes. Widgets that draw their own colours
(code blocks, diffs) ask :meth:`Theme.is_dark` and listen to :attr:`Theme.changed`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication

from desktop.core.utils.resources import data_path
from desktop.ui.focus_style import FocusRingStyle

APPEARANCES = ("system", "light", "dark")
ACCENT = "#2b59c3"  # the icon's blue
ACCENT_DARK = "#6f95f0"

# Spacing scale used by the shell (multiples of 4 px).
SPACING = {"xs": 4, "s": 8, "m": 12, "l": 16, "xl": 24}

STYLESHEET = """
QTabWidget#mainTabs::pane { border: none; border-top: 1px solid palette(mid); top: -1px; }
QTabWidget#mainTabs > QTabBar::tab {
    background: transparent; border: none; border-bottom: 2px solid transparent;
    padding: 7px 18px 6px 18px; margin: 0 2px; color: palette(placeholder-text); min-width: 64px;
}
QTabWidget#mainTabs > QTabBar::tab:selected {
    color: palette(window-text); border-bottom-color: palette(highlight);
}
QTabWidget#mainTabs > QTabBar::tab:hover:!selected {
    color: palette(window-text); background: palette(alternate-base);
}
QStatusBar { padding: 0 8px; }
QStatusBar QLabel { padding: 0 4px; color: palette(placeholder-text); }
QToolTip { padding: 4px 6px; }
QFrame#banner { border-radius: 6px; background: palette(base); }
QFrame#banner[severity="error"] { border: 1px solid #c0392b; }
QFrame#banner[severity="info"] { border: 1px solid palette(highlight); }
QLabel#placeholderTitle { font-size: 16pt; font-weight: 600; }
QLabel#placeholderText { color: palette(placeholder-text); }
"""

# Check boxes and radio buttons: Fusion outlines them with the window colour darkened, which
# vanishes on a dark window (an unchecked box was all but invisible). These rules draw them
# with a visible border in both schemes; the mark is an image in the accent's text colour.
INDICATORS = """
QCheckBox::indicator, QRadioButton::indicator {
    width: 14px; height: 14px; border: 1px solid palette(placeholder-text);
    background: palette(base);
}
QCheckBox::indicator { border-radius: 3px; }
QRadioButton::indicator { border-radius: 8px; }
QCheckBox::indicator:hover, QRadioButton::indicator:hover { border-color: palette(highlight); }
QCheckBox::indicator:checked {
    background: palette(highlight); border-color: palette(highlight); image: url("CHECK");
}
QRadioButton::indicator:checked {
    background: palette(highlight); border-color: palette(highlight); image: url("DOT");
}
QCheckBox::indicator:disabled, QRadioButton::indicator:disabled {
    border-color: palette(mid); background: palette(window);
}
QCheckBox::indicator:checked:disabled, QRadioButton::indicator:checked:disabled {
    background: palette(mid);
}
"""


def stylesheet(dark: bool) -> str:
    """The application style sheet for a scheme (the indicator marks differ)."""
    scheme = "dark" if dark else "light"
    folder = data_path("resources", "icons", "indicators")
    check = (folder / f"check-{scheme}.svg").as_posix()
    dot = (folder / f"dot-{scheme}.svg").as_posix()
    return STYLESHEET + INDICATORS.replace("CHECK", check).replace("DOT", dot)


def _palette(dark: bool) -> QPalette:
    if dark:
        window, base, alt, text = "#1e1f22", "#26282c", "#2d3035", "#e6e6e6"
        button, mid, dim, link = "#2f3136", "#4a4d55", "#9a9ca3", "#8fb0ff"
        accent = ACCENT_DARK
        highlighted_text = "#0e0f11"
    else:
        window, base, alt, text = "#f5f6f8", "#ffffff", "#eef0f3", "#1d1f23"
        button, mid, dim, link = "#eceef2", "#c4c8cf", "#6b7078", "#1f4fbf"
        accent = ACCENT
        highlighted_text = "#ffffff"
    p = QPalette()
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: alt,
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: button,
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.ToolTipBase: base,
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: dim,
        QPalette.ColorRole.Highlight: accent,
        QPalette.ColorRole.HighlightedText: highlighted_text,
        QPalette.ColorRole.Link: link,
        QPalette.ColorRole.LinkVisited: link,
        QPalette.ColorRole.Mid: mid,
        QPalette.ColorRole.Midlight: alt,
        QPalette.ColorRole.Dark: mid,
        QPalette.ColorRole.Light: base,
        QPalette.ColorRole.Shadow: "#000000",
        QPalette.ColorRole.BrightText: "#ff5555",
        QPalette.ColorRole.Accent: accent,
    }
    for role, colour in roles.items():
        p.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(dim))
    return p


def app_icon() -> QIcon:
    """The application icon (``resources/icons/nanobot.svg``, drawn at any size)."""
    return QIcon(str(data_path("resources", "icons", "nanobot.svg")))


def system_is_dark() -> bool:
    """Whether the desktop asks for a dark colour scheme (unknown counts as light)."""
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


class Theme(QObject):
    """Applies the ``appearance`` preference to the application.

    Args:
        app: The application.
        appearance: ``system``, ``light`` or ``dark``.

    Signals:
        changed(bool): the effective scheme changed; ``True`` means dark.
    """

    changed = Signal(bool)

    def __init__(self, app: QApplication, appearance: str = "system") -> None:
        super().__init__(app)
        self.app = app
        self.appearance = "system"
        self._dark: bool | None = None
        app.setStyle(FocusRingStyle("Fusion"))  # Fusion, with a visible keyboard focus ring
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_changed)
        self.set_appearance(appearance)

    def is_dark(self) -> bool:
        """Whether the dark palette is in use."""
        return bool(self._dark)

    def set_appearance(self, appearance: str) -> None:
        """Switch to ``appearance`` (unknown values mean ``system``)."""
        self.appearance = appearance if appearance in APPEARANCES else "system"
        self._apply()

    def _on_system_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self.appearance == "system":
            self._apply()

    def _apply(self) -> None:
        dark = system_is_dark() if self.appearance == "system" else self.appearance == "dark"
        if dark == self._dark:
            return
        self._dark = dark
        self.app.setPalette(_palette(dark))
        # Style sheets resolve ``palette(role)`` when they are applied: set it again so every
        # widget styled by it is polished with the new palette.
        self.app.setStyleSheet("")
        self.app.setStyleSheet(stylesheet(dark))
        self.changed.emit(dark)
