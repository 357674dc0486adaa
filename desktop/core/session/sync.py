"""Session files shared between processes: what is on disk, merging, and cheap saves.

The app, ``nanobot-desktop agent``, a gateway (and nanobot itself) may write the same session
file. :class:`~desktop.core.session.manager.SessionManager` keeps, per session, a
:class:`DiskState`: the message objects whose lines are in the file, the metadata record as
written, and the file's :func:`signature`. A signature that differs from the remembered one
means another process wrote; the file is then read again and merged with the unsaved changes
of this process (:func:`merge_messages`, :func:`merge_metadata`) before anything is written.

Saving is cheap in the common case, where messages were only appended (see
:meth:`SessionManager.save`): the new lines are appended, and the metadata record (nanobot's
first line) is updated in place. That works because this module writes the first line padded
with spaces to a fixed *slot* (JSON allows the whitespace; nanobot strips lines before parsing).
Everything else — earlier lines changed, a record that no longer fits its slot, a file this
process has not read — is a full atomic rewrite.

The signature is ``(inode, size, mtime_ns, first page)``: an atomic rewrite changes the inode,
an append the size, and an in-place metadata update the first page (mtime alone can repeat
within a clock tick).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop.core.utils.validate import parse_json

PENDING = "pending_user_turn"
CHECKPOINT = "runtime_checkpoint"
PAGE = 4096  # the metadata slot stays inside the first page: one write, never torn by a kill
MIN_SLOT = 512
SLOT_ROOM = 256  # spare bytes for the record to grow (markers, a title) without a rewrite

Signature = tuple[int, int, int, bytes] | None
# A session file is never opened through a link, and a FIFO there never blocks (a read
# refuses it as not a regular file).
_OPEN = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def _open_regular(path: str | os.PathLike[str], flags: int) -> int | None:
    """``path`` opened with ``flags`` if it is a regular file (no link followed, no FIFO
    waited on); ``None`` when missing, a link or anything else."""
    try:
        fd = os.open(path, flags | _OPEN)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


Message = dict[str, Any]
DiskForm = Callable[[Message], Message]


def signature(path: str | os.PathLike[str]) -> Signature:
    """``(inode, size, mtime_ns, digest of the first page)``, or ``None`` without a file (or
    when a link or special file stands there)."""
    fd = _open_regular(path, os.O_RDONLY)
    if fd is None:
        return None
    try:
        st = os.fstat(fd)
        head = os.pread(fd, PAGE, 0)
    finally:
        os.close(fd)
    return (st.st_ino, st.st_size, st.st_mtime_ns, hashlib.blake2b(head, digest_size=16).digest())


def slot_for(record: bytes) -> int:
    """Bytes reserved for a metadata record of this length (0: too large to keep in place)."""
    want = max(MIN_SLOT, -(-(len(record) + SLOT_ROOM) // 64) * 64)
    if want <= PAGE - 1:
        return want
    return len(record) if len(record) <= PAGE - 1 else 0


@dataclass
class DiskState:
    """What this process last read from, or wrote to, one session file.

    Attributes:
        sig: The file's :func:`signature` right after that read or write.
        messages: Objects whose lines are the file's message lines, in order (the session's
            own message objects where they are equal, so comparing is mostly by identity).
        record_line: The metadata record as on disk (JSON, no padding), ``None`` without one.
        slot: Bytes of the first line available for the record in place (0: none).
        size: File size.
        rewrite: The next save must rewrite the whole file (no file yet, a first line that is
            not the record, lines the loader skipped or set aside).
    """

    sig: Signature = None
    messages: list[Message] = field(default_factory=list)
    record_line: str | None = None
    slot: int = 0
    size: int = 0
    rewrite: bool = True


# -- comparing ----------------------------------------------------------------------------
def common_prefix(a: list[Message], b: list[Message], form: DiskForm) -> int:
    """How many leading messages of ``a`` and ``b`` are the same on disk."""
    n = min(len(a), len(b))
    if (a if len(a) == n else a[:n]) == (b if len(b) == n else b[:n]):
        return n  # C speed; identical objects compare at once
    for i in range(n):
        x, y = a[i], b[i]
        if x is not y and x != y and form(x) != form(y):
            return i
    return n


def line_key(message: Message, form: DiskForm) -> str:
    """A message's identity by value, as it would be written (key order ignored)."""
    return json.dumps(form(message), ensure_ascii=False, sort_keys=True, default=str)


def find_object(items: list[Message], target: Message) -> int | None:
    """Index of the object ``target`` in ``items`` (identity), searching from the end."""
    for i in range(len(items) - 1, -1, -1):
        if items[i] is target:
            return i
    return None


