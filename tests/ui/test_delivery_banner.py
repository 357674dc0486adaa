"""An outbound message that finally fails to reach its chat shows an error banner in the
window: the real channel manager gives up after its retries and emits ``DeliveryFailed`` on
the bus, the bridge turns it into ``deliveryFailed``, and the running app shows the banner."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from desktop.core.bus.events import OutboundMessage
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.manager import ChannelManager
from desktop.core.channels.registry import ChannelInfo
from desktop.core.config.loader import load_config
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.main_window import MainWindow
from desktop.ui.notifications import Notifier
from desktop.ui.services import AppServices
from desktop.ui.shell import DesktopApp
from desktop.ui.single_instance import SingleInstance
from desktop.ui.theme import Theme
from tests.conftest import write_config
from tests.core.channels import loopback
from tests.core.channels.loopback import Network
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop")
INFO = ChannelInfo("loopback", "Loopback", "tests.core.channels.loopback", "LoopbackChannel", "x")


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> Network:
    """A fresh in-process network for the loopback channel."""
    fresh = Network()
    monkeypatch.setattr(loopback, "NETWORK", fresh)
    return fresh


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    """A shown main window that really closes at the end."""
    win = build_main_window()
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.allow_close()
    win.close()


def test_a_failed_delivery_shows_a_banner_with_the_chat_and_the_reason(
    qtbot: QtBot,
    qapp: QApplication,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    window: MainWindow,
    network: Network,
) -> None:
    """Every send attempt fails: one error banner names the channel, the chat, the message and
    the reason; its action opens Settings; a later failure replaces it instead of stacking."""
    config_path = write_config(
        tmp_path / "nanobot" / "config.json",
        {"agents": {"defaults": {"workspace": str(tmp_path / "ws")}}},
    )
    theme = Theme(qapp, "light")
    app = DesktopApp(
        qapp,
        window,
        theme,
        SingleInstance(config_path.parent),
        prefs_file=config_path.parent / "desktop.json",
        config_path=config_path,
    )
    app.notifier = Notifier(is_paused=lambda: False, window=window)
    services = AppServices(load_config(config_path), config_path, None)  # type: ignore[arg-type]
    bus = MessageBus()
    services.bridge.attach(bus)
    app._on_config_loaded(services)  # what the app does once the settings are loaded
    owner = TaskOwner("test-channels")
    manager = ChannelManager(
        bus,
        owner,
        config=SimpleNamespace(channels=SimpleNamespace(loopback=loopback.section())),  # type: ignore[arg-type]
        state_dir=tmp_path / "state",
        media_dir=tmp_path / "media",
        send_delays=(0.01, 0.01),
        registry={"loopback": INFO},
    )
    try:
        run_async(qtbot, qloop, manager.start())
        qtbot.waitUntil(lambda: manager.status("loopback").ok)
        assert window.banner("delivery") is None
        network.fail_sends = 3  # the first try and both retries
        message = OutboundMessage("loopback", "42", "Your reminder:\n  stretch   your legs")
        assert not run_async(qtbot, qloop, manager.deliver(message))
        qtbot.waitUntil(lambda: window.banner("delivery") is not None)
        banner = window.banner("delivery")
        assert banner is not None and banner.isVisible()
        assert banner.property("severity") == "error"
        assert banner.text() == (
            "A message for loopback chat 42 could not be delivered "
            "(“Your reminder: stretch your legs”): Send failed."
        )
        assert [b.text() for b in banner.buttons] == ["Channel settings"]
        window.show_tab("chat")
        banner.buttons[0].click()
        assert window.current_tab_key() == "settings"

        network.fail_sends = 3
        again = OutboundMessage("loopback", "7", "second answer")
        assert not run_async(qtbot, qloop, manager.deliver(again))
        qtbot.waitUntil(lambda: "chat 7" in getattr(window.banner("delivery"), "text", str)())
        assert len([b for b in window._banners if b == "delivery"]) == 1
        assert network.sent == []
    finally:
        run_async(qtbot, qloop, manager.stop())
        run_async(qtbot, qloop, owner.aclose())
        services.bridge.detach()
        run_async(qtbot, qloop, app.notifier.aclose())
        theme.setParent(None)
