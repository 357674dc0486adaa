"""What a WeCom message callback says: who wrote what in which chat, and its attachments.

A callback frame's body (``aibot_msg_callback``) carries ``msgid``, ``chatid`` (the group's id;
absent in a direct chat, where the chat is the sender), ``chattype`` (``single``/``group``),
``from.userid`` and, by ``msgtype``, ``text.content``, ``image.url``/``aeskey``,
``file.url``/``aeskey``/``name``, ``voice.content`` (WeCom's transcript) or ``mixed.msg_item``
(a list of text and image items). The names and the chat id / sender id shapes are the ones
nanobot 0.3.5 uses, so sessions (``wecom:<chatid>``) carry over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SAFE = re.compile(r"[^\w.\-()\[\]（）【】]+", re.UNICODE)
PLACEHOLDERS = {
    "image": "[image]",
    "voice": "[voice]",
    "file": "[file]",
    "mixed": "[mixed content]",
}


@dataclass(frozen=True)
class Attachment:
    """A file WeCom keeps encrypted at ``url`` (AES key ``aes_key``)."""

    kind: str  # image | file
    url: str
    aes_key: str
    name: str = ""


@dataclass
class Incoming:
    """One message for the agent (before its attachments are downloaded)."""

    message_id: str
    chat_id: str
    chat_type: str
    sender: str
    msg_type: str
    parts: list[str] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def safe_name(name: str, fallback: str) -> str:
    """A file name safe to create under the media folder (no path, no odd characters)."""
    cleaned = _SAFE.sub("_", Path(name.strip()).name).strip("._ ")
    return cleaned[-120:] or fallback


def _attachment(kind: str, info: dict[str, Any]) -> Attachment | None:
    url, key = _text(info.get("url")), _text(info.get("aeskey"))
    if not url.startswith(("http://", "https://")) or not key:
        return None
    return Attachment(kind, url, key, _text(info.get("name")))


def _add_item(message: Incoming, kind: str, body: dict[str, Any]) -> None:
    """Add what one (text, image, file, voice) part of a message says."""
    info = _dict(body.get(kind))
    if kind == "text":
        text = _text(info.get("content"))
        if text:
            message.parts.append(text)
    elif kind in ("image", "file"):
        found = _attachment(kind, info)
        if found is None:
            name = _text(info.get("name"))
            message.parts.append(f"[{kind}: {name + ': ' if name else ''}no download address]")
        else:
            message.attachments.append(found)
    elif kind == "voice":
        said = _text(info.get("content"))
        message.parts.append(f"[voice] {said}" if said else "[voice]")
    else:
        message.parts.append(PLACEHOLDERS.get(kind, f"[{kind}]"))


def parse(body: Any) -> Incoming | None:
    """The message a callback body carries; ``None`` when it is not one (no sender)."""
    data = _dict(body)
    sender = _text(_dict(data.get("from")).get("userid"))
    msg_type = _text(data.get("msgtype"))
    if not sender or not msg_type:
        return None
    chat_id = _text(data.get("chatid")) or sender
    message_id = _text(data.get("msgid")) or f"{chat_id}_{data.get('sendertime', '')}"
    message = Incoming(
        message_id=message_id,
        chat_id=chat_id,
        chat_type=_text(data.get("chattype")) or "single",
        sender=sender,
        msg_type=msg_type,
    )
    if msg_type == "mixed":
        items = _dict(data.get("mixed")).get("msg_item")
        for item in items if isinstance(items, list) else ():
            kind = _text(_dict(item).get("msgtype"))
            if kind:
                _add_item(message, kind, _dict(item))
    else:
        _add_item(message, msg_type, data)
    return message
