"""Markdown answers as Telegram HTML, in pieces that fit one message.

Telegram's HTML parse mode knows a handful of tags (``b i u s code pre a blockquote`` and a
few aliases); everything else must be escaped. The model writes CommonMark, so the answer is
parsed with ``markdown-it-py`` and rendered by hand into that subset: headings become bold,
lists get bullets or numbers, tables become aligned text in ``<pre>``, raw HTML is shown as
text, and code keeps every character.

Splitting happens on the markdown, not on the HTML: the answer is cut between top-level
blocks (paragraphs, lists, code blocks …), and each piece is rendered on its own, so a piece
is always well-formed HTML and never ends inside a tag. A block that alone is too long is cut
on its line boundaries (then words); a code block that is too long becomes several complete
code blocks. Lengths are counted in UTF-16 code units, as Telegram counts them, over the HTML
source (which is never shorter than the text Telegram shows).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from desktop.core.channels.base import split_message

MESSAGE_LIMIT = 4096
"""Telegram's longest message text."""

_MD = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_LINK_SCHEMES = ("http://", "https://", "tg://", "mailto:")
_LANGUAGE = re.compile(r"^[A-Za-z0-9_+#.-]{1,32}$")
_INLINE_TAGS = {
    "strong_open": "<b>",
    "strong_close": "</b>",
    "em_open": "<i>",
    "em_close": "</i>",
    "s_open": "<s>",
    "s_close": "</s>",
}


def utf16_len(text: str) -> int:
    """Length as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def escape(text: str) -> str:
    """Text for Telegram HTML (``&``, ``<``, ``>`` escaped)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass(frozen=True)
class Piece:
    """One message: its markdown source (the plain-text fallback) and its HTML."""

    markdown: str
    html: str


# -- rendering ------------------------------------------------------------------------------
def _inline(tokens: Sequence[Token] | None) -> str:  # noqa: C901  # one branch per inline token kind
    out: list[str] = []
    links: list[bool] = []  # per open link: whether its <a> was written
    for tok in tokens or ():
        kind = tok.type
        if kind == "text":
            out.append(escape(tok.content))
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "code_inline":
            out.append(f"<code>{escape(tok.content)}</code>")
        elif kind in _INLINE_TAGS:
            out.append(_INLINE_TAGS[kind])
        elif kind == "link_open":
            href = str(tok.attrGet("href") or "")
            kept = href.lower().startswith(_LINK_SCHEMES)  # else only the text is shown
            links.append(kept)
            if kept:
                out.append(f'<a href="{html.escape(href, quote=True)}">')
        elif kind == "link_close":
            if links.pop() if links else True:
                out.append("</a>")
        elif kind == "image":
            src = str(tok.attrGet("src") or "")
            alt = escape(tok.content or "image")
            if src.lower().startswith(_LINK_SCHEMES):
                out.append(f'<a href="{html.escape(src, quote=True)}">{alt}</a>')
            else:
                out.append(alt)
        else:  # html_inline (html is off), anything new: its text
            out.append(escape(tok.content))
    return "".join(out)


