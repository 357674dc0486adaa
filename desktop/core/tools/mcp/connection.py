"""One MCP server: a long-lived owner task, its status, and requests through it.

The SDK's transports and sessions hold anyio task groups and cancel scopes, which must be
entered and exited by the same task. So each connection gets one owner task that opens the
transport and the client, lists the server's capabilities, reports ready, then waits for a
stop request and closes everything itself. Other tasks (agent turns) only send requests
through the live client. A connect deadline lives in a cancel scope *around* the whole
client context, so it nests correctly and is lifted once connected.

Closing wins over connecting: :meth:`ServerConnection.aclose` stops an owner task that is still
connecting at once (the SDK's stdio shutdown is shielded, so the child still ends), and an
attempt that was waiting to start when the close came does not start afterwards. The owner
tasks belong to the manager's :class:`~desktop.core.utils.tasks.TaskOwner`.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import httpx2
import mcp.types as mt
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from desktop import __version__
from desktop.core.config.schema import MCPServerConfig
from desktop.core.config.secrets import SecretStore
from desktop.core.tools.mcp.status import MCPServerStatus, ServerState, server_enabled
from desktop.core.tools.mcp.transport import (
    StderrTail,
    TransportConfigError,
    TransportKind,
    detect_transport,
    open_transport,
)
from desktop.core.tools.mcp.wrappers import Catalog, MCPCallError, build_wrappers
from desktop.core.tools.registry import ToolRegistry
from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import TaskOwner, cancel_and_wait

log = logging.getLogger(__name__)

T = TypeVar("T")

_MAX_PAGES = 50  # a paginator that never ends cannot hang a connect
_STOP_GRACE = 10.0  # the SDK's stdio shutdown: close stdin, 2 s, SIGTERM, 2 s, SIGKILL, 2 s
_CLIENT_INFO = mt.Implementation(name="nanobot-desktop", version=__version__)
# What a failing request looks like when the transport underneath is gone.
_LOST = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    OSError,
    httpx2.TransportError,
)


class _ServerGone(Exception):
    """The server ended the connection while we were not asking anything."""


class ServerConnection:
    """The connection to one configured MCP server.

    Args:
        name: The server's name in the config.
        config: Its entry.
        registry: Where its tools are registered (after the builtins).
        connect_timeout: Seconds a connect (spawn, handshake, listing) may take.
        owner: Owns the connection's owner task (the manager's, closed after its connections).
        on_change: Called with a fresh status whenever the state changes.
        secrets: The keyring of an OAuth server's tokens (default: a :class:`SecretStore`).
    """

    def __init__(
        self,
        name: str,
        config: MCPServerConfig,
        *,
        registry: ToolRegistry,
        connect_timeout: float,
        owner: TaskOwner,
        on_change: Callable[[MCPServerStatus], None] | None = None,
        secrets: SecretStore | None = None,
    ) -> None:
        self._name = name
        self._secrets = secrets
        self._owner = owner
        self._config = config
        self._registry = registry
        self._connect_timeout = connect_timeout
        self._on_change = on_change
        self._kind: TransportKind | None = None
        self._config_error = ""
        try:
            self._kind = detect_transport(config)
        except TransportConfigError as exc:
            self._config_error = str(exc)
        self._stderr = StderrTail() if self._kind == "stdio" else None
        enabled = bool(config.enabled_tools) and server_enabled(config)
        self._state: ServerState = "idle" if enabled else "disabled"
        self._last_error = ""
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._attempts = 0
        self._closes = 0  # aclose() calls so far: an attempt that began before one gives up
        self._registered: list[str] = []

    # -- MCPCaller -------------------------------------------------------------------------

    @property
    def server(self) -> str:
        """The server's configured name."""
        return self._name

    @property
    def timeout(self) -> float:
        """Seconds one request may take (``toolTimeout``)."""
        return float(self._config.tool_timeout)

    async def request(self, action: str, op: Callable[[Client], Awaitable[T]]) -> T:
        """Run ``op`` on the live client, turning every failure into :class:`MCPCallError`.

        A lost connection marks the server failed and stops its owner task; the next
        :meth:`ensure` reconnects.
        """
        client = self._client
        if client is None or self._state != "connected":
            reason = self._last_error or self._state
            raise MCPCallError(
                f"Error: MCP server '{self._name}' is not connected ({reason}); "
                "it is retried at the next turn."
            )
        try:
            with anyio.fail_after(self.timeout):
                return await op(client)
        except TimeoutError:
            raise MCPCallError(self._timed_out(action)) from None
        except MCPError as exc:
            if exc.code == mt.REQUEST_TIMEOUT:
                raise MCPCallError(self._timed_out(action)) from None
            if exc.code == mt.CONNECTION_CLOSED:
                raise MCPCallError(self._lose(action, exc)) from None
            message = f"Error: MCP server '{self._name}' refused {action}: {redact(exc.message)}"
            raise MCPCallError(message) from None
        except _LOST as exc:
            raise MCPCallError(self._lose(action, exc)) from None
        except Exception as exc:  # e.g. a result that fails validation: the model reads it
            log.debug("MCP %s on %s failed", action, self._name, exc_info=True)
            message = f"Error: {action} on MCP server '{self._name}' failed: {_describe(exc)}"
            raise MCPCallError(message) from None

    def _timed_out(self, action: str) -> str:
        return f"Error: {action} on MCP server '{self._name}' timed out after {self.timeout:g} s."

    def _lose(self, action: str, exc: BaseException) -> str:
        """Mark the connection lost and ask the owner task to clean up."""
        if self._state == "connected":
            self._fail(f"connection lost: {_describe(exc)}")
            self._stop.set()
        return (
            f"Error: {action} failed: the connection to MCP server '{self._name}' was lost; "
            "it is retried at the next turn."
        )

    # -- status ----------------------------------------------------------------------------

    @property
    def state(self) -> ServerState:
        """The current state."""
        return self._state

    @property
    def needs_connect(self) -> bool:
        """Whether :meth:`ensure` has work to do (connect, or wait for a connect under way)."""
        return self._state in ("idle", "failed", "connecting")

    def tool_names(self) -> list[str]:
        """Registry names of the tools this server provides right now."""
        return list(self._registered)

    def status(self) -> MCPServerStatus:
        """A snapshot for the GUI."""
        tail = tuple(redact(line) for line in self._stderr.lines()) if self._stderr else ()
        return MCPServerStatus(
            name=self._name,
            transport=self._kind or "",
            state=self._state,
            tool_count=len(self._registered),
            last_error=self._last_error,
            stderr_tail=tail,
        )

    def _set_state(self, state: ServerState) -> None:
        if state == self._state:
            return
        self._state = state
        if self._on_change is not None:
            try:
                self._on_change(self.status())
            except Exception:  # an observer bug must not break the connection
                log.exception("MCP status observer failed")

    def _fail(self, message: str) -> None:
        self._last_error = redact(message)
        log.warning("MCP server %s: %s", self._name, self._last_error)
        self._set_state("failed")

    # -- lifecycle -------------------------------------------------------------------------

    async def ensure(self) -> None:
        """Connect if idle or failed; never raises.

        A caller arriving while another one connects waits for that attempt and does not
        start its own, so concurrent turns cause one attempt, not several.
        """
        seen = self._attempts
        closes = self._closes
        async with self._lock:
            if self._attempts != seen or self._state not in ("idle", "failed"):
                return
            try:
                await self._connect(closes)
            except Exception as exc:  # a bug here must not end the agent's turn
                log.exception("MCP server %s: connect crashed", self._name)
                self._fail(_describe(exc))
            finally:
                self._attempts += 1
            if self.state != "connected":  # the property: _connect() changed the state
                self._withdraw()

    async def _connect(self, closes: int) -> None:
        """Start the owner task and wait until it is connected or has given up.

        ``closes``: :attr:`_closes` when the attempt began; a close since then cancels it.
        """
        if self._kind is None:
            self._fail(self._config_error)
            return
        await self._join_owner()
        if self._closes != closes:  # closed while the last owner task was being joined
            return
        self._stop = asyncio.Event()
        ready = asyncio.Event()
        # Made here, not in the task: a close right after the spawn can already cancel it.
        self._scope = anyio.CancelScope(deadline=anyio.current_time() + self._connect_timeout)
        self._set_state("connecting")
        task = self._owner.try_spawn(self._own(ready, self._scope), name=self._name)
        if task is None:  # the manager is closing
            self._set_state("idle")
            return
        self._task = task
        await _first_set(ready, also=task)

    async def _own(self, ready: asyncio.Event, scope: anyio.CancelScope) -> None:
        """The owner task: open, list, publish, wait for stop, close — all in this task."""
        assert self._kind is not None
        try:
            with scope:
                ended = asyncio.Event()
                transport = open_transport(
                    self._config,
                    self._kind,
                    stderr=self._stderr,
                    label=self._name,
                    on_eof=ended.set,
                    auth=self._auth(),
                )
                async with Client(transport, client_info=_CLIENT_INFO, cache=None) as client:
                    catalog = await _discover(client)
                    scope.deadline = math.inf
                    self._go_live(client, catalog)
                    ready.set()
                    await _first_set(self._stop, ended)
                    if not self._stop.is_set():
                        raise _ServerGone("the server closed the connection")
            if scope.cancelled_caught and not self._stop.is_set():
                self._fail(f"timed out after {self._connect_timeout:g} s while connecting")
        except Exception as exc:
            if not self._stop.is_set():
                await self._fail_with_context(exc)
            else:
                log.debug("MCP server %s: error while closing", self._name, exc_info=True)
        finally:
            self._client = None
            if self._state in ("connecting", "connected"):
                self._set_state("idle")
            ready.set()

    def _auth(self) -> httpx2.Auth | None:
        """OAuth for an HTTP/SSE entry with ``"auth": "oauth"``: stored tokens, no browser."""
        if self._config.auth != "oauth" or self._kind == "stdio":
            return None
        from desktop.core.tools.mcp.oauth import background_auth

        return background_auth(self._name, self._config, self._secrets or SecretStore())

    def _go_live(self, client: Client, catalog: Catalog) -> None:
        """Register the wrappers (stable, sorted names) and mark the server connected."""
        selection = build_wrappers(self, catalog, self._config.enabled_tools)
        if selection.unmatched:
            log.warning(
                "MCP server %s: enabledTools entries not found: %s",
                self._name,
                ", ".join(selection.unmatched),
            )
        names = [tool.name for tool in selection.tools]
        for stale in set(self._registered) - set(names):
            self._registry.unregister(stale)
        for tool in selection.tools:
            self._registry.register(tool, external=True)
        self._registered = names
        self._client = client
        self._last_error = ""
        self._set_state("connected")
        log.info("MCP server %s: connected, %d tool(s)", self._name, len(names))

    def _withdraw(self) -> None:
        """Remove this server's tools from the registry."""
        for name in self._registered:
            self._registry.unregister(name)
        self._registered = []

    async def _fail_with_context(self, exc: BaseException) -> None:
        """Record a failed connect (or a lost connection), with the stdio command or URL."""
        lost = self._state == "connected"
        message = _describe(exc)
        if self._kind == "stdio":
            if isinstance(_first_leaf(exc), FileNotFoundError):
                message = f"command not found: {self._config.command}"
            elif self._stderr is not None and (last := await self._stderr.last_line(settle=0.5)):
                message = f"{message} (stderr: {last})"
        elif isinstance(_first_leaf(exc), httpx2.TransportError):
            message = f"cannot reach {self._config.url}: {message}"
        self._fail(f"connection lost: {message}" if lost else message)

    async def aclose(self) -> None:
        """Close the session (and stop a stdio child); unregister the tools.

        A connect under way is stopped at once; one waiting to start does not start.
        """
        self._closes += 1
        self._stop.set()
        if self._state == "connecting" and self._scope is not None:
            self._scope.cancel()  # nothing is served yet: no need to finish the handshake
        await self._join_owner()
        self._withdraw()
        if self._state not in ("failed", "disabled"):
            self._set_state("idle")

    async def _join_owner(self) -> None:
        """Wait for the owner task to finish: politely, then by cancelling its scope."""
        task = self._task
        if task is None:
            return
        self._stop.set()
        done, _ = await asyncio.wait({task}, timeout=_STOP_GRACE)
        if not done and self._scope is not None:
            log.warning("MCP server %s: close is slow; cancelling", self._name)
            self._scope.cancel()
            done, _ = await asyncio.wait({task}, timeout=_STOP_GRACE)
        if not done:
            await cancel_and_wait(task)
        if self._task is task:  # not an owner task started meanwhile
            self._task = None


