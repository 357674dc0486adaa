"""Markdown answers as Feishu interactive cards.

A card's ``markdown`` element renders bold, italics, strike-through, links, lists, quotes and
fenced code, but neither headings nor tables: a heading becomes a bold line (a ``div`` with
``lark_md`` text) and a table a card ``table`` element (at most one per card: the platform
refuses more, so a second table starts a new card). Long answers are split between
paragraphs into cards of at most :data:`CARD_TEXT_LIMIT` characters (far below the 30 KB a
card may have, even in CJK); a code block cut by a split is closed and opened again. The
markdown is parsed once by :mod:`desktop.core.channels.render`.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from markdown_it.tree import SyntaxTreeNode

from desktop.core.channels.base import split_message
from desktop.core.channels.render import MARKDOWN, Document

CARD_TEXT_LIMIT = 4000
TEXT_LIMIT = 4000  # characters per plain text message (tool hints)

_FENCE = re.compile(r"^[ \t]*(```|~~~)(.*)$")
FEISHU = replace(MARKDOWN, name="feishu")
"""What a card's ``markdown`` element shows (headings and tables are elements of their own)."""


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


def _table(rows: list[list[str]]) -> dict[str, Any]:
    headers, rows = rows[0], rows[1:]
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


def elements(text: str) -> list[dict[str, Any]]:
    """The card elements of one piece of markdown: a heading a bold line, a table a table
    element, the blocks between them one markdown element."""
    document = Document(text)
    found: list[dict[str, Any]] = []
    run: list[SyntaxTreeNode] = []

    def flush() -> None:
        content = document.write(run, FEISHU)
        if content.strip():
            found.append({"tag": "markdown", "content": content})
        run.clear()

    for node in document.blocks:
        if node.type == "heading":
            flush()
            title = document.plain(node)
            found.append({"tag": "div", "text": {"tag": "lark_md", "content": f"**{title}**"}})
        elif node.type == "table" and (rows := document.cells(node)):
            flush()
            found.append(_table(rows))
        else:
            run.append(node)
    flush()
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
