"""Whether commands can be sandboxed, what the setting asks for, and what to tell the person.

Qt-free and free of the sandbox's command line, so every front end (the window, the CLI, the
chat channels' approval questions) words the same facts the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase

SandboxMode = Literal["auto", "required", "off"]
INSTALL_HINT = QT_TR_NOOP(
    "install it (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install "
    "bubblewrap; Arch: sudo pacman -S bubblewrap), then restart nanobot Desktop"
)
# The install command per distribution (``ID`` / ``ID_LIKE`` in /etc/os-release).
_INSTALL_COMMANDS = {
    "debian": "sudo apt install bubblewrap",
    "ubuntu": "sudo apt install bubblewrap",
    "fedora": "sudo dnf install bubblewrap",
    "rhel": "sudo dnf install bubblewrap",
    "centos": "sudo dnf install bubblewrap",
    "arch": "sudo pacman -S bubblewrap",
    "opensuse": "sudo zypper install bubblewrap",
    "suse": "sudo zypper install bubblewrap",
    "alpine": "sudo apk add bubblewrap",
    "gentoo": "sudo emerge sys-apps/bubblewrap",
    "void": "sudo xbps-install bubblewrap",
}
# The warning as a clause: an approval question puts it after its reason without the period.
UNSANDBOXED_CLAUSE = QT_TR_NOOP("Commands run without the sandbox: {reason}")
_OFF_VALUES = frozenset({"none", "off", "false", "disabled", "no"})


@dataclass(frozen=True)
class SandboxStatus:
    """Whether commands can be sandboxed here, and why not.

    Attributes:
        available: bubblewrap works on this machine.
        reason: Why it is unavailable, with how to fix it (empty when available).
        executable: Absolute path of ``bwrap``.
        version: ``bwrap --version`` output.
        socket_filter: The Unix-socket seccomp filter exists for this CPU architecture.
        notes: Facts the person should know (e.g. the network cut for an abstract bus), as
            phrases.
        sized_tmpfs: This bwrap can size a ``tmpfs`` (``--size``, 0.8+): ``/tmp`` is limited.
        prlimit: Absolute path of ``prlimit`` (util-linux), which sets the rlimits inside.
    """

    available: bool
    reason: str = ""  # a Phrase when unavailable (desktop.ui.i18n.localized shows it)
    executable: str | None = None
    version: str = ""
    socket_filter: bool = False
    notes: tuple[str, ...] = field(default=())
    sized_tmpfs: bool = False
    prlimit: str | None = None

    def describe(self, mode: SandboxMode = "auto") -> str:
        """One line for Settings: ``Sandbox: bubblewrap, active`` or why not."""
        if mode == "off":
            return (
                'Sandbox: off (tools.exec.sandbox is "none") — commands run without '
                "containment; only the safety rules apply"
            )
        if self.available:
            extra = f" ({'; '.join(self.notes)})" if self.notes else ""
            return f"Sandbox: bubblewrap, active{extra}"
        if mode == "required":
            return f"Sandbox: unavailable — {self.reason}. Commands are refused until it works"
        return f"Sandbox: unavailable — {self.reason}"


def install_hint(os_release: Path = Path("/etc/os-release")) -> str:
    """How to install bubblewrap here: this distribution's command, else the common ones."""
    try:
        text = os_release.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    fields = dict(line.partition("=")[::2] for line in text.splitlines() if "=" in line)
    names = [fields.get("ID", ""), *fields.get("ID_LIKE", "").split()]
    for name in (n.strip().strip("\"'").lower() for n in names):
        for key, command in _INSTALL_COMMANDS.items():
            if name == key or name.startswith(f"{key}-"):
                return Phrase(
                    QT_TR_NOOP("install it ({command}), then restart nanobot Desktop"),
                    command=command,
                )
    return Phrase(INSTALL_HINT)


def unsandboxed_warning(status: SandboxStatus, mode: SandboxMode) -> str | None:
    """What to tell the person when commands would run without the sandbox, else ``None``.

    Said by ``status``, the gateway's start, ``channels status``, the window's banner and the
    first command approval asked in each chat channel. ``mode`` ``"off"`` is the person's own
    choice (Settings says so); with ``"required"`` commands are refused, not run.
    """
    if mode != "auto" or status.available:
        return None
    return Phrase(QT_TR_NOOP("Commands run without the sandbox: {reason}."), reason=status.reason)


def sandbox_mode(value: str | None) -> SandboxMode:
    """Read ``tools.exec.sandbox`` (nanobot's key).

    ``""`` (nanobot's default) or ``"auto"``: sandbox when possible, else run as before with a
    warning. ``"none"``/``"off"``: never sandbox. Anything else (nanobot's ``"bwrap"``,
    ``"seatbelt"``): a sandbox is required, and commands are refused without one.
    """
    text = (value or "").strip().lower()
    if text in ("", "auto"):
        return "auto"
    if text in _OFF_VALUES:
        return "off"
    return "required"


__all__ = [
    "INSTALL_HINT",
    "SandboxMode",
    "SandboxStatus",
    "install_hint",
    "sandbox_mode",
    "unsandboxed_warning",
]
