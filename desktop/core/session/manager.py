"""Sessions in nanobot's JSONL format, where nanobot 0.3.5 keeps them.

``<config folder>/sessions/<workspace id>/<base64url(key)>.jsonl`` (see
:mod:`desktop.core.session.location`): a metadata line
``{"_type": "metadata", "key", "created_at", "updated_at", "metadata", "last_consolidated"}``
followed by one message per line. Files in the legacy places — ``<workspace>/sessions/`` and
old ``<channel>_<chat>.jsonl`` names in the id folder — are listed and read too, and moved to
their canonical names on first use (:mod:`desktop.core.session.adopt`).

Several processes may use one session (the app, ``agent -m``, a gateway, nanobot): files are
read and written under an inter-process lock, a cached session is read again when its file
changed, a save merges what another process wrote, and turns of one session run one at a time
across processes (:mod:`desktop.core.session.shared`). Saving costs what changed, not what the
session holds: new messages are appended and the metadata line is updated in place; a
whole-file atomic rewrite happens only when earlier lines change (:mod:`.sync`). Either way
the data is flushed to disk before ``save`` returns; a line cut short by a crash mid-append is
moved to ``<file>.quarantine`` by the next process that opens the file.

Loading never raises for bad content: the file is read field by field
(:mod:`desktop.core.session.validate`); a line that cannot be used, or had a field dropped, is
copied byte-exact beside the file (``<file>.corrupt-<time>``, once per distinct set of lines)
with a logged notice, and the rest of the session is kept. A folder standing where the file
belongs is moved aside so the session can be saved again.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop.core.config.paths import nanobot_home
from desktop.core.session.adopt import Found, adopt, scan
from desktop.core.session.location import SessionPlaces, legacy_filename, resolve, storage_name
from desktop.core.session.model import HISTORY_KEYS, Session
from desktop.core.session.naming import derive_title
from desktop.core.session.shared import SessionBusyError, SharedFiles
from desktop.core.session.sync import DiskState, signature
from desktop.core.session.temporary import is_temporary
from desktop.core.session.validate import (
    CHECKPOINT,
    PENDING,
    message_line,
    read_session_file,
    read_session_header,
    user_messages,
)
from desktop.core.utils.validate import (
    MAX_LINE_BYTES,
    Unusable,
    make_room_for_folder,
    move_aside,
    notify,
    open_regular_file,
    set_aside_lines,
    summarize,
)

log = logging.getLogger(__name__)

DEFAULT_MAX_TOOL_RESULT_CHARS = 16_000
_CUT_NOTE = re.compile(r"\n… \[\d+ more characters not saved\]")

__all__ = [
    "CHECKPOINT",
    "HISTORY_KEYS",
    "PENDING",
    "Session",
    "SessionBusyError",
    "SessionManager",
    "SessionSummary",
    "session_filename",
]


def session_filename(key: str) -> str:
    """The legacy file name of a session key (``cli:direct`` → ``cli_direct.jsonl``)."""
    return legacy_filename(key)


@dataclass(frozen=True)
class SessionSummary:
    """What a session list shows about a session, read without loading it whole.

    Attributes:
        key: The session key (``desktop:1a2b``, ``telegram:42``).
        channel: The part of the key before ``:`` (``desktop``, ``telegram``, ``cli``…).
        title: The metadata title, else the start of the first user message, else "New chat".
        updated_at: ISO time of the last activity.
        path: The JSONL file.
    """

    key: str
    channel: str
    title: str
    updated_at: str
    path: Path


def _title_from_head(key: str, handle: Any, title: str, limit: int = 50) -> str:
    """The title of session ``key`` from its metadata ``title`` and the user messages among the
    next ``limit`` lines of ``handle`` (:func:`~desktop.core.session.naming.derive_title`)."""
    return derive_title(key, user_messages(handle, limit), title)


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


class SessionManager(SharedFiles):
    """Loads, caches and saves a workspace's sessions where nanobot 0.3.5 keeps them, shared
    with other processes (see the module docstring and :mod:`desktop.core.session.shared`).

    Args:
        workspace: The agent's workspace.
        config_dir: The folder of the config file in use (``~/.nanobot`` by default); its
            ``sessions/`` folder holds the workspace's id folder, as in nanobot.
        max_tool_result_chars: Tool results longer than this are cut on disk.

    The folders are found (the workspace id created if missing) and legacy files adopted on
    first use, not here: constructing a manager touches no file.
    """

    def __init__(
        self,
        workspace: Path,
        *,
        config_dir: Path | None = None,
        max_tool_result_chars: int = DEFAULT_MAX_TOOL_RESULT_CHARS,
    ) -> None:
        self.workspace = Path(workspace).expanduser()
        self.config_dir = Path(config_dir).expanduser() if config_dir else nanobot_home()
        self.max_tool_result_chars = max_tool_result_chars
        self._cache: dict[str, Session] = {}
        self._lock = threading.RLock()
        self._places: SessionPlaces | None = None
        self._places_lock = threading.Lock()
        self._init_shared()

    @property
    def places(self) -> SessionPlaces:
        """The session folders (found, and legacy files adopted, on first use).

        Raises:
            SessionPlaceError: nanobot's migration lock was held for too long.
        """
        with self._places_lock:
            if self._places is None:
                places = resolve(self.workspace, self.config_dir)
                self._adopt(places)
                self._places = places
            return self._places

    @property
    def directory(self) -> Path:
        """The folder sessions are written to."""
        return self.places.directory

    @staticmethod
    def _adopt(places: SessionPlaces) -> None:
        try:
            adopt(places)
        except OSError as exc:  # the files stay where they are and are read from there
            notify(f"sessions could not be moved to {places.directory} yet: {exc}")

    def _disk_files(self) -> list[Found]:
        """Every session file the app reads (legacy files found are adopted first)."""
        found = scan(self.places)
        if any(not item.canonical for item in found):
            self._adopt(self.places)
            found = scan(self.places)
        return found

    def _adopt_legacy_of(self, key: str) -> None:
        """Adopt the legacy file of ``key`` if there is one and no canonical file yet."""
        places = self.places
        if not places.shared or self.path_for(key).exists():
            return
        name = session_filename(key)
        if (places.legacy / name).is_file() or (places.directory / name).is_file():
            self._adopt(places)

    def path_for(self, key: str) -> Path:
        """The JSONL file of ``key`` (nanobot 0.3.5's name, or the legacy one when sessions
        stay in the workspace)."""
        places = self.places
        name = storage_name(key) if places.shared else session_filename(key)
        return places.directory / name

    def cached(self, key: str) -> list[dict[str, Any]] | None:
        """A copy of the messages of ``key`` when it is in the cache (else ``None``)."""
        with self._lock:
            session = self._cache.get(key)
            return list(session.messages) if session is not None else None

    def cached_metadata(self, key: str) -> dict[str, Any] | None:
        """A copy of the metadata of ``key`` when it is in the cache (else ``None``)."""
        with self._lock:
            session = self._cache.get(key)
            return dict(session.metadata) if session is not None else None

    def get_or_create(self, key: str) -> Session:
        """The cached session (brought up to date if another process changed its file), else
        the one on disk, else a new one."""
        with self._lock:
            session = self._cache.get(key)
            if session is None and is_temporary(key):  # in memory only, never read or written
                session = self._cache[key] = Session(key=key)
                return session
            if session is None:
                self._adopt_legacy_of(key)
                with self._locked():
                    loaded, state = self._read(key)
                session = loaded or Session(key=key)
                self._cache[key] = session
                self._disk[key] = state
                session._turn_probe = functools.partial(self._busy_elsewhere, key)
            elif key not in self._turns_held:  # our own running turn keeps its session as is
                known = self._disk.get(key)
                if known is not None and signature(self.path_for(key)) != known.sig:
                    with self._locked():
                        self._disk[key] = self._absorb(session, known)
            return session

    def _load(self, key: str) -> Session | None:
        """The session stored for ``key``, read field by field (``None``: no usable file)."""
        path = self.path_for(key)
        try:
            make_room_for_folder(self.directory)
            loaded = read_session_file(path)
        except Unusable as exc:
            moved = ""
            if exc.kind in ("folder", "special", "link"):  # free the name for the next save
                try:
                    moved = f"; it was moved to {move_aside(path).name}"
                except OSError as move_error:
                    moved = f"; it could not be moved aside ({move_error})"
            notify(f"{path} {exc.reason}{moved}; the conversation starts empty")
            return None
        except OSError as exc:
            notify(f"{path} cannot be read ({exc}); the conversation starts empty")
            return None
        if not loaded.messages and not loaded.aside and not path.exists():
            return None
        header = loaded.header
        session = Session(key=key, messages=loaded.messages, metadata=header.metadata)
        session.last_consolidated = header.last_consolidated or 0
        session.created_at = header.created_at or session.created_at
        session.updated_at = header.updated_at or session.updated_at
        if loaded.problems:
            self._report(path, loaded.aside, loaded.problems)
        return session

    @staticmethod
    def _report(path: Path, aside: list[Any], problems: list[str]) -> None:
        """Copy the lines set aside next to ``path`` and log one notice."""
        kept = ""
        copy = None
        if aside:
            try:
                copy = set_aside_lines(path, aside, root=path.parent)
                kept = f"; the original lines were copied to {copy.name}"
            except OSError as exc:
                kept = f"; the original lines could not be copied ({exc})"
        notify(
            f"{path}: {summarize(problems)}{kept}; the rest of the conversation is kept",
            key=f"session:{path}:{copy}:{len(problems)}",
        )

    def _for_disk(self, message: dict[str, Any]) -> dict[str, Any]:
        """Tool results are truncated on disk (the live request keeps them whole); a result
        truncated by an earlier save is left as it is."""
        content = message.get("content")
        limit = self.max_tool_result_chars
        if message.get("role") == "tool" and isinstance(content, str) and len(content) > limit:
            if _CUT_NOTE.fullmatch(content, limit):
                return message
            cut = len(content) - limit
            return {
                **message,
                "content": content[:limit] + f"\n… [{cut} more characters not saved]",
            }
        return message

    def list_sessions(self) -> list[dict[str, Any]]:
        """Every session on disk, newest activity first: key, title, updated_at, path."""
        found: dict[str, dict[str, Any]] = {}
        for item in self._disk_files():
            opened = read_session_header(item.path)
            if opened is None:
                continue
            header, handle = opened
            handle.close()
            found[item.key] = {
                "key": item.key,
                "title": header.title,
                "updated_at": header.updated_text,
                "path": item.path,
            }
        with self._lock:
            for key, session in self._cache.items():
                found[key] = {
                    "key": key,
                    "title": session.metadata.get("title") or "",
                    "updated_at": session.updated_at.isoformat(),
                    "path": self.path_for(key),
                }
        return sorted(found.values(), key=lambda item: item["updated_at"], reverse=True)

    def summaries(self) -> list[SessionSummary]:
        """Every session on disk or in memory, most recent activity first, with channel and a
        title (the first user message when the session has no title of its own).

        Reads only the head of each file; call it from a worker thread.
        """
        found: dict[str, SessionSummary] = {}
        for item in self._disk_files():
            opened = read_session_header(item.path)
            if opened is None:
                continue
            header, handle = opened
            try:
                title = _title_from_head(item.key, handle, header.title)
            except OSError:
                continue
            finally:
                handle.close()
            key = item.key
            found[key] = SessionSummary(
                key,
                key.partition(":")[0] if ":" in key else item.path.stem.partition("_")[0],
                title or "New chat",
                header.updated_text,
                item.path,
            )
        with self._lock:
            cached = list(self._cache.items())
        for key, session in cached:
            if not session.messages and not session.metadata.get("title") and key not in found:
                continue  # opened but never used
            found[key] = SessionSummary(
                key,
                key.partition(":")[0],
                session.title,
                session.updated_at.isoformat(),
                self.path_for(key),
            )
        return sorted(found.values(), key=lambda item: item.updated_at, reverse=True)

    def search(self, query: str, keys: list[str] | None = None) -> list[str]:  # noqa: C901  # titles, cached sessions and files searched, each guarded
        """Keys of sessions whose title or message text contains ``query`` (case-insensitive).

        Scans the files (and unsaved cached sessions); call it from a worker thread.
        ``keys`` limits the search to those sessions.
        """
        needle = query.casefold().strip()
        if not needle:
            return []
        wanted = None if keys is None else set(keys)
        hits: list[str] = []
        for summary in self.summaries():
            if wanted is not None and summary.key not in wanted:
                continue
            if needle in summary.title.casefold():
                hits.append(summary.key)
                continue
            with self._lock:
                cached = self._cache.get(summary.key)
                messages = list(cached.messages) if cached is not None else None
            if messages is not None:
                if any(needle in _message_text(m).casefold() for m in messages):
                    hits.append(summary.key)
                continue
            try:
                handle = open_regular_file(summary.path, root=summary.path.parent)
                if handle is None:
                    continue
                with handle:
                    # Bounded reads: a chunk of an over-long line never parses, so it is skipped.
                    while raw := handle.readline(MAX_LINE_BYTES):
                        if needle not in raw.decode("utf-8", "replace").casefold():
                            continue  # cheap pre-filter on the raw line
                        data = message_line(raw)
                        if data is not None and needle in _message_text(data).casefold():
                            hits.append(summary.key)
                            break
            except (OSError, Unusable):
                continue
        return hits

    def set_aside(self, key: str) -> Path | None:
        """Move a session's file out of the list (into ``sessions/.deleted/``), not destroying it.

        Returns where it went (for :meth:`restore`), or ``None`` when there was no file.
        """
        with self._lock:
            self._forget(key)
            path = self.path_for(key)
            if not path.exists():
                return None
            trash = self.directory / ".deleted"
            trash.mkdir(parents=True, exist_ok=True)
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
            target = trash / f"{path.name}.{stamp}"
            with self._locked():
                path.replace(target)
            return target

    def restore(self, key: str, aside: Path) -> Path:
        """Put a file moved by :meth:`set_aside` back (an *Undo*); returns the session file.

        Raises:
            FileExistsError: A new session with the same key was saved in the meantime.
        """
        with self._lock, self._locked():
            path = self.path_for(key)
            if path.exists():
                raise FileExistsError(f"{path} exists; not overwriting it")
            path.parent.mkdir(parents=True, exist_ok=True)
            Path(aside).replace(path)
            self._forget(key)
            return path

    def rename(self, key: str, title: str) -> None:
        """Set a session's title and save it (not counted as activity)."""
        session = self.get_or_create(key)
        session.metadata["title"] = title.strip()
        self.save(session)

    def delete(self, key: str) -> bool:
        """Remove a session's file and cache entry; returns whether a file existed."""
        if is_temporary(key):
            with self._lock:
                existed = key in self._cache
                self._forget(key)  # drops the cache entry
            return existed
        with self._lock, self._locked():
            self._forget(key)
            path = self.path_for(key)
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            return True

    def release_turn(self, key: str) -> None:
        """Let other processes run turns in ``key`` now, though its turn is still pending here
        (a turn that failed and waits for a Retry need not hold them up)."""
        self._release_turn(key)

    def _forget(self, key: str) -> None:
        """Drop what is cached about ``key`` (caller holds ``_lock``)."""
        self._cache.pop(key, None)
        self._disk.pop(key, None)
        self._release_turn(key)

    def save(self, session: Session) -> Path:
        """Write ``session``; returns the file.

        Under the folder lock: if another process changed the file since this one last read
        or wrote it, that is merged in first (``session`` is updated in place). Then new
        messages are appended and the metadata line updated in place, or — when earlier
        lines changed — the whole file is rewritten atomically. Either way the data is on
        disk when this returns. A session with a pending turn first takes the turn lock
        (waiting up to ``TURN_WAIT_S`` for another process's turn to end).
        """
        key = session.key
        if is_temporary(key):  # kept in memory only (desktop.core.session.temporary)
            with self._lock:
                self._cache[key] = session
            return self.path_for(key)
        if session.has_pending_turn:
            self._claim_turn(session)
        path = self.path_for(key)
        with self._lock:
            with self._locked():
                state = self._disk.get(key)
                if state is None or signature(path) != state.sig:
                    state = self._absorb(session, state or DiskState())
                self._write(path, session, state)
                self._disk[key] = state
            self._cache[key] = session
            session._turn_probe = functools.partial(self._busy_elsewhere, key)
        if not session.has_pending_turn:
            session._turn_user = None
            self._release_turn(key)
        return path
