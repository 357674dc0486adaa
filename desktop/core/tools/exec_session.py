"""``exec_session`` and ``list_exec_sessions``: talk to commands that keep running.

Names, arguments and meaning are nanobot 0.3.5's, so its sessions replay here and ours there:
``exec`` with ``yield_time_ms`` starts a command and returns after that time with its output
and a ``session_id`` while it still runs (an interactive program: ``python3 -i``, ``bash``, a
server); ``exec_session`` sends it input (``input``, ``close_stdin``), reads what it printed
since the last call (waiting ``timeout_ms``, for a text with ``wait_for`` or for its end with
``until_exit``) or ends it (``terminate``); ``list_exec_sessions`` lists this chat's
sessions. The processes, their sandbox, limits and lifetime are
:mod:`desktop.core.tools.shell_sessions`; output is framed as untrusted like ``exec``'s.

Input is a new command for the program, so it passes ``exec``'s safety guard (the deny and
allow patterns, protected files, ``restrictToWorkspace``), and with approvals on it is asked
about like an ``exec`` call (:func:`desktop.core.agent.approval.approval_reason`). Reading
output, closing the input and terminating need neither.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.security.limits import breach_text
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.shell_sessions import (
    ExecSession,
    ExecSessions,
    Mode,
    Poll,
    SessionError,
)
from desktop.core.tools.untrusted import frame

SOURCE = "exec"
DEFAULT_OUTPUT = 10_000
MAX_OUTPUT_CHARS = 50_000
MAX_YIELD_MS = 30_000
DEFAULT_WAIT_MS = 1_000
DEFAULT_WAIT_FOR_MS = 10_000
DEFAULT_UNTIL_EXIT_MS = 600_000
MAX_WAIT_MS = 600_000

Guard = Callable[[ToolContext, str, str | None], Awaitable["Path | ToolResult"]]
_SESSION_LINE = re.compile(r"^\[session_id=([0-9a-f]{12}): (still running|ended|terminated)", re.M)


def session_in(result: str) -> tuple[str, bool] | None:
    """The session a result speaks of and whether it still ran, if it speaks of one (the
    window's tool card shows it)."""
    match = _SESSION_LINE.search(result)
    return (match.group(1), match.group(2) == "still running") if match else None


def session_result(
    session: ExecSession,
    poll: Poll,
    *,
    notice: str | None = None,
    wait_for: str | None = None,
    until_exit: bool = False,
    waited_s: float = 0.0,
) -> ToolResult:
    """The result the model reads for one call on ``session``: any error first, then the
    session line (``[session_id=…: still running|ended|terminated]``, read by the window's tool
    card), the framed output, and for an ended session its exit code and the sandbox's notes."""
    sid = session.id
    lines = [notice] if notice else []
    error = False
    limits = session.launch.limits
    if not poll.running and poll.ended_by == "timeout":
        lines.append(
            f"Error: the session reached its time limit of {session.timeout} s and was "
            "killed (a longer `timeout` on exec gives it more time, up to 600 s)."
        )
        error = True
    elif not poll.running and poll.ended_by in ("processes", "memory") and limits is not None:
        lines.append(f"Error: stopped by the sandbox: {breach_text(poll.ended_by, limits)}.")
        error = True
    if poll.running:
        lines.append(
            f"[session_id={sid}: still running; send input, wait for output or end it with "
            "exec_session]"
        )
    else:
        ended = "terminated" if poll.ended_by == "terminated" else "ended"
        lines.append(f"[session_id={sid}: {ended}]")
    lines.append(frame(poll.output, SOURCE) if poll.output.strip() else "(no new output)")
    if poll.running:
        if poll.matched is False:
            lines.append(f"[{wait_for!r} did not appear within {waited_s:g} s]")
        elif until_exit:
            lines.append(f"[it did not end within {waited_s:g} s; it keeps running]")
    else:
        lines += [f"[exit code: {poll.returncode}]", *poll.notes]
        error = error or any(
            note.startswith("[sandbox: the command reached") for note in poll.notes
        )
        if poll.matched is False:
            lines.append(f"[{wait_for!r} did not appear before it ended]")
    lines.append(f"[elapsed: {poll.elapsed:.1f} s]")
    return ToolResult("\n".join(lines), is_error=error)


SHELL_GROUP = "shell"
"""The deferred group of the exec-session tools: a trivial turn does not pay for their
definitions; ``exec`` with ``yield_time_ms`` loads it (:func:`session_started`), and so does a
conversation whose history has such a call (:func:`desktop.core.tools.groups.groups_in_history`).
"""


def session_started(ctx: ToolContext) -> None:
    """An exec session began in this conversation: offer its tools from the next call on."""
    if ctx.tool_groups is not None:
        ctx.tool_groups.add(SHELL_GROUP)


class ExecSessionTool(Tool):
    """Send input to, wait for, or end a running exec session (see the module docstring)."""

    name = "exec_session"
    group = SHELL_GROUP  # loaded once exec starts a session (see :func:`session_started`)
    description = (
        "Use a command that exec started with yield_time_ms and that still runs: send input, "
        "read its new output (waiting for a text or for its end), or terminate it."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "session_id": {"type": "string", "description": "The session_id exec returned."},
            "input": {
                "type": ["string", "null"],
                "description": "Text for its standard input (end lines with \\n); omit to "
                "read new output.",
            },
            "close_stdin": {
                "type": "boolean",
                "description": "Close its input after sending (end of file).",
                "default": False,
            },
            "terminate": {
                "type": "boolean",
                "description": "End it and everything it started; use alone.",
                "default": False,
            },
            "wait_for": {
                "type": ["string", "null"],
                "minLength": 1,
                "description": "Return as soon as this text appears in its output.",
            },
            "until_exit": {
                "type": "boolean",
                "description": "Wait for it to end.",
                "default": False,
            },
            "timeout_ms": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": MAX_WAIT_MS,
                "description": "Longest wait: 1 s by default, 10 s with wait_for, 10 min with "
                "until_exit.",
            },
        },
        "required": ["session_id"],
    }
    read_only = False
    exclusive = True

    def __init__(self, sessions: ExecSessions, guard: Guard) -> None:
        """Create the tool.

        Args:
            sessions: The runtime's sessions.
            guard: ``exec``'s safety check for a command line, run on every input (returns
                the folder it would run in, or the refusal).
        """
        self.sessions = sessions
        self.guard = guard

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        """Run one call on a session.

        Args:
            ctx: Where the call runs (only sessions of its conversation are seen).
            **kwargs: ``session_id`` and the optional arguments of :attr:`parameters`.

        Returns:
            The output since the last call and the session's state.
        """
        sid = str(kwargs.get("session_id") or "").strip()
        text = kwargs.get("input")
        close_stdin = bool(kwargs.get("close_stdin"))
        terminate = bool(kwargs.get("terminate"))
        wait_for = kwargs.get("wait_for")
        until_exit = bool(kwargs.get("until_exit"))
        timeout_ms = kwargs.get("timeout_ms")
        if wait_for is not None and until_exit:
            return ToolResult.error("Error: wait_for and until_exit cannot be used together.")
        if terminate and (text is not None or close_stdin or wait_for or until_exit):
            return ToolResult.error("Error: terminate must be used alone.")
        session = self.sessions.get(sid, ctx.session_key)
        if session is None:
            return ToolResult.error(
                f"Error: there is no exec session {sid!r} in this conversation (it ended, or "
                "was never started here); list_exec_sessions shows the open ones."
            )
        session.touch()
        sent = time.monotonic()
        try:
            if text:
                refused = await self.guard(ctx, text, str(session.cwd))
                if isinstance(refused, ToolResult):
                    return refused
                await session.write(text)
            if close_stdin:
                await session.close_stdin()
        except SessionError as exc:
            return ToolResult.error(
                f"Error: {exc}; exec_session without input shows its output and state."
            )
        if terminate:
            await session.terminate()
            return session_result(session, session.poll(DEFAULT_OUTPUT))
        mode: Mode = "exit" if until_exit else "text" if wait_for else "activity"
        default = {
            "exit": DEFAULT_UNTIL_EXIT_MS,
            "text": DEFAULT_WAIT_FOR_MS,
            "activity": DEFAULT_WAIT_MS,
        }[mode]
        waited = min(max(int(timeout_ms if timeout_ms is not None else default), 0), MAX_WAIT_MS)
        matched = await session.wait(mode, waited / 1000, wait_for, since=sent if text else 0.0)
        poll = session.poll(DEFAULT_OUTPUT, matched)
        return session_result(
            session, poll, wait_for=wait_for, until_exit=until_exit, waited_s=waited / 1000
        )


