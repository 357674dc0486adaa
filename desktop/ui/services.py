"""What every tab gets: the config, the bus bridge and (once loaded) the running runtime.

The window shows before LiteLLM and the agent are imported; :class:`AppServices` starts with
``runtime`` set to ``None`` and emits :attr:`AppServices.agentReady` when it exists. Tabs take
an ``AppServices`` in their constructor and must work (read-only or disabled controls, a
"connecting…" hint) until then.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal

from desktop.core.agent.approval import ApprovalPolicy
from desktop.ui.bridge import CoreBridge

if TYPE_CHECKING:  # heavy imports stay off the path to the first window
    from desktop.core.agent.loop import AgentLoop
    from desktop.core.bus.events import BudgetPaused, ReminderDue
    from desktop.core.config.prefs import PrefsStore
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore
    from desktop.core.cron.service import CronService
    from desktop.core.runtime import Runtime
    from desktop.core.usage.summary import UsageSummary
    from desktop.ui.startup import AgentStarter
    from desktop.ui.tray import Tray


class Closable(Protocol):
    """A tab or panel with work to end before the app quits (the one close protocol)."""

    async def aclose(self) -> None:
        """Cancel and await everything it started; it must not start anything afterwards."""
        ...


class AppServices(QObject):
    """Shared application objects.

    Attributes:
        config: The loaded config (saved through :meth:`save_config`).
        config_path: Where ``config.json`` lives.
        secrets: The keyring-backed key store (every call from the GUI goes through its
            ``a*`` coroutine methods or a thread, never blocking the event loop).
        bridge: Core events as Qt signals.
        policy: The approval rules (mode and always-allowed tools from ``desktop.json``);
            the runtime's approval gate is built from it.
        prefs: The desktop preferences (``desktop.json``), when the app loaded them.
        tray: The tray icon, when there is a system tray.
        starter: Builds and rebuilds the runtime (``None`` in tests that build their own).
        runtime: The running runtime, ``None`` until :attr:`agentReady`.
        closables: Tabs and panels closed (``aclose``) before the runtime stops.

    Signals:
        agentReady(): the runtime exists and runs.
        agentFailed(str): loading the agent failed (the message is for the person).
        configChanged(): the config was saved; views re-read what they show.
    """

    agentReady = Signal()
    agentFailed = Signal(str)
    configChanged = Signal()

    def __init__(
        self,
        config: Config,
        config_path: Path,
        secrets: SecretStore,
        parent: QObject | None = None,
        *,
        policy: ApprovalPolicy | None = None,
        prefs: PrefsStore | None = None,
        tray: Tray | None = None,
        starter: AgentStarter | None = None,
    ) -> None:
        super().__init__(parent)
        self.config = config
        self.config_path = config_path
        self.secrets = secrets
        self.bridge = CoreBridge(self)
        self.policy = policy or ApprovalPolicy()
        self.prefs = prefs
        self.tray = tray
        self.starter = starter
        self.runtime: Runtime | None = None
        self.closables: list[Closable] = []
        self._unregister: Callable[[], None] | None = None

    @property
    def workspace(self) -> Path:
        """The agent's workspace folder."""
        return self.config.workspace_path

    @property
    def agent(self) -> AgentLoop | None:
        """The running agent loop, or ``None``."""
        return self.runtime.agent if self.runtime is not None else None

    @property
    def cron(self) -> CronService | None:
        """The running scheduler, or ``None``."""
        return self.runtime.cron if self.runtime is not None else None

    async def save_config(self) -> None:
        """Write :attr:`config` atomically in a worker thread, then emit :attr:`configChanged`.

        Raises:
            desktop.core.config.errors.ConfigError: The file on disk is malformed; it is left
                untouched (show the message to the person).
        """
        import asyncio

        from desktop.core.config.loader import save_config

        await asyncio.to_thread(save_config, self.config, self.config_path)
        self.configChanged.emit()

    def set_runtime(self, runtime: Runtime) -> None:
        """Install the running runtime: the window becomes its ``desktop`` channel (events
        and outbound messages through the bridge); tell the tabs."""
        self.runtime = runtime
        self.bridge.attach(runtime.bus)
        self._unregister = runtime.channels.register(self.bridge)
        # Reminders kept while no window was open.
        runtime.owner.try_spawn(runtime.reminders.deliver_kept(), name="kept-reminders")
        self.agentReady.emit()

    async def usage_summary(self) -> UsageSummary:
        """Today's and this month's spend from the workspace's ledger (read in a thread)."""
        import asyncio

        from desktop.core.assembly import usage_place
        from desktop.core.usage.summary import load_summary

        config = self.config
        zone = config.agents.defaults.effective_timezone
        return await asyncio.to_thread(lambda: load_summary(usage_place(config), zone=zone))

    def answer_budget(self, request_id: str, choice: str) -> bool:
        """Answer a budget pause: ``run`` (run once) or ``keep`` (keep paused)."""
        governor = self.runtime.governor if self.runtime is not None else None
        if governor is None or choice not in ("run", "keep"):
            return False
        return governor.answer(request_id, "run" if choice == "run" else "keep")

    async def raise_budget(self, event: BudgetPaused) -> None:
        """ "Raise": save a budget the paused run fits in (``desktop.json``), then run it."""
        from desktop.core.config.budgets import raised

        if self.prefs is not None:
            needed = event.spent_tokens + event.estimate_tokens
            budgets = raised(self.prefs.prefs.budgets, event.scope, event.period, needed)
            self.prefs.update(budgets=budgets)
            await self.prefs.asave()
        self.answer_budget(event.request_id, "run")

    def answer_reminder(self, event: ReminderDue, answer: str) -> None:
        """Snooze a reminder (``10m``, ``1h``, ``tomorrow``) or mark it ``done``, in core."""
        runtime = self.runtime
        if runtime is None:
            return
        import asyncio

        from desktop.core.cron.snooze import mark_done, snooze, snooze_choice

        cron = runtime.cron

        async def apply() -> None:
            if answer == "done":
                await asyncio.to_thread(mark_done, cron, event)
            else:  # the notification's buttons send only the snooze choices
                await asyncio.to_thread(snooze, cron, event, snooze_choice(answer))

        runtime.owner.try_spawn(apply(), name="reminder-answer")

    def clear_runtime(self) -> None:
        """The runtime was stopped: stop listening and forget it."""
        if self._unregister is not None:
            self._unregister()
            self._unregister = None
        self.bridge.detach()
        self.runtime = None

    async def aclose_tabs(self) -> None:
        """Close every registered tab and panel (each one's failure is logged, not raised)."""
        import logging

        for closable in list(self.closables):
            try:
                await closable.aclose()
            except Exception:
                logging.getLogger(__name__).exception("closing %r failed", closable)
