"""The built artefacts (``packaging/build.sh``) and the installed .deb, for the frozen-app tests.

Without artefacts in ``dist/`` the tests skip, unless ``NANOBOT_TEST_REQUIRE_FROZEN=1``
(``scripts/test.sh`` builds them and sets it), where they fail. While ``scripts/test.sh`` builds
them in the background (``NANOBOT_TEST_BUILD_DIR``: the build's pid, log and exit status), the
tests first wait for that build to end; a build that failed fails them with the end of its log.

The .deb is installed for real with ``dpkg -i`` when the tests run as root under CI (and
removed afterwards); elsewhere it is unpacked into a scratch root with ``dpkg-deb -x`` and run
from there, its absolute links resolved inside that root.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop import __version__
from tests.conftest import REPO, cli_env

REQUIRE_ENV = "NANOBOT_TEST_REQUIRE_FROZEN"
BUILD_DIR_ENV = "NANOBOT_TEST_BUILD_DIR"
# How long the tests wait for a background build at most (the build takes ~5 minutes on a busy
# two-core machine; test_frozen_app.py's timeout allows for this wait).
BUILD_WAIT_S = 840.0
DIST = REPO / "dist"
APP = "nanobot-desktop"


@dataclass(frozen=True)
class Artefacts:
    """What ``packaging/build.sh`` produced."""

    app_dir: Path
    deb: Path
    tarball: Path

    @property
    def exe(self) -> Path:
        """The onedir app's executable."""
        return self.app_dir / APP


def _missing(message: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {message} (scripts/test.sh builds them)", pytrace=False)
    pytest.skip(f"{message}; build with packaging/build.sh")


def _build_ended(folder: Path) -> str | None:
    """The background build's exit status, or ``None`` while it runs."""
    try:
        return (folder / "status").read_text().strip() or None
    except FileNotFoundError:
        return None


def _build_alive(folder: Path) -> bool:
    """Whether the background build's process group still exists."""
    try:
        pid = int((folder / "pid").read_text())
    except (FileNotFoundError, ValueError):
        return True  # not started yet: its pid is written first thing
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_for_build(timeout: float = BUILD_WAIT_S) -> None:
    """Wait for ``scripts/test.sh``'s background build, if one runs (fail when it failed)."""
    value = os.environ.get(BUILD_DIR_ENV)
    if not value:
        return
    folder = Path(value)
    deadline = time.monotonic() + timeout
    while (status := _build_ended(folder)) is None:
        if not _build_alive(folder) and _build_ended(folder) is None:
            pytest.fail(f"packaging/build.sh ended without a status:\n{_log_end(folder)}")
        if time.monotonic() > deadline:
            pytest.fail(f"packaging/build.sh still runs after {timeout:g} s:\n{_log_end(folder)}")
        time.sleep(1)
    if status != "0":
        pytest.fail(f"packaging/build.sh failed (exit status {status}):\n{_log_end(folder)}")


def _log_end(folder: Path) -> str:
    try:
        return "\n".join((folder / "log").read_text(errors="replace").splitlines()[-40:])
    except FileNotFoundError:
        return "(no log)"


def find_artefacts() -> Artefacts:
    """The artefacts of this version in ``dist/`` (skip or fail when one is missing).

    A build running in the background (``scripts/test.sh``) is waited for first.
    """
    wait_for_build()
    app_dir = DIST / APP
    debs = sorted(DIST.glob(f"{APP}_{__version__}_*.deb"))
    tarballs = sorted(DIST.glob(f"{APP}-{__version__}-linux-*.tar.gz"))
    if not (app_dir / APP).is_file():
        _missing(f"no onedir app at {app_dir}")
    if not debs:
        _missing(f"no {APP}_{__version__}_*.deb in {DIST}")
    if not tarballs:
        _missing(f"no {APP}-{__version__}-linux-*.tar.gz in {DIST}")
    return Artefacts(app_dir, debs[-1], tarballs[-1])


@dataclass(frozen=True)
class Installed:
    """The installed .deb: ``root`` is ``/`` for a real install, else a scratch folder."""

    root: Path
    real: bool

    def path(self, absolute: str) -> Path:
        """``absolute`` (a path the package installs) inside the root."""
        return self.root / absolute.lstrip("/")

    def resolve(self, absolute: str) -> Path:
        """Like :meth:`path`, following the package's absolute symlinks inside the root."""
        path = self.path(absolute)
        while path.is_symlink():
            target = os.readlink(path)
            path = self.path(target) if target.startswith("/") else path.parent / target
        return path

    @property
    def launcher(self) -> Path:
        """``/usr/bin/nanobot-desktop`` as a program to run (the link itself on a real install)."""
        return self.path(f"/usr/bin/{APP}") if self.real else self.resolve(f"/usr/bin/{APP}")

    @property
    def desktop_file(self) -> Path:
        """The installed launcher entry."""
        return self.path(f"/usr/share/applications/{APP}.desktop")

    def desktop_exec(self) -> list[str]:
        """The entry's ``Exec`` line as argv, the program found as the desktop would find it."""
        line = next(
            line
            for line in self.desktop_file.read_text(encoding="utf-8").splitlines()
            if line.startswith("Exec=")
        )
        argv = [arg for arg in shlex.split(line[len("Exec=") :]) if not arg.startswith("%")]
        if "/" not in argv[0]:  # looked up on PATH: /usr/bin in the package's root
            argv[0] = str(self.launcher)
        elif not self.real:
            argv[0] = str(self.resolve(argv[0]))
        return argv


def install_deb(deb: Path, scratch: Path) -> Iterator[Installed]:
    """Install ``deb`` (see the module docstring); removes a real install afterwards."""
    real = os.geteuid() == 0 and bool(os.environ.get("CI")) and shutil.which("dpkg") is not None
    if not real:
        subprocess.run(["dpkg-deb", "-x", str(deb), str(scratch)], check=True, timeout=300)
        yield Installed(scratch, real=False)
        return
    result = subprocess.run(
        ["dpkg", "-i", str(deb)], capture_output=True, text=True, timeout=600,
        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, f"dpkg -i failed:\n{result.stdout}\n{result.stderr}"
    try:
        yield Installed(Path("/"), real=True)
    finally:
        subprocess.run(["dpkg", "--purge", APP], capture_output=True, timeout=300, check=False)


def frozen_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for the frozen app: isolated HOME, no PYTHONPATH (nothing from the source
    tree may leak in)."""
    env = cli_env(home, **extra)
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(name, None)
    return env


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
