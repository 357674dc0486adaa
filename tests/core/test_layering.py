"""desktop.core never pulls in Qt (PySide6, shiboken6, qasync) — checked two ways — and keeps
its layer order; no two modules of desktop import each other (scripts/import_graph.py)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

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
    assert "desktop.core layers KEPT" in result.stdout


def _import_graph_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", REPO / "scripts/import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def import_graph() -> ModuleType:
    """scripts/import_graph.py, loaded as a module."""
    return _import_graph_script()


def test_no_two_modules_import_each_other(import_graph: ModuleType) -> None:
    """No circle between two files anywhere in desktop (lazy imports count, type hints not)."""
    assert import_graph.two_cycles(import_graph.build("desktop")) == []


def test_no_two_core_modules_import_each_other_even_for_type_hints(
    import_graph: ModuleType,
) -> None:
    """In desktop.core not even an import for type hints closes a circle between two files."""
    typed = import_graph.build("desktop", typing_imports=True)
    assert import_graph.two_cycles(typed, "desktop.core") == []


def test_core_parts_import_only_downwards(import_graph: ModuleType) -> None:
    """Every import between core's parts runs down the contract's layers (names what does not)."""
    edges = import_graph.package_edges(import_graph.build("desktop"))
    assert edges, "the graph has core edges"
    layers = import_graph.core_layers()
    listed = {name for layer in layers for name in layer}
    parts = {name for edge in edges for name in edge}
    assert parts <= listed, f"core parts missing from the contract: {sorted(parts - listed)}"
    assert import_graph.back_edges(edges, layers) == []


def test_the_graph_checks_catch_a_circle_and_a_back_edge(
    import_graph: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not vacuous: a lazy import closing a circle and an upward import are both found, and an
    import only for type hints is not."""
    package = tmp_path / "fakepkg"
    for part in ("lower", "upper"):
        (package / part).mkdir(parents=True)
        (package / part / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "lower" / "a.py").write_text(
        "def later():\n    from fakepkg.lower import b\n\n    return b\n"
    )
    (package / "lower" / "b.py").write_text("from fakepkg.lower import a  # noqa: F401\n")
    (package / "lower" / "c.py").write_text("from fakepkg.upper import d  # noqa: F401\n")
    (package / "upper" / "d.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from fakepkg.upper import e\n"
    )
    (package / "upper" / "e.py").write_text("from fakepkg.upper import d  # noqa: F401\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = import_graph.build("fakepkg")
    assert import_graph.two_cycles(graph, "fakepkg") == [("fakepkg.lower.a", "fakepkg.lower.b")]
    edges = import_graph.package_edges(graph, "fakepkg")
    assert import_graph.back_edges(edges, [["lower"], ["upper"]]) == []
    assert import_graph.back_edges(edges, [["upper"], ["lower"]]) == [
        ("fakepkg.lower.c", "fakepkg.upper.d")
    ]
    typed = import_graph.build("fakepkg", typing_imports=True)
    assert ("fakepkg.upper.d", "fakepkg.upper.e") in import_graph.two_cycles(typed, "fakepkg")
