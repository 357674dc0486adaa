"""A refused settings change in the window's language (issue #25 §6 leftovers).

The sandbox box's settings go to ``desktop.json`` through the real preference store; a value
out of its range is refused with a :class:`ChangeError`. Its English is what it was
(``"sandbox: Input should be …"``, pydantic's wording), the pseudo locale shows it bracketed
but for its data (the path, the bound), and ``zh_CN`` shows Chinese. Config edits
(:func:`apply_changes` on the real config) say the same.
"""

from __future__ import annotations

import asyncio

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.edit import ChangeError, apply_changes
from desktop.core.config.schema import Config
from desktop.ui.i18n import install_language, localized
from desktop.ui.services import AppServices
from desktop.ui.settings.prefs_access import update_prefs
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale


def _refused(qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices) -> ChangeError:
    with pytest.raises(ChangeError) as caught:
        run_async(qtbot, qloop, update_prefs(services, sandbox={"limits": {"processes": 1}}))
    return caught.value


def test_a_refused_sandbox_limit_is_shown_translated(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, services: AppServices
) -> None:
    refused = _refused(qtbot, qloop, services)
    assert str(refused) == "sandbox: Input should be greater than or equal to 16"  # as before
    assert refused.reason == "Input should be greater than or equal to 16"
    with pseudo_locale():
        shown = localized(refused)
        assert shown == "⟦sandbox: ⟦Input should be greater than or equal to 16⟧⟧", shown
    try:
        install_language("zh_CN")
        assert localized(refused) == "sandbox：输入值应大于或等于 16"
    finally:
        install_language("en")


@pytest.mark.parametrize(
    ("path", "value", "english"),
    [
        ("agents.defaults.max_tool_iterations", 0, "Input should be greater than or equal to 1"),
        ("tools.exec.timeout", "soon", None),
        ("tools.exec.timeout", 1.5, None),
    ],
)
def test_config_edits_are_refused_in_the_window_language(
    qtbot: QtBot, path: str, value: object, english: str | None
) -> None:
    config = Config()
    with pytest.raises(ChangeError) as caught:
        apply_changes(config, {path: value})
    refused = caught.value
    assert str(refused) == f"{path}: {refused.reason}"
    if english is not None:
        assert refused.reason == english
    with pseudo_locale():
        shown = localized(refused)
        assert not _english(shown, frozenset([path])), shown
