"""What a Telegram message says, as text (and image files) for the agent.

The formats follow nanobot's: the text and caption, ``[location: lat, lon]``, a
``[Reply to @name: …]`` line for a reply, and one line per attachment: ``[image: <path>]``,
``[file: <path>]``, ``[transcription: …]`` for a transcribed voice message (``[empty
message]`` when nothing is left). Attachments are saved under ``<media dir>/telegram/``;
photos (and image documents) are also passed as images, so the model sees them.

A download that fails because the connection is gone raises (the update is then handled
again after the reconnect); any other failure becomes a note in the text.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from telegram import Bot, Message
from telegram.error import BadRequest, NetworkError, TelegramError

from desktop.core.channels.telegram.transcribe import (
    missing_note,
    transcribe,
    transcription_access,
)
from desktop.core.utils.atomic import atomic_write_bytes
from desktop.core.utils.mime import guess_type
from desktop.core.utils.mime import ready as mime_tables_ready
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

MAX_DOWNLOAD = 20 * 1024 * 1024  # the Bot API's getFile limit
REPLY_CONTEXT_CHARS = 4000
_EXTENSIONS = {
    "image/jpeg": ".jpg",
    "image/png": ".png",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "audio/ogg": ".ogg",
    "audio/mpeg": ".mp3",
    "audio/mp4": ".m4a",
    "video/mp4": ".mp4",
    "video/quicktime": ".mov",
    "video/webm": ".webm",
}
_SAFE = re.compile(r"[^A-Za-z0-9_-]")  # ids and suffixes from the server name no other path
_DEFAULT_EXTENSION = {"image": ".jpg", "voice": ".ogg", "audio": ".mp3", "video": ".mp4"}


@dataclass
class Received:
    """A message turned into the agent's input."""

    content: str
    media: list[str] = field(default_factory=list)


class ConnectionLost(Exception):
    """A download failed because the Bot API could not be reached (retry the update later)."""


def _extension(kind: str, mime: str | None, name: str | None) -> str:
    if mime and mime in _EXTENSIONS:
        return _EXTENSIONS[mime]
    if name and Path(name).suffix:
        return Path(name).suffix.lower()[:10]
    if mime:
        guessed = mimetypes.guess_extension(mime)
        if guessed:
            return guessed
    return _DEFAULT_EXTENSION.get(kind, "")


def _attachment(message: Message) -> tuple[str, Any] | None:
    """``(kind, file object)`` of the message's attachment, if it has one."""
    if message.photo:
        return "image", message.photo[-1]  # the largest size
    for kind in ("voice", "audio", "document", "video", "video_note", "animation"):
        value = getattr(message, kind, None)
        if value is not None:
            return ("video" if kind in ("video_note", "animation") else kind), value
    return None


async def download(bot: Bot, kind: str, item: Any, media_dir: Path) -> Path:
    """Save an attachment under ``media_dir/telegram`` and return its path.

    Raises:
        ConnectionLost: The Bot API could not be reached.
        TelegramError: Telegram refused (file too big, gone …).
    """
    mime = getattr(item, "mime_type", None)
    name = getattr(item, "file_name", None)
    await mime_tables_ready()  # _extension may ask mimetypes, which reads files the first time
    unique = _SAFE.sub("_", str(getattr(item, "file_unique_id", None) or item.file_id))[:64]
    suffix = _SAFE.sub("", _extension(kind, mime, name).lstrip("."))
    path = media_dir / "telegram" / (f"{unique}.{suffix}" if suffix else unique)
    try:
        remote = await bot.get_file(item.file_id)
        data = await remote.download_as_bytearray()
    except BadRequest:  # a NetworkError subclass, but Telegram's answer: not a lost connection
        raise
    except NetworkError as exc:  # TimedOut included
        raise ConnectionLost(str(exc)) from exc
    await asyncio.to_thread(atomic_write_bytes, path, bytes(data))
    return path


