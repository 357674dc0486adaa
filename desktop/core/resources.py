"""Find the data that ships with the package: templates, builtin skills, icons.

In a wheel they live in ``desktop/_data/`` (hatch ``force-include``); in a source checkout
(editable install) they are the top-level ``templates/``, ``skills/`` and ``resources/``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def data_path(*parts: str) -> Path:
    """Path of a shipped data file or folder, e.g. ``data_path("templates", "SOUL.md")``."""
    package = Path(str(files("desktop")))
    installed = package / "_data"
    base = installed if installed.is_dir() else package.parent
    return base.joinpath(*parts)


def read_template(*parts: str) -> str:
    """Text of a file under ``templates/``."""
    return data_path("templates", *parts).read_text(encoding="utf-8")
