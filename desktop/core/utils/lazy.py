"""Heavy imports kept off the start path: a module imported on first attribute access, and
httpx without its command-line tool."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class LazyModule(types.ModuleType):
    """Stands for module ``name`` and imports it when an attribute is first read.

    Only an attribute read imports: holding the object, or ``name in sys.modules`` checks,
    do not. Importing is thread-safe (the import system's own locks) and happens once; each
    read is then a lookup in ``sys.modules`` and the module (nothing is copied here, so a
    patched attribute of the module is seen).
    """

    def __init__(self, name: str) -> None:
        super().__init__(f"lazy {name}")
        self._target = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._target), attribute)


def defer_httpx_cli() -> None:
    """Keep httpx's command-line tool out of ``import httpx`` (call before httpx is imported).

    httpx's package imports its ``httpx`` console command (``httpx._main``: click, rich,
    pygments; ≈6 MB resident) whenever those are installed, though only that command uses
    it. This puts a stand-in for ``httpx._main`` in ``sys.modules`` whose ``main`` imports
    the real module when called, so nothing is lost. No effect once httpx is imported.
    """
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    stand_in = types.ModuleType("httpx._main")

    def main(*args: Any, **kwargs: Any) -> Any:
        sys.modules.pop("httpx._main", None)
        return importlib.import_module("httpx._main").main(*args, **kwargs)

    stand_in.main = main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = stand_in
