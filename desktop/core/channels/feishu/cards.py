"""Markdown answers as Feishu interactive cards.

A card's ``markdown`` element renders bold, italics, strike-through, links, lists, quotes and
fenced code, but neither headings nor tables: a heading becomes a bold line (a ``div`` with
``lark_md`` text) and a table a card ``table`` element (at most one per card: the platform
refuses more, so a second table starts a new card). Long answers are split between
paragraphs into cards of at most :data:`CARD_TEXT_LIMIT` characters (far below the 30 KB a
card may have, even in CJK); a code block cut by a split is closed and opened again.
"""

from __future__ import annotations

import json
import re
from typing import Any

from desktop.core.channels.base import split_message

CARD_TEXT_LIMIT = 4000
TEXT_LIMIT = 4000  # characters per plain text message (tool hints)

_TABLE = re.compile(
    r"((?:^[ \t]*\|.+\|[ \t]*\n)(?:^[ \t]*\|[ \t:|-]+\|[ \t]*\n)(?:^[ \t]*\|.+\|[ \t]*(?:\n|$))+)",
    re.MULTILINE,
)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]*(```|~~~)(.*)$")
_EMPHASIS = re.compile(r"(\*\*|__|~~|\*|_|`)(.+?)\1")


def plain(text: str) -> str:
    """``text`` without inline markdown markers (for table cells and headings)."""
    previous = None
    while previous != text:
        previous, text = text, _EMPHASIS.sub(r"\2", text)
    return text


def split_markdown(text: str, limit: int = CARD_TEXT_LIMIT) -> list[str]:
    """Pieces of at most about ``limit`` characters; code blocks cut by a split stay
    blocks (closed at the end of one piece, opened again at the start of the next)."""
    pieces: list[str] = []
    carry = ""  # the fence line of a code block the previous piece left open
    for raw in split_message(text, limit - 24):
        piece = f"{carry}\n{raw}" if carry else raw
        carry = ""
        for line in piece.splitlines():
            match = _FENCE.match(line)
            if match:
                carry = "" if carry else line.strip()
        if carry:
            piece += "\n```"
        pieces.append(piece)
    return pieces


def _table(block: str) -> dict[str, Any] | None:
    lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
    if len(lines) < 3:
        return None

    def cells(line: str) -> list[str]:
        return [plain(cell.strip()) for cell in line.strip().strip("|").split("|")]

    headers = cells(lines[0])
    rows = [cells(line) for line in lines[2:]]
    return {
        "tag": "table",
        "page_size": min(max(len(rows), 1), 10),
        "columns": [
            {"name": f"c{i}", "display_name": h, "data_type": "text", "width": "auto"}
            for i, h in enumerate(headers)
        ],
        "rows": [
            {f"c{i}": (r[i] if i < len(r) else "") for i in range(len(headers))} for r in rows
        ],
    }


def _text_elements(text: str) -> list[dict[str, Any]]:
    """Markdown elements, with headings as bold lines (not inside code blocks)."""
    elements: list[dict[str, Any]] = []
    buffer: list[str] = []
    fence = False

    def flush() -> None:
        content = "\n".join(buffer).strip("\n")
        if content.strip():
            elements.append({"tag": "markdown", "content": content})
        buffer.clear()

    for line in text.splitlines():
        if _FENCE.match(line):
            fence = not fence
        heading = None if fence else _HEADING.match(line)
        if heading:
            flush()
            elements.append(
                {"tag": "div", "text": {"tag": "lark_md", "content": f"**{plain(heading[1])}**"}}
            )
        else:
            buffer.append(line)
    flush()
    return elements


def elements(text: str) -> list[dict[str, Any]]:
    """The card elements of one piece of markdown."""
    found: list[dict[str, Any]] = []
    end = 0
    for match in _TABLE.finditer(text):
        found.extend(_text_elements(text[end : match.start()]))
        table = _table(match.group(1))
        found.append(table or {"tag": "markdown", "content": match.group(1)})
        end = match.end()
    found.extend(_text_elements(text[end:]))
    return found


def card(items: list[dict[str, Any]], header: dict[str, Any] | None = None) -> dict[str, Any]:
    """A card (message card JSON 1.0) with ``items``."""
    body: dict[str, Any] = {"config": {"wide_screen_mode": True}}
    if header is not None:
        body["header"] = header
    body["elements"] = items
    return body


def markdown_cards(text: str) -> list[dict[str, Any]]:
    """The cards an answer becomes (see the module docstring)."""
    cards: list[dict[str, Any]] = []
    for piece in split_markdown(text):
        group: list[dict[str, Any]] = []
        for element in elements(piece):
            if element["tag"] == "table" and any(e["tag"] == "table" for e in group):
                cards.append(card(group))
                group = []
            group.append(element)
        if group:
            cards.append(card(group))
    return cards


def content(value: dict[str, Any]) -> str:
    """A message ``content`` field (the platform wants it as a JSON string)."""
    return json.dumps(value, ensure_ascii=False)
