"""A private D-Bus session bus with a scripted ``org.freedesktop.Notifications`` service.

:class:`PrivateBus` runs a real ``dbus-daemon``; :class:`FakeNotificationServer` owns the
notification name on it (jeepney, in a thread), records every ``Notify`` call with its D-Bus
signature, and can emit ``ActionInvoked``/``NotificationClosed`` as a daemon does when the
person clicks. The app's client talks to it over a real bus, exactly as to dunst or GNOME.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import threading
from dataclasses import dataclass
from typing import Any

from jeepney import DBusAddress, HeaderFields, MessageType, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


class PrivateBus:
    """A ``dbus-daemon --session`` of our own; :attr:`address` goes in DBUS_SESSION_BUS_ADDRESS."""

    def __init__(self) -> None:
        binary = shutil.which("dbus-daemon")
        if binary is None:
            raise FileNotFoundError("dbus-daemon")
        self.process = subprocess.Popen(
            [binary, "--session", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        self.address = self.process.stdout.readline().strip()
        if not self.address:
            self.close()
            raise RuntimeError("dbus-daemon printed no address")

    def close(self) -> None:
        """Stop the daemon (and close our end of its output pipe)."""
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@dataclass
class NotifyCall:
    """One ``Notify`` call as received."""

    signature: str
    args: tuple[Any, ...]

    @property
    def summary(self) -> str:
        return str(self.args[3])

    @property
    def body(self) -> str:
        return str(self.args[4])


class FakeNotificationServer:
    """Serves the notification interface on ``address`` until :meth:`stop`.

    Args:
        address: The bus address.
        capabilities: What ``GetCapabilities`` answers.
    """

    def __init__(self, address: str, capabilities: tuple[str, ...] = ("body", "actions")) -> None:
        self.address = address
        self.capabilities = list(capabilities)
        self.calls: list[NotifyCall] = []
        self._outbox: queue.Queue[Any] = queue.Queue()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._next_id = 41
        self._thread = threading.Thread(target=self._run, daemon=True, name="fake-notifications")

    def start(self) -> FakeNotificationServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake notification server did not start")
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def invoke_action(self, notification_id: int, action: str = "default") -> None:
        """Emit ``ActionInvoked`` (the person clicked the notification)."""
        self._outbox.put(("ActionInvoked", "us", (notification_id, action)))

    def close_notification(self, notification_id: int, reason: int = 2) -> None:
        """Emit ``NotificationClosed`` (2: dismissed by the person)."""
        self._outbox.put(("NotificationClosed", "uu", (notification_id, reason)))

    def _run(self) -> None:
        conn = open_dbus_connection(bus=self.address)
        try:
            reply = conn.send_and_get_reply(message_bus.RequestName(NAME, 4))
            assert reply.body[0] == 1, reply.body
            self._ready.set()
            source = DBusAddress(PATH, interface=NAME)
            while not self._stop.is_set():
                while not self._outbox.empty():
                    member, signature, body = self._outbox.get()
                    conn.send(new_signal(source, member, signature, body))
                try:
                    message = conn.receive(timeout=0.05)
                except TimeoutError:
                    continue
                if message.header.message_type == MessageType.method_call:
                    conn.send(self._answer(message))
        finally:
            conn.close()

    def _answer(self, message: Any) -> Any:
        member = message.header.fields.get(HeaderFields.member)
        if member == "Notify":
            signature = message.header.fields.get(HeaderFields.signature, "")
            self.calls.append(NotifyCall(signature, tuple(message.body)))
            self._next_id += 1
            return new_method_return(message, "u", (self._next_id,))
        if member == "GetCapabilities":
            return new_method_return(message, "as", (self.capabilities,))
        if member == "GetServerInformation":
            return new_method_return(message, "ssss", ("fake", "tests", "1.0", "1.2"))
        if member == "CloseNotification":
            return new_method_return(message)
        return new_method_return(message)
