"""A chat channel's delivery failure in the window's banner: the reason the real channel
manager gives is shown in the window's language (English as before)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window
from desktop.core.bus.events import DeliveryFailed, OutboundMessage, RunEvent
from desktop.core.bus.queue import MessageBus
from desktop.core.channels.manager import ChannelManager
from desktop.core.utils.tasks import TaskOwner
from desktop.ui.i18n import install_language
from desktop.ui.shell import DesktopApp
from desktop.ui.single_instance import SingleInstance
from desktop.ui.theme import Theme
from tests.conftest import write_config
from tests.ui.conftest import run_async
from tests.ui.i18n.pseudo import _english, pseudo_locale

pytestmark = pytest.mark.usefixtures("qloop", "memory_keyring")


async def _not_running(state_dir: Path) -> DeliveryFailed:
    """Ask the real manager to deliver to a channel that is not running; what it reports."""
    bus = MessageBus()
    failures: list[DeliveryFailed] = []

    def listen(event: RunEvent) -> None:
        if isinstance(event, DeliveryFailed):
            failures.append(event)

    bus.subscribe(listen)
    owner = TaskOwner("r2chan-delivery")
    manager = ChannelManager(bus, owner, state_dir=state_dir)
    try:
        assert not await manager.deliver(OutboundMessage("telegram", "42", "Hello there"))
    finally:
        await owner.aclose()
    assert len(failures) == 1
    return failures[0]


def _banner_text(window: object) -> str:
    banner = window.banner("delivery")  # type: ignore[attr-defined]
    assert banner is not None
    return " ".join(label.text() for label in banner.findChildren(QLabel) if label.text())


def test_a_delivery_failure_is_shown_in_the_window_language(
    qtbot: QtBot, qapp: QApplication, qloop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    failed = run_async(qtbot, qloop, _not_running(tmp_path / "state"))
    assert failed.reason == "the telegram channel is not running"  # the English as before
    path = write_config(tmp_path / "nanobot" / "config.json", {})
    window = build_main_window()
    qtbot.addWidget(window)
    app = DesktopApp(
        qapp, window, Theme(qapp, "light"), SingleInstance(path.parent), prefs_file=path
    )
    with pseudo_locale():
        app._on_delivery_failed(failed)
        shown = _banner_text(window)
        assert "⟦the {channel} channel is not running⟧".replace("{channel}", "telegram") in shown
        assert _english(shown, frozenset(["telegram", "Hello there"])) == "", shown
    try:
        install_language("zh_CN")
        app._on_delivery_failed(failed)
        shown = _banner_text(window)
        assert "telegram 渠道未在运行" in shown, shown
        assert "not running" not in shown
    finally:
        install_language("en")
