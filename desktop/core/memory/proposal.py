"""A Dream proposal: what a Dream run in review mode wants to change, kept until decided.

Stored as one JSON file, ``memory/.dream_proposal.json`` (nanobot neither reads nor writes it;
the memory repository's ``.gitignore`` leaves it out), written atomically::

    {"version": 1, "id": "9f…", "created": "2026-05-01T10:00:00+02:00", "first": 4, "last": 9,
     "analysis": "[MEMORY] ...", "stopReason": "answer",
     "files": [{"path": "memory/MEMORY.md", "before": "...", "after": "...", "edited": false}],
     "dropped": ["USER.md: “- Name: Ada”"]}

``before`` is the file when Dream started, ``after`` what it proposes (pinned lines already
enforced; replaced by the person's text when they edit the proposal). The hunks shown and
accepted are :func:`~desktop.core.memory.hunks.split_hunks` of the two, so their ids are the
same after a restart.

**Only Dream's proposal counts.** The file is in the workspace, so the model could write one;
it is app state that the file tools and the exec sandbox refuse to write, and on top of that a
proposal is used only when it matches Dream's record of it (:mod:`.proposal_record`: its id and
the digest of its bytes, kept outside the workspace). A proposal without a matching record is
refused: moved aside as ``.dream_proposal.json.unrecorded-<time>`` (never deleted) with a
:attr:`ProposalStore.warning` that says so. A file entry naming anything Dream may not change
(:func:`~desktop.core.memory.dream_scope.dream_refusal`) is kept out of :attr:`Proposal.files`
and listed in :attr:`Proposal.refused` with the reason; it is never written. The file is read
without following links (:mod:`.workspace_files`).

A proposal that cannot be read is copied aside and removed, so Dream is never blocked by a
damaged file (its batch was not consumed; the next run reads it again). An empty file means
"no proposal": the exec sandbox may create one as a read-only placeholder
(:func:`desktop.core.security.protected.create_state_placeholders`).

Changes of the file take an inter-process lock (``.dream_proposal.json.lock``), so the window
and ``nanobot-desktop memory accept`` never decide the same proposal twice.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path

from filelock import Timeout

from desktop.core.memory.dream_scope import dream_refusal, shown_path
from desktop.core.memory.hunks import Hunk, split_hunks
from desktop.core.memory.proposal_record import ProposalRecords, digest
from desktop.core.memory.workspace_files import NotFollowed, read_bytes, write_bytes
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.ownfiles import OwnLock
from desktop.core.utils.validate import (
    MAX_DOCUMENT_BYTES,
    Unusable,
    load_json_text,
    move_aside,
    set_aside_file,
)

log = logging.getLogger(__name__)

PROPOSAL_FILE = "memory/.dream_proposal.json"
UNRECORDED_LABEL = "unrecorded"
LOCK_TIMEOUT_S = 10.0
_THREAD_LOCK = threading.RLock()


class ProposalBusy(OSError):
    """Another program holds the proposal lock."""


def new_id() -> str:
    """A fresh proposal id."""
    return uuid.uuid4().hex


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
class RefusedFile:
    """A file entry of a proposal that names a file Dream may not change (never written).

    Attributes:
        path: The path as the entry gave it (may be anything; show it with :attr:`label`).
        reason: Why it is refused.
    """

    path: str
    reason: str

    @property
    def label(self) -> str:
        """``path: reason`` with the path made safe to show."""
        return Phrase("{path}: {reason}", path=shown_path(self.path), reason=self.reason)


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
        id: Its id (Dream's record names it).
        refused: File entries refused when the file was read (never written, not saved again).
    """

    created: str
    first: int
    last: int
    analysis: str
    files: tuple[ProposedFile, ...] = ()
    dropped: tuple[str, ...] = ()
    stop_reason: str = "answer"
    id: str = field(default_factory=new_id)
    refused: tuple[RefusedFile, ...] = ()

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
        """The file's text (refused entries are left out: they are never Dream's)."""
        data = {
            "version": 1,
            "id": self.id,
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

    File entries naming a file Dream may not change, or a file named twice, go to
    :attr:`Proposal.refused` with the reason (:func:`~.dream_scope.dream_refusal`).

    Raises:
        ValueError: Something required is missing or of the wrong type.
    """
    if not isinstance(data, dict):
        raise ValueError("the top level is not a JSON object")
    raw_files = data.get("files")
    if not isinstance(raw_files, list):
        raise ValueError("files is not a list")
    files: list[ProposedFile] = []
    refused: list[RefusedFile] = []
    for entry in raw_files:
        if not isinstance(entry, dict):
            raise ValueError("a file entry is not an object")
        path = entry.get("path")
        reason = dream_refusal(path)
        if reason is None and any(f.path == path for f in files):
            reason = Phrase(QT_TR_NOOP("the proposal names this file twice"))
        if reason is not None:
            refused.append(RefusedFile(path if isinstance(path, str) else repr(path), reason))
            continue
        files.append(
            ProposedFile(
                _text(path, "path"),
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
        _text(data.get("id", ""), "id"),
        tuple(refused),
    )


class ProposalStore:
    """The pending proposal of one workspace (at most one).

    Args:
        workspace: The workspace folder.
        records: Where Dream's record of it lives (default: the app's state, see
            :mod:`.proposal_record`).

    Attributes:
        warning: Why the file on disk could not be used the last time (``None``: fine).
        unrecorded: Whether that was because Dream did not write it.
    """

    def __init__(self, workspace: Path, records: ProposalRecords | None = None) -> None:
        self.workspace = Path(workspace).expanduser()
        self.path = self.workspace / PROPOSAL_FILE
        self.records = records if records is not None else ProposalRecords(self.workspace)
        self.warning: str | None = None
        self.unrecorded = False
        self._file_lock = OwnLock(  # no planted link or FIFO can misdirect it
            Path(str(self.path) + ".lock"), root=self.workspace, timeout=LOCK_TIMEOUT_S
        )

    def exists(self) -> bool:
        """Whether a proposal file is there (cheap; it may still turn out unusable). An empty
        file (the sandbox's placeholder) is no proposal."""
        try:
            return self.path.stat().st_size > 0
        except OSError:
            return False

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
                    Phrase(
                        QT_TR_NOOP(
                            "another program is deciding the Dream proposal ({lock}); try again "
                            "in a moment"
                        ),
                        lock=str(self._file_lock.lock_file),
                    )
                ) from exc
            try:
                yield
            finally:
                self._file_lock.release()

    def load(self, *, set_aside: bool = True) -> Proposal | None:
        """The pending proposal, if Dream wrote it.

        ``None`` when there is none, or it could not be used: damaged (copied aside and
        removed) or not written by Dream (moved aside as ``…unrecorded-<time>``); then
        :attr:`warning` says so. With ``set_aside=False`` (a quick look, e.g. for the tray)
        nothing is moved.
        """
        self.warning, self.unrecorded = None, False
        try:
            data = read_bytes(self.workspace, PROPOSAL_FILE, limit=MAX_DOCUMENT_BYTES)
        except NotFollowed as exc:
            self._refuse(str(exc.strerror), None, set_aside and exc.at_end)
            return None
        except OSError as exc:
            if set_aside:
                self._set_aside(exc.strerror or str(exc))
            return None
        if data is None or not data.strip():
            return None
        try:
            proposal = parse_proposal(load_json_text(data)[0])
        except (Unusable, ValueError) as exc:
            if set_aside:
                self._set_aside(str(exc))
            return None
        record = self.records.read()
        if record is None or not record.matches(proposal.id, digest(data)):
            self._refuse(Phrase(QT_TR_NOOP("no record of a Dream run matches it")), data, set_aside)
            return None
        return proposal

    def save(self, proposal: Proposal) -> None:
        """Write ``proposal`` (replacing one that is there) and record it as Dream's."""
        data = proposal.to_json().encode("utf-8")
        new = digest(data)
        previous = self.records.read()
        # The old digests stay valid until the new file is in (a crash in between, or a failed
        # write, never disowns the file on disk); afterwards only the new one is.
        keep = previous.digests if previous is not None and previous.id == proposal.id else ()
        self.records.write(proposal.id, (*keep, new), now_iso())
        write_bytes(self.workspace, PROPOSAL_FILE, data)
        self.records.write(proposal.id, (new,), now_iso())

    def save_new(self, proposal: Proposal) -> bool:
        """Write ``proposal`` unless one is already pending; whether it was written."""
        with self.locked():
            if self.exists() and self.load() is not None:
                return False
            self.save(proposal)
            return True

    def delete(self) -> None:
        """Remove the proposal file and its record (no error when they are gone)."""
        self.path.unlink(missing_ok=True)
        self.records.clear()

    def _refuse(self, why: str, data: bytes | None, set_aside: bool) -> None:
        """Refuse a proposal Dream did not write: move it aside (under the lock, if it is
        still the same file) and say so."""
        self.unrecorded = True
        where = Phrase(QT_TR_NOOP("it was left where it is"))
        if set_aside:
            try:
                with self.locked():
                    now = _peek(self.workspace) if data is not None else None
                    if data is None or (now is not None and digest(now) == digest(data)):
                        kept = move_aside(self.path, UNRECORDED_LABEL)
                        where = Phrase(
                            QT_TR_NOOP("it was moved aside as {name} (in the memory folder)"),
                            name=kept.name,
                        )
                    else:
                        where = Phrase(QT_TR_NOOP("it was replaced meanwhile"))
            except OSError as exc:
                where = Phrase(QT_TR_NOOP("it could not be moved aside ({error})"), error=str(exc))
        self.warning = Phrase(
            QT_TR_NOOP(
                "A Dream proposal in {file} was refused: Dream did not write it ({why}), "
                "so nothing of it is offered or applied; {where}."
            ),
            file=PROPOSAL_FILE,
            why=why,
            where=where,
        )
        log.warning(self.warning)

    def _set_aside(self, reason: str) -> None:
        try:
            kept = Phrase(
                QT_TR_NOOP("it was kept as {name}"), name=set_aside_file(self.path, "corrupt").name
            )
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            kept = Phrase(QT_TR_NOOP("it could not be copied aside ({error})"), error=str(exc))
        self.warning = Phrase(
            QT_TR_NOOP(
                "The pending Dream proposal {path} could not be read ({reason}); {kept}. "
                "Dream will read those history entries again."
            ),
            path=str(self.path),
            reason=reason,
            kept=kept,
        )
        log.warning(self.warning)


def _peek(workspace: Path) -> bytes | None:
    try:
        return read_bytes(workspace, PROPOSAL_FILE, limit=MAX_DOCUMENT_BYTES)
    except OSError:
        return None
