"""Composition root of the window: QApplication, single instance, first paint, then qasync.

The path to the first visible window imports only PySide6 and a few small modules of ours
(no pydantic, no asyncio, no litellm): the saved geometry and theme are read as raw JSON, the
window is shown and painted on Qt's own loop, and only then the qasync loop starts
:class:`desktop.ui.shell.DesktopApp`, which loads everything else in the background.
Qt is imported here and in ``desktop.ui`` only.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from desktop.ui.i18n import LANGUAGES, QT_TR_NOOP, install_language, tr
from desktop.ui.main_window import APP_TITLE, MainWindow

if TYPE_CHECKING:
    from desktop.core.runtime import Runtime
    from desktop.ui.memory import MemoryTab
    from desktop.ui.onboarding import OnboardingWizard
    from desktop.ui.services import AppServices

__all__ = ["APP_TITLE", "build_main_window", "install_tabs", "run_app"]

# bench/startup.py and tests: print "first-paint <epoch seconds>" once and "agent-ready <epoch
# seconds>" each time the agent is ready; with the value "modules", also "first-paint-modules
# <comma-separated sys.modules>" and "agent-ready-modules …" at those moments, and
# "exit-modules …" when the app quits.
BENCH_ENV = "NANOBOT_DESKTOP_BENCH"
FIRST_PAINT_WAIT_MS = 2000


def build_main_window(geometry: str | None = None) -> MainWindow:
    """Create (not show) the main window, with a saved geometry (base64) when there is one."""
    window = MainWindow()
    window.restore_geometry_text(geometry)
    return window


def install_tabs(window: MainWindow, services: AppServices) -> None:
    """Plug the real tabs into the window once the config is loaded.

    The tabs read nothing in their constructors (their first loads run in threads when they
    are shown), so this is cheap. Every tab is registered in ``services.closables``; the shell
    closes them (``aclose``) before stopping the runtime.
    """
    from desktop.ui.chat.chat_tab import ChatTab
    from desktop.ui.memory import MemoryTab
    from desktop.ui.settings import SettingsTab
    from desktop.ui.skills import SkillsTab

    chat = ChatTab(services, window)
    settings = SettingsTab(services, window)
    skills = SkillsTab(services, window)
    memory = MemoryTab(services, window)
    for key, tab in (
        ("chat", chat),
        ("settings", settings),
        ("skills", skills),
        ("memory", memory),
    ):
        window.set_tab(key, tab)
    window.newChatRequested.connect(chat.new_chat)
    window.newTemporaryChatRequested.connect(chat.new_temporary_chat)
    window.searchRequested.connect(chat.focus_search)
    window.stopRequested.connect(chat.stop_current)
    window.openSessionRequested.connect(chat.open_session)
    chat.modelShown.connect(window.show_model)  # the status bar names the shown chat's model
    chat.refresh_model()
    window.shuttingDown.connect(chat.approver.deny_all)  # at once; the shell then acloses tabs

    def focus_composer_on_chat() -> None:
        if window.current_tab_key() == "chat":
            chat.focus_composer()

    services.agentReady.connect(focus_composer_on_chat)

    window.settingsSectionRequested.connect(settings.show_section)
    chat.openSettingsRequested.connect(window.show_settings)
    if services.tray is not None:
        chat.attentionChanged.connect(services.tray.set_waiting_approvals)
    if services.starter is not None:
        settings.keyChanged.connect(
            lambda provider: _settings_changed(window, services, key_of=provider)
        )
        services.configChanged.connect(lambda: _settings_changed(window, services))
    services.closables.extend([chat, settings, skills, memory])
    _watch_dream_proposals(window, services, memory)
    onboarding = _Onboarding(window, services)
    services.closables.append(onboarding)
    settings.setupRequested.connect(onboarding.open)
    onboarding.offer()


def _watch_dream_proposals(window: MainWindow, services: AppServices, memory: MemoryTab) -> None:
    """A pending Dream proposal: attention in the tray, whose menu opens the review page."""
    from PySide6.QtCore import QTimer

    from desktop.ui.memory.proposal_watch import ProposalWatch

    watch = ProposalWatch(services, memory)
    services.closables.append(watch)
    watch.changed.connect(lambda _count: memory.schedule_refresh())
    tray = services.tray
    if tray is not None:
        watch.changed.connect(tray.set_dream_review)
        memory.proposalChanged.connect(tray.set_dream_review)

        def review() -> None:
            window.bring_to_front()
            window.show_tab("memory")
            memory.show_review()

        tray.reviewDreamRequested.connect(review)
    QTimer.singleShot(0, watch.start)


def _settings_changed(
    window: MainWindow, services: AppServices, *, key_of: str | None = None
) -> None:
    """Apply saved settings to the running agent as far as possible without stopping it.

    Not connected yet: connect now. Connected: settings read on every turn apply by
    themselves; a new model, key, endpoint or temperature is switched in without stopping
    running answers (:meth:`desktop.core.runtime.Runtime.use_model`); a chat channel whose
    settings changed is restarted alone; only settings wired into the agent at start
    (workspace, tools, MCP servers…) need a reconnect, which stops running answers, so the
    person chooses when (a banner with "Apply now", taken away again when nothing needs it
    any more). ``key_of``: a provider whose stored key changed.
    """
    from desktop.core.providers.reconfigure import changed_channels, needs

    starter = services.starter
    if starter is None:
        return
    runtime = services.runtime
    if runtime is None:
        if not starter.busy:
            starter.retry()
        return
    impact = needs(runtime.applied, services.config)
    if key_of is not None:
        choice = runtime.provider.choice
        if choice is None or choice.section == key_of:
            impact.add("switch")
    if "switch" in impact:  # applied now, whatever else waits for a reconnect
        starter.tasks.try_spawn(_switch_provider(window, services), name="switch-provider")
    for name in sorted(changed_channels(runtime.applied, services.config)):
        starter.tasks.try_spawn(_restart_channel(runtime, name), name=f"channel:{name}")
    if "rebuild" not in impact:
        window.remove_banner("restart")  # nothing waits for a reconnect (any more)
        return

    def apply() -> None:
        window.remove_banner("restart")
        starter.retry()

    window.show_banner(
        "restart",
        tr("Some settings need the agent to reconnect (running answers will stop)."),
        severity="info",
        actions=[(tr("Apply now"), apply)],
    )


async def _restart_channel(runtime: Runtime, name: str) -> None:
    """Run chat channel ``name`` with its saved settings (stop it when it was disabled)."""
    from desktop.core.providers.reconfigure import absorb_channel

    manager = runtime.channels
    absorb_channel(runtime.applied, runtime.config, name)
    if name in manager.enabled():
        await manager.start_channel(name)
    else:
        await manager.stop_channel(name)


async def _switch_provider(window: MainWindow, services: AppServices) -> None:
    """Rebuild the provider from the saved settings and switch to it (running turns go on)."""
    runtime = services.runtime
    if runtime is None:
        return
    try:
        await runtime.use_model(None, services.secrets)
    except LookupError as exc:  # no key, or no provider fits the model
        window.show_banner(
            "switch", tr("The new model settings cannot be used yet: {error}").format(error=exc)
        )
        return
    window.remove_banner("switch")


WIZARD_SIZE = (760, 560)
FRAME_ROOM = (16, 48)  # a window manager's frame and title bar around the setup
SETUP_BANNER = QT_TR_NOOP(
    "nanobot Desktop is not set up yet: it needs a model provider (and usually a key) before "
    "it can answer."
)  # shown through tr()


class _Onboarding:
    """First run (no config or no usable key): the setup assistant over the window.

    While it is being decided, and while the assistant is open, the "agent could not start"
    banner is held back: it would name the default config's provider, which the person never
    chose. Skipping leaves a "Set up now" banner (and Settings → Providers has the assistant
    too); finishing opens Settings → Providers on the provider just set up.

    Owns its check task and the assistants it opened; :meth:`aclose` ends them (the app is
    quitting).
    """

    def __init__(self, window: MainWindow, services: AppServices) -> None:
        from desktop.core.utils.tasks import TaskOwner

        self.window = window
        self.services = services
        self.tasks = TaskOwner("onboarding")
        self.wizard: OnboardingWizard | None = None
        self._closed: list[OnboardingWizard] = []
        services.agentReady.connect(lambda: window.remove_banner("setup"))

    def offer(self) -> None:
        """Check in the background whether onboarding is needed; show it if so."""
        self.window.hold("agent")
        self.tasks.try_spawn(self._check(), name="check")

    async def _check(self) -> None:
        from desktop.ui.onboarding import needs_onboarding

        services = self.services
        needed = False
        try:
            needed = await needs_onboarding(services.config, services.secrets)
        finally:
            if not needed:  # a real failure of a set-up agent is shown after all
                self.window.release("agent")
        if needed:
            self.open()

    def open(self) -> None:
        """Show the setup assistant (again), a window-modal dialog over the main window."""
        from PySide6.QtCore import Qt

        from desktop.ui.onboarding import OnboardingWizard

        services, window = self.services, self.window
        if self.wizard is not None and self.wizard.isVisible():
            self.wizard.raise_()
            self.wizard.activateWindow()
            return
        window.hold("agent")
        window.remove_banner("setup")
        # shown with show() (no nested loop)
        wizard = OnboardingWizard(services, window)
        wizard.setWindowFlag(Qt.WindowType.Dialog, True)
        wizard.setWindowModality(Qt.WindowModality.WindowModal)
        wizard.setWindowTitle(tr("Welcome to nanobot Desktop"))
        self.wizard = wizard

        def done(completed: bool) -> None:
            provider = wizard.provider_step.selected()
            wizard.close()
            self._closed.append(wizard)
            if self.wizard is wizard:
                self.wizard = None
            window.release("agent", show=False)  # it named a provider nobody chose
            if completed:
                if provider:  # Settings opens at that provider (the tab stays as it is)
                    window.settingsSectionRequested.emit(f"providers/{provider}")
                if services.starter is not None:
                    services.starter.retry()
            elif services.runtime is None:
                window.show_banner(
                    "setup",
                    tr(SETUP_BANNER),
                    severity="info",
                    actions=[(tr("Set up now"), self.open)],
                )
            window.bring_to_front()

        wizard.finished.connect(done)
        wizard.resize(WIZARD_SIZE[0], WIZARD_SIZE[1])
        screen = window.screen()
        if screen is not None:  # at a high scale the screen may be smaller than that
            area = screen.availableGeometry()
            width = min(WIZARD_SIZE[0], area.width() - FRAME_ROOM[0])
            height = min(WIZARD_SIZE[1], area.height() - FRAME_ROOM[1])
            wizard.resize(max(320, width), max(240, height))
        wizard.move(window.geometry().center() - wizard.rect().center())
        fit = window.screen().availableGeometry() if window.screen() is not None else None
        if fit is not None:
            frame = wizard.frameGeometry()
            frame.moveCenter(window.geometry().center())
            frame.moveTop(max(fit.top(), min(frame.top(), fit.bottom() - frame.height())))
            frame.moveLeft(max(fit.left(), min(frame.left(), fit.right() - frame.width())))
            wizard.move(frame.topLeft())
        wizard.show()

    async def aclose(self) -> None:
        """Cancel the check, close the assistants and end their work."""
        await self.tasks.aclose()
        wizards = [*self._closed, *([self.wizard] if self.wizard is not None else [])]
        self.wizard, self._closed = None, []
        for wizard in wizards:
            await wizard.aclose()
            wizard.close()
            wizard.deleteLater()


class QuitSignal:
    """Ctrl-C / SIGTERM: remembered until a handler is set, then forwarded to it."""

    def __init__(self) -> None:
        self.requested = False
        self.handler: Callable[[], None] | None = None
        self._parts: tuple[Any, ...] = ()

    def __call__(self, *_: object) -> None:
        self.requested = True
        if self.handler is not None:
            self.handler()

    def install(self) -> None:
        """Handle SIGINT/SIGTERM; a wake-up socket makes Python see them while Qt waits."""
        import socket

        from PySide6.QtCore import QSocketNotifier

        reader, writer = socket.socketpair()
        reader.setblocking(False)
        writer.setblocking(False)
        try:
            signal.set_wakeup_fd(writer.fileno())
        except ValueError:  # not the main thread
            return
        notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)

        def drain() -> None:  # Python has run the signal handlers before this line
            try:
                reader.recv(256)
            except OSError:
                pass

        notifier.activated.connect(drain)
        for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
            if sig is not None:
                signal.signal(sig, self)
        self._parts = (reader, writer, notifier)


def _paths(args: argparse.Namespace | None) -> tuple[Path | None, Path | None]:
    config = getattr(args, "config", None)
    workspace = getattr(args, "workspace", None)
    return (
        Path(config).expanduser() if config else None,
        Path(workspace).expanduser() if workspace else None,
    )


def _wait_for_first_paint(window: MainWindow, quit_signal: QuitSignal) -> None:
    """Run Qt's loop (no asyncio yet) until the window has painted once."""
    from PySide6.QtCore import QEventLoop, QTimer

    if window.painted:
        return
    loop = QEventLoop()
    window.firstPainted.connect(loop.quit)
    QTimer.singleShot(FIRST_PAINT_WAIT_MS, loop.quit)
    quit_signal.handler = loop.quit
    loop.exec()
    quit_signal.handler = None


