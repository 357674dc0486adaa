"""Markdown for Discord: what it cannot show is rewritten, and long text is split safely.

Discord renders most of the markdown a model writes (bold, italics, code, fenced blocks,
lists, quotes, links, ``#``–``###`` headings). What it does not render is rewritten:

* headings of level 4–6 become a bold line;
* a table (``| a | b |`` rows with a ``|---|`` rule) becomes a fenced block, so its columns
  stay aligned;
* an image (``![alt](url)``) becomes a link.

The markdown is parsed and written again by :mod:`desktop.core.channels.render`.

A message holds at most 2,000 characters. :func:`split` cuts between lines (between
paragraphs when one ends late enough in the piece), and a piece that ends inside a fenced code
block closes the fence, the next piece opening it again with the same language: every piece
renders on its own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from desktop.core.channels.render import MARKDOWN, render

MESSAGE_LIMIT = 2000
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A table as aligned plain text in a code block (Discord draws no tables)."""
    cells = [header, *rows]
    width = max(len(row) for row in cells)
    cells = [row + [""] * (width - len(row)) for row in cells]
    sizes = [max(len(row[i]) for row in cells) for i in range(width)]
    lines = ["  ".join(c.ljust(sizes[i]) for i, c in enumerate(row)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * s for s in sizes))
    return "\n".join(["```", *lines, "```"])


def _heading(level: int, text: str) -> str:
    return f"{'#' * level} {text}" if level <= 3 else f"**{text}**"


DISCORD = replace(
    MARKDOWN,
    name="discord",
    heading=_heading,
    image=lambda alt, src: f"[{alt or 'image'}]({src})",
    table=_table,
)
"""Discord's markdown: ``#``–``###`` headings, no tables or images (``__x__`` is underline
there, so bold is always written ``**x**``)."""


def to_discord(text: str) -> str:
    """``text`` (the model's markdown) as Discord shows it (see the module docstring)."""
    return render(text, DISCORD)


def _hard_cut(line: str, room: int) -> tuple[str, str]:
    """The head of a too-long ``line`` (cut at a space when there is one) and the rest."""
    cut = line.rfind(" ", 0, room)
    if cut <= room // 2:
        cut = room
    return line[:cut], line[cut:].lstrip(" ")


def _step(line: str, fence: str | None) -> str | None:
    """The fence marker open after ``line`` (``None``: outside), given the one before."""
    match = _FENCE.match(line)
    if match is None:
        return fence
    marker = match.group(1)
    if fence is None:
        return marker
    closes = marker[0] == fence[0] and len(marker) >= len(fence) and not match.group(2).strip()
    return None if closes else fence


def _breaks(lines: list[str]) -> list[int]:
    """Indexes of the blank lines of ``lines`` that are outside fenced blocks."""
    found: list[int] = []
    fence: str | None = None
    for index, line in enumerate(lines):
        before, fence = fence, _step(line, fence)
        if before is None and fence is None and not line.strip():
            found.append(index)
    return found


def split(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:  # noqa: C901  # a one-pass splitter that tracks the open code fence
    """``text`` in pieces of at most ``limit`` characters (see the module docstring)."""
    pieces: list[str] = []
    current: list[str] = []
    fence: str | None = None  # the marker of the fenced block open at the end of ``current``
    opener = ""  # the line that opened it (with its language)
    pending = text.splitlines()
    pending.reverse()

    def size() -> int:
        return len("\n".join(current))

    def fresh() -> list[str]:
        return [opener] if fence is not None else []

    def flush() -> None:
        nonlocal current
        body = "\n".join(current) + (f"\n{fence}" if fence is not None else "")
        if "\n".join(current).strip() and current != fresh():
            pieces.append(body)
        current = fresh()

    while pending:
        line = pending.pop()
        closing = len(fence) + 1 if fence is not None else 0
        if size() + len(line) + (1 if current else 0) + closing > limit:
            if current != fresh():
                breaks = _breaks(current)
                if fence is None and breaks and breaks[-1] * 2 >= len(current):
                    rest = current[breaks[-1] + 1 :]
                    current = current[: breaks[-1]]
                    pending.append(line)
                    pending.extend(reversed(rest))
                else:
                    pending.append(line)
                flush()
                continue
            head, tail = _hard_cut(line, limit - size() - closing - (1 if current else 0))
            current.append(head)
            pending.append(tail)
            flush()
            continue
        before, fence = fence, _step(line, fence)
        if before is None and fence is not None:
            opener = line.strip()
        current.append(line)
    if current != fresh() and "\n".join(current).strip():
        pieces.append("\n".join(current))
    return pieces
