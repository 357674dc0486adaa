"""Writing and sending answers: the mail (threaded with In-Reply-To/References), then SMTP
(stdlib :mod:`smtplib`; blocking, call it from a worker thread)."""

from __future__ import annotations

import logging
import mimetypes
import smtplib
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from desktop.core.channels.email.parse import normalise_address
from desktop.core.config.channels.email import EmailConfig

log = logging.getLogger(__name__)

TIMEOUT_S = 30.0


@dataclass
class Thread:
    """What the last mail from a person said about its conversation.

    Attributes:
        subject: Its subject.
        message_id: Its Message-ID (the answer's In-Reply-To).
        references: The answer's References (the mail's own References plus its id).
    """

    subject: str = ""
    message_id: str = ""
    references: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        """For the channel state."""
        return {
            "subject": self.subject,
            "messageId": self.message_id,
            "references": self.references,
        }

    @classmethod
    def from_json(cls, data: object) -> Thread | None:
        """From the channel state (``None`` when it is not a thread record)."""
        if not isinstance(data, dict):
            return None
        refs = data.get("references")
        return cls(
            str(data.get("subject") or ""),
            str(data.get("messageId") or ""),
            [str(r) for r in refs] if isinstance(refs, list) else [],
        )


def sender_of(config: EmailConfig) -> str:
    """The From address of answers (``fromAddress``, else the SMTP, else the IMAP login)."""
    for value in (config.from_address, config.smtp_username, config.imap_username):
        if value and value.strip():
            return value.strip()
    return ""


def reply_subject(subject: str, prefix: str) -> str:
    """``Lunch?`` → ``Re: Lunch?`` (an existing ``Re:`` is kept, not doubled)."""
    subject = " ".join(subject.split())
    if subject.lower().startswith("re:"):
        return subject
    return f"{prefix or 'Re: '}{subject}"


def compose(
    config: EmailConfig,
    to: str,
    text: str,
    *,
    thread: Thread | None,
    subject: str | None = None,
    attachments: Sequence[Path] = (),
    automatic: bool = True,
    key: str | None = None,
) -> EmailMessage:
    """The mail for one answer.

    Args:
        config: The channel's settings (From, subject prefix, attachment limits).
        to: The recipient (the chat id).
        text: The answer (plain text; markdown stays as written).
        thread: The conversation it answers (threading headers and subject), if any.
        subject: A subject that wins over the thread's.
        attachments: Files to attach; too large, too many or unreadable ones are named in the
            text instead.
        automatic: An answer to mail (``Auto-Submitted: auto-replied``), or a message of the
            agent's own (``auto-generated``, e.g. a reminder).
        key: Makes the Message-ID (the same for a mail sent again); random when ``None``.
    """
    mail = EmailMessage()
    from_address = sender_of(config)
    mail["From"] = from_address
    mail["To"] = to
    if subject:
        mail["Subject"] = subject
    elif thread is not None and thread.subject:
        mail["Subject"] = reply_subject(thread.subject, config.subject_prefix)
    else:
        mail["Subject"] = "Message from nanobot"
    mail["Date"] = formatdate(localtime=True)
    domain = normalise_address(from_address).rpartition("@")[2] or None
    if key and domain:
        mail["Message-ID"] = f"<nanobot.{key}@{domain}>"
    else:
        mail["Message-ID"] = make_msgid(domain=domain)
    if thread is not None and thread.message_id:
        mail["In-Reply-To"] = thread.message_id
        mail["References"] = " ".join(thread.references or [thread.message_id])
    mail["Auto-Submitted"] = "auto-replied" if automatic else "auto-generated"
    files, notes = _attachable(config, attachments)
    if notes:
        text = f"{text.rstrip()}\n\n" + "\n".join(notes) if text.strip() else "\n".join(notes)
    mail.set_content(text or " ")
    for path, data in files:
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        main, _, sub = kind.partition("/")
        mail.add_attachment(data, maintype=main, subtype=sub, filename=path.name)
    return mail


def _attachable(
    config: EmailConfig, paths: Sequence[Path]
) -> tuple[list[tuple[Path, bytes]], list[str]]:
    files: list[tuple[Path, bytes]] = []
    notes: list[str] = []
    limit = max(0, config.max_attachment_size)
    for path in paths:
        name = path.name or "attachment"
        try:
            if not path.is_file():
                raise FileNotFoundError(path)
            if path.stat().st_size > limit:
                notes.append(f"[attachment: {name} - too large]")
                continue
            if len(files) >= max(0, config.max_attachments_per_email):
                notes.append(f"[attachment: {name} - too many attachments]")
                continue
            files.append((path, path.read_bytes()))
        except OSError as exc:
            log.warning("email: cannot attach %s: %s", path, exc)
            notes.append(f"[attachment: {name} - send failed]")
    return files, notes


def _open(config: EmailConfig, timeout: float) -> smtplib.SMTP:
    """A logged-in SMTP connection (SSL or STARTTLS as configured)."""
    context = ssl.create_default_context()
    client: smtplib.SMTP
    if config.smtp_use_ssl:
        client = smtplib.SMTP_SSL(
            config.smtp_host, config.smtp_port, timeout=timeout, context=context
        )
    else:
        client = smtplib.SMTP(config.smtp_host, config.smtp_port, timeout=timeout)
    try:
        client.ehlo()
        if config.smtp_use_tls and not config.smtp_use_ssl:
            client.starttls(context=context)
            client.ehlo()
        if config.smtp_username:
            client.login(config.smtp_username, config.smtp_password)
    except BaseException:
        client.close()
        raise
    return client


class SmtpSender:
    """Sends mail over one SMTP connection kept open between sends (a burst of answers needs
    one TLS handshake and login, not one per mail). Blocking; thread-safe.

    A kept connection is checked with NOOP before it is used and replaced when it fails or
    has been idle longer than ``idle_s``; a mail is never sent twice.

    Args:
        config: The channel's settings.
        idle_s: Longest idle time before a kept connection is replaced.
        timeout: Socket timeout in seconds.
    """

    def __init__(
        self, config: EmailConfig, *, idle_s: float = 60.0, timeout: float = TIMEOUT_S
    ) -> None:
        self.config = config
        self.idle_s = idle_s
        self.timeout = timeout
        self._client: smtplib.SMTP | None = None
        self._used = 0.0
        self._lock = threading.Lock()

    def _connection(self) -> smtplib.SMTP:
        client = self._client
        if client is not None and time.monotonic() - self._used < self.idle_s:
            try:
                if client.noop()[0] == 250:
                    return client
            except (smtplib.SMTPException, OSError):
                pass
        self._drop()
        self._client = _open(self.config, self.timeout)
        return self._client

    def _drop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.quit()
            except (smtplib.SMTPException, OSError):
                client.close()

    def send(self, mail: EmailMessage) -> None:
        """Deliver ``mail``.

        Raises:
            smtplib.SMTPException: The server refused the login or the mail.
            OSError: The server could not be reached.
        """
        with self._lock:
            client = self._connection()
            sender = normalise_address(str(mail["From"])) or str(mail["From"])
            try:
                refused = client.send_message(mail, from_addr=sender)
            except BaseException:
                self._drop()
                raise
            self._used = time.monotonic()
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)

    def close(self) -> None:
        """Say goodbye to the server (if a connection is kept)."""
        with self._lock:
            self._drop()


def check_login(config: EmailConfig, *, timeout: float = 10.0) -> None:
    """Connect and log in without sending anything (Settings → "Test")."""
    with _open(config, timeout):
        pass
