"""slack-sdk's aiohttp Socket Mode client with every task it starts owned and awaited.

The SDK starts its work with ``asyncio.ensure_future`` and keeps no hold on all of it:

- the message processor (started in the constructor, ended only by ``close()``);
- a monitor and a receiver per connection; following Slack's ``disconnect`` envelope, the
  SDK opens a new connection within the same client and cancels the previous pair without
  waiting for them;
- one listener task per message received (the ``disconnect`` one runs that reconnect).

Its ``close()`` cancels the current tasks without waiting, and stops halfway when the caller
is cancelled while it waits for the WebSocket close handshake (the channel's stop cancels
its run, which is then closing): the processor, the monitor and the aiohttp session were
left behind. :class:`SocketClient` remembers each task as the SDK starts it, and
:meth:`SocketClient.aclose` closes the client and waits until all of them have ended, even
when its caller is cancelled meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from slack_sdk.socket_mode.aiohttp import SocketModeClient

from desktop.core.utils.redact import redact
from desktop.core.utils.tasks import finish

log = logging.getLogger(__name__)


class SocketClient(SocketModeClient):
    """A Socket Mode client whose :meth:`aclose` ends (and awaits) everything it started.

    Args:
        *args: As for slack-sdk's ``SocketModeClient``.
        close_timeout: Seconds the close handshake may take before the connection is
            dropped.
        **kwargs: As for slack-sdk's ``SocketModeClient``.
    """

    def __init__(self, *args: Any, close_timeout: float = 2.0, **kwargs: Any) -> None:
        self._retired: set[asyncio.Future[Any]] = set()  # monitors/receivers replaced
        self._handlers: set[asyncio.Future[Any]] = set()  # listener runs, one per message
        self._ending: asyncio.Future[None] | None = None
        self._close_timeout = close_timeout
        super().__init__(*args, **kwargs)

    async def connect(self) -> None:
        """Connect (as the SDK does), keeping the tasks of the connection it replaces."""
        previous = (self.current_session_monitor, self.message_receiver)
        try:
            await super().connect()  # type: ignore[no-untyped-call]  # slack_sdk leaves it unannotated
        finally:
            self._retired = {t for t in (*self._retired, *previous) if t and not t.done()}

    async def process_message(self) -> None:
        """Take the next received message and run the listeners on it in a task kept here.

        The SDK's own version starts that task and lets go of it.
        """
        raw = await self.message_queue.get()
        if raw is None or self.closed:
            return
        message = json.loads(raw) if raw.startswith("{") else {}
        handler = asyncio.ensure_future(self.run_message_listeners(message, raw))
        self._handlers.add(handler)
        handler.add_done_callback(self._handlers.discard)

    def _started(self) -> set[asyncio.Future[Any]]:
        """Every task of this client that has not ended yet."""
        tasks = {
            self.message_processor,
            self.current_session_monitor,
            self.message_receiver,
            *self._retired,
            *self._handlers,
        }
        return {task for task in tasks if task is not None and not task.done()}

    async def aclose(self) -> None:
        """Close the connection and wait until every task of the client has ended.

        Safe to call more than once, also at the same time (all wait for the one closing).
        Closing goes on to the end when the caller is cancelled meanwhile; the cancel is
        raised afterwards.
        """
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._end())
        await finish(self._ending)

    async def _end(self) -> None:
        try:
            async with asyncio.timeout(self._close_timeout):
                await self.close()  # type: ignore[no-untyped-call]  # slack_sdk leaves it unannotated
        except Exception as exc:  # noqa: BLE001 - the tasks and the session end below anyway
            log.debug("closing the Slack connection failed: %s", redact(exc))
        # close() stops early when the handshake fails; with closed set nothing starts anew.
        while left := self._started():
            for task in left:
                task.cancel()
            await asyncio.gather(*left, return_exceptions=True)
        if not self.aiohttp_client_session.closed:
            await self.aiohttp_client_session.close()
