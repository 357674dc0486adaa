"""The window's languages: Qt's translation system, English in the source, ``zh_CN`` shipped.

Every visible string goes through :func:`tr` (a literal, so ``pyside6-lupdate`` finds it;
values with fields use ``tr("… {name} …").format(name=…)``, never an f-string). Text defined
before the translators are installed (module constants, class attributes) or in the core is
marked with :func:`QT_TR_NOOP` and passed through :func:`tr` where it is shown. All text lives in
one context (``""``), so a phrase is translated once wherever it appears.

The translations are built by ``scripts/translations.py`` into
``resources/translations/nanobot_<language>.qm`` (shipped with the package and the frozen app);
:func:`install_language` loads one, with Qt's own translation of its standard dialogs, before
the first window is built. Changing the language takes effect at the next start.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

log = logging.getLogger(__name__)

__all__ = [
    "LANGUAGES",
    "QT_TR_NOOP",
    "Phrase",
    "install_language",
    "language_file",
    "localized",
    "resolve_language",
    "tr",
]

# The choices of Settings › Appearance › Language, in order: code -> name (in that language).
LANGUAGES: dict[str, str] = {
    "system": QT_TR_NOOP("System default"),
    "en": "English",
    "zh_CN": "简体中文",
}
TRANSLATED = ("zh_CN",)  # languages with a translation file (English is the source)
_installed: list[QTranslator] = []


def tr(text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``text`` in the window's language (itself when there is no translation).

    Args:
        text: The English text, a literal (or a value marked with :func:`QT_TR_NOOP`).
        disambiguation: Tells two uses of the same English text apart for translators.
        n: A count, for plural forms (``%n`` in the text).
    """
    return QCoreApplication.translate("", text, disambiguation, n)


def localized(text: object) -> str:
    """What the core said, in the window's language.

    A :class:`~desktop.core.utils.i18n.Phrase` is translated (its template, and its fields that
    are phrases themselves); an exception whose message is a phrase likewise; anything else is
    shown as it is (``str``): the core's text that is not marked, and data.
    """
    if isinstance(text, BaseException):
        message = text.args[0] if len(text.args) == 1 else None
        return localized(message) if isinstance(message, Phrase) else str(text)
    if not isinstance(text, Phrase):
        return str(text)
    shown = tr(text.template)
    if not text.fields:
        return shown
    fields = {
        name: localized(value) if isinstance(value, Phrase) else value
        for name, value in text.fields.items()
    }
    try:
        return shown.format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation that broke a placeholder
        return str(text)


def language_file(language: str) -> Path:
    """The built translation of ``language`` (``resources/translations/nanobot_<lang>.qm``)."""
    from desktop.core.utils.resources import data_path  # not on an English start's path

    return data_path("resources", "translations", f"nanobot_{language}.qm")


def resolve_language(choice: str, system: QLocale | None = None) -> str:
    """The language to show for the setting ``choice``: itself when it is one we have; for
    ``system``, the first of the desktop's languages we have (simplified Chinese for any
    Chinese: the first ``zh-Hans…`` or, after the Traditional variants, plain ``zh``), else
    English."""
    if choice in TRANSLATED or choice == "en":
        return choice
    locale = system or QLocale.system()
    for language in locale.uiLanguages() or [locale.name()]:
        parts = language.replace("_", "-").split("-")
        if parts[0] == "en":
            return "en"
        if parts[0] == "zh" and not {"TW", "HK", "MO", "Hant"} & set(parts[1:]):
            return "zh_CN"
    return "en"


def install_language(choice: str) -> str:
    """Load the translation for the setting ``choice`` into the running application (ours and
    Qt's standard dialogs'); the language now shown (``en`` when there is none to load)."""
    app = QCoreApplication.instance()
    language = resolve_language(choice)
    for translator in _installed:
        if app is not None:
            app.removeTranslator(translator)
    _installed.clear()
    if language == "en" or app is None:
        return "en"
    ours = QTranslator(app)
    if not ours.load(str(language_file(language))):
        log.warning("the %s translation could not be loaded; showing English", language)
        return "en"
    qt = QTranslator(app)
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for translator in (qt, ours):
        if translator is ours or translator.load(f"qtbase_{language}", folder):
            app.installTranslator(translator)
            _installed.append(translator)
    return language
