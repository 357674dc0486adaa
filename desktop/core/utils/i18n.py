"""Marking text for translation where Qt is not imported (the core).

The window shows some text that the core defines: setting titles and descriptions, channel and
provider guides, messages of events and errors. The core cannot call Qt's translation, so:

- a fixed text is marked with :func:`QT_TR_NOOP`, which returns it unchanged;
- a text built from values is a :class:`Phrase`: the English string itself (logs, the CLI,
  channels and comparisons see English) that also keeps its template, marked with
  ``QT_TR_NOOP`` where it is written, and its fields. An exception raised with a phrase as its
  message keeps it in ``args[0]``.

``pyside6-lupdate`` (run by ``scripts/translations.py``) finds the marked literals by the name
``QT_TR_NOOP`` and lists them for the translators; the window translates where it shows the
text (``desktop.ui.i18n.tr`` for marked texts, ``desktop.ui.i18n.localized`` for phrases and
errors).
"""

from __future__ import annotations


def QT_TR_NOOP(text: str) -> str:
    """Mark ``text`` for translation; returns it unchanged (translated where it is shown)."""
    return text


class Phrase(str):
    """English wording (the string itself) that knows its template and fields.

    Args:
        template: The English text with ``{name}`` fields, marked with ``QT_TR_NOOP``.
        **fields: The values of the fields (strings, numbers, or phrases of their own: a
            phrase inside a phrase is translated too).
    """

    template: str
    fields: dict[str, object]

    def __new__(cls, template: str, **fields: object) -> Phrase:
        """The phrase ``template`` filled with ``fields`` (in English)."""
        phrase = super().__new__(cls, template.format(**fields) if fields else template)
        phrase.template = template
        phrase.fields = fields
        return phrase
