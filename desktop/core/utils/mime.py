"""Media types of file names, without blocking the event loop.

:mod:`mimetypes` reads the system's type tables (``/etc/mime.types`` and friends) the first
time any of its guesses runs: file I/O that must not happen on the event loop. The async
helpers here load the tables once, in a worker thread, and then answer from memory; code that
already runs in a worker thread may call :mod:`mimetypes` directly.
"""

from __future__ import annotations

import asyncio
import mimetypes
import os
import threading

_lock = threading.Lock()
_loaded = False  # set once the tables are in memory (``mimetypes.inited`` is set before that)


def _load() -> None:
    """Read the type tables unless they were read already (blocking; any thread)."""
    global _loaded
    with _lock:
        if not _loaded:
            mimetypes.guess_type("probe.txt")  # reads the tables if they are not in memory yet
            _loaded = True


async def ready() -> None:
    """Make sure the type tables are loaded (in a worker thread, once per process)."""
    if not _loaded:
        await asyncio.to_thread(_load)


async def guess_type(name: str | os.PathLike[str]) -> str | None:
    """The media type of a file name or path (``image/png``), or ``None`` when unknown."""
    await ready()
    return mimetypes.guess_type(os.fspath(name))[0]


async def guess_extension(mime: str) -> str | None:
    """The usual extension (with its dot) of a media type, or ``None`` when unknown."""
    await ready()
    return mimetypes.guess_extension(mime)
