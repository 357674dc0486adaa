"""Linux artefacts from the onedir app: a tarball with a per-user installer, and a .deb.

    python packaging/linux.py tarball dist/nanobot-desktop --out dist
    python packaging/linux.py deb dist/nanobot-desktop --out dist

The .deb installs the app to ``/opt/nanobot-desktop``, a ``/usr/bin/nanobot-desktop`` link,
the ``.desktop`` entry and hicolor icons. Its ``Depends`` come from ``dpkg-shlibdeps`` over
the bundle's ELF files: the system libraries the spec deliberately did not bundle (Qt's X11
and font stack, GL, D-Bus, glib). Libraries needed only by optional Qt plugins (Wayland,
the GTK theme) become ``Recommends``: Qt skips a plugin whose libraries are missing.
``bubblewrap`` (the exec tool's sandbox) is a dependency too, ``gnome-keyring``,
``fonts-noto-color-emoji`` and a Chinese font recommended.
Both are built with ``dpkg-deb --root-owner-group`` and ``tar``, offline and without root.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from spec_helpers import APP_NAME, DISPLAY_NAME, ROOT, project_version  # noqa: E402 - needs HERE on sys.path

OPT = f"opt/{APP_NAME}"
MAINTAINER = "nanobot Desktop contributors <maintainers@nanobot-desktop.invalid>"
DESCRIPTION = (
    "personal AI agent with a desktop window\n"
    " nanobot Desktop re-implements the nanobot agent system (agent loop, tools, MCP,\n"
    " long-term memory with git history, skills, reminders, many LLM providers through\n"
    " LiteLLM) and gives it a Qt window. API keys stay in the desktop's keyring\n"
    " (Secret Service).\n"
    " .\n"
    " This package ships a self-contained build (Python and its libraries inside\n"
    " /opt/nanobot-desktop); the system provides Qt's X11, font and GL libraries."
)
# Optional Qt plugins: their libraries are recommended, not required.
OPTIONAL_ELF = re.compile(
    r"(plugins/(platformthemes/libqgtk3|platforms/libqwayland|wayland-[^/]+/[^/]+)\.so"
    r"|libQt6(WaylandClient|WlShellIntegration)\.so)"
)
# Programs the app runs, beside the libraries: bwrap, which sandboxes the exec tool's commands.
DEPENDS_EXTRA = ("bubblewrap",)
# The Secret Service the keyring talks to (any desktop keyring that provides it will do), and an
# emoji font (chats and reaction fields show emoji: without a font they are empty boxes), and a
# font with Chinese glyphs (the window's Chinese, and Chinese chats).
RECOMMENDS_EXTRA = (
    "gnome-keyring",
    "fonts-noto-color-emoji",
    "fonts-noto-cjk | fonts-wqy-microhei | fonts-droid-fallback",
)


def debian_arch() -> str:
    """Debian's name of this machine's architecture."""
    try:
        out = subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def is_elf(path: Path) -> bool:
    """Whether ``path`` is an ELF file (executable or shared library)."""
    try:
        with path.open("rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


def elf_files(app: Path) -> tuple[list[Path], list[Path]]:
    """The bundle's ELF files: (required, optional Qt plugins and their libraries)."""
    required, optional = [], []
    for path in sorted(app.rglob("*")):
        if path.is_file() and not path.is_symlink() and is_elf(path):
            relative = path.relative_to(app).as_posix()
            (optional if OPTIONAL_ELF.search(relative) else required).append(path)
    return required, optional


