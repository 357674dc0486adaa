"""Marking text for translation where Qt is not imported (the core).

The window shows some text that the core defines: setting titles and descriptions, channel and
provider guides, messages of events. The core cannot call Qt's translation, so it marks such
text with :func:`QT_TR_NOOP`, which returns it unchanged. ``pyside6-lupdate`` (run by
``scripts/translations.py``) finds the marked literals by that name and lists them for the
translators; the window translates the text when it shows it (``desktop.ui.i18n.tr``).
"""

from __future__ import annotations


def QT_TR_NOOP(text: str) -> str:
    """Mark ``text`` for translation; returns it unchanged (translated where it is shown)."""
    return text
