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

import re

LIMIT = 4000
"""Characters per message: Slack shows longer ``text`` collapsed and recommends at most
4,000 (it truncates at 40,000)."""

_FENCE = re.compile(r"^(\s*)(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+|mailto:[^>\s]+)>")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC_STAR = re.compile(r"(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])")
_ITALIC_UNDERSCORE = re.compile(r"(?<![_\w])_(?=\S)([^_\n]+?)(?<=\S)_(?![_\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_TASK = re.compile(r"^\[([ xX])\]\s+")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_PLACEHOLDER = "\x00{}\x00"
_RESTORE = re.compile("\x00(\\d+)\x00")


def escape(text: str) -> str:
    """Slack's three control characters escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _inline(text: str) -> str:
    """One line of Markdown (outside code blocks) as mrkdwn."""
    kept: list[str] = []

    def keep(value: str) -> str:
        kept.append(value)
        return _PLACEHOLDER.format(len(kept) - 1)

    text = _INLINE_CODE.sub(lambda m: keep(f"`{escape(m.group(2).strip('`'))}`"), text)

    def link(match: re.Match[str]) -> str:
        label, url = match.group(1).strip(), match.group(2)
        if not label or label == url:
            return keep(f"<{url}>")
        return keep(f"<{url}|{escape(label).replace('|', '/')}>")

    text = _LINK.sub(link, text)
    text = _AUTOLINK.sub(lambda m: keep(f"<{m.group(1)}>"), text)
    text = escape(text)
    text = _BOLD.sub(lambda m: keep(f"*{m.group(2)}*"), text)
    text = _STRIKE.sub(r"~\1~", text)
    text = _ITALIC_STAR.sub(r"_\1_", text)
    text = _ITALIC_UNDERSCORE.sub(r"_\1_", text)
    while _RESTORE.search(text):
        text = _RESTORE.sub(lambda m: kept[int(m.group(1))], text)
    return text


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table(lines: list[str]) -> list[str]:
    """A Markdown table as one line per row: ``*Header*: cell · *Header*: cell``."""
    headers = _cells(lines[0])
    rows: list[str] = []
    for line in lines[2:]:
        cells = _cells(line)
        parts = [
            f"*{_inline(h)}*: {_inline(c)}" if h else _inline(c)
            for h, c in zip(headers, cells, strict=False)
            if c
        ]
        if parts:
            rows.append(" · ".join(parts))
    return rows


def _line(line: str) -> str:
    heading = _HEADING.match(line)
    if heading:
        title = _BOLD.sub(r"\2", heading.group(1))
        return f"*{_inline(title)}*" if title else ""
    if _RULE.match(line):
        return "───"
    bullet = _BULLET.match(line)
    if bullet:
        indent, item = bullet.group(1), bullet.group(2)
        task = _TASK.match(item)
        mark = "•"
        if task:
            mark = "☑" if task.group(1).lower() == "x" else "☐"
            item = item[task.end() :]
        return f"{' ' * (len(indent.expandtabs(4)) // 2 * 4)}{mark} {_inline(item)}"
    quote = re.match(r"^(\s*>+\s?)(.*)$", line)
    if quote:
        return "> " + _inline(quote.group(2))
    return _inline(line)


def to_mrkdwn(markdown: str) -> str:
    """``markdown`` as Slack mrkdwn (see the module docstring)."""
    out: list[str] = []
    lines = markdown.replace("\r\n", "\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(2)
            body: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(marker):
                body.append(lines[index])
                index += 1
            index += 1  # the closing fence (or the end of an unclosed block)
            out.append("```\n" + escape("\n".join(body)) + "\n```")
            continue
        if (
            "|" in line
            and index + 1 < len(lines)
            and "|" in lines[index + 1]
            and _TABLE_RULE.match(lines[index + 1])
        ):
            end = index + 2
            while end < len(lines) and "|" in lines[end] and lines[end].strip():
                end += 1
            out.extend(_table(lines[index:end]))
            index = end
            continue
        out.append(_line(line))
        index += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


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
