"""Files a client attaches to a message (nanobot 0.3.5's ``media`` of a ``message`` frame:
``[{"data_url": "data:<type>;base64,…", "name": "…"}]``), checked and saved under
``<media>/websocket``.

The rules are 0.3.5's: images, one video and common document types only; at most
:data:`MAX_COUNT` images and documents, each at most :data:`MAX_FILE_BYTES` (a video
:data:`MAX_VIDEO_BYTES`), :data:`MAX_TOTAL_BYTES` together. A message with one bad
attachment is refused whole (its reason goes back to the client) and nothing of it is kept.
Blocking: call :func:`save_attachments` through ``asyncio.to_thread``.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop.core.utils.atomic import atomic_write_bytes

MAX_COUNT = 4
MAX_FILE_BYTES = 6 * 1024 * 1024
MAX_TOTAL_BYTES = 24 * 1024 * 1024
MAX_VIDEO_BYTES = 20 * 1024 * 1024

IMAGES = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}
_PICTURES = frozenset(IMAGES.values())
VIDEOS = {"video/mp4": "mp4", "video/webm": "webm", "video/quicktime": "mov"}
DOCUMENTS = {
    "application/json": "json",
    "application/pdf": "pdf",
    "application/toml": "toml",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/x-yaml": "yaml",
    "application/xhtml+xml": "xhtml",
    "application/xml": "xml",
    "application/yaml": "yaml",
    "text/csv": "csv",
    "text/html": "html",
    "text/markdown": "md",
    "text/plain": "txt",
    "text/xml": "xml",
    "text/yaml": "yaml",
}
_DATA_URL = re.compile(r"^data:([^;,]+)(?:;[^,]*)*;base64,", re.DOTALL)
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


class Refused(Exception):
    """An attachment breaks a rule; ``reason`` is 0.3.5's word for it (``mime``, ``size``…)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _decode(item: Any) -> tuple[str, bytes, str]:
    """``(type, bytes, name)`` of one attachment."""
    if not isinstance(item, dict) or not isinstance(item.get("data_url"), str):
        raise Refused("malformed")
    data_url: str = item["data_url"]
    match = _DATA_URL.match(data_url)
    if match is None:
        raise Refused("decode")
    mime = match.group(1).strip().lower()
    if mime not in IMAGES | VIDEOS | DOCUMENTS:
        raise Refused("mime")
    limit = MAX_VIDEO_BYTES if mime in VIDEOS else MAX_FILE_BYTES
    if len(data_url) - match.end() > (limit * 4) // 3 + 4:
        raise Refused("size")
    try:
        data = base64.b64decode(data_url[match.end() :], validate=True)
    except (binascii.Error, ValueError):
        raise Refused("decode") from None
    if len(data) > limit:
        raise Refused("size")
    name = item.get("name") if isinstance(item.get("name"), str) else ""
    return mime, data, _SAFE.sub("_", str(name)).strip("._")[:80]


def save_attachments(items: list[Any], media_dir: Path) -> list[Path]:
    """Check every attachment, then save them all (atomically, each under a fresh name).

    Raises:
        Refused: One of them breaks a rule; nothing was saved.
    """
    decoded = [_decode(item) for item in items]
    videos = sum(1 for mime, _, _ in decoded if mime in VIDEOS)
    if videos > 1:
        raise Refused("too_many_videos")
    if len(decoded) - videos > MAX_COUNT:
        raise Refused("too_many_attachments")
    if sum(len(data) for mime, data, _ in decoded if mime not in VIDEOS) > MAX_TOTAL_BYTES:
        raise Refused("total_size")
    saved = []
    for mime, data, name in decoded:
        suffix = (IMAGES | VIDEOS | DOCUMENTS)[mime]
        stem = uuid.uuid4().hex[:12]
        filename = f"{stem}_{name}" if name and name.endswith(f".{suffix}") else f"{stem}.{suffix}"
        path = media_dir / "websocket" / filename
        atomic_write_bytes(path, data)
        saved.append(path)
    return saved


def with_references(content: str, saved: Sequence[Path]) -> str:
    """``content`` with an ``[Attachment: <path>]`` line per saved file that is not a picture
    (pictures reach the model as images), as nanobot 0.3.5 words it: the agent learns where
    a text file or a video is and reads it with its tools."""
    lines = [f"[Attachment: {path}]" for path in saved if path.suffix[1:] not in _PICTURES]
    if not lines:
        return content
    return "\n\n".join(part for part in (content, "\n".join(lines)) if part)
