"""Icons and version resources for Windows and macOS, made from the project's PNG icons.

``.ico`` and ``.icns`` are simple containers of PNG images, so they are written here without
an image library (PyInstaller would need Pillow to convert a PNG). The Windows version
resource is PyInstaller's version-file text.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons" / "hicolor"

# ICO entries: sizes up to 256 (a width/height byte of 0 means 256).
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types that hold a PNG of this many pixels (ic07..ic10 are PNG-only types).
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256),
              (b"ic09", 512))  # fmt: skip


def png(size: int, icons: Path = ICONS) -> bytes:
    """The project's ``size`` x ``size`` PNG icon."""
    return (icons / f"{size}x{size}" / "apps" / "nanobot-desktop.png").read_bytes()


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])


def ico_bytes(images: list[bytes]) -> bytes:
    """An ``.ico`` file holding these PNG images (PNG entries: Windows Vista and later)."""
    header = struct.pack("<HHH", 0, 1, len(images))
    offset = len(header) + 16 * len(images)
    directory, payload = b"", b""
    for data in images:
        width, height = png_size(data)
        if width > 256 or height > 256:
            raise ValueError(f"ICO images are at most 256 pixels, not {width}x{height}")
        directory += struct.pack(
            "<BBBBHHII", width % 256, height % 256, 0, 0, 1, 32, len(data), offset + len(payload)
        )
        payload += data
    return header + directory + payload


def icns_bytes(images: dict[bytes, bytes]) -> bytes:
    """An ``.icns`` file: element type (``ic07``…) to PNG data."""
    body = b"".join(kind + struct.pack(">I", 8 + len(data)) + data for kind, data in images.items())
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def write_icons(target: Path, icons: Path = ICONS) -> tuple[Path, Path]:
    """Write ``nanobot-desktop.ico`` and ``nanobot-desktop.icns`` into ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    ico = target / "nanobot-desktop.ico"
    ico.write_bytes(ico_bytes([png(size, icons) for size in ICO_SIZES]))
    icns = target / "nanobot-desktop.icns"
    icns.write_bytes(icns_bytes({kind: png(size, icons) for kind, size in ICNS_TYPES}))
    return ico, icns


def windows_version_info(version: str, *, name: str, description: str, exe: str) -> str:
    """The Windows version resource as PyInstaller's version-file text (``EXE(version=path)``).

    PyInstaller reads this file on Windows with its ``VSVersionInfo`` classes; they cannot be
    imported elsewhere, so the text is written here and checked on any platform.
    """
    numbers = [int(part) for part in re.findall(r"\d+", version)[:4]]
    numbers += [0] * (4 - len(numbers))
    strings = {
        "CompanyName": "nanobot Desktop contributors",
        "FileDescription": description,
        "FileVersion": version,
        "InternalName": name,
        "OriginalFilename": exe,
        "ProductName": description,
        "ProductVersion": version,
        "LegalCopyright": "MIT License",
    }
    table = ",\n".join(f"          StringStruct({k!r}, {v!r})" for k, v in strings.items())
    fixed = tuple(numbers)
    return f"""# UTF-8
VSVersionInfo(
  ffi=FixedFileInfo(filevers={fixed}, prodvers={fixed}, mask=0x3f, flags=0x0, OS=0x40004,
                    fileType=0x1, subtype=0x0, date=(0, 0)),
  kids=[
    StringFileInfo([
      StringTable('040904B0', [
{table}
      ])
    ]),
    VarFileInfo([VarStruct('Translation', [0x0409, 1200])])
  ]
)
"""


def mac_info_plist(version: str) -> dict[str, Any]:
    """Extra ``Info.plist`` keys for the macOS ``.app`` bundle."""
    return {
        "CFBundleName": "nanobot Desktop",
        "CFBundleDisplayName": "nanobot Desktop",
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "CFBundleExecutable": "nanobot-desktop",
        "LSApplicationCategoryType": "public.app-category.productivity",
        "LSMinimumSystemVersion": "11.0",
        "NSHighResolutionCapable": True,
        "NSHumanReadableCopyright": "MIT License",
    }
