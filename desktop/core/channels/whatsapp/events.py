"""Reading neonize's events: JIDs, sender ids, text and attachments of a ``MessageEv``.

neonize hands over whatsmeow's protobuf messages. Only attribute reads are used here (no
neonize import), so the functions also read a plain object of the same shape. The id shapes
are nanobot 0.3.5's: a chat is ``user@server`` (``@s.whatsapp.net`` a person, ``@g.us`` a group,
``@lid`` a hidden id, written without ``.whatsapp.net``); a sender is the phone number when known,
else the LID through ``lidMappings``, else the bare LID.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

JID_PATTERN = re.compile(r"^(?P<user>[^@]+)@(?P<server>[^@]+)$")
PHONE_SERVERS = frozenset({"s.whatsapp.net", "c.us"})
LID_SERVERS = frozenset({"lid", "lid.whatsapp.net"})
MEDIA_FIELDS = (
    ("imageMessage", "image", "image/jpeg"),
    ("videoMessage", "video", "video/mp4"),
    ("audioMessage", "audio", "audio/ogg"),
    ("documentMessage", "file", "application/octet-stream"),
    ("stickerMessage", "sticker", "image/webp"),
)


@dataclass(frozen=True)
class Attachment:
    """One attachment of a message.

    Attributes:
        kind: ``image``, ``video``, ``audio``, ``file`` or ``sticker``.
        mimetype: What WhatsApp says it is (a default per kind when it says nothing).
        filename: Its name when it has one.
        voice: A voice note (push-to-talk audio).
    """

    kind: str
    mimetype: str
    filename: str = ""
    voice: bool = False


def attr(obj: Any, name: str, default: Any = None) -> Any:
    """``obj.name``, or ``default`` when ``obj`` is ``None`` or lacks it."""
    return default if obj is None else getattr(obj, name, default)


def has(message: Any, name: str) -> bool:
    """Whether the protobuf ``message`` carries field ``name`` (set, not merely default)."""
    if message is None:
        return False
    has_field = getattr(message, "HasField", None)
    if callable(has_field):
        try:
            return bool(has_field(name))
        except ValueError:  # not a message field: fall back to its value
            pass
    value = getattr(message, name, None)
    return value not in (None, "", b"")


def field(message: Any, name: str) -> Any:
    """The sub-message ``name`` of ``message`` when set, else ``None``."""
    return getattr(message, name) if has(message, name) else None


def jid_text(jid: Any) -> str:
    """A JID (protobuf or text) as ``user@server``; ``@lid.whatsapp.net`` becomes ``@lid``."""
    if jid is None:
        return ""
    if isinstance(jid, str):
        text = jid.strip()
    elif attr(jid, "IsEmpty", False):
        return ""
    else:
        user = str(attr(jid, "User", "") or "").strip()
        server = str(attr(jid, "Server", "") or "").strip()
        text = f"{user}@{server}" if user and server else server or user
    return text.removesuffix(".whatsapp.net") if text.endswith("@lid.whatsapp.net") else text


def bare(jid: Any) -> str:
    """The user part of a JID without its device (``49151…:12@s.whatsapp.net`` → ``49151…``)."""
    text = jid_text(jid)
    return text.split("@", 1)[0].split(":", 1)[0] if "@" in text else text


def phone_and_lid(jids: list[Any]) -> tuple[str, str]:
    """The first phone number and the first LID among ``jids`` (``""`` when none)."""
    phone = lid = ""
    for raw in jids:
        text = jid_text(raw)
        if not text:
            continue
        match = JID_PATTERN.match(text)
        if match is None:
            phone = phone or text
            continue
        user, server = match.group("user").split(":", 1)[0], match.group("server")
        if server in PHONE_SERVERS:
            phone = phone or user
        elif server in LID_SERVERS:
            lid = lid or user
    return phone, lid


def text_of(message: Any) -> str:
    """The text of a message: its body, or the caption of its attachment."""
    for value in (
        attr(message, "conversation", ""),
        attr(field(message, "extendedTextMessage"), "text", ""),
        *(attr(field(message, name), "caption", "") for name, _, _ in MEDIA_FIELDS),
    ):
        if text := str(value or "").strip():
            return text
    return ""


def attachment_of(message: Any) -> Attachment | None:
    """The message's attachment (the first kind present), or ``None``."""
    for name, kind, default_type in MEDIA_FIELDS:
        media = field(message, name)
        if media is None:
            continue
        filename = str(attr(media, "fileName", "") or attr(media, "title", "") or "")
        voice = kind == "audio" and bool(attr(media, "PTT", False) or attr(media, "ptt", False))
        mimetype = str(attr(media, "mimetype", "") or default_type)
        return Attachment(kind, mimetype, filename, voice)
    return None


def contexts(message: Any) -> list[Any]:
    """The ``contextInfo`` of the message and of its text or attachment."""
    holders = [message, field(message, "extendedTextMessage")]
    holders += [field(message, name) for name, _, _ in MEDIA_FIELDS]
    return [info for holder in holders if (info := field(holder, "contextInfo")) is not None]


def addresses(message: Any, me: set[str]) -> bool:
    """Whether the message mentions one of ``me`` (JIDs, bare or full) or replies to it."""
    for info in contexts(message):
        mentioned = list(attr(info, "mentionedJID", None) or attr(info, "mentionedJid", None) or [])
        replied = attr(info, "participant", "") or attr(info, "Participant", "")
        for jid in [*mentioned, replied]:
            text = jid_text(jid)
            if text and (text in me or bare(text) in me):
                return True
    return False