def _plain(tokens: Sequence[Token] | None) -> str:
    """Inline content as plain text (table cells)."""
    parts: list[str] = []
    for tok in tokens or ():
        if tok.type in ("text", "code_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif tok.type == "image":
            parts.append(tok.content)
    return "".join(parts)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def _table(rows: list[list[str]]) -> str:
    """Rows of cells as aligned monospaced text (first row is the header)."""
    count = max(len(r) for r in rows)
    rows = [r + [""] * (count - len(r)) for r in rows]
    widths = [max(_width(r[c]) for r in rows) for c in range(count)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c + " " * (w - _width(c)) for c, w in zip(cells, widths, strict=True)
        ).rstrip()

    lines = [line(rows[0]), "  ".join("─" * w for w in widths)]
    lines.extend(line(r) for r in rows[1:])
    return "<pre>" + escape("\n".join(lines)) + "</pre>"


_LIST_TOKENS = frozenset(
    {
        "bullet_list_open",
        "ordered_list_open",
        "bullet_list_close",
        "ordered_list_close",
        "list_item_open",
        "list_item_close",
    }
)


class _Renderer:
    """Walks markdown-it's block tokens and writes Telegram HTML."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.lists: list[dict[str, Any]] = []  # {"ordered": bool, "next": int, "tight": bool}
        self.quote = 0
        self.prefix: str | None = None  # a list item's marker, written before its first block

    def _separate(self, want: str) -> None:
        """End the previous block with ``want`` (``"\n"`` or ``"\n\n"``) unless a stronger
        separator is already there."""
        if not self.out or self.out[-1] in ("<blockquote>", "\n\n"):
            return
        if self.out[-1] == "\n":
            if want == "\n\n":
                self.out[-1] = want
            return
        self.out.append(want)

    def _start_block(self) -> None:
        """Separate the next block (a blank line at the top level, a line break in lists and
        quotes), then write the list marker or the item's indentation."""
        self._separate("\n" if self.lists or self.quote else "\n\n")
        indent = "  " * max(len(self.lists) - 1, 0)
        if self.prefix is not None:
            self.out.append(indent + self.prefix)
            self.prefix = None
        elif self.lists:
            self.out.append(indent + "  ")

    def render(self, tokens: Sequence[Token]) -> str:
        """Telegram HTML for the block tokens of one parse."""
        index = 0
        while index < len(tokens):
            tok = tokens[index]
            if tok.type in ("paragraph_open", "heading_open"):
                self._start_block()
                text = _inline(tokens[index + 1].children)
                self.out.append(f"<b>{text}</b>" if tok.type == "heading_open" else text)
                index += 2  # its inline content and its close are written
            elif tok.type == "table_open":
                index = self._table(tokens, index)
            elif tok.type in _LIST_TOKENS:
                self._list(tok)
            elif tok.type in ("blockquote_open", "blockquote_close"):
                self._quote(opening=tok.type == "blockquote_open")
            else:
                self._leaf(tok)
            index += 1
        text = "".join(self.out)
        return text.replace("<blockquote>\n", "<blockquote>").strip("\n")

    def _leaf(self, tok: Token) -> None:
        """A block with no blocks inside: code, a rule, raw HTML (shown as text), inline."""
        kind = tok.type
        if kind in ("fence", "code_block"):
            self._start_block()
            code = escape(tok.content.rstrip("\n"))
            language = tok.info.strip().split(" ")[0] if tok.info else ""
            if _LANGUAGE.match(language):
                self.out.append(f'<pre><code class="language-{language}">{code}</code></pre>')
            else:
                self.out.append(f"<pre>{code}</pre>")
        elif kind == "hr":
            self._start_block()
            self.out.append("———")
        elif kind == "html_block":
            self._start_block()
            self.out.append(escape(tok.content.rstrip("\n")))
        elif kind == "inline":
            self.out.append(_inline(tok.children))

    def _list(self, tok: Token) -> None:
        """A list opens or closes, or one of its items does."""
        kind = tok.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            if not self.lists and not self.quote:
                self._separate("\n\n")
            start = int(tok.attrGet("start") or 1)
            self.lists.append({"ordered": kind == "ordered_list_open", "next": start})
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "list_item_open":
            current = self.lists[-1]
            if current["ordered"]:
                self.prefix = f"{current['next']}. "
                current["next"] += 1
            else:
                self.prefix = "• "
        elif self.prefix is not None:  # list_item_close of an empty item
            self._start_block()

    def _quote(self, *, opening: bool) -> None:
        """A quote opens or closes; nested quotes are one ``<blockquote>``."""
        if opening:
            self._start_block()
            if self.quote == 0:
                self.out.append("<blockquote>")
            self.quote += 1
            return
        self.quote -= 1
        if self.quote == 0:
            while self.out and self.out[-1] in ("\n", "\n\n"):
                self.out.pop()
            self.out.append("</blockquote>")

    def _table(self, tokens: Sequence[Token], index: int) -> int:
        """Write the table opening at ``index``; returns the index of its ``table_close``."""
        rows: list[list[str]] = []
        index += 1
        while tokens[index].type != "table_close":
            if tokens[index].type == "tr_open":
                rows.append([])
            elif tokens[index].type == "inline":
                rows[-1].append(_plain(tokens[index].children).strip())
            index += 1
        self._start_block()
        self.out.append(_table(rows) if rows else "")
        return index


def to_html(markdown: str, env: dict[str, Any] | None = None) -> str:
    """``markdown`` as Telegram HTML (no length limit applied)."""
    tokens = _MD.parse(markdown, dict(env or {}))
    return _Renderer().render(tokens)


# -- splitting ------------------------------------------------------------------------------
def _blocks(markdown: str) -> tuple[list[tuple[str, bool]], dict[str, Any]]:
    """Top-level blocks as ``(source, is_code)`` plus the parse env (link references)."""
    env: dict[str, Any] = {}
    tokens = _MD.parse(markdown, env)
    lines = markdown.splitlines(keepends=True)
    blocks: list[tuple[str, bool]] = []
    for tok in tokens:
        if tok.level == 0 and tok.nesting in (0, 1) and tok.map is not None:
            start, end = tok.map
            source = "".join(lines[start:end]).strip("\n")
            if source.strip():
                blocks.append((source, tok.type in ("fence", "code_block")))
    return blocks, env


def _split_code(source: str, limit: int, env: dict[str, Any]) -> list[Piece]:
    """A code block too long for one message as several complete code blocks."""
    tokens = _MD.parse(source, dict(env))
    code_token = next(t for t in tokens if t.type in ("fence", "code_block"))
    info = code_token.info.strip()
    fence = "```"
    while fence in code_token.content:
        fence += "`"
    overhead = utf16_len(to_html(f"{fence}{info}\n\n{fence}", env)) + 1
    budget = max(limit - overhead, 16)
    pieces: list[Piece] = []
    current: list[str] = []
    size = 0

    def flush() -> None:
        if current:
            body = "".join(current).rstrip("\n")
            md = f"{fence}{info}\n{body}\n{fence}"
            pieces.append(Piece(md, to_html(md, env)))
            current.clear()

    for line in code_token.content.splitlines(keepends=True):
        while utf16_len(escape(line)) > budget:  # one enormous line: cut it
            cut = budget // 5 or 1  # escaping may grow a character fivefold (&amp;)
            flush()
            size = 0
            current.append(line[:cut] + "\n")
            flush()
            line = line[cut:]
        cost = utf16_len(escape(line))
        if size + cost > budget:
            flush()
            size = 0
        current.append(line)
        size += cost
    flush()
    return pieces


def _split_block(source: str, is_code: bool, limit: int, env: dict[str, Any]) -> list[Piece]:
    """One top-level block as pieces that each fit ``limit``."""
    rendered = to_html(source, env)
    if utf16_len(rendered) <= limit:
        return [Piece(source, rendered)]
    if is_code:
        return _split_code(source, limit, env)
    budget = limit
    while True:
        parts = split_message(source, budget)
        pieces = [Piece(p, to_html(p, env)) for p in parts]
        if all(utf16_len(p.html) <= limit for p in pieces) or budget <= 1:
            return pieces
        budget = max(budget * 3 // 4, 1)


def split_pieces(markdown: str, limit: int = MESSAGE_LIMIT) -> list[Piece]:
    """``markdown`` as messages of at most ``limit`` UTF-16 units of HTML each.

    Cuts fall between top-level blocks where possible (then lines, then words); every piece is
    rendered on its own, so its HTML is complete and code blocks are never broken open.
    """
    text = markdown.strip()
    if not text:
        return []
    if utf16_len(text) <= 2 * limit:  # else it cannot fit: skip rendering it whole
        whole = to_html(text)
        if utf16_len(whole) <= limit:
            return [Piece(text, whole)]
    blocks, env = _blocks(text)
    pieces: list[Piece] = []
    sources: list[str] = []
    htmls: list[str] = []
    size = 0
    for source, is_code in blocks:
        for part in _split_block(source, is_code, limit, env):
            cost = utf16_len(part.html) + (2 if htmls else 0)
            if htmls and size + cost > limit:
                pieces.append(Piece("\n\n".join(sources), "\n\n".join(htmls)))
                sources, htmls, size = [], [], 0
                cost = utf16_len(part.html)
            sources.append(part.markdown)
            htmls.append(part.html)
            size += cost
    if htmls:
        pieces.append(Piece("\n\n".join(sources), "\n\n".join(htmls)))
    return [p for p in pieces if p.html.strip()]