async def _first_set(*events: asyncio.Event, also: asyncio.Future[Any] | None = None) -> None:
    """Wait until one of ``events`` is set (or ``also`` is done)."""
    waiters: set[asyncio.Future[Any]] = {asyncio.ensure_future(event.wait()) for event in events}
    try:
        pending = waiters | ({also} if also else set())
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        # Each ends at its next step; waited for here so none is left behind (not raising:
        # a cancel of our own is already on its way out).
        await asyncio.gather(*waiters, return_exceptions=True)


async def _discover(client: Client) -> Catalog:
    """List tools, resources and prompts (each only if the server declares it)."""
    caps = client.server_capabilities
    tools = await _collect(caps.tools, lambda cur: client.list_tools(cursor=cur), "tools")
    resources = await _collect(
        caps.resources, lambda cur: client.list_resources(cursor=cur), "resources"
    )
    prompts = await _collect(caps.prompts, lambda cur: client.list_prompts(cursor=cur), "prompts")
    return Catalog(tools=tools, resources=resources, prompts=prompts)


async def _collect(
    declared: object, fetch: Callable[[str | None], Awaitable[Any]], field: str
) -> list[Any]:
    """All pages of one listing; empty when undeclared or refused by the server."""
    if declared is None:
        return []
    items: list[Any] = []
    cursor: str | None = None
    try:
        for _ in range(_MAX_PAGES):
            page = await fetch(cursor)
            items.extend(getattr(page, field))
            cursor = page.next_cursor
            if not cursor:
                break
    except MCPError as exc:
        log.debug("listing %s refused: %s", field, exc.message)
    return items


def _leaves(exc: BaseException) -> list[BaseException]:
    """The non-group exceptions inside ``exc`` (anyio wraps task failures in groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _first_leaf(exc: BaseException) -> BaseException:
    leaves = [leaf for leaf in _leaves(exc) if not isinstance(leaf, asyncio.CancelledError)]
    return leaves[0] if leaves else exc


def _describe(exc: BaseException) -> str:
    """A short, readable, redacted description of ``exc``."""
    leaf = _first_leaf(exc)
    if isinstance(leaf, MCPError):
        text = leaf.message
    else:
        text = str(leaf).strip() or type(leaf).__name__
        if isinstance(leaf, (TimeoutError, OSError)) and type(leaf).__name__ not in text:
            text = f"{type(leaf).__name__}: {text}"
    return redact(text)
