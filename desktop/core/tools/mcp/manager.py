"""The MCP client manager: one connection per configured server, connected lazily."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Self

from desktop.core.config.schema import MCPServerConfig
from desktop.core.config.secrets import SecretStore
from desktop.core.tools.mcp.status import MCPServerStatus
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.redact import register_secret
from desktop.core.utils.tasks import TaskOwner

if TYPE_CHECKING:
    from desktop.core.tools.mcp.connection import ServerConnection

log = logging.getLogger(__name__)

_SECRET_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "AUTH", "CREDENTIAL")


class MCPManager:
    """Connects the configured MCP servers and keeps their tools in the registry.

    Nothing happens at construction: the agent calls :meth:`ensure_connected` at the start of
    every turn, which connects the servers not connected yet. A server that fails is marked
    ``failed`` (with a readable, redacted error) and tried again at the next call — once per
    call, never in a loop. :meth:`aclose` closes every session and stops every stdio child;
    each connection's task belongs to the manager's :class:`TaskOwner`, closed last.

    Args:
        servers: ``tools.mcpServers`` from the config, by name.
        registry: Where the wrapped tools go (listed after the builtins, sorted by name).
        connect_timeout: Seconds one connect (spawn, handshake, listing) may take.
        on_status: Called with a fresh :class:`MCPServerStatus` whenever a server's state
            changes (for the GUI; runs on the event loop, must not block).
        secrets: Where OAuth servers' tokens are (default: a fresh :class:`SecretStore`).

    Example:
        >>> manager = MCPManager(config.tools.mcp_servers, registry=registry)  # doctest: +SKIP
        >>> await manager.ensure_connected()  # doctest: +SKIP
    """

    def __init__(
        self,
        servers: Mapping[str, MCPServerConfig],
        *,
        registry: ToolRegistry,
        connect_timeout: float = 30.0,
        on_status: Callable[[MCPServerStatus], None] | None = None,
        secrets: SecretStore | None = None,
    ) -> None:
        self._closed = False
        self._secrets = secrets
        self._tasks = TaskOwner("mcp")
        self._connections: dict[str, ServerConnection] = {}
        self._registry = registry
        self._connect_timeout = connect_timeout
        self._on_status = on_status
        self._listeners: list[Callable[[MCPServerStatus], None]] = []
        if not servers:
            return  # importing the SDK costs about a second: only pay it when servers exist
        for name in sorted(servers):
            self._connections[name] = self._new_connection(name, servers[name])

    def _new_connection(self, name: str, config: MCPServerConfig) -> ServerConnection:
        from desktop.core.tools.mcp.connection import ServerConnection

        _register_config_secrets(config)
        return ServerConnection(
            name,
            config,
            registry=self._registry,
            connect_timeout=self._connect_timeout,
            owner=self._tasks,
            on_change=self._notify,
            secrets=self._secrets,
        )

    def _notify(self, status: MCPServerStatus) -> None:
        """Pass a status change to ``on_status`` and every listener (errors are logged)."""
        for callback in ([self._on_status] if self._on_status else []) + list(self._listeners):
            try:
                callback(status)
            except Exception:
                log.exception("MCP status listener failed")

    def add_listener(self, callback: Callable[[MCPServerStatus], None]) -> Callable[[], None]:
        """Also call ``callback`` on every status change; returns a function that removes it."""
        self._listeners.append(callback)

        def remove() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return remove

    def names(self) -> list[str]:
        """The configured server names, sorted."""
        return sorted(self._connections)

    def tool_names(self, name: str) -> list[str]:
        """The registry names of the tools server ``name`` currently provides.

        Raises:
            KeyError: No server of that name is configured.
        """
        return self._connections[name].tool_names()

    async def configure(self, name: str, config: MCPServerConfig) -> None:
        """Add server ``name`` or replace its entry (an old connection is closed first).

        The new entry is not connected here: call :meth:`connect` or wait for the next
        :meth:`ensure_connected`. Importing the MCP SDK the first time takes about a second;
        a GUI should import ``desktop.core.tools.mcp.connection`` in a thread beforehand.
        """
        old = self._connections.pop(name, None)
        if old is not None:
            await old.aclose()
        self._connections[name] = self._new_connection(name, config)
        self._connections = dict(sorted(self._connections.items()))
        self._notify(self._connections[name].status())

    async def remove(self, name: str) -> bool:
        """Close and forget server ``name`` (its tools leave the registry); whether it existed."""
        old = self._connections.pop(name, None)
        if old is None:
            return False
        await old.aclose()
        return True

    async def connect(self, name: str) -> MCPServerStatus:
        """Connect server ``name`` now if it is idle or failed; never raises for the server's
        own failures (they are in the returned status).

        Raises:
            KeyError: No server of that name is configured.
        """
        conn = self._connections[name]
        if not self._closed:
            await conn.ensure()
        return conn.status()

    async def reconnect(self, name: str) -> MCPServerStatus:
        """Close server ``name`` (stopping a stdio child) and connect it again.

        Raises:
            KeyError: No server of that name is configured.
        """
        conn = self._connections[name]
        await conn.aclose()
        return await self.connect(name)

    async def ensure_connected(self) -> None:
        """Connect every server that is not connected (new, or failed last time). Never raises."""
        if self._closed:
            return
        pending = [conn for conn in self._connections.values() if conn.needs_connect]
        if not pending:
            return
        results = await asyncio.gather(*(conn.ensure() for conn in pending), return_exceptions=True)
        for conn, result in zip(pending, results, strict=True):
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                log.error(
                    "MCP server %s: unexpected error while connecting", conn.server, exc_info=result
                )

    def status(self, name: str) -> MCPServerStatus:
        """The status of server ``name``.

        Raises:
            KeyError: No server of that name is configured.
        """
        return self._connections[name].status()

    def statuses(self) -> list[MCPServerStatus]:
        """The status of every server, sorted by name."""
        return [conn.status() for conn in self._connections.values()]

    async def aclose(self) -> None:
        """Close every session; no stdio child is left running. Safe to call twice.

        A connect under way is stopped; one that has not started yet does not start.
        """
        self._closed = True
        connections = list(self._connections.values())
        results = await asyncio.gather(
            *(conn.aclose() for conn in connections), return_exceptions=True
        )
        for conn, result in zip(connections, results, strict=True):
            if isinstance(result, Exception):
                log.error("MCP server %s: error while closing", conn.server, exc_info=result)
        await self._tasks.aclose()  # what a failed close left (or a replaced entry's task)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _register_config_secrets(config: MCPServerConfig) -> None:
    """Header values and secret-looking env values are masked in every error and log."""
    for value in config.headers.values():
        register_secret(value.removeprefix("Bearer ").strip())
    for key, value in config.env.items():
        if any(hint in key.upper() for hint in _SECRET_HINTS):
            register_secret(value)
