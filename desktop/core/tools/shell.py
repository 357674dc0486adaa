"""The ``exec`` tool: run a shell command in the workspace, safely bounded.

The command runs through the platform shell in its own process group (session), with a
minimal environment (provider keys never reach it), merged stdout/stderr, a timeout, and the
whole group killed on timeout or when the turn is cancelled (``/stop``).

Two layers protect the person. The safety rules (:mod:`desktop.core.security.commands`)
refuse obviously destructive commands before anything runs; on Linux the command then runs
inside the bubblewrap sandbox (:mod:`desktop.core.security.sandbox`): the app's processes,
buses and keyring out of reach, only the workspace writable (the agent's own state files
excepted), a scratch home folder instead of the person's
(:mod:`~desktop.core.security.sandbox_view`), resource limits
(:mod:`~desktop.core.security.limits`: a command that reaches the process or memory limit is
stopped and the result says so), everything killed when the command ends or the app dies. Its
output is framed as untrusted (:mod:`~desktop.core.tools.untrusted`). Without a sandbox
(unavailable, or ``tools.exec.sandbox = "none"``) the command runs as before, with a
one-time warning in its result, and on Linux its process group still dies with the app: the
shell gets a parent-death signal (``setpriv --pdeathsig``) and then kills its group.

With ``yield_time_ms`` the command starts the same way but keeps running as an exec session
(:mod:`desktop.core.tools.shell_sessions`): the call returns after that time with what it
printed and its ``session_id``, and ``exec_session`` talks to it
(:mod:`desktop.core.tools.exec_session`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.config.sandbox_settings import SandboxPlaces, SandboxPrefs, read_sandbox_prefs
from desktop.core.config.schema import ExecToolConfig
from desktop.core.security.cgroup import Cgroup, open_cgroup
from desktop.core.security.commands import (
    check_command,
    check_paths_in_command,
    check_protected_writes,
)
from desktop.core.security.limits import Limits, breach_text, exit_note, watch
from desktop.core.security.sandbox import (
    SandboxStatus,
    build_argv,
    prepare_workspace,
    probe_sandbox,
    protected_paths,
    sandbox_mode,
    unavailable_notice,
    unsandboxed_warning,
)
from desktop.core.security.sandbox_view import HomeView, sees
from desktop.core.security.seccomp import filter_fd, unix_socket_filter
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.exec_session import (
    DEFAULT_OUTPUT,
    MAX_OUTPUT_CHARS,
    MAX_YIELD_MS,
    ExecSessionTool,
    ListExecSessionsTool,
    session_result,
    session_started,
)
from desktop.core.tools.shell_process import (
    MAX_OUTPUT,
    Launch,
    Output,
    collect,
    kill_process_group,
    plain_argv,
    spawn,
)
from desktop.core.tools.shell_sessions import ExecSessions, SessionError
from desktop.core.tools.untrusted import frame
from desktop.core.utils.tasks import finish

log = logging.getLogger(__name__)

MAX_TIMEOUT = 600
DRAIN_AFTER_BREACH = 5.0  # seconds to read what is left once the sandbox is being torn down
SOURCE = "exec"
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


class ExecTool(Tool):
    """Run a shell command (see the module docstring)."""

    name = "exec"
    description = (
        "Run a shell command in the workspace; returns combined output and exit code. On "
        "Linux it normally runs sandboxed: only the workspace, /tmp and ~ (a scratch home "
        "folder, not the person's) are writable, processes, memory and file sizes are "
        "limited, and background processes end when the command returns."
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
            "yield_time_ms": {
                "type": ["integer", "null"],
                "minimum": 0,
                "maximum": MAX_YIELD_MS,
                "description": "Return after this many ms while it keeps running (until its "
                "timeout) as a session for interactive programs or early output; continue with "
                "exec_session. Omit to wait for the end.",
            },
            "max_output_chars": {
                "type": ["integer", "null"],
                "minimum": 1000,
                "maximum": MAX_OUTPUT_CHARS,
                "description": "Output limit of a session's reply (default 10000).",
            },
        },
        "required": ["command"],
    }
    read_only = False
    exclusive = True

    def __init__(
        self,
        config: ExecToolConfig | None = None,
        *,
        places: SandboxPlaces | None = None,
        sessions: ExecSessions | None = None,
    ) -> None:
        """Create the tool.

        Args:
            config: ``tools.exec`` settings (timeout, path_append, env and pattern lists).
            places: The config folder: the sandbox hides it, reads its settings from its
                ``desktop.json`` for every command and keeps the scratch home folders there.
                ``None`` (tests, a tool used alone): default settings and a home folder in
                memory that ends with each command.
            sessions: Where commands started with ``yield_time_ms`` keep running (``None``:
                such calls are refused).
        """
        self.config = config or ExecToolConfig()
        self.places = places
        self.sessions = sessions

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
        cwd = await self.guard(ctx, command, kwargs.get("working_dir"))
        if isinstance(cwd, ToolResult):
            return cwd
        timeout = min(int(kwargs.get("timeout") or self.config.timeout), MAX_TIMEOUT)
        if kwargs.get("yield_time_ms") is not None:
            return await self._start_session(command, ctx, cwd, timeout, kwargs)
        return await self._run(command, ctx, cwd, timeout)

    async def guard(
        self, ctx: ToolContext, command: str, working_dir: str | None
    ) -> Path | ToolResult:
        """The safety guard: the folder ``command`` would run in, or the refusal.

        The deny and allow patterns, the protected files and ``restrictToWorkspace``; also
        applied to the input an exec session's program is sent (``exec_session``).
        """
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
        return await asyncio.to_thread(self._check_paths, ctx, command, working_dir)

    async def _start_session(
        self, command: str, ctx: ToolContext, cwd: Path, timeout: int, kwargs: dict[str, Any]
    ) -> ToolResult:
        """Start ``command`` as an exec session; after ``yield_time_ms`` report what it did."""
        if self.sessions is None:
            return ToolResult.error(
                "Error: commands cannot keep running here; run it without yield_time_ms."
            )
        launch = await self._launch(command, ctx, cwd, session=True)
        if isinstance(launch, ToolResult):
            return launch
        notice = launch.notice
        try:
            session = await self.sessions.start(
                launch,
                command=command,
                cwd=cwd,
                env=child_env(self.config),
                owner_key=ctx.session_key,
                timeout=timeout,
            )
        except SessionError as exc:
            return ToolResult.error(f"{notice + chr(10) if notice else ''}Error: {exc}.")
        session_started(ctx)  # exec_session and list_exec_sessions from the next call on
        waited = min(max(int(kwargs["yield_time_ms"]), 0), MAX_YIELD_MS) / 1000
        await session.wait("yield", waited)
        chars = kwargs.get("max_output_chars") or DEFAULT_OUTPUT
        limit = min(max(int(chars), 1000), MAX_OUTPUT_CHARS)
        return session_result(session, session.poll(limit), notice=notice)

    def _check_paths(
        self, ctx: ToolContext, command: str, working_dir: str | None
    ) -> Path | ToolResult:
        """The folder to run in, or the refusal (runs in a worker thread: it resolves paths,
        expands globs and looks at the file system)."""
        cwd = self._working_dir(ctx, working_dir)
        if isinstance(cwd, str):
            return ToolResult.error(cwd)
        protected = protected_paths(Path(ctx.own_workspace).expanduser(), ctx.protected_paths)
        reason = check_protected_writes(command, protected, cwd=cwd)
        if reason:
            return ToolResult.error(f"Error: command refused: it {reason}.")
        if ctx.restrict_to_workspace:
            reason = check_paths_in_command(command, ctx.workspace, cwd=cwd)
            if reason and ctx.agent_workspace is not None:  # a chat's project, Restricted
                reason = reason.replace("the workspace", "the chat's project folder")
                return ToolResult.error(
                    f"Error: command refused: {reason} (the chat's access mode is Restricted)."
                )
            if reason:
                return ToolResult.error(f"Error: command refused: {reason} (restrictToWorkspace).")
        return cwd

    async def _launch(
        self, command: str, ctx: ToolContext, cwd: Path, *, session: bool = False
    ) -> Launch | ToolResult:
        """Decide how the command runs: sandboxed, or as before (with a one-time warning);
        ``session``: it will run as an exec session."""
        mode = sandbox_mode(self.config.sandbox)
        if mode == "off":  # plain_argv looks setpriv up on PATH the first time: a thread
            return Launch(await asyncio.to_thread(plain_argv, command, session=session))
        status = await probe_sandbox()
        if not status.available:
            if mode == "required":
                return ToolResult.error(
                    f"Error: command refused: tools.exec.sandbox is {self.config.sandbox!r}, "
                    f"which requires a sandbox, but {status.reason}."
                )
            argv = await asyncio.to_thread(plain_argv, command, session=session)
            return Launch(argv, notice=unavailable_notice(status))
        program = unix_socket_filter() if status.socket_filter else None
        fd = filter_fd(program) if program is not None else None  # in memory: no disk I/O
        try:
            launch = await asyncio.to_thread(self._sandboxed, command, ctx, cwd, status, fd)
        except BaseException:
            if fd is not None:
                os.close(fd)
            raise
        if isinstance(launch, ToolResult) and fd is not None:
            os.close(fd)
        return launch

    def _sandboxed(
        self, command: str, ctx: ToolContext, cwd: Path, status: SandboxStatus, fd: int | None
    ) -> Launch | ToolResult:
        """The bwrap command line (runs in a worker thread: it reads ``desktop.json`` and looks
        at the file system)."""
        workspace = Path(ctx.workspace).expanduser().resolve()  # the project, if any
        own = Path(ctx.own_workspace).expanduser().resolve()
        # Writable: the project (or workspace); in full access also the agent's workspace.
        rw_binds = list(self.config.sandbox_rw_binds)
        if own != workspace and not ctx.restrict_to_workspace:
            rw_binds.append(str(own))
        if own == workspace or not ctx.restrict_to_workspace:
            prepare_workspace(own)
        places = self.places
        prefs = read_sandbox_prefs(places.prefs_file) if places else SandboxPrefs()
        limits = Limits.from_prefs(prefs.limits)
        home = os.environ.get("HOME") or os.path.expanduser("~")
        view = HomeView(
            home=home,
            scratch=str(places.scratch_home(own)) if places else None,
            visible=prefs.home_visible,
            hidden=(str(places.config_dir),) if places else (),
            folders=tuple((f.path, f.writable) for f in prefs.folders),
        )
        extra = [*self.config.sandbox_ro_binds, *rw_binds]
        if not sees(view, str(workspace), str(cwd), [os.path.expanduser(p) for p in extra]):
            return ToolResult.error(
                f"Error: working_dir {str(cwd)!r} is in your home folder, which commands do "
                "not see: add it to the folders commands may see (Settings → Tools & safety), "
                "or work in the workspace."
            )
        argv = build_argv(
            command,
            executable=str(status.executable),
            workspace=workspace,
            cwd=cwd,
            protected=protected_paths(own, ctx.protected_paths),
            network=self.config.sandbox_network,
            seccomp_fd=fd,
            socket_filter=fd is not None,
            ro_binds=self.config.sandbox_ro_binds,
            rw_binds=rw_binds,
            home=view,
            limits=limits,
            prlimit=status.prlimit,
            sized_tmpfs=status.sized_tmpfs,
        )
        return Launch(argv, () if fd is None else (fd,), limits=limits)

    async def _run(self, command: str, ctx: ToolContext, cwd: Path, timeout: int) -> ToolResult:
        """Spawn the shell in its own process group (and cgroup) and collect its output."""
        launch = await self._launch(command, ctx, cwd)
        if isinstance(launch, ToolResult):
            return launch
        made: list[Cgroup] = []
        try:
            if launch.limits is not None:  # a cgroup made is always removed again (finally)
                await finish(asyncio.to_thread(_open_cgroup, launch.limits, made))
                launch.cgroup = made[0] if made else None
                if launch.cgroup is not None:
                    launch.argv = launch.cgroup.wrap(launch.argv)
            try:
                proc = await spawn(launch.argv, launch.pass_fds, cwd, child_env(self.config))
            except OSError as exc:
                return ToolResult.error(f"Error: could not start the command: {exc}")
            return await self._supervise(proc, launch, timeout)
        finally:
            launch.close_fds()
            for cgroup in made:  # waits for its processes to be gone: never left halfway
                await finish(asyncio.to_thread(cgroup.close))

    async def _supervise(
        self, proc: asyncio.subprocess.Process, launch: Launch, timeout: int
    ) -> ToolResult:
        """Collect the output until the command ends, times out or reaches a limit."""
        prefix = f"{launch.notice}\n" if launch.notice else ""
        output = Output()
        limits = launch.limits
        watcher = (
            asyncio.ensure_future(watch(proc.pid, limits, launch.cgroup))
            if limits is not None
            else None
        )
        try:
            async with asyncio.timeout(timeout):
                breach = await _collect_until(proc, output, watcher)
        except TimeoutError:
            await kill_process_group(proc)
            return ToolResult.error(
                f"{prefix}Error: command timed out after {timeout}s; its process group was "
                "killed." + _partial(output)
            )
        except BaseException:  # cancelled (/stop) or a bug: never leave the group running
            await kill_process_group(proc)
            raise
        finally:
            if watcher is not None and not watcher.done():
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)
        if breach is not None and limits is not None:
            return ToolResult.error(
                f"{prefix}Error: stopped by the sandbox: {breach_text(breach, limits)}."
                + _partial(output)
            )
        text = output.render().rstrip("\n")
        lines = [f"{prefix}{frame(text, SOURCE) if text else '(no output)'}"]
        lines.append(f"[exit code: {proc.returncode}]")
        hits: set[str] = set()
        if limits is not None:
            hits = await asyncio.to_thread(launch.cgroup.hits) if launch.cgroup else set()
            lines += [f"[sandbox: {breach_text(kind, limits)}]" for kind in sorted(hits)]
            note = exit_note(proc.returncode, text, limits)
            if note is not None and not hits:
                lines.append(note)
        return ToolResult("\n".join(lines), is_error=bool(hits))


def _open_cgroup(limits: Limits, made: list[Cgroup]) -> None:
    """Make the command's cgroup, if one can be made, into ``made`` (a worker thread)."""
    cgroup = open_cgroup(limits.processes, limits.memory)
    if cgroup is not None:
        made.append(cgroup)


