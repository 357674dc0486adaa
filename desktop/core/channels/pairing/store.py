"""The DM pairing store: ``pairing.json`` beside the config file, in nanobot 0.3.5's format.

A person not named in a channel's ``allowFrom`` who writes to the bot directly gets a pairing
code; once the owner approves the code (in the window, the tray, ``nanobot-desktop channels
pair approve CODE`` or ``/pairing approve CODE`` from an allowed chat) the sender is let in on
that channel. The file is shared with nanobot 0.3.5 (``~/.nanobot/pairing.json``)::

    {
      "approved": {"telegram": ["123|alice"]},
      "pending": {"ABCD-EFGH": {"channel": "telegram", "sender_id": "456",
                                "created_at": 1700000000.0, "expires_at": 1700000600.0}}
    }

Codes are eight characters from ``A-Z0-9`` written ``XXXX-XXXX`` and expire after ten minutes;
a sender asking again while a code is pending gets the same code. Every change is made under
an inter-process lock (``pairing.json.lock``), read fresh from disk and written atomically; a
file that is not valid JSON is copied aside (``pairing.json.corrupt-<time>``) before the first
change replaces it, and a file that cannot be read (permissions) is never replaced.

All methods do blocking file I/O: call them from a worker thread.
"""

from __future__ import annotations

import json
import logging
import secrets
import string
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.core.utils import ownfiles
from desktop.core.utils.atomic import set_aside

log = logging.getLogger(__name__)

FILE_NAME = "pairing.json"
ALPHABET = string.ascii_uppercase + string.digits
CODE_LENGTH = 8
TTL_S = 600.0


@dataclass(frozen=True)
class PairingRequest:
    """A pending request: ``sender`` on ``channel`` was given ``code``."""

    code: str
    channel: str
    sender: str
    created_at: float
    expires_at: float

    def expires_in(self, now: float | None = None) -> int:
        """Whole seconds left (0 once expired)."""
        return max(0, int(self.expires_at - (time.time() if now is None else now)))


@dataclass
class Pairings:
    """What the file holds: approved senders per channel and pending requests by code."""

    approved: dict[str, list[str]] = field(default_factory=dict)
    pending: dict[str, PairingRequest] = field(default_factory=dict)


def normalize_code(text: str) -> str:
    """A code as typed (``abcdefgh``, `` abcd-efgh ``) written as stored (``ABCD-EFGH``)."""
    raw = "".join(ch for ch in text.strip().upper() if ch.isalnum())
    if len(raw) == CODE_LENGTH:
        return f"{raw[:4]}-{raw[4:]}"
    return text.strip().upper()


def _new_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _parse(document: object) -> Pairings:
    """The usable part of a decoded file (entries of the wrong shape are skipped)."""
    found = Pairings()
    if not isinstance(document, dict):
        raise ValueError("the file does not hold a JSON object")
    approved = document.get("approved")
    if isinstance(approved, dict):
        for channel, senders in approved.items():
            if isinstance(senders, list):
                found.approved[str(channel)] = sorted({str(s) for s in senders})
    pending = document.get("pending")
    if isinstance(pending, dict):
        for code, entry in pending.items():
            if not isinstance(entry, dict):
                continue
            channel, sender = entry.get("channel"), entry.get("sender_id")
            expires = _number(entry.get("expires_at"))
            if not isinstance(channel, str) or not channel or sender is None or expires is None:
                continue
            created = _number(entry.get("created_at")) or expires - TTL_S
            found.pending[str(code)] = PairingRequest(
                str(code), channel, str(sender), created, expires
            )
    return found


def _render(pairings: Pairings) -> str:
    """The file's text, exactly as nanobot 0.3.5 writes it."""
    payload: dict[str, Any] = {
        "approved": {ch: sorted(set(users)) for ch, users in pairings.approved.items()},
        "pending": {
            code: {
                "channel": r.channel,
                "sender_id": r.sender,
                "created_at": r.created_at,
                "expires_at": r.expires_at,
            }
            for code, r in pairings.pending.items()
        },
    }
    return json.dumps(payload, indent=2, ensure_ascii=False)