def reply_context(message: Message, bot_id: int | None) -> str | None:
    """``[Reply to …: text]`` for a reply to a message with text."""
    reply = message.reply_to_message
    if reply is None:
        return None
    text = reply.text or reply.caption or ""
    if not text:
        return None
    if len(text) > REPLY_CONTEXT_CHARS:
        text = text[:REPLY_CONTEXT_CHARS] + "..."
    author = reply.from_user
    if author is not None and bot_id is not None and author.id == bot_id:
        return f"[Reply to bot: {text}]"
    if author is not None and author.username:
        return f"[Reply to @{author.username}: {text}]"
    if author is not None and author.first_name:
        return f"[Reply to {author.first_name}: {text}]"
    return f"[Reply to: {text}]"


async def _voice_text(path: Path, app_config: Any) -> str:
    access = await transcription_access(app_config)
    if access is None:
        return missing_note(app_config)
    try:
        text = await transcribe(path, access)
    except Exception as exc:  # noqa: BLE001 - a failed transcription becomes a note
        log.warning("transcribing %s failed: %s", path.name, redact(exc))
        return f"(voice message: the transcription failed — {redact(exc)[:200]})"
    return f"[transcription: {text}]" if text else "(voice message: nothing was recognised)"


async def attachment_parts(
    bot: Bot, message: Message, media_dir: Path, app_config: Any, *, give_up: bool = False
) -> tuple[list[str], list[str]]:
    """Lines for the message's attachment and image paths for the model.

    Raises:
        ConnectionLost: The download failed for want of a connection (unless ``give_up``:
            then the attachment becomes a "download failed" note).
    """
    found = _attachment(message)
    if found is None:
        return [], []
    kind, item = found
    size = getattr(item, "file_size", None) or 0
    label = "file" if kind == "document" else kind
    if size > MAX_DOWNLOAD:
        name = getattr(item, "file_name", None) or kind
        return [f"[{label}: {name} — too large to download ({size // 1_000_000} MB)]"], []
    try:
        path = await download(bot, kind, item, media_dir)
    except ConnectionLost:
        if not give_up:
            raise
        log.warning("downloading a %s failed repeatedly; giving up", kind)
        return [f"[{label}: download failed]"], []
    except (TelegramError, OSError) as exc:
        log.warning("downloading a %s failed: %s", kind, redact(exc))
        return [f"[{label}: download failed]"], []
    if kind in ("voice", "audio"):
        return [await _voice_text(path, app_config)], []
    mime = getattr(item, "mime_type", None) or await guess_type(path.name) or ""
    is_image = kind == "image" or mime.startswith("image/")
    return [f"[{label}: {path}]"], ([str(path)] if is_image else [])


async def describe(
    bot: Bot,
    message: Message,
    media_dir: Path,
    app_config: Any,
    *,
    bot_id: int | None,
    text: str | None = None,
    give_up: bool = False,
) -> Received:
    """The agent's input for ``message`` (attachments downloaded).

    Args:
        bot: Downloads attachments.
        message: The message.
        media_dir: Where attachments are saved (below ``telegram/``).
        app_config: For the Groq key (voice messages).
        bot_id: The bot's user id (a reply to the bot says so).
        text: The text to use instead of ``message.text`` (a normalised command).
        give_up: Turn a download without connection into a note instead of raising.
    """
    parts: list[str] = []
    context = reply_context(message, bot_id)
    if context:
        parts.append(context)
    text = message.text if text is None else text
    if text:
        parts.append(text)
    if message.caption:
        parts.append(message.caption)
    if message.location is not None:
        parts.append(f"[location: {message.location.latitude}, {message.location.longitude}]")
    lines, media = await attachment_parts(bot, message, media_dir, app_config, give_up=give_up)
    parts.extend(lines)
    return Received("\n".join(parts) if parts else "[empty message]", media)
