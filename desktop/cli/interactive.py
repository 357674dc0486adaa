"""The interactive ``nanobot-desktop agent`` prompt: what is typed, and stopping an answer.

The terminal is read all the time, also while an answer streams (one daemon thread reads the
lines; Ctrl-C is a signal handler on the event loop):

* ``/stop`` + Enter, or Ctrl-C, while an answer streams stops that turn (its text so far is
  kept in the session, as in the window) and the prompt comes back;
* Ctrl-C at the prompt, a second Ctrl-C while a turn is stopping, Ctrl-D, ``/exit`` or
  ``/quit`` end the chat (Ctrl-D during an answer: after it);
* other lines typed during an answer are sent after it, in order.

Both ways of chatting use it: with the agent of this process (:mod:`desktop.cli.chat_local`)
and with the running app's or gateway's agent (:mod:`desktop.cli.chat`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from desktop.core.utils.threads import start_daemon

QUIT_COMMANDS = ("/exit", "/quit")
STOP_COMMAND = "/stop"
EXIT_OK = 0
EXIT_INTERRUPTED = 130
PROMPT = "you> "
ANSWER = "nanobot> "
STOPPING = "[stopping… Ctrl-C again quits]"
#: The line under the greeting.
HELP = "Ctrl-C or /stop stops an answer; Ctrl-D or /exit quits."
STOPPED = "[stopped]"

Event = tuple[str, str]  # ("line", text) | ("eof", "") | ("interrupt", "")
_active: _Terminal | None = None  # the terminal of the running :func:`converse`


class _Terminal:
    """Lines typed and Ctrl-C presses, as one queue of events on the loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self.events: asyncio.Queue[Event] = asyncio.Queue()
        self._getter: asyncio.Task[Event] | None = None
        self._question: asyncio.Future[str | None] | None = None
        self.signals = False
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, self._put, ("interrupt", ""))
            self.signals = True
        start_daemon(self._read, "stdin")

    def _put(self, event: Event) -> None:
        question, (kind, text) = self._question, event
        if question is not None and not question.done() and kind != "interrupt":
            question.set_result(text if kind == "line" else None)  # the answer, not a message
            if kind == "line":
                return
        self.events.put_nowait(event)

    async def ask(self) -> str | None:
        """The next line typed, as the answer to a question (``None`` at the end of input).

        While a question waits, lines go to it instead of being queued as messages; Ctrl-C
        still reaches the running answer (it stops the turn, which closes the question).
        """
        self._question = self._loop.create_future()
        try:
            return await self._question
        finally:
            self._question = None

    def _read(self) -> None:
        """The reading thread: every line, then ``eof`` (blocking; never on the loop)."""
        while True:
            line = sys.stdin.readline()
            event: Event = ("line", line.rstrip("\r\n")) if line else ("eof", "")
            try:
                self._loop.call_soon_threadsafe(self._put, event)
            except RuntimeError:  # the loop is closed: the chat is over
                return
            if not line:
                return

    def next(self) -> asyncio.Task[Event]:
        """The task that gets the next event (the same one until it is taken)."""
        if self._getter is None:
            self._getter = asyncio.ensure_future(self.events.get())
        return self._getter

    def take(self) -> Event:
        """The event of the finished :meth:`next` task."""
        assert self._getter is not None and self._getter.done()
        event = self._getter.result()
        self._getter = None
        return event

    def close(self) -> None:
        if self._getter is not None:
            self._getter.cancel()
        if self.signals:
            self._loop.remove_signal_handler(signal.SIGINT)


def _say(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


async def converse(
    turn: Callable[[str], Awaitable[Any]], stop: Callable[[], Awaitable[Any]]
) -> int:
    """Chat until the person quits; the exit code (0, or 130 after Ctrl-C).

    Args:
        turn: Sends one line to the agent and prints its answer (returns when the turn ended).
        stop: Asks the agent to stop the running turn of this chat.
    """
    global _active
    terminal = _active = _Terminal(asyncio.get_running_loop())
    waiting: deque[Event] = deque()  # lines (and the end of input) typed during an answer
    try:
        while True:
            if waiting:
                kind, text = waiting.popleft()
            else:
                _say(PROMPT)
                await terminal.next()
                kind, text = terminal.take()
            if kind != "line":
                _say("\n")
                return EXIT_INTERRUPTED if kind == "interrupt" else EXIT_OK
            if not text.strip():
                continue
            if text.strip() in QUIT_COMMANDS:
                return EXIT_OK
            _say(ANSWER)
            outcome = await _answer(terminal, turn(text), stop, waiting)
            if outcome is not None:
                return outcome
    finally:
        _active = None
        terminal.close()


async def read_answer() -> str | None:
    """A line typed as the answer to a question, when an interactive chat reads the terminal
    (its reader thread owns standard input then); raises :class:`LookupError` otherwise."""
    if _active is None:
        raise LookupError("no interactive chat is reading the terminal")
    return await _active.ask()


async def _answer(  # noqa: C901  # races the answer against Ctrl-C, Ctrl-D, /stop and typed lines in one loop
    terminal: _Terminal,
    answer: Awaitable[Any],
    stop: Callable[[], Awaitable[Any]],
    waiting: deque[Event],
) -> int | None:
    """Run one turn while reading the terminal; an exit code when the chat must end now."""
    task = asyncio.ensure_future(answer)
    stopping: asyncio.Task[Any] | None = None
    try:
        while not task.done():
            getter = terminal.next()
            await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
            if not getter.done():
                continue
            kind, text = terminal.take()
            if kind == "eof":  # Ctrl-D: quit after this answer and the lines typed before
                waiting.append((kind, text))
            elif kind == "interrupt" and stopping is not None:
                _say("\n")
                return EXIT_INTERRUPTED  # a second Ctrl-C: quit now
            elif kind == "interrupt" or text.strip() == STOP_COMMAND:
                if stopping is None:
                    _say(f"\n{STOPPING}\n")
                    stopping = asyncio.ensure_future(stop())
            elif kind == "line" and text.strip():
                waiting.append((kind, text))
        await task
        if stopping is not None:
            await stopping
            _say(f"{STOPPED}\n")
        return None
    finally:
        for pending in (task, stopping):
            if pending is not None and not pending.done():
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pending
