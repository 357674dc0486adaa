"""Moving sessions from their legacy places to nanobot 0.3.5's names.

Two kinds of files are adopted into the id folder (:mod:`desktop.core.session.location`)
under their canonical name ``<base64url(key)>.jsonl``:

* ``<workspace>/sessions/*.jsonl`` — the layout of older nanobot and of this app before;
* ``*.jsonl`` in the id folder under an old ``<channel>_<chat>.jsonl`` name — what nanobot
  0.3.5 leaves there when it moves the legacy files on its first start (it keeps their names,
  then reads only canonical ones).

The key comes from the file's metadata line (else from its name: ``telegram_42`` →
``telegram:42``). Everything happens under nanobot's migration lock and the id folder's
``.session-files.lock`` (and the legacy folder's own lock, which older versions take), so
neither nanobot nor another process of this app sees a half-done step.

Each step keeps every message readable where the app reads (the legacy folder, old names,
canonical names, ``.migration-conflicts/``), so a kill at any point loses nothing and the next
start finishes the job:

1. no canonical file yet: the file is copied byte-exact to a hidden temporary file beside the
   target, flushed, then *linked* to the canonical name (``link`` never replaces a file), and
   only then is the source removed (a rename within one folder); a temporary copy a kill left
   behind is removed by the next run (its source is still in place);
2. a canonical file with the same bytes: the source is removed;
3. a different canonical file: the one updated last keeps the canonical name, the other is
   set aside as ``.migration-conflicts/<stem>.<from>.<digest>.jsonl`` (nanobot's conflict
   folder; the name depends only on the content, so a repeated step reuses it) with a logged
   notice naming it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from filelock import FileLock

from desktop.core.session.location import (
    MIGRATION_LOCK,
    MIGRATION_LOCK_TIMEOUT_S,
    SessionPlaces,
    key_from_storage_stem,
    legacy_filename,
    storage_name,
)
from desktop.core.session.validate import read_session_header
from desktop.core.utils.validate import Unusable, notify, open_regular_file

log = logging.getLogger(__name__)

FILES_LOCK = ".session-files.lock"
CONFLICTS = ".migration-conflicts"
_CHUNK = 1024 * 1024
_OUR_TMP = re.compile(r"\..+\.jsonl\.[0-9a-f]{12}\.tmp")


@dataclass(frozen=True)
class Found:
    """A session file as the listing sees it.

    Attributes:
        path: The file.
        key: Its session key.
        canonical: Whether ``path`` is the canonical file of ``key``.
        updated_at: The metadata ``updated_at`` text ("" when missing).
    """

    path: Path
    key: str
    canonical: bool
    updated_at: str


def key_from_legacy_stem(stem: str) -> str:
    """The key an old ``<channel>_<chat>`` file name stands for (its first ``_`` is ``:``)."""
    channel, sep, chat = stem.partition("_")
    return f"{channel}:{chat}" if sep and channel and chat else stem


def _files(folder: Path) -> list[Path]:
    if folder.is_symlink() or not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file() and not p.is_symlink())


def _describe(path: Path, *, in_id_folder: bool) -> Found | None:
    """Key and status of one file (``None``: unreadable as a whole)."""
    opened = read_session_header(path)
    if opened is None:
        return None
    header, handle = opened
    handle.close()
    key = header.key
    decoded = key_from_storage_stem(path.stem) if in_id_folder else None
    # A canonical name is the truth (nanobot loads by name), unless it is really the old
    # name of the key the file names (an old name that happens to decode).
    if decoded is not None and not (key and key != decoded and legacy_filename(key) == path.name):
        return Found(path, decoded, True, header.updated_text)
    key = key or key_from_legacy_stem(path.stem)
    return Found(path, key, False, header.updated_text)


def scan(places: SessionPlaces) -> list[Found]:
    """Every session file in the places the app reads: legacy folder first, then old names
    in the id folder, then canonical files (later entries win for one key)."""
    found: list[Found] = []
    if places.shared:
        for path in _files(places.legacy):
            item = _describe(path, in_id_folder=False)
            if item is not None:
                found.append(item)
    current = [
        item
        for path in _files(places.directory)
        if (item := _describe(path, in_id_folder=True)) is not None
    ]
    found.extend(item for item in current if not item.canonical)
    found.extend(item for item in current if item.canonical)
    return found


def _open(path: Path) -> BinaryIO:
    """A session file for reading: never through a link, never a FIFO."""
    try:
        handle = open_regular_file(path, root=path.parent)
    except Unusable as exc:
        raise OSError(f"{path} {exc.reason}") from None
    if handle is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    return handle


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with _open(path) as handle:
        while chunk := handle.read(_CHUNK):
            sha.update(chunk)
    return sha.hexdigest()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _link(src: Path, dst: Path) -> None:
    """Give ``src``'s file the name ``dst`` (raises ``FileExistsError``, never replaces)."""
    os.link(src, dst)
    _fsync_dir(dst.parent)


