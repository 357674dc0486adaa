"""Text the core says, in the window's language.

The core cannot call Qt's translation. Where it builds a message from pieces (a provider's
name, a model, a count), it keeps the English template, marked with
:func:`desktop.core.utils.i18n.QT_TR_NOOP`, and the values beside the message (``template``
and ``fields`` attributes: :class:`~desktop.core.providers.factory.MissingKeyError`,
:class:`~desktop.core.providers.probe.ProbeResult`). :func:`core_text` fills in the
translated template; a message without one is shown as the core said it.
"""

from __future__ import annotations

from desktop.ui.i18n import tr


def core_text(source: object, english: str) -> str:
    """``english`` (the message ``source`` carries) in the window's language.

    Args:
        source: An error or result with ``template`` and ``fields`` attributes (either may be
            missing: then ``english`` is returned unchanged).
        english: The message as the core built it.
    """
    template = getattr(source, "template", "")
    fields = getattr(source, "fields", None)
    if not isinstance(template, str) or not template or not isinstance(fields, dict):
        return english
    try:
        return tr(template).format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation that broke a placeholder
        return english
