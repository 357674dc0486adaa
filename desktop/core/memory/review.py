"""Deciding a Dream proposal: accept all or some of its hunks, edit a file's text, or reject it.

**Accept** (:func:`accept_proposal`): the chosen hunks of each file are applied to the file as
it is *now* (the person or nanobot may have changed it since Dream ran): a hunk whose lines are
no longer there is reported as not applicable and left out, never forced in. Hunks that touch a
line pinned since the proposal was made are left out too. Only files Dream may change are
touched (:func:`~desktop.core.memory.dream_scope.dream_refusal`; the proposal's refused entries
are listed, never written), read and written without following links
(:mod:`desktop.core.memory.workspace_files`): a file that became a link or a special file since
is refused and left as it is. Changed files are written atomically; outside edits are
recorded first so the commit holds only the accepted part, then ``dream: <YYYY-MM-DD HH:MM>,
<N> change(s)`` (``N``: files changed, as for a direct run) with the analysis as its body plus
lines naming the rejected, not applicable and pinned hunks and the refused files. The
dream cursor moves past the batch as after a direct run and the proposal is removed.

**Reject** (:func:`reject_proposal`): nothing is written or committed; the batch counts as
consumed (the cursor moves past it, so Dream does not propose the same thing again) and the
proposal is removed.

**Edit** (:func:`edit_proposal`): the person's text replaces the proposed text of one file;
its hunks are recomputed (unchanged hunks keep their ids) and the proposal is saved.

Every call holds the proposal lock, so two programs never decide the same proposal. All of
this is synchronous: run it in a worker thread.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Literal

from desktop.core.memory.dream_scope import dream_refusal, shown_path
from desktop.core.memory.dream_state import consume_batch
from desktop.core.memory.git_store import HUMAN_FILES as MEMORY_FILES
from desktop.core.memory.git_store import GitStore, GitStoreError
from desktop.core.memory.hunks import Hunk, apply_hunks
from desktop.core.memory.pins import PinStore, pinned_lines
from desktop.core.memory.proposal import Proposal, ProposalStore, ProposedFile, RefusedFile
from desktop.core.memory.store import MemoryStore
from desktop.core.memory.workspace_files import NotFollowed, obstacle, read_bytes, write_bytes
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.phrase_join import joined

NO_PROPOSAL = Phrase(QT_TR_NOOP("No Dream proposal is waiting for review."))
Selection = Mapping[str, Collection[str]]


@dataclass(frozen=True)
class ReviewOutcome:
    """What deciding a proposal did.

    Attributes:
        status: ``accepted``, ``rejected`` or ``none`` (no proposal was pending).
        commit: The ``dream:`` commit, when one was made.
        files: Files written.
        applied: Hunks applied.
        rejected: Hunks the person left out (``path: summary``).
        not_applicable: Hunks whose lines were no longer in the file.
        pinned: Hunks left out because they touch a pinned line.
        refused: Files not written: entries naming a file Dream may not change, and files
            that became a link or a special file (``path: reason``).
        consumed_to: Where the dream cursor moved.
        message: One or two sentences for the person.
        git_error: Why the commit failed (the files were still written).
    """

    status: Literal["accepted", "rejected", "none"]
    commit: str | None = None
    files: tuple[str, ...] = ()
    applied: int = 0
    rejected: tuple[str, ...] = ()
    not_applicable: tuple[str, ...] = ()
    pinned: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()
    consumed_to: int | None = None
    message: str = ""
    git_error: str | None = None


@dataclass
class _Plan:
    texts: dict[str, str] = field(default_factory=dict)
    applied_by: dict[str, int] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)
    refused: list[RefusedFile] = field(default_factory=list)

    @property
    def applied(self) -> int:
        """Hunks applied to the files that are written."""
        return sum(self.applied_by.get(path, 0) for path in self.texts)


def _label(hunk: Hunk) -> str:
    return f"{hunk.path}: {hunk.summary()}"


def not_written(reason: object) -> Phrase:
    """``<reason>; not written``: why a file of the proposal was refused."""
    return Phrase(QT_TR_NOOP("{reason}; not written"), reason=reason)


def _read(workspace: Path, path: str) -> str | None:
    """The file's text (``""`` when missing, ``None`` when it is not UTF-8 text).

    Raises:
        NotFollowed: A link or special file is in the way.
    """
    data = read_bytes(workspace, path)
    try:
        return "" if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _plan(workspace: Path, proposal: Proposal, selected: Selection | None) -> _Plan:  # noqa: C901  # per file: refusal, pins, selection and conflict in turn
    plan = _Plan(refused=list(proposal.refused))
    fixed = pinned_lines(PinStore(workspace).load())
    for entry in proposal.files:
        reason = dream_refusal(entry.path)
        if reason is not None:  # parse_proposal keeps these out; never trust one that slipped in
            plan.refused.append(RefusedFile(entry.path, reason))
            continue
        blocked = obstacle(workspace, entry.path)
        if blocked is not None:  # a link planted since Dream ran (checked again on each open)
            plan.refused.append(RefusedFile(entry.path, not_written(blocked)))
            continue
        hunks = proposal.hunks[entry.path]
        wanted = set(selected.get(entry.path, ())) if selected is not None else None
        chosen: list[Hunk] = []
        for hunk in hunks:
            if wanted is not None and hunk.id not in wanted:
                plan.rejected.append(_label(hunk))
            elif hunk.touches(fixed.get(entry.path, set())):
                plan.pinned.append(_label(hunk))
            else:
                chosen.append(hunk)
        if not chosen:
            continue
        try:
            current = _read(workspace, entry.path)
        except NotFollowed as exc:
            plan.refused.append(RefusedFile(entry.path, not_written(exc.strerror)))
            continue
        if current is None:  # not text any more: nothing of it can be matched
            plan.missing += [_label(h) for h in chosen]
            continue
        result = apply_hunks(current, chosen)
        plan.missing += [_label(h) for h in chosen if h.id in result.not_applicable]
        plan.applied_by[entry.path] = len(result.applied)
        if result.text != current:
            plan.texts[entry.path] = result.text
    return plan


def _offered(proposal: Proposal, plan: _Plan) -> int:
    """The proposed changes that were up for decision (not in a refused file)."""
    refused = {r.path for r in plan.refused}
    return sum(len(h) for path, h in proposal.hunks.items() if path not in refused)


def _body(proposal: Proposal, plan: _Plan) -> str:
    total = _offered(proposal, plan)
    parts = [proposal.analysis.strip()]
    if proposal.stop_reason not in ("answer", ""):
        parts.append("(incomplete run: stopped before the model finished)")
    parts.append(f"Reviewed: {plan.applied} of {total} proposed change(s) accepted.")
    for title, items in (
        ("Rejected", plan.rejected),
        ("Not applicable (the file changed since)", plan.missing),
        ("Pinned lines kept (Dream's change dropped)", [*proposal.dropped, *plan.pinned]),
        ("Refused (not written)", [r.label for r in plan.refused]),
    ):
        if items:
            parts.append(f"{title}:\n" + "\n".join(f"- {item}" for item in items))
    return "\n\n".join(p for p in parts if p)


def accept_proposal(
    workspace: Path, git: GitStore, selected: Selection | None = None
) -> ReviewOutcome:
    """Apply the chosen hunks of the pending proposal, commit them, consume its batch.

    Args:
        workspace: The workspace folder.
        git: Its memory timeline.
        selected: Hunk ids to accept per file path; ``None`` accepts every hunk.

    Raises:
        ProposalBusy: Another program is deciding it.
        OSError: A file could not be written (the proposal stays pending).
    """
    workspace = Path(workspace).expanduser()
    proposals = ProposalStore(workspace)
    with proposals.locked():
        proposal = proposals.load()
        if proposal is None:
            return ReviewOutcome("none", message=proposals.warning or NO_PROPOSAL)
        git_error = None
        try:
            git.record_outside_edits()
        except GitStoreError as exc:
            git_error = str(exc)
        plan = _plan(workspace, proposal, selected)
        for path, text in list(plan.texts.items()):
            try:
                write_bytes(workspace, path, text.encode("utf-8"))
            except NotFollowed as exc:  # became a link since it was read: left as it is
                del plan.texts[path]
                plan.refused.append(RefusedFile(path, not_written(exc.strerror)))
        store = MemoryStore(workspace)
        consume_batch(store, proposal.last)
        commit = None
        memory_changed = [p for p in plan.texts if p in MEMORY_FILES]
        if memory_changed and git_error is None:
            stamp = datetime.now().strftime("%Y-%m-%d %H:%M")
            message = f"dream: {stamp}, {len(plan.texts)} change(s)\n\n{_body(proposal, plan)}\n"
            try:
                commit = git.commit(message)
            except GitStoreError as exc:
                git_error = str(exc)
        proposals.delete()
    return ReviewOutcome(
        "accepted",
        commit,
        tuple(plan.texts),
        plan.applied,
        tuple(plan.rejected),
        tuple(plan.missing),
        tuple(plan.pinned),
        tuple(r.label for r in plan.refused),
        proposal.last,
        _accept_message(proposal, plan, commit, git_error),
        git_error,
    )


def _accept_message(
    proposal: Proposal, plan: _Plan, commit: str | None, error: str | None
) -> Phrase:
    total = _offered(proposal, plan)
    counts = {"applied": plan.applied, "total": total}
    if plan.texts:
        files = ", ".join(plan.texts)
        head = (
            Phrase(
                QT_TR_NOOP(
                    "Accepted {applied} of {total} proposed change(s) ({files}), "
                    "committed as {commit}."
                ),
                **counts,
                files=files,
                commit=commit[:7],
            )
            if commit
            else Phrase(
                QT_TR_NOOP("Accepted {applied} of {total} proposed change(s) ({files})."),
                **counts,
                files=files,
            )
        )
    elif commit:
        head = Phrase(
            QT_TR_NOOP("Accepted {applied} of {total} proposed change(s), committed as {commit}."),
            **counts,
            commit=commit[:7],
        )
    else:
        head = Phrase(QT_TR_NOOP("Accepted {applied} of {total} proposed change(s)."), **counts)
    parts: list[str] = [head]
    if plan.missing:
        parts.append(
            Phrase(
                QT_TR_NOOP(
                    " {count} could not be applied because the file changed since Dream ran: "
                    "{changes}."
                ),
                count=len(plan.missing),
                changes="; ".join(plan.missing),
            )
        )
    if plan.pinned:
        parts.append(
            Phrase(
                QT_TR_NOOP(" {count} left out because they touch a pinned line."),
                count=len(plan.pinned),
            )
        )
    if plan.refused:
        count = len(plan.refused)
        names = ", ".join(shown_path(r.path, 60) for r in plan.refused)
        if count == 1:
            template = (
                QT_TR_NOOP(
                    " 1 file entry refused, not written: {names} (why: in the commit message)."
                )
                if commit
                else QT_TR_NOOP(" 1 file entry refused, not written: {names}.")
            )
            parts.append(Phrase(template, names=names))
        else:
            template = (
                QT_TR_NOOP(
                    " {count} file entries refused, not written: {names} (why: in the commit "
                    "message)."
                )
                if commit
                else QT_TR_NOOP(" {count} file entries refused, not written: {names}.")
            )
            parts.append(Phrase(template, count=count, names=names))
    if error:
        parts.append(
            Phrase(
                QT_TR_NOOP(" The files were saved, but the history could not record them: {error}"),
                error=error,
            )
        )
    return joined(*parts)


def reject_proposal(workspace: Path) -> ReviewOutcome:
    """Drop the pending proposal: nothing changes; its batch counts as read.

    Raises:
        ProposalBusy: Another program is deciding it.
    """
    workspace = Path(workspace).expanduser()
    proposals = ProposalStore(workspace)
    with proposals.locked():
        proposal = proposals.load()
        if proposal is None:
            return ReviewOutcome("none", message=proposals.warning or NO_PROPOSAL)
        consume_batch(MemoryStore(workspace), proposal.last)
        proposals.delete()
    return ReviewOutcome(
        "rejected",
        consumed_to=proposal.last,
        message=Phrase(
            QT_TR_NOOP(
                "Rejected Dream's proposal; nothing was changed. History entries "
                "{first}..{last} count as read, so Dream will not propose them again."
            ),
            first=proposal.first,
            last=proposal.last,
        ),
    )


def edit_proposal(workspace: Path, path: str, text: str) -> Proposal:
    """Make ``text`` the proposed text of ``path`` and save the proposal.

    Raises:
        LookupError: No proposal is pending, or it does not change ``path``.
        ProposalBusy: Another program is deciding it.
    """
    proposals = ProposalStore(Path(workspace).expanduser())
    with proposals.locked():
        proposal = proposals.load()
        if proposal is None:
            raise LookupError(NO_PROPOSAL)
        edited = proposal.with_edit(path, text)
        proposals.save(edited)
        return edited


def vet_proposal(workspace: Path, proposal: Proposal) -> Proposal:
    """``proposal`` as it can be shown now: entries whose file cannot be written without
    following a link (planted after Dream ran) moved to :attr:`Proposal.refused`. For showing
    only; accepting checks each file again as it writes it."""
    kept: list[ProposedFile] = []
    refused = list(proposal.refused)
    for entry in proposal.files:
        reason = obstacle(workspace, entry.path)
        if reason is None:
            kept.append(entry)
        else:
            refused.append(RefusedFile(entry.path, not_written(reason)))
    if len(kept) == len(proposal.files):
        return proposal
    return replace(proposal, files=tuple(kept), refused=tuple(refused))


def load_proposal(workspace: Path) -> tuple[Proposal | None, str | None]:
    """The pending proposal as it can be shown (:func:`vet_proposal`; ``None`` when there is
    none, or it was refused) and a warning when it was damaged or refused."""
    workspace = Path(workspace).expanduser()
    proposals = ProposalStore(workspace)
    proposal = proposals.load()
    return (vet_proposal(workspace, proposal) if proposal else None), proposals.warning
