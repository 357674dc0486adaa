"""Dream's record of the proposal it stored: how a proposal proves that Dream wrote it.

The proposal lives in the workspace (``memory/.dream_proposal.json``), where the model can
read it. The record lives outside, in the app's state beside nanobot's default config
(``~/.nanobot/dream-proposals/<workspace key>.json``): a folder the file tools refuse to write
(:data:`desktop.core.security.protected.CONFIG_DIR_STATE`) and the exec sandbox keeps read-only
(hidden, even). It holds the proposal's id and the SHA-256 of the proposal file's exact
bytes::

    {"version": 1, "workspace": "/home/ada/.nanobot/workspace", "id": "9f…",
     "sha256": ["3a…"], "recorded": "2026-05-01T10:00:00+02:00"}

A proposal is offered and applied only when its id and digest match the record, so a file
planted in the workspace (or Dream's file changed afterwards) is refused even though the
model can read the genuine one: a digest cannot be turned back into a proposal, and the
model cannot write the record. While the app replaces the proposal (the person's edit) the
record briefly lists both digests, so a crash in between never disowns the proposal.

The key is the SHA-256 of the workspace's real path (32 hex characters), so every front end
(the window, ``gateway``, ``memory accept``) finds the same record whatever config it uses.
Synchronous; callers hold the proposal lock.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from desktop.core.config.paths import nanobot_home
from desktop.core.utils.atomic import atomic_write_text
from desktop.core.utils.validate import Unusable, read_document

log = logging.getLogger(__name__)

RECORDS_FOLDER = "dream-proposals"


def records_folder() -> Path:
    """``~/.nanobot/dream-proposals``: where Dream records its proposals."""
    return nanobot_home() / RECORDS_FOLDER


def workspace_key(workspace: Path) -> str:
    """The record's name for ``workspace``: a digest of its real path."""
    real = os.path.realpath(Path(workspace).expanduser())
    return hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def digest(data: bytes) -> str:
    """The SHA-256 of a proposal file's bytes, as hex."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ProposalRecord:
    """What Dream recorded about the proposal it stored.

    Attributes:
        id: The proposal's id.
        digests: SHA-256 of the proposal file's bytes that are Dream's (or the person's).
    """

    id: str
    digests: tuple[str, ...]

    def matches(self, proposal_id: str, data_digest: str) -> bool:
        """Whether a proposal file with this id and digest is the recorded one."""
        return bool(proposal_id) and proposal_id == self.id and data_digest in self.digests


class ProposalRecords:
    """The record of one workspace's proposal.

    Args:
        workspace: The workspace folder.
        folder: Where records live (default :func:`records_folder`).
    """

    def __init__(self, workspace: Path, folder: Path | None = None) -> None:
        self.workspace = Path(workspace).expanduser()
        self.folder = folder if folder is not None else records_folder()
        self.path = self.folder / f"{workspace_key(self.workspace)}.json"

    def read(self) -> ProposalRecord | None:
        """The record, ``None`` when there is none or it cannot be used (then it is ignored:
        the proposal it was for is refused, which loses nothing Dream cannot make again)."""
        try:
            document = read_document(self.path)
        except (Unusable, OSError) as exc:
            log.warning("the Dream proposal record %s cannot be used: %s", self.path, exc)
            return None
        if document is None:
            return None
        data = document[0]
        if not isinstance(data, dict):
            return None
        ident, digests = data.get("id"), data.get("sha256")
        if not isinstance(ident, str) or not isinstance(digests, list):
            return None
        return ProposalRecord(ident, tuple(d for d in digests if isinstance(d, str)))

    def write(self, proposal_id: str, digests: tuple[str, ...], recorded: str) -> None:
        """Record that the proposal ``proposal_id`` is one of the files with ``digests``."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = {
            "version": 1,
            "workspace": os.path.realpath(self.workspace),
            "id": proposal_id,
            "sha256": list(digests),
            "recorded": recorded,
        }
        atomic_write_text(self.path, json.dumps(data, indent=2) + "\n", mode=0o600)

    def clear(self) -> None:
        """Forget the record (no error when there is none)."""
        self.path.unlink(missing_ok=True)
