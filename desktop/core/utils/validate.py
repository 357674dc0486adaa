"""Tolerant reading of the app's own files: one reader per format, damage set aside.

Every persistent file the app reads goes through one of these readers, so a damaged byte, a
wrong type or a hostile nesting depth can never raise out of a load:

* :func:`load_json_text` — a JSON document or one JSON line. Text that is not UTF-8, not JSON,
  nested beyond the parser's reach or holding an integer too long to convert raises
  :class:`Unusable`. Parts that parse but must not be used — ``NaN``/``Infinity``, strings
  with lone surrogates (they cannot be written back as UTF-8), anything nested deeper than
  :data:`MAX_DEPTH` — are removed and reported as problems, the rest is kept.
* :func:`read_jsonl` — a JSON Lines file, line by line, with a bound on the line length (an
  over-long line is skipped without being held in memory).
* :func:`read_document` — a bounded JSON document file (``None`` when missing).
* :func:`read_text_document` — a Markdown/text file: bytes that are not UTF-8 are shown as
  U+FFFD and the original file is copied aside first.
* :func:`read_int_file` — a file holding one non-negative integer (the memory cursors).

What is set aside is copied byte-exact beside the file as ``<name>.corrupt-<time>``
(:func:`set_aside_lines`, :func:`set_aside_file`); an identical earlier copy is reused, so
reading the same damage again never piles up copies, and no copy is ever overwritten. A folder
or special file standing where a file belongs is renamed aside (:func:`move_aside`) only by a
writer that needs the name (those parts live in :mod:`desktop.core.utils.validate_aside` and are
re-exported here). Each notice is logged once per process on the ``desktop.core.notices``
logger (:func:`notify`), which the command line echoes to stderr.

Standard library only (the first window imports it through the preferences peek).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Self

from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.notices import NOTICE_LOGGER, notify, reset_notices, summarize
from desktop.core.utils.validate_aside import (
    make_room_for_file,
    make_room_for_folder,
    move_aside,
    set_aside_file,
    set_aside_lines,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_INT",
    "MAX_LINE_BYTES",
    "MAX_TEXT_BYTES",
    "NOTICE_LOGGER",
    "JsonLine",
    "Removed",
    "Unusable",
    "decode_utf8",
    "iter_jsonl",
    "load_json_text",
    "make_room_for_file",
    "make_room_for_folder",
    "move_aside",
    "notify",
    "open_regular_file",
    "parse_json",
    "read_bytes_limited",
    "read_document",
    "read_int_file",
    "read_jsonl",
    "read_text_document",
    "reset_notices",
    "scrub",
    "set_aside_file",
    "set_aside_lines",
    "summarize",
]

MAX_DEPTH = 100
MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
MAX_TEXT_BYTES = 8 * 1024 * 1024
MAX_INT = 2**63 - 1
_INT_FILE_BYTES = 64
_COPY_CHUNK = 1024 * 1024
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class Unusable(ValueError):
    """A file (or one line of it) that cannot be used at all; ``str()`` says why.

    Attributes:
        reason: Human-readable cause ("not UTF-8 text (byte 12)", "is a folder, not a file"),
            a :class:`~desktop.core.utils.i18n.Phrase` when it is our wording (the window
            translates it; logs and the CLI see the English).
        line: 1-based line of a JSON syntax error, when known.
        kind: ``"content"`` (bad bytes), ``"folder"`` (a directory stands there),
            ``"special"`` (device, FIFO, socket), ``"link"`` (a symlink where the app's own
            file belongs), ``"unreadable"`` (permissions, a linked folder on the way) or
            ``"too_large"``.
    """

    def __init__(self, reason: str, *, line: int | None = None, kind: str = "content") -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.kind = kind


# --- JSON -----------------------------------------------------------------------------------


def parse_json(raw: str | bytes | bytearray) -> Any:
    """``json.loads`` whose every failure is a :class:`ValueError`.

    For JSON from outside the app's own files (a model's tool arguments, a skill's metadata, a
    web page, a line met while scanning): the standard parser raises :class:`RecursionError`
    on text nested beyond its reach, which a caller catching ``ValueError`` would let escape.

    Raises:
        ValueError: Not JSON (``json.JSONDecodeError``), nested too deeply, or bad UTF-8.
    """
    try:
        return json.loads(raw)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


def decode_utf8(raw: bytes) -> str:
    """``raw`` as text (a leading BOM dropped); :class:`Unusable` when it is not UTF-8."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        template = QT_TR_NOOP("not UTF-8 text (bad byte at offset {offset})")
        raise Unusable(Phrase(template, offset=exc.start)) from None
    return text.removeprefix("\ufeff")


