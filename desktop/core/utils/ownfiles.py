"""The app's own files: opened without following links, never blocking on a FIFO.

The app itself (not the model's tools) reads and writes files in a folder a sandboxed command
may write too: the workspace (the memory files, the bootstrap files read into the system
prompt, skills, cron receipts, locks). A command can leave a symlink, a FIFO, a socket or a
folder where one of those files belongs. Followed, a link makes the app read or write a file
elsewhere (``MEMORY.md`` linked to ``config.json`` would put a key into the prompt; a linked log
would have the app append to a file in ``~/Documents``); a FIFO blocks its reader forever.

Every access here names a *root* (the workspace, the config folder) and a path below it. The
root is the person's choice and is used as it resolves; below it every folder is entered with
``O_NOFOLLOW`` relative to its parent's descriptor (:mod:`desktop.core.utils.fsopen`), and
the file itself is opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``: only a
regular file is used. A refusal is :class:`Refused` (an :class:`OSError`) whose message names
the file and says why.

* Readers (:func:`open_read`) refuse; the caller goes on without the file (and logs why).
* Writers (:func:`append`, :func:`replace`, :class:`OwnLock`) need the name: what stands there
  and is not a regular file (a link, FIFO, socket or folder) is renamed aside
  (``<name>.corrupt-<time>``: the link itself moves, its target is never touched) with a logged
  notice, and a real file is started. A symlinked *folder* on the way is never renamed (the
  person may have made it on purpose): the write is refused with a sentence naming it.

Where ``dir_fd`` is unsupported (Windows) the same checks run on paths; they are not race-free
there (creating symlinks needs privileges on Windows).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

from desktop.core.utils.fsopen import MAX_RETRIES, Changed, Dir, Symlink, write_atomic
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.notices import notify

if TYPE_CHECKING:
    from filelock import FileLock

try:
    import fcntl
except ImportError:  # Windows: locks fall back to filelock
    fcntl = None  # type: ignore[assignment]  # fcntl is POSIX-only

Kind = Literal["link", "special", "folder", "not-folder", "folder-link"]
_REASONS: dict[str, str] = {  # marked: the window shows them (a phrase, Refused.reason)
    "link": QT_TR_NOOP(
        "is a symbolic link (the app does not follow links to or inside its own files)"
    ),
    "special": QT_TR_NOOP("is not a regular file (a FIFO, socket or device)"),
    "folder": QT_TR_NOOP("is a folder, not a file"),
    "not-folder": QT_TR_NOOP("is a file where a folder belongs"),
    "folder-link": QT_TR_NOOP(
        "is a symbolic link to a folder (the app does not follow links to or inside its own "
        "files; replace the link with a real folder)"
    ),
}
_OPEN_FLAGS = (
    getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)
ASIDE_LABEL = "corrupt"
LOCK_POLL_S = 0.05


class Refused(OSError):
    """An app-owned file (or a folder on its way) that is not what it must be; never used.

    ``str()`` is one sentence naming the file and the reason.

    Attributes:
        path: The file or folder refused.
        kind: ``link``, ``special`` (FIFO, socket, device), ``folder``, ``not-folder`` (a file
            where a folder belongs) or ``folder-link`` (a symlinked folder on the way).
        reason: Why, without the path ("is a symbolic link (…)"): a phrase, which the window
            translates.
    """

    def __init__(self, path: Path, kind: Kind) -> None:
        code = errno.ELOOP if kind in ("link", "folder-link") else errno.EINVAL
        super().__init__(code, _REASONS[kind], str(path))
        self.path, self.kind, self.reason = path, kind, Phrase(_REASONS[kind])

    def __str__(self) -> str:
        return f"{self.path} {self.reason}"


def _split(path: Path, root: Path) -> tuple[str, list[str]]:
    """``root`` made absolute and the components of ``path`` below it.

    Raises:
        ValueError: ``path`` is not strictly below ``root`` (a programming error).
    """
    base = os.path.abspath(os.path.expanduser(root))
    full = os.path.abspath(os.path.expanduser(path))
    rel = os.path.relpath(full, base)
    parts = Path(rel).parts
    if not parts or rel == "." or parts[0] == ".." or os.path.isabs(rel):
        raise ValueError(f"{path} is not below {root}")
    return base, list(parts)


def _entry_kind(folder: Dir, name: str) -> Kind | None:
    """What stands at ``name`` when it is not a regular file (``None``: a regular file or
    nothing)."""
    try:
        mode = folder.lstat(name).st_mode
    except FileNotFoundError:
        return None
    return _mode_kind(mode)


def _mode_kind(mode: int) -> Kind | None:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "folder"
    if not stat.S_ISREG(mode):
        return "special"
    return None


def _aside(folder: Dir, name: str, shown: Path, why: Refused, *, then: str) -> None:
    """Rename the entry ``name`` to a free ``<name>.corrupt-<time>`` name and say so once."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for attempt in range(1000):
        new = f"{name}.{ASIDE_LABEL}-{stamp}" + (f"-{attempt}" if attempt else "")
        try:
            folder.lstat(new)
            continue
        except FileNotFoundError:
            pass
        folder.rename(name, new)
        notify(f"{why}; it was moved to {new} (a link's target is never touched) and {then}")
        return
    raise FileExistsError(errno.EEXIST, "no free name to move it aside", str(shown))


