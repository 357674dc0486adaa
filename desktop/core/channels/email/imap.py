"""One IMAP session on the watched mailbox (stdlib :mod:`imaplib`; blocking, call it from a
worker thread).

Everything is addressed by UID (stable across sessions while UIDVALIDITY stays the same).
A lost connection raises :class:`imaplib.IMAP4.abort` or :class:`OSError`; the channel lets it
end its run and the manager reconnects. A command the server refuses (``NO``/``BAD``) raises
:class:`ImapError`; a refused LOGIN raises :class:`ImapAuthError` (retrying cannot fix it).
"""

from __future__ import annotations

import contextlib
import imaplib
import re
import socket
import ssl
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from desktop.core.config.channels.email import EmailConfig

TIMEOUT_S = 30.0
_UID_IN_FETCH = re.compile(rb"\bUID (\d+)")
_SIZE_IN_FETCH = re.compile(rb"\bRFC822\.SIZE (\d+)")
# RFC 5530 codes of a refused LOGIN that a later attempt may get past
_RETRYABLE_LOGIN = ("[UNAVAILABLE]", "[INUSE]", "[LIMIT]", "[SERVERBUG]", "[OVERQUOTA]")


class ImapError(Exception):
    """The server refused a command."""


class ImapAuthError(ImapError):
    """The server refused the login."""


class ImapFolderError(ImapError):
    """The watched folder cannot be opened (it does not exist, or no access)."""


def uid_set(uids: Iterable[int]) -> str:
    """``[3, 4, 5, 9]`` → ``"3:5,9"`` (an IMAP sequence set)."""
    ordered = sorted(set(uids))
    ranges: list[str] = []
    start = prev = None
    for uid in ordered:
        if start is None:
            start = prev = uid
        elif prev is not None and uid == prev + 1:
            prev = uid
        else:
            ranges.append(f"{start}:{prev}" if start != prev else f"{start}")
            start = prev = uid
    if start is not None:
        ranges.append(f"{start}:{prev}" if start != prev else f"{start}")
    return ",".join(ranges)