_DROP = object()
JsonPath = tuple[str | int, ...]


class Removed(Phrase):
    """A problem text (``"tools.x[2]: NaN is not a JSON number"``) that knows its path (a
    phrase: the window translates its reason).

    Attributes:
        path: Keys and list indices leading to the removed value (``()``: the whole value).
    """

    path: JsonPath

    def __new__(cls, path: JsonPath, reason: str) -> Self:
        """Build the text from ``path`` and ``reason``."""
        dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
        text = super().__new__(
            cls, QT_TR_NOOP("{where}: {reason}"), where=dotted or "value", reason=reason
        )
        assert isinstance(text, cls)
        text.path = path
        return text


def _clean(value: Any, path: JsonPath, depth: int, problems: list[str]) -> Any:  # noqa: C901  # one branch per JSON value type
    """``value`` without non-finite numbers, lone surrogates and over-deep containers."""
    if isinstance(value, float):
        if not math.isfinite(value):
            problems.append(
                Removed(path, Phrase(QT_TR_NOOP("{value} is not a JSON number"), value=value))
            )
            return _DROP
        return value
    if isinstance(value, str):
        if not value.isascii() and _SURROGATE.search(value):
            problems.append(
                Removed(path, Phrase(QT_TR_NOOP("text with an invalid (surrogate) character")))
            )
            return _DROP
        return value
    if isinstance(value, dict | list):
        if depth >= MAX_DEPTH:
            deep = Phrase(QT_TR_NOOP("nested more than {depth} levels deep"), depth=MAX_DEPTH)
            problems.append(Removed(path, deep))
            return _DROP
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for key, item in value.items():
                if not key.isascii() and _SURROGATE.search(key):
                    problems.append(
                        Removed(path, Phrase(QT_TR_NOOP("a key with an invalid character")))
                    )
                    continue
                cleaned = _clean(item, (*path, key), depth + 1, problems)
                if cleaned is not _DROP:
                    out[key] = cleaned
            return out
        items = []
        for index, item in enumerate(value):
            cleaned = _clean(item, (*path, index), depth + 1, problems)
            if cleaned is not _DROP:
                items.append(cleaned)
        return items
    return value


def scrub(value: Any) -> tuple[Any, list[str]]:
    """``value`` with unusable parts removed, and one problem text per removal.

    The problems are :class:`Removed` texts (they carry the path). ``None`` stands for a
    top-level value that had to be removed entirely.
    """
    problems: list[str] = []
    cleaned = _clean(value, (), 0, problems)
    return (None if cleaned is _DROP else cleaned), problems


def load_json_text(raw: bytes | str) -> tuple[Any, list[str]]:
    """Parse one JSON text tolerantly.

    Returns:
        The value with unusable parts removed (see :func:`scrub`) and what was removed.

    Raises:
        Unusable: Not UTF-8, not JSON, nested beyond the parser's reach, or a number that
            cannot be converted.
    """
    text = decode_utf8(raw) if isinstance(raw, bytes | bytearray) else raw
    try:
        value = json.loads(text)
    except RecursionError:
        raise Unusable(Phrase(QT_TR_NOOP("nested too deeply to read"))) from None
    except json.JSONDecodeError as exc:
        template = QT_TR_NOOP("invalid JSON: {error} (line {line}, column {column})")
        said = Phrase(template, error=exc.msg, line=exc.lineno, column=exc.colno)
        raise Unusable(said, line=exc.lineno) from None
    except ValueError as exc:  # e.g. an integer with thousands of digits
        raise Unusable(Phrase(QT_TR_NOOP("invalid JSON: {error}"), error=str(exc))) from None
    # Fast path (most reads): nothing to remove unless the text spells NaN/Infinity or a
    # surrogate escape somewhere (inside strings too: a false alarm only costs a walk), or the
    # value may nest deeper than the limit.
    if _suspect(text) or _may_be_too_deep(text, value):
        return scrub(value)
    return value, []


def _suspect(text: str) -> bool:
    """Whether ``text`` spells NaN/Infinity or a surrogate escape (substring tests are fast)."""
    return (
        "NaN" in text
        or "Infinity" in text
        or ("\\u" in text and _SURROGATE_ESCAPE.search(text) is not None)
    )


def _may_be_too_deep(text: str, value: Any) -> bool:
    """Whether ``value`` nests :data:`MAX_DEPTH` levels or more (cheap when it cannot)."""
    if text.count("[") + text.count("{") < MAX_DEPTH:
        return False
    return _depth_reaches(value, MAX_DEPTH)


def _depth_reaches(value: Any, levels: int) -> bool:
    if levels <= 0:
        return True
    if isinstance(value, dict):
        items: Any = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return False
    return any(isinstance(v, dict | list) and _depth_reaches(v, levels - 1) for v in items)


