"""What the headless commands say about the ``exec`` sandbox.

``status``, ``gateway`` (at start-up) and ``channels status`` all say whether commands run
in the sandbox, and say it plainly when they do not, with how to install bubblewrap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.core.config.schema import Config
    from desktop.core.security.sandbox import SandboxStatus


def sandbox_report(config: Config, status: SandboxStatus) -> tuple[str, str | None]:
    """``(line, warning)``: how commands run, and the warning when they run unsandboxed.

    Reads the sandbox settings in ``desktop.json`` (blocking: a small file).
    """
    from desktop.core.config.loader import config_origin
    from desktop.core.config.prefs_peek import prefs_path
    from desktop.core.config.sandbox_settings import read_sandbox_prefs
    from desktop.core.security.limits import Limits
    from desktop.core.security.sandbox import sandbox_mode, unsandboxed_warning

    mode = sandbox_mode(config.tools.exec.sandbox)
    warning = unsandboxed_warning(status, mode)
    if warning is not None:
        return f"NONE — {warning}", warning
    line = status.describe(mode).removeprefix("Sandbox: ")
    if status.available and mode != "off":
        prefs = read_sandbox_prefs(prefs_path(config_origin(config).path))
        home = "visible (read-only)" if prefs.home_visible else "a scratch folder"
        folders = f", {len(prefs.folders)} extra folder(s)" if prefs.folders else ""
        limits = Limits.from_prefs(prefs.limits).summary()
        line += f"; home folder: {home}{folders}; limits: {limits}"
    return line, None


__all__ = ["sandbox_report"]