def _unlink(path: Path) -> None:
    path.unlink()
    _fsync_dir(path.parent)


def _copy_to_tmp(src: Path, folder: Path) -> Path:
    """A flushed byte-exact copy of ``src`` under a hidden temporary name in ``folder``."""
    tmp = folder / f".{src.name}.{secrets.token_hex(6)}.tmp"
    with _open(src) as source, tmp.open("xb") as target:
        os.chmod(tmp, 0o600)
        while chunk := source.read(_CHUNK):
            target.write(chunk)
        target.flush()
        os.fsync(target.fileno())
    return tmp


def _place(src: Path, dst: Path) -> None:
    """Put ``src``'s bytes at ``dst`` (which must not exist) and remove ``src``."""
    if src.parent == dst.parent:
        _link(src, dst)
    else:
        tmp = _copy_to_tmp(src, dst.parent)
        try:
            _link(tmp, dst)
        finally:
            tmp.unlink(missing_ok=True)
    _unlink(src)


def _set_aside(path: Path, stem: str, label: str, folder: Path) -> Path:
    """Move ``path`` into ``.migration-conflicts`` under a name its content decides."""
    conflicts = folder / CONFLICTS
    conflicts.mkdir(mode=0o700, exist_ok=True)
    target = conflicts / f"{stem}.{label}.{_digest(path)[:12]}.jsonl"
    if target.exists():
        if _digest(target) != _digest(path):  # never: the name is the content's digest
            target = target.with_name(f"{target.stem}.{secrets.token_hex(4)}.jsonl")
        else:
            _unlink(path)  # set aside by an earlier, interrupted run
            return target
    _place(path, target)
    return target


def _adopt_one(item: Found, places: SessionPlaces) -> None:
    src = item.path
    dst = places.directory / storage_name(item.key)
    label = "workspace" if src.parent != places.directory else "old-name"
    if not dst.exists():
        _place(src, dst)
        log.info("session %s moved from %s to %s", item.key, src, dst)
        return
    if _digest(src) == _digest(dst):
        _unlink(src)
        return
    other = read_session_header(dst)
    theirs = ""
    if other is not None:
        theirs = other[0].updated_text
        other[1].close()
    stem = dst.name.removesuffix(".jsonl")
    if item.updated_at > theirs:
        aside = _set_aside(dst, stem, "destination", places.directory)
        _place(src, dst)
    else:
        aside = _set_aside(src, stem, label, places.directory)
    notify(
        f"two copies of the conversation {item.key!r} differed; the one updated last is kept,"
        f" the other was set aside as {aside}",
        key=f"session-conflict:{aside}",
    )


def adopt(places: SessionPlaces) -> int:
    """Move every legacy file to its canonical name (see the module docstring).

    Returns:
        How many files were handled. A file that cannot be moved (an I/O error) stays where
        it is, read from there, and is tried again next time.
    """
    if not places.shared or places.root is None:
        return 0
    todo = [item for item in scan(places) if not item.canonical]
    if not todo:
        return 0
    done = 0
    with ExitStack() as stack:
        for lock in _locks(places):
            stack.enter_context(lock)
        _remove_stale_copies(places.directory)
        for item in scan(places):  # again, under the locks
            if item.canonical:
                continue
            try:
                _adopt_one(item, places)
                done += 1
            except OSError as exc:
                notify(f"{item.path} could not be moved to the shared sessions folder: {exc}")
    return done


def _remove_stale_copies(folder: Path) -> None:
    """Remove half-made copies a killed adoption left (caller holds the folder's lock, so no
    copy is being made; their sources are still in place)."""
    for parent in (folder, folder / CONFLICTS):
        if not parent.is_dir():
            continue
        for path in parent.iterdir():
            if _OUR_TMP.fullmatch(path.name) and path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)


def _locks(places: SessionPlaces) -> Iterator[FileLock]:
    """nanobot's order: the migration lock, the id folder's lock, then the legacy lock."""
    assert places.root is not None
    yield FileLock(str(places.root / MIGRATION_LOCK), timeout=MIGRATION_LOCK_TIMEOUT_S)
    yield FileLock(str(places.directory / FILES_LOCK), timeout=MIGRATION_LOCK_TIMEOUT_S)
    if places.legacy.is_dir() and not places.legacy.is_symlink():
        yield FileLock(str(places.legacy / FILES_LOCK), timeout=MIGRATION_LOCK_TIMEOUT_S)
