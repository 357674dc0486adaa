"""The chat channels' own texts (reasons, hints, test results, live status, delivery failures)
in the window's language: each brought about for real, the English unchanged, under the pseudo
locale nothing English outside ``⟦…⟧`` but data, and in Chinese a few read as Chinese."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from desktop.core.bus.events import ChannelStatusChanged
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.base import ChannelStatus
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.registry import CHANNELS
from desktop.core.config.loader import load_config
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import install_language
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channel_form import ChannelForm
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.tray import Tray
from tests.channels.telegram.bot_api_server import BOT_USERNAME, TOKEN, BotApiServer
from tests.conftest import write_config
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale
from tests.ui.settings.pages import page_of
from tests.waiting import until

# Data a channel's own texts carry: commands, setting keys, SDK module names, product names.
DATA = [
    "nanobot-desktop",
    "pip install",
    "Feishu / Lark",
    "Feishu",
    "Lark",
    *(info.display_name for info in CHANNELS.values()),
    *(module for info in CHANNELS.values() for module in info.requires),
]


def _closed_port() -> int:
    with socket.socket() as probe:  # a free port, closed again: connecting is refused
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _tested(form: ChannelForm, qtbot: QtBot) -> str:
    """Run the form's connection test (the real channel, the settings as typed); what it says."""
    form.test_status.clear()
    form.test_button.click()

    def done() -> bool:
        text = form.test_status.text()
        return bool(text) and "Testing…" not in text and "正在测试…" not in text

    qtbot.waitUntil(done, timeout=60_000)
    qtbot.waitUntil(form.test_button.isEnabled, timeout=10_000)
    return form.test_status.text()