def _report_first_paint(window: MainWindow, mode: str) -> None:
    import time

    def report() -> None:
        print(f"first-paint {time.time():.6f}", flush=True)
        if mode == "modules":
            print(f"first-paint-modules {','.join(sorted(sys.modules))}", flush=True)

    window.firstPainted.connect(report)


def _report_ready(mode: str) -> Callable[[], None]:
    import time

    def report() -> None:
        print(f"agent-ready {time.time():.6f}", flush=True)
        if mode == "modules":
            print(f"agent-ready-modules {','.join(sorted(sys.modules))}", flush=True)

    return report


def run_app(args: argparse.Namespace | None = None) -> int:
    """Open the window (or bring the running one to the front) and run until quit."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if sys.stderr is not None and not faulthandler.is_enabled():
        faulthandler.enable(sys.stderr)  # a crash in Qt or a library prints where each thread was
    from PySide6.QtWidgets import QApplication

    from desktop.core.config.paths import default_config_path
    from desktop.core.config.prefs_peek import peek_prefs, peek_text, prefs_path
    from desktop.ui.caret import CaretRest
    from desktop.ui.single_instance import SingleInstance
    from desktop.ui.theme import APPEARANCES, Theme

    config_path, workspace = _paths(args)
    # This process only ever makes a QApplication (instance() is typed as its base class).
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv))
    app.setApplicationName("nanobot-desktop")
    app.setDesktopFileName("nanobot-desktop")
    app.setQuitOnLastWindowClosed(False)  # the tray keeps us alive; quitting is explicit
    CaretRest(app)  # owned by the app: the caret stops blinking when nobody types
    instance = SingleInstance((config_path or default_config_path()).expanduser().parent)
    if not instance.acquire():
        if instance.activate_running():
            print("nanobot Desktop is already running; its window was brought to the front.")
            return 0
        print("nanobot Desktop seems to be running but does not answer.", file=sys.stderr)
        return 1
    quit_signal = QuitSignal()
    quit_signal.install()
    prefs_file = prefs_path(config_path)
    raw = peek_prefs(prefs_file)
    theme = Theme(app, peek_text(raw, "appearance", APPEARANCES) or "system")
    install_language(peek_text(raw, "language", tuple(LANGUAGES)) or "system")
    window = build_main_window(peek_text(raw, "windowGeometry"))
    bench = os.environ.get(BENCH_ENV, "")
    if bench:
        _report_first_paint(window, bench)
    window.show()
    _wait_for_first_paint(window, quit_signal)

    # Imports asyncio and qasync; PySide6 is already loaded, so qasync binds to it.
    from desktop.ui import event_loop
    from desktop.ui.shell import DesktopApp

    desktop = DesktopApp(
        app,
        window,
        theme,
        instance,
        prefs_file=prefs_file,
        config_path=config_path,
        workspace=workspace,
        install_tabs=install_tabs,
        on_ready=_report_ready(bench) if bench else None,
    )
    quit_signal.handler = desktop.request_quit
    if quit_signal.requested:
        desktop.request_quit()
    try:
        return int(event_loop.run(desktop.main()))
    except RuntimeError as exc:  # Qt quit underneath us (session logout): nothing left to do
        if "Event loop stopped" not in str(exc):
            raise
        instance.release()
        return 0
    finally:
        if bench == "modules":
            print(f"exit-modules {','.join(sorted(sys.modules))}", flush=True)
