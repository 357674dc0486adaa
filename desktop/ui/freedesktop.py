"""The freedesktop notification service (``org.freedesktop.Notifications``) over D-Bus.

Uses jeepney's asyncio client (already installed with ``keyring`` on Linux), because QtDBus
from Python cannot marshal the ``u`` (uint32) argument of ``Notify``: PySide turns Python
ints into ``i``/``q`` and the daemons reject the call. Everything here is asyncio and never
blocks the event loop; any failure means "no notification service" and the caller falls back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop.core.utils.i18n import QT_TR_NOOP
from desktop.core.utils.tasks import cancel_and_wait, finish

log = logging.getLogger(__name__)

BUS_NAME = "org.freedesktop.Notifications"
OBJECT_PATH = "/org/freedesktop/Notifications"
INTERFACE = "org.freedesktop.Notifications"
NOTIFY_SIGNATURE = "susssasa{sv}i"
CALL_TIMEOUT_S = 3.0
DEFAULT_ACTION = "default"


@dataclass(frozen=True)
class NotificationRequest:
    """Arguments of ``Notify`` (freedesktop notification spec 1.2).

    Attributes:
        summary: Title line.
        body: Text (escaped for servers with ``body-markup``).
        app_name: Sender name.
        app_icon: Icon name or absolute path.
        actions: Flat ``[key, label, key, label, …]`` list; ``default`` is a click on the bubble.
            Labels are shown as given: pass them translated (the default's is English).
        hints: ``{name: (dbus_signature, value)}``.
        timeout_ms: ``-1`` lets the server decide.
        replaces_id: ``0`` for a new notification.
    """

    summary: str
    body: str
    app_name: str = "nanobot Desktop"
    app_icon: str = ""
    actions: tuple[str, ...] = (DEFAULT_ACTION, QT_TR_NOOP("Open chat"))
    hints: dict[str, tuple[str, Any]] = field(default_factory=dict)
    timeout_ms: int = -1
    replaces_id: int = 0

    def dbus_args(self) -> tuple[Any, ...]:
        """The ``Notify`` arguments in order, matching :data:`NOTIFY_SIGNATURE`."""
        return (
            self.app_name,
            self.replaces_id,
            self.app_icon,
            self.summary,
            self.body,
            list(self.actions),
            dict(self.hints),
            self.timeout_ms,
        )


ActionCallback = Callable[[int, str], None]
ClosedCallback = Callable[[int, int], None]


class FreedesktopNotifications:
    """A session-bus client for the notification service.

    Args:
        on_action: Called with ``(notification_id, action_key)`` on ``ActionInvoked``.
        on_closed: Called with ``(notification_id, reason)`` on ``NotificationClosed``.
    """

    def __init__(
        self, on_action: ActionCallback | None = None, on_closed: ClosedCallback | None = None
    ) -> None:
        self.on_action = on_action
        self.on_closed = on_closed
        self.capabilities: list[str] = []
        self.server: tuple[str, ...] = ()
        self._conn: Any = None
        self._router: Any = None
        self._listener: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.error: str | None = None

    @property
    def connected(self) -> bool:
        """Whether a connection to the session bus is open."""
        return self._router is not None

    async def open(self) -> bool:
        """Connect and subscribe to the signals once; ``False`` when no service answers.

        A failed attempt is retried on the next call (a daemon may have started since).
        """
        async with self._lock:
            if self._router is not None:
                return True
            return await self._open()

    async def _open(self) -> bool:
        try:
            from jeepney import MatchRule, message_bus
            from jeepney.io.asyncio import DBusRouter, Proxy
        except ImportError as exc:  # not on Linux, or jeepney missing
            self.error = f"no D-Bus client ({exc})"
            return False
        try:
            async with asyncio.timeout(CALL_TIMEOUT_S):
                conn = await _connect()
        except Exception as exc:  # noqa: BLE001 - no session bus (KeyError, OSError…)
            self.error = f"no session bus ({type(exc).__name__}: {exc})"
            return False
        router = DBusRouter(conn)
        rule = MatchRule(type="signal", interface=INTERFACE, path=OBJECT_PATH)
        try:
            bus = Proxy(message_bus, router)
            async with asyncio.timeout(CALL_TIMEOUT_S):
                # Hello first (the bus answers nothing else before it), then the signals.
                (conn.unique_name,) = await bus.Hello()
                await bus.AddMatch(rule)
            info = await self._call(router, "GetServerInformation", "", ())
            self.server = tuple(str(x) for x in info)
            caps = await self._call(router, "GetCapabilities", "", ())
            self.capabilities = list(caps[0]) if caps else []
        except BaseException as exc:  # a cancel too: the connection is ours to close
            await finish(self._close(router, conn))
            if not isinstance(exc, Exception):
                raise
            # Any failure means "no service": the caller falls back.
            self.error = f"no notification service ({type(exc).__name__}: {exc})"
            return False
        self._conn, self._router = conn, router
        queue: asyncio.Queue[Any] = asyncio.Queue()
        handle = router.filter(rule, queue=queue)
        self._listener = asyncio.ensure_future(self._listen(handle, queue))
        log.info("notification service: %s", " ".join(self.server))
        return True

    async def _call(
        self, router: Any, method: str, signature: str, body: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        from jeepney import DBusAddress, new_method_call
        from jeepney.wrappers import unwrap_msg

        address = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=INTERFACE)
        message = new_method_call(address, method, signature or None, body)
        async with asyncio.timeout(CALL_TIMEOUT_S):
            reply = await router.send_and_get_reply(message)
        return tuple(unwrap_msg(reply))

    async def _listen(self, handle: Any, queue: asyncio.Queue[Any]) -> None:
        with handle:
            while True:
                message = await queue.get()
                member = message.header.fields.get(_member_field())
                try:
                    if member == "ActionInvoked" and self.on_action is not None:
                        self.on_action(int(message.body[0]), str(message.body[1]))
                    elif member == "NotificationClosed" and self.on_closed is not None:
                        self.on_closed(int(message.body[0]), int(message.body[1]))
                except Exception:
                    log.exception("notification signal handler failed")

    def markup(self) -> bool:
        """Whether the server renders body markup (then text must be escaped)."""
        return "body-markup" in self.capabilities

    async def notify(self, request: NotificationRequest) -> int:
        """Show ``request``; returns the server's notification id.

        Raises:
            ConnectionError: No notification service (the caller falls back).
        """
        if not await self.open():
            raise ConnectionError(self.error or "no notification service")
        try:
            result = await self._call(self._router, "Notify", NOTIFY_SIGNATURE, request.dbus_args())
        except Exception as exc:
            raise ConnectionError(f"Notify failed: {type(exc).__name__}: {exc}") from exc
        return int(result[0])

    async def close(self) -> None:
        """Stop listening and close the connection (to the end, even when cancelled meanwhile)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            await cancel_and_wait(listener)
        router, conn = self._router, self._conn
        self._router = self._conn = None
        if router is not None:
            await finish(self._close(router, conn))

    @staticmethod
    async def _close(router: Any, conn: Any) -> None:
        try:
            with contextlib.suppress(Exception):
                await router.__aexit__(None, None, None)
        finally:
            with contextlib.suppress(Exception):
                await conn.close()


async def _connect() -> Any:
    """Open the session bus and authenticate (the bus's ``Hello`` is the caller's first call).

    jeepney's ``open_dbus_connection`` leaves its socket open when it is cancelled or its
    timeout ends halfway; here any failure or cancel closes it.

    Returns:
        The authenticated ``jeepney.io.asyncio.DBusConnection``.
    """
    from jeepney.auth import BEGIN, Authenticator
    from jeepney.bus import get_bus
    from jeepney.io.asyncio import DBusConnection

    reader, writer = await asyncio.open_unix_connection(get_bus("SESSION"))
    try:
        auth = Authenticator()
        for line in auth:
            writer.write(line)
            await writer.drain()
            answer = await reader.read(1024)
            if not answer:
                raise EOFError("the bus closed the connection while authenticating")
            auth.feed(answer)
        writer.write(BEGIN)
        await writer.drain()
    except BaseException:
        writer.close()
        raise
    return DBusConnection(reader, writer)


def _member_field() -> Any:
    from jeepney import HeaderFields

    return HeaderFields.member
