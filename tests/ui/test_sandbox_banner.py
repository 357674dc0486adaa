"""The one-time warning when commands run without the sandbox (:class:`DesktopApp`).

The running application with the real tabs on the scripted server. The sandbox detection is
the real one: "unavailable" is a run whose ``PATH`` holds no ``bwrap`` (the probe then says it
is not installed and how to install it); "available" is this machine's bubblewrap.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from desktop.app import build_main_window, install_tabs
from desktop.core.security.sandbox import cached_sandbox_status, reset_sandbox_status
from desktop.ui.banner import Banner
from desktop.ui.main_window import MainWindow
from desktop.ui.shell import DesktopApp
from desktop.ui.single_instance import SingleInstance
from desktop.ui.theme import Theme
from tests.conftest import custom_config
from tests.core.tools.sandbox_support import require_sandbox
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.typed import present
from tests.ui.conftest import run_async

pytestmark = [
    pytest.mark.usefixtures("qloop"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux-only"),
]

WARNING = "Commands run without the sandbox"


@pytest.fixture
def fresh_detection() -> Iterator[None]:
    """The sandbox is detected anew in this test; the earlier result is put back after."""
    saved = cached_sandbox_status()
    reset_sandbox_status(None)
    yield
    reset_sandbox_status(saved)


@pytest.fixture
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_detection: None) -> None:
    """A machine without bubblewrap: nothing on ``PATH``."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as running:
        yield running


