"""Markdown answers as WhatsApp text, split under WhatsApp's message limit.

WhatsApp has its own light markup: ``*bold*``, ``_italic_``, ``~strike~``, ```` `code` ````,
```` ```monospace blocks``` ````, ``> quotes`` and ``- `` lists. The model writes Markdown, so
``**bold**`` / ``__bold__`` become ``*bold*``, ``*italic*`` becomes ``_italic_``, ``~~x~~``
becomes ``~x~``, headings become bold lines and ``[text](url)`` becomes ``text (url)`` (WhatsApp
has no link markup; it links bare URLs itself). Code is left exactly as written; a table
becomes one line per row. The text is written by :mod:`desktop.core.channels.render`.

Long answers are split at :data:`TEXT_LIMIT` characters between paragraphs, lines or words
(:func:`~desktop.core.channels.base.split_message`); a code block cut in two is closed at the
end of one piece and opened again at the start of the next.
"""

from __future__ import annotations

from desktop.core.channels.base import split_message
from desktop.core.channels.render import PLAIN, Rules, render

TEXT_LIMIT = 4096
"""Characters per message: the WhatsApp Business Platform's documented text limit (WhatsApp
Web accepts more, but longer messages are folded behind "Read more" anyway)."""
CAPTION_LIMIT = 1024
"""Characters of a media caption (WhatsApp's documented caption limit)."""
FENCE = "```"


def _link(label: str, href: str) -> str:
    return href if not label or label == href else f"{label} ({href})"


WHATSAPP = Rules(
    name="whatsapp",
    strong=("*", "*"),
    em=("_", "_"),
    strike=("~", "~"),
    code=lambda text: f"`{text}`",
    link=_link,
    image=_link,
    heading=lambda level, text: f"*{text}*",
    heading_is_bold=True,
    bullet="-",
    task=("☑", "☐"),
    fence=lambda language, code: f"{FENCE}\n{code}\n{FENCE}",
    table=PLAIN.table,
    rule="───",
)
"""WhatsApp's text styles (see the module docstring)."""


def to_whatsapp(markdown: str) -> str:
    """``markdown`` in WhatsApp's markup (see the module docstring)."""
    return render(markdown, WHATSAPP).strip()


def pieces(text: str, limit: int = TEXT_LIMIT) -> list[str]:
    """``text`` (already converted) in messages of at most ``limit`` characters, with code
    blocks closed and reopened where a cut falls inside one."""
    reserve = len(FENCE) + 1
    parts = split_message(text, limit - 2 * reserve) if len(text) > limit else [text]
    result: list[str] = []
    carry = False
    for part in parts:
        piece = f"{FENCE}\n{part}" if carry else part
        if piece.count(FENCE) % 2:
            piece = f"{piece}\n{FENCE}"
            carry = True
        else:
            carry = False
        result.append(piece)
    return [p for p in result if p.strip()]
