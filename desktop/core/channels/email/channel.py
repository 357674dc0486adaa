"""The email channel: IMAP in (polling unseen mail), SMTP out (threaded answers).

Library: the standard library's :mod:`imaplib` and :mod:`smtplib`, run in worker threads
(``asyncio.to_thread``). They are what nanobot uses, so the same servers behave the same, they
need no extra package, and every call has a socket timeout. The price is one thread hop per
command, which is nothing next to a poll interval.

Receiving (one IMAP session, reconnected by the manager when it breaks):

* every ``pollIntervalSeconds`` the unseen mail above the cursor (the highest UID handled,
  with the mailbox's UIDVALIDITY) is screened on its header: no usable sender, the bot's own
  address, automatic mail (RFC 3834), failed SPF/DKIM (``verifySpf``/``verifyDkim`` with
  ``trustedAuthservIds``), a sender outside ``allowFrom`` — such mail is logged, left unseen
  and passed by;
* the rest is read (HTML as text, attachments saved as allowed) and published; only when the
  agent has its user message saved in the session (the message's
  :class:`~desktop.core.bus.events.Ack`) is the cursor saved past it, its Message-ID
  remembered (de-duplication across restarts and UIDVALIDITY changes) and the mail marked
  ``\\Seen`` (then deleted or moved when ``postAction`` says so). A mail still waiting for
  its turn when the app ends stays unseen and below the saved cursor, so it is read again;
* a mail that cannot be read is logged and skipped; the channel keeps running.

Sending: the answer goes to the chat id (the sender's address) with ``Re: <subject>``,
``In-Reply-To`` and ``References`` of the mail it answers (known from the turn), else of the
last mail from that person. Interim progress is not mailed.
"""

from __future__ import annotations

import asyncio
import contextlib
import imaplib
import logging
import smtplib
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.agent.approval import ApprovalRequest
from desktop.core.bus.events import OutboundMessage, RunEvent, TurnStarted
from desktop.core.channels.approvals import ReplyApprover, question_text
from desktop.core.channels.base import BaseChannel, ChannelStatus, ChannelUnavailable, allowed
from desktop.core.channels.email.imap import (
    ImapAuthError,
    ImapError,
    ImapFolderError,
    ImapMailbox,
    first_batch,
)
from desktop.core.channels.email.inbound import Received, Screening, read, screen
from desktop.core.channels.email.parse import (
    header_text,
    message_ids,
    normalise_address,
    parse_bytes,
)
from desktop.core.channels.email.smtp import SmtpSender, Thread, check_login, compose, sender_of
from desktop.core.channels.outbox import Delivery
from desktop.core.channels.pairing.gate import approved_senders
from desktop.core.channels.pairing.gate import reload as reload_pairings
from desktop.core.channels.render import plain_text
from desktop.core.config.channels.email import EmailConfig
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

log = logging.getLogger(__name__)

FETCH_BATCH = 50  # headers fetched per command
BODY_BATCH_BYTES = 8_000_000  # whole mails fetched per command (a larger one alone)
THREADS_KEPT = 500  # chats whose last mail is remembered for threading
TURNS_KEPT = 1000  # message/turn ids mapped to the mail they answer
REPAIR_LIMIT = 200  # unseen mail below the cursor checked after a reconnect
MIN_POLL_S = 1.0
CONSENT_HINT = QT_TR_NOOP(
    "Once the mailbox owner has agreed that the agent reads and answers this mailbox, turn on "
    '"Consent granted" in Settings → Channels → Email (channels.email.consentGranted).'
)


class _MailApprover(ReplyApprover):
    """Asks in the conversation; the question is marked so it is sent even when automatic
    answers are off."""

    async def ask(self, request: ApprovalRequest) -> None:
        await self._send(
            OutboundMessage(
                self.channel, request.chat_id, question_text(request), metadata={"approval": True}
            )
        )


