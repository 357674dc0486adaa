"""Joining phrases into one message that the window still translates part by part.

A message made of sentences that are each present or not (an outcome with optional notes)
cannot be one template. :func:`joined` makes one :class:`~desktop.core.utils.i18n.Phrase` of
its parts: the English is the parts one after the other (exactly what ``+`` gave), and the
window's :func:`~desktop.ui.i18n.localized` translates each part that is a phrase.
"""

from __future__ import annotations

from desktop.core.utils.i18n import Phrase


def joined(*parts: str, separator: str = "") -> Phrase:
    """One phrase of ``parts`` (empty ones left out) with ``separator`` between them.

    Args:
        *parts: Phrases, marked texts or data, in order.
        separator: Put between two parts (not wording: a space, a newline).
    """
    kept = [part for part in parts if part]
    names = [f"p{index}" for index in range(len(kept))]
    template = (
        separator.replace("{", "{{").replace("}", "}}").join("{" + name + "}" for name in names)
    )
    return Phrase(template, **dict(zip(names, kept, strict=True)))
