"""A Dream proposal: what a Dream run in review mode wants to change, kept until decided.

Stored as one JSON file, ``memory/.dream_proposal.json`` (nanobot neither reads nor writes it;
the memory repository's ``.gitignore`` leaves it out), written atomically::

    {"version": 1, "created": "2026-05-01T10:00:00+02:00", "first": 4, "last": 9,
     "analysis": "[MEMORY] ...", "stopReason": "answer",
     "files": [{"path": "memory/MEMORY.md", "before": "...", "after": "...", "edited": false}],
     "dropped": ["USER.md: “- Name: Ada”"]}

``before`` is the file when Dream started, ``after`` what it proposes (pinned lines already
enforced; replaced by the person's text when they edit the proposal). The hunks shown and
accepted are :func:`~desktop.core.memory.hunks.split_hunks` of the two, so their ids are the
same after a restart. A proposal that cannot be read is copied aside and removed, so Dream is
never blocked by a damaged file (its batch was not consumed; the next run reads it again).

Changes of the file take an inter-process lock (``.dream_proposal.json.lock``), so the window
and ``nanobot-desktop memory accept`` never decide the same proposal twice.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path

from filelock import FileLock, Timeout

from desktop.core.memory.hunks import Hunk, split_hunks
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.validate import Unusable, read_document, set_aside_file

log = logging.getLogger(__name__)

PROPOSAL_FILE = "memory/.dream_proposal.json"
LOCK_TIMEOUT_S = 10.0
_THREAD_LOCK = threading.RLock()


class ProposalBusy(OSError):
    """Another program holds the proposal lock."""


@dataclass(frozen=True)
class ProposedFile:
    """One file of a proposal.

    Attributes:
        path: Workspace-relative path.
        before: The file's text when Dream started (``""``: it did not exist).
        after: The proposed text.
        edited: Whether the person replaced Dream's text with their own.
    """

    path: str
    before: str
    after: str
    edited: bool = False

    def hunks(self) -> list[Hunk]:
        """The changes, in file order."""
        return split_hunks(self.path, self.before, self.after)


@dataclass(frozen=True)
class Proposal:
    """A pending Dream proposal.

    Attributes:
        created: When Dream made it (ISO 8601).
        first: First history cursor of the batch it read.
        last: Last cursor of the batch (the dream cursor moves here once decided).
        analysis: Phase 1's analysis.
        files: The files it would change.
        dropped: Changes left out because they touched pinned lines (one line each).
        stop_reason: How phase 2 ended (``answer``, ``max_iterations``, ``budget``…).
    """

    created: str
    first: int
    last: int
    analysis: str
    files: tuple[ProposedFile, ...] = ()
    dropped: tuple[str, ...] = ()
    stop_reason: str = "answer"

    @cached_property
    def hunks(self) -> dict[str, list[Hunk]]:
        """Hunks per file path, in file order (computed once)."""
        return {f.path: f.hunks() for f in self.files}

    @property
    def change_count(self) -> int:
        """How many hunks the proposal holds."""
        return sum(len(h) for h in self.hunks.values())

    def file(self, path: str) -> ProposedFile:
        """The entry of ``path``.

        Raises:
            KeyError: The proposal does not change ``path``.
        """
        for entry in self.files:
            if entry.path == path:
                return entry
        raise KeyError(path)

    def with_edit(self, path: str, text: str) -> Proposal:
        """A copy where the person's ``text`` is the proposed text of ``path``."""
        self.file(path)  # raises KeyError for a file the proposal does not hold
        files = tuple(
            replace(f, after=text, edited=True) if f.path == path else f for f in self.files
        )
        return replace(self, files=files)

    def to_json(self) -> str:
        """The file's text."""
        data = {
            "version": 1,
            "created": self.created,
            "first": self.first,
            "last": self.last,
            "analysis": self.analysis,
            "stopReason": self.stop_reason,
            "files": [
                {"path": f.path, "before": f.before, "after": f.after, "edited": f.edited}
                for f in self.files
            ],
            "dropped": list(self.dropped),
        }
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def now_iso() -> str:
    """The current local time as ISO 8601 (seconds)."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError("a cursor is not a non-negative integer")
    return value


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} is not text")
    return value


def parse_proposal(data: object) -> Proposal:
    """A proposal from its JSON object.

    Raises:
        ValueError: Something required is missing or of the wrong type.
    """
    if not isinstance(data, dict):
        raise ValueError("the top level is not a JSON object")
    raw_files = data.get("files")
    if not isinstance(raw_files, list):
        raise ValueError("files is not a list")
    files = []
    for entry in raw_files:
        if not isinstance(entry, dict):
            raise ValueError("a file entry is not an object")
        files.append(
            ProposedFile(
                _text(entry.get("path"), "path"),
                _text(entry.get("before"), "before"),
                _text(entry.get("after"), "after"),
                bool(entry.get("edited", False)),
            )
        )
    dropped = data.get("dropped", [])
    return Proposal(
        _text(data.get("created", ""), "created"),
        _int(data.get("first")),
        _int(data.get("last")),
        _text(data.get("analysis", ""), "analysis"),
        tuple(files),
        tuple(str(d) for d in dropped) if isinstance(dropped, list) else (),
        _text(data.get("stopReason", "answer"), "stopReason"),
    )


class ProposalStore:
    """The pending proposal of one workspace (at most one).

    Args:
        workspace: The workspace folder.

    Attributes:
        warning: Why the file on disk could not be used the last time (``None``: fine).
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace).expanduser()
        self.path = self.workspace / PROPOSAL_FILE
        self.warning: str | None = None
        self._file_lock = FileLock(str(self.path) + ".lock", timeout=LOCK_TIMEOUT_S)

    def exists(self) -> bool:
        """Whether a proposal file is there (cheap; it may still turn out unreadable)."""
        return self.path.is_file()

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the proposal lock (this process's threads and other programs).

        Raises:
            ProposalBusy: Another program held it for :data:`LOCK_TIMEOUT_S`.
        """
        with _THREAD_LOCK:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._file_lock.acquire()
            except Timeout as exc:
                raise ProposalBusy(
                    f"another program is deciding the Dream proposal ({self._file_lock.lock_file});"
                    " try again in a moment"
                ) from exc
            try:
                yield
            finally:
                self._file_lock.release()

    def load(self) -> Proposal | None:
        """The pending proposal, ``None`` when there is none or it could not be used (then it
        is copied aside, removed and :attr:`warning` says so)."""
        self.warning = None
        try:
            document = read_document(self.path)
            if document is None:
                return None
            return parse_proposal(document[0])
        except (Unusable, ValueError, OSError) as exc:
            self._set_aside(str(exc))
            return None

    def save(self, proposal: Proposal) -> None:
        """Write ``proposal`` (replacing one that is there)."""
        atomic_write_text(self.path, proposal.to_json())

    def save_new(self, proposal: Proposal) -> bool:
        """Write ``proposal`` unless one is already pending; whether it was written."""
        with self.locked():
            if self.exists() and self.load() is not None:
                return False
            self.save(proposal)
            return True

    def delete(self) -> None:
        """Remove the proposal file (no error when it is gone)."""
        self.path.unlink(missing_ok=True)

    def _set_aside(self, reason: str) -> None:
        try:
            kept = f"it was kept as {set_aside_file(self.path, 'corrupt').name}"
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            kept = f"it could not be copied aside ({exc})"
        self.warning = (
            f"The pending Dream proposal {self.path} could not be read ({reason}); {kept}. "
            "Dream will read those history entries again."
        )
        log.warning(self.warning)
