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

import functools
import re
from collections.abc import Iterable


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


_FIELD = re.compile(r"\{(\w+)\}")


@functools.lru_cache(maxsize=256)
def _pattern(template: str) -> re.Pattern[str] | None:
    """``template`` as a regular expression whose groups are its fields (``None`` when it is
    only fields: it would read anything)."""
    parts: list[str] = []
    seen: set[str] = set()
    end = 0
    for found in _FIELD.finditer(template):
        parts.append(re.escape(template[end : found.start()]))
        name = found.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        end = found.end()
    parts.append(re.escape(template[end:]))
    if not _FIELD.sub("", template).strip():
        return None
    return re.compile("".join(parts), re.DOTALL)


def recognize(text: str, templates: Iterable[str]) -> str:
    """``text`` as the phrase it was written as, when it reads word for word as one of
    ``templates`` (English text stored as it was written, read back for the window: its fields
    are recognized too); else ``text`` itself.

    Args:
        text: English text as stored (a receipt's reason, say).
        templates: The marked templates and fixed texts it may be. When several read it, the
            one whose wording (its own and its fields') explains most of it wins; on a tie,
            the one listed first.
    """
    if isinstance(text, Phrase):
        return text
    said, _ = _recognized(text, tuple(templates))
    return said


def _recognized(text: str, known: tuple[str, ...]) -> tuple[str, int]:
    """The best reading of ``text`` and how many of its characters are wording."""
    best: tuple[str, int] = (text, 0)
    for template in known:
        if not _FIELD.search(template):
            if text == template and len(template) > best[1]:
                best = (Phrase(template), len(template))
            continue
        pattern = _pattern(template)
        found = pattern.fullmatch(text) if pattern is not None else None
        if found is None:
            continue
        score = len(_FIELD.sub("", template))
        fields: dict[str, object] = {}
        for name, value in found.groupdict().items():
            fields[name], inner = _recognized(value, known)
            score += inner
        said = Phrase(template, **fields)
        if said == text and score > best[1]:
            best = (said, score)
    return best
