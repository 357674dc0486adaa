"""Which :class:`MCPManager` a front end (the Settings MCP page) talks to.

Once the runtime runs, its manager (``runtime.mcp``, always present): servers added in
Settings then serve the agent's next turn. Before the runtime is ready, the front end uses a
manager of its own with a private tool registry — enough to show status and tools — and closes
it when the runtime arrives. There is at most one stand-in, however many callers ask at once,
and none after :meth:`MCPRuntime.aclose`.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.core.config.secrets import SecretStore
from desktop.core.tools.mcp.manager import MCPManager
from desktop.core.tools.mcp.status import MCPServerStatus
from desktop.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from desktop.core.config.schema import Config

log = logging.getLogger(__name__)
Listener = Callable[[MCPServerStatus], None]
AgentManager = Callable[[], "MCPManager | None"]


_SDK_MODULE = "desktop.core.tools.mcp.connection"
_sdk_loaded = False  # set once an import of ours has finished
# One import at a time per loop: a module is in sys.modules while it still executes, so a
# caller that only looked there could go on and wait for the import lock on the loop.
_SDK_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


async def preload_sdk() -> None:
    """Import the MCP SDK in a thread (about a second) so the event loop does not stall.

    Callers arriving while it is imported wait for that import, not for one of their own.
    """
    global _sdk_loaded
    if _sdk_loaded:
        return
    lock = _SDK_LOCKS.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    async with lock:
        if not _sdk_loaded:
            await asyncio.to_thread(importlib.import_module, _SDK_MODULE)
            _sdk_loaded = True


class MCPRuntime:
    """Gives a front end a manager and forwards its status changes to one listener.

    Args:
        config: The live config (``tools.mcp_servers`` is read when a manager is needed).
        agent_manager: The running runtime's manager (``runtime.mcp``), or ``None`` while no
            runtime runs.
        listener: Called with every status change of the current manager.
    """

    def __init__(
        self,
        config: Config,
        agent_manager: AgentManager,
        listener: Listener,
        *,
        secrets: SecretStore | None = None,
    ) -> None:
        self.config = config
        self.secrets = secrets
        self.agent_manager = agent_manager
        self.listener = listener
        self._own: MCPManager | None = None
        self._current: MCPManager | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._closed = False

    @property
    def agent_managed(self) -> bool:
        """Whether servers are connected by the running agent (not a stand-in manager)."""
        return self.agent_manager() is not None

    def current(self) -> MCPManager | None:
        """The manager in use, if one was asked for."""
        return self._current

    async def manager(self) -> MCPManager:
        """The manager to use now (the agent's once it exists).

        Raises:
            RuntimeError: :meth:`aclose` was called (a new stand-in would be closed by nobody).
        """
        self._check_open()
        await preload_sdk()  # may wait (first use): everything below reads the state after it
        self._check_open()
        agent_manager = self.agent_manager()
        if agent_manager is not None:
            manager = agent_manager
            if self._own is not None:
                own, self._own = self._own, None
                await own.aclose()
            # Entries saved while the agent was being built (or before it had a manager).
            for name, entry in self.config.tools.mcp_servers.items():
                if name not in manager.names():
                    await manager.configure(name, entry)
        else:
            if self._own is None:  # no await between this check and the assignment
                self._own = MCPManager(
                    dict(self.config.tools.mcp_servers),
                    registry=ToolRegistry(),
                    secrets=self.secrets,
                )
            manager = self._own
        self._check_open()  # closed while the stand-in closed or entries were attached
        if manager is not self._current:
            if self._unsubscribe is not None:
                self._unsubscribe()
            self._unsubscribe = manager.add_listener(self.listener)
            self._current = manager
        return manager

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the MCP runtime of this page is closed")

    def peek_statuses(self) -> dict[str, MCPServerStatus]:
        """Statuses known without connecting anything (empty before a manager exists)."""
        manager = self._current if self._current is not None else self.agent_manager()
        return {status.name: status for status in manager.statuses()} if manager is not None else {}

    def tool_names(self, name: str) -> list[str]:
        """Tools of server ``name`` in the current manager (``[]`` when unknown)."""
        manager = self._current
        try:
            return manager.tool_names(name) if manager is not None else []
        except KeyError:
            return []

    async def aclose(self) -> None:
        """Stop listening; close the stand-in manager (the agent closes its own). For good:
        :meth:`manager` raises afterwards."""
        self._closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        own, self._own = self._own, None
        self._current = None
        if own is not None:
            await own.aclose()
