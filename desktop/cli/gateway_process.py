"""The gateway's process record: which gateway runs for a config, since when, its log.

The record is nanobot 0.3.5's, in the same place and format, so both programs see (and can
stop) the one gateway that runs for a config: ``run/gateway.json`` beside the config (for the
default ``~/.nanobot/config.json`` without ``--workspace``; otherwise
``run/gateway.<16 hex>.json``, the hex the SHA-1 of the absolute workspace and config path
joined by ``|``) and the background log ``logs/gateway.<…>.log``. Keys: ``pid``,
``started_at`` (UTC ISO), ``platform``, ``port``, ``workspace``, ``config_path``, ``command``,
``log_path``, ``launch_mode`` (``foreground`` or ``background``) and ``identity``
(``"<process group>:<start time in clock ticks>"`` from ``/proc``), which tells a live
gateway from another process that got the same pid later. ``ready`` is ours (the gateway
finished starting); nanobot ignores it.

Changes happen under the inter-process lock nanobot takes too (``gateway.json.lock``), and
the file is replaced atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock

from desktop.core.config.paths import default_config_path


@dataclass(frozen=True)
class GatewayPaths:
    """Where one gateway's record and log are, and what selects it.

    Attributes:
        config: The config file, absolute.
        workspace: The ``--workspace`` given, absolute, or ``None``.
        state: The process record (JSON).
        log: The background gateway's output, appended to.
    """

    config: Path
    workspace: Path | None
    state: Path
    log: Path

    @classmethod
    def resolve(cls, config: Path | None, workspace: Path | None) -> GatewayPaths:
        """The paths nanobot 0.3.5 uses for the same ``--config``/``--workspace``."""
        default = default_config_path().expanduser().resolve(strict=False)
        path = config.expanduser().resolve(strict=False) if config else default
        folder = workspace.expanduser().resolve(strict=False) if workspace else None
        parts = [str(folder)] if folder else []
        if path != default:
            parts.append(str(path))
        stem = "gateway"
        if parts:
            stem += (
                "." + hashlib.sha1("|".join(parts).encode()).hexdigest()[:16]
            )  # a name, not security
        base = path.parent
        return cls(path, folder, base / "run" / f"{stem}.json", base / "logs" / f"{stem}.log")

    @property
    def lock(self) -> FileLock:
        """nanobot's lock for changes to the record."""
        return FileLock(f"{self.state}.lock")

    @property
    def transition(self) -> FileLock:
        """nanobot's lock held through a whole start or stop (taken before :attr:`lock`)."""
        return FileLock(f"{self.state}.transition.lock")


@dataclass(frozen=True)
class GatewayStatus:
    """What the record says, checked against the live process.

    Attributes:
        running: A live gateway owns the record.
        pid: Its process id.
        started_at: When it started (UTC ISO text).
        launch_mode: ``foreground``, ``background`` or ``unknown``.
        ready: It finished starting (ours only; ``None`` for nanobot's).
        program: ``nanobot-desktop`` or ``nanobot``, from the recorded command.
        note: Why it is not running when a record was there (``stale record removed``).
    """

    running: bool
    pid: int | None = None
    started_at: str | None = None
    launch_mode: str = "unknown"
    ready: bool | None = None
    program: str = ""
    note: str = ""


