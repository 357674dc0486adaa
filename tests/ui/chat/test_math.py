"""Math in answers: ``$…$`` inline and ``$$…$$`` display drawn as SVG images, currency left as
text, bad TeX shown as its source, and copying gives the TeX back."""

from __future__ import annotations

import base64
import subprocess
import sys

from PySide6.QtCore import QByteArray
from PySide6.QtGui import QImage, QTextCursor
from pytestqt.qtbot import QtBot

from desktop.ui.chat.markdown import DARK, LIGHT, MarkdownRenderer
from desktop.ui.chat.math_render import PREFIX, selection_text, tex_of
from tests.fakes.openai_server import Reply
from tests.ui.chat.conftest import ChatHarness, MakeChat

ANSWER = (
    "Euler says $e^{i\\pi}+1=0$ and\n\n$$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$\n\n"
    "It costs $5 and $10 today; a broken one: $\\frac{1$ stays."
)


def _images(html: str) -> list[str]:
    return [part.split('"', 1)[0] for part in html.split('<img src="')[1:]]


def test_inline_and_display_math_are_images_and_currency_stays_text() -> None:
    """Two formulas become SVG images (the display one centred on its own line) in the theme's
    text colour; "$5 and $10" and the broken formula stay text."""
    rendered = MarkdownRenderer(LIGHT).render(ANSWER)
    images = _images(rendered.html)
    assert len(images) == 2 and all(url.startswith(PREFIX) for url in images)
    assert [tex_of(url) for url in images] == [
        "$e^{i\\pi}+1=0$",
        "$$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$",
    ]
    assert '<p align="center"><img' in rendered.html
    svg = base64.b64decode(images[0][len(PREFIX) :]).decode()
    assert LIGHT.text in svg and "<symbol" not in svg  # paths Qt's SVG renderer draws
    assert "It costs $5 and $10 today" in rendered.html
    assert "<code" in rendered.html and "$\\frac{1$</code>" in rendered.html  # shown as source
    dark = _images(MarkdownRenderer(DARK).render(ANSWER).html)[0]
    assert DARK.text in base64.b64decode(dark[len(PREFIX) :]).decode()


def test_qt_draws_the_formula_images() -> None:
    """Each data URL is an SVG Qt's image plugin loads, with a real size."""
    images = _images(MarkdownRenderer(LIGHT).render(ANSWER).html)
    assert len(images) == 2
    for url in images:
        data = QByteArray(base64.b64decode(url[len(PREFIX) :]))
        # the stub types the format as bytes; PySide accepts only a str for it at run time
        image = QImage.fromData(data, "SVG")  # type: ignore[arg-type]
        assert not image.isNull() and image.width() > 20 and image.height() > 8


def test_text_without_dollars_does_not_load_the_math_renderer() -> None:
    """Answers without a "$" never import the math libraries (a fresh interpreter)."""
    code = (
        "import sys\n"
        "from desktop.ui.chat.markdown import MarkdownRenderer\n"
        "MarkdownRenderer().render('plain **text** and `code`')\n"
        "bad = [m for m in ('ziamath', 'mdit_py_plugins', 'desktop.ui.chat.math_render') "
        "if m in sys.modules]\n"
        "assert not bad, bad\n"
        "MarkdownRenderer().render('costs $5 and $10')\n"
        "assert 'mdit_py_plugins' in sys.modules and 'ziamath' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_selection_text_puts_tex_back() -> None:
    """A copied selection has each formula's TeX where its image was."""
    html = MarkdownRenderer(LIGHT).render("so $a^2+b^2=c^2$ holds").html
    url = _images(html)[0]
    assert selection_text("so \ufffc holds", f'<p>so <img src="{url}" /> holds</p>') == (
        "so $a^2+b^2=c^2$ holds"
    )
    assert selection_text("plain", "<p>plain</p>") == "plain"


def test_an_answer_with_math_in_the_window(make_chat: MakeChat, qtbot: QtBot) -> None:
    """A real answer through the model path: its row's document holds the two formula images
    (loaded by Qt: the display line is taller than text), keeps the currency and the broken
    formula as text, and selecting all of it copies the TeX."""
    chat: ChatHarness = make_chat()
    chat.server.push(Reply(ANSWER))
    chat.send("Some maths please.")
    chat.idle()
    view = chat.tab.pane.view
    row = chat.kinds().index("assistant")
    chat.wait(lambda: view.layout_of(row).parts)
    doc = view.layout_of(row).parts[0].doc
    html = doc.toHtml()
    assert html.count(PREFIX) == 2
    plain = doc.toPlainText()
    assert "It costs $5 and $10 today" in plain and "$\\frac{1$" in plain
    cursor = QTextCursor(doc)
    cursor.select(QTextCursor.SelectionType.Document)
    chosen = cursor.selection()
    copied = selection_text(chosen.toPlainText(), chosen.toHtml())
    assert "$e^{i\\pi}+1=0$" in copied and "$$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$" in copied
    assert "\ufffc" not in copied
    assert chat.items()[row].plain_text() == ANSWER  # "Copy message": the markdown source
