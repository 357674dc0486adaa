"""Being told when a file lands in a folder, without looking at it on a timer.

On Linux a :class:`DirWatch` is an inotify watch on one folder whose file descriptor the
running asyncio loop reads (``add_reader``; qasync's loop too): the process sleeps until a
file is written and closed there or moved in (an atomic write's rename), then the callback
runs on the loop. Elsewhere, or when inotify cannot be had (no folder, the per-user watch
limit reached), :meth:`DirWatch.open` returns ``None`` and the caller keeps looking on its
timer. A watch whose folder is deleted or moved away ends (:attr:`DirWatch.alive` turns
false, the callback runs once more); the caller opens a new one when the folder is back.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import struct
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["DirWatch"]

# <sys/inotify.h>
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_TO = 0x00000080
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
WATCHED = IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
ENDED = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED
EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)
READ_SIZE = 64 * 1024


@cache
def _libc() -> ctypes.CDLL | None:
    """The C library when it has inotify (Linux), else ``None``."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    if not hasattr(libc, "inotify_init1") or not hasattr(libc, "inotify_add_watch"):
        return None
    libc.inotify_init1.argtypes = [ctypes.c_int]
    libc.inotify_init1.restype = ctypes.c_int
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    libc.inotify_add_watch.restype = ctypes.c_int
    return libc


def _ended(data: bytes) -> bool:
    """Whether the events in ``data`` say the watch is over (its folder deleted or moved).

    A queue overflow only means events were lost: the callback runs anyway, and the caller
    looks at the whole folder.
    """
    offset = 0
    while offset + EVENT.size <= len(data):
        _wd, mask, _cookie, length = EVENT.unpack_from(data, offset)
        if mask & ENDED:
            return True
        offset += EVENT.size + length
    return False


class DirWatch:
    """An inotify watch on one folder that calls ``on_change`` on the running loop.

    Made by :meth:`open`; :meth:`close` ends it (idempotent).
    """

    def __init__(
        self, fd: int, loop: asyncio.AbstractEventLoop, on_change: Callable[[], None]
    ) -> None:
        self._fd = fd
        self._loop = loop
        self._on_change = on_change
        self.alive = True

    @classmethod
    def open(cls, folder: Path, on_change: Callable[[], None]) -> DirWatch | None:
        """Watch ``folder`` for files written or moved into it; ``None`` when that cannot be
        done here (not Linux, no such folder, no inotify watch left).

        Must be called on the running loop, which then calls ``on_change`` after each batch
        of changes.
        """
        libc = _libc()
        if libc is None:
            return None
        loop = asyncio.get_running_loop()
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            log.debug("inotify_init1 failed: %s", os.strerror(ctypes.get_errno()))
            return None
        if libc.inotify_add_watch(fd, os.fsencode(folder), WATCHED) < 0:
            log.debug("cannot watch %s: %s", folder, os.strerror(ctypes.get_errno()))
            os.close(fd)
            return None
        watch = cls(fd, loop, on_change)
        try:
            loop.add_reader(fd, watch._readable)
        except (NotImplementedError, RuntimeError):  # a loop that cannot watch descriptors
            os.close(fd)
            return None
        return watch

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as exc:
            log.debug("reading the inotify watch failed: %s", exc)
            data = EVENT.pack(-1, IN_IGNORED, 0, 0)
        if _ended(data):
            self.close()
        self._on_change()

    def close(self) -> None:
        """Stop watching (the callback is not called again)."""
        if not self.alive:
            return
        self.alive = False
        try:
            self._loop.remove_reader(self._fd)
        except RuntimeError:  # the loop is already closed
            pass
        os.close(self._fd)
