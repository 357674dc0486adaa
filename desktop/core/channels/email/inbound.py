"""From a fetched mail to what the agent gets: the screening of its header (who may write,
spoofing, loops) and the reading of the whole mail (text, thread, attachments saved).

Blocking (parsing, files): the channel calls these from a worker thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from desktop.core.agent.commands import parse_command
from desktop.core.channels.email import auth
from desktop.core.channels.email.parse import (
    Attachment,
    attachments,
    body_text,
    dedupe_key,
    header_text,
    is_auto_submitted,
    message_ids,
    parse_bytes,
    reply_part,
    safe_filename,
    sender_address,
    thread_references,
)
from desktop.core.channels.email.smtp import Thread
from desktop.core.config.channels.email import EmailConfig
from desktop.core.utils.atomic import atomic_write_bytes

log = logging.getLogger(__name__)

CONTEXT_HEAD = "[EMAIL-CONTEXT] Email received."  # nanobot's first line of a mail turn
MAX_MULTIPARTS = 100  # real mail has a handful; thousands only come from parser bombs


@dataclass(frozen=True)
class Screening:
    """What the header of one mail says.

    Attributes:
        sender: The lower-case From address (``""`` when unusable).
        skip: Why the mail is not for the agent (``""``: it is).
        message_id: Its Message-ID (``""`` when it has none).
    """

    sender: str
    skip: str = ""
    message_id: str = ""


def screen(
    config: EmailConfig,
    header: bytes,
    *,
    own_addresses: frozenset[str],
    is_allowed: Callable[[str], bool],
) -> Screening:
    """Decide from the header alone whether the agent gets this mail."""
    message = parse_bytes(header)
    ids = message_ids(header_text(message, "Message-ID"))
    message_id = ids[0] if ids else ""
    sender = sender_address(message)
    if not sender:
        return Screening("", "it has no single usable From address", message_id)
    if sender in own_addresses:
        return Screening(sender, "it comes from this mailbox's own address", message_id)
    if is_auto_submitted(message):
        return Screening(sender, "it is an automatic mail (Auto-Submitted/Precedence)", message_id)
    if config.verify_spf or config.verify_dkim:
        spf, dkim = auth.verify(message, sender, config.trusted_authserv_ids)
        if config.verify_spf and not spf:
            return Screening(sender, "SPF is not verified (no aligned spf=pass)", message_id)
        if config.verify_dkim and not dkim:
            return Screening(sender, "DKIM is not verified (no aligned dkim=pass)", message_id)
    if not is_allowed(sender):
        return Screening(sender, "the sender is not in allowFrom", message_id)
    return Screening(sender, "", message_id)


@dataclass
class Received:
    """A mail ready for the agent.

    Attributes:
        key: Its de-duplication key (Message-ID, else a hash of the mail).
        sender: The lower-case From address (the chat id).
        content: The turn's text (nanobot's ``[EMAIL-CONTEXT]`` block, or a bare slash
            command when that is all the person wrote).
        reply: The new text of the mail (quoted history and signature removed).
        media: Saved attachments.
        metadata: nanobot's keys (``message_id``, ``subject``, ``date``, ``sender_email``,
            ``uid``).
        thread: What an answer threads onto.
    """

    key: str
    sender: str
    content: str
    reply: str
    media: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    thread: Thread = field(default_factory=Thread)


def read(
    config: EmailConfig, raw: bytes, *, uid: int, uidvalidity: int, media_dir: Path
) -> Received:
    """Turn a whole mail into a :class:`Received` (attachments saved under ``media_dir``).

    Raises:
        ValueError: The mail has no usable sender (it changed since the screening), or it
            nests more MIME parts than any real mail (a parser bomb).
    """
    if raw.lower().count(b"boundary=") > MAX_MULTIPARTS:
        raise ValueError(f"more than {MAX_MULTIPARTS} nested or multipart sections")
    message = parse_bytes(raw)
    sender = sender_address(message)
    if not sender:
        raise ValueError("the mail has no single usable From address")
    subject = header_text(message, "Subject")
    date = header_text(message, "Date")
    ids = message_ids(header_text(message, "Message-ID"))
    text = body_text(message)
    body = text[: max(0, config.max_body_chars)] if text.strip() else "(empty email body)"
    notes, media = _keep_attachments(config, attachments(message), uid, uidvalidity, media_dir)
    content = f"{CONTEXT_HEAD}\nFrom: {sender}\nSubject: {subject}\nDate: {date}\n\n{body}"
    if notes:
        content += "\n" + "\n".join(notes)
    new_text = reply_part(text)
    lines = [line for line in new_text.splitlines() if line.strip()]
    if len(lines) == 1 and not media and parse_command(lines[0]) is not None:
        content = lines[0].strip()  # "/new" in a mail is the command, as typed in a chat
    return Received(
        key=dedupe_key(message, raw),
        sender=sender,
        content=content,
        reply=new_text,
        media=media,
        metadata={
            "message_id": ids[0] if ids else "",
            "subject": subject,
            "date": date,
            "sender_email": sender,
            "uid": str(uid),
        },
        thread=Thread(subject, ids[0] if ids else "", thread_references(message)),
    )


def _size(n: int) -> str:
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"


def _keep_attachments(
    config: EmailConfig, found: list[Attachment], uid: int, uidvalidity: int, media_dir: Path
) -> tuple[list[str], list[str]]:
    """Save the attachments the settings allow; a note for each attachment either way."""
    notes: list[str] = []
    saved: list[str] = []
    patterns = [p.strip().lower() for p in config.allowed_attachment_types if p.strip()]
    folder = media_dir / "email"
    for index, item in enumerate(found, 1):
        label = f"{item.name} ({item.content_type}, {_size(item.size)})"
        if not any(fnmatch(item.content_type.lower(), p) for p in patterns):
            notes.append(f"[attachment: {label} — not saved: type not in allowedAttachmentTypes]")
        elif item.size > max(0, config.max_attachment_size):
            notes.append(f"[attachment: {label} — not saved: larger than maxAttachmentSize]")
        elif len(saved) >= max(0, config.max_attachments_per_email):
            notes.append(f"[attachment: {label} — not saved: more than maxAttachmentsPerEmail]")
        else:
            path = folder / f"{uidvalidity}-{uid}-{index}-{safe_filename(item.name)}"
            try:
                atomic_write_bytes(path, item.data)
            except OSError as exc:
                log.warning("email: could not save attachment %s: %s", path, exc)
                notes.append(f"[attachment: {label} — not saved: {exc.strerror or exc}]")
                continue
            saved.append(str(path))
            notes.append(f"[attachment: {item.name} — saved to {path}]")
    return notes, saved
