"""Settings → Tools & safety: the sandbox status line, the network switch, what commands
see (home folder, extra folders) and their limits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktop.core.config.prefs_peek import prefs_path
from desktop.core.security import sandbox as sb
from desktop.core.security.sandbox import SandboxStatus, reset_sandbox_status
from desktop.ui.settings import SettingsTab
from desktop.ui.settings.tools_page import ToolsPage
from tests.ui.conftest import run_async
from tests.ui.settings.conftest import on_disk
from tests.ui.settings.pages import page_of

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
    page = page_of(tab, "tools", ToolsPage)
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
    page = page_of(tab, "tools", ToolsPage)
    qtbot.waitUntil(lambda: "unavailable" in page.sandbox_status.text())
    assert page.sandbox_status.text() == f"Sandbox: unavailable — {MISSING}"
    assert not page.sandbox_network.isEnabled()


# --- what commands see, and their limits (desktop.json) ------------------------------------


def _loaded(qtbot: QtBot, tab: SettingsTab) -> Any:
    tab.show_section("tools")
    page = page_of(tab, "tools", ToolsPage)
    qtbot.waitUntil(lambda: "bubblewrap" in page.sandbox_status.text())
    qtbot.waitUntil(lambda: page.sandbox_box.limits["processes"].value() == 256)
    return page


def test_home_folder_switch_folders_and_limits_saved_to_desktop_json(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    tmp_path: Path,
    status: Callable[[SandboxStatus], None],
) -> None:
    """Off by default; the switch, a folder picked in the real (non-modal) folder dialog
    made writable, and a limit are saved in desktop.json, never in config.json, and read
    back as the sandbox will read them for the next command."""
    status(SandboxStatus(True, executable="/usr/bin/bwrap", socket_filter=True))
    tab = make_tab()
    page = _loaded(qtbot, tab)
    box = page.sandbox_box
    assert box.isEnabled() and not box.home_visible.isChecked() and box.folder_rows() == []
    assert {name: spin.value() for name, spin in box.limits.items()} == {
        "processes": 256,
        "memory_mb": 2048,
        "file_size_mb": 1024,
        "tmp_size_mb": 512,
        "cpu_seconds": 600,
    }
    box.home_visible.setChecked(True)
    assert page.dirty
    projects = tmp_path / "projects"
    projects.mkdir()
    box.add_button.click()
    dialog = box._dialog
    assert dialog is not None and dialog.isVisible()
    with qtbot.waitSignal(dialog.fileSelected):
        dialog.fileSelected.emit(str(projects))  # what choosing the folder there sends
        dialog.close()
    assert box.folder_rows() == [(str(projects), False)]
    access = box.folders.cellWidget(0, 1)
    access.setCurrentIndex(1)  # Read and write
    box.limits["processes"].setValue(128)
    assert run_async(qtbot, qloop, page.save())
    saved = on_disk(config_path.parent / "desktop.json")["sandbox"]
    assert saved["homeVisible"] is True
    assert saved["folders"] == [{"path": str(projects), "writable": True}]
    assert saved["limits"]["processes"] == 128
    assert "sandbox" not in on_disk(config_path)
    from desktop.core.config.sandbox_settings import read_sandbox_prefs

    prefs = read_sandbox_prefs(config_path.parent / "desktop.json")
    assert prefs.home_visible and prefs.folders[0].writable and prefs.limits.processes == 128

    box.folders.selectRow(0)
    box.remove_button.click()
    assert box.folder_rows() == [] and page.dirty


def test_a_folder_that_is_not_a_full_path_is_refused(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    config_path: Path,
    status: Callable[[SandboxStatus], None],
) -> None:
    status(SandboxStatus(True, executable="/usr/bin/bwrap", socket_filter=True))
    page = _loaded(qtbot, make_tab())
    page.sandbox_box.add_folder("projects/site")
    assert not run_async(qtbot, qloop, page.save())
    assert "not a full path" in page.status.text() and "Nothing was saved" in page.status.text()
    assert not (config_path.parent / "desktop.json").exists()


def test_without_a_sandbox_the_settings_are_shown_but_greyed_out(
    make_tab: Callable[[], SettingsTab],
    qtbot: QtBot,
    status: Callable[[SandboxStatus], None],
) -> None:
    status(SandboxStatus(False, MISSING))
    tab = make_tab()
    tab.show_section("tools")
    page = page_of(tab, "tools", ToolsPage)
    qtbot.waitUntil(lambda: "unavailable" in page.sandbox_status.text())
    assert not page.sandbox_box.isEnabled()
