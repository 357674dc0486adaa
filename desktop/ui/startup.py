"""Background start-up: config, key store, provider and agent load after the window shows.

Heavy modules (pydantic models, the agent, the provider) are imported in daemon threads so the
window stays responsive; litellm itself is imported on the first request, or when the person
starts typing a message (:meth:`AgentStarter.warm_up`) — never while the app merely waits. Every failure becomes a message for the person, never a
crash: a broken config (:attr:`AgentStarter.configFailed`) or no usable key
(:attr:`AgentStarter.agentFailed`); :meth:`AgentStarter.retry` tries again after a fix.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop.core.utils.tasks import TaskOwner
from desktop.core.utils.threads import run_daemon, start_daemon
from desktop.ui.i18n import QT_TR_NOOP, localized, tr

if TYPE_CHECKING:
    from desktop.core.agent.approval import ApprovalPolicy
    from desktop.core.bus.queue import MessageBus
    from desktop.core.config.prefs import PrefsStore
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore
    from desktop.core.runtime import Runtime
    from desktop.ui.services import AppServices
    from desktop.ui.tray import Tray

log = logging.getLogger(__name__)


async def start_runtime_for(
    config: Config,
    secrets: SecretStore,
    bus: MessageBus,
    policy: ApprovalPolicy,
    prefs: PrefsStore | None = None,
) -> Runtime:
    """Build and start the runtime (agent, scheduler, heartbeat, MCP): the one switch point.

    Raises:
        MissingKeyError, ProviderNotFound: the provider cannot be used (shown to the person).
    """
    from desktop.core.assembly import StartOptions, start_runtime

    # The preferences are read live: "Pause reminders" in the tray, budgets, Dream review.
    options = StartOptions(
        bus=bus,
        secrets=secrets,
        prefs=prefs,
        approval=policy,
        ask_budgets=True,  # the window's banner answers (BudgetPrompts)
    )
    return await start_runtime(config, options)


def shown_error(exc: Exception) -> str:
    """``exc``'s message for the person, translated when the core gave it as a phrase (as
    :class:`MissingKeyError` does)."""
    return localized(exc)


def _import(*names: str) -> None:
    for name in names:
        importlib.import_module(name)


class AgentStarter(QObject):
    """Loads the config, then the agent, on the running asyncio loop.

    Args:
        config_path: ``--config`` (``~/.nanobot/config.json`` when ``None``).
        workspace: ``--workspace`` override.
        parent: Owner.
        prefs: The desktop preferences (the approval policy lives there).
        tray: The tray icon, handed to the tabs through the services.

    Signals:
        status(str): short progress text for the status bar ("connecting…", "ready — …"), in
            English (a text marked for translation): the window translates it.
        configLoaded(object): the :class:`~desktop.ui.services.AppServices` now exists.
        configFailed(str): the config cannot be used (the file was not changed).
        agentReady(): the runtime runs; ``services.runtime`` is set.
        agentFailed(str): no agent (e.g. no API key); the message says what to do.
    """

    status = Signal(str)
    configLoaded = Signal(object)
    configFailed = Signal(str)
    agentReady = Signal()
    agentFailed = Signal(str)

    def __init__(
        self,
        config_path: Path | None = None,
        workspace: Path | None = None,
        parent: QObject | None = None,
        *,
        prefs: PrefsStore | None = None,
        tray: Tray | None = None,
    ) -> None:
        super().__init__(parent)
        self.config_path = config_path
        self.workspace = workspace
        self.prefs = prefs
        self.tray = tray
        self.services: AppServices | None = None
        self.runtime: Runtime | None = None
        self.bus: MessageBus | None = None
        self.tasks = TaskOwner("starter")
        self._task: asyncio.Task[None] | None = None
        self._warm: concurrent.futures.Future[None] | None = None

    @property
    def busy(self) -> bool:
        """Whether loading is in progress."""
        return self._task is not None and not self._task.done()

    def start(self) -> asyncio.Task[None]:
        """Begin loading (config first when not loaded yet, then the agent)."""
        if not self.busy:
            self._task = self.tasks.spawn(self._run(), name="start")
        assert self._task is not None
        return self._task

    def retry(self) -> asyncio.Task[None]:
        """Load again after the person fixed the config or stored a key."""
        return self.start()

    async def _run(self) -> None:
        if self.services is None and not await self._load_config():
            return
        await self._start_agent()

    async def _load_config(self) -> bool:
        self.status.emit(QT_TR_NOOP("loading settings…"))
        try:
            await run_daemon(
                lambda: _import(
                    "desktop.core.config.loader",
                    "desktop.core.config.secrets",
                    "desktop.ui.services",
                ),
                "import-config",
            )
            from desktop.core.config.errors import ConfigError
            from desktop.core.config.loader import config_origin, load_config
            from desktop.core.config.paths import default_config_path
            from desktop.core.config.secrets import SecretStore
            from desktop.ui.services import AppServices

            try:
                config = await run_daemon(
                    lambda: load_config(self.config_path, workspace=self.workspace), "load-config"
                )
            except ConfigError as exc:
                message = tr(
                    "Your settings file cannot be used: {error}. "
                    "It was not changed; fix it and retry."
                ).format(error=localized(exc))
                self.status.emit(QT_TR_NOOP("settings file has a problem"))
                self.configFailed.emit(message)
                return False
            for warning in config_origin(config).warnings:
                log.warning(warning)
            path = config_origin(config).path or self.config_path or default_config_path()
            policy = None
            if self.prefs is not None:
                from desktop.core.agent.approval_prefs import policy_from_prefs

                policy = policy_from_prefs(self.prefs, self.tasks.child("prefs"))
            self.services = AppServices(
                config,
                path,
                SecretStore(),
                parent=self,
                policy=policy,
                prefs=self.prefs,
                tray=self.tray,
                starter=self,
            )
        except Exception as exc:  # a bug: report it, but keep the window usable
            log.exception("loading the settings failed")
            self.status.emit(QT_TR_NOOP("settings not loaded"))
            self.configFailed.emit(
                tr("Loading the settings failed: {error}").format(
                    error=f"{type(exc).__name__}: {exc}"
                )
            )
            return False
        self.configLoaded.emit(self.services)
        return True

    async def _start_agent(self) -> None:
        services = self.services
        assert services is not None
        await self._stop_runtime()
        self.status.emit(QT_TR_NOOP("connecting…"))
        try:
            await run_daemon(
                lambda: _import(
                    "desktop.core.bus.queue",
                    "desktop.core.providers.factory",
                    "desktop.core.assembly",
                ),
                "import-agent",
            )
            from desktop.core.bus.queue import MessageBus
            from desktop.core.providers.factory import MissingKeyError
            from desktop.core.providers.matching import ProviderNotFound

            self.bus = self.bus or MessageBus()
            try:
                runtime = await start_runtime_for(
                    services.config, services.secrets, self.bus, services.policy, services.prefs
                )
            except (MissingKeyError, ProviderNotFound) as exc:
                self._fail(shown_error(exc))
                return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("starting the agent failed")
            self._fail(
                tr("The agent could not start: {error}").format(
                    error=f"{type(exc).__name__}: {exc}"
                )
            )
            return
        self.runtime = runtime
        services.set_runtime(runtime)
        self.status.emit(self._ready_text())
        self.agentReady.emit()

    def _fail(self, message: str) -> None:
        self.status.emit(QT_TR_NOOP("not connected"))
        if self.services is not None:
            self.services.agentFailed.emit(message)
        self.agentFailed.emit(message)

    def _ready_text(self) -> str:
        services = self.services
        assert services is not None
        model = services.config.agents.defaults.model
        assert self.runtime is not None
        choice = getattr(self.runtime.provider, "choice", None)
        via = f" · {choice.spec.display_name}" if choice is not None else ""
        return f"ready — {model}{via}"

    def warm_up(self) -> None:
        """Import what the provider's first request needs (LiteLLM, ≈2–4 s and ≈200 MB, only
        for a provider that calls through it; the openai SDK for OpenAI-wire ones) in a thread
        now, so that request does not wait for it; the chat calls this when the person starts
        typing."""
        if self._warm is not None or self.tasks.closed:
            return
        provider = self.runtime.provider if self.runtime is not None else None

        def load() -> None:
            try:
                from desktop.core.providers.warm import warm_up

                warm_up(provider)
            except Exception:  # the first request imports it itself (and reports a failure)
                log.exception("loading the provider ahead of the first request failed")

        # A daemon thread and no task: nothing waits for it, so nothing needs cancelling at
        # shutdown (an import cannot be interrupted; the process may exit while it runs).
        self._warm = start_daemon(load, "warm-litellm")

    async def _stop_runtime(self) -> None:
        runtime, self.runtime = self.runtime, None
        if runtime is None:
            return
        try:
            # Cancels turns (their TurnStopped events still reach the tabs and the tray),
            # closes MCP children, stops the scheduler.
            await runtime.stop()
        except Exception:
            log.exception("stopping the agent failed")
        if self.services is not None:
            self.services.clear_runtime()

    async def stop(self) -> None:
        """Cancel loading, stop the runtime, end background tasks."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._stop_runtime()
        await self.tasks.aclose()
