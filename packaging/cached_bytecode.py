"""PyInstaller's import analysis reads the bytecode CPython has cached instead of compiling
every module's source twice.

For each pure-Python module it reaches, PyInstaller's modulegraph parses the source into an
abstract syntax tree (to find the imports), compiles that tree into a code object (to find the
module's global names, and to ship it) and walks both. Over this app's ~8,400 analysed modules
the two compilations and the tree walk were about a third of the build's CPU (cProfile of a
build).
The installed packages' ``__pycache__`` folders already hold those code objects: pip compiles
every module it installs, and CPython's own import trusts a cached ``.pyc`` when it matches the
source (its recorded modification time and size, or its hash).

:func:`install` makes the analysis do the same: while modulegraph loads a module, a request to
parse a ``.py`` file whose cached ``.pyc`` is valid for it returns that code object instead of
a tree. modulegraph then takes its path for modules that come without a tree: it reads the
imports from the bytecode (``IMPORT_NAME``), as it does for modules shipped without source. The
code object is the one ``compile()`` would give (same source, same flags, optimisation level 0),
so the bundle's ``.pyc`` files hold the same code (a few differ in ``marshal``'s byte layout:
where it marks shared references). What changes: the analysis' list of missing
modules (``warn-*.txt``) no longer says whether an import sat inside a function, a ``try`` or an
``if``, and an import the compiler removes as dead code (``if False:``) is not seen, as at run
time. A module without a valid cached ``.pyc`` (edited since, or never compiled) is parsed from
source as before.

Used by ``nanobot-desktop.spec`` and ``spec_helpers.precompiled``; tested in
``tests/packaging/test_cached_bytecode.py``.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import marshal
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import CodeType
from typing import Any

_MAGIC = importlib.util.MAGIC_NUMBER
_HASH_BASED = 0b01  # PEP 552: the flags word of a .pyc; bit 0 set: validated by a source hash


@dataclass
class Counts:
    """How many modules the analysis took from their cached bytecode, and how many it parsed."""

    cached: int = 0
    parsed: int = 0


def cached_code(path: str) -> CodeType | None:
    """The code object in ``path``'s cached ``.pyc`` when that file is valid for the source
    (the check CPython's import makes), else None.

    A timestamp-based ``.pyc`` must record the source's modification time and size; a
    hash-based one (checked or not) the hash of the source's bytes.
    """
    if not path.endswith(".py"):
        return None
    try:
        cache = importlib.util.cache_from_source(path)
        with open(cache, "rb") as file:
            data = file.read()
        stat = os.stat(path)
    except (OSError, ValueError, NotImplementedError):
        return None
    if len(data) < 16 or data[:4] != _MAGIC:
        return None
    flags = int.from_bytes(data[4:8], "little")
    if flags & _HASH_BASED:
        try:
            with open(path, "rb") as file:
                source = file.read()
        except OSError:
            return None
        if data[8:16] != importlib.util.source_hash(source):
            return None
    elif (
        int.from_bytes(data[8:12], "little") != int(stat.st_mtime) & 0xFFFFFFFF
        or int.from_bytes(data[12:16], "little") != stat.st_size & 0xFFFFFFFF
    ):
        return None
    try:
        code = marshal.loads(memoryview(data)[16:])
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


class _Loading:
    """The state of :func:`install`'s two wrappers: whether modulegraph is loading a module."""

    depth = 0


def _compile(counts: Counts) -> Callable[..., Any]:
    """A ``compile`` for modulegraph's namespace: while it loads a module, a request for the
    syntax tree of a ``.py`` file with valid cached bytecode gets that code object."""
    real = builtins.compile

    def compile_(
        source: Any,
        filename: Any,
        mode: str,
        flags: int = 0,
        dont_inherit: bool = False,
        optimize: int = -1,
        **kwargs: Any,
    ) -> Any:
        if (
            _Loading.depth
            and mode == "exec"
            and flags == ast.PyCF_ONLY_AST
            and optimize == -1
            and not kwargs
            and isinstance(filename, (str, os.PathLike))
        ):
            code = cached_code(os.fspath(filename))
            if code is not None:
                counts.cached += 1
                return code
            counts.parsed += 1
        return real(source, filename, mode, flags, dont_inherit, optimize, **kwargs)

    return compile_


def _module(modulegraph: Any | None) -> Any:
    """``modulegraph``, or PyInstaller's ``modulegraph`` module when None."""
    if modulegraph is None:
        from PyInstaller.lib.modulegraph import modulegraph as imported

        return imported
    return modulegraph


def install(modulegraph: Any | None = None) -> Counts:
    """Make PyInstaller's analysis take modules' code from their cached bytecode (see the
    module's docstring). Returns the counts, which grow as the analysis runs.

    Args:
        modulegraph: The ``PyInstaller.lib.modulegraph.modulegraph`` module (imported when
            None); a test passes it and undoes the change with :func:`installed`.
    """
    modulegraph = _module(modulegraph)
    counts = Counts()
    graph = modulegraph.ModuleGraph
    load = graph._load_module

    def _load_module(self: Any, fqname: str, pathname: str, loader: Any) -> Any:
        _Loading.depth += 1
        try:
            return load(self, fqname, pathname, loader)
        finally:
            _Loading.depth -= 1

    graph._load_module = _load_module
    modulegraph.compile = _compile(counts)
    return counts


@contextmanager
def installed(modulegraph: Any | None = None) -> Iterator[Counts]:
    """:func:`install` for the duration of a ``with`` block (for tests)."""
    modulegraph = _module(modulegraph)
    graph = modulegraph.ModuleGraph
    load = graph.__dict__["_load_module"]
    had_compile = "compile" in vars(modulegraph)
    previous = vars(modulegraph).get("compile")
    try:
        yield install(modulegraph)
    finally:
        graph._load_module = load
        if had_compile:
            modulegraph.compile = previous
        else:
            del modulegraph.compile
