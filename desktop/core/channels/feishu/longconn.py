"""The WebSocket long connection (``lark_oapi.ws.Client``) in a thread of its own.

lark-oapi's long-connection client is written for a program that gives it the whole process:
``Client.start()`` blocks forever on an event loop kept in a module global
(``lark_oapi.ws.client.loop``), reconnects on its own and never reports a lost connection.
Here it runs in a dedicated thread with its own event loop (the global is pointed at it; one
connection per process at a time, :data:`_ONE_AT_A_TIME`), without its automatic reconnect:
the session connects once (endpoint discovery, then the WebSocket), pings, and ends when the
connection closes, so the channel manager's backoff and status take over.

The SDK calls the event handlers synchronously on that thread's loop and answers each event
frame after the handler returned (a handler that raises is answered as a failure, and the
platform delivers the event again). The channel's handlers use :meth:`LongConnection.call` to
run a coroutine on the app's loop and wait for it, so an event is confirmed to the platform
only once the channel has it safe.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import lark_oapi as lark
import lark_oapi.ws.client as ws_client
from lark_oapi.ws.exception import ClientException

from desktop.core.utils.redact import RedactingFilter
from desktop.core.utils.tasks import TaskOwner

log = logging.getLogger(__name__)

T = TypeVar("T")
_ONE_AT_A_TIME = threading.Lock()  # the SDK keeps its loop in a module global
HANDLER_TIMEOUT_S = 30.0  # how long an event waits for the app (then it is not confirmed)
CONNECT_TIMEOUT_S = 60.0  # endpoint discovery and the WebSocket handshake together
JOIN_TIMEOUT_S = 15.0  # how long closing waits for the thread (it is a daemon thread)


def _release_import_loop() -> None:
    """lark-oapi makes (and sets) an event loop when it is first imported; one made in a
    worker thread (the manager imports channel packages off the event loop) is closed, so
    that thread is left as it was. Each session sets the SDK's loop anew (:meth:`_main`)."""
    if threading.current_thread() is threading.main_thread():
        return
    found = getattr(ws_client, "loop", None)
    if isinstance(found, asyncio.AbstractEventLoop) and not (
        found.is_running() or found.is_closed()
    ):
        found.close()
        asyncio.set_event_loop(None)


_release_import_loop()


class CredentialsRefused(Exception):
    """The platform refused the long connection for this app (endpoint discovery said so:
    wrong credentials, or an app that may not use it); a retry does not help."""


class _QuietQueries(logging.Filter):
    """Drops the query of logged WebSocket URLs (they carry a connection ticket), and the
    SDK's error about its receive loop ending (the channel reports a lost connection)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "receive message loop exit" in message:
            return False
        if "wss://" in message or "ws://" in message:
            record.msg = " ".join(
                word.split("?", 1)[0] if "://" in word else word for word in message.split(" ")
            )
            record.args = None
        return True


def quiet_sdk_logging() -> None:
    """Redact what lark-oapi logs (its own ``Lark`` logger prints to stdout)."""
    sdk = logging.getLogger("Lark")
    if not any(isinstance(f, RedactingFilter) for f in sdk.filters):
        sdk.addFilter(_QuietQueries())
        sdk.addFilter(RedactingFilter())


def _quiet_exceptions(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The SDK's receive loop ends with the connection's error, which nobody awaits."""
    log.debug("Feishu long connection: %s", context.get("exception") or context.get("message"))