@pytest.fixture
def app_state(qapp: QApplication, qloop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """What a running app changes in the process (look, hooks, log handlers) is put back."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    hooks = sys.excepthook, threading.excepthook
    yield
    qloop.set_exception_handler(None)
    sys.excepthook, threading.excepthook = hooks
    for handler in list(logging.getLogger().handlers):
        if getattr(handler, "_nanobot_desktop", False):
            logging.getLogger().removeHandler(handler)
            handler.close()
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)


class Run:
    """One run of the application on ``config`` (start, wait for the agent, shut down)."""

    def __init__(
        self, qapp: QApplication, qtbot: QtBot, qloop: asyncio.AbstractEventLoop, config: Path
    ) -> None:
        self.qtbot, self.qloop = qtbot, qloop
        self.stopped = False
        # Not handed to qtbot: pytest-qt would delete the window before the fixture below
        # shuts the run down (which still needs it).
        self.window: MainWindow = build_main_window()
        self.window.show()
        self.theme = Theme(qapp, "light")
        self.instance = SingleInstance(config.parent)
        assert self.instance.acquire()
        self.app = DesktopApp(
            qapp,
            self.window,
            self.theme,
            self.instance,
            prefs_file=config.parent / "desktop.json",
            config_path=config,
            install_tabs=install_tabs,
        )
        run_async(qtbot, qloop, self.app.start())
        assert self.app.starter is not None
        qtbot.waitUntil(lambda: present(self.app.starter).runtime is not None, timeout=30_000)
        self.checked()

    def checked(self) -> None:
        """Wait until the sandbox check started by the agent's start has run."""
        self.qtbot.waitUntil(
            lambda: not [t for t in self.app.tasks.tasks if t.get_name() == "app:sandbox-check"],
            timeout=20_000,
        )

    def warnings(self) -> list[Banner]:
        """The sandbox warnings on screen."""
        return [
            banner
            for banner in self.window.findChildren(Banner)
            if banner.isVisible() and banner.text().startswith(WARNING)
        ]

    def restart_agent(self) -> None:
        """Reconnect the agent, as "Apply now" after a settings change does."""
        starter = self.app.starter
        assert starter is not None
        with self.qtbot.waitSignal(starter.agentReady, timeout=30_000):
            starter.retry()
        self.checked()

    def stop(self) -> None:
        self.stopped = True
        run_async(self.qtbot, self.qloop, self.app.shutdown(), timeout_ms=30_000)
        self.instance.release()
        self.theme.setParent(None)


@pytest.fixture
def runs(
    qapp: QApplication,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    app_state: None,
    memory_keyring: object,
) -> Iterator[list[Run]]:
    """Start runs with ``runs.append(Run(...))``; whatever still runs is shut down after.

    Whether a run was shut down is the run's own record (``quit_requested`` only says quitting
    was asked for: closing the window asks too, without anything having been stopped yet).
    """
    started: list[Run] = []
    yield started
    for run in started:
        if not run.stopped:
            run.app.request_quit()
            run.stop()
        run.window.deleteLater()


def _start(runs: list[Run], qtbot: QtBot, qloop: asyncio.AbstractEventLoop, config: Path) -> Run:
    run = Run(QApplication.instance(), qtbot, qloop, config)  # type: ignore[arg-type]
    runs.append(run)
    return run


def test_without_bubblewrap_one_warning_per_run_says_why_and_what_to_install(
    tmp_path: Path,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    server: ScriptedOpenAIServer,
    no_bwrap: None,
    runs: list[Run],
) -> None:
    """One banner: the reason, the package to install, where the setting lives; its button
    opens Settings → Tools & safety. Dismissed, it stays away when the agent reconnects (a
    settings change applied); the next run of the app warns again, once."""
    config = custom_config(tmp_path, server.url)
    run = _start(runs, qtbot, qloop, config)
    [banner] = run.warnings()
    assert run.window.banner("sandbox") is banner
    text = banner.text()
    assert "bubblewrap (bwrap) is not installed" in text
    assert "sudo apt install bubblewrap" in text and "then restart nanobot Desktop" in text
    assert "only the safety rules (and your approvals) protect your files" in text
    assert banner.property("severity") == "info"
    [tools] = banner.buttons
    [dismiss] = [b for b in banner.findChildren(QPushButton) if b.text() == "Dismiss"]
    assert tools.text() == "Tools && safety"  # shows "Tools & safety" (no mnemonic)
    assert tools.accessibleName() == "Tools & safety"
    tools.click()
    assert run.window.current_tab_key() == "settings"
    assert run.window.tab("settings").current_section() == "tools"  # type: ignore[attr-defined]
    run.restart_agent()  # not dismissed yet: the same banner stays, not a new one
    assert run.window.banner("sandbox") is banner and run.warnings() == [banner]
    dismiss.click()
    qtbot.waitUntil(lambda: run.window.banner("sandbox") is None)
    run.restart_agent()
    run.restart_agent()
    assert run.window.banner("sandbox") is None and run.warnings() == []
    run.app.request_quit()
    run.stop()

    again = _start(runs, qtbot, qloop, config)  # a new run: still no sandbox, so say it once
    assert len(again.warnings()) == 1


def test_with_the_sandbox_turned_off_there_is_no_warning(
    tmp_path: Path,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    server: ScriptedOpenAIServer,
    no_bwrap: None,
    runs: list[Run],
) -> None:
    """``tools.exec.sandbox: "none"`` is the person's choice (Settings says so): no banner at
    start, and a warning still shown goes away when the sandbox is turned off and the agent
    reconnects."""
    config = custom_config(tmp_path, server.url)
    data = json.loads(config.read_text())
    data["tools"] = {"exec": {"sandbox": "none"}}
    config.write_text(json.dumps(data))
    run = _start(runs, qtbot, qloop, config)
    assert run.window.banner("sandbox") is None and run.warnings() == []
    services = present(run.app.starter).services
    assert services is not None
    services.config.tools.exec.sandbox = "auto"
    run.restart_agent()
    assert len(run.warnings()) == 1
    services.config.tools.exec.sandbox = "none"
    run.restart_agent()
    qtbot.waitUntil(lambda: run.warnings() == [])
    assert run.window.banner("sandbox") is None


def test_with_bubblewrap_working_there_is_no_warning(
    tmp_path: Path,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    server: ScriptedOpenAIServer,
    fresh_detection: None,
    runs: list[Run],
) -> None:
    """This machine's bubblewrap (the real probe): no banner, before or after a reconnect."""
    require_sandbox()
    run = _start(runs, qtbot, qloop, custom_config(tmp_path, server.url))
    assert run.window.banner("sandbox") is None and run.warnings() == []
    run.restart_agent()
    assert run.window.banner("sandbox") is None


def test_a_required_sandbox_that_is_missing_says_commands_are_refused(
    tmp_path: Path,
    qtbot: QtBot,
    qloop: asyncio.AbstractEventLoop,
    server: ScriptedOpenAIServer,
    no_bwrap: None,
    runs: list[Run],
) -> None:
    """``tools.exec.sandbox: "bwrap"`` without bubblewrap: commands do not run unsandboxed,
    they are refused — the banner says that (and how to install), not "run without"."""
    config = custom_config(tmp_path, server.url)
    data = json.loads(config.read_text())
    data["tools"] = {"exec": {"sandbox": "bwrap"}}
    config.write_text(json.dumps(data))
    run = _start(runs, qtbot, qloop, config)
    banner = run.window.banner("sandbox")
    assert banner is not None and run.warnings() == []
    assert banner.text().startswith("Commands are refused: tools.exec.sandbox requires the sandbox")
    assert "apt install bubblewrap" in banner.text()
