"""desktop.core never pulls in Qt (PySide6, shiboken6, qasync) — checked two ways."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import REPO

FORBIDDEN = ("PySide6", "shiboken6", "qasync")

_PROBE = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    package = importlib.import_module(sys.argv[1])
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(info.name)
    bad = sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in {"PySide6", "shiboken6", "qasync"}})
    print(",".join(bad))
    """
)


def qt_modules_pulled_in(package: str, extra_path: Path | None = None) -> list[str]:
    """Import every module of ``package`` in a fresh interpreter; return Qt modules loaded."""
    env_path = [str(extra_path)] if extra_path else []
    result = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path[:0] = {env_path!r}\n" + _PROBE, package],
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    return [name for name in line.split(",") if name]


def test_core_imports_no_qt() -> None:
    """Importing every module under desktop.core loads no Qt module."""
    assert qt_modules_pulled_in("desktop.core") == []


def test_probe_catches_a_qt_import(tmp_path: Path) -> None:
    """The probe is not vacuous: a core-like package that imports Qt indirectly is caught."""
    package = tmp_path / "fakecore"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "helper.py").write_text("from PySide6 import QtCore  # noqa: F401\n")
    assert qt_modules_pulled_in("fakecore", tmp_path) == ["PySide6", "shiboken6"]


def test_import_linter_contract() -> None:
    """The import-linter contract in pyproject.toml (static graph) holds."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is part of the test extra"
    result = subprocess.run(
        [lint, "--no-cache"], capture_output=True, text=True, cwd=REPO, check=False, timeout=240
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "desktop.core is Qt-free KEPT" in result.stdout
