"""Read a file for the preview pane: what it is and what to show (Qt-free, run in a thread).

:func:`read_preview` never raises for a file it cannot show: it returns a ``message`` preview
saying why (not found, a folder, binary, too large, not UTF-8, no permission). Text is
highlighted with Pygments up to :data:`MAX_HIGHLIGHT` characters (plain above that, up to
:data:`MAX_TEXT` bytes); Markdown is rendered with the chat's renderer; images are returned
as bytes for the pane to decode.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound

from desktop.core.tools.filesystem import human_size, image_mime
from desktop.core.tools.search import SNIFF_BYTES, looks_binary
from desktop.core.utils.i18n import QT_TR_NOOP
from desktop.ui.chat.diff_view import resolve
from desktop.ui.chat.markdown import MarkdownRenderer, Theme

MAX_TEXT = 512 * 1024
"""Larger text files are not shown (open them in an editor)."""
MAX_HIGHLIGHT = 200_000
"""Text up to this many characters gets syntax colours; longer text is shown plain."""
MAX_IMAGE = 25 * 1024 * 1024
MAX_LISTED = 200
MARKDOWN_ENDINGS = (".md", ".markdown", ".mdown")
IMAGE_ENDINGS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg", ".ico")

PreviewKind = Literal["text", "markdown", "image", "message"]


@dataclass(frozen=True)
class Preview:
    """What the pane shows for one file.

    Attributes:
        path: The resolved path.
        kind: ``text`` (``html`` is highlighted code, or ``text`` plain), ``markdown``
            (``html``), ``image`` (``data``), or ``message`` (``text`` says why nothing else).
        html: Rendered HTML (text and markdown).
        text: Plain text (long text files), or the message: English marked for translation,
            with ``{fields}`` filled in from ``fields`` where it is shown
            (:meth:`message_parts`).
        data: Image bytes.
        size: File size in bytes (``-1``: unknown).
        code_blocks: The code blocks of rendered Markdown (its ``copy-code:<n>`` links).
        fields: The values of a message's ``{fields}`` (name, value).
    """

    path: Path
    kind: PreviewKind
    html: str = ""
    text: str = ""
    data: bytes = b""
    size: int = -1
    code_blocks: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()

    def message_parts(self) -> tuple[str, dict[str, str]]:
        """A message's English text (to translate) and the values of its fields."""
        return self.text, dict(self.fields)


def _message(path: Path, text: str, size: int = -1, /, **fields: object) -> Preview:
    values = tuple((name, str(value)) for name, value in fields.items())
    return Preview(path, "message", text=text, size=size, fields=values)


def _listing(path: Path) -> Preview:
    names = sorted(os.listdir(path))
    shown = "\n".join(n + ("/" if (path / n).is_dir() else "") for n in names[:MAX_LISTED])
    name = path.name or str(path)
    if len(names) > MAX_LISTED:
        return _message(
            path,
            QT_TR_NOOP("{name} is a folder:\n\n{names}\n… and {count} more"),
            name=name,
            names=shown,
            count=len(names) - MAX_LISTED,
        )
    return _message(path, QT_TR_NOOP("{name} is a folder:\n\n{names}"), name=name, names=shown)


def _code_html(text: str, name: str, theme: Theme) -> str:
    try:
        lexer = get_lexer_for_filename(name, stripnl=False)
    except ClassNotFound:
        return f"<pre>{html.escape(text)}</pre>"
    formatter = HtmlFormatter(nowrap=True, noclasses=True, style=theme.pygments_style)
    return f"<pre>{highlight(text, lexer, formatter)}</pre>"


def _read(path: Path) -> Preview | bytes:
    """The file's text bytes, or the preview that shows it instead (image, message)."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
        if image_mime(head) is not None or path.suffix.lower() in IMAGE_ENDINGS:
            if size > MAX_IMAGE:
                return _message(
                    path,
                    QT_TR_NOOP(
                        "This image is too large to preview ({size}; the limit is {limit})."
                    ),
                    size,
                    size=human_size(size),
                    limit=human_size(MAX_IMAGE),
                )
            return Preview(path, "image", data=head + handle.read(), size=size)
        if size > MAX_TEXT:
            return _message(
                path,
                QT_TR_NOOP(
                    "This file is too large to preview ({size}; the limit is {limit}). "
                    "Open it in an editor."
                ),
                size,
                size=human_size(size),
                limit=human_size(MAX_TEXT),
            )
        if looks_binary(head):
            return _message(
                path,
                QT_TR_NOOP("This is a binary file ({size}); it has no text to show."),
                size,
                size=human_size(size),
            )
        return head + handle.read(MAX_TEXT + 1 - len(head))


def read_preview(raw: str, base: Path, theme: Theme) -> Preview:
    """What to show for the file ``raw`` names (blocking: call it in a worker thread)."""
    path = resolve(raw, base)
    try:
        if path.is_dir():
            return _listing(path)
        read = _read(path)
    except FileNotFoundError:
        return _message(path, QT_TR_NOOP("This file does not exist (any more)."))
    except PermissionError:
        return _message(path, QT_TR_NOOP("This file cannot be read (no permission)."))
    except OSError as exc:
        return _message(
            path, QT_TR_NOOP("This file cannot be read: {error}."), error=exc.strerror or exc
        )
    if isinstance(read, Preview):
        return read
    size = len(read)
    try:
        text = read.decode("utf-8")
    except UnicodeDecodeError:
        return _message(
            path, QT_TR_NOOP("This file is not UTF-8 text; open it in an editor."), size
        )
    if path.suffix.lower() in MARKDOWN_ENDINGS:
        rendered = MarkdownRenderer(theme).render(text)
        blocks = tuple(rendered.code_blocks)
        return Preview(path, "markdown", html=rendered.html, code_blocks=blocks, size=size)
    if len(text) > MAX_HIGHLIGHT:
        return Preview(path, "text", text=text, size=size)
    return Preview(path, "text", html=_code_html(text, path.name, theme), size=size)
