"""Settings → Tools & safety: the sandbox status line and the network switch."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.prefs_peek import prefs_path
from desktop.core.security import sandbox as sb
from desktop.core.security.sandbox import SandboxStatus, reset_sandbox_status
from desktop.ui.settings import SettingsTab
from tests.ui.conftest import run_async
from tests.ui.settings.conftest import on_disk

MISSING = "bubblewrap (bwrap) is not installed; install it (sudo apt install bubblewrap)"


@pytest.fixture
def status() -> Iterator[Callable[[SandboxStatus], None]]:
    """Set the detection result the page shows; the real one is restored afterwards."""
    saved = sb.cached_sandbox_status()
    yield reset_sandbox_status
    reset_sandbox_status(saved)


def test_active_sandbox_and_network_switch_saved(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    status: Callable[[SandboxStatus], None],
) -> None:
    status(SandboxStatus(True, executable="/usr/bin/bwrap", socket_filter=True))
    tab = make_tab()
    tab.show_section("tools")
    page = tab.page("tools")
    qtbot.waitUntil(lambda: page.sandbox_status.text() == "Sandbox: bubblewrap, active")
    assert page.sandbox_network.isEnabled() and page.sandbox_network.isChecked()
    page.sandbox_network.setChecked(False)
    assert page.dirty
    assert run_async(qtbot, qloop, page.save())
    exec_section = on_disk(config_path)["tools"]["exec"]
    assert "sandboxNetwork" not in exec_section  # nanobot would drop it: desktop.json keeps it
    assert on_disk(prefs_path(config_path))["configExtras"]["tools"]["exec"] == {
        "sandboxNetwork": False
    }
    assert exec_section["futureFlag"] is True  # unknown keys survive


def test_unavailable_sandbox_says_why_and_how(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    status: Callable[[SandboxStatus], None],
) -> None:
    status(SandboxStatus(False, MISSING))
    tab = make_tab()
    tab.show_section("tools")
    page = tab.page("tools")
    qtbot.waitUntil(lambda: "unavailable" in page.sandbox_status.text())
    assert page.sandbox_status.text() == f"Sandbox: unavailable — {MISSING}"
    assert not page.sandbox_network.isEnabled()
