"""QQ's WebSocket gateway, driven here rather than by botpy's ``Client``.

botpy's client reconnects on its own forever (a lost connection never reaches the channel
manager's status and backoff), runs every event as an unowned task (no order within a chat;
the sequence number moves on before the event is handled), starts its heartbeats as unowned
tasks at a fixed 30 s whatever ``HELLO`` says, checks no TLS certificate, and a frame it
cannot read ends the connection. The documented protocol is small, so this module speaks it
with aiohttp (botpy's own transport), using botpy's opcodes and intents:

``HELLO`` (op 10, ``heartbeat_interval``) → ``IDENTIFY`` (op 2: token, intents, shard) or
``RESUME`` (op 6: token, session id, last sequence) → ``READY`` / ``RESUMED`` dispatches;
heartbeats (op 1 with the last sequence, answered by op 11); dispatches (op 0) carry ``t``,
``s`` and ``d``; ``RECONNECT`` (op 7) asks for a resume, ``INVALID_SESSION`` (op 9) for a new
identify.

A dispatch's sequence number counts as received only after :attr:`Gateway.handle` has
returned for it, so a resume after a lost connection gets again what was not yet handled.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from botpy.flags import Intents
from botpy.gateway import BotWebSocket

from desktop.core.utils.tasks import cancel_and_wait

log = logging.getLogger(__name__)

OP = BotWebSocket  # the opcodes, named as botpy names them
INTENTS = Intents(public_messages=True, direct_message=True).value
"""C2C and group @ messages, and guild direct messages."""
HELLO_TIMEOUT_S = 20.0


@dataclass
class Session:
    """What a resume needs (kept across restarts by the channel).

    Attributes:
        session_id: From ``READY``; empty before the first identify.
        seq: The last handled dispatch's sequence number.
    """

    session_id: str = ""
    seq: int = 0


@dataclass(frozen=True)
class Dispatch:
    """One op 0 frame.

    Attributes:
        event: Its type (``C2C_MESSAGE_CREATE`` …).
        seq: Its sequence number (0 when missing).
        event_id: Its ``id`` (an event id, used for passive replies to some events).
        data: Its ``d`` (not checked: the handler validates).
    """

    event: str
    seq: int
    event_id: str
    data: Any


class SessionLost(ConnectionError):
    """The gateway ended the connection."""


class Gateway:
    """One connection to the gateway.

    Args:
        url: The ``wss://`` address from ``/gateway/bot``.
        token: Returns the current ``QQBot <access token>`` string (renewed when due).
        session: Resumed when it has an id; updated as dispatches are handled.
        handle: Awaited for each dispatch, in order (its failure is logged; the frame is
            skipped).
        on_ready: Called with ``READY``'s data (or ``None`` after a ``RESUMED``).
        saved: Awaited after the session changed (to persist it).
    """

    def __init__(
        self,
        url: str,
        token: Callable[[], Awaitable[str]],
        session: Session,
        handle: Callable[[Dispatch], Awaitable[None]],
        on_ready: Callable[[dict[str, Any] | None], Awaitable[None]],
        saved: Callable[[Session], Awaitable[None]],
    ) -> None:
        self.url = url
        self._token = token
        self.session = session
        self._handle = handle
        self._on_ready = on_ready
        self._saved = saved
        self._acked = True

    async def run(self) -> None:
        """Connect and receive until the connection ends (raises :class:`SessionLost`)."""
        timeout = aiohttp.ClientWSTimeout(ws_close=5.0)
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(self.url, timeout=timeout, autoping=True, max_msg_size=0) as ws,
        ):
            async with asyncio.timeout(HELLO_TIMEOUT_S):
                hello = await self._frame(ws)
            if hello is None or hello.get("op") != OP.WS_HELLO:
                raise SessionLost("the QQ gateway did not say hello")
            found = hello.get("d")
            data: dict[str, Any] = found if isinstance(found, dict) else {}
            interval = float(data.get("heartbeat_interval") or 41250) / 1000
            await self._login(ws)
            beat = asyncio.create_task(self._heartbeat(ws, interval), name="qq-heartbeat")
            try:
                await self._receive(ws)
            finally:
                await cancel_and_wait(beat)

    async def _login(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        token = await self._token()
        if self.session.session_id:
            payload: dict[str, Any] = {
                "op": OP.WS_RESUME,
                "d": {
                    "token": token,
                    "session_id": self.session.session_id,
                    "seq": self.session.seq,
                },
            }
        else:
            payload = {
                "op": OP.WS_IDENTITY,
                "d": {"token": token, "intents": INTENTS, "shard": [0, 1], "properties": {}},
            }
        await ws.send_str(json.dumps(payload))

    async def _frame(self, ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any] | None:
        """The next JSON frame; ``None`` for one that is not a JSON object (skipped)."""
        message = await ws.receive()
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            raise SessionLost(f"the QQ gateway closed the connection ({ws.close_code})")
        if message.type == aiohttp.WSMsgType.ERROR:
            raise SessionLost(f"the QQ gateway connection failed ({ws.exception()})")
        if message.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
            return None
        try:
            frame = json.loads(message.data)
        except (ValueError, UnicodeDecodeError):
            log.warning("QQ: skipping a gateway frame that is not JSON")
            return None
        if not isinstance(frame, dict):
            log.warning("QQ: skipping a gateway frame that is not an object")
            return None
        return frame

    async def _receive(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        while True:
            frame = await self._frame(ws)
            if frame is None:
                continue
            op = frame.get("op")
            if op == OP.WS_HEARTBEAT_ACK:
                self._acked = True
            elif op == OP.WS_HEARTBEAT:
                await ws.send_str(json.dumps({"op": OP.WS_HEARTBEAT, "d": self.session.seq}))
            elif op == OP.WS_RECONNECT:
                raise SessionLost("the QQ gateway asked for a reconnect")
            elif op == OP.WS_INVALID_SESSION:
                log.info("QQ: the session cannot be resumed; identifying anew")
                self.session = Session()
                await self._saved(self.session)
                await self._login(ws)
            elif op == OP.WS_DISPATCH_EVENT:
                await self._dispatch(frame)

    async def _dispatch(self, frame: dict[str, Any]) -> None:
        event = frame.get("t")
        seq = frame.get("s")
        if not isinstance(event, str) or not isinstance(seq, int | None):
            log.warning("QQ: skipping a malformed gateway event")
            return
        data = frame.get("d")
        if event == "READY":
            ready = data if isinstance(data, dict) else {}
            self.session = Session(str(ready.get("session_id") or ""), seq or 0)
            await self._saved(self.session)
            await self._on_ready(ready)
            return
        if event == "RESUMED":
            await self._on_ready(None)
            return
        try:
            await self._handle(Dispatch(event, seq or 0, str(frame.get("id") or ""), data))
        except (asyncio.CancelledError, ConnectionError):
            raise
        except Exception:
            log.exception("QQ: handling a %s event failed; skipped", event)
        if seq and seq > self.session.seq:
            self.session.seq = seq
            await self._saved(self.session)

    async def _heartbeat(self, ws: aiohttp.ClientWebSocketResponse, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            if not self._acked:  # no answer to the last one: the connection is dead
                log.warning("QQ: the gateway stopped answering heartbeats")
                with contextlib.suppress(Exception):
                    await ws.close()
                return
            self._acked = False
            await ws.send_str(json.dumps({"op": OP.WS_HEARTBEAT, "d": self.session.seq or None}))
