"""OneBot v11 message segments: reading what arrives, building what goes out.

A message is a list of segments ``{"type": ..., "data": {...}}``: ``text`` (``text``),
``image`` (``url`` to download, ``file`` a name, NapCat adds ``file_size``), ``at`` (``qq``: a
QQ number or ``all``), ``reply`` (``id``: the message answered), ``face`` (``id``). A message
given as a plain string is read as one text segment (CQ codes are not parsed).
"""

from __future__ import annotations

import base64
import mimetypes
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.channels.base import split_message

_NAME = re.compile(r"[^\w.+-]+")
_FENCE = re.compile(r"```[^\n`]*\n?(.*?)```", re.DOTALL)
_MARKS = (
    (re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)"), r"\1 (\2)"),
    (re.compile(r"\*\*(.+?)\*\*|__(.+?)__", re.DOTALL), r"\1\2"),
    (re.compile(r"~~(.+?)~~", re.DOTALL), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\n]+?)\*(?![\w*])"), r"\1"),
    (re.compile(r"`([^`\n]+)`"), r"\1"),
    (re.compile(r"^#{1,6}\s+", re.MULTILINE), ""),
    (re.compile(r"^(\s*)[-*+]\s+", re.MULTILINE), r"\1• "),
    (re.compile(r"^>\s?", re.MULTILINE), ""),
)


@dataclass(frozen=True)
class Image:
    """A received image to download."""

    url: str
    name: str
    size: int | None


@dataclass
class Parsed:
    """What a received message says."""

    text: str = ""
    images: list[Image] = field(default_factory=list)
    at: list[str] = field(default_factory=list)
    reply_to: str = ""

    def mentions(self, self_id: str) -> bool:
        """Whether the message ``at``-mentions the account ``self_id``."""
        return bool(self_id) and self_id in self.at


def _safe_name(name: str) -> str:
    base = _NAME.sub("_", re.split(r"[\\/]", name)[-1]).strip("._")
    return base[:100] or "image.jpg"


def _image(data: dict[str, Any]) -> Image | None:
    url = data.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    try:
        size: int | None = int(data["file_size"])
    except (KeyError, TypeError, ValueError):
        size = None
    return Image(url, _safe_name(str(data.get("file") or url.rsplit("/", 1)[-1])), size)


def parse(message: Any, self_id: str) -> Parsed:
    """Read a message (segments, or a plain string) as text, images, mentions and reply."""
    if isinstance(message, str):
        message = [{"type": "text", "data": {"text": message}}]
    found = Parsed()
    parts: list[str] = []
    for segment in message if isinstance(message, list) else []:
        if not isinstance(segment, dict):
            continue
        kind, data = segment.get("type"), segment.get("data")
        data = data if isinstance(data, dict) else {}
        if kind == "text" and data.get("text"):
            parts.append(str(data["text"]))
        elif kind == "image" and (image := _image(data)):
            found.images.append(image)
        elif kind == "at":
            qq = str(data.get("qq", ""))
            found.at.append(qq)
            if qq != self_id or not self_id:
                parts.append(f"@{qq}")
        elif kind == "reply" and data.get("id") is not None:
            found.reply_to = str(data["id"])
        elif kind == "face":
            parts.append(f"[face:{data.get('id', '')}]")
    found.text = " ".join(p.strip() for p in parts if p.strip())
    return found


def plain(markdown: str) -> str:
    """Markdown as the plain text QQ shows (code kept as it is, marks dropped)."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(1).rstrip("\n"))
        return f"\x00{len(kept) - 1}\x00"

    text = _FENCE.sub(keep, markdown)
    for pattern, replacement in _MARKS:
        text = pattern.sub(replacement, text)
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], text)


def texts(markdown: str, limit: int) -> list[str]:
    """``markdown`` as plain-text messages under ``limit`` characters."""
    text = plain(markdown).strip()
    return split_message(text, limit) if text else []


def files(media: list[str]) -> list[dict[str, Any]]:
    """Segments sending these files (read into ``base64://``; call in a thread): images as
    ``image``, other files as ``file``; remote ``http(s)`` images by address."""
    found: list[dict[str, Any]] = []
    for item in media:
        if item.startswith(("http://", "https://")):
            found.append({"type": "image", "data": {"file": item}})
            continue
        path = Path(item).expanduser()
        if not path.is_file():
            continue
        data = "base64://" + base64.b64encode(path.read_bytes()).decode()
        kind = mimetypes.guess_type(path.name)[0] or ""
        if kind.startswith("image/"):
            found.append({"type": "image", "data": {"file": data}})
        else:
            found.append({"type": "file", "data": {"file": data, "name": path.name}})
    return found
