"""The agent's markdown as DingTalk markdown messages: a title and pieces under the limit.

DingTalk renders a subset of markdown (headings, bold, italic, links, images, lists, quotes,
code). What it lacks is rewritten: strikethrough (``~~x~~``) becomes the plain text, and a
table becomes one line per row (cells joined with `` | ``), since tables show as raw pipes.
The markdown is parsed and written again by :mod:`desktop.core.channels.render`.

Every message needs a ``title`` (what the conversation list and notifications show): the
first line of the text without its markdown, shortened. Long answers are split under
:data:`LIMIT` characters on paragraph, line, then word boundaries; a code block cut in two is
closed at the end of one piece and opened again (same language) at the start of the next.
"""

from __future__ import annotations

import re
from dataclasses import replace

from desktop.core.channels.base import split_message
from desktop.core.channels.render import MARKDOWN, render

LIMIT = 4000
"""Characters per message: kept well under the size DingTalk accepts for one robot message
(counted in bytes; a CJK character is three)."""
TITLE_CHARS = 30
DEFAULT_TITLE = "nanobot"

_FENCE = re.compile(r"^\s*```(\S*)")
_MARKS = re.compile(r"[*_`#>~]|!\[[^\]]*\]\([^)]*\)|\[([^\]]*)\]\([^)]*\)")


def title_of(text: str) -> str:
    """The first non-empty line without markdown, at most :data:`TITLE_CHARS` characters."""
    for line in text.splitlines():
        plain = _MARKS.sub(lambda m: m.group(1) or "", line)
        plain = re.sub(r"^\s*(?:[-+]|\d+\.)\s+", "", plain)
        plain = " ".join(plain.split())
        if plain:
            return plain if len(plain) <= TITLE_CHARS else plain[: TITLE_CHARS - 1] + "…"
    return DEFAULT_TITLE


def _table(header: list[str], rows: list[list[str]]) -> str:
    """One line per row, the header too, cells joined with `` | ``."""
    return "\n".join(" | ".join(row) for row in [header, *rows])


DINGTALK = replace(MARKDOWN, name="dingtalk", strike=("", ""), table=_table)
"""DingTalk's markdown: CommonMark without strike-through and tables."""


def convert(text: str) -> str:
    """Rewrite what DingTalk does not render (see the module docstring); code is kept as is."""
    return render(text, DINGTALK)


def pieces(text: str, limit: int = LIMIT) -> list[str]:
    """``text`` converted and split under ``limit`` with code blocks kept balanced."""
    converted = convert(text).strip()
    if not converted:
        return []
    room = limit - 16  # for a fence closed and opened again
    result: list[str] = []
    reopen = ""
    for raw in split_message(converted, room):
        piece = reopen + raw
        language: str | None = None
        for line in piece.splitlines():
            match = _FENCE.match(line)
            if match:
                language = None if language is not None else match.group(1)
        if language is not None:
            piece += "\n```"
            reopen = f"```{language}\n"
        else:
            reopen = ""
        result.append(piece)
    return result
