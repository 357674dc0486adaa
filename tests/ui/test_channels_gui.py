"""Channels in the window: Settings → Channels shows the live status (Telegram connected, Email
in error with a readable reason), the connection test, Disconnect/Connect; a Telegram chat
appears in the chat list as the local Bot API server delivers a message, with its badge, and a
reply typed in the window goes back to Telegram.

The runtime is real (``build_runtime`` on the scripted model server); Telegram talks to the
local Bot API server of ``tests/channels/telegram``; Email to a closed loopback port.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.providers.litellm_provider import import_litellm
from desktop.core.runtime import Runtime
from desktop.ui.chat.chat_tab import ChatTab
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channels_page import ChannelsPage
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer
from tests.conftest import REPO, write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of

CHAT = 4242
SCREENS = REPO / "test-output" / "screens"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Setup:
    """The runtime, the services and the local Bot API server of one test."""

    def __init__(self, runtime: Runtime, services: AppServices, api: BotApiServer) -> None:
        self.runtime, self.services, self.api = runtime, services, api


@pytest.fixture
def channels(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> Iterator[Setup]:
    import_litellm()
    api = run_async(qtbot, qloop, BotApiServer().start())
    data: dict[str, Any] = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {
            "telegram": {
                "enabled": True,
                "token": TOKEN,
                "baseUrl": api.base_url,
                "allowFrom": ["*"],
                "reactEmoji": "",
            },
            "email": {
                "enabled": True,
                "consentGranted": True,
                "imapHost": "127.0.0.1",
                "imapPort": _closed_port(),
                "imapUsername": "bot@example.org",
                "imapPassword": "secret-pass",
                "imapUseSsl": False,
                "smtpHost": "127.0.0.1",
                "smtpPort": _closed_port(),
                "smtpUsername": "bot@example.org",
                "smtpPassword": "secret-pass",
                "verifyDkim": False,
                "verifySpf": False,
                "fromAddress": "bot@example.org",
                "allowFrom": ["*"],
            },
        },
    }
    config_path = write_config(tmp_path / "nanobot" / "config.json", data)
    config = load_config(config_path)
    from desktop.core.config.secrets import SecretStore

    services = AppServices(config, config_path, SecretStore("nanobot-desktop-gui-channels"))
    runtime = build_runtime(config, make_provider(scripted_server.url))
    run_async(qtbot, qloop, runtime.start(), timeout_ms=30_000)
    services.set_runtime(runtime)
    yield Setup(runtime, services, api)
    run_async(qtbot, qloop, runtime.stop(), timeout_ms=30_000)
    run_async(qtbot, qloop, api.stop())


def test_channels_page_shows_live_status_and_tests_the_connection(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, channels: Setup
) -> None:
    tab = SettingsTab(channels.services)
    qtbot.addWidget(tab)
    tab.resize(1100, 760)
    tab.show()
    tab.show_section("channels/telegram")
    page = page_of(tab, "channels", ChannelsPage)
    telegram = page.form("telegram")
    qtbot.waitUntil(lambda: "Connected as @" in telegram.status.text(), timeout=30_000)
    assert telegram.connect_button.text() == "Disconnect"
    email = page.form("email")
    qtbot.waitUntil(lambda: "Disconnected:" in email.status.text(), timeout=30_000)
    reason = email.status.text()
    assert "Traceback" not in reason and len(reason) < 400
    assert "secret-pass" not in reason
    SCREENS.mkdir(parents=True, exist_ok=True)
    tab.grab().save(str(SCREENS / "settings-channels-telegram.png"))
    tab.show_section("channels/email")
    qtbot.wait(50)
    tab.grab().save(str(SCREENS / "settings-channels-email.png"))
    # The connection test is a real getMe against the local Bot API server.
    tab.show_section("channels/telegram")
    telegram.test_button.click()
    qtbot.waitUntil(lambda: "Connected as @" in telegram.test_status.text(), timeout=30_000)
    # Disconnect and connect again from the page.
    telegram.connect_button.click()
    qtbot.waitUntil(lambda: telegram.connect_button.text() == "Connect", timeout=30_000)
    assert channels.runtime.channels.status("telegram").state == "stopped"
    telegram.connect_button.click()
    qtbot.waitUntil(lambda: "Connected as @" in telegram.status.text(), timeout=30_000)
    run_async(qtbot, qloop, _close(tab))


async def _close(tab: Any) -> None:
    await tab.aclose()


def test_a_telegram_chat_appears_live_and_replies_go_back_to_telegram(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, channels: Setup, scripted_server: Any
) -> None:
    tab = ChatTab(channels.services)
    tab.pane.view.open_links = False
    qtbot.addWidget(tab)
    tab.resize(1024, 700)
    tab.show()
    qtbot.waitUntil(lambda: bool(tab.current), timeout=10_000)
    scripted_server.push(Reply("Hello from the agent, via Telegram!"))
    channels.api.put_message(CHAT, "Hi bot, are you there?")
    key = f"telegram:{CHAT}"
    qtbot.waitUntil(lambda: key in tab.sessions.all_keys(), timeout=30_000)
    qtbot.waitUntil(
        lambda: "Hello from the agent, via Telegram!" in channels.api.texts(CHAT), timeout=30_000
    )
    entry = tab.sessions.entry(key)
    assert entry is not None and entry.channel == "telegram"
    tab.open_session(key)
    model = tab.pane.view.model

    def shown() -> list[str]:
        current = model()
        return [i.text for i in current.items] if current is not None else []

    qtbot.waitUntil(
        lambda: (
            "Hi bot, are you there?" in shown() and "Hello from the agent, via Telegram!" in shown()
        ),
        timeout=30_000,
    )
    assert "from telegram" in tab.pane.channel.text()
    SCREENS.mkdir(parents=True, exist_ok=True)
    tab.grab().save(str(SCREENS / "chat-telegram.png"))
    # A reply typed in the window is answered in Telegram.
    scripted_server.push(Reply("Answered in your Telegram chat."))
    tab.pane.composer.edit.setPlainText("Please answer there too.")
    tab.pane.composer.submit()
    qtbot.waitUntil(
        lambda: "Answered in your Telegram chat." in channels.api.texts(CHAT), timeout=30_000
    )
    run_async(qtbot, qloop, tab.aclose())
