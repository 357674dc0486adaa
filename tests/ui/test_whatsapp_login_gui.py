"""Settings → Channels → WhatsApp draws the bridge's QR code while WhatsApp is not linked.

A real runtime (``build_runtime`` on the scripted model server) runs the WhatsApp channel
against the local bridge of ``tests/channels/whatsapp``. The code is grabbed from the screen
and read back by a real decoder (ZBar), in the light and the dark scheme; a new code replaces
it; ``connected`` replaces it with "Linked".
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.litellm_provider import import_litellm
from desktop.core.runtime import Runtime
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channel_form import ChannelForm
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.theme import Theme
from tests.channels.whatsapp.bridge_server import BridgeServer, login_code
from tests.channels.whatsapp.conftest import config_file
from tests.conftest import REPO
from tests.core.agent.conftest import make_provider
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.qr_decode import decode, zbarimg
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of

SCREENS = REPO / "test-output" / "screens"


class Setup:
    """The runtime, the services and the local bridge of one test."""

    def __init__(self, runtime: Runtime, services: AppServices, bridge: BridgeServer) -> None:
        self.runtime, self.services, self.bridge = runtime, services, bridge


@pytest.fixture
def whatsapp(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> Iterator[Setup]:
    import_litellm()
    bridge = run_async(qtbot, qloop, BridgeServer().start())
    config_path = config_file(tmp_path, bridge)
    config = load_config(config_path)
    services = AppServices(config, config_path, SecretStore("nanobot-desktop-gui-whatsapp"))
    runtime = build_runtime(config, make_provider(scripted_server.url))
    run_async(qtbot, qloop, runtime.start(), timeout_ms=30_000)
    services.set_runtime(runtime)
    yield Setup(runtime, services, bridge)
    run_async(qtbot, qloop, runtime.stop(), timeout_ms=30_000)
    run_async(qtbot, qloop, bridge.stop())


def _read(widget: Any, path: Path) -> list[str]:
    SCREENS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(path))
    return decode(path)


def _offer(qtbot: QtBot, qloop: asyncio.AbstractEventLoop, setup: Setup, form: ChannelForm) -> str:
    code = login_code()
    run_async(qtbot, qloop, setup.bridge.offer_qr(code))
    qtbot.waitUntil(lambda: form.login.code.text() == code, timeout=30_000)
    return code


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_whatsapp_form_draws_the_qr_code_replaces_it_and_says_linked(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    qapp: QApplication,
    whatsapp: Setup,
    tmp_path: Path,
    scheme: str,
) -> None:
    zbarimg()
    palette, sheet = qapp.palette(), qapp.styleSheet()
    theme = Theme(qapp, scheme)
    tab = SettingsTab(whatsapp.services)
    try:
        qtbot.addWidget(tab)
        tab.resize(1100, 900)
        tab.show()
        tab.show_section("channels/whatsapp")
        form = page_of(tab, "channels", ChannelsPage).form("whatsapp")
        qtbot.waitUntil(lambda: bool(whatsapp.bridge.clients), timeout=30_000)
        qtbot.waitUntil(lambda: form.status.text().startswith("Connected"), timeout=30_000)
        assert not form.login.isVisible(), "no code before the bridge offers one"

        first = _offer(qtbot, qloop, whatsapp, form)
        qtbot.waitUntil(form.login.code.isVisible, timeout=5_000)
        assert "Link a device" in form.login.steps.text()
        assert "scan the QR code below" in form.status.text()
        page = page_of(tab, "channels", ChannelsPage)
        row = page.list.item(page.names.index("whatsapp"))
        assert row.toolTip() == "WhatsApp: waiting for you to scan the QR code", "not an error"
        assert _read(form.login.code, tmp_path / "code.png") == [first]
        assert _read(tab, SCREENS / f"settings-whatsapp-qr-{scheme}.png") == [first]
        image = form.login.code.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        corner, dark_module = image.pixelColor(1, 1), QColor("black")
        assert corner == QColor("white"), f"quiet zone {corner.name()} in the {scheme} scheme"
        px = form.login.code.module_px()
        assert image.pixelColor(4 * px + 1, 4 * px + 1) == dark_module, "finder pattern"

        second = _offer(qtbot, qloop, whatsapp, form)
        assert _read(form.login.code, tmp_path / "second.png") == [second]

        run_async(qtbot, qloop, whatsapp.bridge.link())
        qtbot.waitUntil(lambda: form.login.state == "linked", timeout=30_000)
        assert not form.login.code.isVisible()
        assert form.login.linked.text().startswith("Linked")
        assert form.status.text().startswith("Connected")
        assert row.toolTip() == "WhatsApp: connected"
        assert whatsapp.runtime.channels.status("whatsapp").login_code == ""
        assert _read(tab, SCREENS / f"settings-whatsapp-linked-{scheme}.png") == []
    finally:
        run_async(qtbot, qloop, tab.aclose())
        theme.setParent(None)
        qapp.setStyleSheet(sheet)
        qapp.setPalette(palette)


def test_without_the_qr_library_the_panel_says_what_to_install(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from desktop.ui.settings.qr_login import QrLoginPanel

    panel = QrLoginPanel("On your phone open WhatsApp")
    qtbot.addWidget(panel)
    panel.show()
    monkeypatch.setitem(sys.modules, "segno", None)  # import segno → ImportError
    panel.show_code(login_code())
    assert panel.state == "code" and panel.isVisible()
    assert not panel.code.isVisible()
    assert 'pip install "nanobot-desktop[whatsapp]"' in panel.problem.text()
    monkeypatch.delitem(sys.modules, "segno")
    code = login_code()
    panel.show_code(code)
    assert panel.code.isVisible() and panel.code.text() == code and not panel.problem.isVisible()
