"""Settings of the email channel (``channels.email`` in nanobot's config.json).

Field names and defaults are nanobot-ai 0.3.5's, so an existing nanobot config loads unchanged.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from desktop.core.config.base import ChannelBase

_AUTHSERV_ID = re.compile(r"[a-z0-9][a-z0-9._:-]*")


class EmailConfig(ChannelBase):
    """Email: IMAP in, SMTP out."""

    consent_granted: bool = Field(
        False,
        title="Consent granted",
        description=(
            "The mailbox owner agreed that the agent reads this mailbox and answers from it. "
            "Nothing is read or sent until this is on."
        ),
    )

    imap_host: str = Field("", title="IMAP host", description="Incoming mail server.")
    imap_port: int = Field(993, title="IMAP port", description="993 for SSL, 143 without.")
    imap_username: str = Field("", title="IMAP username", description="Mailbox login.")
    imap_password: str = Field(
        "", title="IMAP password", description="Mailbox password or app password (keyring)."
    )
    imap_mailbox: str = Field("INBOX", title="IMAP mailbox", description="Folder to watch.")
    imap_use_ssl: bool = Field(True, title="IMAP over SSL", description="Connect with TLS.")

    smtp_host: str = Field("", title="SMTP host", description="Outgoing mail server.")
    smtp_port: int = Field(
        587, title="SMTP port", description="587 with STARTTLS, 465 with SSL, 25 plain."
    )
    smtp_username: str = Field("", title="SMTP username", description="Login for sending.")
    smtp_password: str = Field(
        "", title="SMTP password", description="Password or app password (keyring)."
    )
    smtp_use_tls: bool = Field(True, title="SMTP STARTTLS", description="Upgrade with STARTTLS.")
    smtp_use_ssl: bool = Field(
        False, title="SMTP over SSL", description="Connect with TLS from the start (port 465)."
    )
    from_address: str = Field(
        "",
        title="From address",
        description="Sender of the answers (default: the SMTP, then the IMAP username).",
    )

    auto_reply_enabled: bool = Field(
        True,
        title="Answer mail",
        description=(
            "Send the agent's answers to people who wrote. Off: only reminders and messages "
            "the agent sends on its own go out."
        ),
    )
    poll_interval_seconds: int = Field(
        30, title="Poll interval (s)", description="How often the mailbox is checked."
    )
    mark_seen: bool = Field(
        True,
        title="Mark as read",
        description="Mark a mail as read once the agent has it.",
    )
    post_action: Literal["delete", "move"] | None = Field(
        None,
        title="After handling",
        description='What to do with a handled mail: nothing (empty), "delete" or "move".',
    )
    post_action_move_mailbox: str | None = Field(
        None, title="Move to folder", description='The folder for "move".'
    )
    post_action_expunge: bool = Field(
        False,
        title="Expunge",
        description="Expunge the whole folder when the server cannot expunge single mails.",
    )
    post_action_ignore_skipped: bool = Field(
        True,
        title="Leave skipped mail alone",
        description="Apply the action only to mail the agent handled (not to ignored mail).",
    )
    max_body_chars: int = Field(
        12000, title="Longest body", description="Characters of a mail body given to the agent."
    )
    subject_prefix: str = Field("Re: ", title="Subject prefix", description="For answers.")

    verify_dkim: bool = Field(
        True,
        title="Require DKIM",
        description="Only accept mail whose trusted Authentication-Results say dkim=pass.",
    )
    verify_spf: bool = Field(
        True,
        title="Require SPF",
        description="Only accept mail whose trusted Authentication-Results say spf=pass.",
    )
    trusted_authserv_ids: list[str] = Field(
        default_factory=list,
        title="Trusted authentication servers",
        description=(
            "authserv-id of your provider's Authentication-Results header (e.g. mx.google.com); "
            "needed when DKIM or SPF is required."
        ),
    )

    allowed_attachment_types: list[str] = Field(
        default_factory=list,
        title="Attachment types kept",
        description='MIME types saved for the agent (e.g. "image/*", "application/pdf"; '
        '"*" for all). Empty: none are saved.',
    )
    max_attachment_size: int = Field(
        2_000_000, title="Largest attachment (bytes)", description="Larger ones are not saved."
    )
    max_attachments_per_email: int = Field(
        5, title="Attachments per mail", description="At most this many are saved or sent."
    )

    @field_validator("trusted_authserv_ids")
    @classmethod
    def _normalise_authserv_ids(cls, values: list[str]) -> list[str]:
        """Lower case, no trailing dot, no duplicates; wildcards and URLs are refused."""
        result: list[str] = []
        for value in values:
            ident = value.strip().casefold().rstrip(".")
            if not _AUTHSERV_ID.fullmatch(ident):
                raise ValueError(f"not an authserv-id: {value!r}")
            if ident not in result:
                result.append(ident)
        return result
