"""Where ``desktop.json`` lives, and a validation-free read of it for the first window.

The window needs its saved geometry and theme before it shows, and importing pydantic costs
about 0.2 s; :func:`peek_prefs` reads the raw JSON with the shared tolerant reader
(:mod:`desktop.core.utils.validate`, standard library only). The full,
validated load (:func:`desktop.core.config.prefs.load_prefs`) runs right after the first paint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop.core.config.paths import default_config_path
from desktop.core.utils.validate import Unusable, read_document

PREFS_FILE_NAME = "desktop.json"


def prefs_path(config_path: Path | None = None) -> Path:
    """``desktop.json`` in the folder of ``config_path`` (default ``~/.nanobot``)."""
    return (config_path or default_config_path()).expanduser().parent / PREFS_FILE_NAME


def peek_prefs(path: Path) -> dict[str, Any]:
    """The raw camelCase object in ``path``; ``{}`` when missing or unreadable (never raises).

    Uses the same tolerant reader as the full load; reporting and setting aside are left to it.
    """
    try:
        document = read_document(path)
    except (Unusable, OSError):
        return {}
    data = document[0] if document is not None else None
    return data if isinstance(data, dict) else {}


def peek_text(data: dict[str, Any], key: str, allowed: tuple[str, ...] | None = None) -> str | None:
    """``data[key]`` when it is a string (and one of ``allowed``), else ``None``."""
    value = data.get(key)
    if not isinstance(value, str) or (allowed is not None and value not in allowed):
        return None
    return value
