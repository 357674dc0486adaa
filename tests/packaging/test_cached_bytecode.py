"""The build's import analysis takes modules' code from their valid cached bytecode
(packaging/cached_bytecode.py) and reads it with a faster scanner (packaging/bytecode_scan.py),
and finds the same modules, with the same code, as PyInstaller's own analysis from source."""

from __future__ import annotations

import os
import py_compile
import sys
import textwrap
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "packaging"))
pytest.importorskip("PyInstaller", reason="the package extra is not installed")

import bytecode_scan
import cached_bytecode
from PyInstaller.lib.modulegraph import modulegraph, util

SOURCE = (
    "import os.path as p\n\nVALUE = 1\n\ndef f():\n    from json import dumps\n    return dumps\n"
)


def _module(tmp_path: Path, source: str = SOURCE) -> Path:
    path = tmp_path / "mod.py"
    path.write_text(source, encoding="utf-8")
    return path


def _compile(path: Path, mode: py_compile.PycInvalidationMode) -> None:
    py_compile.compile(str(path), doraise=True, invalidation_mode=mode)


def test_a_valid_timestamp_pyc_gives_the_code_compile_gives(tmp_path: Path) -> None:
    path = _module(tmp_path)
    _compile(path, py_compile.PycInvalidationMode.TIMESTAMP)
    code = cached_bytecode.cached_code(str(path))
    assert isinstance(code, CodeType)
    assert code == compile(SOURCE, str(path), "exec", dont_inherit=True)


def test_a_source_changed_since_its_timestamp_pyc_is_parsed_again(tmp_path: Path) -> None:
    path = _module(tmp_path)
    _compile(path, py_compile.PycInvalidationMode.TIMESTAMP)
    stat = path.stat()
    path.write_text(SOURCE.replace("VALUE = 1", "VALUE = 22"), encoding="utf-8")  # size differs
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cached_bytecode.cached_code(str(path)) is None
    path.write_text(SOURCE.replace("VALUE = 1", "VALUE = 2"), encoding="utf-8")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert cached_bytecode.cached_code(str(path)) is None


@pytest.mark.parametrize(
    "mode",
    [py_compile.PycInvalidationMode.CHECKED_HASH, py_compile.PycInvalidationMode.UNCHECKED_HASH],
)
def test_a_hash_based_pyc_counts_only_for_the_source_it_hashed(
    tmp_path: Path, mode: py_compile.PycInvalidationMode
) -> None:
    path = _module(tmp_path)
    _compile(path, mode)
    assert cached_bytecode.cached_code(str(path)) == compile(
        SOURCE, str(path), "exec", dont_inherit=True
    )
    stat = path.stat()
    path.write_text(SOURCE.replace("VALUE = 1", "VALUE = 2"), encoding="utf-8")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same time
    assert cached_bytecode.cached_code(str(path)) is None


def test_no_or_a_broken_pyc_means_parsing(tmp_path: Path) -> None:
    path = _module(tmp_path)
    assert cached_bytecode.cached_code(str(path)) is None  # never compiled
    _compile(path, py_compile.PycInvalidationMode.TIMESTAMP)
    cache = Path(__import__("importlib.util").util.cache_from_source(str(path)))
    data = cache.read_bytes()
    cache.write_bytes(b"\0\0\0\0" + data[4:])  # another Python's magic number
    assert cached_bytecode.cached_code(str(path)) is None
    cache.write_bytes(data[:20])  # cut short
    assert cached_bytecode.cached_code(str(path)) is None
    assert cached_bytecode.cached_code(str(tmp_path / "stub.pyi")) is None


PACKAGE = {
    "app/__init__.py": "from . import core\nfrom .core import helper as h\n",
    "app/core.py": textwrap.dedent(
        """
        import app.extra
        from app.sub import *
        try:
            import app.optional
        except ImportError:
            pass
        if False:
            import app.dead_code
        def helper():
            import app.late
            return app.late
        class K:
            from . import inner
        """
    ),
    "app/extra.py": "X = 1\n",
    "app/optional.py": "",
    "app/late.py": "from .sub import leaf\n",
    "app/inner.py": "",
    "app/sub/__init__.py": "from .leaf import *\n__all__ = ['leaf']\n",
    "app/sub/leaf.py": "import app.nested.deep\n",
    "app/nested/__init__.py": "",
    "app/nested/deep.py": "import app.missing_on_purpose\n",
    "app/edited.py": "",
}


def _graph(root: Path) -> dict[str, tuple[str, Any]]:
    graph = modulegraph.ModuleGraph(path=[str(root)])
    graph.import_hook("app")
    # (modulegraph names a missing submodule in quotes: "'app.missing'")
    return {
        node.identifier.strip("'"): (type(node).__name__, getattr(node, "code", None))
        for node in graph.flatten()
        if node.identifier.strip("'").startswith("app")
    }


