"""Settings of our ``config.json`` schema that nanobot 0.3.5 does not know: kept in
``desktop.json``.

nanobot 0.3.5 reads ``config.json`` into its own schema and writes back only what that schema
holds (``nanobot onboard --refresh``, its WebUI settings, ``nanobot provider login`` …), so a
key only nanobot Desktop knows would be lost the next time nanobot saves — and a lost
``tools.exec.sandboxNetwork: false`` silently becomes "network on". These keys therefore live
in ``desktop.json`` beside ``config.json``, under :data:`SECTION`, with the same nested
camelCase paths they would have in ``config.json``::

    {"appearance": "dark", …,
     "configExtras": {"tools": {"exec": {"sandboxNetwork": false}}, …}}

The loader (:mod:`desktop.core.config.loader`) fills them into the config it reads, so the
runtime sees one :class:`~desktop.core.config.schema.Config`; saving splits them off again.
A value still found in ``config.json`` (written by an older nanobot Desktop, or by hand) is
moved: written to ``desktop.json`` first, then removed from ``config.json``, both atomically,
under :data:`LOCK_NAME` so two processes never move it twice; a crash between the two writes
only means the next start moves it again (the same value). A value in ``config.json`` wins over
the one in ``desktop.json``: it can only have been put there later.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from filelock import FileLock
from pydantic.alias_generators import to_camel, to_snake

from desktop.core.config.prefs_peek import PREFS_FILE_NAME
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.validate import (
    MAX_DOCUMENT_BYTES,
    Unusable,
    decode_utf8,
    load_json_text,
    read_bytes_limited,
    read_document,
    set_aside_file,
)

log = logging.getLogger(__name__)

JsonPath = tuple[str, ...]

SECTION = "configExtras"
"""The key of ``desktop.json`` that holds them."""
LOCK_NAME = PREFS_FILE_NAME + ".lock"
"""Held (beside ``desktop.json``) while either file is rewritten for these settings, and while
the preferences are saved, so neither write loses the other's."""
LOCK_TIMEOUT_S = 30.0

PRODUCT_PATHS: tuple[JsonPath, ...] = (
    ("agents", "defaults", "requestTimeoutS"),
    ("agents", "defaults", "streamIdleTimeoutS"),
    ("agents", "defaults", "dream", "maxBatchSize"),
    ("agents", "defaults", "dream", "maxIterations"),
    ("agents", "defaults", "dream", "tokenBudget"),
    ("channels", "maxInboundKb"),
    ("tools", "exec", "sandboxNetwork"),
)
"""Every setting of our schema that nanobot 0.3.5 drops when it saves ``config.json`` (its
JSON path, camelCase). ``tests/interop`` checks the list against the real nanobot."""


def lock_for(prefs_file: Path) -> FileLock:
    """The inter-process lock for ``prefs_file`` (see :data:`LOCK_NAME`)."""
    return FileLock(str(prefs_file.parent / LOCK_NAME), timeout=LOCK_TIMEOUT_S)


def _key(node: Mapping[str, Any], name: str) -> str | None:
    """The key of ``node`` that spells ``name`` (camelCase or snake_case), if any."""
    for candidate in dict.fromkeys((name, to_camel(name), to_snake(name))):
        if candidate in node:
            return candidate
    return None


def _parent(data: Mapping[str, Any], path: JsonPath) -> dict[str, Any] | None:
    node: Any = data
    for part in path[:-1]:
        key = _key(node, part) if isinstance(node, dict) else None
        if key is None:
            return None
        node = node[key]
    return node if isinstance(node, dict) else None


def _put(data: dict[str, Any], path: JsonPath, value: Any) -> None:
    node = data
    for part in path[:-1]:
        key = _key(node, part) or part
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    node[path[-1]] = value


def found(data: Mapping[str, Any]) -> list[JsonPath]:
    """The product paths ``data`` (a ``config.json`` object) holds."""
    paths = []
    for path in PRODUCT_PATHS:
        parent = _parent(data, path)
        if parent is not None and _key(parent, path[-1]) is not None:
            paths.append(path)
    return paths


def take(data: dict[str, Any]) -> dict[str, Any]:
    """Remove the product paths from ``data`` (in place); their values, nested, camelCase."""
    extras: dict[str, Any] = {}
    for path in PRODUCT_PATHS:
        parent = _parent(data, path)
        key = _key(parent, path[-1]) if parent is not None else None
        if parent is not None and key is not None:
            _put(extras, path, parent.pop(key))
    return extras


