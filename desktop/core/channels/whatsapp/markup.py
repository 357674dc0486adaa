"""Markdown answers as WhatsApp text, split under WhatsApp's message limit.

WhatsApp has its own light markup: ``*bold*``, ``_italic_``, ``~strike~``, ```` `code` ````,
```` ```monospace blocks``` ````, ``> quotes`` and ``- `` lists. The model writes Markdown, so
``**bold**`` / ``__bold__`` become ``*bold*``, ``*italic*`` becomes ``_italic_``, ``~~x~~``
becomes ``~x~``, headings become bold lines and ``[text](url)`` becomes ``text (url)`` (WhatsApp
has no link markup; it links bare URLs itself). Code is left exactly as written.

Long answers are split at :data:`TEXT_LIMIT` characters between paragraphs, lines or words
(:func:`~desktop.core.channels.base.split_message`); a code block cut in two is closed at the
end of one piece and opened again at the start of the next.
"""

from __future__ import annotations

import re

from desktop.core.channels.base import split_message

TEXT_LIMIT = 4096
"""Characters per message: the WhatsApp Business Platform's documented text limit (WhatsApp
Web accepts more, but longer messages are folded behind "Read more" anyway)."""
CAPTION_LIMIT = 1024
"""Characters of a media caption (WhatsApp's documented caption limit)."""
FENCE = "```"

_BLOCK = re.compile(r"```[^\n`]*\n?(.*?)```", re.DOTALL)
_INLINE = re.compile(r"`[^`\n]+`")
_ITALIC_STAR = re.compile(r"(?<![*\w])\*(?![\s*])([^*\n]+?)(?<![\s*])\*(?![*\w])")
_BOLD_STARS = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_BOLD_UNDERSCORES = re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_BULLET = re.compile(r"^(\s*)[*+]\s+", re.MULTILINE)
_HOLD = "\x00{}\x00"


def _link(match: re.Match[str]) -> str:
    text, url = match.group(1).strip(), match.group(2)
    return url if not text or text == url else f"{text} ({url})"


def to_whatsapp(markdown: str) -> str:
    """``markdown`` in WhatsApp's markup (see the module docstring)."""
    held: list[str] = []

    def hold(text: str) -> str:
        held.append(text)
        return _HOLD.format(len(held) - 1)

    text = _BLOCK.sub(lambda m: hold(f"{FENCE}\n{m.group(1).rstrip()}\n{FENCE}"), markdown)
    text = _INLINE.sub(lambda m: hold(m.group(0)), text)
    text = _LINK.sub(_link, text)
    text = _BULLET.sub(r"\1- ", text)
    text = _ITALIC_STAR.sub(r"_\1_", text)
    text = _BOLD_STARS.sub(r"*\1*", text)
    text = _BOLD_UNDERSCORES.sub(r"*\1*", text)
    text = _STRIKE.sub(r"~\1~", text)
    text = _HEADING.sub(lambda m: f"*{m.group(1).strip('*')}*", text)
    for index, original in enumerate(held):
        text = text.replace(_HOLD.format(index), original)
    return text.strip()


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
