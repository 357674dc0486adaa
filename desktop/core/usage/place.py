"""Where the usage ledger lives, and the one-time move out of the workspace.

The ledger is the person's record of what the model cost; a command the model runs must be
able neither to forge nor to delete it. So it lives beside the config, as the sessions do
(nanobot 0.3.5's layout): ``<config folder>/usage/<workspace id>/ledger-YYYY-MM.jsonl``, where
the id is the one in ``<workspace>/.nanobot/workspace-id`` (:mod:`desktop.core.session.location`
creates and claims it). The exec sandbox mounts everything outside the workspace read-only, and
the file tools refuse the folder (``usage`` in
:data:`~desktop.core.security.paths.CONFIG_DIR_STATE`).

Earlier versions kept it in ``<workspace>/usage/``. The first :func:`locate` in a process moves
what is there (:func:`migrate`): each month file is copied to its new place atomically (or, if
that place already has a file, the lines it lacks are appended: a move cut short by a crash, or
a second process, never duplicates a record), then removed from the workspace. Both ledger
locks are held meanwhile, so neither a second app nor an older version appending to the old
place loses a record; an old file that reappears is merged at the next start. Links and
special files in the old folder are never followed (they are left, with a notice).

When sessions cannot use the shared folder (the config folder lies inside the workspace, the
id is unusable), the ledger stays in ``<workspace>/usage/`` too, with a notice; it is then
protected in the sandbox like the rest of the agent's state.

Every file here is opened through :mod:`desktop.core.utils.ownfiles`, below
:attr:`LedgerPlace.root`: nothing is followed, nothing but a regular file is used.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from desktop.core.utils import ownfiles
from desktop.core.utils.ownfiles import OwnLock
from desktop.core.utils.validate import notify

log = logging.getLogger(__name__)

FOLDER = "usage"
LOCK_NAME = ".ledger.lock"
LOCK_TIMEOUT_S = 10.0
CHECKPOINT = "usage-checkpoint.json"
STATE_FOLDER = ".nanobot"
_MONTH_FILE = re.compile(r"ledger-\d{4}-\d{2}\.jsonl")
_ASIDE_FILE = re.compile(r"ledger-\d{4}-\d{2}\.jsonl\..+")

_migrated: set[tuple[str, str]] = set()
_migrated_guard = threading.Lock()


@dataclass(frozen=True)
class LedgerPlace:
    """The ledger of one workspace.

    Attributes:
        folder: Where the month files are.
        root: The folder below which nothing is followed (the config folder, or the
            workspace when the ledger stays there).
        workspace: The workspace.
        shared: Whether the ledger is beside the config (not in the workspace).
    """

    folder: Path
    root: Path
    workspace: Path
    shared: bool

    @property
    def legacy(self) -> Path:
        """``<workspace>/usage``: where earlier versions kept the ledger."""
        return self.workspace / FOLDER

    @property
    def checkpoint(self) -> Path:
        """The month totals kept in a second place (``<workspace>/.nanobot/``, protected in
        the sandbox), so a ledger that vanished is noticed (see
        :mod:`desktop.core.usage.checkpoint`)."""
        return self.workspace / STATE_FOLDER / CHECKPOINT

    def lock(self) -> OwnLock:
        """The inter-process lock every append (and the move) holds."""
        return OwnLock(self.folder / LOCK_NAME, root=self.root, timeout=LOCK_TIMEOUT_S)

    @classmethod
    def in_workspace(cls, workspace: Path) -> LedgerPlace:
        """The ledger in ``<workspace>/usage`` (sessions in the legacy place, or no config)."""
        workspace = _absolute(workspace)
        return cls(workspace / FOLDER, workspace, workspace, shared=False)


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(Path(path).expanduser()))


def locate(workspace: Path, config_dir: Path, *, move: bool = True) -> LedgerPlace:
    """Where the ledger of ``workspace`` lives (creating the workspace id if needed).

    Blocking (file I/O, inter-process locks): call it in a thread from the event loop.

    Args:
        workspace: The workspace.
        config_dir: The folder of the config file in use.
        move: Move a ledger left in ``<workspace>/usage`` (once per process and place).
    """
    from desktop.core.session.location import SessionPlaceError, resolve

    workspace = _absolute(workspace)
    try:
        places = resolve(workspace, config_dir)
    except (SessionPlaceError, OSError) as exc:
        notify(f"the usage ledger stays in {workspace / FOLDER} for now: {exc}")
        return LedgerPlace.in_workspace(workspace)
    if not places.shared:
        notify(
            f"the usage ledger stays in {workspace / FOLDER}, inside the workspace, as the "
            "sessions do"
        )
        return LedgerPlace.in_workspace(workspace)
    root = _absolute(config_dir)
    place = LedgerPlace(root / FOLDER / places.directory.name, root, workspace, shared=True)
    if move:
        key = (str(place.folder), str(place.legacy))
        with _migrated_guard:
            first = key not in _migrated
            _migrated.add(key)
        if first:
            try:
                migrate(place)
            except OSError as exc:
                with _migrated_guard:
                    _migrated.discard(key)
                log.warning("moving the usage ledger out of the workspace failed: %s", exc)
    return place


def migrate(place: LedgerPlace) -> int:
    """Move the month files of ``<workspace>/usage`` to ``place`` (see the module docstring).

    Idempotent and safe with two processes (both ledger locks are held).

    Returns:
        How many files were moved or merged.

    Raises:
        OSError: A file could not be read or written (what was done stays done; the rest is
            tried again at the next start).
    """
    if not place.shared or ownfiles.entry_kind(place.legacy, root=place.workspace) != "folder":
        return 0
    old_lock = OwnLock(place.legacy / LOCK_NAME, root=place.workspace, timeout=LOCK_TIMEOUT_S)
    moved = 0
    with place.lock(), old_lock:
        for name, kind in ownfiles.list_folder(place.legacy, root=place.workspace):
            if not (_MONTH_FILE.fullmatch(name) or _ASIDE_FILE.fullmatch(name)):
                continue
            source = place.legacy / name
            if kind != "file":
                what = {"link": "a symbolic link", "folder": "a folder"}.get(
                    kind, "a FIFO or socket"
                )
                notify(f"{source} is {what}, not a ledger file; it was not moved to {place.folder}")
                continue
            _move_file(source, place.folder / name, place, merge=bool(_MONTH_FILE.fullmatch(name)))
            moved += 1
    ownfiles.remove(place.legacy / LOCK_NAME, root=place.workspace)
    try:
        os.rmdir(place.legacy)  # only when empty; never follows a link
    except OSError:
        pass
    if moved:
        log.info("moved %d usage ledger file(s) from %s to %s", moved, place.legacy, place.folder)
    return moved


def _move_file(source: Path, target: Path, place: LedgerPlace, *, merge: bool) -> None:
    """Copy ``source`` to ``target`` (merging lines into an existing month file), then remove
    ``source``. A copy set aside that already exists at the target is not copied again."""
    data = ownfiles.read_bytes(source, root=place.workspace) or b""
    existing = ownfiles.read_bytes(target, root=place.root)
    if existing is None:
        ownfiles.replace(target, data, root=place.root)
    elif merge:
        have = {line.strip() for line in existing.splitlines()}
        missing = [line for line in data.splitlines() if line.strip() and line.strip() not in have]
        if missing:
            ownfiles.append(target, b"".join(line + b"\n" for line in missing), root=place.root)
    ownfiles.remove(source, root=place.workspace)
