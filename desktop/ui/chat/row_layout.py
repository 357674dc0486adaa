"""Lay out one conversation row: its text documents, bubble or card, and click targets.

A :class:`RowLayout` is built for one item at one width and cached by the view (keyed by the
item's version, the width and the theme). Only rows that are on screen are ever laid out.
A streaming answer is split into finished blocks (each rendered once) and a tail that is
rendered again per frame, so a long answer does not get slower to stream as it grows.
"""

from __future__ import annotations

import html
import json
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QRectF, QUrl
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QTextDocument

from desktop.core.tools.exec_session import session_in
from desktop.ui.chat.colors import ChatColors
from desktop.ui.chat.diff_view import diff_block, header_path_link, link_paths
from desktop.ui.chat.items import ChatItem
from desktop.ui.chat.markdown import CODE_LABEL, COPY_LABEL, MarkdownRenderer, split_stable
from desktop.ui.i18n import localized, tr

MARGIN_X = 16.0
GAP = 12.0
PAD = 10.0
MAX_CONTENT = 880.0
SPINNER = 14.0
TOGGLE = "toggle:"
VERSION = "version:"  # "version:-1" / "version:+1": show the previous / next version
PREVIEW_CHARS = 2000
LONG_TEXT = 3000  # longer answers are rendered (and cached) block by block
SEGMENT_CACHE = 600
DOCUMENT_ENDINGS = (".pdf", ".docx", ".xlsx", ".pptx")  # attachments shown as [file: name]


@dataclass
class DocPart:
    """One text document placed in a row (row-relative position)."""

    doc: QTextDocument
    x: float
    y: float
    code_blocks: list[str] = field(default_factory=list)
    volatile: bool = False  # re-rendered every frame (a stream's tail): never cached as pixels

    def rect(self) -> QRectF:
        """Where the document is drawn, row-relative."""
        size = self.doc.size()
        return QRectF(self.x, self.y, size.width(), size.height())


@dataclass
class RowLayout:
    """Geometry of one row.

    Attributes:
        height: Total height including the gap below.
        parts: Documents to draw.
        card: Bubble or card rectangle (``None``: no background).
        style: ``bubble``, ``card``, ``report``, ``notice`` or ``plain``.
        copy: Where the "Copy" button of the message is (shown on hover).
        toggle: Clicking here expands or collapses the row.
        spinner: Where the running spinner turns.
        marker: Colour name of the status strip on a card (``ok``, ``error``, ``warn``, ``accent``).
    """

    height: float
    parts: list[DocPart]
    card: QRectF | None = None
    style: str = "plain"
    copy: QRectF | None = None
    toggle: QRectF | None = None
    spinner: QRectF | None = None
    marker: str = ""


def content_rect(width: float) -> tuple[float, float]:
    """Left edge and width of the readable column for a viewport ``width``."""
    usable = max(120.0, width - 2 * MARGIN_X)
    column = min(usable, MAX_CONTENT)
    return MARGIN_X + (usable - column) / 2, column


def duration_text(seconds: float | None) -> str:
    """``0.12 s``, ``4.2 s``, ``2 m 05 s``."""
    if seconds is None:
        return ""
    if seconds < 10:
        shown = f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}"
        return tr("{seconds} s").format(seconds=shown)
    if seconds < 60:
        return tr("{seconds} s").format(seconds=f"{seconds:.0f}")
    minutes, rest = divmod(int(seconds), 60)
    return tr("{minutes} m {seconds} s").format(minutes=minutes, seconds=f"{rest:02d}")


def argument_summary(
    arguments: dict[str, Any], limit: int = 90, *, tool: str = "", result: str = ""
) -> str:
    """One line for a card header: the command, the path, or compact JSON; for a call on an
    exec session (``exec_session``, or an ``exec`` that left one running) what it sent and
    the session's id and state, which stay visible when the line is cut."""
    session = session_in(result) if tool in ("exec", "exec_session") else None
    suffix = ""
    if session:
        state = tr("running") if session[1] else tr("ended")
        suffix = tr(" · session {session} ({state})").format(session=session[0], state=state)
    if tool == "exec_session":
        text = _session_action(arguments)
        if not session and arguments.get("session_id"):
            suffix = tr(" · session {session}").format(session=arguments["session_id"])
    else:
        for key in ("command", "path", "url", "query", "pattern", "task", "content"):
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                text = " ".join(value.split())
                break
        else:
            text = json.dumps(arguments, ensure_ascii=False) if arguments else ""
    room = max(10, limit - len(suffix))
    return (text if len(text) <= room else text[: room - 1] + "…") + suffix


