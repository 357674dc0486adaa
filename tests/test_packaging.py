"""The wheel ships templates/, skills/ and resources/, and the code finds them when installed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import REPO


def test_wheel_contains_data_and_finds_it(tmp_path: Path) -> None:
    """Build the wheel, check its contents, install it to a folder and read a template."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    wheel = next(tmp_path.glob("nanobot_desktop-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "desktop/_data/templates/agent/identity.md" in names
    assert "desktop/_data/skills/README.md" in names
    assert "desktop/core/config/schema.py" in names
    assert not any(n.startswith(("tests/", ".cache/")) for n in names)
    target = tmp_path / "site"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); from desktop.core.utils.resources import data_path; "
        "p = data_path('templates', 'agent', 'identity.md'); print(p); assert p.is_file()"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", probe, str(target)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert str(target) in result.stdout
