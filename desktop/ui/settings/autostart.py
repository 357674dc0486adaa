"""Start at login: an XDG autostart entry on Linux; other platforms are not supported yet.

No Qt here. The entry is ``$XDG_CONFIG_HOME/autostart/nanobot-desktop.desktop`` (default
``~/.config/autostart``), written atomically; removing it turns the feature off.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.i18n import QT_TR_NOOP

ENTRY_NAME = "nanobot-desktop.desktop"


def supported() -> bool:
    """Whether this platform can start the app at login (Linux/BSD desktops with XDG)."""
    return sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd"))


def unsupported_reason() -> str:
    """Why start at login is not available here (empty when it is; marked for translation:
    the window shows it through ``tr``)."""
    if supported():
        return ""
    return QT_TR_NOOP("Start at login is not supported on this platform yet.")


def autostart_path(environ: dict[str, str] | None = None) -> Path:
    """Where the autostart entry lives."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "autostart" / ENTRY_NAME


def launch_command() -> str:
    """The command line that starts the app.

    Frozen app: the installed launcher (``/usr/bin/nanobot-desktop`` from the .deb,
    ``~/.local/bin/nanobot-desktop`` from install.sh) when it leads to this very executable,
    so the entry survives an update; else the executable itself. Source install: the console
    script beside the interpreter, else ``python -m desktop``.
    """
    if getattr(sys, "frozen", False):
        return shlex.quote(str(_frozen_launcher(Path(sys.executable))))
    script = Path(sys.executable).parent / "nanobot-desktop"
    if script.exists():
        return shlex.quote(str(script))
    found = shutil.which("nanobot-desktop")
    if found:
        return shlex.quote(found)
    return f"{shlex.quote(sys.executable)} -m desktop"


def _frozen_launcher(executable: Path) -> Path:
    """``nanobot-desktop`` on ``PATH`` if it resolves to ``executable``, else ``executable``."""
    found = shutil.which("nanobot-desktop")
    if found:
        try:
            if Path(found).resolve() == executable.resolve():
                return Path(found)
        except OSError:
            pass
    return executable


def entry_text(command: str) -> str:
    """The ``.desktop`` file for ``command``."""
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Name=nanobot Desktop\n"
        "Comment=A personal AI agent on your own machine\n"
        f"Exec={command}\n"
        "Icon=nanobot-desktop\n"
        "Terminal=false\n"
        "X-GNOME-Autostart-enabled=true\n"
    )


def is_enabled(path: Path | None = None) -> bool:
    """Whether the autostart entry exists."""
    return (path or autostart_path()).is_file()


def set_enabled(enabled: bool, path: Path | None = None) -> Path:
    """Write or remove the autostart entry (blocking: call in a thread).

    Raises:
        NotImplementedError: The platform is not supported.
        OSError: The file could not be written or removed.
    """
    if not supported():
        raise NotImplementedError(unsupported_reason())
    target = path or autostart_path()
    if enabled:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, entry_text(launch_command()), mode=0o644)
    else:
        target.unlink(missing_ok=True)
    return target
