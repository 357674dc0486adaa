"""The ``exec`` tool: run a shell command in the workspace, safely bounded.

The command runs through the platform shell in its own process group (session), with a
minimal environment (provider keys never reach it), merged stdout/stderr, a timeout, and the
whole group killed on timeout or when the turn is cancelled (``/stop``).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.commands import (
    check_command,
    check_paths_in_command,
    check_protected_writes,
)
from desktop.core.security.paths import default_protected_paths
from desktop.core.tools.base import Tool, ToolContext, ToolResult

MAX_TIMEOUT = 600
MAX_OUTPUT = 10_000
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_AFTER_EXIT = 1.0  # seconds to keep reading after the shell exits (background children)

BASE_ENV_KEYS = ("HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "PATH", "TMPDIR", "USER", "LOGNAME")
WINDOWS_ENV_KEYS = (
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "USERNAME",
    "TEMP",
    "TMP",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
)


def child_env(config: ExecToolConfig, source: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a command: a small allowlist, never the whole parent environment.

    Args:
        config: Exec settings (``path_append``, ``allowed_env_keys``).
        source: Environment to copy from (default ``os.environ``).

    Returns:
        ``HOME LANG LC_ALL LC_CTYPE TERM PATH TMPDIR USER LOGNAME`` (plus the variables
        Windows needs to start programs) and the keys the user allowed explicitly.
    """
    source = dict(os.environ if source is None else source)
    keys = list(BASE_ENV_KEYS) + (list(WINDOWS_ENV_KEYS) if os.name == "nt" else [])
    env = {key: source[key] for key in (*keys, *config.allowed_env_keys) if key in source}
    env.setdefault("PATH", os.defpath)
    if config.path_append:
        env["PATH"] = env["PATH"] + os.pathsep + config.path_append
    return env


class _Output:
    """Collects decoded output, keeping the head and the tail of long streams (bounded memory)."""

    def __init__(self, limit: int = MAX_OUTPUT) -> None:
        self.limit = limit
        self.half = limit // 2
        self.head = ""  # the first ``limit`` characters
        self.tail = ""  # the last ``limit // 2`` characters
        self.total = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes, final: bool = False) -> None:
        """Add a chunk of raw output."""
        text = self._decoder.decode(data, final)
        self.total += len(text)
        if len(self.head) < self.limit:
            self.head += text[: self.limit - len(self.head)]
        self.tail = (self.tail + text)[-self.half :]

    def render(self) -> str:
        """The output, with the middle replaced by a note when it was too long."""
        if self.total <= self.limit:
            return self.head
        cut = self.total - self.half - len(self.tail)
        return (
            f"{self.head[: self.half]}\n\n... [{cut:,} of {self.total:,} characters truncated]"
            f" ...\n\n{self.tail}"
        )


def _killpg(pid: int, sig: int) -> None:
    """Signal the process group led by ``pid`` (POSIX), ignoring a group that is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _taskkill(pid: int) -> None:  # pragma: no cover - Windows only
    """Kill the process tree of ``pid`` on Windows."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            ["taskkill", "/T", "/F", "/PID", str(pid)], capture_output=True, timeout=10, check=False
        )


async def kill_process_group(proc: asyncio.subprocess.Process, grace: float = KILL_GRACE) -> None:
    """SIGTERM the whole group, wait up to ``grace`` seconds, then SIGKILL what is left.

    On Windows the process tree is killed with ``taskkill /T /F`` (in a thread).
    """
    if os.name == "nt":  # pragma: no cover - Windows only
        await asyncio.to_thread(_taskkill, proc.pid)
    else:
        _killpg(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), grace)
    except (TimeoutError, asyncio.CancelledError):
        pass
    finally:
        # The leader may be gone while children that trapped SIGTERM live on: kill the group.
        if os.name != "nt":
            _killpg(proc.pid, signal.SIGKILL)
        if proc.returncode is not None:
            _close_pipes(proc)  # a child that left the group may still hold the pipe