# --- opening files --------------------------------------------------------------------------


def _kind_of(mode: int) -> str | None:
    if stat.S_ISDIR(mode):
        return "folder"
    if not stat.S_ISREG(mode):
        return "special"
    return None


def _refuse(kind: str) -> Unusable:
    if kind == "folder":
        return Unusable(Phrase(QT_TR_NOOP("is a folder, not a file")), kind="folder")
    special = QT_TR_NOOP("is not a regular file (device, FIFO or socket)")
    return Unusable(Phrase(special), kind="special")


def _unreadable(exc: OSError | None = None) -> Unusable:
    """ "cannot be read (permission denied)" (no ``exc``), or with the system's reason."""
    if exc is None:
        return Unusable(Phrase(QT_TR_NOOP("cannot be read (permission denied)")), kind="unreadable")
    said = Phrase(QT_TR_NOOP("cannot be read ({error})"), error=str(exc.strerror or exc))
    return Unusable(said, kind="unreadable")


def open_regular_file(path: Path, *, root: Path | None = None) -> BinaryIO | None:  # noqa: C901  # each way a path can fail to be a regular file
    """Open ``path`` for binary reading if it is a regular file; ``None`` when missing.

    Never blocks on a FIFO and never reads a device. With ``root`` (the workspace, or the
    folder of the app's own state) no symlink is followed below it, the file's own name
    included (:func:`desktop.core.utils.ownfiles.open_read`): a link is refused.

    Raises:
        Unusable: A folder, special file, symlink (with ``root``), or no permission to read it.
    """
    if root is not None:
        return _open_own(path, root)
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a parent is a file: nothing can be there
    except IsADirectoryError:
        raise _refuse("folder") from None
    except PermissionError:
        if os.path.isdir(path):
            raise _refuse("folder") from None
        raise _unreadable() from None
    except OSError as exc:
        raise _unreadable(exc) from None
    try:
        kind = _kind_of(os.fstat(fd).st_mode)
        if kind is not None:
            raise _refuse(kind)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_own(path: Path, root: Path) -> BinaryIO | None:
    """:func:`open_regular_file` below ``root`` (no link followed), refusals as Unusable."""
    from desktop.core.utils.ownfiles import Refused, open_read

    try:
        return open_read(path, root=root)
    except Refused as exc:
        if exc.kind == "not-folder":
            return None  # a parent is a file: nothing can be there
        if exc.path != Path(path):  # a folder on the way is a link
            said = Phrase(QT_TR_NOOP("cannot be read: {error}"), error=str(exc))
            raise Unusable(said, kind="unreadable") from None
        kind = {"folder": "folder", "special": "special"}.get(exc.kind, "link")
        raise Unusable(exc.reason, kind=kind) from None
    except PermissionError:
        raise _unreadable() from None
    except OSError as exc:
        raise _unreadable(exc) from None


