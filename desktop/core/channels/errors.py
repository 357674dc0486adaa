"""Errors for the person: one plain sentence, whatever SDK raised them."""

from __future__ import annotations

import asyncio
import re
import socket
import ssl

from desktop.core.utils.i18n import QT_TR_NOOP
from desktop.core.utils.redact import redact

_ERRNO = re.compile(r"^\[Errno -?\d+\]\s*")


def _known_cause(exc: BaseException) -> BaseException:
    """The network error an SDK wrapped (aiohttp's ``os_error``, an exception's cause or
    context), if there is one we can explain; else ``exc``."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    known = (ConnectionRefusedError, socket.gaierror, TimeoutError, ssl.SSLError)
    while current is not None and len(seen) < 6 and current not in seen:
        if isinstance(current, known):
            return current
        seen.append(current)
        wrapped = getattr(current, "os_error", None)  # aiohttp.ClientConnectorError
        current = (
            wrapped
            if isinstance(wrapped, BaseException)
            else current.__cause__ or current.__context__
        )
    return exc


def explain(exc: BaseException) -> str:
    """One sentence for the person (no errno codes, no exception class names, redacted).

    The fixed sentences are marked for translation; the window shows them through ``tr()``.
    """
    exc = _known_cause(exc)
    if isinstance(exc, ConnectionRefusedError):
        return QT_TR_NOOP(
            "The server refused the connection (is it running, and is the port right?)"
        )
    if isinstance(exc, socket.gaierror):
        return QT_TR_NOOP("The server's name could not be found (check the host name)")
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return QT_TR_NOOP("The server did not answer in time")
    if isinstance(exc, ssl.SSLError):
        return f"The secure connection failed ({exc.reason or exc})"
    text = _ERRNO.sub("", str(exc).strip()) or type(exc).__name__
    text = " ".join(text.split())
    return redact(text[:1].upper() + text[1:])[:300].rstrip(".")