def _session_action(arguments: dict[str, Any]) -> str:
    """What an ``exec_session`` call does: the input it sends, or its wait or end."""
    data, wait_for = arguments.get("input"), arguments.get("wait_for")
    if arguments.get("terminate"):
        action = tr("terminate")
    elif isinstance(data, str) and data:
        action = " ".join(data.split()) or repr(data)
    elif isinstance(wait_for, str) and wait_for:
        action = tr("wait for {text}").format(text=repr(wait_for))
    elif arguments.get("until_exit"):
        action = tr("wait for the end")
    else:
        action = tr("read output")
    if arguments.get("close_stdin"):
        return tr("{action} · close input").format(action=action)
    return action


class RowBuilder:
    """Builds :class:`RowLayout` objects for a font and colour set."""

    def __init__(self, font: QFont, colors: ChatColors) -> None:
        self.font = font
        self.colors = colors
        self.css = colors.css()
        self.markdown = MarkdownRenderer(
            colors.markdown, copy_label=tr(COPY_LABEL), code_label=tr(CODE_LABEL)
        )
        self.small = QFont(font)
        self.small.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
        metrics = QFontMetricsF(font)
        self.line = metrics.lineSpacing()
        self.char = max(4.0, metrics.averageCharWidth())
        self.thumbnails: dict[str, QImage] = {}
        self.diff_mode = "inline"  # how file changes show in tool cards (diff_view)
        # segment text -> (width, DocPart template data) for streaming answers
        self._segments: OrderedDict[tuple[int, int], tuple[str, float, QTextDocument, list[str]]]
        self._segments = OrderedDict()

    # -- documents ------------------------------------------------------------------------
    def document(
        self,
        body: str,
        width: float,
        *,
        small: bool = False,
        images: dict[str, QImage] | None = None,
    ) -> QTextDocument:
        """A laid-out rich-text document (``images``: resources by URL, e.g. thumbnails)."""
        doc = QTextDocument()
        doc.setUndoRedoEnabled(False)
        doc.setDocumentMargin(0)
        doc.setDefaultFont(self.small if small else self.font)
        doc.setDefaultStyleSheet(self.css)
        for url, image in (images or {}).items():
            doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(url), image)
        doc.setHtml(body)
        doc.setTextWidth(max(10.0, width))
        return doc

    def _markdown_part(
        self,
        text: str,
        x: float,
        y: float,
        width: float,
        *,
        highlight: bool = True,
        extra: str = "",
    ) -> DocPart:
        rendered = self.markdown.render(text, highlight_code_blocks=highlight)
        body = link_paths(rendered.html)
        return DocPart(self.document(body + extra, width), x, y, rendered.code_blocks)

    def _footer(self, item: ChatItem) -> str:
        if not item.footer:
            return ""
        return (
            f'<p style="color:{self.colors.muted.name()}; font-size:small; margin-bottom:0">'
            f"{html.escape(localized(item.footer))}</p>"
        )

    # -- estimates ------------------------------------------------------------------------
    def estimate(self, item: ChatItem, width: float) -> float:
        """A cheap height guess for a row that has not been laid out yet."""
        return self.estimates([item], width)[0]

    def estimates(self, items: list[ChatItem], width: float) -> list[float]:
        """Height guesses for many rows (one tight loop: 10,000 rows in a few milliseconds)."""
        _, column = content_rect(width)
        line = self.line
        wide = max(10.0, (column - 2 * PAD) / self.char)
        narrow = max(10.0, (column * 0.78 - 2 * PAD) / self.char)
        card = line + 2 * PAD + GAP
        fixed = {"reasoning": line + GAP + 4, "notice": line + GAP}
        text_line = line * 1.15
        out: list[float] = []
        append = out.append
        for item in items:
            kind = item.kind
            if not item.expanded and (kind == "tool" or kind == "reasoning"):
                append(card if kind == "tool" else fixed["reasoning"])
                continue
            if kind == "notice":
                append(fixed["notice"])
                continue
            text = item.text if kind != "tool" else item.result + str(item.arguments)
            per_line = narrow if kind == "user" else wide
            lines = len(text) / per_line + text.count("\n") * 0.6 + 1.5
            extra = 2 * PAD + GAP
            if item.media:
                extra += 120
            if item.footer:
                extra += line
            if item.fork is not None:
                extra += line
            append(lines * text_line + extra)
        return out

    # -- layouts --------------------------------------------------------------------------
    def build(self, item: ChatItem, width: float) -> RowLayout:
        """The layout of ``item`` at viewport ``width``."""
        left, column = content_rect(width)
        kind = item.kind
        if kind == "user":
            return self._user(item, left, column)
        if kind == "tool":
            return self._tool(item, left, column)
        if kind == "reasoning":
            return self._reasoning(item, left, column)
        if kind == "notice":
            doc = self.document(
                f'<p align="center" style="color:{self.colors.muted.name()}">'
                f"{html.escape(localized(item.text))}</p>",
                column,
                small=True,
            )
            return RowLayout(doc.size().height() + GAP, [DocPart(doc, left, 0)], style="notice")
        return self._answer(item, left, column)

    def _media_html(self, item: ChatItem) -> str:
        cells = []
        for index, path in enumerate(item.media):
            if path in self.thumbnails:
                cells.append(f'<img src="thumb:{index}" />')
            else:
                name = tr("pasted image") if path.startswith("data:") else path.rsplit("/", 1)[-1]
                if name.lower().endswith(DOCUMENT_ENDINGS):
                    label = tr("[file: {name}]").format(name=name)
                else:
                    label = tr("[image: {name}]").format(name=name)
                cells.append(
                    f'<span style="color:{self.colors.muted.name()}">{html.escape(label)}</span>'
                )
        return f"<p>{'&nbsp;'.join(cells)}</p>" if cells else ""

    def _user(self, item: ChatItem, left: float, column: float) -> RowLayout:
        limit = column * 0.78 - 2 * PAD
        rendered = self.markdown.render(item.text)
        images = {
            f"thumb:{i}": self.thumbnails[path]
            for i, path in enumerate(item.media)
            if path in self.thumbnails
        }
        doc = self.document(rendered.html + self._media_html(item), limit, images=images)
        ideal = min(limit, math.ceil(doc.idealWidth()) + 1)
        if ideal < limit:
            doc.setTextWidth(ideal)
        size = doc.size()
        card = QRectF(
            left + column - size.width() - 2 * PAD,
            0,
            size.width() + 2 * PAD,
            size.height() + 2 * PAD,
        )
        part = DocPart(doc, card.x() + PAD, PAD, rendered.code_blocks)
        copy = QRectF(card.x() - 46, 2, 42, self.line)
        parts = [part]
        height = card.height()
        if item.fork is not None:
            switcher = self._versions_part(item.fork, card.right(), height + 2)
            parts.append(switcher)
            height = switcher.y + switcher.doc.size().height()
        return RowLayout(height + GAP, parts, card, "bubble", copy=copy)

    def _versions_part(self, fork: tuple[int, int, int], right: float, y: float) -> DocPart:
        """ "‹ 2/3 ›" under a message whose conversation has versions (right-aligned)."""
        _at, current, total = fork
        muted = self.colors.muted.name()

        def arrow(symbol: str, step: str, enabled: bool) -> str:
            shown = f'<b style="font-size:large">&nbsp;{symbol}&nbsp;</b>'
            if enabled:
                return f'<a href="{VERSION}{step}" style="text-decoration:none">{shown}</a>'
            return f'<span style="color:{muted}">{shown}</span>'

        body = (
            f'<p style="color:{muted}">{arrow("‹", "-1", current > 1)}'
            f"&nbsp;{current} / {total}&nbsp;{arrow('›', '+1', current < total)}</p>"
        )
        doc = self.document(body, 400)
        doc.setTextWidth(math.ceil(doc.idealWidth()) + 1)
        return DocPart(doc, right - doc.size().width(), y)

    def _answer(self, item: ChatItem, left: float, column: float) -> RowLayout:  # noqa: C901  # one style per answer kind
        style, label, inset, top = "plain", "", 0.0, 0.0
        text = localized(item.text)  # our own wording (a command's "Working…") translated
        if item.kind == "subagent":
            style, label, inset = "report", tr("Background task report"), PAD + 4
        elif item.kind == "outbound":
            label = localized(item.tool) or tr("Sent by the agent")
            style, label, inset = "report", html.escape(label), PAD + 4
        elif item.kind == "command":
            style, label, inset = "report", html.escape(item.tool or tr("Command")), PAD + 4
        parts: list[DocPart] = []
        x, width = left + inset, column - 2 * inset
        if label:
            head = self.document(
                f'<b style="color:{self.colors.accent.name()}">{label}</b>', width, small=True
            )
            parts.append(DocPart(head, x, PAD))
            top = PAD + head.size().height() + 4
        if item.kind == "command":
            body = (
                f'<pre style="white-space:pre-wrap; font-family:monospace; margin:0">'
                f"{html.escape(text)}</pre>"
            )
            parts.append(DocPart(self.document(body, width, small=True), x, top))
        elif item.streaming and not text.strip():
            waiting = html.escape(localized(item.status) or tr("Thinking…"))
            doc = self.document(f'<i style="color:{self.colors.muted.name()}">{waiting}</i>', width)
            parts.append(DocPart(doc, x, top))
        elif item.streaming or len(text) > LONG_TEXT:
            # Block by block: each finished block is rendered once (and reused when the stream
            # ends), so neither streaming nor finishing re-renders a long answer as a whole.
            y = top
            stable, tail = split_stable(text)
            if not item.streaming and tail.strip():
                stable, tail = [*stable, tail], ""
            for index, block in enumerate(stable):
                part = self._segment(item.uid, index, block, x, y, width)
                parts.append(part)
                y += part.doc.size().height()
            if tail.strip():
                part = self._markdown_part(tail, x, y, width, highlight=False)
                part.volatile = True
                parts.append(part)
                y += part.doc.size().height()
            if item.footer and not item.streaming:
                parts.append(DocPart(self.document(self._footer(item), width), x, y))
        elif text.strip() or not item.media:
            parts.append(self._markdown_part(text, x, top, width, extra=self._footer(item)))
        if item.media:  # images the agent sent (generate_image): thumbnails below the text
            below = max((p.y + p.doc.size().height() for p in parts), default=top)
            images = {
                f"thumb:{i}": self.thumbnails[path]
                for i, path in enumerate(item.media)
                if path in self.thumbnails
            }
            parts.append(
                DocPart(self.document(self._media_html(item), width, images=images), x, below)
            )
        bottom = max((p.y + p.doc.size().height() for p in parts), default=top)
        bottom = max(bottom, self.line)
        card = None
        if style == "report":
            bottom += PAD
            card = QRectF(left, 0, column, bottom)
        copy = QRectF(left + column - 42, 0 if card is None else 4, 42, self.line)
        return RowLayout(
            bottom + GAP, parts, card, style, copy=copy, marker="accent" if card is not None else ""
        )

    def _segment(
        self, uid: int, index: int, text: str, x: float, y: float, width: float
    ) -> DocPart:
        key = (uid, index)
        cached = self._segments.get(key)
        if cached is not None and cached[0] == text and cached[1] == width:
            self._segments.move_to_end(key)
            _, _, doc, blocks = cached
            return DocPart(doc, x, y, blocks)
        part = self._markdown_part(text, x, y, width)
        self._segments[key] = (text, width, part.doc, part.code_blocks)
        while len(self._segments) > SEGMENT_CACHE:
            self._segments.popitem(last=False)
        return part

    def _reasoning(self, item: ChatItem, left: float, column: float) -> RowLayout:
        muted = self.colors.muted.name()
        arrow = "▾" if item.expanded else "▸"
        label = tr("Thinking…") if item.streaming else tr("Reasoning")
        if item.expanded:
            body = self.markdown.render(item.text, highlight_code_blocks=False).html
            doc = self.document(
                f'<p style="color:{muted}"><a href="{TOGGLE}">{arrow} {label}'
                f'</a></p><div style="color:{muted}">{body}</div>',
                column - PAD,
                small=True,
            )
        else:
            first = " ".join(item.text.split())[:140]
            doc = self.document(
                f'<p style="color:{muted}"><a href="{TOGGLE}">{arrow} {label}</a>'
                f"&nbsp;&nbsp;<i>{html.escape(first)}</i></p>",
                column - PAD,
                small=True,
            )
            doc.setTextWidth(column - PAD)
        toggle = QRectF(left, 0, column, self.line + 4)
        height = doc.size().height()
        return RowLayout(height + GAP - 4, [DocPart(doc, left + PAD / 2, 0)], toggle=toggle)

    def _tool_header(self, item: ChatItem) -> str:
        colors = self.colors
        took = duration_text(item.duration_s)
        if item.awaiting_approval:
            status, color = tr("waiting for your approval…"), colors.warn
        elif item.ok is None:
            status, color = tr("running…"), colors.muted
        elif item.denied:
            status, color = tr("denied"), colors.error
        elif item.ok:
            status, color = f"✓ {took}".strip(), colors.ok
        else:
            failed = tr("error {duration}").format(duration=took) if took else tr("error")
            status, color = f"✗ {failed}", colors.error
        arrow = "▾" if item.expanded else "▸"
        summary = html.escape(argument_summary(item.arguments, tool=item.tool, result=item.result))
        summary = header_path_link(item, summary)
        return (
            '<table width="100%" cellspacing="0" cellpadding="0"><tr>'
            f'<td width="{SPINNER + 8:.0f}"></td>'
            f'<td><span style="color:{colors.muted.name()}">{arrow}</span>&nbsp;'
            f"<b>{html.escape(item.tool)}</b>&nbsp;&nbsp;"
            f'<span style="color:{colors.muted.name()}; font-family:monospace">{summary}</span>'
            f'</td><td align="right" style="color:{color.name()}">&nbsp;{status}</td>'
            "</tr></table>"
        )

    def _tool(self, item: ChatItem, left: float, column: float) -> RowLayout:
        width = column - 2 * PAD
        body = self._tool_header(item) + diff_block(item, self.colors, self.diff_mode)
        if item.expanded:
            muted = self.colors.muted.name()
            pretty = json.dumps(item.arguments, ensure_ascii=False, indent=2)
            result = localized(item.result)[:PREVIEW_CHARS] or (
                tr("(running…)") if item.ok is None else tr("(empty)")
            )
            pre = (
                '<pre style="white-space:pre-wrap; font-family:monospace; margin-top:2px; '
                'margin-bottom:6px">'
            )
            arguments_label, result_label = tr("Arguments"), tr("Result")
            body += (
                f'<p style="color:{muted}; margin-top:8px; margin-bottom:0">{arguments_label}</p>'
                f"{pre}{html.escape(pretty)}</pre>"
                f'<p style="color:{muted}; margin-bottom:0">{result_label}</p>'
                f"{pre}{html.escape(result)}</pre>"
            )
        doc = self.document(body, width, small=True)
        height = doc.size().height() + 2 * PAD
        card = QRectF(left, 0, column, height)
        marker = (
            "warn"
            if item.awaiting_approval
            else ""
            if item.ok is None
            else ("ok" if item.ok else "error")
        )
        header = min(height, self.line + 2 * PAD)
        return RowLayout(
            height + GAP,
            [DocPart(doc, left + PAD, PAD)],
            card,
            "card",
            copy=None,
            toggle=QRectF(left, 0, column, header),
            spinner=QRectF(left + PAD, PAD + (self.line - SPINNER) / 2, SPINNER, SPINNER)
            if item.ok is None
            else None,
            marker=marker,
        )
