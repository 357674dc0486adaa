"""The CLI's side of the agent socket (see :mod:`desktop.core.ipc.server`).

Deliberately light: only the standard library is imported, so handing a message to a
running app or gateway costs no LiteLLM, pydantic or agent import.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from desktop.core.utils.validate import parse_json

CONNECT_TIMEOUT_S = 2.0
SOCKET_NAME = "agent.sock"

Asker = Callable[[dict[str, Any]], Awaitable[str | None]]
"""Asks the person an ``approval`` event's question; the decision (``allow_once``,
``allow_session``, ``always``, ``deny``), or ``None`` to leave it to the app's window.
Cancelled when the question closes (answered elsewhere, or the turn ended)."""


def socket_path(config_dir: Path) -> Path:
    """Where the socket of the app/gateway using ``config_dir`` lives."""
    return Path(config_dir).expanduser() / "run" / SOCKET_NAME


class AgentConnection:
    """A connection to a running agent."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, path: Path) -> AgentConnection | None:
        """Connect, or ``None`` when no app or gateway serves ``path``."""
        if not hasattr(asyncio, "open_unix_connection"):
            return None
        if not await asyncio.to_thread(os.path.exists, path):
            return None
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT_S):
                reader, writer = await asyncio.open_unix_connection(str(path), limit=1 << 20)
        except (TimeoutError, OSError):
            return None
        return cls(reader, writer)

    async def _send(self, data: dict[str, Any]) -> None:
        self.writer.write(json.dumps(data, ensure_ascii=False).encode() + b"\n")
        await self.writer.drain()

    async def _read(self) -> dict[str, Any] | None:
        line = await self.reader.readline()
        if not line:
            return None
        try:
            data = parse_json(line)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    async def hello(self) -> dict[str, Any] | None:
        """The server's workspace and model."""
        await self._send({"op": "hello"})
        return await self._read()

    async def trigger(self) -> bool:
        """Tell the app or gateway a trigger delivery was queued; whether it delivers them."""
        await self._send({"op": "trigger"})
        answer = await self._read()
        return bool(answer and answer.get("event") == "trigger" and answer.get("queued"))

    async def turn(
        self,
        session: str,
        content: str,
        on_event: Callable[[dict[str, Any]], None],
        *,
        media: list[str] | None = None,
        command: bool = False,
        ask: Asker | None = None,
    ) -> dict[str, Any]:
        """Send a message and pass every event of its turn to ``on_event``.

        Approval questions of the turn (``approval`` events) are asked through ``ask`` while
        the events go on, and its answer is sent back; an ``approval_closed`` event (answered
        elsewhere) cancels that ask. Both events reach ``on_event`` as well.

        Returns:
            The final ``done`` event (``status``: ``finished``, ``stopped``, ``failed`` or
            ``refused`` — too long —, ``content``, ``message``), or for a command
            ``{"status": "command", "content": reply}``.

        Raises:
            ConnectionError: The server went away mid-turn.
        """
        await self._send(
            {"op": "turn", "session": session, "content": content, "media": media or []}
        )
        asks: dict[str, asyncio.Task[None]] = {}
        started = False
        try:
            while True:
                event = await self._read()
                if event is None:
                    raise ConnectionError("the agent closed the connection")
                kind = event.get("event")
                if command and kind == "command":
                    return {"status": "command", "content": event.get("content", "")}
                if kind == "done":
                    return event
                if kind == "error" and not started:  # the request itself (too large) was refused
                    return {"status": "refused", "content": "", "message": event.get("message")}
                started = started or kind == "turn_started"
                on_event(event)
                key = str(event.get("id") or "")
                if kind == "approval" and ask is not None:
                    asks[key] = asyncio.ensure_future(self._ask(key, event, ask))
                elif kind == "approval_closed" and key in asks:
                    asks.pop(key).cancel()
        finally:
            for task in asks.values():
                task.cancel()
            await asyncio.gather(*asks.values(), return_exceptions=True)

    async def _ask(self, key: str, event: dict[str, Any], ask: Asker) -> None:
        decision = await ask(event)
        if decision is not None:
            await self._send({"op": "approve", "id": key, "decision": decision})

    async def close(self) -> None:
        """Close the connection."""
        self.writer.close()
        with contextlib.suppress(OSError, ConnectionError):
            await self.writer.wait_closed()
