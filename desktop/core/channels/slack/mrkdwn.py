"""Markdown answers as Slack ``mrkdwn``, in pieces under Slack's message length.

Slack's markup is its own: ``*bold*``, ``_italic_``, ``~strike~``, `` `code` ``, fenced code
blocks (without a language), ``<url|text>`` links and ``>`` quotes; it has no headings, lists
or tables, and ``&``, ``<`` and ``>`` in text must be escaped as ``&amp;``, ``&lt;`` and
``&gt;``. So headings become bold lines, bullets become ``•``, tables become one line per row,
and everything outside code is escaped.

:func:`pieces` splits the converted text between blocks (paragraphs, code blocks), never
inside a code block unless the block alone is longer than a piece; such a block is split
between lines, and each part is closed and reopened as a code block of its own.
"""

from __future__ import annotations

from desktop.core.channels.render import Rules, render

LIMIT = 4000
"""Characters per message: Slack shows longer ``text`` collapsed and recommends at most
4,000 (it truncates at 40,000)."""


def escape(text: str) -> str:
    """Slack's three control characters escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _link(label: str, href: str) -> str:
    if not label:
        return f"<{href}>"
    return f"<{href}|{label.replace('|', '/')}>"


def _table(header: list[str], rows: list[list[str]]) -> str:
    """One line per row: ``*Header*: cell · *Header*: cell``."""
    lines = []
    for row in rows:
        cells = [f"*{h}*: {c}" if h else c for h, c in zip(header, row, strict=False) if c]
        if cells:
            lines.append(" · ".join(cells))
    return "\n".join(lines)


MRKDWN = Rules(
    name="slack",
    escape=escape,
    escape_code=escape,
    strong=("*", "*"),
    em=("_", "_"),
    strike=("~", "~"),
    code=lambda text: f"`{text}`",
    link=_link,
    image=_link,
    heading=lambda level, text: f"*{text}*",
    heading_is_bold=True,
    bullet="•",
    task=("☑", "☐"),
    indent="    ",
    fence=lambda language, code: f"```\n{code}\n```",
    table=_table,
    rule="───",
)
"""Slack's mrkdwn (see the module docstring)."""


def to_mrkdwn(markdown: str) -> str:
    """``markdown`` as Slack mrkdwn (see the module docstring)."""
    return render(markdown, MRKDWN)


def _blocks(text: str) -> list[str]:
    """``text`` cut into paragraphs, a code block always whole."""
    blocks: list[str] = []
    current: list[str] = []
    in_code = False
    for line in text.split("\n"):
        if line.startswith("```"):
            if not in_code and current:
                blocks.append("\n".join(current))
                current = []
            current.append(line)
            in_code = not in_code
            if not in_code:
                blocks.append("\n".join(current))
                current = []
            continue
        if not in_code and not line.strip():
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _split_long(block: str, limit: int) -> list[str]:
    """A block longer than ``limit``: between lines (a code block re-fenced per part)."""
    code = block.startswith("```") and block.endswith("```") and block.count("\n") >= 1
    lines = block.split("\n")[1:-1] if code else block.split("\n")
    room = limit - 8 if code else limit  # "```\n" + "\n```"
    parts: list[str] = []
    current = ""
    for line in lines:
        while len(line) > room:  # a single line longer than a piece: cut it
            if current:
                parts.append(current)
                current = ""
            cut = line.rfind(" ", 0, room)
            cut = cut if cut > room // 2 else room
            parts.append(line[:cut])
            line = line[cut:].lstrip(" ") if cut < room else line[cut:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > room and current:
            parts.append(current)
            current = line
        else:
            current = candidate
    if current:
        parts.append(current)
    return [f"```\n{p}\n```" for p in parts] if code else parts


def pieces(mrkdwn: str, limit: int = LIMIT) -> list[str]:
    """``mrkdwn`` in messages of at most ``limit`` characters, split between blocks."""
    if len(mrkdwn) <= limit:
        return [mrkdwn] if mrkdwn.strip() else []
    out: list[str] = []
    current = ""
    for block in _blocks(mrkdwn):
        parts = _split_long(block, limit) if len(block) > limit else [block]
        for part in parts:
            candidate = f"{current}\n\n{part}" if current else part
            if len(candidate) > limit and current:
                out.append(current)
                current = part
            else:
                current = candidate
    if current:
        out.append(current)
    return out
