"""Markdown → the HTML subset QTextDocument renders (no web engine).

markdown-it-py (CommonMark + tables + strikethrough) with Pygments highlighting. Code blocks
become a small table with the language and a ``Copy`` link (``copy-code:<n>``); bare
``http(s)://`` URLs become links. Raw HTML in messages is escaped, never rendered.

This module does not import Qt: it is plain string work, cheap to test.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from desktop.core.utils.i18n import QT_TR_NOOP

COPY_CODE = "copy-code:"
COPY_LABEL = QT_TR_NOOP("Copy")  # marked; the view passes it in translated
CODE_LABEL = QT_TR_NOOP("code")
_URL = re.compile(r"https?://[^\s<>\"')\]]+[^\s<>\"')\].,;:!?]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


@dataclass(frozen=True)
class Theme:
    """Colours of rendered markdown (hex strings)."""

    dark: bool
    text: str
    muted: str
    link: str
    code_bg: str
    code_border: str
    table_border: str
    table_head: str
    quote: str

    @property
    def pygments_style(self) -> str:
        """The Pygments style matching the background."""
        return "monokai" if self.dark else "friendly"


LIGHT = Theme(
    False, "#1f2328", "#656d76", "#0969da", "#f6f8fa", "#d0d7de", "#afb8c1", "#eaeef2", "#57606a"
)
DARK = Theme(
    True, "#e6edf3", "#9198a1", "#58a6ff", "#161b22", "#3d444d", "#3d444d", "#262c36", "#9198a1"
)


@dataclass
class Rendered:
    """The result of rendering one markdown text.

    Attributes:
        html: The HTML for ``QTextDocument.setHtml``.
        code_blocks: Source of each code block, indexed by the ``copy-code:<n>`` links.
    """

    html: str
    code_blocks: list[str] = field(default_factory=list)


@lru_cache(maxsize=64)
def _formatter(style: str) -> HtmlFormatter[str]:
    return HtmlFormatter(nowrap=True, noclasses=True, style=style)


@lru_cache(maxsize=128)
def _lexer(language: str) -> Lexer | None:
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def highlight_code(code: str, language: str, theme: Theme) -> str:
    """Code as HTML spans with inline colours (escaped plain text for unknown languages)."""
    lexer = _lexer(language.lower()) if language else None
    if lexer is None:
        return html.escape(code)
    return highlight(code, lexer, _formatter(theme.pygments_style)).rstrip("\n")


def _linkify(state: Any) -> None:
    """Core rule: turn bare URLs in text tokens into link tokens (code is left alone)."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        inside_link = 0
        for token in block.children:
            if token.type == "link_open":
                inside_link += 1
            elif token.type == "link_close":
                inside_link -= 1
            if token.type != "text" or inside_link or "http" not in token.content:
                children.append(token)
                continue
            text, last = token.content, 0
            for match in _URL.finditer(text):
                if match.start() > last:
                    children.append(_text_token(text[last : match.start()]))
                opener = Token("link_open", "a", 1)
                opener.attrs = {"href": match.group(0)}
                children.extend([opener, _text_token(match.group(0)), Token("link_close", "a", -1)])
                last = match.end()
            if last < len(text):
                children.append(_text_token(text[last:]))
        block.children = children


