"""Where sessions live: nanobot 0.3.5's per-workspace folder outside the workspace.

nanobot-ai 0.3.5 keeps the sessions of a workspace in
``<config folder>/sessions/<workspace id>/<base64url(key)>.jsonl``, where the config folder is
the folder of the ``config.json`` in use (``~/.nanobot`` by default), the key is encoded with
the URL-safe base64 alphabet without ``=`` padding, and the workspace id — 32 lowercase hex
characters and a newline — is kept in ``<workspace>/.nanobot/workspace-id``. The id folder
holds a ``.workspace`` file naming the workspace path it belongs to (so a copied workspace
gets a new id, and a moved one keeps its id). The id is created, and the folder claimed,
under the lock ``<config folder>/sessions/.workspace-migration.lock``; the files of one id
folder are read and written under its ``.session-files.lock``.

Earlier versions (and this app before it followed nanobot) used
``<workspace>/sessions/<channel>_<chat>.jsonl``: that folder is the *legacy* place, read as
long as files remain there (:mod:`desktop.core.session.adopt` moves them).

This module creates the id the way nanobot does (exclusive create, never replacing a valid
one) and refuses nothing nanobot refuses silently: when the id file is unusable, or the
config folder lies inside the workspace (nanobot then refuses to start), sessions stay in the
legacy place with a logged notice, and no file is rewritten.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from desktop.core.utils.atomic import atomic_write_text

log = logging.getLogger(__name__)

ID_FOLDER = ".nanobot"
ID_FILE = "workspace-id"
OWNER_FILE = ".workspace"
MIGRATION_LOCK = ".workspace-migration.lock"
LEGACY_FOLDER = "sessions"
ROOT_FOLDER = "sessions"
MIGRATION_LOCK_TIMEOUT_S = 30.0
_ID = re.compile(r"[0-9a-f]{32}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class SessionPlaceError(OSError):
    """The shared sessions folder could not be set up (its lock was held too long)."""


@dataclass(frozen=True)
class SessionPlaces:
    """The folders of one workspace's sessions.

    Attributes:
        directory: Where sessions are read and written (nanobot 0.3.5's id folder, or the
            legacy folder when that cannot be used).
        legacy: ``<workspace>/sessions``, read while files remain there.
        root: ``<config folder>/sessions`` (holds the migration lock), ``None`` when
            ``directory`` is the legacy folder.
    """

    directory: Path
    legacy: Path
    root: Path | None

    @property
    def shared(self) -> bool:
        """Whether sessions live in nanobot 0.3.5's folder (not the legacy one)."""
        return self.root is not None


def storage_name(key: str) -> str:
    """nanobot 0.3.5's file name for ``key``: URL-safe base64 without padding, ``.jsonl``."""
    return base64.urlsafe_b64encode(key.encode("utf-8")).decode("ascii").rstrip("=") + ".jsonl"


def legacy_filename(key: str) -> str:
    """The old ``<channel>_<chat>.jsonl`` name of ``key`` (``cli:direct`` → ``cli_direct.jsonl``)."""
    return _UNSAFE.sub("_", key.replace(":", "_")) + ".jsonl"


def key_from_storage_stem(stem: str) -> str | None:
    """The key a canonical file name encodes (``None``: not a canonical name)."""
    try:
        key = base64.urlsafe_b64decode(stem + "=" * (-len(stem) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return key if storage_name(key) == stem + ".jsonl" else None


def sessions_root(config_dir: Path) -> Path:
    """``<config folder>/sessions``: the folder of every workspace's id folder."""
    return Path(config_dir).expanduser() / ROOT_FOLDER


def _canonical(path: Path) -> Path:
    return Path(os.path.abspath(Path(path).expanduser())).resolve(strict=False)


def _read_id(marker: Path) -> str | None:
    """The id in ``marker`` (``None``: a symlink, unreadable or not 32 hex characters)."""
    if marker.is_symlink():
        return None
    try:
        value = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeError):
        return None
    return value if _ID.fullmatch(value) else None


def read_workspace_id(workspace: Path) -> str | None:
    """The workspace's id from ``.nanobot/workspace-id`` without creating anything."""
    marker = Path(workspace).expanduser() / ID_FOLDER / ID_FILE
    return _read_id(marker) if marker.exists() or marker.is_symlink() else None


def peek_directory(workspace: Path, config_dir: Path) -> Path | None:
    """The id folder of ``workspace`` if it already has one (creates nothing)."""
    found = read_workspace_id(workspace)
    return sessions_root(config_dir) / found if found else None


def _owner_of(folder: Path) -> Path | None:
    """The workspace path written in ``folder/.workspace`` (``None``: none usable)."""
    marker = folder / OWNER_FILE
    if marker.is_symlink() or not marker.is_file():
        return None
    try:
        text = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeError):
        return None
    return _canonical(Path(text)) if text else None


