"""Reading QQ's message events (documented payloads) and saving their attachments.

``C2C_MESSAGE_CREATE`` (a private message: the chat is the person's ``user_openid``),
``GROUP_AT_MESSAGE_CREATE`` (a group message that @-mentions the bot: the chat is the
``group_openid``, the sender the ``member_openid``) and ``DIRECT_MESSAGE_CREATE`` (a guild
direct message: the chat is the DM's ``guild_id``). Chat and sender ids are nanobot's, so
sessions (``qq:<chat>``) carry over.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

import aiohttp

from desktop.core.utils.atomic import atomic_write_bytes
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

ChatKind = Literal["c2c", "group", "dm"]
EVENTS: dict[str, ChatKind] = {
    "C2C_MESSAGE_CREATE": "c2c",
    "GROUP_AT_MESSAGE_CREATE": "group",
    "DIRECT_MESSAGE_CREATE": "dm",
}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp")
_UNSAFE = re.compile(r"[^\w.\-()\[\]]+")


class Malformed(ValueError):
    """A message event without what every message has (id, chat, sender)."""


@dataclass(frozen=True)
class Attachment:
    """A file sent with a message."""

    url: str
    filename: str
    content_type: str


@dataclass(frozen=True)
class Incoming:
    """A person's message.

    Attributes:
        kind: Private (``c2c``), group or guild direct message (``dm``).
        msg_id: QQ's message id (what a passive reply names).
        chat_id: Where answers go.
        sender: Who wrote it (checked against ``allowFrom``).
        text: Its text (the @-mention QQ leaves as a leading space is stripped).
        attachments: Its files.
    """

    kind: ChatKind
    msg_id: str
    chat_id: str
    sender: str
    text: str
    attachments: list[Attachment] = field(default_factory=list)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def parse(event: str, data: Any) -> Incoming | None:
    """The message in a dispatch, ``None`` for events that are not messages.

    Raises:
        Malformed: A message event without an id, chat or sender.
    """
    kind = EVENTS.get(event)
    if kind is None:
        return None
    if not isinstance(data, dict):
        raise Malformed(f"{event} without data")
    found = data.get("author")
    author: dict[str, Any] = found if isinstance(found, dict) else {}
    if kind == "c2c":
        chat = _text(author.get("id")) or _text(author.get("user_openid"))
        sender = chat
    elif kind == "group":
        chat = _text(data.get("group_openid"))
        sender = _text(author.get("member_openid")) or _text(author.get("id"))
    else:
        chat = _text(data.get("guild_id"))
        sender = _text(author.get("id"))
    msg_id = _text(data.get("id"))
    if not (msg_id and chat and sender):
        raise Malformed(f"{event} without a message id, chat or sender")
    listed = data.get("attachments")
    files: list[Any] = listed if isinstance(listed, list) else []
    attachments = [
        Attachment(_text(a.get("url")), _text(a.get("filename")), _text(a.get("content_type")))
        for a in files
        if isinstance(a, dict) and _text(a.get("url"))
    ]
    return Incoming(kind, msg_id, chat, sender, _text(data.get("content")), attachments)


def allowed_host(url: str, hosts: tuple[str, ...]) -> bool:
    """Whether ``url`` is on one of ``hosts`` (or a subdomain of one)."""
    host = (urlparse(url).hostname or "").lower()
    return any(host == h or host.endswith(f".{h}") for h in hosts)


def _name(attachment: Attachment, content_type: str) -> str:
    name = _UNSAFE.sub("_", Path(attachment.filename).name).strip("._ ")
    suffix = Path(name).suffix or Path(urlparse(attachment.url).path).suffix
    if not suffix:
        kind = (content_type or attachment.content_type).lower()
        suffix = next((f".{s}" for s in ("png", "jpeg", "gif", "webp", "pdf") if s in kind), ".bin")
    stem = Path(name).stem if name else f"qq_file_{int(time.time() * 1000)}"
    return f"{stem}{suffix}"


async def download(
    attachment: Attachment,
    folder: Path,
    *,
    hosts: tuple[str, ...],
    max_bytes: int,
    chunk_size: int,
) -> Path | None:
    """Save ``attachment`` in ``folder`` (``None`` when it could not be, logged).

    Only QQ's media hosts are fetched, without following redirects; a file larger than
    ``max_bytes`` is not kept.
    """
    url = f"https:{attachment.url}" if attachment.url.startswith("//") else attachment.url
    if not allowed_host(url, hosts):
        log.warning("QQ: attachment from an unexpected host not downloaded: %s", redact(url))
        return None
    timeout = aiohttp.ClientTimeout(total=120)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.get(url, allow_redirects=False) as response,
        ):
            if response.status != 200:
                log.warning("QQ: downloading an attachment failed (HTTP %s)", response.status)
                return None
            target = folder / _name(attachment, response.headers.get("Content-Type", ""))
            if await asyncio.to_thread(target.exists):
                target = target.with_name(f"{target.stem}_{int(time.time() * 1000)}{target.suffix}")
            data = bytearray()
            async for chunk in response.content.iter_chunked(chunk_size):
                data.extend(chunk)
                if len(data) > max_bytes:
                    log.warning("QQ: attachment larger than %s bytes not kept", max_bytes)
                    return None
    except (aiohttp.ClientError, TimeoutError) as exc:
        log.warning("QQ: downloading an attachment failed: %s", redact(exc))
        return None

    await asyncio.to_thread(atomic_write_bytes, target, bytes(data))
    return target


def describe(text: str, saved: list[tuple[Attachment, Path | None]]) -> str:
    """The message as the agent reads it (nanobot's "Received files:" list)."""
    if not saved:
        return text
    lines = []
    for attachment, path in saved:
        shown = attachment.filename or (path.name if path else attachment.url)
        lines.append(f"- {shown}\n  saved: {path if path else '[download failed]'}")
    block = "Received files:\n" + "\n".join(lines)
    if text:
        return f"{text}\n\n{block}"
    images = any(p is not None and p.suffix.lower() in IMAGE_SUFFIXES for _, p in saved)
    return f"{'[Image]' if images else '[File]'}\n{block}"
