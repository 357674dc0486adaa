"""Sending to Telegram: text pieces in HTML (plain text when refused), files, flood waits."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

from telegram import Bot, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter

from desktop.core.bus.events import OutboundMessage
from desktop.core.channels.base import split_message
from desktop.core.channels.telegram.markup import MESSAGE_LIMIT, Piece, escape, split_pieces

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".webp")
FLOOD_WAIT_MAX_S = 30.0


def seconds(value: float | timedelta) -> float:
    """A ``retry_after`` (seconds or a timedelta, depending on PTB's settings) in seconds."""
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def pieces(message: OutboundMessage) -> list[Piece]:
    """The messages an answer becomes (a tool hint: a collapsed quote)."""
    if message.metadata.get("tool_hint"):
        return [
            Piece(part, f"<blockquote expandable>{escape(part)}</blockquote>")
            for part in split_message(message.content, MESSAGE_LIMIT - 40)
        ]
    return split_pieces(message.content)


def reply_parameters(reply_to: int | None) -> ReplyParameters | None:
    """Answer as a reply to ``reply_to`` (sent anyway when that message is gone)."""
    return ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None


async def retrying(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call`` again after Telegram's flood wait (up to 30 s, twice); else its error."""
    for attempt in range(3):
        try:
            return await call(*args, **kwargs)
        except RetryAfter as exc:
            wait = seconds(exc.retry_after)
            if attempt == 2 or wait > FLOOD_WAIT_MAX_S:
                raise
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")


def _refused_formatting(exc: BadRequest) -> bool:
    text = str(exc).lower()
    return "parse" in text or "entit" in text


async def send_text(bot: Bot, chat: int, piece: Piece, reply_to: int | None) -> None:
    """One piece as HTML; as plain text (its markdown) when Telegram cannot parse the HTML."""
    reply = reply_parameters(reply_to)
    try:
        await retrying(
            bot.send_message, chat, piece.html, parse_mode=ParseMode.HTML, reply_parameters=reply
        )
    except BadRequest as exc:
        if not _refused_formatting(exc):
            raise
        log.warning("Telegram refused the formatting (%s); sending plain text", exc)
        for part in split_message(piece.markdown, MESSAGE_LIMIT):
            await retrying(bot.send_message, chat, part, reply_parameters=reply)
            reply = None


async def send_file(bot: Bot, chat: int, path: Path, reply_to: int | None) -> None:
    """An attachment: a photo for images, a document otherwise (a missing file is skipped)."""
    try:
        data = await asyncio.to_thread(path.read_bytes)
    except OSError as exc:
        log.warning("Telegram: attachment %s not sent: %s", path.name, exc)
        return
    reply = reply_parameters(reply_to)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        await retrying(bot.send_photo, chat, data, filename=path.name, reply_parameters=reply)
    else:
        await retrying(bot.send_document, chat, data, filename=path.name, reply_parameters=reply)
