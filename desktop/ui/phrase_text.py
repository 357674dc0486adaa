"""The core's phrases and marked fixed texts as the window shows them, translated."""

from __future__ import annotations

from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import localized, tr


def shown(text: object) -> str:
    """``text`` from the core in the window's language.

    A :class:`~desktop.core.utils.i18n.Phrase` (or an exception carrying one) is translated by
    :func:`~desktop.ui.i18n.localized`; a plain string (or an exception's one message) is looked
    up as a fixed text marked with ``QT_TR_NOOP`` (itself when it is not one: data, or text
    nobody marked).
    """
    if isinstance(text, BaseException):
        said = text.args[0] if len(text.args) == 1 else None
        if isinstance(said, Phrase):
            return localized(said)
        if isinstance(said, str) and not isinstance(text, KeyError):  # a marked fixed text
            return tr(said)
        return str(text)
    if isinstance(text, Phrase):
        return localized(text)
    return tr(str(text)) if text else ""
