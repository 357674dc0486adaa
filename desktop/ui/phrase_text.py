"""The core's phrases and marked fixed texts as the window shows them, translated."""

from __future__ import annotations

from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import localized, tr


def shown(text: object) -> str:
    """``text`` from the core in the window's language.

    A :class:`~desktop.core.utils.i18n.Phrase` (or an exception carrying one) is translated by
    :func:`~desktop.ui.i18n.localized`; a plain string is looked up as a fixed text marked with
    ``QT_TR_NOOP`` (itself when it is not one: data, or text nobody marked).
    """
    if isinstance(text, Phrase | BaseException):
        return localized(text)
    return tr(str(text)) if text else ""
