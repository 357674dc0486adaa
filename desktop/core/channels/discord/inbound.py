"""What a Discord message says, as text (and files) for the agent.

The text keeps Discord's markdown; the bot's own mention is removed and other people's
mentions (``<@123>``) become ``@name``. Each attachment becomes a line, ``[image: <path>]``
or ``[file: <path>]``, after it is saved under ``<media dir>/discord/``; images are also
passed to the model. An attachment over 20 MB or one that cannot be downloaded becomes a note
(``[file: name - too large]``, ``[file: name - download failed]``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import discord

from desktop.core.utils.atomic import atomic_write_bytes
from desktop.core.utils.redact import redact

log = logging.getLogger(__name__)

MAX_DOWNLOAD = 20 * 1024 * 1024
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


@dataclass
class Received:
    """A message turned into the agent's input."""

    content: str
    media: list[str] = field(default_factory=list)


def mentions_me(message: discord.Message, me: int) -> bool:
    """Whether ``message`` mentions the bot (a user mention, or a reply to the bot)."""
    if any(user.id == me for user in message.mentions):
        return True
    if re.search(rf"<@!?{me}>", message.content or ""):
        return True
    reference = message.reference
    resolved = reference.resolved if reference is not None else None
    return isinstance(resolved, discord.Message) and resolved.author.id == me


def clean_text(message: discord.Message, me: int | None) -> str:
    """The text with the bot's mention removed and other mentions readable."""
    text = message.content or ""
    if me is not None:
        text = re.sub(rf"<@!?{me}>\s*", "", text)
    for user in message.mentions:
        if user.id != me:
            text = re.sub(rf"<@!?{user.id}>", f"@{user.display_name}", text)
    return text.strip()


def _is_image(attachment: discord.Attachment) -> bool:
    kind = (attachment.content_type or "").split(";")[0].strip()
    return kind.startswith("image/") or attachment.filename.lower().endswith(_IMAGE_SUFFIXES)


async def _save(attachment: discord.Attachment, folder: Path) -> Path:
    data = await attachment.read()
    name = _SAFE.sub("_", attachment.filename)[-80:] or "file"
    path = folder / f"{attachment.id}_{name}"
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    await asyncio.to_thread(atomic_write_bytes, path, data)
    return path


async def describe(message: discord.Message, media_dir: Path, me: int | None) -> Received:
    """``message`` as the agent's input (see the module docstring)."""
    lines = [clean_text(message, me)]
    media: list[str] = []
    folder = media_dir / "discord"
    for attachment in message.attachments:
        kind = "image" if _is_image(attachment) else "file"
        if attachment.size > MAX_DOWNLOAD:
            lines.append(f"[{kind}: {attachment.filename} - too large]")
            continue
        try:
            path = await _save(attachment, folder)
        except (discord.HTTPException, OSError) as exc:
            log.warning("Discord: attachment %s not saved: %s", attachment.id, redact(exc))
            lines.append(f"[{kind}: {attachment.filename} - download failed]")
            continue
        lines.append(f"[{kind}: {path}]")
        if kind == "image":
            media.append(str(path))
    content = "\n".join(line for line in lines if line) or "[empty message]"
    return Received(content, media)