def test_the_analysis_finds_the_same_modules_and_code_from_cached_bytecode(
    tmp_path: Path,
) -> None:
    for name, text in PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    for name in PACKAGE:
        if name != "app/edited.py":  # one module without a cached .pyc: parsed
            _compile(tmp_path / name, py_compile.PycInvalidationMode.TIMESTAMP)
    (tmp_path / "app/__init__.py").write_text(
        PACKAGE["app/__init__.py"] + "from . import edited\n", encoding="utf-8"
    )  # edited after it was compiled: its .pyc no longer counts

    from_source = _graph(tmp_path)
    scan = util.iterate_instructions
    try:
        assert bytecode_scan.install(util) == bytecode_scan.supported()
        with cached_bytecode.installed(modulegraph) as counts:
            from_cache = _graph(tmp_path)
    finally:
        util.iterate_instructions = scan

    assert counts.cached == len(PACKAGE) - 2  # all but the edited two
    assert counts.parsed == 2
    # The one documented difference: an import the compiler drops as dead code is not seen
    # (the app would not run it either).
    assert from_source.keys() - from_cache.keys() == {"app.dead_code"}
    assert from_cache.keys() <= from_source.keys()
    assert {"app.late", "app.inner", "app.nested.deep", "app.edited"} <= from_cache.keys()
    assert from_source["app.missing_on_purpose"][0] == "MissingModule"
    for name, (kind, code) in from_source.items():
        if name == "app.dead_code":
            continue
        assert from_cache[name][0] == kind, name
        assert from_cache[name][1] == code, name
    # Undone after the block: the analysis compiles from source again.
    assert "compile" not in vars(modulegraph)
    assert modulegraph.ModuleGraph._load_module.__name__ == "_load_module"
    assert modulegraph.ModuleGraph._load_module.__qualname__.startswith("ModuleGraph.")


def _theirs(code: CodeType) -> list[tuple[str, Any] | None]:
    """modulegraph's own reading of ``code``, with what it does not look at left out."""
    return [
        None if i is None else (i.opname, i.argval)
        for i in util.iterate_instructions(code)
        if i is None or i.opname in bytecode_scan.WANTED
    ]


def _same(ours: list[Any], theirs: list[Any]) -> bool:
    """Equal, with constants compared by identity (both read them from the same tuple; a NaN
    is not equal to itself)."""
    return len(ours) == len(theirs) and all(
        a is b or (a is not None and b is not None and a[0] == b[0] and a[1] is b[1])
        for a, b in zip(ours, theirs, strict=True)
    )


@pytest.mark.skipif(not bytecode_scan.supported(), reason="a Python the scanner does not know")
def test_the_scanner_reads_what_dis_reads_in_real_modules() -> None:
    roots = [Path(os.__file__).parent / name for name in ("asyncio", "email", "json", "importlib")]
    roots.append(REPO / "desktop" / "core" / "agent")
    files = sorted(f for root in roots for f in root.rglob("*.py"))
    assert len(files) > 100
    imports = 0
    for file in files:
        code = compile(file.read_bytes(), str(file), "exec", dont_inherit=True)
        theirs = _theirs(code)
        assert _same(list(bytecode_scan.instructions(code)), theirs), file
        imports += sum(1 for i in theirs if i is not None and i[0] == "IMPORT_NAME")
    assert imports > 500


@pytest.mark.skipif(not bytecode_scan.supported(), reason="a Python the scanner does not know")
def test_the_scanner_folds_extended_arguments() -> None:
    # Over 256 names and constants: later instructions carry EXTENDED_ARG prefixes.
    lines = [f"name_{n} = {n}.5" for n in range(300)]
    lines += ["import json.decoder as late", "from os import path, sep", "del name_299"]
    lines += ["def f():", "    global g", "    g = 1", "    from . import sibling"]
    code = compile("\n".join(lines), "many.py", "exec", dont_inherit=True)
    ours = list(bytecode_scan.instructions(code))
    assert _same(ours, _theirs(code))
    assert ("IMPORT_NAME", "json.decoder") in ours
    assert ("DELETE_NAME", "name_299") in ours
    assert ("STORE_GLOBAL", "g") in ours
    # The function's block comes after the module's, each ended by None.
    assert ours.index(("IMPORT_NAME", "")) > ours.index(None)
    assert ours.count(None) == 2 and ours[-1] is None


def test_an_unknown_python_keeps_pyinstallers_scanner() -> None:
    assert not bytecode_scan.supported((3, 15))
    assert not bytecode_scan.supported((3, 10))