def _text_token(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


class MarkdownRenderer:
    """Renders chat messages for one colour theme.

    Args:
        theme: Colours (see :data:`LIGHT` and :data:`DARK`).
        copy_label: The text of a code block's copy link (in the window's language).
        code_label: What a code block without a language is called.
    """

    def __init__(
        self, theme: Theme = LIGHT, *, copy_label: str = COPY_LABEL, code_label: str = CODE_LABEL
    ) -> None:
        self.theme = theme
        self.copy_label = html.escape(copy_label)
        self.code_label = html.escape(code_label)
        self._md = self._parser(math=False)
        self._math_md: MarkdownIt | None = None  # made for the first text with a "$"
        self._blocks: list[str] = []
        self._highlight = True

    def _parser(self, *, math: bool) -> MarkdownIt:
        md = MarkdownIt("commonmark", {"html": False, "breaks": True})
        md.enable(["table", "strikethrough"])
        md.core.ruler.push("linkify_bare_urls", _linkify)
        renderer = md.renderer
        assert isinstance(renderer, RendererHTML)  # MarkdownIt's default renderer
        rules: dict[str, Any] = renderer.rules  # plain callables (tokens, idx, options, env)
        rules["fence"] = self._fence
        rules["code_block"] = self._fence
        rules["code_inline"] = self._code_inline
        rules["table_open"] = self._table_open
        rules["th_open"] = self._cell_open
        rules["td_open"] = self._cell_open
        rules["blockquote_open"] = self._quote_open
        rules["blockquote_close"] = lambda *_: "</td></tr></table>\n"
        if math:  # TeX in answers: loaded with the first text that can have some
            from desktop.ui.chat.math_render import add_math

            add_math(md, lambda: (self.theme.text, self.theme.code_bg))
        return md

    # -- render rules ---------------------------------------------------------------------
    def _fence(self, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        code = token.content.rstrip("\n")
        language = token.info.strip().split(" ")[0] if token.info else ""
        index = len(self._blocks)
        self._blocks.append(code)
        theme = self.theme
        body = highlight_code(code, language, theme) if self._highlight else html.escape(code)
        label = html.escape(language) or self.code_label
        return (
            f'<table width="100%" cellspacing="0" cellpadding="6" border="0" '
            f'style="background-color:{theme.code_bg}; margin-top:4px; margin-bottom:4px">'
            f'<tr style="background-color:{theme.table_head}">'
            f'<td><span style="color:{theme.muted}; font-size:small">{label}</span></td>'
            f'<td align="right"><a href="{COPY_CODE}{index}" '
            f'style="color:{theme.link}; font-size:small; text-decoration:none">{self.copy_label}</a></td></tr>'
            f'<tr><td colspan="2"><pre style="margin:0; white-space:pre-wrap; '
            f'font-family:monospace">{body}</pre></td></tr></table>\n'
        )

    def _code_inline(self, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
        content = html.escape(tokens[idx].content)
        return (
            f'<code style="background-color:{self.theme.code_bg}; '
            f'font-family:monospace">&#8202;{content}&#8202;</code>'
        )

    def _table_open(self, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
        return (
            f'<table border="1" cellspacing="0" cellpadding="5" '
            f'style="border-collapse: collapse; border-style: solid; border-color:{self.theme.table_border}; '
            f'margin-top:4px; margin-bottom:4px">\n'
        )

    def _cell_open(self, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        style = token.attrGet("style") or ""
        align = ""
        if "text-align:" in str(style):
            align = f' align="{str(style).split(":", 1)[1].strip()}"'
        if token.tag == "th":
            return f'<th{align} style="background-color:{self.theme.table_head}">'
        return f"<td{align}>"

    def _quote_open(self, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
        return (
            f'<table cellspacing="0" cellpadding="0" style="margin-top:2px; margin-bottom:2px">'
            f'<tr><td width="3" style="background-color:{self.theme.code_border}"></td>'
            f'<td style="padding-left:10px; color:{self.theme.quote}">'
        )

    # -- API ------------------------------------------------------------------------------
    def render(self, text: str, *, highlight_code_blocks: bool = True) -> Rendered:
        """Render ``text``; ``highlight_code_blocks=False`` skips Pygments (fast, for streams)."""
        self._blocks = []
        self._highlight = highlight_code_blocks
        md = self._md
        if "$" in text:
            if self._math_md is None:
                self._math_md = self._parser(math=True)
            md = self._math_md
        body = md.render(text)
        return Rendered(body, self._blocks)


def split_stable(text: str) -> tuple[list[str], str]:
    """Split a growing markdown text into finished blocks and the unfinished tail.

    The split points are blank lines outside fenced code, so each finished block renders the
    same however much text follows it; only the tail must be rendered again as text streams.
    """
    parts: list[str] = []
    start = 0
    open_fence: str | None = None
    position = 0
    for line in text.splitlines(keepends=True):
        position += len(line)
        match = _FENCE.match(line)
        if match:
            marker = match.group(1)
            if open_fence is None:
                open_fence = marker
            elif (
                marker[0] == open_fence[0]
                and len(marker) >= len(open_fence)
                and not line.strip()[len(marker) :].strip()
            ):
                open_fence = None
            continue
        if open_fence is None and not line.strip() and position < len(text):
            block = text[start:position]
            if block.strip():
                parts.append(block)
            start = position
    return parts, text[start:]
