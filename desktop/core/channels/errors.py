"""Errors for the person: one plain sentence, whatever SDK raised them."""

from __future__ import annotations

import asyncio
import re
import socket
import ssl

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
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


def _as_said(message: Phrase, text: str) -> str:
    """``text`` (what :func:`explain` made of ``message``) still as a phrase when it is the
    phrase's own English with at most its first letter capitalised and its closing full stop
    left out (the window translates the template; a reason's translation has no closing full
    stop either); else (redacted, shortened) plain text."""
    own = " ".join(str(message).split())
    if text != (own[:1].upper() + own[1:]).rstrip("."):
        return text
    said = str.__new__(Phrase, text)
    said.template, said.fields = message.template, message.fields
    return said


def explain(exc: BaseException) -> str:
    """One sentence for the person (no errno codes, no exception class names, redacted).

    The sentences of our own are phrases (:class:`~desktop.core.utils.i18n.Phrase`): the window
    shows them in its language through ``localized()``; an SDK's own text stays as it is.
    """
    exc = _known_cause(exc)
    if isinstance(exc, ConnectionRefusedError):
        return Phrase(
            QT_TR_NOOP("The server refused the connection (is it running, and is the port right?)")
        )
    if isinstance(exc, socket.gaierror):
        return Phrase(QT_TR_NOOP("The server's name could not be found (check the host name)"))
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return Phrase(QT_TR_NOOP("The server did not answer in time"))
    if isinstance(exc, ssl.SSLError):
        return Phrase(
            QT_TR_NOOP("The secure connection failed ({error})"), error=str(exc.reason or exc)
        )
    text = _ERRNO.sub("", str(exc).strip()) or type(exc).__name__
    text = " ".join(text.split())
    text = redact(text[:1].upper() + text[1:])[:300].rstrip(".")
    message = exc.args[0] if len(exc.args) == 1 else None
    return _as_said(message, text) if isinstance(message, Phrase) else text
