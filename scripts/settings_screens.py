#!/usr/bin/env python3
"""Screenshots of every channel page and every provider page of Settings, in light and dark,
plus contact sheets (a grid of them per image) to look at many pages at once.

For the people who review how Settings reads (issue #27 asks that each page is looked at in
both themes). Run from the repository root, on a screen or a virtual one:

    xvfb-run -a .venv/bin/python scripts/settings_screens.py --out /tmp/settings-screens

It builds the Settings tab on a throwaway config in a temporary folder (no agent running, no
keyring: keys show as not set), so nothing of yours is read or changed. Options: ``--only
channels|providers``, ``--themes light,dark``, ``--columns N`` (contact sheet width).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main(argv: list[str] | None = None) -> int:  # one script, in order
    """Write the screenshots and contact sheets; print where they are."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", choices=("channels", "providers"), default=None)
    parser.add_argument("--themes", default="light,dark")
    parser.add_argument("--columns", type=int, default=3)
    parser.add_argument("--size", default="1000x760", help="window size, WxH")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.split("x"))

    import keyring
    from keyring.backends import null

    keyring.set_keyring(null.Keyring())  # nothing of the person's keyring is read

    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QColor, QFont, QPainter, QPixmap
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    import asyncio

    import qasync

    from desktop.core.config.loader import load_config
    from desktop.core.config.provider_registry import PROVIDERS
    from desktop.core.config.secret_fields import channel_names
    from desktop.core.config.secrets import SecretStore
    from desktop.ui.services import AppServices
    from desktop.ui.settings import SettingsTab
    from desktop.ui.theme import Theme

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)

    def settle() -> None:
        """Let the page's own work (keyring reads, layouts) finish."""
        loop.run_until_complete(asyncio.sleep(0.25))

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        config_path = home / "nanobot" / "config.json"
        config_path.parent.mkdir(parents=True)
        data = {"agents": {"defaults": {"workspace": str(home / "ws")}}}
        config_path.write_text(json.dumps(data), encoding="utf-8")
        services = AppServices(
            load_config(config_path), config_path, SecretStore("nanobot-desktop-screens")
        )
        targets: list[tuple[str, str]] = []
        if args.only in (None, "channels"):
            targets += [("channels", name) for name in channel_names()]
        if args.only in (None, "providers"):
            targets += [("providers", spec.name) for spec in PROVIDERS]
        theme = Theme(app, "light")  # type: ignore[arg-type]
        written: dict[str, list[Path]] = {}
        for scheme in args.themes.split(","):
            theme.set_appearance(scheme)
            tab = SettingsTab(services)
            tab.resize(width, height)
            tab.show()
            settle()
            for section, name in targets:
                tab.show_section(f"{section}/{name}")
                settle()
                path = args.out / f"{section}-{name}-{scheme}.png"
                tab.grab().save(str(path))
                written.setdefault(f"{section}-{scheme}", []).append(path)
            tab.close()
            tab.deleteLater()
            settle()
        for group, paths in written.items():
            for start in range(0, len(paths), args.columns * 3):
                chunk = paths[start : start + args.columns * 3]
                scale = 0.5
                cell_w, cell_h = int(width * scale), int(height * scale) + 18
                rows = (len(chunk) + args.columns - 1) // args.columns
                sheet = QPixmap(cell_w * min(args.columns, len(chunk)), cell_h * rows)
                sheet.fill(QColor("#808080"))
                painter = QPainter(sheet)
                font = QFont()
                font.setPixelSize(13)
                painter.setFont(font)
                for index, path in enumerate(chunk):
                    x, y = (index % args.columns) * cell_w, (index // args.columns) * cell_h
                    shot = QPixmap(str(path)).scaled(
                        cell_w,
                        cell_h - 18,
                        Qt.AspectRatioMode.KeepAspectRatio,
                        Qt.TransformationMode.SmoothTransformation,
                    )
                    painter.drawPixmap(x, y + 18, shot)
                    painter.setPen(QColor("#000000"))
                    painter.drawText(
                        QRect(x + 4, y, cell_w - 8, 18), Qt.AlignmentFlag.AlignVCenter, path.stem
                    )
                painter.end()
                sheet_path = args.out / f"sheet-{group}-{start // (args.columns * 3) + 1}.png"
                sheet.save(str(sheet_path))
                print(sheet_path)
        print(f"{sum(len(p) for p in written.values())} screenshots in {args.out}")
    executor = getattr(loop, "_QEventLoop__default_executor", None)
    if executor is not None:  # qasync's worker threads end before the application does
        executor.shutdown(wait=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
