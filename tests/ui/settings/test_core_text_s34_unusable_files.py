"""Why a file of ours cannot be used, in the window's language (issue #25 §6 leftovers).

The tolerant readers' reasons (:mod:`desktop.core.utils.validate`: not UTF-8, not JSON, a
folder where the file belongs, values that are not JSON numbers) and the "and N more" of
:func:`~desktop.core.utils.notices.summarize`, each brought about with a real damaged file:
Settings' banner for a ``config.json`` that is not UTF-8, and the desktop settings' warning
(the window's start banner) for a ``desktop.json`` with five bad numbers or a folder in its
place. The English is what it was, the pseudo locale shows it bracketed but for the data
(paths, names of the copies kept), ``zh_CN`` shows Chinese.
"""

from __future__ import annotations

import re
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.core.config.prefs import load_prefs
from desktop.ui.i18n import install_language, localized
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from tests.ui.i18n.pseudo import _english, pseudo_locale

BAD_NUMBERS = '{"a": NaN, "b": [NaN, Infinity], "c": {"d": -Infinity, "e": NaN}, "theme": "dark"}'


def _banner(qtbot: QtBot, services: AppServices) -> str:
    tab = SettingsTab(services)
    qtbot.addWidget(tab)
    tab.show()
    qtbot.waitUntil(lambda: tab.banner.isVisible())
    return tab.banner_text.text()


def test_a_config_file_that_is_not_utf8_is_explained_translated(
    qtbot: QtBot, services: AppServices, config_path: Path
) -> None:
    config_path.write_bytes(b'{"agents": "\xff"}')
    english = f"{config_path}: not UTF-8 text (bad byte at offset 12)"
    assert english in _banner(qtbot, services)  # the English as it was
    with pseudo_locale():
        shown = _banner(qtbot, services)
        assert "⟦not UTF-8 text (bad byte at offset 12)⟧" in shown, shown
        assert not _english(shown, frozenset([str(config_path)])), shown
    try:
        install_language("zh_CN")
        assert "不是 UTF-8 文本（偏移 12 处有错误字节）" in _banner(qtbot, services)
    finally:
        install_language("en")


def _kept(text: str) -> frozenset[str]:
    """The names of the copies set aside (data)."""
    return frozenset(re.findall(r"desktop\.json\.corrupt-[\d-]+", text))


def test_bad_values_in_the_desktop_settings_are_listed_translated(tmp_path: Path) -> None:
    path = tmp_path / "desktop.json"
    path.write_text(BAD_NUMBERS, encoding="utf-8")
    warning = load_prefs(path).load_warning
    assert warning is not None
    problems = (
        "(a: nan is not a JSON number; b[0]: nan is not a JSON number; "
        "b[1]: inf is not a JSON number; and 2 more)"
    )
    assert problems in warning  # the English as it was
    data = _kept(warning) | {str(path), "b[0]", "b[1]", "nan", "inf"}
    with pseudo_locale():
        shown = localized(warning)
        assert "⟦and 2 more⟧" not in shown and "; and 2 more⟧" in shown, shown
        assert "⟦nan is not a JSON number⟧" in shown, shown
        assert not _english(shown, data), shown
    try:
        install_language("zh_CN")
        shown = localized(warning)
        assert (
            "a：nan 不是 JSON 数值；b[0]：nan 不是 JSON 数值；b[1]：inf 不是 JSON 数值；" in shown
        )
        assert "等另外 2 项" in shown, shown
    finally:
        install_language("en")


def test_a_folder_in_place_of_the_desktop_settings_is_explained_translated(
    tmp_path: Path,
) -> None:
    path = tmp_path / "desktop.json"
    path.mkdir()
    warning = load_prefs(path).load_warning
    assert warning is not None
    assert warning.startswith(f"The desktop settings file {path} is a folder, not a file; ")
    with pseudo_locale():
        shown = localized(warning)
        assert "⟦is a folder, not a file⟧" in shown, shown
        assert not _english(
            shown, frozenset([str(path), *re.findall(r"desktop\.json\.\S+", warning)])
        ), shown
    try:
        install_language("zh_CN")
        assert "是文件夹，不是文件" in localized(warning)
    finally:
        install_language("en")
