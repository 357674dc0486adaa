"""Markdown answers as Signal text: plain text plus signal-cli ``textStyle`` ranges.

Signal has no markup language: a message is plain text with style ranges
(``"start:length:STYLE"``, counted in UTF-16 code units, styles ``BOLD``, ``ITALIC``,
``STRIKETHROUGH``, ``MONOSPACE``, ``SPOILER``), which signal-cli's ``send`` takes as
``textStyle``. Headings become bold lines, list markers bullets, links ``text (url)``, code
monospace; a long answer is cut under :data:`LIMIT` with each piece's ranges rebased on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop.core.channels.base import split_message

LIMIT = 64_000
"""Characters per message (nanobot's limit for signal-cli; the protocol caps a body near 64 KB)."""

_FENCE = re.compile(r"```[^\n`]*\n?(.*?)```", re.DOTALL)
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|\[(?P<label>[^\]\n]+)\]\((?P<url>[^)\s]+)\)"
    r"|\*\*(?P<b1>.+?)\*\*|__(?P<b2>.+?)__"
    r"|~~(?P<s>.+?)~~"
    r"|(?<![\w*])\*(?P<i1>[^*\n]+?)\*(?![\w*])|(?<![\w_])_(?P<i2>[^_\n]+?)_(?![\w_])"
    r"|\|\|(?P<sp>.+?)\|\|",
    re.DOTALL,
)
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_QUOTE = re.compile(r"^>\s?")


def utf16_len(text: str) -> int:
    """The length of ``text`` in UTF-16 code units (what Signal's ranges count)."""
    return len(text.encode("utf-16-le")) // 2


@dataclass
class _Out:
    text: str = ""
    at: int = 0  # UTF-16 length of text
    styles: list[str] | None = None

    def add(self, text: str, styles: frozenset[str] = frozenset()) -> None:
        if not text:
            return
        length = utf16_len(text)
        for style in sorted(styles):
            assert self.styles is not None
            self.styles.append(f"{self.at}:{length}:{style}")
        self.text += text
        self.at += length


def _inline(out: _Out, text: str, styles: frozenset[str]) -> None:
    """Inline Markdown of one line (or a run of lines) into ``out``."""
    pos = 0
    for match in _INLINE.finditer(text):
        out.add(text[pos : match.start()], styles)
        pos = match.end()
        groups = match.groupdict()
        if groups["code"] is not None:
            out.add(groups["code"], styles | {"MONOSPACE"})
        elif groups["label"] is not None:
            label, url = groups["label"], groups["url"]
            same = label.strip().rstrip("/").lower() in url.rstrip("/").lower()
            out.add(url if same else f"{label} ({url})", styles)
        elif (bold := groups["b1"] or groups["b2"]) is not None:
            _inline(out, bold, styles | {"BOLD"})
        elif groups["s"] is not None:
            _inline(out, groups["s"], styles | {"STRIKETHROUGH"})
        elif (italic := groups["i1"] or groups["i2"]) is not None:
            _inline(out, italic, styles | {"ITALIC"})
        elif groups["sp"] is not None:
            _inline(out, groups["sp"], styles | {"SPOILER"})
    out.add(text[pos:], styles)


def _lines(out: _Out, text: str) -> None:
    """Block Markdown (headings, lists, quotes) of text without code fences into ``out``."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if heading := _HEADING.match(line):
            _inline(out, heading.group(1), frozenset({"BOLD"}))
        else:
            line = _QUOTE.sub("", line)
            line = _BULLET.sub(lambda m: f"{m.group(1)}• ", line)
            _inline(out, line, frozenset())
        if number < len(lines) - 1:
            out.add("\n")


def to_signal(markdown: str) -> tuple[str, list[str]]:
    """``markdown`` as Signal plain text and its ``textStyle`` ranges."""
    out = _Out(styles=[])
    pos = 0
    for fence in _FENCE.finditer(markdown):
        _lines(out, markdown[pos : fence.start()])
        out.add(fence.group(1).rstrip("\n"), frozenset({"MONOSPACE"}))
        pos = fence.end()
    _lines(out, markdown[pos:])
    assert out.styles is not None
    return out.text, out.styles


def pieces(markdown: str, limit: int = LIMIT) -> list[tuple[str, list[str]]]:
    """``markdown`` as Signal messages under ``limit`` characters, each with its own ranges
    (a range cut by a split goes on in the next piece)."""
    text, styles = to_signal(markdown)
    if not text.strip():
        return []
    chunks = split_message(text, limit)
    found: list[tuple[str, list[str]]] = []
    cursor = 0
    for chunk in chunks:
        start = text.find(chunk, cursor)
        start = cursor if start < 0 else start
        cursor = start + len(chunk)
        begin = utf16_len(text[:start])
        end = begin + utf16_len(chunk)
        mine: list[str] = []
        for entry in styles:
            first, length, style = entry.split(":", 2)
            lo, hi = max(int(first), begin), min(int(first) + int(length), end)
            if hi > lo:
                mine.append(f"{lo - begin}:{hi - lo}:{style}")
        found.append((chunk, mine))
    return found
