"""TeX math in answers (``$…$`` inline, ``$$…$$`` display) as SVG images for QTextDocument.

`ziamath <https://pypi.org/project/ziamath/>`_ (pure Python, its own STIX Two Math font, no
LaTeX install) turns TeX into SVG; the SVG goes into the HTML as an ``<img>`` with a
``data:image/svg+xml`` URL, which Qt's SVG image plugin draws. ziamath costs ≈0.4 s and
≈26 MB on import, so it is imported on the first answer that has math in it, never at start-up
(:mod:`desktop.ui.chat.markdown` loads this module only for text with a ``$``).

TeX that cannot be drawn (a syntax error, an unknown command ziamath rejects) is shown as its
source, never raised. Copying keeps the source: :func:`tex_of` maps an image back to its
``$…$`` text (the view's selection copy uses it; "Copy message" copies the markdown anyway).

This module does not import Qt.
"""

from __future__ import annotations

import base64
import html
import logging
import re
import warnings
from collections import OrderedDict
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

PREFIX = "data:image/svg+xml;base64,"
INLINE_SIZE = 15.0
DISPLAY_SIZE = 17.0
MAX_TEX = 4000
"""Longer TeX is shown as source (a runaway formula must not stall the view)."""
OBJECT = "\ufffc"
_IMG = re.compile(r'<img[^>]*?src="([^"]*)"')
_KEPT = 512
_sources: OrderedDict[str, str] = OrderedDict()
"""Image URL → its ``$…$`` source, newest last (for copying a selection)."""


@lru_cache(maxsize=1)
def _ziamath() -> Any:
    """The ziamath module (imported once; ``None`` when it is not installed)."""
    try:
        with warnings.catch_warnings():  # it finds its font with a deprecated importlib call
            warnings.simplefilter("ignore", DeprecationWarning)
            import ziamath
    except ImportError:  # an optional install without it: math stays TeX source
        log.warning("ziamath is not installed: math in answers is shown as TeX source")
        return None
    found: Any = ziamath
    found.config.svg2 = False  # plain paths: Qt's SVG Tiny renderer has no <symbol>
    return found


@lru_cache(maxsize=256)
def svg_of(tex: str, display: bool, color: str) -> str | None:
    """The SVG of ``tex`` in ``color`` (``None`` when it cannot be drawn)."""
    module = _ziamath()
    if module is None or not tex.strip() or len(tex) > MAX_TEX:
        return None
    try:
        size = DISPLAY_SIZE if display else INLINE_SIZE
        svg = module.Latex(tex, size=size, color=color, inline=not display).svg()
    except Exception as exc:  # noqa: BLE001 - any failure of a third-party parser: show source
        log.debug("math %r not drawn: %s", tex[:80], exc)
        return None
    return str(svg)


def source_of(tex: str, display: bool) -> str:
    """How ``tex`` was written (``$…$`` or ``$$…$$``)."""
    return f"$${tex}$$" if display else f"${tex}$"


def math_html(tex: str, *, display: bool, color: str, fallback_bg: str) -> str:
    """HTML for one formula: the drawn image, or its source in code style when it cannot be
    drawn."""
    svg = svg_of(tex, display, color)
    source = source_of(tex, display)
    if svg is None:
        text = html.escape(source)
        code = f'<code style="background-color:{fallback_bg}; font-family:monospace">{text}</code>'
        return f"<p>{code}</p>\n" if display else code
    url = PREFIX + base64.b64encode(svg.encode("utf-8")).decode("ascii")
    _sources[url] = source
    _sources.move_to_end(url)
    while len(_sources) > _KEPT:
        _sources.popitem(last=False)
    image = f'<img src="{url}" style="vertical-align: middle">'
    return f'<p align="center">{image}</p>\n' if display else image


def tex_of(url: str) -> str | None:
    """The ``$…$`` source of a formula image drawn by :func:`math_html` (``None``: not one)."""
    return _sources.get(url) if url.startswith(PREFIX) else None


def selection_text(plain: str, html_text: str) -> str:
    """The plain text of a selection with each formula image as its TeX source.

    Args:
        plain: The selection's plain text (an image is U+FFFC there).
        html_text: The selection as HTML (its ``<img src>`` in the same order).
    """
    if OBJECT not in plain:
        return plain
    urls = iter(_IMG.findall(html_text))
    out: list[str] = []
    for char in plain:
        if char == OBJECT:
            url = next(urls, "")
            out.append(tex_of(html.unescape(url)) or char)
        else:
            out.append(char)
    return "".join(out)


def add_math(md: Any, colours: Any) -> None:
    """Teach the markdown-it parser ``md`` ``$…$`` and ``$$…$$`` (mdit-py-plugins' dollar
    math rules: no space inside the dollars and no digit after the closing one, so
    "$5 and $10" stays text).

    Args:
        md: A ``MarkdownIt`` instance.
        colours: Returns ``(text colour, code background)`` of the current theme.
    """
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        double_inline=True,
    )

    def rule(display: bool) -> Any:
        def render(tokens: list[Any], idx: int, options: Any, env: Any) -> str:
            color, background = colours()
            tex = str(tokens[idx].content).strip()
            return math_html(tex, display=display, color=color, fallback_bg=background)

        return render

    rules = md.renderer.rules
    rules["math_inline"] = rule(False)
    rules["math_inline_double"] = rule(True)
    rules["math_block"] = rule(True)
