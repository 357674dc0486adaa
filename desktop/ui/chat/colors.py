"""Colours of the chat, derived from the widget palette (light and dark alike)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette

from desktop.ui.chat.markdown import DARK, LIGHT, Theme


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``amount`` of ``a`` over ``b`` (0 → b, 1 → a)."""
    return QColor(
        round(a.red() * amount + b.red() * (1 - amount)),
        round(a.green() * amount + b.green() * (1 - amount)),
        round(a.blue() * amount + b.blue() * (1 - amount)),
    )


def is_dark(palette: QPalette) -> bool:
    """Whether the palette has a dark background."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


@dataclass(frozen=True)
class ChatColors:
    """Everything the conversation paints with.

    Attributes:
        dark: Dark background.
        base: View background.
        text: Body text.
        muted: Secondary text.
        bubble: The person's message bubble.
        card: Tool card / report background.
        border: Card borders.
        accent: Links, focus, the subagent marker.
        ok: Success marker.
        error: Failure marker.
        warn: Waiting-for-approval marker.
        selection: Selected text background.
        markdown: Markdown colours.
    """

    dark: bool
    base: QColor
    text: QColor
    muted: QColor
    bubble: QColor
    card: QColor
    border: QColor
    accent: QColor
    ok: QColor
    error: QColor
    warn: QColor
    selection: QColor
    markdown: Theme

    @classmethod
    def from_palette(cls, palette: QPalette) -> ChatColors:
        """Colours for ``palette``."""
        dark = is_dark(palette)
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        accent = QColor("#58a6ff" if dark else "#0969da")
        return cls(
            dark=dark,
            base=base,
            text=text,
            muted=mix(text, base, 0.6),
            bubble=mix(accent, base, 0.22 if dark else 0.11),
            card=mix(text, base, 0.06 if dark else 0.035),
            border=mix(text, base, 0.22 if dark else 0.16),
            accent=accent,
            ok=QColor("#3fb950" if dark else "#1a7f37"),
            error=QColor("#f85149" if dark else "#cf222e"),
            warn=QColor("#d29922" if dark else "#9a6700"),
            selection=palette.color(QPalette.ColorRole.Highlight),
            markdown=DARK if dark else LIGHT,
        )

    def css(self) -> str:
        """Default stylesheet of message documents."""
        md = self.markdown
        return (
            f"a {{ color: {md.link}; text-decoration: none; }}"
            "p, ul, ol, pre { margin-top: 0px; margin-bottom: 8px; }"
            "li { margin-bottom: 2px; }"
            "h1 { font-size: x-large; margin-top: 4px; margin-bottom: 8px; }"
            "h2 { font-size: large; margin-top: 4px; margin-bottom: 6px; }"
            "h3, h4, h5, h6 { font-size: medium; margin-top: 4px; margin-bottom: 4px; }"
            f"code {{ font-family: monospace; }}"
        )