def _enter(folder: Dir, name: str, shown: Path, *, create: bool) -> Dir | None:
    """The sub-folder ``name`` entered without following a link (``None``: missing)."""
    for _ in range(MAX_RETRIES):
        try:
            return folder.child(name)
        except Symlink:
            raise Refused(shown, "folder-link") from None
        except Changed:
            continue
        except FileNotFoundError:
            if not create:
                return None
            folder.mkdir(name)
        except NotADirectoryError:
            if not create:
                raise Refused(shown, "not-folder") from None
            _aside(folder, name, shown, Refused(shown, "not-folder"), then="a folder was made")
    raise OSError(errno.ELOOP, "the path kept changing", str(shown))


@contextmanager
def _parent(path: Path, root: Path, *, create: bool) -> Iterator[tuple[Dir, str] | None]:
    """The open folder holding ``path`` and its last name; ``None`` when a folder is missing
    (and ``create`` is off). Missing folders are created when ``create`` is on."""
    base, parts = _split(path, root)
    real = os.path.realpath(base)
    if create:
        os.makedirs(real, exist_ok=True)
    try:
        top = Dir.at(real)
    except (FileNotFoundError, NotADirectoryError):
        if create:
            raise
        yield None
        return
    chain = [top]
    try:
        shown = Path(base)
        for name in parts[:-1]:
            shown = shown / name
            child = _enter(chain[-1], name, shown, create=create)
            if child is None:
                yield None
                return
            chain.append(child)
        yield chain[-1], parts[-1]
    finally:
        for folder in chain:
            folder.close()


def _open_file(folder: Dir, name: str, flags: int, shown: Path, mode: int = 0o600) -> int:
    """Open ``name`` in ``folder`` (no link followed, no FIFO waited on); a regular file only.

    Raises:
        Refused: A link, folder or special file stands there.
        FileNotFoundError: Nothing is there (and ``flags`` has no ``O_CREAT``).
    """
    if folder.fd is None:  # no dir_fd here: check the entry by path first
        kind = _entry_kind(folder, name)
        if kind is not None:
            raise Refused(shown, kind)
    try:
        fd = folder.open(name, flags | _OPEN_FLAGS, mode)
    except FileNotFoundError:
        raise
    except OSError:
        kind = _entry_kind(folder, name)
        if kind is not None:
            raise Refused(shown, kind) from None
        raise
    try:
        kind = _mode_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise Refused(shown, kind)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


# --- reading --------------------------------------------------------------------------------


def open_read(path: Path, *, root: Path) -> BinaryIO | None:
    """``path`` (below ``root``) opened for binary reading; ``None`` when it does not exist.

    Raises:
        Refused: The file is a link, folder or special file, or a folder on the way is a link.
        OSError: Anything else (permissions).
    """
    shown = Path(path)
    with _parent(path, root, create=False) as found:
        if found is None:
            return None
        folder, name = found
        try:
            fd = _open_file(folder, name, os.O_RDONLY, shown)
        except FileNotFoundError:
            return None
    return os.fdopen(fd, "rb")


def read_bytes(path: Path, *, root: Path) -> bytes | None:
    """The whole of ``path`` (see :func:`open_read`); ``None`` when missing."""
    handle = open_read(path, root=root)
    if handle is None:
        return None
    with handle:
        return handle.read()