def get(extras: Mapping[str, Any], path: JsonPath) -> tuple[bool, Any]:
    """``(present, value)`` of ``path`` in a nested ``extras`` object."""
    parent = _parent(extras, path)
    key = _key(parent, path[-1]) if parent is not None else None
    if parent is None or key is None:
        return False, None
    return True, parent[key]


def fill_missing(data: dict[str, Any], extras: Mapping[str, Any]) -> list[JsonPath]:
    """Put every product value of ``extras`` into ``data`` where ``data`` has none; returns
    the paths filled (values from ``desktop.json``)."""
    filled = []
    for path in PRODUCT_PATHS:
        present, value = get(extras, path)
        if not present:
            continue
        parent = _parent(data, path)
        if parent is not None and _key(parent, path[-1]) is not None:
            continue  # config.json has one: it is the newer
        _put(data, path, value)
        filled.append(path)
    return filled


def is_product_loc(loc: Iterable[Any]) -> JsonPath | None:
    """The product path a pydantic error location (or a JSON path) points into, if any."""
    snake = tuple(to_snake(p) for p in loc if isinstance(p, str))
    for path in PRODUCT_PATHS:
        if snake[: len(path)] == tuple(to_snake(p) for p in path):
            return path
    return None


def read_extras(prefs_file: Path) -> dict[str, Any]:
    """The :data:`SECTION` object of ``prefs_file`` (``{}`` when missing or unusable; the
    preferences loader reports and sets aside a damaged file)."""
    try:
        document = read_document(prefs_file)
    except (Unusable, OSError):
        return {}
    data = document[0] if document is not None else None
    section = data.get(SECTION) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def read_prefs_object(prefs_file: Path) -> dict[str, Any]:
    """The whole ``desktop.json`` object for a rewrite; ``{}`` when missing. A file that cannot
    be used is copied aside first (never lost), then replaced.

    Raises:
        OSError: It cannot be read (permissions), or is a folder.
    """
    try:
        raw = read_bytes_limited(prefs_file, MAX_DOCUMENT_BYTES)
    except Unusable as exc:
        raise OSError(f"{prefs_file} {exc.reason}") from None
    if raw is None:
        return {}
    try:
        data, problems = load_json_text(decode_utf8(raw))
    except Unusable:
        data, problems = None, ["not JSON"]
    if problems or not isinstance(data, dict):
        copy = set_aside_file(prefs_file, "corrupt")
        log.warning("%s could not be used; it was kept as %s", prefs_file, copy.name)
        return data if isinstance(data, dict) else {}
    return data


def _write(path: Path, data: Mapping[str, Any]) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o600)


def write_extras(prefs_file: Path, extras: Mapping[str, Any]) -> None:
    """Store ``extras`` as the :data:`SECTION` of ``prefs_file`` (the rest of the file kept),
    atomically, under the lock. Nothing is written when it holds them already.

    Raises:
        OSError: It cannot be written (or read).
        filelock.Timeout: Another process holds the lock too long.
    """
    with lock_for(prefs_file):
        data = read_prefs_object(prefs_file)
        if data.get(SECTION) == extras and prefs_file.exists():
            return
        data[SECTION] = dict(extras)
        _write(prefs_file, data)


def migrate(config_file: Path, prefs_file: Path) -> list[JsonPath]:
    """Move every product value still in ``config_file`` into ``prefs_file``; returns the
    paths moved (``[]``: nothing to do, e.g. another process did it first).

    ``desktop.json`` is written first, then ``config.json`` without them (both atomic), under
    the lock. A ``config.json`` that is not a clean JSON object is left alone.

    Raises:
        OSError: A file cannot be read or written.
        filelock.Timeout: Another process holds the lock too long.
    """
    with lock_for(prefs_file):
        raw = read_bytes_limited(config_file, MAX_DOCUMENT_BYTES)
        if raw is None:
            return []
        try:
            data, problems = load_json_text(decode_utf8(raw))
        except Unusable:
            return []
        if problems or not isinstance(data, dict) or not found(data):
            return []
        moved = found(data)
        values = take(data)
        prefs = read_prefs_object(prefs_file)
        section = prefs.get(SECTION)
        merged: dict[str, Any] = dict(section) if isinstance(section, dict) else {}
        for path in moved:
            _put(merged, path, get(values, path)[1])
        prefs[SECTION] = merged
        _write(prefs_file, prefs)
        _write(config_file, data)
    log.info(
        "%s: moved %s to %s (nanobot drops them when it saves config.json)",
        config_file,
        ", ".join(".".join(p) for p in moved),
        prefs_file.name,
    )
    return moved