def read_bytes_limited(path: Path, limit: int, *, root: Path | None = None) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes; ``None`` when missing.

    ``root``: see :func:`open_regular_file`.

    Raises:
        Unusable: A folder, special file, link (with ``root``), unreadable, or larger than
            ``limit``.
    """
    handle = open_regular_file(path, root=root)
    if handle is None:
        return None
    with handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise _unreadable(exc) from None
    if len(data) > limit:
        raise Unusable(
            Phrase(QT_TR_NOOP("is larger than {limit} bytes"), limit=limit), kind="too_large"
        )
    return data


def read_document(
    path: Path, *, limit: int = MAX_DOCUMENT_BYTES, root: Path | None = None
) -> tuple[Any, list[str]] | None:
    """A JSON document file read tolerantly (:func:`load_json_text`); ``None`` when missing.

    An empty (or blank) file reads as ``({}, [])``. ``root``: see :func:`open_regular_file`.

    Raises:
        Unusable: The file as a whole cannot be used.
    """
    data = read_bytes_limited(path, limit, root=root)
    if data is None:
        return None
    if not data.strip():
        return {}, []
    return load_json_text(data)


# --- JSON Lines -----------------------------------------------------------------------------


class JsonLine(NamedTuple):
    """One non-blank line of a JSON Lines file (a named tuple: cheap to make per line).

    Attributes:
        number: 1-based line number.
        offset: Byte offset of the line in the file.
        size: Length in bytes, newline included.
        raw: The bytes (``None`` for a line over the length limit, which is not kept).
        value: The parsed value (``None`` when the line is bad).
        problem: Why the line cannot be used (``None`` when it is good).
    """

    number: int
    offset: int
    size: int
    raw: bytes | None
    value: Any
    problem: str | None

    @property
    def ok(self) -> bool:
        """Whether the line parsed cleanly."""
        return self.problem is None


def _skip_rest(handle: BinaryIO) -> int:
    """Read to the end of the current line; return how many bytes that was."""
    size = 0
    while chunk := handle.readline(_COPY_CHUNK):
        size += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return size


def iter_jsonl(handle: BinaryIO, *, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[JsonLine]:
    """Every non-blank line of an open JSON Lines file, parsed (see :class:`JsonLine`).

    A line with parts that had to be removed (``NaN``, a lone surrogate, over-deep nesting)
    counts as bad as a whole: a line is one record, kept exactly or not at all.
    """
    offset = 0
    number = 0
    while raw := handle.readline(max_line_bytes + 1):
        number += 1
        start = offset
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            size = len(raw) + _skip_rest(handle)
            offset += size
            template = QT_TR_NOOP("{size} bytes long, over the {limit}-byte limit")
            reason = Phrase(template, size=size, limit=max_line_bytes)
            yield JsonLine(number, start, size, None, None, reason)
            continue
        offset += len(raw)
        if not raw.strip():
            continue
        try:
            value, problems = load_json_text(raw)
        except Unusable as exc:
            yield JsonLine(number, start, len(raw), raw, None, exc.reason)
            continue
        if problems:
            yield JsonLine(number, start, len(raw), raw, None, summarize(problems, 1))
            continue
        yield JsonLine(number, start, len(raw), raw, value, None)


def read_jsonl(
    path: Path, *, max_line_bytes: int = MAX_LINE_BYTES, root: Path | None = None
) -> list[JsonLine]:
    """All non-blank lines of a JSON Lines file (``[]`` when it does not exist).

    ``root``: see :func:`open_regular_file`.

    Raises:
        Unusable: The path is a folder, a special file, a link (with ``root``) or unreadable.
    """
    handle = open_regular_file(path, root=root)
    if handle is None:
        return []
    with handle:
        return list(iter_jsonl(handle, max_line_bytes=max_line_bytes))


# --- small files ----------------------------------------------------------------------------


def read_text_document(
    path: Path, *, limit: int = MAX_TEXT_BYTES, root: Path | None = None
) -> str | None:
    """A text (Markdown) file; ``None`` when missing or when no text can be had from it.

    Bytes that are not UTF-8 are replaced by U+FFFD after the file was copied aside; a file
    over ``limit`` is cut there. Each problem is a notice, never an exception. ``root``: see
    :func:`open_regular_file` (a link is ignored, with a notice).
    """
    try:
        data = read_bytes_limited(path, limit, root=root)
    except Unusable as exc:
        if exc.kind != "too_large":
            notify(f"{path} {exc.reason}; it is ignored")
            return None
        handle = open_regular_file(path, root=root)
        if handle is None:
            return None
        with handle:
            data = handle.read(limit)
        notify(f"{path} is larger than {limit} bytes; only the start is used")
    if data is None:
        return None
    try:
        return decode_utf8(data)
    except Unusable as exc:
        try:
            copy: Path | None = set_aside_file(path, root=root)
        except (OSError, Unusable):
            copy = None
        kept = f"the original bytes were kept in {copy.name}" if copy else "no copy was made"
        notify(
            f"{path} is {exc.reason}; unreadable bytes are shown as \ufffd ({kept})",
            key=f"text:{path}:{copy}",
        )
        return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def read_int_file(path: Path, *, root: Path | None = None) -> int | None:
    """A non-negative integer stored as text; ``None`` when missing, empty or unusable.

    An unusable file (not a number, negative, huge, a folder) is reported once and, when it is
    a regular file, copied aside; the caller falls back as if it were missing. ``root``: see
    :func:`open_regular_file` (a link is ignored, with a notice).
    """
    try:
        data = read_bytes_limited(path, _INT_FILE_BYTES, root=root)
    except Unusable as exc:
        if exc.kind == "too_large":
            _bad_int(path, exc.reason, root)
            return None
        notify(f"{path} {exc.reason}; it is ignored")
        return None
    if data is None or not data.strip():
        return None
    text = data.strip()
    if text.isdigit() and len(text) <= 19 and int(text) <= MAX_INT:
        return int(text)
    _bad_int(path, "is not a non-negative integer", root)
    return None


def _bad_int(path: Path, reason: str, root: Path | None) -> None:
    try:
        copy: Path | None = set_aside_file(path, root=root)
    except (OSError, Unusable):
        copy = None
    kept = f"; a copy was kept as {copy.name}" if copy else ""
    notify(f"{path} {reason}; it is ignored{kept}", key=f"int:{path}:{copy}")