def entry_kind(path: Path, *, root: Path) -> Literal["file", "folder", "missing"] | Kind:
    """What stands at ``path`` below ``root``, without following a link.

    Returns:
        ``file`` (regular), ``folder``, ``missing``, or the kind that makes it unusable
        (``link``, ``special``; ``folder-link``/``not-folder`` for a folder on the way).
    """
    try:
        with _parent(path, root, create=False) as found:
            if found is None:
                return "missing"
            folder, name = found
            try:
                mode = folder.lstat(name).st_mode
            except FileNotFoundError:
                return "missing"
    except Refused as exc:
        return exc.kind
    kind = _mode_kind(mode)
    return "file" if kind is None else kind


def list_folder(path: Path, *, root: Path) -> list[tuple[str, str]]:
    """``(name, kind)`` of each entry of the folder ``path`` (or ``root`` itself when ``path``
    is ``root``), sorted by name; kinds as :func:`entry_kind`. ``[]`` when it is missing or
    not a real folder."""
    base = os.path.abspath(os.path.expanduser(root))
    if os.path.abspath(os.path.expanduser(path)) == base:
        try:
            top = Dir.at(os.path.realpath(base))
        except OSError:
            return []
        try:
            listable = top.listable()
        except OSError:
            return []
        finally:
            top.close()
        return _entries(listable)
    with _parent(path, root, create=False) as found:
        if found is None:
            return []
        folder, name = found
        try:
            child = folder.child(name, listable=True)
        except (OSError, Symlink, Changed):
            return []
    return _entries(child)


def _entries(folder: Dir) -> list[tuple[str, str]]:
    try:
        rows: list[tuple[str, str]] = []
        for entry in folder.scandir():
            try:
                kind = _mode_kind(entry.stat(follow_symlinks=False).st_mode)
            except OSError:
                continue
            rows.append((entry.name, "file" if kind is None else kind))
        return rows
    except OSError:
        return []
    finally:
        folder.close()


# --- writing --------------------------------------------------------------------------------


def _open_write(path: Path, root: Path, flags: int, mode: int) -> int:
    """Open (creating) ``path`` for writing; a non-regular entry there is moved aside first."""
    shown = Path(path)
    for _ in range(MAX_RETRIES):
        with _parent(path, root, create=True) as found:
            assert found is not None  # create=True makes every folder
            folder, name = found
            try:
                return _open_file(folder, name, flags | os.O_CREAT, shown, mode)
            except Refused as exc:
                _aside(folder, name, shown, exc, then="a new file was started")
    raise OSError(errno.ELOOP, "the file kept changing", str(shown))


