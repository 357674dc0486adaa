"""The ``exec`` tool: run a shell command in the workspace, safely bounded.

The command runs through the platform shell in its own process group (session), with a
minimal environment (provider keys never reach it), merged stdout/stderr, a timeout, and the
whole group killed on timeout or when the turn is cancelled (``/stop``).

Two layers protect the person. The safety rules (:mod:`desktop.core.security.commands`)
refuse obviously destructive commands before anything runs; on Linux the command then runs
inside the bubblewrap sandbox (:mod:`desktop.core.security.sandbox`): the app's processes,
buses and keyring out of reach, only the workspace writable (the agent's own state files
excepted), everything killed when the command ends or the app dies. Without a sandbox
(unavailable, or ``tools.exec.sandbox = "none"``) the command runs as before, with a
one-time warning in its result, and on Linux its process group still dies with the app: the
shell gets a parent-death signal (``setpriv --pdeathsig``) and then kills its group.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.commands import (
    check_command,
    check_paths_in_command,
    check_protected_writes,
)
from desktop.core.security.sandbox import (
    SandboxStatus,
    build_argv,
    prepare_workspace,
    probe_sandbox,
    protected_paths,
    sandbox_mode,
    unavailable_notice,
)
from desktop.core.security.seccomp import filter_fd, unix_socket_filter
from desktop.core.tools.base import Tool, ToolContext, ToolResult

log = logging.getLogger(__name__)

MAX_TIMEOUT = 600
MAX_OUTPUT = 10_000
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
DRAIN_AFTER_EXIT = 1.0  # seconds to keep reading after the shell exits (background children)
SHELL = "/bin/sh"
# Unsandboxed on Linux: ``setpriv`` gives this shell a parent-death signal (SIGHUP), and the
# shell answers it by killing its whole process group. ``$2`` is the app's PID: if the app
# died before the signal was armed, the shell has been re-parented and stops at once.
_GUARD = '[ "$PPID" = "$2" ] || exit 125; trap "kill -KILL 0" HUP; ' + SHELL + ' -c "$1" & wait $!'

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
        async with asyncio.timeout(grace):
            await proc.wait()
    except TimeoutError:
        pass
    finally:  # also when cancelled meanwhile: the group is killed, the cancel goes on
        # The leader may be gone while children that trapped SIGTERM live on: kill the group.
        if os.name != "nt":
            _killpg(proc.pid, signal.SIGKILL)
        if proc.returncode is not None:
            _close_pipes(proc)  # a child that left the group may still hold the pipe


class ExecTool(Tool):
    """Run a shell command (see the module docstring)."""

    name = "exec"
    description = (
        "Run a shell command in the workspace; returns combined output and exit code. On "
        "Linux it normally runs sandboxed: only the workspace and /tmp are writable, and "
        "background processes end when the command returns."
    )
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
        cwd = await asyncio.to_thread(self._check_paths, ctx, command, kwargs.get("working_dir"))
        if isinstance(cwd, ToolResult):
            return cwd
        timeout = min(int(kwargs.get("timeout") or self.config.timeout), MAX_TIMEOUT)
        return await self._run(command, ctx, cwd, timeout)

    def _check_paths(
        self, ctx: ToolContext, command: str, working_dir: str | None
    ) -> Path | ToolResult:
        """The folder to run in, or the refusal (runs in a worker thread: it resolves paths,
        expands globs and looks at the file system)."""
        cwd = self._working_dir(ctx, working_dir)
        if isinstance(cwd, str):
            return ToolResult.error(cwd)
        protected = protected_paths(Path(ctx.workspace).expanduser(), ctx.protected_paths)
        reason = check_protected_writes(command, protected, cwd=cwd)
        if reason:
            return ToolResult.error(f"Error: command refused: it {reason}.")
        if ctx.restrict_to_workspace:
            reason = check_paths_in_command(command, ctx.workspace, cwd=cwd)
            if reason:
                return ToolResult.error(f"Error: command refused: {reason} (restrictToWorkspace).")
        return cwd

    async def _launch(self, command: str, ctx: ToolContext, cwd: Path) -> _Launch | ToolResult:
        """Decide how the command runs: sandboxed, or as before (with a one-time warning)."""
        mode = sandbox_mode(self.config.sandbox)
        if mode == "off":  # _plain_argv looks setpriv up on PATH the first time: a thread
            return _Launch(await asyncio.to_thread(_plain_argv, command))
        status = await probe_sandbox()
        if not status.available:
            if mode == "required":
                return ToolResult.error(
                    f"Error: command refused: tools.exec.sandbox is {self.config.sandbox!r}, "
                    f"which requires a sandbox, but {status.reason}."
                )
            argv = await asyncio.to_thread(_plain_argv, command)
            return _Launch(argv, notice=unavailable_notice(status))
        program = unix_socket_filter() if status.socket_filter else None
        fd = filter_fd(program) if program is not None else None  # in memory: no disk I/O
        try:
            argv = await asyncio.to_thread(self._sandbox_argv, command, ctx, cwd, status, fd)
        except BaseException:
            if fd is not None:
                os.close(fd)
            raise
        return _Launch(argv, () if fd is None else (fd,))

    def _sandbox_argv(
        self, command: str, ctx: ToolContext, cwd: Path, status: SandboxStatus, fd: int | None
    ) -> list[str]:
        """The bwrap command line (runs in a worker thread: it looks at the file system)."""
        workspace = Path(ctx.workspace).expanduser().resolve()
        prepare_workspace(workspace)
        return build_argv(
            command,
            executable=str(status.executable),
            workspace=workspace,
            cwd=cwd,
            protected=protected_paths(workspace, ctx.protected_paths),
            network=self.config.sandbox_network,
            seccomp_fd=fd,
            socket_filter=fd is not None,
            ro_binds=self.config.sandbox_ro_binds,
            rw_binds=self.config.sandbox_rw_binds,
        )

    async def _run(self, command: str, ctx: ToolContext, cwd: Path, timeout: int) -> ToolResult:
        """Spawn the shell in its own process group and collect its output."""
        launch = await self._launch(command, ctx, cwd)
        if isinstance(launch, ToolResult):
            return launch
        try:
            proc = await _spawn(launch, cwd, child_env(self.config))
        except OSError as exc:
            return ToolResult.error(f"Error: could not start the command: {exc}")
        finally:
            for fd in launch.pass_fds:
                os.close(fd)
        prefix = f"{launch.notice}\n" if launch.notice else ""
        output = _Output()
        try:
            async with asyncio.timeout(timeout):
                await self._collect(proc, output)
        except TimeoutError:
            await kill_process_group(proc)
            partial = output.render().strip()
            return ToolResult.error(
                f"{prefix}Error: command timed out after {timeout}s; its process group was "
                "killed." + (f"\nPartial output:\n{partial}" if partial else "")
            )
        except BaseException:  # cancelled (/stop) or a bug: never leave the group running
            await kill_process_group(proc)
            raise
        text = output.render().rstrip("\n")
        return ToolResult(f"{prefix}{text or '(no output)'}\n[exit code: {proc.returncode}]")

    @staticmethod
    async def _collect(proc: asyncio.subprocess.Process, output: _Output) -> None:
        """Read output until EOF; once the shell exits, only for ``DRAIN_AFTER_EXIT`` more.

        Unsandboxed, background children (``server &``) may keep the pipe open long after
        the shell is gone; they are left running, the pipe is closed, and the call returns
        with what they printed so far. In the sandbox they end with the command (its PID
        namespace goes away), so the pipe closes at once.
        """
        assert proc.stdout is not None
        loop = asyncio.get_running_loop()
        waiter = asyncio.ensure_future(_exited(proc))
        read: asyncio.Future[bytes] | None = None
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
                        async with asyncio.timeout_at(deadline):
                            await read
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
            # A timeout or a cancel from outside lands in asyncio.wait, which leaves both
            # futures running: end them here, so no read outlives the call.
            left = [f for f in (read, waiter) if f is not None and not f.done()]
            for future in left:
                future.cancel()
            if left:
                await asyncio.wait(left)


class _Launch:
    """How to start one command: argv, descriptors to hand over, a warning for the result."""

    __slots__ = ("argv", "notice", "pass_fds")

    def __init__(
        self, argv: list[str], pass_fds: tuple[int, ...] = (), notice: str | None = None
    ) -> None:
        self.argv = argv
        self.pass_fds = pass_fds
        self.notice = notice


def _plain_argv(command: str) -> list[str]:
    """Unsandboxed: the shell, under the parent-death guard on Linux (see ``_GUARD``)."""
    if os.name == "nt":  # pragma: no cover - Windows only
        return [command]
    setpriv = _setpriv()
    if setpriv is None:  # not Linux, or util-linux without setpriv: the old behaviour
        return [SHELL, "-c", command]
    return [setpriv, "--pdeathsig", "HUP", SHELL, "-c", _GUARD, "exec", command, str(os.getpid())]


_setpriv_path: list[str | None] = []


def _setpriv() -> str | None:
    """``setpriv`` (util-linux) on Linux, looked up once."""
    if not _setpriv_path:
        found = shutil.which("setpriv") if sys.platform.startswith("linux") else None
        if sys.platform.startswith("linux") and found is None:
            log.warning("setpriv not found: unsandboxed commands will outlive a killed app")
        _setpriv_path.append(found)
    return _setpriv_path[0]


async def _spawn(launch: _Launch, cwd: Path, env: dict[str, str]) -> asyncio.subprocess.Process:
    """Start the command in its own process group (session) with merged output."""
    common: dict[str, Any] = {
        "stdin": asyncio.subprocess.DEVNULL,
        "stdout": asyncio.subprocess.PIPE,
        "stderr": asyncio.subprocess.STDOUT,
        "cwd": str(cwd),
        "env": env,
    }
    if sys.platform == "win32":  # pragma: no cover - Windows only
        return await asyncio.create_subprocess_shell(
            launch.argv[0], creationflags=subprocess.CREATE_NEW_PROCESS_GROUP, **common
        )
    return await asyncio.create_subprocess_exec(
        *launch.argv, start_new_session=True, pass_fds=launch.pass_fds, **common
    )


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
