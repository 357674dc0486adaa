"""Wording of the chat's rows that is made without Qt and translated where it is shown.

The chat's state (:mod:`desktop.ui.chat.state`, :mod:`desktop.ui.chat.items`) runs without Qt,
so it cannot call the window's translation. It puts a :class:`Phrase` in a row instead of a
plain string: the English text (so comparisons, copies and tests see English) that also keeps
its template, marked with ``QT_TR_NOOP`` where it is written, and its fields. The view shows a
row's texts through :func:`localized`, which translates a phrase and leaves anything else (the
person's messages, the model's answers, tool results) as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop.core.utils.i18n import Phrase

__all__ = ["Phrase", "localized"]


def localized(text: str, translate: Callable[[str], str]) -> str:
    """``text`` in the window's language when it is a :class:`Phrase` (its fields too), else
    unchanged (data is never translated)."""
    if not isinstance(text, Phrase):
        return text
    shown = translate(text.template)
    if not text.fields:
        return shown
    fields = {
        name: localized(value, translate) if isinstance(value, str) else value
        for name, value in text.fields.items()
    }
    return shown.format(**fields)
