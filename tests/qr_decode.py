"""Reading QR codes back in tests, with a real decoder: ZBar's ``zbarimg`` (Debian
``zbar-tools``, installed by ``scripts/setup.sh --test``).

Without it the tests that need it skip, unless ``NANOBOT_TEST_REQUIRE_ZBAR=1`` (as in
``scripts/test.sh``), where they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from collections.abc import Sequence
from pathlib import Path

import pytest

REQUIRE_ENV = "NANOBOT_TEST_REQUIRE_ZBAR"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_HALVES = {"█": (True, True), "▀": (True, False), "▄": (False, True), " ": (False, False)}


def zbarimg() -> str:
    """The decoder's path (skips or fails the test without it)."""
    path = shutil.which("zbarimg")
    if path is None:
        message = "zbarimg is not installed (Debian: apt-get install zbar-tools)"
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(message)
        pytest.skip(message)
    return path


def decode(image: Path) -> list[str]:
    """The texts of the QR codes ZBar finds in ``image`` (a PNG)."""
    result = subprocess.run(
        [zbarimg(), "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(image)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode in (0, 4), result.stderr  # 4: no code found
    return result.stdout.splitlines()


def blocks_to_modules(lines: Sequence[str]) -> list[list[bool]]:
    """Terminal half-block lines (ANSI colours allowed) back to rows of modules."""
    rows: list[list[bool]] = []
    for line in lines:
        cells = [_HALVES[char] for char in _ANSI.sub("", line)]
        rows.append([top for top, _ in cells])
        rows.append([bottom for _, bottom in cells])
    return rows


def write_png(modules: Sequence[Sequence[bool]], path: Path, scale: int = 8) -> Path:
    """Rows of modules as a black-on-white grayscale PNG, ``scale`` pixels per module."""
    width = len(modules[0]) * scale
    raw = bytearray()
    for row in modules:
        line = b"".join((b"\x00" if dark else b"\xff") * scale for dark in row)
        assert len(line) == width, "rows of different lengths"
        for _ in range(scale):
            raw += b"\x00" + line

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, len(modules) * scale, 8, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(raw)))
        + chunk(b"IEND", b"")
    )
    return path
