"""Start at login from the frozen app: the entry runs the installed launcher, not a guess."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from desktop.ui.settings import autostart


def _frozen_app(root: Path) -> Path:
    """A fake onedir app: the executable beside its _internal folder."""
    exe = root / "opt" / "nanobot-desktop" / "nanobot-desktop"
    (exe.parent / "_internal").mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return exe


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    exe = _frozen_app(tmp_path)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    return exe


def test_frozen_uses_the_launcher_on_path(
    frozen: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/usr/bin/nanobot-desktop (the .deb) or ~/.local/bin (install.sh) links to the app:
    the autostart entry runs that link, which stays valid when the app is updated."""
    bin_dir = tmp_path / "usr" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "nanobot-desktop").symlink_to(frozen)
    monkeypatch.setenv("PATH", f"{tmp_path / 'other'}{os.pathsep}{bin_dir}")
    command = autostart.launch_command()
    assert shlex.split(command) == [str(bin_dir / "nanobot-desktop")]
    assert f"Exec={command}\n" in autostart.entry_text(command)


def test_frozen_without_launcher_runs_the_executable(frozen: Path) -> None:
    """An unpacked, not installed app: the entry runs the frozen executable itself."""
    assert shlex.split(autostart.launch_command()) == [str(frozen)]


def test_frozen_ignores_another_install_on_path(
    frozen: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A nanobot-desktop on PATH that is not this app (a source venv) is not used."""
    other = tmp_path / "venv" / "bin"
    other.mkdir(parents=True)
    (other / "nanobot-desktop").write_text("#!/bin/sh\n")
    (other / "nanobot-desktop").chmod(0o755)
    monkeypatch.setenv("PATH", str(other))
    assert shlex.split(autostart.launch_command()) == [str(frozen)]


def test_frozen_never_uses_python_dash_m(frozen: Path) -> None:
    """``sys.executable -m desktop`` means nothing for a frozen app."""
    assert "-m desktop" not in autostart.launch_command()