class EmailChannel(BaseChannel[EmailConfig]):
    """A mailbox as a channel (see the module docstring)."""

    name: ClassVar[str] = "email"
    display_name: ClassVar[str] = "Email"

    def setup(self) -> None:
        """The channel's own state (see :meth:`BaseChannel.setup`); a config given as plain
        attributes (tests) is read into an :class:`EmailConfig`."""
        if not isinstance(self.config, EmailConfig):
            self.config = EmailConfig.model_validate(self.config, from_attributes=True)
        self._threads: OrderedDict[str, Thread] = OrderedDict()
        stored = self.state.get("threads", {})
        for chat, data in stored.items() if isinstance(stored, dict) else ():
            thread = Thread.from_json(data)
            if thread is not None:
                self._threads[str(chat)] = thread
        self._by_request: OrderedDict[str, Thread] = OrderedDict()
        self._by_turn: OrderedDict[str, Thread] = OrderedDict()
        self._validity = 0
        self._last_uid = 0
        self._dirty = False  # the cursor moved past skipped mail and is not saved yet
        self._pending: dict[int, str] = {}  # UID → key of mail with the agent, not yet safe
        self._to_flag: list[int] = []  # safe mail to mark seen (by the polling task)
        self._wake = asyncio.Event()  # stop, or mail to flag
        self._smtp = SmtpSender(self.config)
        self._warned = False

    def make_approver(self) -> ReplyApprover:
        """Questions go out as mail in the person's thread; a keyword reply answers them."""
        return _MailApprover(self.name, self.send)

    # -- settings -------------------------------------------------------------------------
    @property
    def account(self) -> str:
        """The mailbox's address (the From of answers)."""
        return sender_of(self.config)

    def own_addresses(self) -> frozenset[str]:
        """Addresses of this mailbox (mail from them is never answered: no loops)."""
        cfg = self.config
        found = (
            normalise_address(v) for v in (cfg.from_address, cfg.smtp_username, cfg.imap_username)
        )
        return frozenset(a for a in found if a)

    def require_settings(self) -> None:
        """Raise :class:`ChannelUnavailable` when consent or a needed setting is missing."""
        cfg = self.config
        if not cfg.consent_granted:
            raise ChannelUnavailable(QT_TR_NOOP("Email access has not been granted"), CONSENT_HINT)
        missing = [
            alias
            for alias, value in (
                ("imapHost", cfg.imap_host),
                ("imapUsername", cfg.imap_username),
                ("imapPassword", cfg.imap_password),
                ("smtpHost", cfg.smtp_host),
                ("smtpUsername", cfg.smtp_username),
                ("smtpPassword", cfg.smtp_password),
            )
            if not str(value or "").strip()
        ]
        if (cfg.verify_spf or cfg.verify_dkim) and not cfg.trusted_authserv_ids:
            missing.append("trustedAuthservIds")
        if cfg.post_action == "move" and not (cfg.post_action_move_mailbox or "").strip():
            missing.append("postActionMoveMailbox")
        if missing:
            raise ChannelUnavailable(
                Phrase(
                    QT_TR_NOOP("Email is not fully set up (missing: {settings})"),
                    settings=", ".join(missing),
                ),
                QT_TR_NOOP(
                    "Fill these in under Settings → Channels → Email. trustedAuthservIds is the "
                    "authserv-id in your provider's Authentication-Results header; or turn off "
                    "verifyDkim and verifySpf."
                ),
            )

    def is_allowed(self, sender: str) -> bool:
        """``allowFrom`` (or a DM pairing approval) on the sender's address, ignoring case."""
        entries = [str(e).strip().lower() for e in self.config.allow_from or []]
        entries += [s.strip().lower() for s in approved_senders(self)]
        return allowed(entries, sender.strip().lower())

    @property
    def poll_interval(self) -> float:
        """Seconds between polls."""
        return max(MIN_POLL_S, float(self.config.poll_interval_seconds))

    # -- receiving ------------------------------------------------------------------------
    async def run(self) -> None:
        """Connect, then poll until stopped (a lost connection raises: the manager retries)."""
        self.require_settings()
        if not self.config.verify_dkim and not self.config.verify_spf and not self._warned:
            self._warned = True
            log.warning("email: DKIM and SPF checks are off; a forged From address is believed")
        mailbox = ImapMailbox(self.config)
        try:
            try:
                await asyncio.to_thread(mailbox.connect)
            except ImapAuthError as exc:
                raise ChannelUnavailable(
                    str(exc),
                    QT_TR_NOOP("Check the IMAP username and password in Settings → Email."),
                ) from None
            except ImapFolderError as exc:
                raise ChannelUnavailable(
                    str(exc),
                    QT_TR_NOOP("Check imapMailbox in Settings → Email (INBOX is the inbox)."),
                ) from None
            self._set_cursor(mailbox.uidvalidity)
            log.debug(
                "email: connected to %s (UIDVALIDITY %d, cursor %d)",
                self.config.imap_host,
                self._validity,
                self._last_uid,
            )
            self.set_status(ChannelStatus("connected", account=self.account))
            await self._repair(mailbox)
            while not self.stopping:
                await self.poll(mailbox)
                await self._flag(mailbox)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll_interval):
                        await self._wake.wait()
                self._wake.clear()
                await self._flag(mailbox)
        finally:
            await asyncio.to_thread(mailbox.close)

    async def stop(self) -> None:
        """End the run and say goodbye to the SMTP server."""
        await super().stop()
        self._wake.set()
        await asyncio.to_thread(self._smtp.close)

    def _set_cursor(self, validity: int) -> None:
        stored = self.state.get("uidvalidity")
        same = self._validity == validity  # a reconnect: mail above the saved cursor may be
        self._validity = validity  # with the agent still (not read again)
        if stored == validity:
            saved = int(self.state.get("last_uid", 0) or 0)
            self._last_uid = max(saved, self._last_uid) if same else saved
            return
        self._pending.clear()
        self._to_flag.clear()
        if stored is not None:
            log.warning(
                "email: the mailbox was renumbered (UIDVALIDITY %s → %s); unseen mail is read "
                "again, mail answered before is recognised by its Message-ID",
                stored,
                validity,
            )
        self._last_uid = 0

    async def _repair(self, mailbox: ImapMailbox) -> None:
        """Mark seen what was answered before a crash cut the flagging short."""
        if not self.config.mark_seen or self._last_uid <= 0:
            return
        uids = (await asyncio.to_thread(mailbox.unseen_up_to, self._last_uid))[-REPAIR_LIMIT:]
        headers = await asyncio.to_thread(mailbox.fetch_headers, uids)
        done = [uid for uid, (header, _) in headers.items() if self._answered(header)]
        if done:
            log.info("email: marking %d answered mail as seen", len(done))
            await asyncio.to_thread(mailbox.add_flags, done, "\\Seen")

    def _answered(self, header: bytes) -> bool:
        try:
            ids = message_ids(header_text(parse_bytes(header), "Message-ID"))
        except Exception:  # noqa: BLE001 - an unreadable header was never answered
            return False
        return bool(ids) and self.state.seen(ids[0])

    def _screen_all(self, headers: dict[int, tuple[bytes, int]]) -> dict[int, Screening | None]:
        """Screen every header (``None``: the header cannot be read). Runs in a thread."""
        own = self.own_addresses()
        reload_pairings(self)  # senders approved by DM pairing count as allowed
        result: dict[int, Screening | None] = {}
        for uid, (header, _) in headers.items():
            try:
                result[uid] = screen(
                    self.config, header, own_addresses=own, is_allowed=self.is_allowed
                )
            except Exception as exc:  # noqa: BLE001 - one bad mail must not stop the channel
                log.warning(
                    "email: mail %s has a header that cannot be read (%s: %s); skipped",
                    uid,
                    type(exc).__name__,
                    str(exc)[:200],
                )
                result[uid] = None
        return result

    async def poll(self, mailbox: ImapMailbox) -> None:
        """Handle the unseen mail above the cursor, strictly oldest first."""
        uids = await asyncio.to_thread(mailbox.unseen_after, self._last_uid)
        if uids:
            log.debug("email: %d unseen mail above UID %d", len(uids), self._last_uid)
        for start in range(0, len(uids), FETCH_BATCH):
            batch = uids[start : start + FETCH_BATCH]
            headers = await asyncio.to_thread(mailbox.fetch_headers, batch)
            screened = await asyncio.to_thread(self._screen_all, headers)
            wanted = [
                uid
                for uid in batch
                if (s := screened.get(uid)) is not None
                and not s.skip
                and not (s.message_id and self.state.seen(s.message_id))
            ]
            bodies: dict[int, bytes] = {}
            for uid in batch:
                if self.stopping:
                    return
                if uid in wanted and uid not in bodies:
                    group = first_batch(wanted[wanted.index(uid) :], headers, BODY_BATCH_BYTES)
                    bodies = await asyncio.to_thread(mailbox.fetch_mail, group)
                await self._handle(
                    mailbox, uid, uid in headers, screened.get(uid), bodies.pop(uid, None)
                )
        if self._dirty:
            await self._save()

    async def _handle(
        self,
        mailbox: ImapMailbox,
        uid: int,
        present: bool,
        screening: Screening | None,
        raw: bytes | None,
    ) -> None:
        if not present:  # expunged meanwhile
            self._skip(uid)
            return
        if screening is None:  # unreadable header (logged)
            self._skip(uid)
            return
        if screening.message_id and self.state.seen(screening.message_id):
            log.info("email: mail %s (%s) was answered before", uid, screening.message_id)
            await self._done(mailbox, uid, None)
            return
        if screening.skip:
            log.info(
                "email: mail %s from %s ignored: %s", uid, screening.sender or "?", screening.skip
            )
            await self._skipped(mailbox, uid)
            return
        if raw is None:
            self._skip(uid)
            return
        try:
            received = await asyncio.to_thread(
                read,
                self.config,
                raw,
                uid=uid,
                uidvalidity=self._validity,
                media_dir=self.media_dir,
            )
        except Exception as exc:
            log.warning(
                "email: mail %s cannot be read (%s: %s); skipped",
                uid,
                type(exc).__name__,
                str(exc)[:200],
            )
            log.debug("email: why mail %s cannot be read", uid, exc_info=True)
            self._skip(uid)
            return
        if self.state.seen(received.key):
            await self._done(mailbox, uid, None)
            return
        self._last_uid = max(self._last_uid, uid)  # read on; saved below the pending mail
        self._pending[uid] = received.key  # before publishing: its ack may come at once
        if await self._deliver(received, uid):
            if uid in self._pending:
                await self._save()
            log.debug("email: mail %s handed to the agent", uid)
        else:
            self._pending.pop(uid, None)
            await self._done(mailbox, uid, received.key)

    async def _deliver(self, received: Received, uid: int) -> bool:
        """Hand the mail to the agent; ``True``: it is on its way (confirmed by its ack)."""
        chat = received.sender
        self._remember(self._threads, chat, received.thread, THREADS_KEPT)
        if self.approvals.intercept(chat, received.reply):
            log.info("email: %s answered an approval question", chat)
            return False
        request_id = received.key  # stable: a mail still with the agent is recognised
        self._remember(self._by_request, request_id, received.thread, TURNS_KEPT)
        validity = self._validity

        async def confirm(outcome: str) -> None:
            await self._acknowledged(uid, validity, received.key)

        await self.publish(
            chat,
            chat,
            received.content,
            media=received.media,
            metadata=received.metadata,
            message_id=request_id,
            confirm=confirm,
        )
        return True

    async def _acknowledged(self, uid: int, validity: int, key: str) -> None:
        """The agent has the mail safe: remember it, move the saved cursor, have it flagged."""
        if validity != self._validity or self._pending.pop(uid, None) is None:
            # renumbered meanwhile: its Message-ID marks it answered (flagged by the repair)
            await asyncio.to_thread(self.state.update, seen=[key])
            return
        await self._save(key)
        self._to_flag.append(uid)
        self._wake.set()

    async def _flag(self, mailbox: ImapMailbox) -> None:
        """Mark the mail the agent has safe as seen (and apply ``postAction``)."""
        while self._to_flag:
            uid = self._to_flag[0]
            await self._confirm(mailbox, uid)
            self._to_flag.pop(0)

    def _skip(self, uid: int) -> None:
        self._last_uid = max(self._last_uid, uid)
        self._dirty = True

    async def _skipped(self, mailbox: ImapMailbox, uid: int) -> None:
        self._skip(uid)
        if self.config.post_action and not self.config.post_action_ignore_skipped:
            await self._post_action(mailbox, uid)

    async def _save(self, key: str | None = None) -> None:
        """Save the cursor (below any mail the agent does not have safe yet) and ``key``."""
        threads = {chat: thread.to_json() for chat, thread in self._threads.items()}
        cursor = min(self._pending) - 1 if self._pending else self._last_uid
        await asyncio.to_thread(
            self.state.update,
            seen=[key] if key else None,
            uidvalidity=self._validity,
            last_uid=cursor,
            threads=threads,
        )
        self._dirty = False

    async def _done(self, mailbox: ImapMailbox, uid: int, key: str | None) -> None:
        """The mail needs nothing from the agent: save the cursor and its id, then flag it."""
        self._last_uid = max(self._last_uid, uid)
        await self._save(key)
        await self._confirm(mailbox, uid)

    async def _confirm(self, mailbox: ImapMailbox, uid: int) -> None:
        if self.config.mark_seen:
            try:
                await asyncio.to_thread(mailbox.add_flags, [uid], "\\Seen")
            except ImapError as exc:
                log.warning("email: could not mark mail %s as seen: %s", uid, exc)
        if self.config.post_action:
            await self._post_action(mailbox, uid)

    async def _post_action(self, mailbox: ImapMailbox, uid: int) -> None:
        try:
            if self.config.post_action == "delete":
                await asyncio.to_thread(mailbox.delete, [uid])
            elif self.config.post_action == "move":
                target = (self.config.post_action_move_mailbox or "").strip()
                await asyncio.to_thread(mailbox.move, [uid], target)
        except ImapError as exc:
            log.warning("email: %s of mail %s failed: %s", self.config.post_action, uid, exc)

    @staticmethod
    def _remember(store: OrderedDict[str, Thread], key: str, thread: Thread, limit: int) -> None:
        store[key] = thread
        store.move_to_end(key)
        while len(store) > limit:
            store.popitem(last=False)

    async def on_event(self, event: RunEvent) -> None:
        """Tie a turn to the mail it answers (for In-Reply-To)."""
        if isinstance(event, TurnStarted) and event.request_id in self._by_request:
            thread = self._by_request[event.request_id]
            self._remember(self._by_turn, event.turn_id, thread, TURNS_KEPT)

    # -- sending --------------------------------------------------------------------------
    def _thread_for(self, message: OutboundMessage) -> Thread | None:
        meta = message.metadata
        turn = meta.get("turn_id")
        if isinstance(turn, str) and turn in self._by_turn:
            return self._by_turn[turn]
        request = meta.get("request_id")
        if isinstance(request, str) and request in self._by_request:
            return self._by_request[request]
        return self._threads.get(message.chat_id.strip().lower())

    async def pieces(self, message: OutboundMessage) -> list[str]:
        """One mail per answer (none for interim progress, or an answer to mail while
        ``autoReplyEnabled`` is off).

        Raises:
            ChannelUnavailable: Consent or the SMTP settings are missing.
            ValueError: The chat id is not an address.
        """
        cfg = self.config
        if not cfg.consent_granted:
            raise ChannelUnavailable(QT_TR_NOOP("Email access has not been granted"), CONSENT_HINT)
        if not cfg.smtp_host:
            raise ChannelUnavailable(
                QT_TR_NOOP("No SMTP host is set"), QT_TR_NOOP("Fill in smtpHost in Settings.")
            )
        meta = message.metadata
        if meta.get("progress") or meta.get("tool_hint"):
            return []
        to = message.chat_id.strip()
        if not normalise_address(to):
            raise ValueError(f"{to!r} is not an email address")
        thread = self._thread_for(message)
        own_initiative = bool(meta.get("reminder") or meta.get("force_send"))
        answer = thread is not None and not (own_initiative or meta.get("approval"))
        if answer and not cfg.auto_reply_enabled:
            log.info("email: answer to %s not sent (autoReplyEnabled is off)", to)
            return []
        return [to]

    async def send_piece(self, delivery: Delivery, index: int, piece: Any) -> None:
        """Mail the answer. Its Message-ID comes from the delivery, so a mail sent again
        (its SMTP answer was lost) shows once in mail clients.

        Raises:
            smtplib.SMTPException, OSError: Sending failed (the manager retries).
        """
        message, to = delivery.message, str(piece)
        meta = message.metadata
        own_initiative = bool(meta.get("reminder") or meta.get("force_send"))
        subject = meta.get("subject") if isinstance(meta.get("subject"), str) else None
        mail = await asyncio.to_thread(  # reads the attachments
            compose,
            self.config,
            to,
            plain_text(message.content),  # a text/plain mail: no "**" shown
            thread=self._thread_for(message),
            subject=(subject or "").strip() or None,
            attachments=[Path(p) for p in message.media],
            automatic=not own_initiative,
            key=delivery.id,
        )
        await asyncio.to_thread(self._smtp.send, mail)
        log.debug("email: sent to %s", to)

    async def check(self) -> str:
        """Log in to IMAP (read-only) and SMTP; nothing is read or sent."""
        self.require_settings()
        await asyncio.to_thread(self._check)
        return Phrase(QT_TR_NOOP("Connected as {account}"), account=self.account)

    def _check(self) -> None:
        cfg = self.config
        mailbox = ImapMailbox(cfg, timeout=10.0)
        try:
            mailbox.connect(readonly=True)
        except ImapAuthError:
            raise ValueError("IMAP rejected the username or password") from None
        except (ImapError, imaplib.IMAP4.error) as exc:
            raise ValueError(f"IMAP: {exc}") from None
        except OSError as exc:
            raise ValueError(f"Could not reach {cfg.imap_host}:{cfg.imap_port} ({exc})") from None
        finally:
            mailbox.close()
        try:
            check_login(cfg)
        except smtplib.SMTPAuthenticationError:
            raise ValueError("SMTP rejected the username or password") from None
        except smtplib.SMTPException as exc:
            raise ValueError(f"SMTP: {exc}") from None
        except OSError as exc:
            raise ValueError(f"Could not reach {cfg.smtp_host}:{cfg.smtp_port} ({exc})") from None