# -- merging ------------------------------------------------------------------------------
def merge_messages(
    base: list[Message],
    ours: list[Message],
    theirs: list[Message],
    *,
    block_start: int | None,
    form: DiskForm,
) -> tuple[list[Message], int]:
    """Three-way merge of a session's messages.

    Args:
        base: What this process last read or wrote (the common ancestor).
        ours: This process's messages now (may hold unsaved changes).
        theirs: What the file holds now (another process wrote it).
        block_start: Where this process's running (or just finished, unsaved) turn starts in
            ``ours``: that turn is kept whole and goes last, so turns of two processes never
            interleave.
        form: How a message is written (tool results are truncated on disk).

    Returns:
        The merged list (``ours``' objects where they equal the file's) and the length of
        the prefix that ``ours``, ``base`` and ``theirs`` share.

    The rule: start from the file; drop what this process deleted since ``base``; add what it
    added (its running turn last). Nothing another process wrote is lost, and nothing of
    ours: when both changed the same stretch, the union is kept (theirs first).
    """
    p_ours = common_prefix(ours, base, form)
    p_theirs = common_prefix(theirs, base, form)
    if p_ours == len(base) == len(ours) and block_start is None:  # we changed nothing
        return ours[:p_theirs] + theirs[p_theirs:], p_theirs
    if p_theirs == len(base) == len(theirs):  # they changed nothing
        return list(ours), p_ours
    p = min(p_ours, p_theirs)
    if block_start is not None:
        p = min(p, block_start)
    base_t, ours_t, theirs_t = base[p:], ours[p:], theirs[p:]
    block = ours[block_start:] if block_start is not None else []
    rest = ours_t[: len(ours_t) - len(block)]
    base_keys = {line_key(m, form) for m in base_t}
    ours_keys = [line_key(m, form) for m in rest]
    block_keys = {line_key(m, form) for m in block}
    theirs_keys = [line_key(m, form) for m in theirs_t]
    deleted = base_keys - set(ours_keys) - block_keys
    known = base_keys | set(theirs_keys)
    drop = deleted | block_keys
    kept = [m for m, k in zip(theirs_t, theirs_keys, strict=True) if k not in drop]
    added = [m for m, k in zip(rest, ours_keys, strict=True) if k not in known]
    return ours[:p] + kept + added + block, p


def _value_index(source: list[Message], index: int, shared: int, result: list[Message]) -> int:
    """Where message count ``index`` of ``source`` lands in ``result`` (a prefix length)."""
    if index <= shared:
        return index
    positions = {id(m): i for i, m in enumerate(result)}
    for back in range(index - 1, shared - 1, -1):
        if back < len(source) and id(source[back]) in positions:
            return positions[id(source[back])] + 1
    return shared


def _pending_index(
    marker: Any, source: list[Message], shared: int, result: list[Message]
) -> int | None:
    """The pending turn's index in ``result`` for a marker written against ``source``."""
    if not isinstance(marker, dict):
        return None
    try:
        index = int(marker.get("index", -1))
    except (TypeError, ValueError):
        return None
    if not 0 <= index < len(source):
        return None
    if index < shared:
        return index
    return find_object(result, source[index])


def merge_metadata(  # noqa: C901  # a three-way merge, field by field
    base: dict[str, Any] | None,
    ours: dict[str, Any],
    theirs: dict[str, Any],
    *,
    ours_turn: bool,
    sources: tuple[list[Message], list[Message]],
    shared: int,
    result: list[Message],
) -> dict[str, Any]:
    """Three-way merge of the metadata record (the shape of ``SessionManager`` records).

    A field (and each key of ``metadata``) that this process did not change since ``base``
    takes the file's value; one it changed keeps its own. ``updated_at`` is the later of the
    two; ``last_consolidated`` the larger. The pending-turn markers are this process's when
    its own turn is running (``ours_turn``), else they follow the rule above. Indices are
    carried over to ``result`` (``sources`` are ours' and theirs' message lists).
    """
    base = base or {}
    ours_list, theirs_list = sources
    merged: dict[str, Any] = {}

    def pick(name: str) -> Any:
        return theirs.get(name) if ours.get(name) == base.get(name) else ours.get(name)

    merged["created_at"] = pick("created_at") or ours.get("created_at")
    merged["updated_at"] = max(
        str(ours.get("updated_at") or ""), str(theirs.get("updated_at") or "")
    )
    ours_meta = dict(ours.get("metadata") or {})
    theirs_meta = dict(theirs.get("metadata") or {})
    base_meta = dict(base.get("metadata") or {})
    meta: dict[str, Any] = {}
    for key in [*theirs_meta, *(k for k in ours_meta if k not in theirs_meta)]:
        if key in (PENDING, CHECKPOINT):
            continue
        if ours_meta.get(key, _MISSING) == base_meta.get(key, _MISSING):
            value = theirs_meta.get(key, _MISSING)
        else:
            value = ours_meta.get(key, _MISSING)
        if value is not _MISSING:
            meta[key] = value
    # The pending-turn markers travel together and point into the merged list. Ours win when
    # our turn runs or we changed them, unless we only cleared ours while the file now names
    # another turn (theirs, still running).
    ours_marker, base_marker = ours_meta.get(PENDING), base_meta.get(PENDING)
    theirs_marker = theirs_meta.get(PENDING)
    cleared = ours_marker is None and theirs_marker not in (None, base_marker)
    if ours_turn or (ours_marker != base_marker and not cleared):
        marker_from, source = ours_meta, ours_list
    else:
        marker_from, source = theirs_meta, theirs_list
    index = _pending_index(marker_from.get(PENDING), source, shared, result)
    if index is not None:
        meta[PENDING] = {**marker_from[PENDING], "index": index}
        if CHECKPOINT in marker_from:
            meta[CHECKPOINT] = marker_from[CHECKPOINT]
    merged["metadata"] = meta
    ours_lc, theirs_lc = (
        int(ours.get("last_consolidated") or 0),
        int(theirs.get("last_consolidated") or 0),
    )
    ours_at = _value_index(ours_list, ours_lc, shared, result)
    theirs_at = _value_index(theirs_list, theirs_lc, shared, result)
    if ours_lc == int(base.get("last_consolidated") or 0):
        merged["last_consolidated"] = theirs_at
    elif theirs_lc == int(base.get("last_consolidated") or 0):
        merged["last_consolidated"] = ours_at
    else:
        merged["last_consolidated"] = max(ours_at, theirs_at)
    merged["last_consolidated"] = min(max(merged["last_consolidated"], 0), len(result))
    return merged


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()


