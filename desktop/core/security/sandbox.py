"""The ``exec`` sandbox: bubblewrap on Linux.

A command runs as ``bwrap … -- /bin/sh -c COMMAND`` with:

* its own PID namespace and a fresh ``/proc``: the app's processes (and their
  ``/proc/PID/environ``) are invisible, and when the command ends, or the app dies
  (``--die-with-parent``, even on ``kill -9``), the kernel kills everything left inside;
* the whole file system read-only, the workspace writable, a private ``/tmp``;
* the agent's own state read-only inside the workspace (:func:`protected_paths`); the
  folders holding those files are mount points, so they cannot be renamed or deleted
  (``mv memory x`` fails with EBUSY);
* ``$XDG_RUNTIME_DIR``, ``/run/user`` and ``/run/dbus`` hidden (session and system bus,
  keyring, ssh/gpg agents), any ``unix:path=`` bus socket covered, the keyring data folders
  hidden, protected files outside the workspace (the config file, which may hold keys)
  covered by ``/dev/null`` (on the sandbox's ``nodev`` mounts reading it fails);
* a seccomp filter refusing Unix-domain sockets (see :mod:`desktop.core.security.seccomp`):
  abstract sockets such as ``unix:abstract=`` D-Bus addresses or ``@/tmp/.X11-unix/X0`` live
  in the network namespace, so with the network shared (the default) only this filter keeps
  them out of reach. Where no filter exists for the CPU architecture and the session bus is
  abstract, the network is cut instead and the status says so;
* no capabilities (``--cap-drop ALL``: as root, bwrap would otherwise keep them and a command
  could ``umount`` the protections), ``/proc/sys`` and the other kernel knobs in ``/proc``
  read-only (uid 0 may write sysctls without any capability), no kernel keyring (seccomp),
  new session (no TIOCSTI), own IPC and UTS namespaces;
* the network shared unless ``tools.exec.sandboxNetwork`` is false (``--unshare-net``).

Detection runs once (a real probe sandbox), off the event loop via :func:`probe_sandbox`.
Windows and macOS have no sandbox yet: commands there run as before, and the status says so.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import unquote

from desktop.core.security.limits import Limits, rlimit_argv
from desktop.core.security.paths import default_protected_paths
from desktop.core.security.protected import create_state_placeholders
from desktop.core.security.sandbox_status import (
    INSTALL_HINT,
    SandboxMode,
    SandboxStatus,
    install_hint,
    sandbox_mode,
    unsandboxed_warning,
)
from desktop.core.security.sandbox_view import HomeView, hidden_again, home_hidden, view_args
from desktop.core.security.seccomp import filter_fd, unix_socket_filter
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

log = logging.getLogger(__name__)

PROTECTIONS = QT_TR_NOOP(
    "Commands run inside bubblewrap: only the workspace and a private /tmp are writable; your "
    "home folder is replaced by a scratch folder (unless you let commands see it) and the "
    "config folder is hidden; the agent's sessions, memory history, cron jobs and memory "
    "repository stay read-only; the app's processes, the session bus and the keyring are out "
    "of reach; processes, memory, file size, /tmp and CPU time are limited; everything a "
    "command started ends with it, or with the app."
)
PROBE_TIMEOUT = 15.0


# -- detection -------------------------------------------------------------------------------

_status: SandboxStatus | None = None
_status_lock = threading.Lock()


def _unavailable_on_this_os() -> SandboxStatus | None:
    if sys.platform.startswith("linux"):
        return None
    name = {"darwin": "macOS", "win32": "Windows"}.get(sys.platform, sys.platform)
    return SandboxStatus(
        False,
        Phrase(
            QT_TR_NOOP(
                "nanobot Desktop has no sandbox on {name} yet; commands run without one "
                "(the safety rules and ask-mode approval still apply)"
            ),
            name=name,
        ),
    )


def _detect() -> SandboxStatus:
    """Find bwrap and prove it works by running a real, minimal sandbox."""
    other = _unavailable_on_this_os()
    if other is not None:
        return other
    found = shutil.which("bwrap")
    if not found:
        return SandboxStatus(
            False,
            Phrase(QT_TR_NOOP("bubblewrap (bwrap) is not installed; {hint}"), hint=install_hint()),
        )
    executable = str(Path(found).resolve())
    try:
        version = subprocess.run(
            [executable, "--version"],
            check=False,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return SandboxStatus(
            False,
            Phrase(
                QT_TR_NOOP("bwrap cannot be started ({error}); {hint}"),
                error=str(exc),
                hint=Phrase(INSTALL_HINT),
            ),
        )
    program = unix_socket_filter()
    fd = filter_fd(program) if program is not None else None
    try:
        with tempfile.TemporaryDirectory(prefix="nanobot-sandbox-probe-") as folder:
            probe = build_argv(
                "exit 0",
                executable=executable,
                workspace=Path(folder),
                cwd=Path(folder),
                seccomp_fd=fd,
                socket_filter=program is not None,
            )
            done = subprocess.run(
                probe,
                check=False,
                capture_output=True,
                text=True,
                timeout=PROBE_TIMEOUT,
                stdin=subprocess.DEVNULL,
                env={"PATH": os.environ.get("PATH", os.defpath)},
                pass_fds=() if fd is None else (fd,),
            )
    except (OSError, subprocess.SubprocessError) as exc:
        return SandboxStatus(
            False,
            Phrase(QT_TR_NOOP("bwrap could not run a test sandbox ({error})"), error=str(exc)),
        )
    finally:
        if fd is not None:
            os.close(fd)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        detail: str = (
            lines[-1] if lines else Phrase(QT_TR_NOOP("exit code {code}"), code=done.returncode)
        )
        return SandboxStatus(
            False,
            Phrase(
                QT_TR_NOOP(
                    "bwrap is installed but cannot create a sandbox here ({detail}); the kernel "
                    "or a security policy (e.g. AppArmor's restriction of unprivileged user "
                    "namespaces on Ubuntu 24.04+) forbids the namespaces it needs"
                ),
                detail=detail,
            ),
            executable,
            version,
        )
    sized, prlimit = _features(executable)
    notes = _notes(program is not None)
    if prlimit is None:
        notes += (
            Phrase(
                QT_TR_NOOP(
                    "no prlimit (util-linux): the file size, CPU and per-process limits are off"
                )
            ),
        )
    if not sized:
        notes += (
            Phrase(QT_TR_NOOP("bubblewrap older than 0.8: the private /tmp has no size limit")),
        )
    return SandboxStatus(True, "", executable, version, program is not None, notes, sized, prlimit)


def _features(executable: str) -> tuple[bool, str | None]:
    """Whether bwrap can size a tmpfs, and where ``prlimit`` is."""
    try:
        text = subprocess.run(
            [executable, "--help"],
            check=False,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    found = shutil.which("prlimit")
    return "--size" in text, (str(Path(found).resolve()) if found else None)


def _notes(socket_filter: bool) -> tuple[str, ...]:
    """What the person should know about this machine's session bus and the sandbox."""
    notes: list[str] = []
    _paths, abstract, tcp = bus_addresses(os.environ.get("DBUS_SESSION_BUS_ADDRESS"))
    if abstract and not socket_filter:
        notes.append(
            Phrase(
                QT_TR_NOOP(
                    "network cut for commands: the session bus uses an abstract socket and this "
                    "CPU has no socket filter"
                )
            )
        )
    if tcp:
        notes.append(
            Phrase(
                QT_TR_NOOP(
                    "the session bus listens on TCP: turn the network off to keep it out of reach"
                )
            )
        )
    return tuple(notes)


