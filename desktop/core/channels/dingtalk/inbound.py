"""A robot message from the stream (topic ``/v1.0/im/bot/messages/get``), read with the SDK's
``ChatbotMessage``: who wrote it, in which chat, what it says, what files it carries.

nanobot's identities: a person is their staff id (``senderStaffId``, else ``senderId``); a
one-to-one chat is that person's staff id, a group chat is ``group:<conversationId>`` (the
robot API sends to both). Text, rich text (text parts joined, pictures as files), pictures,
files, and voice (DingTalk's own transcription, ``content.recognition``) are understood.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dingtalk_stream import ChatbotMessage

from desktop.core.channels.dingtalk.api import GROUP_PREFIX


class Malformed(ValueError):
    """The event is not a robot message this channel can read."""


@dataclass
class Attachment:
    """A file to fetch by its ``downloadCode``."""

    code: str
    name: str


@dataclass
class Received:
    """One robot message, read."""

    message_id: str
    sender: str
    nick: str
    chat_id: str
    is_group: bool
    conversation_id: str
    text: str
    attachments: list[Attachment] = field(default_factory=list)
    webhook: str = ""
    webhook_expires_ms: int = 0


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def read(data: Any) -> Received:  # noqa: C901  # one branch per message type of the SDK's payload
    """Read the ``data`` of a robot-message callback.

    Raises:
        Malformed: It lacks what every robot message has (an id, a sender, a conversation).
    """
    if not isinstance(data, dict):
        raise Malformed("the event carries no message")
    try:
        message = ChatbotMessage.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Malformed(f"unreadable robot message ({type(exc).__name__})") from exc
    message_id = _text(message.message_id)
    sender = _text(message.sender_staff_id) or _text(message.sender_id)
    conversation = _text(message.conversation_id)
    if not message_id or not sender:
        raise Malformed("a robot message without an id or a sender")
    is_group = str(message.conversation_type) == "2"
    if is_group and not conversation:
        raise Malformed("a group message without its conversation")
    parts: list[str] = []
    attachments: list[Attachment] = []
    kind = message.message_type
    found = data.get("content")
    content: dict[str, Any] = found if isinstance(found, dict) else {}
    if kind == "text" and message.text is not None:
        parts.append(_text(message.text.content))
    elif kind == "richText" and message.rich_text_content is not None:
        for item in message.rich_text_content.rich_text_list or []:
            if not isinstance(item, dict):
                continue
            if _text(item.get("text")):
                parts.append(_text(item.get("text")))
            if _text(item.get("downloadCode")):
                name = _text(item.get("fileName")) or "image.jpg"
                attachments.append(Attachment(_text(item.get("downloadCode")), name))
    elif kind == "picture" and message.image_content is not None:
        if _text(message.image_content.download_code):
            attachments.append(Attachment(_text(message.image_content.download_code), "image.jpg"))
    elif kind == "file":
        if _text(content.get("downloadCode")):
            name = _text(content.get("fileName")) or "file"
            attachments.append(Attachment(_text(content.get("downloadCode")), name))
    elif kind == "audio":
        parts.append(_text(content.get("recognition")))
    elif kind is not None:
        parts.append(f"[{kind} message]")
    expires = message.session_webhook_expired_time
    return Received(
        message_id=message_id,
        sender=sender,
        nick=_text(message.sender_nick),
        chat_id=f"{GROUP_PREFIX}{conversation}" if is_group else sender,
        is_group=is_group,
        conversation_id=conversation,
        text=" ".join(p for p in parts if p),
        attachments=attachments,
        webhook=_text(message.session_webhook),
        webhook_expires_ms=int(expires) if isinstance(expires, int) else 0,
    )
