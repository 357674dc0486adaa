"""``gateway install-service`` / ``uninstall-service``: the gateway as a systemd user unit.

The unit is nanobot 0.3.5's (same default name ``nanobot-gateway.service``, same folder
``~/.config/systemd/user/``, same sections) running our foreground gateway, with two
differences: ``Restart=on-failure`` instead of ``always`` (a ``gateway stop`` stays stopped;
a crash is restarted), and no ``NoNewPrivileges=`` (it would break a setuid bubblewrap, the
exec sandbox on older systems). A unit file of nanobot's with the same name is kept aside
(``<name>.service.nanobot``) before ours replaces it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from desktop.cli.gateway_process import GatewayPaths, child_command

DEFAULT_NAME = "nanobot-gateway"


def unit_name(name: str) -> str:
    """``name`` made safe for systemd, with ``.service`` (nanobot's rule)."""
    stem = re.sub(r"[^a-z0-9_.-]+", "-", name.strip().lower()).strip(".-") or DEFAULT_NAME
    return stem if stem.endswith(".service") else f"{stem}.service"


def unit_path(name: str, home: Path | None = None) -> Path:
    """``~/.config/systemd/user/<name>.service``."""
    return (home or Path.home()) / ".config" / "systemd" / "user" / unit_name(name)


def _quote(value: str) -> str:
    if value and not re.search(r"[\s'\"\\%$]", value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{escaped}"'


def unit_content(paths: GatewayPaths, name: str) -> str:
    """The unit file's text for the gateway of ``paths``."""
    workdir = paths.workspace or Path.home()
    return "\n".join(
        [
            "[Unit]",
            f"Description=nanobot Desktop gateway ({name})",
            "After=network-online.target",
            "Wants=network-online.target",
            "",
            "[Service]",
            "Type=simple",
            f"WorkingDirectory={_quote(str(workdir))}",
            "ExecStart=" + " ".join(_quote(part) for part in child_command(paths)),
            "Restart=on-failure",
            "RestartSec=10",
            "Environment=PYTHONUNBUFFERED=1",
            "",
            "[Install]",
            "WantedBy=default.target",
            "",
        ]
    )


@dataclass
class ServiceResult:
    """What an install or uninstall did.

    Attributes:
        path: The unit file.
        lines: What to tell the person, in order.
        ok: Everything asked for was done.
        commands: The ``systemctl --user`` commands run (or that would run).
    """

    path: Path
    lines: list[str] = field(default_factory=list)
    ok: bool = True
    commands: list[list[str]] = field(default_factory=list)


def user_manager_problem() -> str | None:
    """Why ``systemctl --user`` cannot be used here, or ``None`` when it can."""
    if shutil.which("systemctl") is None:
        return "systemctl is not installed (no systemd on this system)"
    try:
        probe = subprocess.run(  # a fixed command
            ["systemctl", "--user", "is-system-running"],
            capture_output=True,
            text=True,
            timeout=15,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"systemctl --user did not answer ({exc})"
    state = probe.stdout.strip()
    if state in {"running", "degraded", "starting", "initializing"}:
        return None
    detail = probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else state
    return f"no systemd user manager reachable (systemctl --user says: {detail or 'nothing'})"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(name).replace(path)
    finally:
        Path(name).unlink(missing_ok=True)


def _systemctl(result: ServiceResult, *args: str, best_effort: bool = False) -> bool:
    command = ["systemctl", "--user", *args]
    result.commands.append(command)
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0 and not best_effort:
        result.ok = False
        why = done.stderr.strip() or f"exit code {done.returncode}"
        result.lines.append(f"`{' '.join(command)}` failed: {why}")
        return False
    return True


def install(
    paths: GatewayPaths, name: str, *, enable: bool, start: bool, dry_run: bool
) -> ServiceResult:
    """Write the unit and (where a user manager runs) reload, enable and (re)start it."""
    path = unit_path(name)
    content = unit_content(paths, name)
    unit = path.name
    result = ServiceResult(path)
    planned = [["daemon-reload"]] + ([["enable", unit]] if enable else [])
    planned += [["restart", unit]] if start else []
    if dry_run:
        result.commands = [["systemctl", "--user", *c] for c in planned]
        result.lines += [f"would write {path}:", "", content]
        return result
    if path.exists():
        old = path.read_text(encoding="utf-8", errors="replace")
        if old != content and "-m desktop" not in old and "nanobot-desktop" not in old:
            aside = path.with_name(path.name + ".nanobot")
            shutil.copy2(path, aside)
            result.lines.append(f"the unit there was another program's; kept as {aside}")
    _write(path, content)
    result.lines.append(f"unit written: {path}")
    problem = user_manager_problem()
    if problem is not None:
        result.ok = not (enable or start)
        result.lines.append(
            f"not enabled or started: {problem}. In a login session with systemd, run: "
            f"systemctl --user daemon-reload && systemctl --user enable --now {unit}"
        )
        return result
    for args in planned:
        if not _systemctl(result, *args):
            return result
    if start:
        result.lines.append(
            f"started: systemctl --user status {unit}; logs: journalctl --user -u {unit}"
        )
    return result


def uninstall(name: str, *, dry_run: bool) -> ServiceResult:
    """Stop and disable the unit (where a user manager runs), remove its file, reload."""
    path = unit_path(name)
    unit = path.name
    result = ServiceResult(path)
    if dry_run:
        result.commands = [
            ["systemctl", "--user", "disable", "--now", unit],
            ["systemctl", "--user", "daemon-reload"],
        ]
        result.lines.append(f"would remove {path}")
        return result
    problem = user_manager_problem()
    if problem is None:
        _systemctl(result, "disable", "--now", unit, best_effort=True)
    existed = path.exists()
    path.unlink(missing_ok=True)
    result.lines.append(f"removed {path}" if existed else f"no unit file at {path}")
    if problem is None:
        _systemctl(result, "daemon-reload")
    else:
        result.lines.append(f"systemd not told: {problem}")
    return result
