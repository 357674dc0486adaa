"""Markdown as HTML, for platforms that show real HTML (Matrix's ``org.matrix.custom.html``;
an e-mail's or a Teams message's HTML part when they come).

The same parse as :func:`desktop.core.channels.render.render` (CommonMark with tables and
strike-through, raw HTML off), written by markdown-it's own HTML renderer: raw HTML in the
answer is escaped, never passed through, and unsafe link schemes (``javascript:``) are dropped.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

_HTML = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(["table", "strikethrough"])


def to_html(markdown: str) -> str:
    """``markdown`` as an HTML fragment (a line break in a paragraph is a ``<br>``)."""
    html: str = _HTML.render(markdown)
    return html.strip()
