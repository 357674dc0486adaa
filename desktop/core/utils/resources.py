"""Find the data that ships with the package: templates, builtin skills, icons.

Where they are, always found through ``importlib.resources`` (never from ``__file__``):

- an installed wheel: ``desktop/_data/`` (hatch ``force-include``);
- the frozen app (PyInstaller): ``desktop/_data/`` inside the bundle, where the spec puts them
  (``packaging/spec_helpers.app_data``); PyInstaller's importer answers ``files("desktop")``
  with that folder;
- a source checkout (editable install): the top-level ``templates/``, ``skills/`` and
  ``resources/`` beside the package.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from importlib.resources import files
from pathlib import Path


@functools.lru_cache(maxsize=1)
def data_root() -> Path:
    """The folder that holds ``templates/``, ``skills/`` and ``resources/``.

    Raises:
        FileNotFoundError: A frozen app was built without its data (a packaging bug: say so
            instead of looking beside the bundle).
    """
    package = Path(str(files("desktop")))
    installed = package / "_data"
    if installed.is_dir():
        return installed
    if getattr(sys, "frozen", False):
        raise FileNotFoundError(f"the app's data is missing from the bundle: {installed}")
    return package.parent


def data_path(*parts: str) -> Path:
    """Path of a shipped data file or folder, e.g. ``data_path("templates", "SOUL.md")``."""
    return data_root().joinpath(*parts)


def read_template(*parts: str) -> str:
    """Text of a file under ``templates/``."""
    return data_path("templates", *parts).read_text(encoding="utf-8")


_read_templates: dict[tuple[str, ...], str] = {}


async def aread_template(*parts: str) -> str:
    """:func:`read_template` for coroutines: read in a worker thread the first time, then kept
    (the templates ship with the app and do not change while it runs)."""
    text = _read_templates.get(parts)
    if text is None:
        text = _read_templates[parts] = await asyncio.to_thread(read_template, *parts)
    return text
