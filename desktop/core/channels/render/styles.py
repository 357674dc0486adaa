"""Markdown as plain text plus style ranges, for platforms that style by offsets (Signal's
``textStyle`` ranges: ``start:length:STYLE``) instead of by marks in the text.

The answer is written with :data:`~desktop.core.channels.render.rules.PLAIN`'s layout, each
styled span between private marks; the marks are then taken out and become ranges. Offsets and
lengths count UTF-16 code units, as Signal (and Telegram's entities) count them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from desktop.core.channels.render import render
from desktop.core.channels.render.rules import PLAIN

Style = Literal["BOLD", "ITALIC", "STRIKETHROUGH", "MONOSPACE"]
_OPEN: dict[str, Style] = {
    "\ue000": "BOLD",
    "\ue002": "ITALIC",
    "\ue004": "STRIKETHROUGH",
    "\ue006": "MONOSPACE",
}
_CLOSE: dict[str, Style] = {chr(ord(c) + 1): s for c, s in _OPEN.items()}
_MARKS = str.maketrans(dict.fromkeys(map(ord, [*_OPEN, *_CLOSE])))


@dataclass(frozen=True)
class StyleRange:
    """One styled span of the text (UTF-16 offsets)."""

    start: int
    length: int
    style: Style

    def signal(self) -> str:
        """As signal-cli writes it: ``start:length:STYLE``."""
        return f"{self.start}:{self.length}:{self.style}"


def _clean(text: str) -> str:
    return text.translate(_MARKS)


STYLED = replace(
    PLAIN,
    name="styled",
    escape=_clean,
    escape_code=_clean,
    strong=("\ue000", "\ue001"),
    em=("\ue002", "\ue003"),
    strike=("\ue004", "\ue005"),
    code=lambda text: f"\ue006{text}\ue007",
    heading=lambda level, text: f"\ue000{text}\ue001",
    heading_is_bold=True,
    fence=lambda language, code: f"\ue006{code}\ue007",
)
"""Plain text with the private marks :func:`styled_text` turns into ranges."""


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def styled_text(markdown: str) -> tuple[str, list[StyleRange]]:
    """``markdown`` as plain text and the style ranges over it, in the order they end."""
    marked = render(markdown, STYLED)
    out: list[str] = []
    position = 0  # UTF-16 units written so far
    opened: dict[Style, list[int]] = {}
    ranges: list[StyleRange] = []
    for char in marked:
        if char in _OPEN:
            opened.setdefault(_OPEN[char], []).append(position)
        elif char in _CLOSE:
            style = _CLOSE[char]
            start = opened[style].pop()
            if position > start:
                ranges.append(StyleRange(start, position - start, style))
        else:
            out.append(char)
            position += _utf16(char)
    return "".join(out), ranges
