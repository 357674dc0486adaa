"""Transports for MCP servers: detection, a minimal child environment, stderr capture.

The SDK transports are async context managers yielding the read/write streams a
:class:`mcp.client.Client` drives. This module picks one from an :class:`MCPServerConfig`
and adds what the desktop needs around it: stdio children get only a handful of harmless
variables (provider keys never reach them) and their stderr is kept as a short tail for the
GUI instead of landing on our own stderr.
"""

from __future__ import annotations

import asyncio
import collections
import os
import shutil
import sys
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import IO, Any, Literal, Self, TextIO
from urllib.parse import urlparse

import anyio
import httpx2
from mcp.client import Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from desktop.core.config.schema import MCPServerConfig

TransportKind = Literal["stdio", "sse", "streamableHttp"]

# Variables a stdio child may inherit: enough to find programs, a home, a locale and a temp
# folder — nothing that could carry a credential.
_POSIX_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "USER", "LOGNAME", "TMPDIR")
# Windows programs (Python included) misbehave without these system locations.
_WINDOWS_ENV = (
    "PATH",
    "PATHEXT",
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "COMSPEC",
    "WINDIR",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
    "HOMEDRIVE",
    "HOMEPATH",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
)
_LINE_LIMIT = 4096  # longer stderr lines are split; keeps one runaway line from eating memory
# The SDK's defaults: 30 s to connect/write, 5 min between bytes of a (long-lived) SSE stream.
_HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)


class TransportConfigError(ValueError):
    """The server entry cannot be turned into a transport (e.g. neither command nor url)."""


def detect_transport(config: MCPServerConfig) -> TransportKind:
    """The transport of ``config``: its explicit ``type``, else guessed from its fields.

    ``command`` means stdio; a ``url`` whose path ends with ``/sse`` means SSE; any other
    ``url`` means streamable HTTP.

    Raises:
        TransportConfigError: The entry has neither ``command`` nor ``url``.
    """
    if config.type is not None:
        return config.type
    if config.command:
        return "stdio"
    if config.url:
        path = urlparse(config.url).path.rstrip("/")
        return "sse" if path.endswith("/sse") else "streamableHttp"
    raise TransportConfigError("needs a 'command' (stdio) or a 'url' (HTTP)")