class ExecTool(Tool):
    """Run a shell command (see the module docstring)."""

    name = "exec"
    description = "Run a shell command in the workspace; returns combined output and exit code."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "Shell command line."},
            "working_dir": {
                "type": "string",
                "description": "Folder to run in (default: workspace).",
            },
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_TIMEOUT,
                "description": "Seconds before the command is killed (default 60).",
            },
        },
        "required": ["command"],
    }
    read_only = False
    exclusive = True

    def __init__(self, config: ExecToolConfig | None = None) -> None:
        """Create the tool.

        Args:
            config: ``tools.exec`` settings (timeout, path_append, env and pattern lists).
        """
        self.config = config or ExecToolConfig()

    def _working_dir(self, ctx: ToolContext, working_dir: str | None) -> Path | str:
        """The resolved folder to run in, or an error message."""
        workspace = Path(ctx.workspace).expanduser().resolve()
        if not working_dir:
            return workspace
        folder = Path(working_dir).expanduser()
        folder = (folder if folder.is_absolute() else workspace / folder).resolve()
        if ctx.restrict_to_workspace and folder != workspace and workspace not in folder.parents:
            return f"Error: working_dir {working_dir!r} is outside the workspace."
        if not folder.is_dir():
            return f"Error: working_dir {working_dir!r} is not a folder."
        return folder

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        """Check, run and report one command.

        Args:
            ctx: Where the call runs.
            **kwargs: ``command``, optional ``working_dir`` and ``timeout``.

        Returns:
            Output with ``[exit code: N]``; errors for refused commands and timeouts.
        """
        command = str(kwargs.get("command") or "").strip()
        if not command:
            return ToolResult.error("Error: command is empty.")
        patterns = {
            "allow_patterns": self.config.allow_patterns,
            "deny_patterns": self.config.deny_patterns,
        }
        if len(command) > 4_000:  # long commands (heredocs) take a few ms per rule
            reason = await asyncio.to_thread(check_command, command, **patterns)
        else:
            reason = check_command(command, **patterns)
        if reason:
            return ToolResult.error(f"Error: command refused by the safety guard ({reason}).")
        cwd = self._working_dir(ctx, kwargs.get("working_dir"))
        if isinstance(cwd, str):
            return ToolResult.error(cwd)
        protected = (*default_protected_paths(ctx.workspace, None), *ctx.protected_paths)
        reason = check_protected_writes(command, protected, cwd=cwd)
        if reason:
            return ToolResult.error(f"Error: command refused: it {reason}.")
        if ctx.restrict_to_workspace:
            reason = check_paths_in_command(command, ctx.workspace, cwd=cwd)
            if reason:
                return ToolResult.error(f"Error: command refused: {reason} (restrictToWorkspace).")
        timeout = min(int(kwargs.get("timeout") or self.config.timeout), MAX_TIMEOUT)
        return await self._run(command, cwd, timeout)

    async def _run(self, command: str, cwd: Path, timeout: int) -> ToolResult:
        """Spawn the shell in its own process group and collect its output."""
        spawn: dict[str, Any] = (
            {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
            if os.name == "nt"
            else {"start_new_session": True}
        )
        try:
            proc = await asyncio.create_subprocess_shell(
                command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                cwd=str(cwd),
                env=child_env(self.config),
                **spawn,
            )
        except OSError as exc:
            return ToolResult.error(f"Error: could not start the command: {exc}")
        output = _Output()
        try:
            await asyncio.wait_for(self._collect(proc, output), timeout)
        except TimeoutError:
            await kill_process_group(proc)
            partial = output.render().strip()
            return ToolResult.error(
                f"Error: command timed out after {timeout}s; its process group was killed."
                + (f"\nPartial output:\n{partial}" if partial else "")
            )
        except BaseException:  # cancelled (/stop) or a bug: never leave the group running
            await kill_process_group(proc)
            raise
        text = output.render().rstrip("\n")
        return ToolResult(f"{text or '(no output)'}\n[exit code: {proc.returncode}]")

    @staticmethod
    async def _collect(proc: asyncio.subprocess.Process, output: _Output) -> None:
        """Read output until EOF; once the shell exits, only for ``DRAIN_AFTER_EXIT`` more.

        Background children (``server &``) may keep the pipe open long after the shell is
        gone; they are left running, the pipe is closed, and the call returns with what they
        printed so far.
        """
        assert proc.stdout is not None
        loop = asyncio.get_running_loop()
        waiter = asyncio.ensure_future(_exited(proc))
        deadline: float | None = None
        eof = False
        try:
            while True:
                read = asyncio.ensure_future(proc.stdout.read(65_536))
                if deadline is None:
                    await asyncio.wait({read, waiter}, return_when=asyncio.FIRST_COMPLETED)
                    if waiter.done():
                        deadline = loop.time() + DRAIN_AFTER_EXIT
                if not read.done():
                    assert deadline is not None
                    try:
                        await asyncio.wait_for(read, max(0.0, deadline - loop.time()))
                    except TimeoutError:
                        break
                chunk = read.result()
                if not chunk:
                    eof = True
                    break
                output.feed(chunk)
            output.feed(b"", final=True)
            if eof:  # Process.wait() also waits for the pipe, so only once it is closed
                await proc.wait()
            else:
                await waiter
                _close_pipes(proc)
        finally:
            waiter.cancel()


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Stop reading a pipe that background children still hold open.

    asyncio has no public way to close a subprocess's pipes; without this the transport lives
    on until every child exits. Children that write afterwards get EPIPE (SIGPIPE): background
    jobs should redirect their output to a file.
    """
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def _exited(proc: asyncio.subprocess.Process, poll: float = 0.05) -> None:
    """Return once the shell itself has exited, even if children still hold its pipes."""
    while proc.returncode is None:
        await asyncio.sleep(poll)


def exec_tools(config: ExecToolConfig | None = None) -> list[Tool]:
    """The exec tool family."""
    return [ExecTool(config)]


__all__ = ["MAX_OUTPUT", "ExecTool", "child_env", "exec_tools", "kill_process_group"]