class ImapMailbox:
    """A logged-in session with :attr:`EmailConfig.imap_mailbox` selected (read-write).

    Args:
        config: The channel's settings.
        timeout: Socket timeout for every command, in seconds.
    """

    def __init__(self, config: EmailConfig, *, timeout: float = TIMEOUT_S) -> None:
        self.config = config
        self.timeout = timeout
        self.uidvalidity = 0
        self.capabilities: frozenset[str] = frozenset()
        self._client: Any = None
        self._lock = threading.Lock()

    # -- connection -----------------------------------------------------------------------
    def connect(self, *, readonly: bool = False) -> None:
        """Connect, log in and select the mailbox.

        Raises:
            ImapAuthError: The username or password was refused.
            ImapFolderError: The folder could not be opened.
            OSError: The server could not be reached.
        """
        cfg = self.config
        if cfg.imap_use_ssl:
            client: Any = imaplib.IMAP4_SSL(
                cfg.imap_host,
                cfg.imap_port,
                ssl_context=ssl.create_default_context(),
                timeout=self.timeout,
            )
        else:
            client = imaplib.IMAP4(cfg.imap_host, cfg.imap_port, timeout=self.timeout)
        self._client = client
        try:
            try:
                client.login(cfg.imap_username, cfg.imap_password)
            except imaplib.IMAP4.abort:
                raise
            except imaplib.IMAP4.error as exc:
                text = _text(exc)
                if any(code in text.upper() for code in _RETRYABLE_LOGIN):
                    raise ImapError(f"IMAP cannot log in now: {text}") from None
                raise ImapAuthError(f"IMAP refused the login: {text}") from None
            mailbox = cfg.imap_mailbox or "INBOX"
            status, data = client.select(_quote(mailbox), readonly=readonly)
            if status != "OK":
                raise ImapFolderError(
                    f"the IMAP folder {mailbox!r} could not be opened: {_text(data)}"
                )
            validity = client.untagged_responses.get("UIDVALIDITY", [b"0"])[-1]
            self.uidvalidity = int(validity)
            status, caps = client.capability()
            words = b" ".join(c for c in caps if isinstance(c, bytes)).decode("ascii", "replace")
            self.capabilities = frozenset(words.upper().split())
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Log out (or, when a command is still running in another thread, cut the socket)."""
        client, self._client = self._client, None
        if client is None:
            return
        if self._lock.acquire(blocking=False):
            try:
                with contextlib.suppress(Exception):
                    client.sock.settimeout(3.0)
                    client.logout()
            finally:
                self._lock.release()
        else:
            with contextlib.suppress(OSError):
                client.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(Exception):
            client.shutdown()

    def _uid(self, command: str, *args: str) -> list[Any]:
        client = self._client
        if client is None:
            raise imaplib.IMAP4.abort("not connected")
        with self._lock:
            status, data = client.uid(command, *args)
        if status != "OK":
            raise ImapError(f"IMAP {command} failed: {_text(data)}")
        return list(data or [])

    # -- reading --------------------------------------------------------------------------
    def noop(self) -> None:
        """Let the server report what changed (new mail) since the last command."""
        client = self._client
        if client is None:
            raise imaplib.IMAP4.abort("not connected")
        with self._lock:
            status, data = client.noop()
        if status != "OK":
            raise ImapError(f"IMAP NOOP failed: {_text(data)}")

    def unseen_after(self, last_uid: int) -> list[int]:
        """UIDs of unseen mail above ``last_uid``, oldest first (after a NOOP, so the server
        has looked for new mail)."""
        self.noop()
        data = self._uid("SEARCH", "UID", f"{last_uid + 1}:*", "UNSEEN")
        found = b" ".join(d for d in data if isinstance(d, bytes)).split()
        return sorted(u for u in (int(x) for x in found) if u > last_uid)

    def unseen_up_to(self, last_uid: int) -> list[int]:
        """UIDs of unseen mail at or below ``last_uid`` (for the repair after a crash)."""
        if last_uid <= 0:
            return []
        data = self._uid("SEARCH", "UID", f"1:{last_uid}", "UNSEEN")
        found = b" ".join(d for d in data if isinstance(d, bytes)).split()
        return sorted(u for u in (int(x) for x in found) if u <= last_uid)

    def _fetch(self, uids: Sequence[int], items: str) -> list[tuple[bytes, bytes]]:
        if not uids:
            return []
        data = self._uid("FETCH", uid_set(uids), f"(UID {items})")
        return [
            (bytes(item[0]), bytes(item[1]))
            for item in data
            if isinstance(item, tuple) and len(item) >= 2 and isinstance(item[1], bytes | bytearray)
        ]

    def fetch_headers(self, uids: Sequence[int]) -> dict[int, tuple[bytes, int]]:
        """UID → (raw header block, size of the whole mail); vanished mail is left out."""
        found: dict[int, tuple[bytes, int]] = {}
        for head, header in self._fetch(uids, "RFC822.SIZE BODY.PEEK[HEADER]"):
            uid, size = _UID_IN_FETCH.search(head), _SIZE_IN_FETCH.search(head)
            if uid:
                found[int(uid.group(1))] = (header, int(size.group(1)) if size else len(header))
        return found

    def fetch_mail(self, uids: Sequence[int]) -> dict[int, bytes]:
        """UID → the whole raw mail (not marked seen); vanished mail is left out."""
        found: dict[int, bytes] = {}
        for head, raw in self._fetch(uids, "BODY.PEEK[]"):
            uid = _UID_IN_FETCH.search(head)
            if uid:
                found[int(uid.group(1))] = raw
        return found

    # -- changing -------------------------------------------------------------------------
    def add_flags(self, uids: Sequence[int], flags: str) -> None:
        """Set ``flags`` (e.g. ``\\Seen``) on ``uids``."""
        if uids:
            self._uid("STORE", uid_set(uids), "+FLAGS.SILENT", f"({flags})")

    def delete(self, uids: Sequence[int]) -> None:
        """Delete ``uids`` (UID EXPUNGE where the server has UIDPLUS; otherwise a folder-wide
        EXPUNGE only when ``postActionExpunge`` allows it)."""
        if not uids:
            return
        self.add_flags(uids, "\\Deleted")
        if "UIDPLUS" in self.capabilities:
            self._uid("EXPUNGE", uid_set(uids))
        elif self.config.post_action_expunge:
            with self._lock:
                self._client.expunge()

    def move(self, uids: Sequence[int], target: str) -> None:
        """Move ``uids`` to the folder ``target`` (MOVE, or COPY and delete)."""
        if not uids:
            return
        if "MOVE" in self.capabilities:
            self._uid("MOVE", uid_set(uids), _quote(target))
            return
        self._uid("COPY", uid_set(uids), _quote(target))
        self.delete(uids)


def first_batch(uids: list[int], headers: dict[int, tuple[bytes, int]], budget: int) -> list[int]:
    """``uids[0]`` and the UIDs after it whose mails fit in ``budget`` bytes together (sizes
    from :meth:`ImapMailbox.fetch_headers`; a larger first mail comes alone)."""
    group: list[int] = []
    total = 0
    for uid in uids:
        size = headers[uid][1] if uid in headers else 0
        if group and total + size > budget:
            break
        group.append(uid)
        total += size
    return group


def _quote(mailbox: str) -> str:
    """A mailbox name as an IMAP string (quoted when it has spaces or specials)."""
    if mailbox and re.fullmatch(r"[A-Za-z0-9._/&+-]+", mailbox):
        return mailbox
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _text(value: object) -> str:
    if isinstance(value, list | tuple):
        value = b" ".join(v for v in value if isinstance(v, bytes)) or str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