def process_identity(pid: int) -> str | None:
    """``"<process group>:<start time>"`` for a live ``pid`` on Linux, nanobot's identity."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
        group = os.getpgid(pid)
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) <= 19 or fields[0] == "Z":  # a zombie has ended
        return None
    return f"{group}:{fields[19]}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return process_identity(pid) is not None or not Path("/proc").is_dir()


def read_state(paths: GatewayPaths) -> dict[str, Any] | None:
    """The record, or ``None`` when absent or unreadable."""
    try:
        payload = json.loads(paths.state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return payload if isinstance(payload, dict) else None


def write_state(paths: GatewayPaths, payload: dict[str, Any]) -> None:
    """Replace the record atomically."""
    paths.state.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(
        prefix=f"{paths.state.name}.", suffix=".tmp", dir=paths.state.parent
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        Path(name).replace(paths.state)
    finally:
        Path(name).unlink(missing_ok=True)


def _owner_alive(state: dict[str, Any]) -> bool:
    pid = state.get("pid")
    if not isinstance(pid, int) or pid <= 0 or not _alive(pid):
        return False
    recorded = state.get("stable_identity") or state.get("identity")
    if recorded is None:
        return True
    current = process_identity(pid)
    if current is None:
        return True  # cannot tell: keep a live gateway rather than start a second one
    if isinstance(recorded, int):  # older records: the process group only
        return current.startswith(f"{recorded}:")
    return bool(recorded == current)


def status(paths: GatewayPaths) -> GatewayStatus:
    """The gateway running for ``paths``; a stale record (process gone, or the pid now
    belongs to another process) is removed. Call under :attr:`GatewayPaths.lock`."""
    state = read_state(paths)
    if state is None:
        return GatewayStatus(running=False)
    if not _owner_alive(state):
        paths.state.unlink(missing_ok=True)
        return GatewayStatus(running=False, note=f"stale record removed (pid {state.get('pid')})")
    command = [str(c) for c in state.get("command") or []]
    ours = any(
        part.endswith("nanobot-desktop") or (part == "-m" and command[i + 1 : i + 2] == ["desktop"])
        for i, part in enumerate(command)
    )
    mode = state.get("launch_mode")
    ready = state.get("ready")
    return GatewayStatus(
        running=True,
        pid=state["pid"],
        started_at=state.get("started_at") if isinstance(state.get("started_at"), str) else None,
        launch_mode=mode if mode in ("foreground", "background") else "unknown",
        ready=ready if isinstance(ready, bool) else None,
        program="nanobot-desktop" if ours else "nanobot",
    )


def current_status(paths: GatewayPaths) -> GatewayStatus:
    """:func:`status` under the lock."""
    with paths.lock:
        return status(paths)


def child_command(paths: GatewayPaths) -> list[str]:
    """The foreground gateway command a background start or a service runs."""
    program = (
        [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "desktop"]
    )
    command = [*program, "gateway", "--foreground", "--config", str(paths.config)]
    if paths.workspace is not None:
        command += ["--workspace", str(paths.workspace)]
    return command


def _record(paths: GatewayPaths, pid: int, port: int | None, mode: str) -> dict[str, Any]:
    return {
        "pid": pid,
        "started_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "platform": "Linux" if sys.platform.startswith("linux") else sys.platform,
        "port": port,
        "workspace": str(paths.workspace) if paths.workspace else None,
        "config_path": str(paths.config),
        "command": child_command(paths),
        "log_path": str(paths.log),
        "launch_mode": mode,
        "identity": process_identity(pid),
    }


class AlreadyRunning(Exception):
    """Another gateway runs for this config."""

    def __init__(self, current: GatewayStatus) -> None:
        super().__init__(f"a gateway already runs for this config (pid {current.pid})")
        self.status = current


def start_background(
    paths: GatewayPaths, port: int | None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start the gateway detached (its own session, no terminal), output appended to the
    log, and record it. Raises :class:`AlreadyRunning` when one runs."""
    with paths.transition, paths.lock:
        current = status(paths)
        if current.running:
            raise AlreadyRunning(current)
        paths.log.parent.mkdir(parents=True, exist_ok=True)
        with paths.log.open("ab") as log:
            log.write(f"--- {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC: background start\n".encode())
            log.flush()
            process = subprocess.Popen(  # our own command line
                child_command(paths),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
                cwd=str(paths.config.parent),
            )
        write_state(paths, _record(paths, process.pid, port, "background"))
    return process


def wait_started(
    paths: GatewayPaths, process: subprocess.Popen[bytes], timeout: float
) -> GatewayStatus | None:
    """Wait until the child says it is ready (``None`` when it ended or the time ran out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return None
        state = read_state(paths) or {}
        if state.get("pid") == process.pid and state.get("ready") is True:
            return current_status(paths)
        time.sleep(0.1)
    return None


def stop(paths: GatewayPaths, timeout: float) -> tuple[GatewayStatus, bool]:
    """SIGTERM to the running gateway (its process group when it leads one) and wait up to
    ``timeout`` seconds. Returns the status before and whether it ended."""
    with paths.transition:  # nanobot's: no start or stop meanwhile
        with paths.lock:
            current = status(paths)
        if not current.running or current.pid is None:
            return current, True
        pid = current.pid
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGTERM)
            else:
                os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        ended = _wait_gone(pid, timeout)  # the lock is free: the gateway takes it to leave
    if ended:
        with paths.lock:
            state = read_state(paths)
            if state is not None and state.get("pid") == pid:
                paths.state.unlink(missing_ok=True)
    return current, ended


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@contextmanager
def claim(paths: GatewayPaths, port: int | None) -> Iterator[None]:
    """Record this process as the gateway while the block runs (a foreground run, or the
    child of a background start, whose record the parent already wrote). Raises
    :class:`AlreadyRunning` when another one runs."""
    pid = os.getpid()
    with paths.lock:
        current = status(paths)
        if current.running and current.pid != pid:
            raise AlreadyRunning(current)
        if not current.running:
            write_state(paths, _record(paths, pid, port, "foreground"))
    try:
        yield
    finally:
        with paths.lock:
            state = read_state(paths)
            if state is not None and state.get("pid") == pid:
                paths.state.unlink(missing_ok=True)


def mark_ready(paths: GatewayPaths) -> None:
    """Note in the record that this gateway finished starting."""
    with paths.lock:
        state = read_state(paths)
        if state is not None and state.get("pid") == os.getpid():
            state["ready"] = True
            write_state(paths, state)


def tail(path: Path, lines: int) -> list[str]:
    """The last ``lines`` lines of ``path`` (none when it does not exist)."""
    if lines <= 0 or not path.exists():
        return []
    text = path.read_text(encoding="utf-8", errors="replace")
    return text.splitlines()[-lines:]