def shlib_depends(
    required: list[Path], optional: list[Path], app: Path
) -> tuple[list[str], list[str]]:
    """``dpkg-shlibdeps`` for the bundle: (``Depends`` of ``required``, ``Recommends`` of
    ``optional``); the bundle's own libraries satisfy themselves.

    One run for both lists: the system libraries they share (libc, Qt's X11 stack) are looked
    up in dpkg's database and their symbols files read once, and dpkg-shlibdeps keeps a
    library needed by both in ``Depends`` only.
    """
    if not required and not optional:
        return [], []
    library_dirs = sorted({str(p.parent) for p in app.rglob("*.so*") if p.is_file()})
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "debian").mkdir()
        (Path(scratch) / "debian" / "control").write_text(
            f"Source: {APP_NAME}\n\nPackage: {APP_NAME}\nArchitecture: any\n", encoding="utf-8"
        )
        result = subprocess.run(
            [
                "dpkg-shlibdeps",
                "-O",
                "--ignore-missing-info",
                "--warnings=0",
                *[f"-l{d}" for d in library_dirs],
                *[f"-e{path}" for path in required],
                *(["-dRecommends", *[f"-e{path}" for path in optional]] if optional else []),
            ],
            cwd=scratch,
            capture_output=True,
            text=True,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(f"dpkg-shlibdeps failed:\n{result.stderr}")
    fields: dict[str, list[str]] = {"Depends": [], "Recommends": []}
    for line in result.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.startswith("shlibs:") and key[len("shlibs:") :] in fields:
            fields[key[len("shlibs:") :]] = [d.strip() for d in value.split(",") if d.strip()]
    return fields["Depends"], fields["Recommends"]


def package_name(dependency: str) -> str:
    """``libfoo1 (>= 2)`` -> ``libfoo1``."""
    return dependency.split()[0]


def control_text(version: str, arch: str, depends: list[str], recommends: list[str],
                 installed_kib: int) -> str:  # fmt: skip
    """The ``DEBIAN/control`` file."""
    fields = {
        "Package": APP_NAME,
        "Version": version,
        "Architecture": arch,
        "Maintainer": MAINTAINER,
        "Installed-Size": str(installed_kib),
        "Depends": ", ".join(depends),
        "Recommends": ", ".join(recommends),
        "Section": "utils",
        "Priority": "optional",
        "Description": DESCRIPTION,
    }
    return "".join(f"{key}: {value}\n" for key, value in fields.items() if value)


POSTINST = """#!/bin/sh
set -e
if [ "$1" = configure ]; then
  command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q /usr/share/applications || true
  command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true
fi
exit 0
"""
POSTRM = """#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
  command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q /usr/share/applications || true
  command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true
fi
exit 0
"""


def desktop_entry(exec_line: str) -> str:
    """The project's ``.desktop`` entry with ``Exec`` set to ``exec_line``."""
    text = (ROOT / "resources" / "nanobot-desktop.desktop").read_text(encoding="utf-8")
    return re.sub(r"^Exec=.*$", f"Exec={exec_line}", text, flags=re.MULTILINE)


def install_icons(share: Path) -> None:
    """hicolor PNGs and the scalable SVG under ``share/icons/hicolor``."""
    for png in sorted((ROOT / "resources" / "icons" / "hicolor").glob("*/apps/*.png")):
        target = (
            share / "icons" / "hicolor" / png.relative_to(ROOT / "resources" / "icons" / "hicolor")
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(png, target)
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "resources" / "icons" / "nanobot.svg", scalable / f"{APP_NAME}.svg")


def _link_or_copy(source: str, target: str) -> None:
    """Hard-link ``source`` to ``target``; copy it where a link cannot be made."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _link_tree(source: Path, target: Path) -> None:
    """``source``'s folders made again under ``target``, its files hard-linked (or copied, see
    :func:`_link_or_copy`) and its symbolic links made again with the same targets."""
    for folder, subfolders, files in os.walk(source):
        here = target / Path(folder).relative_to(source)
        here.mkdir(parents=True, exist_ok=True)
        for name in [*subfolders, *files]:
            path = Path(folder) / name
            if path.is_symlink():
                os.symlink(os.readlink(path), here / name)
            elif name in files:
                _link_or_copy(str(path), str(here / name))


def _normalize_modes(root: Path) -> None:
    """Directories 755, executables 755, other files 644 (as Debian policy wants).

    A hard-linked file (:func:`_link_or_copy`) whose mode must change is copied first, so the
    app it came from keeps its own modes.
    """
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        info = path.stat()
        executable = path.is_dir() or info.st_mode & stat.S_IXUSR
        wanted = 0o755 if executable else 0o644
        if stat.S_IMODE(info.st_mode) == wanted:
            continue
        if not path.is_dir() and info.st_nlink > 1:
            copy = path.with_name(path.name + ".copy")
            shutil.copy2(path, copy)
            copy.replace(path)
        path.chmod(wanted)


def build_deb(app: Path, out: Path, version: str | None = None) -> Path:
    """Build ``<out>/nanobot-desktop_<version>_<arch>.deb`` from the onedir ``app``."""
    version = version or project_version()
    arch = debian_arch()
    required, optional = elf_files(app)
    depends, recommended = shlib_depends(required, optional, app)
    depends += [name for name in DEPENDS_EXTRA if name not in {package_name(d) for d in depends}]
    names = {package_name(d) for d in depends}
    recommends = [d for d in recommended if package_name(d) not in names]
    recommends += [name for name in RECOMMENDS_EXTRA if name not in names]
    with tempfile.TemporaryDirectory(dir=out) as scratch:
        root = Path(scratch) / "root"
        # Hard links, not copies (the scratch folder is beside the app, in ``out``): dpkg-deb
        # reads the same bytes, and 400 MB are neither copied nor written again.
        _link_tree(app, root / OPT)
        (root / "usr" / "bin").mkdir(parents=True)
        os.symlink(f"/{OPT}/{APP_NAME}", root / "usr" / "bin" / APP_NAME)
        share = root / "usr" / "share"
        (share / "applications").mkdir(parents=True)
        (share / "applications" / f"{APP_NAME}.desktop").write_text(
            desktop_entry(APP_NAME), encoding="utf-8"
        )
        install_icons(share)
        doc = share / "doc" / APP_NAME
        doc.mkdir(parents=True)
        (doc / "copyright").write_text(
            f"{DISPLAY_NAME}\nLicense: MIT\n\nThe bundled Python runtime and libraries keep "
            "their own licenses; see their metadata under /opt/nanobot-desktop/_internal.\n",
            encoding="utf-8",
        )
        _normalize_modes(root)
        size_kib = sum(p.lstat().st_size for p in root.rglob("*")) // 1024
        debian = root / "DEBIAN"
        debian.mkdir()
        (debian / "control").write_text(
            control_text(version, arch, depends, recommends, size_kib), encoding="utf-8"
        )
        for name, text in (("postinst", POSTINST), ("postrm", POSTRM)):
            (debian / name).write_text(text, encoding="utf-8")
            (debian / name).chmod(0o755)
        target = out / f"{APP_NAME}_{version}_{arch}.deb"
        # zstd level 5: 5.6 s of CPU and 131 MB of the app's 437 MB here, where level 9 takes
        # 11.8 s for 122 MB and xz -6 280 s for 88 MB. Every dpkg that can satisfy the
        # libc6 (>= 2.36) dependency reads zstd (Debian 12, Ubuntu 22.10).
        subprocess.run(
            ["dpkg-deb", "--root-owner-group", "-Zzstd", "-z5", "--build", str(root), str(target)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return target


def build_tarball(app: Path, out: Path, version: str | None = None) -> Path:
    """Build ``<out>/nanobot-desktop-<version>-linux-<machine>.tar.gz`` with ``install.sh``."""
    version = version or project_version()
    top = f"{APP_NAME}-{version}"
    target = out / f"{top}-linux-{platform.machine()}.tar.gz"
    with tempfile.TemporaryDirectory(dir=out) as scratch:
        # The staging folder holds what the tarball adds to the app; the app itself is read
        # where it is (tar renames it into ``top``), not copied first.
        stage = Path(scratch) / top
        share = stage / "share"
        (share / "applications").mkdir(parents=True)
        # Exec is a bare command here; install.sh writes the installed path.
        (share / "applications" / f"{APP_NAME}.desktop").write_text(
            desktop_entry(APP_NAME), encoding="utf-8"
        )
        install_icons(share)
        shutil.copy2(HERE / "linux" / "install.sh", stage / "install.sh")
        (stage / "install.sh").chmod(0o755)
        partial = target.with_name(target.name + ".part")
        # gzip level 4 through the system tar (several times faster than Python's tarfile):
        # 11 s of CPU and 148 MB here, where level 6 takes 20 s for 144 MB.
        app_member = app.name.replace(".", r"\.")
        subprocess.run(
            ["tar", "--owner=0", "--group=0", "-I", "gzip -4", "-cf", str(partial),
             "-C", scratch, top,
             # The app's members (not the targets of its symbolic links) go under ``top``.
             "-C", str(app.parent), f"--transform=s,^{app_member}\\(/\\|$\\),{top}/{APP_NAME}\\1,S",
             app.name],
            check=True,
        )  # fmt: skip
        partial.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    """Command line: ``tarball|deb APP_DIR --out DIR``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["tarball", "deb"])
    parser.add_argument("app", type=Path, help="the onedir app (dist/nanobot-desktop)")
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    if not (args.app / APP_NAME).is_file():
        parser.error(f"{args.app} has no {APP_NAME} executable: build it first")
    args.out.mkdir(parents=True, exist_ok=True)
    args.app, args.out = args.app.resolve(), args.out.resolve()
    build = build_deb if args.kind == "deb" else build_tarball
    print(build(args.app, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
