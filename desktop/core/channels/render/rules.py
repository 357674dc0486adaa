"""What a chat platform's text format looks like: one :class:`Rules` table per platform.

The renderer (:mod:`desktop.core.channels.render`) parses the model's markdown once and asks
the rules how each piece of it is written. A rule set only names what differs from the
defaults (CommonMark written back as markdown), so a new platform is a few lines::

    MATTERMOST = Rules(name="mattermost")  # renders CommonMark itself
    SIGNAL = replace(PLAIN, name="signal")  # styles as ranges: send the plain text

Marks (``strong``, ``em``, ``strike``) are an ``(open, close)`` pair; ``("", "")`` drops the
mark and keeps the text. Text outside code goes through :attr:`Rules.escape`, code through
:attr:`Rules.escape_code`: the two places where a platform's special characters differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Mark = tuple[str, str]


def _same(text: str) -> str:
    return text


def _code(text: str) -> str:
    """Inline code with a fence long enough for the backticks inside it."""
    ticks = "`"
    while ticks in text:
        ticks += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _link(label: str, href: str) -> str:
    if not label or label == href:
        return f"<{href}>"
    return f"[{label}]({_href(href)})"


_HREF_ESCAPES = str.maketrans({"(": "%28", ")": "%29", " ": "%20", "<": "%3C", ">": "%3E"})


def _href(href: str) -> str:
    """A link target that stays one target in markdown: ``(``, ``)``, spaces and angle
    brackets percent-encoded (the same address; every markdown dialect reads it)."""
    return href.translate(_HREF_ESCAPES)


def _image(alt: str, src: str) -> str:
    return f"![{alt}]({_href(src)})"


def _heading(level: int, text: str) -> str:
    return f"{'#' * level} {text}"


def _fence(language: str, code: str) -> str:
    ticks = "```"
    while ticks in code:
        ticks += "`"
    return f"{ticks}{language}\n{code}\n{ticks}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = [f"| {' | '.join(header)} |", "|" + "|".join("---" for _ in header) + "|"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    return "\n".join(lines)


@dataclass(frozen=True)
class Rules:
    """How one platform writes each part of a markdown answer.

    Attributes:
        name: The platform (for logs and tests).
        escape: Text outside code, made safe for the platform.
        escape_code: The text of inline code and code blocks.
        strong: Bold's open and close marks.
        em: Italic's marks.
        strike: Strike-through's marks.
        code: Inline code (its text already escaped).
        link: A link from its rendered label and its target (the label equals the target for
            a bare URL).
        image: An image from its alt text and its source.
        heading: A heading from its level and its rendered text (bold inside a heading is
            not marked again).
        heading_is_bold: Whether :attr:`heading` makes its text bold (then a bold part of
            the heading is written without marks of its own).
        bullet: The marker of a bullet item.
        ordered: The marker of a numbered item, from its number.
        task: The markers of a done and an open task item (``- [x]``), or ``None`` to keep
            ``[x]`` as text.
        indent: Added before the lines of a nested list, per level.
        quote: A quote from its rendered blocks.
        fence: A code block from its language and its (escaped) code.
        table: A table from its header cells and rows (cells rendered inline).
        rule: A thematic break (``---``).
        hardbreak: A hard line break inside a paragraph.
    """

    name: str
    escape: Callable[[str], str] = _same
    escape_code: Callable[[str], str] = _same
    strong: Mark = ("**", "**")
    em: Mark = ("*", "*")
    strike: Mark = ("~~", "~~")
    code: Callable[[str], str] = _code
    link: Callable[[str, str], str] = _link
    image: Callable[[str, str], str] = _image
    heading: Callable[[int, str], str] = _heading
    heading_is_bold: bool = False
    bullet: str = "-"
    ordered: Callable[[int], str] = field(default=lambda n: f"{n}.")
    task: tuple[str, str] | None = None
    indent: str = "  "
    quote: Callable[[str], str] = _quote
    fence: Callable[[str, str], str] = _fence
    table: Callable[[list[str], list[list[str]]], str] = _table
    rule: str = "---"
    hardbreak: str = "\n"


MARKDOWN = Rules(name="markdown")
"""CommonMark written back (Mattermost, WeCom markdown): the base the others change."""


def _plain_link(label: str, href: str) -> str:
    return href if not label or label == href else f"{label} ({href})"


def _plain_table(header: list[str], rows: list[list[str]]) -> str:
    """One line per row, each cell named by its column: ``A: 1 · B: 2``."""
    lines = []
    for row in rows:
        cells = [f"{h}: {c}" if h else c for h, c in zip(header, row, strict=False) if c]
        lines.append(" · ".join(cells))
    return "\n".join(line for line in lines if line) or " · ".join(header)


PLAIN = Rules(
    name="plain",
    strong=("", ""),
    em=("", ""),
    strike=("", ""),
    code=_same,
    link=_plain_link,
    image=_plain_link,
    heading=lambda level, text: text,
    bullet="•",
    task=("☑", "☐"),
    quote=lambda text: "\n".join(f"> {line}" if line else ">" for line in text.split("\n")),
    fence=lambda language, code: code,
    table=_plain_table,
    rule="───",
)
"""Plain text (NapCat, Signal's body, e-mail's text part): no marks, links spelled out."""
