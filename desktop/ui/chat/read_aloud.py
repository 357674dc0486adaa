"""Read aloud: an answer spoken by the system's speech synthesiser (``espeak-ng``).

One answer at a time: reading another stops the first; the message's action (now "Stop
reading aloud") or Esc in the conversation stops it. The synthesiser runs as a child process fed
the text on its standard input; the task that waits for it belongs to a
:class:`~desktop.core.utils.tasks.TaskOwner`, which kills the process when it is cancelled.
Where no synthesiser is installed the action is not offered.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.core.utils.tasks import TaskOwner, finish
from desktop.ui.i18n import tr

PROGRAMS = ("espeak-ng", "espeak")
MAX_CHARS = 20_000
"""Longer answers are read up to here."""


def synthesiser() -> str | None:
    """The speech synthesiser's path, or ``None`` when none is installed."""
    return next((path for path in map(shutil.which, PROGRAMS) if path), None)


class ReadAloud(QObject):
    """Speaks one text at a time.

    Signals:
        speakingChanged(bool): reading started or ended.
    """

    speakingChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.program: str | None = None
        """The synthesiser found (``None``: none, or not looked up yet)."""
        self.text: str | None = None
        """What is being read, or ``None``."""
        self.process: asyncio.subprocess.Process | None = None
        self.tasks = TaskOwner("read-aloud")
        self._current: object | None = None  # the reading under way (a later one replaces it)
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # built outside the loop: looking on the PATH blocks nothing
            self.program = synthesiser()
        else:  # the window is built inside a loop callback: look on the PATH in a thread
            self.tasks.try_spawn(self._find(), name="read-aloud-find")

    async def _find(self) -> None:
        self.program = await asyncio.to_thread(synthesiser)

    @property
    def speaking(self) -> bool:
        """Whether something is being read."""
        return self.text is not None

    def action(self, text: str) -> tuple[str, Callable[[], None]] | None:
        """The context menu entry for an answer with ``text`` (``None``: no synthesiser)."""
        if self.program is None or not text.strip():
            return None
        if self.text == text:
            return (tr("Stop reading aloud"), self.stop)
        return (tr("Read aloud"), lambda: self.read(text))

    def entries(self, item: Any, *, streaming: bool) -> list[tuple[str, Callable[[], None]]]:
        """The context menu entries for a chat row (an answer done streaming has one)."""
        entry = self.action(item.plain_text()) if item.kind == "assistant" else None
        return [entry] if entry is not None and not streaming else []

    def read(self, text: str) -> None:
        """Read ``text`` aloud (stops what was being read)."""
        self.stop()
        self.text = text
        token = self._current = object()
        self.speakingChanged.emit(True)
        self.tasks.try_spawn(self._speak(text, token), name="read-aloud")

    async def _speak(self, text: str, token: object) -> None:
        assert self.program is not None
        process: asyncio.subprocess.Process | None = None
        try:
            process = await asyncio.create_subprocess_exec(
                self.program,
                "--stdin",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            if self._current is token:
                self.process = process
            assert process.stdin is not None
            process.stdin.write(text[:MAX_CHARS].encode())
            with contextlib.suppress(ConnectionError):
                await process.stdin.drain()
            process.stdin.close()
            await process.wait()
        except OSError:
            pass  # the synthesiser went away: nothing to read with
        finally:
            if process is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await finish(process.wait())
            if self._current is token:
                self._finished()

    def stop(self) -> None:
        """Stop reading (nothing happens when nothing is read)."""
        if self.text is None:
            return
        self.tasks.cancel()  # the task kills its process
        self._finished()

    def _finished(self) -> None:
        self._current = self.process = self.text = None
        self.speakingChanged.emit(False)

    def close(self) -> None:
        """Stop reading (the window closes)."""
        self.tasks.cancel()
