"""A QR code as a grid of modules, for the terminal and for Settings to draw.

The encoding is the ``segno`` library's (pure Python, part of the ``whatsapp`` extra), imported
only when a code is drawn. The grid includes the quiet zone, the light border a scanner needs
to find the code (four modules wide, as the QR standard asks).
"""

from __future__ import annotations

QUIET_ZONE = 4
"""Light modules around the code on every side (the standard's minimum)."""
INSTALL_HINT = 'pip install "nanobot-desktop[whatsapp]"'


class QrUnavailable(RuntimeError):
    """The QR library (``segno``) is not installed."""


def qr_modules(text: str, *, border: int = QUIET_ZONE) -> list[list[bool]]:
    """The QR code of ``text`` as rows of modules (``True`` = dark), quiet zone included.

    Error correction is level M (15 % of the code may be damaged or misprinted), a regular
    QR code (never a Micro QR, which phones do not read), the smallest version that fits.

    Raises:
        QrUnavailable: ``segno`` is not installed.
        ValueError: ``text`` is empty or too long for a QR code.
    """
    if not text:
        raise ValueError("nothing to encode")
    try:
        import segno
    except ImportError:
        raise QrUnavailable(f"Drawing QR codes needs the segno package ({INSTALL_HINT}).") from None
    try:
        code = segno.make_qr(text, error="m", boost_error=False)
    except segno.DataOverflowError as exc:
        raise ValueError(f"too long for a QR code ({exc})") from None
    return [[bool(m) for m in row] for row in code.matrix_iter(scale=1, border=border)]