class ListExecSessionsTool(Tool):
    """List this conversation's exec sessions, as nanobot 0.3.5 does (one line each)."""

    name = "list_exec_sessions"
    group = SHELL_GROUP
    description = "List the exec sessions of this conversation (their ids, state and command)."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    read_only = True

    def __init__(self, sessions: ExecSessions) -> None:
        """Create the tool for the runtime's ``sessions``."""
        self.sessions = sessions

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        """``id | running/exited | elapsed | idle | remaining | cwd | command`` per session."""
        now = time.monotonic()
        lines = []
        for session in self.sessions.of(ctx.session_key):
            command = " ".join(session.command.split())
            if len(command) > 120:
                command = command[:119] + "…"
            remaining = max(0.0, session.deadline - now) if session.timeout else float("inf")
            lines.append(
                f"{session.id} | {'running' if session.running else 'exited'} "
                f"| elapsed={now - session.started:.1f}s | idle={now - session.last_access:.1f}s "
                f"| remaining={remaining:.1f}s | cwd={session.cwd} | {command}"
            )
        return ToolResult("\n".join(lines) if lines else "No exec sessions in this conversation.")


__all__ = [
    "DEFAULT_OUTPUT",
    "MAX_OUTPUT_CHARS",
    "MAX_YIELD_MS",
    "ExecSessionTool",
    "ListExecSessionsTool",
    "session_in",
    "session_result",
]
