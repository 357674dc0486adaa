"""QR codes as module grids (``desktop.core.utils.qr``), read back by a real decoder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from desktop.core.utils.qr import QUIET_ZONE, QrUnavailable, qr_modules
from tests.qr_decode import decode, write_png, zbarimg


def test_a_short_text_is_a_regular_qr_code_with_its_quiet_zone(tmp_path: Path) -> None:
    """Phones do not read Micro QR codes: even three characters make a regular one (21×21
    modules), with four light modules of border on every side."""
    zbarimg()
    modules = qr_modules("2@x")
    assert len(modules) == 21 + 2 * QUIET_ZONE and all(len(r) == len(modules) for r in modules)
    border = modules[:QUIET_ZONE] + modules[-QUIET_ZONE:]
    assert not any(any(row) for row in border)
    assert not any(any(row[:QUIET_ZONE] + row[-QUIET_ZONE:]) for row in modules)
    assert all(modules[QUIET_ZONE][QUIET_ZONE : QUIET_ZONE + 7]), "the finder pattern's edge"
    assert decode(write_png(modules, tmp_path / "short.png")) == ["2@x"]


def test_empty_or_too_long_texts_are_refused() -> None:
    with pytest.raises(ValueError, match="nothing"):
        qr_modules("")
    with pytest.raises(ValueError, match="too long"):
        qr_modules("x" * 5000)


def test_without_segno_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "segno", None)  # import segno → ImportError
    with pytest.raises(QrUnavailable, match=r"nanobot-desktop\[whatsapp\]"):
        qr_modules("2@x")
