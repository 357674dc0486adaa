"""Settings › Channels in the pseudo locale: every channel's form (with its how-to, open
Advanced section, emoji pickers and their menus), each connection state, the test and install
steps, the QR login, the pairing list in each of its states and the channel list's marks —
every text translated; and the Telegram form in Chinese."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from desktop.core.bus.events import ChannelStatusChanged
from desktop.core.channels import registry
from desktop.core.channels.pairing import PairingStore
from desktop.core.config import secret_fields
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.utils.extras import InstallPlan
from desktop.ui.i18n import install_language
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channel_form import ChannelForm
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.settings.guided import EmojiField
from tests.channels.telegram.bot_api_server import BotApiServer
from tests.conftest import REPO, custom_config, write_config
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import listed_texts, pseudo_locale, untranslated
from tests.ui.settings.pages import page_of
from tests.ui.settings.test_pseudo_locale_setA_frame import untranslated_items

BRANDS = ["WeChat"]  # channel_title("weixin"): a brand, not in pseudo.ALWAYS_ALLOWED
REASON = "Token rejected by the server"
HINT = "Check the token"


def _schema_texts(form: ChannelForm) -> list[str]:
    """The schema's field titles and descriptions that are not listed yet (they are another
    area's: marked in the config schema), and the choices of ``Literal`` fields (values written
    to config.json as they are)."""
    listed = listed_texts()
    found: list[str] = []
    for info in form.model.model_fields.values():
        found += [t for t in (info.title, info.description) if t and t not in listed]
    for control in form.controls.values():
        if isinstance(control, QComboBox):
            found += [control.itemText(i) for i in range(control.count())]
    return found


def _not_this_area(page: ChannelsPage) -> list[QWidget]:
    """The key boxes (their texts are the key field's own), with their windows."""
    keys: list[QWidget] = [k for form in page.forms.values() for k in form.keys.values()]
    return [*keys, *(w for k in keys for w in k.findChildren(QWidget) if w.isWindow())]


def _check(page: ChannelsPage, *data: str) -> list[str]:
    """What the page shows untranslated, ``data`` (what the test put on screen) allowed."""
    allow = [*BRANDS, *data, *(t for form in page.forms.values() for t in _schema_texts(form))]
    return untranslated(
        page, allow=allow, skip=[*_not_this_area(page), page.list]
    ) + untranslated_items(page.list, BRANDS)


def _status(
    services: AppServices,
    channel: str,
    state: str,
    *,
    reason: str = "",
    hint: str = "",
    account: str = "",
    login_code: str = "",
) -> None:
    """The running channel's status as the bus brings it to the window."""
    event = ChannelStatusChanged(channel, state, reason, hint, account, login_code)
    services.bridge.channelStatus.emit(event)


def test_every_channel_form_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """Each channel's form as first shown and with Advanced open, and every emoji picker's
    menu and names (offered, custom, refused)."""
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels")
        page = page_of(tab, "channels", ChannelsPage)
        for name in secret_fields.channel_names():
            form = page.form(name)
            form.advanced.set_open(True)
            assert form.title.text().startswith("⟦"), name
            assert form.how_to.text().startswith("⟦"), name
            for row in form.findChildren(EmojiField):
                assert row.menu.actions()
                row.edit.choose("🦀")  # custom: named by its code points
                assert _check(page) == [], name
                row.edit.choose("")
        telegram = page.form("telegram").controls["react_emoji"].parentWidget()
        assert isinstance(telegram, EmojiField)
        telegram.edit.choose("🚀")  # Telegram refuses it
        assert "does not accept" in telegram.name.text()
        assert _check(page) == []


def test_each_connection_state_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, services: AppServices
) -> None:
    """A channel's live status (and the list's mark) in every state: not running, connecting,
    waiting for a QR code to be scanned, linked, connected (with and without an account),
    disconnected and unable to run."""
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels/whatsapp")
        page = page_of(tab, "channels", ChannelsPage)
        form = page.form("whatsapp")
        assert form.status.text() == "⟦The agent is not running yet.⟧"
        assert _check(page) == []
        _status(services, "whatsapp", "connecting")
        assert form.status.text() == "⟦Connecting…⟧"
        assert _check(page) == []
        _status(services, "whatsapp", "connecting", reason=REASON, login_code="2@abc,def,ghi")
        assert form.login.state == "code" and form.login.code.isVisibleTo(form)
        assert _check(page, REASON) == []
        _status(services, "whatsapp", "connected", account="+4912345")
        assert str(form.login.state) == "linked"  # (mypy narrowed it to "code" above)
        assert _check(page, "+4912345") == []
        _status(services, "whatsapp", "connected")
        assert form.status.text() == "⟦Connected.⟧"
        for state in ("error", "unavailable"):
            _status(services, "whatsapp", state, reason=REASON, hint=HINT)
            assert form.status.kind == "error"
            assert _check(page, REASON, HINT) == [], state
        _status(services, "whatsapp", "stopped")
        assert _check(page) == []
        assert form.status.text().startswith("⟦Not running.")
        page.form("weixin")
        _status(services, "weixin", "connecting", reason=REASON, login_code="https://x.test/q")
        assert _check(page, REASON) == []


