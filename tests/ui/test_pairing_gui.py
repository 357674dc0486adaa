"""DM pairing in the window: a ``PairingRequested`` from the bus becomes a banner whose
Approve button writes the approval to ``pairing.json``; Settings › Channels lists pending
requests (Approve / Deny) and approved senders (Revoke). Screenshots in light and dark go to
``test-output/screens`` (and ``/tmp/shots/h24-pairing`` when it exists)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from desktop.core.bus.events import PairingRequested
from desktop.core.channels.pairing import PairingStore
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.ui.main_window import MainWindow
from desktop.ui.notifications import Notifier
from desktop.ui.pairing_prompts import banner_key
from desktop.ui.services import AppServices
from desktop.ui.settings import SettingsTab
from desktop.ui.shell import DesktopApp
from desktop.ui.single_instance import SingleInstance
from desktop.ui.theme import Theme
from tests.conftest import REPO, write_config
from tests.fakes.memory_keyring import MemoryKeyring
from tests.ui.conftest import run_async

pytestmark = pytest.mark.usefixtures("qloop")
SCREENS = REPO / "test-output" / "screens"
EXTRA = Path("/tmp/shots/h24-pairing")


def _save(widget: MainWindow | SettingsTab, name: str) -> None:
    """Save a screenshot of ``widget`` as ``name``."""
    for folder in (SCREENS, *([EXTRA] if EXTRA.is_dir() else [])):
        folder.mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(folder / name))


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    win = build_main_window()
    qtbot.addWidget(win)
    win.resize(1000, 640)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.allow_close()
    win.close()


def _button(widget: QWidget, name: str) -> QPushButton:
    found = [b for b in widget.findChildren(QPushButton) if b.accessibleName().startswith(name)]
    assert len(found) == 1, [b.accessibleName() for b in widget.findChildren(QPushButton)]
    return found[0]


def test_approve_in_the_banner_and_answer_in_settings(
    qtbot: QtBot,
    qapp: QApplication,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    window: MainWindow,
    memory_keyring: MemoryKeyring,
) -> None:
    config_path = write_config(
        tmp_path / "nanobot" / "config.json",
        {"agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}}},
    )
    store = PairingStore(config_path.parent)
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
    secrets = SecretStore("nanobot-desktop-gui-pairing")
    services = AppServices(load_config(config_path), config_path, secrets)
    app._on_config_loaded(services)
    tab: SettingsTab | None = None
    try:
        request, _ = store.request("telegram", "4249|zoe")
        services.bridge.deliver(
            PairingRequested("telegram", request.sender, request.code, request.expires_at)
        )
        banner = window.banner(banner_key(request.code))
        assert banner is not None and banner.isVisible()
        assert "zoe (4249)" in banner.text() and request.code in banner.text()
        assert [b.text() for b in banner.buttons] == ["Approve", "Deny"]
        _save(window, "pairing-banner-light.png")
        theme.set_appearance("dark")
        qtbot.waitUntil(theme.is_dark, timeout=2000)
        _save(window, "pairing-banner-dark.png")
        theme.set_appearance("light")
        banner.buttons[0].click()
        qtbot.waitUntil(lambda: store.approved() == {"telegram": ["4249|zoe"]}, timeout=10_000)
        qtbot.waitUntil(lambda: window.banner(banner_key(request.code)) is None, timeout=10_000)

        # Settings › Channels: a new request answered there, the approval revoked there.
        second, _ = store.request("slack", "U0ADA")
        store.request("discord", "77|bob")
        tab = SettingsTab(services)
        qtbot.addWidget(tab)
        tab.resize(1100, 900)
        tab.show()
        tab.show_section("channels/telegram")
        pairing = tab.page("channels").pairing  # type: ignore[attr-defined]
        qtbot.waitUntil(lambda: second.code in pairing.shown.pending, timeout=10_000)
        for scheme in ("light", "dark"):
            theme.set_appearance(scheme)

            def applied(s: str = scheme) -> bool:
                return theme.is_dark() == (s == "dark")

            qtbot.waitUntil(applied, timeout=2000)
            qtbot.wait(50)
            pairing.grab().save(str(SCREENS / f"pairing-settings-{scheme}.png"))
            _save(tab, f"pairing-settings-page-{scheme}.png")
            if EXTRA.is_dir():
                pairing.grab().save(str(EXTRA / f"pairing-settings-{scheme}.png"))
        theme.set_appearance("light")
        _button(pairing, "Approve Slack").click()
        qtbot.waitUntil(lambda: "slack" in store.approved(), timeout=10_000)
        _button(pairing, "Deny Discord").click()
        qtbot.waitUntil(lambda: store.pending() == [], timeout=10_000)
        qtbot.waitUntil(lambda: not pairing.shown.pending, timeout=10_000)
        _button(pairing, "Revoke Telegram").click()
        qtbot.waitUntil(lambda: store.approved() == {"slack": ["U0ADA"]}, timeout=10_000)
    finally:
        if tab is not None:
            run_async(qtbot, qloop, tab.aclose())
        run_async(qtbot, qloop, services.aclose_tabs())
        run_async(qtbot, qloop, app.notifier.aclose())
        theme.setParent(None)


def test_approve_from_the_tray_menu(
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    tmp_path: Path,
    window: MainWindow,
    memory_keyring: MemoryKeyring,
) -> None:
    """A request is offered in the tray menu (Approve / Deny); choosing Approve writes it and
    takes the entries away."""
    from desktop.ui.pairing_prompts import PairingPrompts
    from desktop.ui.tray import Tray

    config_path = write_config(
        tmp_path / "nanobot" / "config.json",
        {"agents": {"defaults": {"workspace": str(tmp_path / "ws"), "timezone": "UTC"}}},
    )
    store = PairingStore(config_path.parent)
    services = AppServices(
        load_config(config_path), config_path, SecretStore("nanobot-desktop-gui-pairing")
    )
    tray = Tray()
    prompts = PairingPrompts(services, window, tray=tray)
    try:
        request, _ = store.request("discord", "77|bob")
        services.bridge.deliver(
            PairingRequested("discord", request.sender, request.code, request.expires_at)
        )
        approve = f"Approve bob (77) ({request.code})"
        assert approve in tray.action_texts() and f"Deny bob (77) ({request.code})" in (
            tray.action_texts()
        )
        tray.action(approve).trigger()
        qtbot.waitUntil(lambda: store.approved() == {"discord": ["77|bob"]}, timeout=10_000)
        qtbot.waitUntil(lambda: approve not in tray.action_texts(), timeout=10_000)
        assert window.banner(banner_key(request.code)) is None
    finally:
        run_async(qtbot, qloop, prompts.aclose())
        tray.close()
