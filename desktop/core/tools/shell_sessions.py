"""The processes behind exec sessions: commands that keep running between tool calls.

``exec`` with ``yield_time_ms`` hands its :class:`~desktop.core.tools.shell_process.Launch`
(the same sandbox command line, limits, cgroup and watch as any command) to
:class:`ExecSessions`, which starts it with a pipe for its input and returns after the yield
time with what it printed; ``exec_session`` writes input, waits for output or the end, and
terminates it (:mod:`desktop.core.tools.exec_session`).

Every session is one task (its *supervisor*) owned by the runtime's :class:`TaskOwner` and
tracked as work of its chat (``/stop``, ``/new`` and deleting the chat cancel it, as they
cancel subagents; nanobot 0.3.5 ends a chat's sessions on ``/stop`` too). The supervisor
reads the output, runs the sandbox's watch, kills the process group at the session's time
limit (the ``timeout`` of the ``exec`` call that started it), after ``IDLE_TIMEOUT`` without
a call, or at a resource limit, and when cancelled (runtime stop, ``/stop``) kills it before
it ends. A session that ended by itself stays listed until a call has collected its last
output and exit code (or it idled out). At most ``MAX_SESSIONS`` exist at once. A sandboxed
session dies with the app even on ``kill -9`` (``bwrap --die-with-parent``); unsandboxed
ones through the parent-death guard of :func:`~desktop.core.tools.shell_process.plain_argv`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop.core.security.cgroup import Cgroup, open_cgroup
from desktop.core.security.limits import breach_text, exit_note, watch
from desktop.core.tools.shell_process import (
    DRAIN_AFTER_EXIT,
    Launch,
    Output,
    collect,
    kill_process_group,
    spawn,
)
from desktop.core.utils.tasks import TaskOwner, finish

log = logging.getLogger(__name__)

MAX_SESSIONS = 8
IDLE_TIMEOUT = 1800.0  # seconds without a call before a session is ended
BUFFER_CHARS = 50_000  # output kept between two calls (head and tail)
RECENT_CHARS = 65_536  # the latest output, searched for ``wait_for``
SETTLE = 0.15  # seconds of quiet after new output before a plain poll returns
WRITE_TIMEOUT = 10.0  # seconds for the program to take its input

Mode = Literal["yield", "activity", "text", "exit"]
Track = Callable[[str, "asyncio.Task[Any]"], None]


class SessionError(Exception):
    """A call the session cannot serve; the message is for the model."""


class SessionOutput(Output):
    """A session's output: what arrived since the last call (head and tail, bounded) and the
    latest :data:`RECENT_CHARS` characters, with a wake-up for waiting calls."""

    def __init__(self, wake: Callable[[], None]) -> None:
        super().__init__(BUFFER_CHARS)
        self._wake = wake
        self.offset = 0  # characters added in all
        self.delivered = 0  # ``offset`` when the last call collected the output
        self.recent = ""
        self.changed_at = 0.0

    def add(self, text: str) -> None:
        """Add decoded output and wake the waiting call."""
        if not text:
            return
        super().add(text)
        self.offset += len(text)
        self.recent = (self.recent + text)[-RECENT_CHARS:]
        self.changed_at = time.monotonic()
        self._wake()

    def since(self, start: int) -> str:
        """The output from offset ``start`` on, as far as :attr:`recent` reaches back."""
        first = self.offset - len(self.recent)
        return self.recent[max(0, start - first) :]

    def drain(self, limit: int) -> str:
        """Everything since the last call (its middle cut beyond ``limit`` characters)."""
        text = self.render()
        if len(text) > limit:
            half = limit // 2
            cut = len(text) - 2 * half
            text = f"{text[:half]}\n\n... [{cut:,} characters truncated] ...\n\n{text[-half:]}"
        self.head, self.tail, self.total = "", "", 0
        self.delivered = self.offset
        return text


@dataclass
class Poll:
    """What one call saw of a session.

    Attributes:
        output: The output since the previous call (cut to the call's limit).
        running: The command still runs.
        returncode: Its exit code once it has ended.
        elapsed: Seconds since it started.
        ended_by: Why it ended when something ended it: ``timeout``, ``terminated``,
            ``processes`` or ``memory`` (a sandbox limit); ``None``: it runs, or ended itself.
        notes: The sandbox's notes on its end (a limit reached, a file too large).
        matched: ``wait_for`` found its text (``None``: no text was waited for).
    """

    output: str
    running: bool
    returncode: int | None
    elapsed: float
    ended_by: str | None = None
    notes: list[str] = field(default_factory=list)
    matched: bool | None = None


class ExecSession:
    """One running (or just ended) command and what it printed.

    Attributes:
        id: The ``session_id`` the model uses.
        command: The command line as the model gave it.
        cwd: The folder it started in.
        owner_key: The conversation that started it (a subagent's own key for a subagent).
        timeout: Its time limit in seconds (``None``: none).
    """

    def __init__(
        self, command: str, cwd: Path, owner_key: str, timeout: int | None, launch: Launch
    ) -> None:
        self.id = secrets.token_hex(6)
        self.command = command
        self.cwd = cwd
        self.owner_key = owner_key
        self.timeout = timeout
        self.launch = launch
        self.started = self.last_access = time.monotonic()
        self.deadline = self.started + timeout if timeout else float("inf")
        self.output = SessionOutput(self._wake)
        self.proc: asyncio.subprocess.Process | None = None
        self.returncode: int | None = None
        self.ended_by: str | None = None
        self.notes: list[str] = []
        self.exited = asyncio.Event()  # the process is gone and its output read
        self.collected = asyncio.Event()  # a call has reported its end
        self.end_requested: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._changed = asyncio.Event()

    def _wake(self) -> None:
        self._changed.set()

    @property
    def running(self) -> bool:
        """Whether the command has not ended yet."""
        return not self.exited.is_set()

    def touch(self) -> None:
        """A call used the session (the idle time starts again)."""
        self.last_access = time.monotonic()

    async def write(self, text: str) -> None:
        """Send ``text`` to the command's standard input.

        Raises:
            SessionError: It has ended, closed its input, or does not read it.
        """
        stdin = self._stdin()
        try:
            stdin.write(text.encode("utf-8"))
            async with asyncio.timeout(WRITE_TIMEOUT):
                await stdin.drain()
        except TimeoutError:
            raise SessionError(
                f"the command did not read its input within {WRITE_TIMEOUT:g} s"
            ) from None
        except (BrokenPipeError, ConnectionResetError):
            raise SessionError("the command has closed its input") from None

    async def close_stdin(self) -> None:
        """Close the command's standard input (it reads end-of-file)."""
        stdin = self._stdin()
        stdin.close()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await stdin.wait_closed()

    def _stdin(self) -> asyncio.StreamWriter:
        if not self.running or self.proc is None or self.proc.stdin is None:
            raise SessionError("the session has already ended")
        if self.proc.stdin.is_closing():
            raise SessionError("the session's input is already closed")
        return self.proc.stdin

    async def terminate(self) -> None:
        """End the command (its whole process group) and wait until its output is read."""
        if not self.end_requested.done():
            self.end_requested.set_result("terminated")
        await self.exited.wait()

    async def wait(
        self, mode: Mode, seconds: float, text: str | None = None, *, since: float = 0.0
    ) -> bool | None:
        """Wait up to ``seconds`` for the command to end, or, by ``mode``, for ``text`` in its
        output (``text``) or for output to settle (``activity``: only output that arrived at
        or after the monotonic time ``since`` counts, e.g. the answer to input just sent);
        ``yield`` and ``exit`` wait for the end alone. Returns whether ``text`` was seen
        (``None`` without one)."""
        deadline = time.monotonic() + seconds
        scanned = self.output.delivered
        while True:
            if mode == "text" and text:
                seen = self.output.since(max(self.output.delivered, scanned - len(text) + 1))
                if text in seen:
                    return True
                scanned = self.output.offset
            if self.exited.is_set():
                return False if mode == "text" else None
            now = time.monotonic()
            until = deadline
            if mode == "activity" and self.output.total and self.output.changed_at >= since:
                settled = self.output.changed_at + SETTLE
                if now >= settled:
                    return None
                until = min(until, settled)
            if now >= deadline:
                return False if mode == "text" else None
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(until - now):
                    await self._changed.wait()

    def poll(self, limit: int, matched: bool | None = None) -> Poll:
        """Collect the output since the last call and the state (an ended session's end is
        then reported, and the session goes)."""
        self.touch()
        running = self.running
        result = Poll(
            self.output.drain(limit).rstrip("\n"),
            running,
            None if running else self.returncode,
            time.monotonic() - self.started,
            None if running else self.ended_by,
            [] if running else list(self.notes),
            matched,
        )
        if not running:
            self.collected.set()
        return result


class ExecSessions:
    """The exec sessions of one runtime (see the module docstring).

    Args:
        owner: Owns the sessions' supervisors (closed with the runtime: every process ends).
        track: Registers a supervisor as work of a chat (``SessionWork.add_child``), so that
            ``/stop`` ends the chat's sessions; called with the chat's key.
        max_sessions: Sessions at once.
        idle_timeout: Seconds without a call before a session is ended.
    """

    def __init__(
        self,
        owner: TaskOwner,
        track: Track | None = None,
        *,
        max_sessions: int = MAX_SESSIONS,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self._owner = owner
        self._track = track
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._sessions: dict[str, ExecSession] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def start(
        self,
        launch: Launch,
        *,
        command: str,
        cwd: Path,
        env: dict[str, str],
        owner_key: str,
        timeout: int | None,
    ) -> ExecSession:
        """Start ``launch`` as a session of ``owner_key``; returns once the process runs.

        Takes over ``launch`` (its descriptors and cgroup are released by the session).

        Raises:
            SessionError: Too many sessions, or the command could not be started.
        """
        if len(self) >= self.max_sessions:
            launch.close_fds()
            raise SessionError(
                f"{len(self)} exec sessions are open, the most allowed at once; end "
                "one (exec_session with terminate=true) or let one finish first"
            )
        session = ExecSession(command, cwd, owner_key, timeout, launch)
        started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            task = self._owner.spawn(
                self._supervise(session, env, started), name=f"exec-session:{session.id}"
            )
        except BaseException:
            launch.close_fds()
            raise
        self._sessions[session.id] = session
        self._tasks[session.id] = task
        if self._track is not None:
            self._track(owner_key.split("#", 1)[0], task)
        # Shielded: a cancelled call leaves the session to its owners (/stop, close, idle).
        await asyncio.shield(started)
        return session

    def get(self, session_id: str, owner_key: str) -> ExecSession | None:
        """The session ``session_id`` if ``owner_key`` started it (other chats' are unseen)."""
        session = self._sessions.get(session_id)
        if session is None or session.owner_key != owner_key or session.collected.is_set():
            return None
        return session

    def of(self, owner_key: str) -> list[ExecSession]:
        """The sessions ``owner_key`` started, by id (an ended one until its end is reported)."""
        mine = (s for s in self._open() if s.owner_key == owner_key)
        return sorted(mine, key=lambda s: s.id)

    def _open(self) -> list[ExecSession]:
        """Sessions not yet gone (one whose end a call reported is going)."""
        return [s for s in self._sessions.values() if not s.collected.is_set()]

    def __len__(self) -> int:
        return len(self._open())

    async def end_owner(self, owner_key: str) -> int:
        """End the sessions ``owner_key`` started (a subagent's when it ends); how many."""
        tasks = [
            self._tasks[sid]
            for sid, s in list(self._sessions.items())
            if s.owner_key == owner_key and sid in self._tasks
        ]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        return len(tasks)

    # -- the supervisor ---------------------------------------------------------------------

    async def _supervise(
        self, session: ExecSession, env: dict[str, str], started: asyncio.Future[None]
    ) -> None:
        launch = session.launch
        made: list[Cgroup] = []
        proc: asyncio.subprocess.Process | None = None
        try:
            if launch.limits is not None:  # a cgroup made is always removed again (finally)
                limits = launch.limits
                await finish(asyncio.to_thread(_open_cgroup, limits.processes, limits.memory, made))
                launch.cgroup = made[0] if made else None
                if launch.cgroup is not None:
                    launch.argv = launch.cgroup.wrap(launch.argv)
            try:
                proc = await spawn(launch.argv, launch.pass_fds, session.cwd, env, stdin=True)
            except OSError as exc:
                started.set_exception(SessionError(f"could not start the command: {exc}"))
                return
            finally:
                launch.close_fds()
            session.proc = proc
            started.set_result(None)
            if await self._run(session, proc):
                await self._linger(session)
        finally:
            if not started.done():
                current = asyncio.current_task()
                if current is not None and current.cancelling():  # the caller is ending too
                    started.cancel()
                else:  # a bug: the caller reads a refusal, the log has the details
                    started.set_exception(SessionError("the command could not be started"))
            if proc is not None and proc.returncode is None:
                await finish(kill_process_group(proc))
            for cgroup in made:  # waits for its processes to be gone: never left halfway
                await finish(asyncio.to_thread(cgroup.close))
            launch.close_fds()
            self._sessions.pop(session.id, None)
            self._tasks.pop(session.id, None)
            session.exited.set()
            session._wake()

    async def _run(self, session: ExecSession, proc: asyncio.subprocess.Process) -> bool:  # noqa: C901  # supervises a command: output, idle, time limit, cancel, exit
        """Supervise the command until it ends; ``False`` when it idled out (then it goes)."""
        launch = session.launch
        limits = launch.limits
        reading = asyncio.ensure_future(collect(proc, session.output))
        watcher = (
            asyncio.ensure_future(watch(proc.pid, limits, launch.cgroup))
            if limits is not None
            else None
        )
        gone = asyncio.ensure_future(_exited(proc))
        try:
            while not reading.done():
                now = time.monotonic()
                idle_at = session.last_access + self.idle_timeout
                pending: set[asyncio.Future[Any]] = {reading, session.end_requested}
                if watcher is not None:
                    pending.add(watcher)
                if not gone.done():
                    pending.add(gone)
                done, _ = await asyncio.wait(
                    pending,
                    timeout=max(0.0, min(session.deadline, idle_at) - now),
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if gone in done and proc.stdin is not None:
                    proc.stdin.close()  # a child left holding it must not keep the pipe open
                if reading in done:
                    break
                if watcher is not None and watcher in done:
                    if watcher.exception() is not None:  # a bug in the watch: run on
                        log.error("the sandbox's watch failed", exc_info=watcher.exception())
                        watcher = None
                        continue
                    session.ended_by = watcher.result()
                elif session.end_requested.done():
                    session.ended_by = session.end_requested.result()
                elif time.monotonic() >= session.deadline:
                    session.ended_by = "timeout"
                elif time.monotonic() >= session.last_access + self.idle_timeout:
                    log.info("exec session %s idle: ended", session.id)
                    return False
                else:
                    continue
                await _kill(proc, reading)
                break
            if reading.done():
                reading.result()  # a failure to read is a bug: the supervisor fails, logged
        finally:
            for future in (reading, watcher, gone):
                if future is not None and not future.done():
                    future.cancel()
                    await asyncio.gather(future, return_exceptions=True)
        session.returncode = proc.returncode
        if limits is not None:
            hits = await asyncio.to_thread(launch.cgroup.hits) if launch.cgroup else set()
            session.notes = [f"[sandbox: {breach_text(kind, limits)}]" for kind in sorted(hits)]
            note = exit_note(proc.returncode, session.output.recent, limits)
            if note is not None and not hits and session.ended_by is None:
                session.notes.append(note)
        session.exited.set()
        session._wake()
        return True

    async def _linger(self, session: ExecSession) -> None:
        """Keep an ended session until a call has reported its end, or it idled out."""
        while not session.collected.is_set():
            remaining = session.last_access + self.idle_timeout - time.monotonic()
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await session.collected.wait()


def _open_cgroup(processes: int, memory: int, made: list[Cgroup]) -> None:
    """Make the session's cgroup, if one can be made, into ``made`` (a worker thread)."""
    cgroup = open_cgroup(processes, memory)
    if cgroup is not None:
        made.append(cgroup)


async def _kill(proc: asyncio.subprocess.Process, reading: asyncio.Future[None]) -> None:
    """Kill the process group and read what is left of its output (briefly)."""
    await finish(kill_process_group(proc))
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(DRAIN_AFTER_EXIT + 4):
            await asyncio.shield(reading)


async def _exited(proc: asyncio.subprocess.Process, poll: float = 0.05) -> None:
    """Return once the command's own process has exited."""
    # proc.wait() also waits for the pipes, which a background child may hold open; the
    # return code is set with no event to await, so it is polled.
    while proc.returncode is None:  # noqa: ASYNC110
        await asyncio.sleep(poll)


__all__ = [
    "IDLE_TIMEOUT",
    "MAX_SESSIONS",
    "ExecSession",
    "ExecSessions",
    "Poll",
    "SessionError",
    "SessionOutput",
]