def test_the_test_and_install_steps_show_no_untranslated_text(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
) -> None:
    """After a test: the missing support offered for install (the command shown), installing
    with its output, the command to run where the app does not install, a failure, and the
    offer to turn the channel on — then turned on."""
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels/telegram")
        page = page_of(tab, "channels", ChannelsPage)
        form = page.form("telegram")
        plan = InstallPlan("telegram", ("python", "-m", "pip", "install", "x"), tmp_path)
        form.steps.offer_install(plan)
        assert form.steps.install_button.isVisibleTo(form)
        assert _check(page, plan.command) == []
        form.steps.installing()
        output = "Collecting python-telegram-bot"  # kept as the output's tooltip
        form.steps.output(output)
        assert _check(page, plan.command, output) == []
        form.steps.show_command("pip install 'nanobot-desktop[telegram]'")
        assert _check(page, "pip install 'nanobot-desktop[telegram]'", output) == []
        form.steps.offer_enable()
        assert form.steps.enable_button.isVisibleTo(form)
        assert _check(page, output) == []
        assert run_async(qtbot, qloop, page.turn_on("telegram"))
        assert form.test_status.text() == "⟦Telegram is on.⟧"
        assert _check(page, output) == []


@pytest.fixture
def bot_api(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> Iterator[BotApiServer]:
    """The local Telegram Bot API server."""
    api = run_async(qtbot, qloop, BotApiServer().start())
    yield api
    run_async(qtbot, qloop, api.stop())


def test_a_real_test_and_failed_install_show_no_untranslated_text(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
    memory_keyring: object,
    bot_api: BotApiServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Test connection with the Telegram SDK made missing: the reason and the install offer;
    the install (a real subprocess that fails) and what it says then."""
    info = registry.CHANNELS["telegram"]
    missing = "nb_pseudo_locale_sdk_missing"
    monkeypatch.setitem(
        registry.CHANNELS, "telegram", dataclasses.replace(info, requires=(*info.requires, missing))
    )
    program = "import sys\nprint('ERROR: No matching distribution found')\nsys.exit(1)\n"
    plan = InstallPlan("telegram", (sys.executable, "-c", program), REPO)
    monkeypatch.setattr("desktop.ui.settings.channel_form.install_plan", lambda extra: plan)
    path = custom_config(tmp_path, scripted_server.url)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["channels"] = {"telegram": {"enabled": False, "baseUrl": bot_api.base_url}}
    write_config(path, data)
    services = AppServices(load_config(path), path, SecretStore("nanobot-desktop-pseudo-setA"))
    with pseudo_locale():
        tab = SettingsTab(services)
        qtbot.addWidget(tab)
        tab.show()
        tab.show_section("channels/telegram")
        page = page_of(tab, "channels", ChannelsPage)
        form = page.form("telegram")
        form.test_button.click()
        qtbot.waitUntil(lambda: form.steps.install_button.isVisible(), timeout=15_000)
        assert _check(page, plan.command) == []
        form.steps.install_button.click()
        qtbot.waitUntil(lambda: "install failed" in form.test_status.text(), timeout=30_000)
        assert form.test_status.text().startswith("⟦The install failed: ")
        output = "ERROR: No matching distribution found"
        assert _check(page, plan.command, output) == []
        run_async(qtbot, qloop, services.aclose_tabs())


def test_a_refused_connection_is_explained_in_the_window_language(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot
) -> None:
    """Test connection against a port nobody listens on (the real Telegram SDK): the core's
    sentence for a refused connection is shown translated inside the form's own words."""
    with socket.socket() as probe:  # a free port, closed again: connecting is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels/telegram")
        page = page_of(tab, "channels", ChannelsPage)
        form = page.form("telegram")
        form.keys["token"].edit.setText("123456:ABCDEF")  # typed, not saved
        base = form.controls["base_url"]
        assert isinstance(base, QLineEdit)
        base.setText(f"http://127.0.0.1:{port}")
        form.test_button.click()
        qtbot.waitUntil(lambda: form.test_status.kind == "error", timeout=30_000)
        assert form.test_status.text() == (
            "⟦It does not work: ⟦The server refused the connection (is it running, and is the "
            "port right?)⟧⟧"
        )
        assert _check(page, f"http://127.0.0.1:{port}", "123456:ABCDEF") == []


def test_the_pairing_list_shows_no_untranslated_text(
    make_tab: Callable[[], SettingsTab], qtbot: QtBot, config_path: Path
) -> None:
    """The pairing list empty, with a pending request, with only approved senders, and when
    its file cannot be read."""
    store = PairingStore(config_path.parent)
    with pseudo_locale():
        tab = make_tab()
        tab.show_section("channels")
        page = page_of(tab, "channels", ChannelsPage)
        pairing = page.pairing
        qtbot.waitUntil(lambda: pairing.rows.count() == 1)
        assert _check(page) == []
        request, _ = store.request("telegram", "4249|zoe")
        pairing.show_pairings(store.read())
        assert _check(page, "4249|zoe", request.code) == []
        store.approve(request.code)
        pairing.show_pairings(store.read())
        assert _check(page, "4249|zoe") == []
        (config_path.parent / "pairing.json").unlink()
        (config_path.parent / "pairing.json").mkdir()  # a folder where the file should be
        pairing.refresh()
        qtbot.waitUntil(lambda: pairing.message.text() != "")
        error = pairing.message.text().removeprefix("⟦The pairing file cannot be read: ")
        assert error != pairing.message.text()
        assert _check(page, "4249|zoe", error) == []


def test_the_telegram_form_in_chinese(make_tab: Callable[[], SettingsTab]) -> None:
    """With the real zh_CN translation the Channels page, the Telegram form (heading, how-to,
    buttons, sections) and the pairing box speak Chinese."""
    assert install_language("zh_CN") == "zh_CN"
    try:
        tab = make_tab()
        tab.show_section("channels/telegram")
        page = page_of(tab, "channels", ChannelsPage)
        form = page.form("telegram")
        assert page.send_progress.text() == "智能体工作时发送进度消息"
        assert form.title.text() == "Telegram 机器人"
        assert form.how_to.text().startswith("在 Telegram 中打开与 @BotFather 的对话")
        assert form.test_button.text() == "测试连接"
        assert form.connect_button.text() == "连接"
        assert form.advanced.toggle.text() == "高级"
        assert form.status.text() == "智能体尚未运行。"
        assert page.pairing.title() == "待处理的配对请求"
    finally:
        install_language("en")
