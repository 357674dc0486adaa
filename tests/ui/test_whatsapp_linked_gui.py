"""Settings → Channels → WhatsApp draws the QR code neonize offers while the linked device is
not linked, read back from the screen by a real decoder (ZBar), light and dark; the scan
replaces it with "Linked". A real runtime runs the channel with neonize's real event types and
a fake at its client boundary (:mod:`tests.channels.whatsapp.neonize_fake`)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.core.assembly import build_runtime
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.litellm_provider import import_litellm
from desktop.core.runtime import Runtime
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.channels_page import ChannelsPage
from desktop.ui.theme import Theme
from tests.channels.whatsapp.neonize_fake import FakeWhatsApp, install
from tests.conftest import REPO, write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.qr_decode import decode, zbarimg
from tests.ui.conftest import run_async
from tests.ui.settings.pages import page_of

SCREENS = Path(os.environ.get("NANOBOT_TEST_SCREENS", REPO / "test-output" / "screens"))


@pytest.fixture
def linked(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    scripted_server: ScriptedOpenAIServer,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[Runtime, AppServices, FakeWhatsApp]]:
    import_litellm()
    world = FakeWhatsApp(linked=False)
    install(monkeypatch, world)
    data = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}},
        "channels": {"whatsapp": {"enabled": True, "allowFrom": ["*"]}},
    }
    config_path = write_config(tmp_path / "nanobot" / "config.json", data)
    config = load_config(config_path)
    services = AppServices(config, config_path, SecretStore("nanobot-desktop-gui-whatsapp-l"))
    runtime = build_runtime(config, make_provider(scripted_server.url))
    run_async(qtbot, qloop, runtime.start(), timeout_ms=30_000)
    services.set_runtime(runtime)
    yield runtime, services, world
    run_async(qtbot, qloop, runtime.stop(), timeout_ms=30_000)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_form_draws_neonizes_qr_code_and_says_linked_after_the_scan(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    qapp: QApplication,
    linked: tuple[Runtime, AppServices, FakeWhatsApp],
    scheme: str,
) -> None:
    zbarimg()
    runtime, services, world = linked
    palette, sheet = qapp.palette(), qapp.styleSheet()
    theme = Theme(qapp, scheme)
    tab = SettingsTab(services)
    SCREENS.mkdir(parents=True, exist_ok=True)
    try:
        qtbot.addWidget(tab)
        tab.resize(1100, 900)
        tab.show()
        tab.show_section("channels/whatsapp")
        form = page_of(tab, "channels", ChannelsPage).form("whatsapp")
        qtbot.waitUntil(form.login.code.isVisible, timeout=30_000)
        assert form.login.code.text() == "2@first-code,abc,def"
        shot = SCREENS / f"settings-whatsapp-linked-device-qr-{scheme}.png"
        tab.grab().save(str(shot))
        assert decode(shot) == ["2@first-code,abc,def"]
        run_async(qtbot, qloop, world.client.scan())
        qtbot.waitUntil(lambda: form.login.state == "linked", timeout=30_000)
        assert form.status.text().startswith("Connected")
        assert runtime.channels.status("whatsapp").login_code == ""
        tab.grab().save(str(SCREENS / f"settings-whatsapp-linked-device-linked-{scheme}.png"))
    finally:
        run_async(qtbot, qloop, tab.aclose())
        theme.setParent(None)
        qapp.setStyleSheet(sheet)
        qapp.setPalette(palette)