class PairingStore:
    """``pairing.json`` in ``folder`` (the config folder, 0.3.5's data dir).

    Args:
        folder: The folder holding the file (no link is followed below it).
        ttl: How long a code stays valid, in seconds.
        clock: The time source (tests).
    """

    def __init__(
        self, folder: Path, *, ttl: float = TTL_S, clock: Callable[[], float] = time.time
    ) -> None:
        self.folder = Path(folder)
        self.path = self.folder / FILE_NAME
        self.ttl = ttl
        self.clock = clock
        self._lock = ownfiles.OwnLock(
            self.folder / f"{FILE_NAME}.lock", root=self.folder, timeout=30
        )

    # -- reading ------------------------------------------------------------------------------
    def read(self) -> Pairings:
        """The current content, expired requests left out (empty when missing or corrupt).

        Raises:
            OSError: The file exists but cannot be read (permissions, a link at its name).
        """
        pairings, _ = self._load()
        self._expire(pairings)
        return pairings

    def pending(self) -> list[PairingRequest]:
        """Pending requests, oldest first."""
        return sorted(self.read().pending.values(), key=lambda r: r.created_at)

    def approved(self) -> dict[str, list[str]]:
        """Approved senders per channel."""
        return self.read().approved

    def _load(self) -> tuple[Pairings, bool]:
        """The content and whether the file is corrupt (not JSON, not an object)."""
        data = ownfiles.read_bytes(self.path, root=self.folder)
        if data is None:
            return Pairings(), False
        try:
            return _parse(json.loads(data.decode("utf-8"))), False
        except (ValueError, UnicodeDecodeError) as exc:
            log.warning("%s is not valid (%s); treating it as empty", self.path, exc)
            return Pairings(), True

    def _expire(self, pairings: Pairings) -> bool:
        now = self.clock()
        gone = [code for code, r in pairings.pending.items() if r.expires_at < now]
        for code in gone:
            del pairings.pending[code]
        return bool(gone)

    # -- changing ------------------------------------------------------------------------------
    @contextmanager
    def _change(self) -> Iterator[Pairings]:
        """Lock, read fresh, let the caller change it, write it back atomically."""
        with self._lock:
            pairings, corrupt = self._load()
            self._expire(pairings)
            before = _render(pairings)
            yield pairings
            text = _render(pairings)
            if text == before:
                return
            if corrupt:
                kept = set_aside(self.path)
                log.warning("the unreadable %s was kept as %s", self.path.name, kept.name)
            ownfiles.replace(self.path, text.encode("utf-8"), root=self.folder)

    def request(self, channel: str, sender: str) -> tuple[PairingRequest, bool]:
        """The pending request for ``sender`` on ``channel``: the existing one, or a new code.

        Returns:
            The request and whether it is new.
        """
        with self._change() as pairings:
            for found in pairings.pending.values():
                if found.channel == channel and found.sender == sender:
                    return found, False
            code = _new_code()
            while code in pairings.pending:
                code = _new_code()
            now = self.clock()
            made = PairingRequest(code, channel, sender, now, now + self.ttl)
            pairings.pending[code] = made
        log.info("pairing code issued for %s on %s", sender, channel)
        return made, True

    def approve(self, code: str) -> PairingRequest | None:
        """Approve ``code``: its sender is let in on its channel. ``None``: unknown or expired."""
        code = normalize_code(code)
        with self._change() as pairings:
            found = pairings.pending.pop(code, None)
            if found is not None:
                senders = set(pairings.approved.get(found.channel, []))
                pairings.approved[found.channel] = sorted(senders | {found.sender})
        if found is not None:
            log.info("pairing approved: %s on %s", found.sender, found.channel)
        return found

    def deny(self, code: str) -> PairingRequest | None:
        """Discard ``code`` (the sender may ask again). ``None``: unknown or expired."""
        with self._change() as pairings:
            return pairings.pending.pop(normalize_code(code), None)

    def revoke(self, channel: str, sender: str) -> bool:
        """Take ``sender``'s approval on ``channel`` back; whether it was there."""
        with self._change() as pairings:
            senders = pairings.approved.get(channel, [])
            if sender not in senders:
                return False
            rest = [s for s in senders if s != sender]
            if rest:
                pairings.approved[channel] = rest
            else:
                del pairings.approved[channel]
            return True
