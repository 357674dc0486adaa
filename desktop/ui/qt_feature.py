"""PySide6's ``__feature__`` check without keeping every module's source in memory.

After PySide6 is imported, its import hook asks of every module imported later whether it
uses PySide (``shibokensupport.feature._mod_uses_pyside``), by reading the module's source with
``inspect.getsource``. That goes through :mod:`linecache`, which keeps the lines of every file
read for the life of the process: ~800 modules and ~20 MB of source text by the time the idle
window has started, and more with every lazy import (LiteLLM's first call). :func:`install`
puts in an equivalent check (the text ``PySide6`` in the module's source file) that reads the
file and keeps nothing. A module without a readable source (an extension, a frozen app's
archive) counts as not using PySide, as before.
"""

from __future__ import annotations

import logging
import sys
from types import ModuleType

log = logging.getLogger(__name__)

__all__ = ["install", "uses_pyside"]


def uses_pyside(module: ModuleType) -> bool:
    """Whether the source file of ``module`` names ``PySide6`` (read once, not cached)."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return False
    try:
        with open(path, "rb") as source:
            return b"PySide6" in source.read()
    except OSError:
        return False


def install() -> bool:
    """Replace PySide6's source check with :func:`uses_pyside`; False when PySide6 has none.

    PySide6 must have been imported (``PySide6.QtCore``). A PySide6 that has no such hook (an
    older or newer one) is left alone.
    """
    feature = sys.modules.get("shibokensupport.feature")
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        log.debug("PySide6 has no __feature__ source check; nothing to replace")
        return False
    setattr(feature, "_mod_uses_pyside", uses_pyside)  # noqa: B010  # not in its stubs
    return True