def test_every_channels_test_with_empty_settings_is_shown_translated(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """The family: each channel's connection test with nothing filled in (a missing token,
    address, consent or SDK; a refused connection) — what the real check says is listed and
    shown in brackets, so a new f-string reason of any channel fails here."""
    shown: dict[str, str] = {}
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels")
        page = page_of(tab, "channels", ChannelsPage)
        for name in CHANNELS:
            text = _tested(page.form(name), qtbot)
            shown[name] = text
            assert text.startswith("⟦"), (name, text)
            assert _english(text, frozenset(DATA)) == "", (name, text)
    assert len(shown) == len(CHANNELS)


def test_reasons_and_hints_keep_their_english_and_read_chinese(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """The same tests in English (the texts as before) and in Chinese."""
    tab = make_tab()
    tab.show_section("channels")
    page = page_of(tab, "channels", ChannelsPage)
    telegram, matrix = page.form("telegram"), page.form("matrix")
    assert _tested(telegram, qtbot) == (
        "No bot token is set. Create a bot with @BotFather and enter its token in Settings → "
        "Channels → Telegram."
    )
    assert _tested(matrix, qtbot) == (
        "Matrix needs an access token (or a password) for the bot account. Settings → Channels "
        "→ Matrix: fill in Access token (or Password) and User ID"
    )
    try:
        install_language("zh_CN")
        assert _tested(telegram, qtbot) == (
            "未设置机器人令牌。请用 @BotFather 创建机器人，并在 设置 → 渠道 → Telegram 中填写"
            "它的令牌。"
        )
        assert _tested(matrix, qtbot) == (
            "Matrix 需要机器人账号的访问令牌（或密码）。设置 → 渠道 → Matrix：请填写访问令牌（或密码）"
            "和用户 ID"
        )
    finally:
        install_language("en")


@pytest.fixture
def signal_config(tmp_path: Path, config_data: dict[str, Any]) -> Any:
    """A config whose Signal channel points at a port nobody listens on."""
    data = dict(config_data)
    data["channels"] = {
        "signal": {
            "enabled": True,
            "phoneNumber": "+4912345678",
            "daemonHost": "127.0.0.1",
            "daemonPort": _closed_port(),
        }
    }
    return load_config(write_config(tmp_path / "signal" / "config.json", data))


async def _refused_status(config: Any, state_dir: Path) -> ChannelStatus:
    """Start the real Signal channel against the closed port; its status once it failed."""
    owner = TaskOwner("r2chan-status")
    manager = ChannelManager(MessageBus(), owner, config=config, state_dir=state_dir)
    try:
        await manager.start_channel("signal")
        await until(lambda: manager.status("signal").state == "error", timeout=30)
        return manager.status("signal")
    finally:
        await manager.stop_channel("signal")
        await owner.aclose()


def test_a_refused_channel_status_is_shown_translated(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    services: AppServices,
    signal_config: Any,
    tmp_path: Path,
) -> None:
    """A channel whose server refuses it: the manager's reason and "Reconnecting in N s." in
    Settings › Channels and the tray's tooltip."""
    status = run_async(qtbot, qloop, _refused_status(signal_config, tmp_path / "state"))
    reason = "The server refused the connection (is it running, and is the port right?)"
    assert status.reason == reason  # the English as before
    assert status.hint.startswith("Reconnecting in ") and status.hint.endswith(" s.")
    delay = status.hint.removeprefix("Reconnecting in ").removesuffix(" s.")
    event = ChannelStatusChanged("signal", "error", status.reason, status.hint)
    tray = Tray()
    try:
        _shown_in_both_languages(make_tab, services, tray, event, reason, delay)
    finally:
        tray.close()  # its menu has no parent: deleted here, not whenever the tray is collected


def _shown_in_both_languages(
    make_tab: Callable[[], SettingsTab],
    services: AppServices,
    tray: Tray,
    event: ChannelStatusChanged,
    reason: str,
    delay: str,
) -> None:
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels/signal")
        form = page_of(tab, "channels", ChannelsPage).form("signal")
        services.bridge.channelStatus.emit(event)
        shown = form.status.text()
        assert shown.startswith("⟦Disconnected: ") and f"⟦{reason}⟧" in shown, shown
        assert f"⟦Reconnecting in {delay} s.⟧" in shown, shown
        assert _english(shown, frozenset()) == "", shown
        tray._channel_status(event)
        tip = tray.icon.toolTip()
        assert f"⟦{reason}⟧" in tip and _english(tip, frozenset(["Signal"])) == "", tip
    try:
        install_language("zh_CN")
        services.bridge.channelStatus.emit(event)
        shown = form.status.text()
        assert shown.startswith("已断开：") and shown.endswith(f"。{delay} 秒后重新连接。"), shown
        assert "服务器拒绝了连接" in shown, shown
        tray._channel_status(event)
        assert "服务器拒绝了连接" in tray.icon.toolTip(), tray.icon.toolTip()
    finally:
        install_language("en")


@pytest.fixture
def bot_api(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> Iterator[BotApiServer]:
    """The local Telegram Bot API server."""
    api = run_async(qtbot, qloop, BotApiServer().start())
    yield api
    run_async(qtbot, qloop, api.stop())


def test_a_passed_connection_test_is_shown_translated(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, bot_api: BotApiServer
) -> None:
    """A real getMe against the local Bot API server: "Connected as @bot" as before in English,
    in brackets under the pseudo locale, in Chinese with the bot's name kept."""
    tab = make_tab()
    tab.show_section("channels/telegram")
    form = page_of(tab, "channels", ChannelsPage).form("telegram")
    form.keys["token"].edit.setText(TOKEN)  # typed, not saved
    base = form.controls["base_url"]
    assert isinstance(base, QLineEdit)
    base.setText(bot_api.base_url)
    assert _tested(form, qtbot) == f"Connected as @{BOT_USERNAME}"
    with pseudo_locale():
        shown = _tested(form, qtbot)
        assert shown == f"⟦Connected as @{BOT_USERNAME}⟧"
        assert _english(shown, frozenset([BOT_USERNAME])) == ""
    try:
        install_language("zh_CN")
        assert _tested(form, qtbot) == f"已连接，身份为 @{BOT_USERNAME}"
    finally:
        install_language("en")
