"""The running application: what starts after the first paint, and the order of shutdown.

:class:`DesktopApp` is created by :func:`desktop.app.run_app` once the window has painted. It
loads the validated preferences, sets up the log, error reporting, the single-instance
server, the tray and notifications, starts the background loading of the agent
(:mod:`desktop.ui.startup`) and, on quit, stops everything in order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.core.utils.tasks import TaskOwner
from desktop.core.utils.threads import run_daemon
from desktop.ui.error_dialog import ExceptionReporter, install_exception_hooks
from desktop.ui.i18n import localized, tr
from desktop.ui.main_window import MainWindow
from desktop.ui.notifications import Notifier
from desktop.ui.startup import AgentStarter
from desktop.ui.tray import Tray

if TYPE_CHECKING:
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from desktop.core.bus.events import DeliveryFailed
    from desktop.core.config.prefs import PrefsStore
    from desktop.ui.services import AppServices
    from desktop.ui.single_instance import SingleInstance
    from desktop.ui.theme import Theme

log = logging.getLogger(__name__)
SHUTDOWN_TIMEOUT_S = 10.0
TabInstaller = Callable[[MainWindow, "AppServices"], None]


def sandbox_banner_text(refused: bool, reason: str) -> str:
    """The banner of a missing sandbox: commands run without it (``refused`` ``False``, the
    ``auto`` mode) or are refused (a required sandbox); ``reason`` says why it is missing."""
    if refused:
        text = tr("Commands are refused: tools.exec.sandbox requires the sandbox, but {reason}.")
    else:
        text = tr(
            "Commands run without the sandbox: {reason}. Until then, only the safety rules "
            "(and your approvals) protect your files."
        )
    return text.format(reason=localized(reason))


class DesktopApp:
    """Owns the running application's parts and their order of start and shutdown.

    Args:
        app: The application.
        window: The main window (already shown).
        theme: The palette manager.
        instance: The single-instance lock (already acquired).
        prefs_file: ``desktop.json``.
        config_path: ``--config`` or ``None``.
        workspace: ``--workspace`` or ``None``.
        install_tabs: Plugs the real tabs in once the config is loaded.
        on_ready: Called each time the agent is ready (the benches' report).
    """

    def __init__(
        self,
        app: QApplication,
        window: MainWindow,
        theme: Theme,
        instance: SingleInstance,
        *,
        prefs_file: Path,
        config_path: Path | None = None,
        workspace: Path | None = None,
        install_tabs: TabInstaller | None = None,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        self.app = app
        self.window = window
        self.theme = theme
        self.instance = instance
        self.prefs_file = prefs_file
        self.config_path = config_path
        self.workspace = workspace
        self.install_tabs = install_tabs
        self.on_ready = on_ready
        self.prefs: PrefsStore | None = None
        self.tray: Tray | None = None
        self.notifier: Notifier | None = None
        self.starter: AgentStarter | None = None
        self.reporter: ExceptionReporter | None = None
        self.exit_code = 0
        self._quit_requested = False
        self._quit_event: asyncio.Event | None = None
        self._sandbox_warned = False
        self.tasks = TaskOwner("app")
        window.quitRequested.connect(self.request_quit)

    # -- quitting ---------------------------------------------------------------------------
    def request_quit(self) -> None:
        """Quit soon: Ctrl+Q, tray Quit, Ctrl-C, SIGTERM, or closing without a tray."""
        self._quit_requested = True
        if self._quit_event is not None:
            self._quit_event.set()

    @property
    def quit_requested(self) -> bool:
        """Whether quitting has been asked for."""
        return self._quit_requested

    # -- running ----------------------------------------------------------------------------
    async def main(self) -> int:
        """Start the services, run until asked to quit, then shut down; the exit code."""
        self._quit_event = asyncio.Event()
        if self._quit_requested:
            self._quit_event.set()
        else:
            await self.start()
        await self._quit_event.wait()
        await self.shutdown()
        return self.exit_code

    async def start(self) -> None:
        """Everything after the first paint (returns once the background loading began)."""
        from desktop.core.config.paths import default_config_path, log_dir
        from desktop.core.utils.logs import setup_logging

        log_path = await asyncio.to_thread(  # creates the folder and opens the file
            setup_logging, log_dir(self.config_path or default_config_path())
        )
        self.reporter = ExceptionReporter(log_path, lambda: self.window)
        install_exception_hooks(self.reporter, asyncio.get_running_loop())
        self.app.setWindowIcon(self._icon())
        self.prefs = await run_daemon(self._load_prefs, "load-prefs")  # pydantic loads off the GUI
        prefs, window = self.prefs, self.window
        self.theme.set_appearance(prefs.prefs.appearance)
        self.instance.activateRequested.connect(self._activate)
        self.instance.listen()

        if Tray.available():
            self.tray = Tray()
            self.tray.set_paused(prefs.prefs.reminders_paused)
            self.tray.showRequested.connect(window.bring_to_front)

            def new_chat() -> None:
                window.bring_to_front()
                window.request_new_chat()

            self.tray.newChatRequested.connect(new_chat)
            self.tray.pauseToggled.connect(self._set_paused)
            self.tray.quitRequested.connect(self.request_quit)
            self.tray.show()
        log.info("system tray %s", "available: icon shown" if self.tray else "not available")
        window.hide_on_close = self.tray is not None and prefs.prefs.close_to_tray
        self.notifier = Notifier(
            is_paused=lambda: prefs.prefs.reminders_paused, tray=self.tray, window=window
        )
        self.notifier.openSessionRequested.connect(window.open_session)
        self.notifier.delivered.connect(
            lambda how, request: log.info("reminder shown via %s: %s", how, request.summary)
        )
        prefs.subscribe(self._on_prefs_changed)
        if prefs.warning:
            window.show_banner("prefs", localized(prefs.warning), severity="error")

        self.starter = AgentStarter(
            self.config_path, self.workspace, prefs=self.prefs, tray=self.tray
        )
        self.starter.status.connect(window.set_status)
        self.starter.configLoaded.connect(self._on_config_loaded)
        self.starter.configFailed.connect(self._on_config_failed)
        self.starter.agentReady.connect(self._on_agent_ready)
        self.starter.agentFailed.connect(self._on_agent_failed)
        self.starter.start()

    def _load_prefs(self) -> PrefsStore:
        from desktop.core.config.prefs import PrefsStore

        return PrefsStore(self.prefs_file)

    @staticmethod
    def _icon() -> QIcon:
        from desktop.ui.theme import app_icon

        return app_icon()

    def _activate(self) -> None:
        log.info("another launch asked for the window")
        self.window.bring_to_front()

    # -- start-up results -------------------------------------------------------------------
    def _on_config_loaded(self, services: AppServices) -> None:
        assert self.notifier is not None
        services.bridge.reminderDue.connect(self.notifier.on_reminder)
        self.notifier.answered.connect(services.answer_reminder)
        services.bridge.deliveryFailed.connect(self._on_delivery_failed)
        from desktop.ui.budget_prompts import BudgetPrompts

        prompts = BudgetPrompts(
            services,
            self.window,
            notifications=self.notifier.service,
            tray=self.tray,
            parent=services,
        )
        services.closables.append(prompts)
        from desktop.ui.pairing_prompts import PairingPrompts

        pairing = PairingPrompts(
            services,
            self.window,
            notifications=self.notifier.service,
            tray=self.tray,
            parent=services,
        )
        services.closables.append(pairing)
        if self.tray is not None:
            self.tray.attach(services.bridge)
        self.window.remove_banner("config")
        if self.install_tabs is not None:
            self.install_tabs(self.window, services)

    def _on_delivery_failed(self, event: DeliveryFailed) -> None:
        """An answer could not reach a chat (after retries): the person must know."""
        log.warning("delivery to %s:%s failed: %s", event.channel, event.chat_id, event.reason)
        fields = {
            "channel": event.channel,
            "chat": event.chat_id,
            "preview": event.preview,
            "reason": localized(event.reason),
        }
        text = (
            tr(
                "A message for {channel} chat {chat} could not be delivered (“{preview}”): {reason}."
            )
            if event.preview
            else tr("A message for {channel} chat {chat} could not be delivered: {reason}.")
        )
        self.window.show_banner(
            "delivery",
            text.format(**fields),
            severity="error",
            actions=[(tr("Channel settings"), lambda: self.window.show_tab("settings"))],
        )

    def _on_config_failed(self, message: str) -> None:
        assert self.starter is not None
        log.warning("settings not loaded: %s", message)
        self.window.show_banner(
            "config",
            message,
            severity="error",
            actions=[
                (tr("Retry"), self.starter.retry),
                (tr("Open folder"), self._open_config_folder),
            ],
        )

    def _on_agent_ready(self) -> None:
        assert self.starter is not None
        self.window.remove_banner("agent")
        services = self.starter.services
        if self.tray is not None and services is not None:
            self.tray.set_cron(services.cron)
        self.tasks.try_spawn(self._warn_without_sandbox(), name="sandbox-check")
        if self.on_ready is not None:
            self.on_ready()

    async def _warn_without_sandbox(self) -> None:
        """Once per run: say so when commands cannot be contained (no bubblewrap here).

        The agent starts again after a settings change ("Apply now") or a retry; a warning
        already shown (and perhaps dismissed) in this run is not shown again. Turning the
        sandbox off in the settings takes a warning still shown away.
        """
        from desktop.core.security.sandbox import probe_sandbox, sandbox_mode, unsandboxed_warning

        services = self.starter.services if self.starter is not None else None
        if services is None:
            return
        mode = sandbox_mode(services.config.tools.exec.sandbox)
        status = await probe_sandbox()
        if status.available or mode == "off":
            self.window.remove_banner("sandbox")
            return
        if self._sandbox_warned:
            return
        self._sandbox_warned = True
        refused = unsandboxed_warning(status, mode) is None  # a required sandbox is missing
        self.window.show_banner(
            "sandbox",
            sandbox_banner_text(refused, status.reason),
            severity="info",
            actions=[(tr("Tools & safety"), self._open_tools_settings)],
        )

    def _open_tools_settings(self) -> None:
        """Settings → Tools & safety (the Settings tab when the real tabs are not in yet)."""
        self.window.show_settings("tools")

    def _on_agent_failed(self, message: str) -> None:
        assert self.starter is not None
        log.warning("agent not started: %s", message)
        self.window.show_banner(
            "agent",
            message,
            severity="error",
            actions=[
                (tr("Open Settings"), lambda: self.window.show_tab("settings")),
                (tr("Retry"), self.starter.retry),
            ],
        )

    def _open_config_folder(self) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        from desktop.core.config.paths import default_config_path

        folder = (self.config_path or default_config_path()).expanduser().parent
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    # -- preferences ------------------------------------------------------------------------
    def _set_paused(self, paused: bool) -> None:
        assert self.prefs is not None
        self.prefs.update(reminders_paused=paused)
        self.tasks.try_spawn(self.prefs.asave(), name="save-prefs")

    def _on_prefs_changed(self, changed: set[str]) -> None:
        assert self.prefs is not None
        prefs = self.prefs.prefs
        if "appearance" in changed:
            self.theme.set_appearance(prefs.appearance)
        if "close_to_tray" in changed:
            self.window.hide_on_close = self.tray is not None and prefs.close_to_tray
        if "reminders_paused" in changed and self.tray is not None:
            self.tray.set_paused(prefs.reminders_paused)

    # -- shutdown ---------------------------------------------------------------------------
    async def shutdown(self) -> None:
        """Tabs first, then turns, MCP children and the scheduler; save preferences; close."""
        self.window.allow_close()
        try:
            self.window.shuttingDown.emit()
        except Exception:
            log.exception("a tab failed to shut down")
        try:
            async with asyncio.timeout(SHUTDOWN_TIMEOUT_S):
                await self._stop_parts()
        except TimeoutError:
            log.warning("shutdown took longer than %s s; quitting anyway", SHUTDOWN_TIMEOUT_S)
        if self.tray is not None:
            self.tray.close()
        self.window.close()
        self.instance.release()

    async def _stop_parts(self) -> None:
        services = self.starter.services if self.starter is not None else None
        if services is not None:
            await services.aclose_tabs()
        if self.starter is not None:
            await self.starter.stop()
        if self.notifier is not None:
            await self.notifier.aclose()
        await self.tasks.aclose()
        if self.prefs is not None:
            try:
                self.prefs.update(window_geometry=self.window.geometry_text())
                await self.prefs.asave()
            except Exception as exc:  # noqa: BLE001 - quitting must go on
                log.warning("saving desktop.json failed: %s", exc)
