"""The translation files are in step with the code, and the app loads them."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtCore import QLocale
from pytestqt.qtbot import QtBot

from desktop.ui.i18n import install_language, language_file, resolve_language, tr
from tests.ui.i18n.pseudo import ROOT


def test_the_translation_files_are_in_step_with_the_code() -> None:
    """Every text marked in the code is listed and translated, and the .qm is what the .ts
    builds (``scripts/translations.py check``; ``update`` mends it)."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "translations.py"), "check"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_chinese_is_loaded_and_english_comes_back(qtbot: QtBot) -> None:
    """The built zh_CN file loads (ours and Qt's own dialogs); English removes it again."""
    assert language_file("zh_CN").is_file()
    try:
        assert install_language("zh_CN") == "zh_CN"
        assert tr("System default") == "跟随系统"
    finally:
        assert install_language("en") == "en"
    assert tr("System default") == "System default"


def test_the_system_language_picks_chinese_for_any_chinese_desktop() -> None:
    assert resolve_language("system", QLocale("zh_CN")) == "zh_CN"
    assert resolve_language("system", QLocale("zh_Hans_SG")) == "zh_CN"
    assert resolve_language("system", QLocale("de_DE")) == "en"
    assert resolve_language("system", QLocale("en_GB")) == "en"
    assert resolve_language("en", QLocale("zh_CN")) == "en"
    assert resolve_language("zh_CN", QLocale("en_US")) == "zh_CN"


def test_the_pseudo_locale_brackets_listed_text_and_shows_unlisted_text_as_it_is(
    qtbot: QtBot,
) -> None:
    """A listed text comes back in brackets; one that went through ``tr()`` without being
    listed shows as its English (so the walk reports it), never as an empty string."""
    from tests.ui.i18n.pseudo import pseudo_locale, untranslated

    with pseudo_locale():
        from PySide6.QtWidgets import QLabel

        listed, unlisted = QLabel(tr("System default")), QLabel(tr("Not a listed text"))
        qtbot.addWidget(listed)
        qtbot.addWidget(unlisted)
        assert listed.text() == "⟦System default⟧"
        assert unlisted.text() == "Not a listed text"
        assert untranslated(unlisted) == ["label in QLabel: 'Not a listed text'"]


def test_a_phrase_from_the_core_is_shown_in_the_window_language(qtbot: QtBot) -> None:
    """A phrase (and one inside it, and an error carrying one) is translated where shown;
    plain text and other errors are shown as they are."""
    from desktop.core.utils.i18n import Phrase
    from desktop.ui.i18n import localized

    inner = Phrase("System default")
    outer = Phrase("Not saved: {error}", error=inner)
    assert outer == "Not saved: System default"  # English for logs, the CLI and channels
    try:
        install_language("zh_CN")
        assert localized(outer) == "未保存：跟随系统"
        assert localized(ValueError(outer)) == "未保存：跟随系统"
        assert localized(ValueError("plain")) == "plain"
        assert localized("Not saved: {error}") == "Not saved: {error}"  # data stays as it is
    finally:
        install_language("en")
    assert localized(outer) == "Not saved: System default"