def sandbox_status() -> SandboxStatus:
    """The cached detection result (runs the probe on first use: call it off the event loop)."""
    global _status
    with _status_lock:
        if _status is None:
            _status = _detect()
            if _status.available:
                log.info("exec sandbox: %s (%s)", _status.version, _status.executable)
            else:
                log.warning("exec sandbox unavailable: %s", _status.reason)
        return _status


def cached_sandbox_status() -> SandboxStatus | None:
    """The detection result if it has already run (never probes)."""
    return _status


async def probe_sandbox() -> SandboxStatus:
    """:func:`sandbox_status` in a worker thread (the probe starts a process)."""
    if _status is not None:
        return _status
    return await asyncio.to_thread(sandbox_status)


def reset_sandbox_status(status: SandboxStatus | None = None) -> None:
    """Forget (or replace) the cached detection result; for tests and after installing bwrap."""
    global _status, _notice_given
    with _status_lock:
        _status = status
        _notice_given = False


_notice_given = False


def unavailable_notice(status: SandboxStatus) -> str | None:
    """The one-time warning for the first command that runs without the sandbox."""
    global _notice_given
    with _status_lock:
        if _notice_given:
            return None
        _notice_given = True
    return (
        f"[Warning: no sandbox — {status.reason}. This and later commands run with your full "
        "user rights; only the safety rules protect you. This warning is shown once.]"
    )


# -- what the sandbox protects and hides ------------------------------------------------------


def protected_paths(workspace: Path, extra: tuple[Path, ...] | list[Path] = ()) -> list[Path]:
    """Paths a sandboxed command may read but never change.

    :func:`~desktop.core.security.paths.default_protected_paths` (sessions, the memory repo's
    ``.git``, history and cursors), ``cron/`` and the workspace's ``.nanobot/`` (its id picks
    the sessions folder), plus ``extra`` (the context's paths, e.g. the config file).
    """
    root = Path(workspace)
    paths = [*default_protected_paths(root, None), root / "cron", root / ".nanobot", *extra]
    unique: dict[str, Path] = {}
    for path in paths:
        unique.setdefault(os.path.abspath(Path(path).expanduser()), Path(path).expanduser())
    return [Path(key) for key in unique]


