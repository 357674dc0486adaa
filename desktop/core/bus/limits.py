"""How long a message a person sends may be before it is refused (``channels.maxInboundKb``).

A message longer than the limit never reaches the model, the session or a channel's journal:
the sender gets :func:`refusal` instead (a 50 MB text would otherwise be stored whole and sent
as a 50 MB request). The chat channels check in
:meth:`~desktop.core.channels.base.BaseChannel.publish`; the window and the agent socket check
before they publish.
"""

from __future__ import annotations

from typing import Any

from desktop.core.utils.i18n import QT_TR_NOOP

DEFAULT_MAX_INBOUND_KB = 256
"""The default of ``channels.maxInboundKb``: a long document's worth of text."""
KB = 1024
TOO_LONG = QT_TR_NOOP(
    "Your message is too long ({size}); I read messages up to {limit} KB. "
    "Send it as a file instead, or in shorter parts."
)
"""The refusal, with the message's size and the limit (the window shows it translated)."""


def utf8_size(text: str) -> int:
    """The size of ``text`` in UTF-8 bytes (lone surrogates count as the 3 bytes they take)."""
    return len(text.encode("utf-8", "surrogatepass"))


def describe_size(size: int) -> str:
    """``"312 KB"``, ``"50 MB"``, ``"1.5 MB"``, ``"900 bytes"`` (1 KB = 1024 bytes)."""
    if size < KB:
        return f"{size} bytes"
    if size < KB * KB:
        return f"{size / KB:.0f} KB"
    mb = size / (KB * KB)
    return f"{mb:.1f} MB".replace(".0 MB", " MB") if mb < 10 else f"{mb:.0f} MB"


def max_inbound_kb(config: Any) -> int:
    """``channels.maxInboundKb`` of a config (the default when it has none)."""
    value = getattr(getattr(config, "channels", None), "max_inbound_kb", None)
    return value if isinstance(value, int) and value > 0 else DEFAULT_MAX_INBOUND_KB


def refusal(content: str, max_kb: int) -> str | None:
    """The answer to a message longer than ``max_kb`` KB, or ``None`` when it fits."""
    limit = max_kb * KB
    if len(content) <= limit // 4:
        return None  # even four bytes a character fit
    size = utf8_size(content)
    if size <= limit:
        return None
    return TOO_LONG.format(size=describe_size(size), limit=max_kb)
