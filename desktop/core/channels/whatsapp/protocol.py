"""nanobot's WhatsApp bridge protocol: the JSON frames on the WebSocket, as typed values.

The bridge (a Node.js process linking WhatsApp Web) listens on a local WebSocket. The client's
first frame is ``{"type": "auth", "token": …}``; a wrong token closes the socket with code
4003, no auth within 5 s with 4001. Then

* the bridge sends ``message`` (``id``, ``sender`` — the chat's JID —, ``pn`` — the phone JID
  when the sender is known by a LID —, ``content``, ``timestamp``, ``isGroup``,
  ``wasMentioned``, ``media``: paths of files it downloaded), ``qr`` (``qr``: the login code to
  scan), ``status`` (``status``: ``connected`` / ``disconnected`` …), and after every command
  ``sent`` (``to``) or ``error`` (``error``); newer bridges echo the command's ``msg_id``;
* the client sends ``send`` (``to``, ``text``), ``send_media`` (``to``, ``filePath``,
  ``mimetype``, ``caption``, ``fileName``) and ``presence`` (``to``, ``presence``:
  ``composing`` / ``paused``).

The bridge's older README names the message fields ``from`` / ``body``; both spellings are read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

CLOSE_AUTH_TIMEOUT = 4001
CLOSE_BAD_TOKEN = 4003

LOGIN_QUIET_S = 65.0
"""Seconds of silence after which a bridge is taken as linked: it says nothing to a new client
while WhatsApp is linked, and while it is not it offers a QR code at least this often (a first
code lives 60 s, later ones 20 s)."""

CONNECTED = frozenset({"connected", "open"})
LOGGED_OUT = frozenset({"logged_out", "loggedout", "logout", "logged-out"})


class Malformed(ValueError):
    """A frame that is not what the protocol says (logged and skipped)."""


@dataclass(frozen=True)
class Message:
    """A WhatsApp message the bridge received.

    Attributes:
        id: WhatsApp's message id (empty when the bridge did not say).
        chat: The chat's JID (``…@s.whatsapp.net``, ``…@lid``, ``…@g.us``): where answers go.
        phone: The sender's phone JID when the bridge knows it (``pn``).
        content: The text (or ``[Image]``, ``[Voice Message]`` …).
        timestamp: Seconds since the epoch, when given.
        is_group: A group chat.
        mentioned: The linked account was mentioned (groups).
        media: Paths of the files the bridge downloaded.
    """

    id: str
    chat: str
    phone: str
    content: str
    timestamp: float | None = None
    is_group: bool = False
    mentioned: bool = False
    media: list[str] = field(default_factory=list)

    @property
    def sender(self) -> str:
        """nanobot's sender id: the phone number and/or the LID, as ``"phone|lid"``."""
        phone = lid = ""
        for jid in (self.phone, self.chat):
            user, _, server = jid.partition("@")
            user = user.split(":", 1)[0]
            if not user:
                continue
            if server.startswith("lid"):
                lid = lid or user
            elif server in ("s.whatsapp.net", "c.us", "") and not phone:
                phone = user
            elif server == "g.us" and jid == self.chat and not phone:
                phone = user  # nanobot identifies group messages by the group's id
        return "|".join(p for p in (phone, lid) if p) or self.chat


@dataclass(frozen=True)
class Event:
    """Any other frame: ``qr``, ``status``, ``sent``, ``error`` (or one this client does not
    know), with the field that matters in ``value`` and the echoed command id."""

    type: str
    value: str = ""
    msg_id: str = ""


def _text(data: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise Malformed(f"{key} is not text")
        return value
    return ""


def parse(frame: str | bytes) -> Message | Event:
    """The frame as a :class:`Message` or :class:`Event`.

    Raises:
        Malformed: Not JSON, not an object, or a message without a chat or with fields of the
            wrong kind.
    """
    try:
        data = json.loads(frame)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Malformed(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise Malformed("not a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise Malformed("no type")
    if kind != "message":
        values = {"qr": "qr", "status": "status", "error": "error", "sent": "to"}
        value = data.get(values.get(kind, "value"), "")
        msg_id = data.get("msg_id", "")
        return Event(kind, str(value) if value is not None else "", str(msg_id or ""))
    chat = _text(data, "sender", "from")
    if not chat:
        raise Malformed("a message without a sender")
    media = data.get("media") or []
    if not isinstance(media, list) or not all(isinstance(m, str) for m in media):
        raise Malformed("media is not a list of paths")
    stamp = data.get("timestamp")
    if stamp is not None and (isinstance(stamp, bool) or not isinstance(stamp, int | float)):
        raise Malformed("timestamp is not a number")
    message_id = data.get("id", "")
    if not isinstance(message_id, str | int):
        raise Malformed("id is not text")
    return Message(
        id=str(message_id),
        chat=chat,
        phone=_text(data, "pn"),
        content=_text(data, "content", "body"),
        timestamp=float(stamp) if stamp is not None else None,
        is_group=data.get("isGroup") is True or chat.endswith("@g.us"),
        mentioned=data.get("wasMentioned") is True,
        media=list(media),
    )


def dumps(payload: dict[str, Any]) -> str:
    """A command frame."""
    return json.dumps(payload, ensure_ascii=False)
