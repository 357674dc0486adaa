"""What a WhatsApp login reports while it waits (``nanobot-desktop channels login``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class LoginUpdate:
    """One step of a login.

    Attributes:
        kind: ``qr`` (a new code to scan, in ``qr``) or ``reconnecting`` (the connection to
            WhatsApp was lost for a moment; a new code or the link follows).
        qr: The login code's text (for ``qr``).
    """

    kind: Literal["qr", "reconnecting"]
    qr: str = ""
