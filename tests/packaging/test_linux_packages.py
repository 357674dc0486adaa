"""The tarball and the .deb made by ``packaging/linux.py`` from a small app folder (no build).

The real tools run: tar and gzip, dpkg-shlibdeps and dpkg-deb (skipped where they are
missing). The app folder is read in place (tarball) or hard-linked (.deb), never changed.
"""

from __future__ import annotations

import importlib
import os
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "packaging"))
# packaging/linux.py, a script beside the spec (imported by name, as its own tests do).
linux = importlib.import_module("linux")


def _app(root: Path) -> Path:
    """A onedir-shaped folder: an ELF program, a library folder, a link and a group-writable file."""
    app = root / "nanobot-desktop"
    (app / "_internal" / "lib").mkdir(parents=True)
    shutil.copy2("/bin/true", app / "nanobot-desktop")
    (app / "_internal" / "data.txt").write_text("data", encoding="utf-8")
    (app / "_internal" / "lib" / "loose.txt").write_text("loose", encoding="utf-8")
    (app / "_internal" / "lib" / "loose.txt").chmod(0o664)
    os.symlink("nanobot-desktop/data.txt", app / "_internal" / "link")
    return app


def _modes(app: Path) -> dict[str, int]:
    return {
        path.relative_to(app).as_posix(): stat.S_IMODE(path.lstat().st_mode)
        for path in app.rglob("*")
    }


def test_tarball_puts_the_app_under_its_top_folder(tmp_path: Path) -> None:
    app = _app(tmp_path / "dist")
    before = _modes(app)
    tarball = linux.build_tarball(app, tmp_path, version="9.9")
    top = "nanobot-desktop-9.9"
    with tarfile.open(tarball) as archive:
        members = {member.name: member for member in archive.getmembers()}
    assert {f"{top}/install.sh", f"{top}/nanobot-desktop/nanobot-desktop"} <= set(members)
    assert f"{top}/nanobot-desktop/_internal/lib/loose.txt" in members
    assert f"{top}/share/applications/nanobot-desktop.desktop" in members
    # A link keeps its target, even one that starts with the app's name.
    link = members[f"{top}/nanobot-desktop/_internal/link"]
    assert link.issym() and link.linkname == "nanobot-desktop/data.txt"
    assert {m.uid for m in members.values()} == {0} and {m.gid for m in members.values()} == {0}
    assert not any(name.startswith("nanobot-desktop/") for name in members)
    assert _modes(app) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("tmp")] == []


@pytest.mark.skipif(
    not (shutil.which("dpkg-deb") and shutil.which("dpkg-shlibdeps")), reason="no dpkg-dev"
)
def test_deb_normalizes_modes_without_touching_the_app(tmp_path: Path) -> None:
    app = _app(tmp_path / "dist")
    before = _modes(app)
    deb = linux.build_deb(app, tmp_path, version="9.9")
    assert _modes(app) == before  # the hard-linked 664 file was copied before its chmod
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    modes = {line.split()[5].lstrip("."): line.split()[0] for line in listing.splitlines()}
    assert modes["/opt/nanobot-desktop/_internal/lib/loose.txt"] == "-rw-r--r--"
    assert modes["/opt/nanobot-desktop/nanobot-desktop"] == "-rwxr-xr-x"
    fields = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Depends", "Recommends"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "libc6" in fields and "bubblewrap" in fields and "gnome-keyring" in fields