def _same_place(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return a.exists() and b.exists() and a.samefile(b)
    except OSError:
        return False


def _recover_id(root: Path, workspace: Path) -> str | None:
    """An id folder that names ``workspace`` (its id file was removed), if exactly one."""
    matches = [
        folder.name
        for folder in root.iterdir()
        if _ID.fullmatch(folder.name) and not folder.is_symlink() and folder.is_dir()
        for owner in [_owner_of(folder)]
        if owner is not None and _same_place(owner, workspace)
    ]
    return matches[0] if len(matches) == 1 else None


def _create_id(marker: Path) -> str | None:
    """Create ``marker`` with a new id (exclusive: an id written meanwhile is kept)."""
    new = secrets.token_hex(16)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(marker, flags, 0o600)
    except FileExistsError:
        return _read_id(marker)
    try:
        os.write(fd, f"{new}\n".encode("ascii"))
        os.fsync(fd)
    except BaseException:
        marker.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)
    return new


def _claim(root: Path, workspace: Path, found: str, marker: Path) -> str | None:
    """Bind id folder ``found`` to ``workspace`` as nanobot does; a copied workspace (its
    folder names another workspace that still exists) gets a new id."""
    for _ in range(3):
        folder = root / found
        if folder.is_symlink():
            return None
        owner_file = folder / OWNER_FILE
        if not owner_file.exists() and not owner_file.is_symlink():
            # New, or its marker was lost: this workspace's own id names it (nanobot refuses
            # a folder with data and no marker; writing the marker lets it start again).
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write_text(owner_file, f"{workspace}\n")
            return found
        owner = _owner_of(folder)
        if owner is None:
            return None  # an unreadable marker: nanobot refuses it too
        if owner == workspace:
            return found
        if _same_place(owner, workspace) or not owner.exists():
            atomic_write_text(owner_file, f"{workspace}\n")  # the workspace was moved
            return found
        found = secrets.token_hex(16)  # a copy of a live workspace: its own sessions
        atomic_write_text(marker, f"{found}\n")
    return None


def resolve(workspace: Path, config_dir: Path) -> SessionPlaces:
    """The session folders of ``workspace``, creating the id and id folder if missing.

    Raises:
        SessionPlaceError: The migration lock was held for too long.
    """
    workspace = _canonical(workspace)
    legacy = workspace / LEGACY_FOLDER
    fallback = SessionPlaces(directory=legacy, legacy=legacy, root=None)
    root = _canonical(sessions_root(config_dir))
    if root == workspace or root.is_relative_to(workspace):
        log.warning("%s is inside the workspace; sessions stay in %s", root, legacy)
        return fallback
    state = workspace / ID_FOLDER
    if state.is_symlink():
        log.warning("%s is a symlink; sessions stay in %s", state, legacy)
        return fallback
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = FileLock(str(root / MIGRATION_LOCK), timeout=MIGRATION_LOCK_TIMEOUT_S)
    try:
        with lock:
            state.mkdir(parents=True, exist_ok=True)
            marker = state / ID_FILE
            if marker.exists() or marker.is_symlink():
                found = _read_id(marker)
                if found is None:
                    log.warning("%s is not a workspace id; sessions stay in %s", marker, legacy)
                    return fallback
            else:
                found = _recover_id(root, workspace)
                if found is not None:
                    atomic_write_text(marker, f"{found}\n")
                else:
                    found = _create_id(marker)
            claimed = _claim(root, workspace, found, marker) if found else None
    except Timeout as exc:
        raise SessionPlaceError(
            f"another program is holding {lock.lock_file}; try again in a moment"
        ) from exc
    if claimed is None:
        log.warning("%s cannot be used for %s; sessions stay in %s", root, workspace, legacy)
        return fallback
    return SessionPlaces(directory=root / claimed, legacy=legacy, root=root)
