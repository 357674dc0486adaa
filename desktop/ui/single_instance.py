"""One window per config folder: a lock file, and a local socket that says "activate".

The first launch takes a :class:`QLockFile` in the config folder and listens on a
:class:`QLocalServer`. A second launch fails to take the lock, connects to the server, sends
``activate`` and exits; the first one raises its window. A lock left behind by a crash (the
process is gone) is recognised as stale by Qt and taken over.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QLockFile, QObject, Signal

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

LOCK_FILE_NAME = "desktop.lock"
ACTIVATE = b"activate\n"


def server_name(lock_dir: Path) -> str:
    """A local-socket name unique to the user and the config folder."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    digest = hashlib.sha1(f"{user}:{lock_dir.resolve()}".encode()).hexdigest()[:16]
    return f"nanobot-desktop-{digest}"


class SingleInstance(QObject):
    """The lock and the activation channel of the running instance.

    Args:
        lock_dir: Folder for the lock file (the config folder, ``~/.nanobot``).
        parent: Owner.

    Signals:
        activateRequested(): another launch asked this instance to come to the front.
    """

    activateRequested = Signal()

    def __init__(self, lock_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.lock_dir = lock_dir
        self.name = server_name(lock_dir)
        self._lock: QLockFile | None = None
        self._server: QLocalServer | None = None  # created by listen() (QtNetwork loads late)
        self._clients: set[QLocalSocket] = set()

    @property
    def lock_path(self) -> Path:
        """The lock file."""
        return self.lock_dir / LOCK_FILE_NAME

    def acquire(self) -> bool:
        """Take the lock; ``False`` when another live process holds it.

        A lock whose owner died (crash, ``kill -9``) is stale and is taken over.
        """
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        lock = QLockFile(str(self.lock_path))
        # Only a dead owner makes the lock stale: the app holds it for days.
        lock.setStaleLockTime(0)
        if not lock.tryLock(0):
            error = lock.error()
            if error == QLockFile.LockError.LockFailedError:
                return False
            # Permission or unknown errors: run anyway rather than refuse to start.
            log.warning(
                "could not take the instance lock %s (%s); continuing", self.lock_path, error
            )
            return True
        self._lock = lock
        return True

    def listen(self) -> bool:
        """Start the activation server (call after :meth:`acquire` succeeded)."""
        from PySide6.QtNetwork import QLocalServer

        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        QLocalServer.removeServer(self.name)  # a socket file left by a crash
        if not server.listen(self.name):
            log.warning("single-instance server not listening: %s", server.errorString())
            return False
        server.newConnection.connect(self._on_connection)
        self._server = server
        return True

    def _on_connection(self) -> None:
        server = self._server
        if server is None:
            return
        while server.hasPendingConnections():
            socket = server.nextPendingConnection()
            if socket is None:
                break
            self._clients.add(socket)
            socket.readyRead.connect(lambda sock=socket: self._read(sock))
            socket.disconnected.connect(lambda sock=socket: self._drop(sock))
            if socket.bytesAvailable():
                self._read(socket)

    def _read(self, socket: QLocalSocket) -> None:
        if socket not in self._clients:
            return
        data = bytes(socket.readAll().data())
        if ACTIVATE.strip() in data:
            self.activateRequested.emit()

    def _drop(self, socket: QLocalSocket) -> None:
        if socket in self._clients:
            self._clients.discard(socket)
            socket.deleteLater()

    def activate_running(self, timeout_ms: int = 3000) -> bool:
        """Ask the instance that holds the lock to come to the front (blocking, short).

        Retries while the other instance is still starting its server.
        """
        import time

        from PySide6.QtNetwork import QLocalSocket

        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            socket = QLocalSocket()
            socket.connectToServer(self.name)
            if socket.waitForConnected(300):
                socket.write(ACTIVATE)
                socket.flush()
                socket.waitForBytesWritten(500)
                socket.disconnectFromServer()
                return True
            if time.monotonic() >= deadline:
                log.warning("could not reach the running instance: %s", socket.errorString())
                return False
            time.sleep(0.1)

    def release(self) -> None:
        """Stop listening and unlock (at shutdown)."""
        for socket in list(self._clients):
            socket.readyRead.disconnect()
            socket.disconnected.disconnect()
            socket.abort()
            socket.deleteLater()
        self._clients.clear()
        if self._server is not None:
            self._server.close()
            self._server.deleteLater()
            self._server = None
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None
