"""Channel marks (:mod:`desktop.ui.channel_marks`): one recognisable mark per chat channel —
its platform colour with a white letter — drawn sharp at any pixel ratio, and one for channels
the table does not know."""

from __future__ import annotations

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from desktop.core.channels.registry import CHANNELS
from desktop.ui.channel_marks import MARKS, channel_img_html, channel_pixmap, mark_of


def test_every_known_channel_has_its_own_colour(qapp: QApplication) -> None:
    assert set(CHANNELS) <= set(MARKS)
    colours = [MARKS[name][0] for name in CHANNELS]
    assert len(set(colours)) == len(colours)
    assert mark_of("nochannel") == ("#6b7280", "N")


def test_a_mark_is_the_colour_with_a_white_letter_at_its_pixel_ratio(qapp: QApplication) -> None:
    pixmap = channel_pixmap("telegram", 16, 2.0)
    image = pixmap.toImage()
    assert (image.width(), image.height()) == (32, 32) and pixmap.devicePixelRatio() == 2.0
    assert image.pixelColor(16, 3) == QColor(MARKS["telegram"][0])  # inside, above the letter
    assert image.pixelColor(0, 0).alpha() == 0  # rounded corner
    whites = sum(
        1
        for x in range(32)
        for y in range(32)
        if image.pixelColor(x, y).lightness() > 230 and image.pixelColor(x, y).alpha() == 255
    )
    assert whites > 20  # the letter


def test_the_rich_text_mark_is_an_inline_png(qapp: QApplication) -> None:
    html = channel_img_html("matrix")
    assert html.startswith("<img src='data:image/png;base64,") and "width='14'" in html
    assert channel_img_html("matrix") is html  # drawn once