def minimal_env(
    configured: Mapping[str, str], environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a stdio child: a few harmless variables plus ``configured``.

    Args:
        configured: The server's own ``env`` from the config; it wins over inherited values.
        environ: Where inherited values come from (defaults to ``os.environ``).
    """
    source = os.environ if environ is None else environ
    names = _WINDOWS_ENV if sys.platform == "win32" else _POSIX_ENV
    # Values starting with "()" are exported shell functions: never pass those on.
    env = {
        name: source[name] for name in names if name in source and not source[name].startswith("()")
    }
    env.update(configured)
    return env


class StderrTail:
    """Keeps the last lines a child process wrote to stderr.

    Each connection attempt calls :meth:`open_writer` for a fresh pipe whose write end goes
    to the child; a daemon thread reads the other end (portable, and the event loop never
    blocks on it). Lines from earlier attempts stay in the tail, so a failure stays
    explainable after the process is gone.
    """

    def __init__(self, max_lines: int = 50) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def open_writer(self, label: str) -> TextIO:
        """A new pipe: returns its write end (for the child) and starts draining the read end."""
        read_fd, write_fd = os.pipe()
        reader = os.fdopen(read_fd, "rb", buffering=0)
        self._thread = threading.Thread(
            target=self._pump, args=(reader,), name=f"mcp-stderr-{label}", daemon=True
        )
        self._thread.start()
        return os.fdopen(write_fd, "w", encoding="utf-8")

    def _pump(self, reader: IO[bytes]) -> None:
        """Read lines until every write end is closed (the child and our copy)."""
        with reader:
            buffer = b""
            while chunk := reader.read(_LINE_LIMIT):
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                if len(buffer) >= _LINE_LIMIT:
                    complete.append(buffer)
                    buffer = b""
                self._add(complete)
            if buffer:
                self._add([buffer])

    def _add(self, raw_lines: list[bytes]) -> None:
        text = [line.decode("utf-8", "replace").rstrip() for line in raw_lines]
        with self._lock:
            self._lines.extend(line for line in text if line.strip())

    def lines(self) -> tuple[str, ...]:
        """The kept lines, oldest first."""
        with self._lock:
            return tuple(self._lines)

    async def last_line(self, *, settle: float = 0.0) -> str:
        """The newest line, after giving the reader up to ``settle`` s to reach the pipe's end.

        Useful right after a child died: its last words may still be in the pipe.
        """
        thread = self._thread
        if settle > 0 and thread is not None and thread.is_alive():
            await asyncio.to_thread(thread.join, settle)
        with self._lock:
            return self._lines[-1] if self._lines else ""


def open_transport(
    config: MCPServerConfig,
    kind: TransportKind,
    *,
    stderr: StderrTail | None = None,
    label: str = "mcp",
    on_eof: Callable[[], None] | None = None,
    auth: httpx2.Auth | None = None,
) -> Transport:
    """The SDK transport for ``config`` as an async context manager.

    Enter and exit it in the same task (anyio task groups live inside).

    Args:
        config: The server entry.
        kind: Its transport, from :func:`detect_transport`.
        stderr: Where a stdio child's stderr goes (default: discarded into a fresh tail).
        label: Short name for thread names.
        on_eof: Called when the server's side of the connection ends (e.g. a stdio child
            exited) — also when we close it ourselves.
        auth: HTTP authentication for an HTTP/SSE server (OAuth, :mod:`.oauth`).

    Raises:
        TransportConfigError: The entry lacks what ``kind`` needs.
    """
    if kind == "stdio":
        if not config.command:
            raise TransportConfigError("stdio server needs a 'command'")
        inner = _stdio(config, stderr or StderrTail(), label)
    elif not config.url:
        raise TransportConfigError(f"{kind} server needs a 'url'")
    elif kind == "sse":
        inner = sse_client(config.url, headers=dict(config.headers) or None, auth=auth)
    else:
        inner = _streamable_http(config.url, dict(config.headers), auth)
    return _watched(inner, on_eof) if on_eof is not None else inner


@asynccontextmanager
async def _stdio(config: MCPServerConfig, tail: StderrTail, label: str) -> AsyncIterator[Any]:
    """Spawn the child with a minimal environment and stderr into ``tail``."""
    env = minimal_env(config.env)
    command = config.command
    if sys.platform != "win32":  # a search of every PATH folder: off the loop
        found = await asyncio.to_thread(shutil.which, command, path=env.get("PATH"))
        if found is None:
            raise FileNotFoundError(f"command not found: {command}")
    params = StdioServerParameters(command=command, args=list(config.args), env=env)
    writer = tail.open_writer(label)
    try:
        async with stdio_client(params, errlog=writer) as streams:
            writer.close()  # the child holds its own copy; ours would keep the reader from EOF
            yield streams
    finally:
        writer.close()


@asynccontextmanager
async def _streamable_http(
    url: str, headers: dict[str, str], auth: httpx2.Auth | None = None
) -> AsyncIterator[Any]:
    """Streamable HTTP with our own HTTP client (the only way to send headers)."""
    async with (
        httpx2.AsyncClient(headers=headers or None, timeout=_HTTP_TIMEOUT, auth=auth) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


@asynccontextmanager
async def _watched(inner: Transport, on_eof: Callable[[], None]) -> AsyncIterator[Any]:
    """``inner`` with its read stream wrapped to report the end of the connection."""
    async with inner as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, on_eof), write_stream


class _WatchedReadStream:
    """Forwards a transport's read stream and calls ``on_eof`` when it ends.

    The SDK offers no hook for "the server went away" while no request is pending; this
    lets the owner task notice a dead stdio child at once instead of at the next call.
    """

    _ENDED = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError)

    def __init__(self, inner: Any, on_eof: Callable[[], None]) -> None:
        self._inner = inner
        self._on_eof = on_eof

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except self._ENDED:
            self._on_eof()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: object) -> bool | None:
        suppress: bool | None = await self._inner.__aexit__(*exc_info)
        return suppress

    def __getattr__(self, name: str) -> Any:
        # e.g. ``last_context``, which the SDK's dispatcher reads when present.
        return getattr(self._inner, name)
