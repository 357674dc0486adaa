"""What every tab gets: the config, the bus bridge and (once loaded) the agent and scheduler.

The window shows before litellm and the agent are imported; :class:`AppServices` starts with
``agent``/``cron`` set to ``None`` and emits :attr:`AppServices.agentReady` when they exist.
Tabs take an ``AppServices`` in their constructor and must work (read-only or disabled
controls, a "connecting…" hint) until then.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from desktop.ui.bridge import CoreBridge

if TYPE_CHECKING:  # heavy imports stay off the path to the first window
    from desktop.core.agent.loop import AgentLoop
    from desktop.core.config.schema import Config
    from desktop.core.config.secrets import SecretStore
    from desktop.core.cron.service import CronService


class AppServices(QObject):
    """Shared application objects.

    Attributes:
        config: The loaded config (saved through :meth:`save_config`).
        config_path: Where ``config.json`` lives.
        secrets: The keyring-backed key store (every call from the GUI goes through its
            ``a*`` coroutine methods or a thread, never blocking the event loop).
        bridge: Core events as Qt signals.
        agent: The :class:`AgentLoop`, ``None`` until :attr:`agentReady`.
        cron: The scheduler, ``None`` until :attr:`agentReady`.
        extras: Other shared objects by name (e.g. ``"mcp"``).

    Signals:
        agentReady(): the agent and scheduler exist and are running.
        agentFailed(str): loading the agent failed (the message is for the person).
        configChanged(): the config was saved; views re-read what they show.
    """

    agentReady = Signal()
    agentFailed = Signal(str)
    configChanged = Signal()

    def __init__(
        self, config: Config, config_path: Path, secrets: SecretStore, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.config = config
        self.config_path = config_path
        self.secrets = secrets
        self.bridge = CoreBridge(self)
        self.agent: AgentLoop | None = None
        self.cron: CronService | None = None
        self.extras: dict[str, Any] = {}

    @property
    def workspace(self) -> Path:
        """The agent's workspace folder."""
        return self.config.workspace_path

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

    def set_agent(self, agent: AgentLoop, cron: CronService | None) -> None:
        """Install the loaded agent and scheduler and tell the tabs."""
        self.agent = agent
        self.cron = cron
        self.bridge.attach(agent.bus)
        self.agentReady.emit()