class LongConnection:
    """One long-connection session, run in its own thread.

    Args:
        app_id: The app's ID.
        app_secret: The app's secret.
        domain: The Open API address (endpoint discovery goes there).
        handler: The SDK's event dispatcher (what each event frame is given to).
        owner: Owns the coroutines :meth:`call` runs on the app's loop.
    """

    def __init__(
        self,
        app_id: str,
        app_secret: str,
        domain: str,
        handler: lark.EventDispatcherHandler,
        owner: TaskOwner,
    ) -> None:
        self._settings = (app_id, app_secret, domain, handler)
        self._owner = owner
        self._app_loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._connected: asyncio.Future[None] | None = None
        self._ended: asyncio.Future[None] | None = None
        self._calls: set[concurrent.futures.Future[Any]] = set()
        self._closing = threading.Event()

    # -- the app's side -------------------------------------------------------------------
    async def connect(self) -> None:
        """Start the session; returns once connected.

        Raises:
            CredentialsRefused: The platform refused the app's credentials.
            Exception: Anything else that kept it from connecting (retry later).
        """
        loop = asyncio.get_running_loop()
        self._app_loop = loop
        self._connected = loop.create_future()
        self._ended = loop.create_future()
        for future in (self._connected, self._ended):  # awaited or not, never "unretrieved"
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._thread = threading.Thread(target=self._main, name="feishu-long-connection")
        self._thread.daemon = True
        self._thread.start()
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT_S):
                await asyncio.shield(self._connected)
        except TimeoutError:
            raise ConnectionError("Feishu's long connection did not open in time") from None

    async def wait_closed(self) -> None:
        """Return when the connection has ended (raises what ended it, if anything)."""
        assert self._ended is not None
        await asyncio.shield(self._ended)

    async def close(self) -> None:
        """End the session and wait for its thread (events waiting on the app fail)."""
        self._closing.set()
        for call in list(self._calls):
            call.cancel()
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended already
                loop.call_soon_threadsafe(stop.set)
        thread = self._thread
        if thread is not None:
            await asyncio.to_thread(thread.join, JOIN_TIMEOUT_S)
            if thread.is_alive():  # stuck in the SDK's endpoint request (it has no timeout)
                log.warning("Feishu: the long connection's thread did not end; left behind")

    def call(self, coro: Coroutine[Any, Any, T]) -> T:  # noqa: C901  # the thread-to-loop hand-off and each way it can end
        """Run ``coro`` on the app's loop (owned there) and wait for it; for the SDK thread.

        Raises:
            ConnectionError: The session is closing or the app did not answer in time.
        """
        app_loop = self._app_loop
        if app_loop is None or self._closing.is_set():
            coro.close()
            raise ConnectionError("the Feishu connection is closing")
        result: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._calls.add(result)

        def start() -> None:
            if result.cancelled():
                coro.close()
                return
            task = self._owner.try_spawn(coro, name="feishu-event")
            if task is None:  # the channel is stopping
                coro.close()
                result.cancel()
                return

            def copy(done: asyncio.Task[T]) -> None:
                if result.cancelled():
                    return
                if done.cancelled():
                    result.cancel()
                elif (error := done.exception()) is not None:
                    result.set_exception(error)
                else:
                    result.set_result(done.result())

            task.add_done_callback(copy)

        try:
            app_loop.call_soon_threadsafe(start)
            return result.result(timeout=HANDLER_TIMEOUT_S)
        except (concurrent.futures.CancelledError, concurrent.futures.TimeoutError):
            raise ConnectionError("the app did not take the event") from None
        except RuntimeError:  # the app's loop is closed
            coro.close()
            raise ConnectionError("the app is stopping") from None
        finally:
            self._calls.discard(result)

    # -- the connection's thread ------------------------------------------------------------
    def _report(self, future: asyncio.Future[None] | None, error: BaseException | None) -> None:
        app_loop = self._app_loop
        if future is None or app_loop is None:
            return

        def settle() -> None:
            if future.done():
                return
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)

        with contextlib.suppress(RuntimeError):  # the app's loop is gone
            app_loop.call_soon_threadsafe(settle)

    def _main(self) -> None:
        with _ONE_AT_A_TIME:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            loop.set_exception_handler(_quiet_exceptions)
            _drop_sdk_loop(ws_client.loop)
            ws_client.loop = loop  # the SDK schedules its receive loop on this global
            error: BaseException | None = None
            try:
                loop.run_until_complete(self._session())
            except BaseException as exc:  # noqa: BLE001 - reported to the app's side
                error = exc
            finally:
                self._teardown(loop)
                self._report(self._connected, error or ConnectionError("connection ended"))
                self._report(self._ended, error)

    @staticmethod
    def _teardown(loop: asyncio.AbstractEventLoop) -> None:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        asyncio.set_event_loop(None)
        loop.close()

    async def _session(self) -> None:
        self._stop = asyncio.Event()
        if self._closing.is_set():
            return
        app_id, app_secret, domain, handler = self._settings
        # Made here: the client starts a cache-cleaning task on the current loop, which must
        # be this thread's (ended with it), not the app's.
        client = lark.ws.Client(
            app_id,
            app_secret,
            event_handler=handler,
            domain=domain,
            auto_reconnect=False,
            log_level=lark.LogLevel.WARNING,
        )
        try:
            await client._connect()  # endpoint discovery (blocking HTTP: this thread), then WS
        except ClientException as exc:
            raise CredentialsRefused(str(exc)) from None
        conn = client._conn
        if conn is None:
            raise ConnectionError("the long connection did not open")
        self._report(self._connected, None)
        ping = asyncio.create_task(client._ping_loop())
        closed = asyncio.create_task(conn.wait_closed())
        stop = asyncio.create_task(self._stop.wait())
        try:
            await asyncio.wait({closed, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (ping, closed, stop):
                task.cancel()
            await asyncio.gather(ping, closed, stop, return_exceptions=True)
            with contextlib.suppress(Exception):
                await client._disconnect()
        if not self._stop.is_set():
            raise ConnectionError("the Feishu long connection was closed")


def _drop_sdk_loop(old: asyncio.AbstractEventLoop) -> None:
    """Close the loop the SDK made for itself at import (``asyncio.get_event_loop()``), which
    nothing runs once ours replaces it; left open, it is collected unclosed (a warning)."""
    if not old.is_running() and not old.is_closed():
        old.close()
