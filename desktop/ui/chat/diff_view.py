"""File changes in tool cards, and file paths as links to the preview pane.

A file tool's card (``write_file``, ``edit_file``, ``apply_patch``) shows the diff the tool
made at its write (carried by ``ToolCallFinished.diff``, :mod:`desktop.core.tools.diffs`),
in one of three ways (Settings → Appearance, "Show file changes as"):

- ``summary``: one line under the header per file, ``path  +3 −1``; the diff when opened;
- ``inline``: the first :data:`INLINE_LINES` lines of the diff always shown, all when opened;
- ``collapsed``: nothing until the card is opened, then the diff.

Paths become ``preview:<path>`` links (the file headers of a diff, a file tool's path in the
card header, and path-like inline code in answers); the preview pane opens them. Plain string
work with the chat's colours: no widgets here.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Literal, get_args
from urllib.parse import quote, unquote

from desktop.core.tools.diffs import diff_files, diff_stats
from desktop.ui.chat.colors import ChatColors, mix
from desktop.ui.chat.items import ChatItem
from desktop.ui.i18n import QT_TR_NOOP, tr

DiffMode = Literal["summary", "inline", "collapsed"]
DIFF_MODES: tuple[DiffMode, ...] = get_args(DiffMode)
DIFF_LABELS: dict[DiffMode, str] = {  # marked; shown through tr()
    "summary": QT_TR_NOOP("Summary (lines added and removed)"),
    "inline": QT_TR_NOOP("Inline diff"),
    "collapsed": QT_TR_NOOP("Collapsed (open the card to see it)"),
}
PREVIEW = "preview:"
INLINE_LINES = 40
"""Lines of a diff a closed card shows in ``inline`` mode."""
OPEN_LINES = 600
"""Lines of a diff an opened card shows (the event's diff is capped before that anyway)."""
PATH_TOOLS = frozenset({"read_file", "write_file", "edit_file", "notebook_edit"})
_CODE = re.compile(r'(<code style="[^"]*">)&#8202;([^<>&\s]{1,300})&#8202;</code>')
_PATHLIKE = re.compile(
    r"^(?:~|\.{1,2})?/?(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7}$"
)
FILE_ENDINGS = frozenset(
    {
        *("py", "pyi", "md", "markdown", "txt", "rst", "json", "jsonl", "toml", "yaml", "yml"),
        *("ini", "cfg", "conf", "env", "lock", "js", "mjs", "ts", "tsx", "jsx", "html", "htm"),
        *("css", "scss", "sh", "bash", "zsh", "fish", "ps1", "bat", "rs", "go", "c", "h", "cc"),
        *("cpp", "hpp", "java", "kt", "swift", "rb", "php", "lua", "sql", "csv", "tsv", "xml"),
        *("svg", "png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "pdf", "log", "ipynb"),
        *("vue", "dart", "r", "tex"),
    }
)
_INLINE_CODE = re.compile(r"`([^`\s]{1,300})`")
_DIRLIKE = re.compile(r"^(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*$")


def resolve(raw: str, base: Path) -> Path:
    """A linked path (``~``, relative to ``base``, or absolute) as an absolute path."""
    path = Path(raw).expanduser()
    return path if path.is_absolute() else base / path


def preview_href(path: str) -> str:
    """The link that opens ``path`` in the preview pane."""
    return PREVIEW + quote(path, safe="/~._-@+")


def preview_path(href: str) -> str | None:
    """The path of a ``preview:`` link (``None`` for any other link)."""
    return unquote(href[len(PREVIEW) :]) if href.startswith(PREVIEW) else None


def looks_like_path(text: str) -> bool:
    """Whether inline code such as ``src/app.py`` or ``notes.md`` names a file or folder
    (``foo()``, ``x=1`` or a URL does not)."""
    if "://" in text or text.startswith(("-", "@")) or text.count("/") > 30:
        return False
    if "/" in text:
        return bool(_PATHLIKE.match(text) or _DIRLIKE.match(text))
    # A bare name needs a common file ending (``os.path.join`` is code, not a file).
    return bool(_PATHLIKE.match(text)) and text.rsplit(".", 1)[1].lower() in FILE_ENDINGS


def link_paths(rendered: str) -> str:
    """Rendered markdown with path-like inline code made into preview links."""

    def wrap(match: re.Match[str]) -> str:
        text = html.unescape(match.group(2))
        if not looks_like_path(text):
            return match.group(0)
        href = html.escape(preview_href(text), quote=True)
        return f'<a href="{href}">{match.group(0)}</a>'

    return _CODE.sub(wrap, rendered) if "<code" in rendered else rendered


def header_path_link(item: ChatItem, summary_html: str) -> str:
    """A file tool's card header summary, made a preview link to the file it names."""
    path = item.arguments.get("path")
    if (item.tool not in PATH_TOOLS and not item.diff) or not isinstance(path, str) or not path:
        return summary_html
    return f'<a href="{html.escape(preview_href(path), quote=True)}">{summary_html}</a>'


def row_paths(item: ChatItem, limit: int = 8) -> list[str]:
    """The files a row links to, for its keyboard menu: a card's path and changed files, or
    the path-like inline code of a message."""
    found: list[str] = []
    if item.kind == "tool":
        path = item.arguments.get("path")
        if (item.tool in PATH_TOOLS or item.diff) and isinstance(path, str) and path:
            found.append(path)
        found += diff_files(item.diff)
    else:
        found += [c for c in _INLINE_CODE.findall(item.text) if looks_like_path(c)]
    return list(dict.fromkeys(found))[:limit]


def stats_text(diff: str) -> str:
    """``+3 −1`` for a diff."""
    added, removed = diff_stats(diff)
    return f"+{added} −{removed}"


def _file_blocks(diff: str) -> list[tuple[str, str]]:
    """The diff split per file: ``(path, that file's diff)``."""
    lines = diff.splitlines()
    starts = [
        i
        for i in range(len(lines) - 1)
        if lines[i].startswith("--- ") and lines[i + 1].startswith("+++ ")
    ]
    if not starts:
        return [("", diff)]
    blocks = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        path = lines[start + 1][4:].removeprefix("b/")
        blocks.append((path, "\n".join(lines[start:end])))
    return blocks


def summary_html(diff: str, colors: ChatColors) -> str:
    """One line per changed file: the path (a preview link) and its lines added and removed."""
    rows = []
    for path, block in _file_blocks(diff):
        added, removed = diff_stats(block)
        name = html.escape(path or tr("(file)"))
        link = (
            f'<a href="{html.escape(preview_href(path), quote=True)}">{name}</a>' if path else name
        )
        rows.append(
            f'<tr><td style="font-family:monospace">{link}</td>'
            f'<td align="right"><span style="color:{colors.ok.name()}">+{added}</span>'
            f'&nbsp;<span style="color:{colors.error.name()}">−{removed}</span></td></tr>'
        )
    return (
        '<table width="100%" cellspacing="0" cellpadding="1" style="margin-top:6px">'
        + "".join(rows)
        + "</table>"
    )


def diff_html(diff: str, colors: ChatColors, *, max_lines: int) -> str:
    """The diff as coloured lines (added on green, removed on red, hunks muted; file headers
    as preview links), at most ``max_lines`` of them, then how many more there are."""
    added_bg = mix(colors.ok, colors.base, 0.22 if colors.dark else 0.14).name()
    removed_bg = mix(colors.error, colors.base, 0.22 if colors.dark else 0.12).name()
    muted = colors.muted.name()
    lines = diff.splitlines()
    rows: list[str] = []
    shown = 0
    index = 0
    while index < len(lines) and shown < max_lines:
        line = lines[index]
        if (
            line.startswith("--- ")
            and index + 1 < len(lines)
            and lines[index + 1].startswith("+++ ")
        ):
            path = lines[index + 1][4:].removeprefix("b/")
            gone = line == "--- /dev/null"
            label = tr("{path} (new file)").format(path=path) if gone else path
            href = html.escape(preview_href(path), quote=True)
            rows.append(
                f'<tr><td style="padding-top:4px"><b><a href="{href}">'
                f"{html.escape(label)}</a></b></td></tr>"
            )
            index += 2
            continue
        text = html.escape(line) or "&nbsp;"
        if line.startswith("+"):
            cell = f'<td bgcolor="{added_bg}">{text}</td>'
        elif line.startswith("-"):
            cell = f'<td bgcolor="{removed_bg}">{text}</td>'
        elif line.startswith(("@@", "…", "\\")):
            cell = f'<td style="color:{muted}">{text}</td>'
        else:
            cell = f"<td>{text}</td>"
        rows.append(f"<tr>{cell}</tr>")
        shown += 1
        index += 1
    rest = sum(1 for i in range(index, len(lines)) if not lines[i].startswith(("--- ", "+++ ")))
    if rest:
        if rest == 1:
            more = tr("… 1 more line — open the card to see it")
        else:
            more = tr("… {count} more lines — open the card to see them").format(count=rest)
        rows.append(f'<tr><td style="color:{muted}">{html.escape(more)}</td></tr>')
    return (
        '<table width="100%" cellspacing="0" cellpadding="1" '
        'style="margin-top:6px; font-family:monospace; white-space:pre-wrap">'
        + "".join(rows)
        + "</table>"
    )


def diff_block(item: ChatItem, colors: ChatColors, mode: str) -> str:
    """What a tool card shows of its file change in ``mode`` (``""``: no change to show)."""
    if item.kind != "tool" or not item.diff:
        return ""
    if item.expanded:
        return diff_html(item.diff, colors, max_lines=OPEN_LINES)
    if mode == "inline":
        return diff_html(item.diff, colors, max_lines=INLINE_LINES)
    if mode == "summary":
        return summary_html(item.diff, colors)
    return ""


def spoken_diff(item: ChatItem) -> str:
    """What a screen reader hears of a card's file change: ``changed a.py, b.py: +3 −1``."""
    if not item.diff:
        return ""
    files = ", ".join(diff_files(item.diff)) or tr("a file")
    added, removed = diff_stats(item.diff)
    return tr("changed {files}: {added} lines added, {removed} removed").format(
        files=files, added=added, removed=removed
    )