# /proc entries made read-only inside. bwrap covers a few itself, but only those that pass an
# ``access(W_OK)`` test: /proc/sys (mode 0555) fails it while the sysctl files inside stay
# writable for uid 0, and a root-owned sandbox could then set kernel.core_pattern to a script
# the kernel runs as root outside every namespace.
_PROC_COVER = ("sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "driver", "scsi", "tty")


def bus_addresses(value: str | None) -> tuple[list[str], bool, bool]:
    """Parse a D-Bus address list.

    Returns:
        Socket paths (``unix:path=``, ``unix:runtime=yes``), whether an address is abstract
        (``unix:abstract=``), whether one is TCP.
    """
    paths: list[str] = []
    abstract = tcp = False
    for entry in (value or "").split(";"):
        transport, _, params = entry.strip().partition(":")
        keys = dict(p.partition("=")[::2] for p in params.split(",") if "=" in p)
        if transport == "unix":
            if "path" in keys:
                paths.append(unquote(keys["path"]))
            if "abstract" in keys:
                abstract = True
            if keys.get("runtime") == "yes" and os.environ.get("XDG_RUNTIME_DIR"):
                paths.append(os.path.join(os.environ["XDG_RUNTIME_DIR"], "bus"))
        elif transport in ("tcp", "nonce-tcp"):
            tcp = True
    return paths, abstract, tcp


def _hidden_folders(environ: dict[str, str]) -> list[str]:
    """Folders replaced by an empty tmpfs: runtime dirs (buses, agents), keyring data."""
    home = environ.get("HOME") or os.path.expanduser("~")
    data = environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    candidates = [
        "/run/user",
        environ.get("XDG_RUNTIME_DIR", ""),
        "/run/dbus",
        "/var/run/dbus",
        os.path.join(data, "keyrings"),
        os.path.join(data, "kwalletd"),
        os.path.join(home, ".dbus-keyrings"),
    ]
    out: list[str] = []
    for item in candidates:
        if item and os.path.isdir(item):
            real = os.path.realpath(item)
            if real not in out and real != "/":
                out.append(real)
    return out


def _visible(path: str, ws: str, gone: str) -> bool:
    real = os.path.realpath(path)
    return _inside(real, ws) or not _inside(real, gone)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _absolute_existing(paths: list[str] | tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for raw in paths:
        path = os.path.expanduser(os.path.expandvars(str(raw).strip()))
        if path and os.path.isabs(path) and os.path.exists(path):
            out.append(os.path.realpath(path))
    return out


def build_argv(  # noqa: C901  # one bubblewrap option group per setting
    command: str,
    *,
    executable: str,
    workspace: Path,
    cwd: Path,
    protected: list[Path] | tuple[Path, ...] = (),
    network: bool = True,
    seccomp_fd: int | None = None,
    socket_filter: bool = True,
    ro_binds: list[str] | tuple[str, ...] = (),
    rw_binds: list[str] | tuple[str, ...] = (),
    environ: dict[str, str] | None = None,
    home: HomeView | None = None,
    limits: Limits | None = None,
    prlimit: str | None = None,
    sized_tmpfs: bool = False,
) -> list[str]:
    """The ``bwrap`` command line for one shell command (reads the file system, no changes).

    Args:
        command: The shell command line, run by ``/bin/sh -c``.
        executable: Path of ``bwrap``.
        workspace: The (resolved) workspace: writable.
        cwd: Folder to start in.
        protected: Read-only paths (see :func:`protected_paths`); missing ones are skipped.
        network: Share the network namespace (``False``: ``--unshare-net``, loopback only).
        seccomp_fd: Descriptor holding the Unix-socket filter, if any.
        socket_filter: Whether that filter exists for this machine (without it an abstract
            session bus forces the network off).
        ro_binds: ``tools.exec.sandboxRoBinds``: extra read-only paths (re-exposing hidden ones).
        rw_binds: ``tools.exec.sandboxRwBinds``: extra writable paths.
        environ: The app's environment (to find the buses and runtime folders).
        home: The home folder's replacement, the always-hidden folders and the extra folders
            (:mod:`~desktop.core.security.sandbox_view`); ``None``: the home folder is shown.
        limits: Resource limits (``/tmp``'s size; the rlimits when ``prlimit`` is given).
        prlimit: Path of ``prlimit``, which sets the rlimits inside the sandbox.
        sized_tmpfs: bwrap understands ``--size`` (0.8+).

    Returns:
        The argument vector.
    """
    environ = dict(os.environ if environ is None else environ)
    ws = os.path.realpath(workspace)
    argv = [executable, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for entry in _PROC_COVER:  # kernel knobs: as real root, their files would be writable
        argv += ["--ro-bind-try", f"/proc/{entry}", f"/proc/{entry}"]
    tmp_size = limits.tmp_size if limits is not None and sized_tmpfs else None
    argv += (["--size", str(tmp_size)] if tmp_size else []) + ["--tmpfs", "/tmp"]
    cover, folders = view_args(home, ws, tmp_size)
    argv += cover  # the home folder replaced, the config folder hidden
    gone = home_hidden(home, ws)
    secret = [d for d in _hidden_folders(environ) if not _inside(ws, d)]
    hidden = [
        d for d in secret if not _inside(d, "/tmp") and (gone is None or not _inside(d, gone))
    ]
    for folder in hidden:
        argv += ["--tmpfs", folder]
    socket_paths, abstract, _tcp = bus_addresses(environ.get("DBUS_SESSION_BUS_ADDRESS"))
    system_paths = bus_addresses(environ.get("DBUS_SYSTEM_BUS_ADDRESS"))[0]
    out_of_sight = [*hidden, *([gone] if gone else [])]
    for sock in (*socket_paths, *system_paths):
        real = os.path.realpath(sock)
        covered = _inside(real, "/tmp") or any(_inside(real, d) for d in out_of_sight)
        if os.path.exists(real) and not covered and not _inside(real, ws):
            argv += ["--ro-bind", "/dev/null", real]
    for path in _absolute_existing(ro_binds):
        argv += ["--ro-bind", path, path]
    for path in _absolute_existing(rw_binds):
        argv += ["--bind", path, path]
    argv += folders
    for folder in hidden_again(home, ws, secret):  # inside a larger folder the person listed
        argv += ["--tmpfs", folder]
    argv += ["--bind", ws, ws]
    if gone is not None:  # what lies in the hidden home folder needs no cover of its own
        protected = [p for p in protected if _visible(os.path.abspath(p), ws, gone)]
    argv += _protection_args(ws, protected)
    if not network or (abstract and not socket_filter):
        argv.append("--unshare-net")
    argv += [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--setenv",
        "TMPDIR",
        "/tmp",
    ]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--chdir", os.path.realpath(cwd), "--"]
    if limits is not None and prlimit is not None:
        argv += rlimit_argv(prlimit, limits)
    argv += ["/bin/sh", "-c", command]
    return argv


def _protection_args(ws: str, protected: list[Path] | tuple[Path, ...]) -> list[str]:
    """Mounts that make protected paths read-only (inside) or hidden (outside the workspace)."""
    anchors: list[str] = []
    inside: list[str] = []
    hide: list[tuple[str, bool]] = []
    for item in protected:
        path = os.path.abspath(item)
        real = os.path.realpath(path)
        if not os.path.lexists(path):
            continue
        if _inside(real, ws):
            # Every folder between the workspace and the path becomes a mount point: a mount
            # point cannot be renamed or removed, so ``mv memory x`` cannot move the files away.
            parent = os.path.dirname(real)
            while _inside(parent, ws) and parent != ws:
                anchors.append(parent)
                parent = os.path.dirname(parent)
            inside.append(real)
        elif os.path.exists(real):
            hide.append((real, os.path.isdir(real)))
    args: list[str] = []
    for folder in sorted(set(anchors), key=len):  # outer folders first
        args += ["--bind", folder, folder]
    for path in sorted(set(inside), key=len):
        args += ["--ro-bind", path, path]
    for path, is_dir in hide:
        args += ["--tmpfs", path] if is_dir else ["--ro-bind", "/dev/null", path]
    return args


def prepare_workspace(workspace: Path) -> None:
    """Create the protected folders (empty) and files (empty placeholders) that do not exist
    yet, so they can be bound read-only and a command cannot create them with content of its
    own (a cron job that runs later, fake sessions, a ``.nanobot/workspace-id`` naming another
    workspace's sessions folder, ledger lines, a forged proposal): see
    :func:`~desktop.core.security.protected.create_state_placeholders`."""
    create_state_placeholders(workspace)


__all__ = [
    "INSTALL_HINT",
    "PROTECTIONS",
    "SandboxMode",
    "SandboxStatus",
    "build_argv",
    "bus_addresses",
    "cached_sandbox_status",
    "install_hint",
    "prepare_workspace",
    "probe_sandbox",
    "protected_paths",
    "reset_sandbox_status",
    "sandbox_mode",
    "sandbox_status",
    "unavailable_notice",
    "unsandboxed_warning",
]
