"""Installing an optional feature's SDK (a pip extra) into a source install, from the app.

A chat channel's SDK is an extra of the package (``nanobot-desktop[telegram]``). In a source
install — the repository installed editable into its own ``.venv``, as ``scripts/setup.sh``
does — Settings may offer to install a missing one, showing the exact command first. An app
installed as a package (a wheel, the ``.deb``) or a bundle (PyInstaller) never changes itself:
:func:`install_plan` returns ``None`` there and the person gets the command to run instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.metadata
import json
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from desktop.core.utils.redact import redact

DIST = "nanobot-desktop"
"""The distribution whose extras these are."""

KEEP_LINES = 40
"""How many of pip's last output lines a failure keeps for the person."""


class InstallFailed(RuntimeError):
    """pip ended with an error; ``str()`` is its last lines (redacted)."""


@dataclass(frozen=True)
class InstallPlan:
    """What installing one extra runs.

    Attributes:
        extra: The extra (``telegram``).
        argv: The command (the app's own interpreter running pip).
        source: The source tree installed editable, which the command reinstalls with the
            extra.
    """

    extra: str
    argv: tuple[str, ...]
    source: Path

    @property
    def command(self) -> str:
        """The command as a person would type it."""
        return shlex.join(self.argv)


def editable_source(dist: str = DIST) -> Path | None:
    """The source tree ``dist`` is installed from in editable mode, or ``None`` (installed as
    a package, not installed, or the record is unreadable)."""
    try:
        record = importlib.metadata.distribution(dist).read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return None
    if not record:
        return None
    try:
        info = json.loads(record)
    except ValueError:
        return None
    if not isinstance(info, dict) or not (info.get("dir_info") or {}).get("editable"):
        return None
    url = urlparse(str(info.get("url", "")))
    if url.scheme != "file":
        return None
    path = Path(unquote(url.path))
    return path if (path / "pyproject.toml").is_file() else None


def install_plan(extra: str, *, python: str | None = None) -> InstallPlan | None:
    """How to install ``extra`` into this source install, or ``None`` where the app must not
    change itself (a bundle, an installed package) or ``extra`` is not one of its extras.

    Args:
        extra: The extra's name.
        python: The interpreter to run pip with (default: the running one).
    """
    if getattr(sys, "frozen", False):
        return None
    source = editable_source()
    if source is None or extra not in known_extras():
        return None
    argv = (python or sys.executable, "-m", "pip", "install", "--quiet", "--progress-bar",
            "off", "--editable", f"{source}[{extra}]")  # fmt: skip
    return InstallPlan(extra, argv, source)


def known_extras(dist: str = DIST) -> frozenset[str]:
    """The extras ``dist`` declares (empty when it is not installed)."""
    try:
        metadata = importlib.metadata.metadata(dist)
    except importlib.metadata.PackageNotFoundError:
        return frozenset()
    return frozenset(metadata.get_all("Provides-Extra") or [])


async def run_install(
    argv: Sequence[str], on_line: Callable[[str], None], *, env: dict[str, str] | None = None
) -> None:
    """Run an install command, telling ``on_line`` each line it prints (redacted).

    The import system forgets what it knew of missing modules afterwards, so the new package
    imports at once.

    Raises:
        InstallFailed: The command failed (its last lines, redacted).
        OSError: It could not be started.
    """
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
    )
    tail: list[str] = []
    try:
        assert process.stdout is not None
        async for raw in process.stdout:
            line = redact(raw.decode(errors="replace").rstrip())
            if not line:
                continue
            tail = [*tail[-(KEEP_LINES - 1) :], line]
            on_line(line)
        code = await process.wait()
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise
    importlib.invalidate_caches()
    if code != 0:
        raise InstallFailed("\n".join(tail[-8:]) or f"the installer ended with code {code}")
