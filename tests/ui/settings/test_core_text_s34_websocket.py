"""The WebSocket channel's "open to everyone" refusal in the window's language (issue #25 §6
leftovers).

Settings › Channels › WebSocket, listening on every interface with neither a token nor a
token issue secret: the real connection test refuses. The English is what it was, the pseudo
locale shows it bracketed (the host is data), and ``zh_CN`` shows Chinese.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from desktop.core.config.channels.websocket import WebSocketConfig
from desktop.core.utils.i18n import Phrase
from desktop.ui.i18n import install_language
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channel_form import ChannelForm
from desktop.ui.settings.channels_page import ChannelsPage
from tests.ui.i18n.pseudo import _english, pseudo_locale
from tests.ui.settings.pages import page_of
from tests.ui.settings.test_core_text_r2chan import _tested

ENGLISH = (
    "host is 0.0.0.0 (every network interface) but neither token nor tokenIssueSecret is set: "
    "set one so nobody on the network can talk to the agent unasked"
)


def _open_form(make_tab: Callable[[], SettingsTab]) -> ChannelForm:
    tab = make_tab()
    tab.show_section("channels/websocket")
    form = page_of(tab, "channels", ChannelsPage).form("websocket")
    host = form.controls["host"]
    assert isinstance(host, QLineEdit)
    host.setText("0.0.0.0")
    return form


def test_the_open_to_everyone_refusal_is_shown_translated(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    said = WebSocketConfig(host="0.0.0.0").open_to_everyone()
    assert said == ENGLISH  # English for logs and the CLI
    form = _open_form(make_tab)
    assert _tested(form, qtbot) == ENGLISH + "."
    with pseudo_locale():
        shown = _tested(form, qtbot)
        assert shown.startswith("⟦⟦host is 0.0.0.0 (every network interface)"), shown
        assert _english(shown, frozenset()) == "", shown
    try:
        install_language("zh_CN")
        shown = _tested(form, qtbot)
        assert shown.startswith("host 为 0.0.0.0（所有网络接口），但 token 和 tokenIssueSecret"), (
            shown
        )
    finally:
        install_language("en")
    assert isinstance(said, Phrase)
