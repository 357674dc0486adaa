"""PySide6's per-import ``__feature__`` check keeps no module source in memory (#26)."""

from __future__ import annotations

import linecache
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import desktop.ui.main_window  # noqa: F401  # installs the check: the app's first Qt module
from desktop.ui import qt_feature


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("p26_uses_qt", "p26_plain", "p26_leaf"):
        sys.modules.pop(name, None)


def test_imports_after_pyside_leave_no_source_in_linecache(modules: Path) -> None:
    """Every module imported after PySide6 used to stay in ``linecache`` as text (~20 MB at
    idle); its use of PySide is still told apart, from the file itself."""
    feature = sys.modules["shibokensupport.feature"]
    (modules / "p26_uses_qt.py").write_text(
        "from PySide6.QtCore import QObject\nimport json\nVALUE = QObject\n", encoding="utf-8"
    )
    (modules / "p26_leaf.py").write_text("VALUE = 1\n", encoding="utf-8")
    (modules / "p26_plain.py").write_text("import p26_leaf\nVALUE = p26_leaf.VALUE\n", "utf-8")
    import p26_plain  # type: ignore[import-not-found]  # import statements: PySide's hook
    import p26_uses_qt  # type: ignore[import-not-found]

    uses_qt, plain = p26_uses_qt, p26_plain

    assert uses_qt.__file__ not in linecache.cache
    assert plain.__file__ not in linecache.cache
    assert str(modules / "p26_leaf.py") not in linecache.cache
    # the hook records each module imported: 0 = uses PySide (default features), -1 = does not
    assert feature.pyside_feature_dict["p26_uses_qt"] == 0
    assert feature.pyside_feature_dict["p26_plain"] == -1
    assert feature.pyside_feature_dict["p26_leaf"] == -1


def test_modules_without_source_do_not_use_pyside(tmp_path: Path) -> None:
    """An extension or a frozen app's module (no readable ``.py``) counts as not using it."""
    module = ModuleType("p26_no_file")
    assert not qt_feature.uses_pyside(module)
    module.__file__ = str(tmp_path / "missing.py")
    assert not qt_feature.uses_pyside(module)
    module.__file__ = "/usr/lib/ext.so"
    assert not qt_feature.uses_pyside(module)
