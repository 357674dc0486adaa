"""Settings of the email channel (``channels.email`` in nanobot's config.json)."""

from __future__ import annotations

from desktop.core.config.base import ChannelBase


class EmailConfig(ChannelBase):
    """Email: IMAP in, SMTP out."""

    consent_granted: bool = False
    imap_host: str = ""
    imap_port: int = 993
    imap_username: str = ""
    imap_password: str = ""
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_username: str = ""
    smtp_password: str = ""
    from_address: str = ""
