"""Reporting damage: notices logged once, bad bytes copied aside, obstacles moved aside.

Part of the tolerant readers (:mod:`desktop.core.utils.validate`, which re-exports all of
this). What is set aside is copied byte-exact beside the file as ``<name>.corrupt-<time>``
(:func:`set_aside_lines`, :func:`set_aside_file`); an identical earlier copy is reused, so
reading the same damage again never piles up copies, and no copy is ever overwritten. A folder
or special file standing where a file belongs is renamed aside (:func:`move_aside`) by a writer
that needs the name. Each notice is logged once per process (:mod:`desktop.core.utils.notices`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, Protocol

from desktop.core.utils.atomic import aside_name
from desktop.core.utils.notices import notify

_COPY_CHUNK = 1024 * 1024

_copies: dict[tuple[object, ...], Path] = {}
_copies_lock = threading.Lock()


class Segment(Protocol):
    """A byte range of a file (a :class:`~desktop.core.utils.validate.JsonLine`)."""

    @property
    def offset(self) -> int:
        """Where it starts."""

    @property
    def size(self) -> int:
        """How many bytes it has."""

    @property
    def raw(self) -> bytes | None:
        """Its bytes when they are at hand (``None``: read them from the file)."""


# --- setting damage aside -------------------------------------------------------------------


def _digest_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_COPY_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _existing_copy(path: Path, label: str, size: int, digest: str) -> Path | None:
    """An earlier aside copy of ``path`` with exactly these bytes, if there is one."""
    prefix = f"{path.name}.{label}-"
    try:
        siblings = list(path.parent.iterdir())
    except OSError:
        return None
    for sibling in sorted(siblings):
        if not sibling.name.startswith(prefix) or sibling.name.endswith(".tmp"):
            continue
        try:
            same_size = sibling.is_file() and sibling.stat().st_size == size
            if same_size and _digest_file(sibling) == digest:
                return sibling
        except OSError:
            continue
    return None


def _publish(tmp: Path, path: Path, label: str) -> Path:
    """Give the finished temporary copy a free aside name without replacing anything."""
    while True:
        target = aside_name(path, label)
        try:
            os.link(tmp, target)
        except FileExistsError:
            continue
        except OSError:  # no hard links here: rename (the name was free a moment ago)
            if target.exists():
                continue
            os.replace(tmp, target)
            return target
        tmp.unlink()
        return target


def _open_source(path: Path, root: Path | None) -> BinaryIO:
    """``path`` opened for reading (below ``root`` without following a link, when given)."""
    if root is None:
        return open(path, "rb")
    from desktop.core.utils.ownfiles import open_read

    handle = open_read(path, root=root)
    if handle is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    return handle


def _copy_segments(
    path: Path,
    segments: Sequence[tuple[int, int | None, bytes | None]],
    label: str,
    root: Path | None = None,
) -> Path:
    """Write the segments of ``path`` beside it (deduplicated); return the copy's path.

    Each segment is ``(offset, size, raw)``; ``raw`` (when given) is written instead of
    re-reading the range; a size of ``None`` reads to the end. Segments are separated so every
    one ends with a newline. With ``root`` the file is read without following a link.
    """
    source = _open_source(path, root)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    size = 0
    try:
        with os.fdopen(fd, "wb") as out, source:
            for offset, length, raw in segments:
                last = b""
                if raw is not None:
                    pieces: Iterator[bytes] = iter((raw,))
                else:
                    pieces = _ranged(source, offset, length)
                for piece in pieces:
                    out.write(piece)
                    digest.update(piece)
                    size += len(piece)
                    last = piece[-1:] or last
                if last != b"\n" and len(segments) > 1:
                    out.write(b"\n")
                    digest.update(b"\n")
                    size += 1
            out.flush()
            os.fsync(out.fileno())
        existing = _existing_copy(path, label, size, digest.hexdigest())
        if existing is not None:
            tmp.unlink()
            return existing
        return _publish(tmp, path, label)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _ranged(source: BinaryIO, offset: int, length: int | None) -> Iterator[bytes]:
    source.seek(offset)
    left = length if length is not None else 1 << 62
    while left > 0 and (chunk := source.read(min(_COPY_CHUNK, left))):
        left -= len(chunk)
        yield chunk


def set_aside_lines(
    path: Path, lines: Sequence[Segment], label: str = "corrupt", *, root: Path | None = None
) -> Path:
    """Copy the bytes of ``lines`` (bad lines of ``path``) byte-exact into one aside file.

    The lines keep their order; a line without a final newline gets one in the copy when
    several lines are copied. Returns the copy (an earlier identical one when it exists). The
    same lines read again in this process (a log read on every turn) reuse the copy at once.
    With ``root`` the file is read without following a link below it.
    """
    segments: list[tuple[int, int | None, bytes | None]] = [
        (line.offset, line.size, line.raw) for line in lines
    ]
    key = (
        str(path),
        label,
        tuple(
            (offset, size, hashlib.sha256(raw).digest() if raw is not None else b"")
            for offset, size, raw in segments
        ),
    )
    with _copies_lock:
        known = _copies.get(key)
    if known is not None and known.is_file():
        return known
    copy = _copy_segments(path, segments, label, root)
    with _copies_lock:
        _copies[key] = copy
    return copy


def set_aside_file(path: Path, label: str = "corrupt", *, root: Path | None = None) -> Path:
    """Copy the whole regular file ``path`` byte-exact beside itself (deduplicated).

    With ``root`` the file is read without following a link below it.
    """
    return _copy_segments(path, [(0, None, None)], label, root)


def move_aside(path: Path, label: str = "corrupt") -> Path:
    """Rename whatever stands at ``path`` (a folder, a special file) to a free aside name."""
    target = aside_name(path, label)
    os.rename(path, target)
    return target


def make_room_for_file(path: Path) -> None:
    """Before writing the file ``path``: move aside a folder or special file standing there."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISDIR(mode) or not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        moved = move_aside(path)
        notify(f"{path} was not a regular file; it was moved to {moved.name}")


def make_room_for_folder(path: Path) -> None:
    """Before creating the folder ``path``: move aside a file standing at its name."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if not stat.S_ISDIR(mode) and not (stat.S_ISLNK(mode) and os.path.isdir(path)):
        moved = move_aside(path)
        notify(f"{path} was not a folder; it was moved to {moved.name}")