async def _collect_until(
    proc: asyncio.subprocess.Process, output: Output, watcher: asyncio.Future[str] | None
) -> str | None:
    """Read the command's output to its end; ``None``, or the limit the watch saw reached
    (then the command is killed and what is left of its output read)."""
    if watcher is None:
        await collect(proc, output)
        return None
    reading: asyncio.Future[None] = asyncio.ensure_future(collect(proc, output))
    try:
        both: list[asyncio.Future[Any]] = [reading, watcher]
        await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        if not reading.done() and watcher.exception() is not None:  # a bug in the watch
            log.error("the sandbox's watch failed", exc_info=watcher.exception())
            await reading  # the command still ends, times out or is stopped as ever
        if reading.done():
            reading.result()
            return None
        breach = watcher.result()
        await kill_process_group(proc)  # bwrap goes, and with it the sandbox's PID namespace
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(DRAIN_AFTER_BREACH):
                await asyncio.shield(reading)
        return breach
    finally:
        if not reading.done():
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)


def _partial(output: Output) -> str:
    """What the command printed before it was stopped, framed (empty when nothing)."""
    text = output.render().strip()
    return f"\nPartial output:\n{frame(text, SOURCE)}" if text else ""


async def exec_sandbox_warning(config: ExecToolConfig) -> str | None:
    """The warning for a command approval when commands run without the sandbox, else
    ``None`` (probes the sandbox in a worker thread the first time)."""
    mode = sandbox_mode(config.sandbox)
    if mode != "auto":
        return None
    return unsandboxed_warning(await probe_sandbox(), mode)


def exec_tools(
    config: ExecToolConfig | None = None,
    *,
    places: SandboxPlaces | None = None,
    sessions: ExecSessions | None = None,
) -> list[Tool]:
    """The exec tool family: ``exec``, and with ``sessions`` also ``exec_session`` and
    ``list_exec_sessions``."""
    tool = ExecTool(config, places=places, sessions=sessions)
    if sessions is None:
        return [tool]
    return [tool, ExecSessionTool(sessions, tool.guard), ListExecSessionsTool(sessions)]


__all__ = [
    "MAX_OUTPUT",
    "ExecTool",
    "child_env",
    "exec_sandbox_warning",
    "exec_tools",
    "kill_process_group",
]