def _last_byte(fd: int, size: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, 1, size - 1)
    os.lseek(fd, size - 1, os.SEEK_SET)
    return os.read(fd, 1)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` (``write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def sync_data(fd: int) -> None:
    """Flush the file's data (and size) to disk."""
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def append(path: Path, data: bytes, *, root: Path, mode: int = 0o600) -> tuple[int, int]:
    """Append ``data`` (whole lines) at the end of ``path``, durably.

    A last line cut short by a crash first gets its newline, so the fragment stays a line of
    its own and ``data`` is never glued onto it. A new file is created with ``mode``.

    Returns:
        The file's size before and after the append.

    Raises:
        Refused: A folder on the way is a link.
        OSError: Anything else.
    """
    fd = _open_write(path, root, os.O_RDWR | os.O_APPEND, mode)
    try:
        size = os.fstat(fd).st_size
        if size and _last_byte(fd, size) != b"\n":
            data = b"\n" + data
        write_all(fd, data)
        sync_data(fd)
        return size, os.fstat(fd).st_size
    finally:
        os.close(fd)


def replace(path: Path, data: bytes, *, root: Path, mode: int | None = None) -> None:
    """Replace ``path`` by ``data`` atomically (temporary file, fsync, rename in the folder).

    An existing regular file keeps its permission bits unless ``mode`` is given; a new one is
    private to the user. A link or special file at the name is moved aside first (the rename
    would replace the link itself anyway: its target is never written).
    """
    shown = Path(path)
    for _ in range(MAX_RETRIES):
        with _parent(path, root, create=True) as found:
            assert found is not None
            folder, name = found
            try:
                st: os.stat_result | None = folder.lstat(name)
            except FileNotFoundError:
                st = None
            kind = _mode_kind(st.st_mode) if st is not None else None
            if kind is not None:
                _aside(folder, name, shown, Refused(shown, kind), then="a new file was written")
                continue
            keep = mode if mode is not None else (st.st_mode & 0o777 if st is not None else None)
            write_atomic(folder, name, data, mode=keep)
            return
    raise OSError(errno.ELOOP, "the file kept changing", str(shown))


def remove(path: Path, *, root: Path) -> bool:
    """Remove the entry ``path`` (a link itself, never its target); whether it was there."""
    with _parent(path, root, create=False) as found:
        if found is None:
            return False
        folder, name = found
        try:
            folder.unlink(name)
        except FileNotFoundError:
            return False
    return True


# --- locks ----------------------------------------------------------------------------------


class _Held(threading.local):
    fd: int | None = None
    count: int = 0


class OwnLock:
    """An inter-process lock file below ``root`` that no planted link or FIFO can misdirect.

    The lock file is opened as :func:`append` opens files (no link followed; a link, FIFO,
    socket or folder at its name is moved aside and a real file made), then locked with
    ``flock`` -- the lock ``filelock`` takes on POSIX, so a process using either waits for the
    other. After locking, the name must still lead to the locked file (one replaced or removed
    meanwhile guards nothing), else it starts again. Re-entrant per thread (like ``FileLock``);
    with ``thread_local=False`` one thread may release what another acquired.

    Where ``fcntl`` is missing (Windows) it is a plain :class:`filelock.FileLock`.

    Args:
        path: The lock file.
        root: The folder below which no link is followed.
        timeout: Seconds :meth:`acquire` waits by default (negative: forever).
        thread_local: Whether each thread holds the lock on its own.
    """

    def __init__(
        self, path: Path, *, root: Path, timeout: float = -1, thread_local: bool = True
    ) -> None:
        self.lock_file = str(path)
        self.path, self.root, self.timeout = Path(path), Path(root), timeout
        self._held: _Held | _Shared = _Held() if thread_local else _Shared()
        self._fallback: FileLock | None = None
        if fcntl is None:  # pragma: no cover - Windows
            from filelock import FileLock

            self._fallback = FileLock(self.lock_file, timeout=timeout, thread_local=thread_local)

    @property
    def is_locked(self) -> bool:
        """Whether this thread (or, shared, anyone here) holds the lock."""
        if self._fallback is not None:  # pragma: no cover - Windows
            return bool(self._fallback.is_locked)
        return self._held.count > 0

    def acquire(self, timeout: float | None = None, *, blocking: bool = True) -> OwnLock:
        """Take the lock, waiting up to ``timeout`` seconds (default: the lock's own).

        Raises:
            filelock.Timeout: Another process held it that long (or at once, not ``blocking``).
            Refused: A folder on the way to the lock file is a link.
        """
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.acquire(timeout=timeout, blocking=blocking)
            return self
        if self._held.count:
            self._held.count += 1
            return self
        wait = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + wait if wait >= 0 else None
        while True:
            fd = self._try()
            if fd is not None:
                self._held.fd, self._held.count = fd, 1
                return self
            if not blocking or (deadline is not None and time.monotonic() >= deadline):
                from filelock import Timeout

                raise Timeout(self.lock_file)
            time.sleep(LOCK_POLL_S)

    def _try(self) -> int | None:
        """One attempt: the locked descriptor, or ``None`` when another holder has it."""
        assert fcntl is not None
        fd = _open_write(self.path, self.root, os.O_RDWR, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                    os.close(fd)
                    return None
                raise
            if not self._still_named(fd):
                os.close(fd)
                return None
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _still_named(self, fd: int) -> bool:
        st = os.fstat(fd)
        if st.st_nlink == 0:
            return False
        with _parent(self.path, self.root, create=False) as found:
            if found is None:
                return False
            folder, name = found
            try:
                now = folder.lstat(name)
            except FileNotFoundError:
                return False
        return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)

    def release(self) -> None:
        """Give the lock back (the last of re-entrant acquisitions unlocks)."""
        if self._fallback is not None:  # pragma: no cover - Windows
            self._fallback.release()
            return
        if self._held.count <= 0:
            return
        self._held.count -= 1
        if self._held.count:
            return
        fd, self._held.fd = self._held.fd, None
        if fd is not None:
            try:
                assert fcntl is not None
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> OwnLock:
        return self.acquire()

    def __exit__(self, *_: object) -> None:
        self.release()


class _Shared:
    """The holder state of an :class:`OwnLock` shared by every thread."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.count = 0