# -- writing ------------------------------------------------------------------------------
def write_at(fd: int, data: bytes, offset: int) -> None:
    """Write all of ``data`` at ``offset`` (``pwrite`` may write less than asked)."""
    view = memoryview(data)
    while view:
        done = os.pwrite(fd, view, offset)
        view = view[done:]
        offset += done


def sync_data(fd: int) -> None:
    """Flush a file's data (and its size) to disk."""
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def heal_tail(path: str | os.PathLike[str], quarantine: str | os.PathLike[str]) -> bool:
    """Deal with a last line cut short (a crash in the middle of an append).

    A last line that is a whole JSON object only lacks its newline, which is added. Anything
    else is copied to ``quarantine`` (appended, flushed) and cut from the file, so the file is
    valid JSONL again and the next append cannot glue onto the fragment.

    Anything that is not a regular file we may write (a folder, a FIFO, a missing parent, no
    permission) is left alone: the session reader reports it and sets it aside.

    Returns:
        Whether the file was changed.
    """
    fd = _open_regular(path, os.O_RDWR)
    if fd is None:
        return False
    try:
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return False
        cut, end = 0, size
        while end > 0:
            start = max(0, end - 65536)
            found = os.pread(fd, end - start, start).rfind(b"\n")
            if found >= 0:
                cut = start + found + 1
                break
            end = start
        tail = os.pread(fd, size - cut, cut)
        try:
            whole = isinstance(parse_json(tail), dict)
        except ValueError:
            whole = False
        if whole:
            write_at(fd, b"\n", size)
        else:
            with open(quarantine, "ab") as handle:
                handle.write(tail + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.ftruncate(fd, cut)
        sync_data(fd)
        return True
    finally:
        os.close(fd)


@dataclass(frozen=True)
class FileShape:
    """What a session file looks like, for choosing between appending and rewriting.

    Attributes:
        slot: Length of the first line when it is a metadata record that fits the first
            page (room to update it in place), else 0.
        lines: Number of lines.
        size: File size.
    """

    slot: int
    lines: int
    size: int


def file_shape(path: str | os.PathLike[str]) -> FileShape | None:
    """The :class:`FileShape` of ``path`` (``None`` without a regular file)."""
    fd = _open_regular(path, os.O_RDONLY)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    newline = data.find(b"\n", 0, PAGE)
    slot = 0
    if newline > 0:
        try:
            first = parse_json(data[:newline])
        except ValueError:
            first = None
        if isinstance(first, dict) and first.get("_type") == "metadata":
            slot = newline
    return FileShape(slot, data.count(b"\n"), len(data))


def append_lines(
    path: str | os.PathLike[str],
    state: DiskState,
    record: bytes | None,
    lines: bytes,
    *,
    record_first: bool,
    write: Callable[[int, bytes, int], None] = write_at,
) -> None:
    """Append ``lines`` and put ``record`` (if given) into the first line's slot, then flush.

    ``record_first`` orders the record before the lines (a turn marked pending before its
    messages exist is harmless; messages of a turn not yet marked would not be repaired).
    """
    slot_bytes = record.ljust(state.slot, b" ") if record is not None else None
    fd = _open_regular(path, os.O_RDWR)
    if fd is None:
        raise OSError(f"{path} is not a regular file any more; it is not written through")
    try:
        if slot_bytes is not None and record_first:
            write(fd, slot_bytes, 0)
            if lines:
                sync_data(fd)
        if lines:
            write(fd, lines, state.size)
        if slot_bytes is not None and not record_first:
            write(fd, slot_bytes, 0)
        sync_data(fd)
    finally:
        os.close(fd)
    state.size += len(lines)


def encode_lines(messages: list[Message], form: DiskForm) -> bytes:
    """Messages as JSONL bytes, each line ending with a newline."""
    return b"".join(
        json.dumps(form(m), ensure_ascii=False).encode("utf-8") + b"\n" for m in messages
    )
