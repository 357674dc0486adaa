"""Dream: distil new history entries into MEMORY.md, USER.md and SOUL.md, in two phases.

1. **Analysis** — one plain model call (no tools) with ``templates/agent/dream_phase1.md``: the
   next batch of at most ``max_batch_size`` entries after ``memory/.dream_cursor``, today's
   date and the three memory files with their sizes. The model answers with tagged lines
   (``[USER]``, ``[SOUL]``, ``[MEMORY]``, ``[*-REMOVE]``, ``[SKILL]``) or ``[SKIP]``.
2. **Apply** — an :class:`~desktop.core.engine.runner.AgentRunner` with
   ``templates/agent/dream_phase2.md`` and a small tool set: ``read_file`` (workspace and builtin
   skills), ``edit_file`` (workspace; refuses to replace a whole memory file in one go) and
   ``write_file`` (only under ``<workspace>/skills/``). The run is bounded by
   ``max_iterations`` model calls **and** ``token_budget`` tokens (prompt + completion, summed
   over phase 2); either limit stops it cleanly and the result says so.

Afterwards the dream cursor moves to the batch's last entry (also when nothing changed or a
limit stopped the run — the same batch is never chewed on forever), history is compacted,
and when a memory file changed a commit ``dream: <YYYY-MM-DD HH:MM>, <N> change(s)`` is made
with the phase-1 analysis as its body. Outside edits are recorded first
(:meth:`GitStore.record_outside_edits`) so the Dream commit holds only Dream's change.

**Change counting.** ``N`` is the number of files whose bytes differ after phase 2: the three
memory files plus every file under ``<workspace>/skills/``. Several edits of one file count
once; an edit undone by a later edit counts zero. A commit is made only when one of the
memory files changed (skills are not part of the git timeline, DESIGN §5).

**Failure policy.** When a model call fails (:class:`LLMError`, phase 1 or phase 2) or phase 1
answers nothing, the cursor does *not* move, so the batch is retried by the next run. The
failure is counted in ``memory/.dream_state`` (JSON ``{"failures": {"<first cursor>": n}}``).
Any edits phase 2 already made are kept and committed (body marked incomplete), so they are
visible and revertable. On the third failure of the same batch it is skipped: the cursor
moves past it and a history entry ``[DREAM-SKIPPED] cursors a..b after 3 failed attempts`` is
appended, so nothing is dropped silently — the raw entries stay in ``history.jsonl`` (compaction
may later age them out like any consumed entry). A successful run clears the counter.

**Pinned lines** (:mod:`desktop.core.memory.pins`) are listed in both prompts as fixed. After
phase 2, every change that touches a pinned line is undone in the files (or, in review mode,
left out of the proposal); the result message and the commit body say which.

**Review mode** (``review=True``, the desktop setting "Review Dream changes before they land"):
phase 2 edits a scratch copy and the run ends with a stored proposal
(:mod:`desktop.core.memory.dream_review`); nothing is committed and the cursor stays until the
person accepts or rejects it (:mod:`desktop.core.memory.review`). While a proposal is pending
no Dream runs, in either mode (status ``pending``): its batch is not consumed yet, so a second
run would read it again.

All file and git work runs in worker threads.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import uuid
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop.core.cron.reasons import DREAM_REFUSED
from desktop.core.engine.runner import AgentRunner
from desktop.core.engine.skills import SkillsLoader
from desktop.core.memory.dream_result import (
    PENDING_MESSAGE,
    DreamResult,
    Status,
    changed_files,
    pins_body,
    pins_note,
    snapshot,
    stop_note,
)
from desktop.core.memory.dream_review import collect, make_scratch
from desktop.core.memory.dream_state import (
    STATE_FILE,
    consume_batch,
    read_failures,
    write_failures,
)
from desktop.core.memory.dream_tools import (
    MEMORY_FILES,
    BudgetExceeded,
    BudgetHook,
    SkillsWriteTool,
    SurgicalEditTool,
    phase2_tools,
    read_text,
)
from desktop.core.memory.git_store import GitStore, GitStoreError
from desktop.core.memory.pins import Pin, PinStore, enforce_on_disk, prompt_block
from desktop.core.memory.prompt_overrides import dream_instructions_block
from desktop.core.memory.proposal import Proposal, ProposalStore, now_iso
from desktop.core.memory.store import HistoryEntry, MemoryStore
from desktop.core.providers.base import LLMError, LLMProvider
from desktop.core.providers.switchable import usage_scope
from desktop.core.tools.base import ToolContext
from desktop.core.usage.governor import BudgetRefused
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.phrase_join import joined
from desktop.core.utils.redact import redact_for_prompt
from desktop.core.utils.resources import read_template

log = logging.getLogger(__name__)

__all__ = [
    "MEMORY_FILES",
    "STATE_FILE",
    "Dream",
    "DreamResult",
    "SkillsWriteTool",
    "SurgicalEditTool",
]

MAX_FAILURES = 3
PHASE1_MAX_TOKENS = 2048
_TAGS = (
    "[USER]",
    "[SOUL]",
    "[MEMORY]",
    "[USER-REMOVE]",
    "[SOUL-REMOVE]",
    "[MEMORY-REMOVE]",
    "[SKILL]",
    "[SKIP]",
)

_locks: dict[str, asyncio.Lock] = {}


def is_skip(analysis: str) -> bool:
    """Whether the analysis says nothing is worth keeping (only ``[SKIP]`` lines)."""
    lines = [line.strip() for line in analysis.splitlines() if line.strip()]
    return bool(lines) and all(line.upper().startswith("[SKIP]") for line in lines)


def render_entries(entries: list[HistoryEntry]) -> str:
    """The batch as ``[cursor] timestamp`` headed blocks."""
    return "\n\n".join(f"[{e.cursor}] {e.timestamp}\n{e.content.strip()}" for e in entries)


def _file_block(name: str, text: str) -> str:
    size = f"{len(text.encode('utf-8'))} bytes, {len(text.splitlines())} lines"
    body = text.rstrip("\n") if text.strip() else "(empty)"
    return f"### {name} ({size})\n~~~~\n{body}\n~~~~"


class Dream:
    """One workspace's Dream.

    Args:
        provider: The model backend.
        store: The workspace's memory files.
        git: The workspace's memory timeline.
        workspace: The workspace folder.
        max_batch_size: History entries per run.
        max_iterations: Model calls allowed in phase 2.
        token_budget: Tokens (prompt + completion) allowed in phase 2.
        skills_loader: Lists existing skills for de-duplication (default: the workspace's).
        context_window: The model's context size, for the phase-2 runner.
        max_tokens: Completion limit per phase-2 call.
        review: Store a proposal for the person instead of changing the files
            (:mod:`desktop.core.memory.dream_review`).
    """

    def __init__(
        self,
        provider: LLMProvider,
        store: MemoryStore,
        git: GitStore,
        workspace: Path,
        *,
        max_batch_size: int = 20,
        max_iterations: int = 10,
        token_budget: int = 60_000,
        skills_loader: SkillsLoader | None = None,
        context_window: int = 65_536,
        max_tokens: int = 4096,
        review: bool = False,
    ) -> None:
        self.provider = provider
        self.store = store
        self.git = git
        self.workspace = Path(workspace).expanduser()
        self.max_batch_size = max_batch_size
        self.max_iterations = max_iterations
        self.token_budget = token_budget
        self.skills_loader = skills_loader or SkillsLoader(self.workspace)
        self.context_window = context_window
        self.max_tokens = max_tokens
        self.review = review
        self.state_file = self.workspace / STATE_FILE
        self.pins = PinStore(self.workspace)
        self.proposals = ProposalStore(self.workspace)

    # -- public ---------------------------------------------------------------------------
    async def run(self) -> DreamResult:
        """Run one Dream over the next batch (serialised per workspace)."""
        lock = _locks.setdefault(str(self.workspace.resolve()), asyncio.Lock())
        async with lock:
            with usage_scope(source="dream", run=uuid.uuid4().hex[:12]):
                result = await self._run()
        refused = self.proposals.warning if self.proposals.unrecorded else None
        if refused:  # a proposal Dream did not write was set aside: say so with the outcome
            result = replace(result, message=joined(refused, result.message, separator=" "))
        return result

    # -- phases ---------------------------------------------------------------------------
    async def _run(self) -> DreamResult:
        if await asyncio.to_thread(self._pending):
            return DreamResult("pending", message=PENDING_MESSAGE)

        def load() -> tuple[list[HistoryEntry], list[Pin]]:
            batch = self.store.entries_after(self.store.dream_cursor, self.max_batch_size)
            return batch, (self.pins.load() if batch else [])

        batch, pins = await asyncio.to_thread(load)
        if not batch:
            return DreamResult("nothing", message=Phrase(QT_TR_NOOP("Nothing new to dream about.")))
        first, last = batch[0].cursor, batch[-1].cursor
        try:
            analysis = await self._analyse(batch, pins)
        except BudgetRefused as exc:  # not a failure: the batch waits, no attempt is counted
            return DreamResult(
                "paused",
                message=Phrase(DREAM_REFUSED, reason=exc.message),
            )
        except LLMError as exc:
            return await self._failed(
                first,
                last,
                Phrase(QT_TR_NOOP("the analysis call failed: {error}"), error=exc.message),
            )
        if not analysis:
            return await self._failed(
                first, last, Phrase(QT_TR_NOOP("the analysis came back empty"))
            )
        if is_skip(analysis):
            await asyncio.to_thread(self._consume, last)
            return DreamResult(
                "skipped",
                analysis=analysis,
                consumed_to=last,
                message=Phrase(
                    QT_TR_NOOP("Nothing worth keeping in entries {first}..{last}; moved on."),
                    first=first,
                    last=last,
                ),
            )
        if self.review:
            return await self._propose(analysis, first, last, pins)
        return await self._apply(analysis, first, last, pins)

    async def _propose(self, analysis: str, first: int, last: int, pins: list[Pin]) -> DreamResult:
        """Run phase 2 on a scratch copy and store what it changed as a proposal."""
        request = await asyncio.to_thread(self.phase2_request, analysis, pins)
        scratch, texts = await asyncio.to_thread(make_scratch, self.workspace)
        try:
            before = await asyncio.to_thread(snapshot, scratch)
            stop_reason, failure = await self.phase2(request, scratch)
            if failure is not None:
                outcome = await self._failed(first, last, failure)
                return DreamResult(
                    outcome.status,
                    analysis=analysis,
                    message=joined(outcome.message, Phrase(QT_TR_NOOP(" Nothing was proposed."))),
                    consumed_to=outcome.consumed_to,
                    stop_reason=stop_reason,
                )
            after = await asyncio.to_thread(snapshot, scratch)
            files, dropped, left_out = await asyncio.to_thread(
                collect, self.workspace, scratch, texts, changed_files(before, after), pins
            )
        finally:
            await asyncio.to_thread(shutil.rmtree, scratch, True)
        note = joined(
            pins_note(dropped),
            Phrase(QT_TR_NOOP(" Left out: {files}."), files=", ".join(left_out))
            if left_out
            else "",
        )
        if not files:
            await asyncio.to_thread(self._consume, last)
            return DreamResult(
                "unchanged",
                analysis=analysis,
                message=joined(
                    Phrase(QT_TR_NOOP("Dream found nothing to change.")),
                    stop_note(stop_reason, self),
                    note,
                ),
                consumed_to=last,
                stop_reason=stop_reason,
                dropped=tuple(dropped),
            )
        proposal = Proposal(
            now_iso(), first, last, analysis, tuple(files), tuple(dropped), stop_reason
        )
        if not await asyncio.to_thread(self.proposals.save_new, proposal):
            return DreamResult("pending", analysis=analysis, message=PENDING_MESSAGE)
        count = proposal.change_count
        names = ", ".join(f.path for f in files)
        return DreamResult(
            "proposed",
            count,
            analysis=analysis,
            message=joined(
                Phrase(
                    QT_TR_NOOP(
                        "Dream proposes {count} change(s) ({names}); nothing changes until you "
                        "review them in the Memory tab."
                    ),
                    count=count,
                    names=names,
                ),
                stop_note(stop_reason, self),
                note,
            ),
            stop_reason=stop_reason,
            dropped=tuple(dropped),
        )

    def _pending(self) -> bool:
        """Whether a proposal waits (a damaged one, or one Dream did not write, is set aside
        and does not count)."""
        self.proposals.warning, self.proposals.unrecorded = None, False
        return self.proposals.exists() and self.proposals.load() is not None

    async def _analyse(self, batch: list[HistoryEntry], pins: list[Pin]) -> str:
        def build() -> list[dict[str, Any]]:
            files = [
                _file_block("memory/MEMORY.md", self.store.read_memory()),
                _file_block("SOUL.md", self.store.read_soul()),
                _file_block("USER.md", self.store.read_user()),
            ]
            text = redact_for_prompt(
                f"Today: {datetime.now():%Y-%m-%d}\n\n## Current files\n\n"
                + "\n\n".join(files)
                + prompt_block(pins)
                + f"\n\n## New log entries ({len(batch)})\n\n"
                + render_entries(batch)
            )
            prompt = read_template("agent", "dream_phase1.md").strip()
            prompt += redact_for_prompt(dream_instructions_block(self.workspace))
            return [{"role": "system", "content": prompt}, {"role": "user", "content": text}]

        request = await asyncio.to_thread(build)
        with usage_scope(source="dream", phase=1):
            response = await self.provider.chat(
                request, None, max_tokens=min(self.max_tokens, PHASE1_MAX_TOKENS)
            )
        return (response.content or "").strip()

    def phase2_request(self, analysis: str, pins: list[Pin]) -> list[dict[str, Any]]:
        """Phase 2's messages: the analysis, the current files, pinned lines, the skills."""
        files = [
            _file_block("memory/MEMORY.md", self.store.read_memory()),
            _file_block("SOUL.md", self.store.read_soul()),
            _file_block("USER.md", self.store.read_user()),
        ]
        skills = [
            f"- {s.name} ({s.source}): {s.description}" for s in self.skills_loader.list_skills()
        ]
        text = redact_for_prompt(
            "## Analysis\n\n"
            + analysis
            + "\n\n## Current files\n\n"
            + "\n\n".join(files)
            + prompt_block(pins)
            + "\n\n## Existing skills\n\n"
            + ("\n".join(skills) or "(none)")
        )
        prompt = read_template("agent", "dream_phase2.md").strip()
        prompt += redact_for_prompt(dream_instructions_block(self.workspace))
        return [{"role": "system", "content": prompt}, {"role": "user", "content": text}]

    async def phase2(
        self, request: list[dict[str, Any]], workspace: Path
    ) -> tuple[str, str | None]:
        """Run phase 2 with its tools pointed at ``workspace`` (the real one or a scratch copy).

        Returns:
            The stop reason and, when a model call failed, why.
        """
        runner = AgentRunner(
            self.provider,
            phase2_tools(),
            hook=BudgetHook(self.token_budget),
            max_iterations=self.max_iterations,
            context_window=self.context_window,
            max_tokens=self.max_tokens,
        )
        ctx = ToolContext(
            workspace=workspace,
            session_key="dream",
            channel="system",
            chat_id="dream",
            restrict_to_workspace=True,
            protected_paths=(workspace / STATE_FILE,),
        )
        try:
            with usage_scope(source="dream", phase=2):
                result = await runner.run(request, ctx, session_key="dream")
            return result.stop_reason, None
        except BudgetExceeded:
            return "budget", None
        except LLMError as exc:
            return "error", Phrase(
                QT_TR_NOOP("applying the analysis failed: {error}"), error=exc.message
            )

    async def _apply(self, analysis: str, first: int, last: int, pins: list[Pin]) -> DreamResult:
        # Human edits made meanwhile get their own ``edit:`` commits, not Dream's.
        await asyncio.to_thread(self.git.record_outside_edits)

        def read_before() -> tuple[dict[str, str], dict[str, str], list[dict[str, Any]]]:
            texts = {
                name: read_text(self.workspace / name, self.workspace) for name in MEMORY_FILES
            }
            return snapshot(self.workspace), texts, self.phase2_request(analysis, pins)

        before, texts, request = await asyncio.to_thread(read_before)
        stop_reason, failure = await self.phase2(request, self.workspace)
        dropped = tuple(await asyncio.to_thread(enforce_on_disk, self.workspace, texts, pins))
        after = await asyncio.to_thread(snapshot, self.workspace)
        changed = changed_files(before, after)
        if failure is not None:
            try:
                commit = await self._commit(analysis, changed, incomplete=True, dropped=dropped)
            except GitStoreError:
                log.exception("could not commit the edits of a failed dream")
                commit = None
            outcome = await self._failed(first, last, failure)
            return DreamResult(
                outcome.status,
                len(changed),
                commit,
                analysis,
                joined(outcome.message, _kept(changed), pins_note(dropped)),
                outcome.consumed_to,
                stop_reason,
                dropped,
            )
        await asyncio.to_thread(self._consume, last)
        try:
            commit = await self._commit(
                analysis, changed, incomplete=stop_reason != "answer", dropped=dropped
            )
        except GitStoreError as exc:
            return DreamResult(
                "failed",
                len(changed),
                None,
                analysis,
                Phrase(
                    QT_TR_NOOP("Dream changed {count} file(s) but could not commit: {error}"),
                    count=len(changed),
                    error=str(exc),
                ),
                last,
                stop_reason,
                dropped,
            )
        status: Status = (
            "budget" if stop_reason == "budget" else ("changed" if changed else "unchanged")
        )
        return DreamResult(
            status,
            len(changed),
            commit,
            analysis,
            joined(_summary(stop_reason, changed, commit, self), pins_note(dropped)),
            last,
            stop_reason,
            dropped,
        )

    # -- bookkeeping ----------------------------------------------------------------------
    async def _commit(
        self, analysis: str, changed: list[str], *, incomplete: bool, dropped: tuple[str, ...]
    ) -> str | None:
        if not any(name in MEMORY_FILES for name in changed):
            return None
        body = analysis + (
            "\n\n(incomplete run: stopped before the model finished)" if incomplete else ""
        )
        body += pins_body(dropped)
        message = f"dream: {datetime.now():%Y-%m-%d %H:%M}, {len(changed)} change(s)\n\n{body}"
        return await asyncio.to_thread(self.git.commit, message)

    def _consume(self, last: int) -> None:
        """Move the dream cursor past the batch, forget its failures, compact history."""
        consume_batch(self.store, last)

    async def _failed(self, first: int, last: int, why: str) -> DreamResult:
        """Count a failure of the batch; give it up after :data:`MAX_FAILURES`."""

        def record() -> DreamResult:
            failures = read_failures(self.state_file)
            count = failures.get(str(first), 0) + 1
            if count < MAX_FAILURES:
                write_failures(self.state_file, {str(first): count})
                log.warning(
                    "dream failed on entries %d..%d (attempt %d): %s", first, last, count, why
                )
                return DreamResult(
                    "failed",
                    message=Phrase(
                        QT_TR_NOOP(
                            "Dream failed ({why}); entries {first}..{last} will be retried next "
                            "time (attempt {count} of {limit})."
                        ),
                        why=why,
                        first=first,
                        last=last,
                        count=count,
                        limit=MAX_FAILURES,
                    ),
                )
            self.store.dream_cursor = max(last, self.store.dream_cursor)
            write_failures(self.state_file, {})
            self.store.append_history(
                f"[DREAM-SKIPPED] cursors {first}..{last} after {MAX_FAILURES} failed attempts"
            )
            self.store.compact_history()
            log.warning("dream gave up on entries %d..%d: %s", first, last, why)
            return DreamResult(
                "skipped",
                consumed_to=last,
                message=Phrase(
                    QT_TR_NOOP(
                        "Dream failed ({why}) on entries {first}..{last}, attempt {count} of "
                        "{limit}; skipped them (they stay in history.jsonl)."
                    ),
                    why=why,
                    first=first,
                    last=last,
                    count=count,
                    limit=MAX_FAILURES,
                ),
            )

        return await asyncio.to_thread(record)


def _kept(changed: list[str]) -> str:
    if not changed:
        return ""
    return Phrase(
        QT_TR_NOOP(" Edits made before the failure were kept: {files}."), files=", ".join(changed)
    )


def _summary(stop_reason: str, changed: list[str], commit: str | None, dream: Dream) -> Phrase:
    files = ", ".join(changed) if changed else Phrase(QT_TR_NOOP("no files"))
    if commit:
        head = Phrase(
            QT_TR_NOOP("Dream made {count} change(s) ({files}), committed as {commit}."),
            count=len(changed),
            files=files,
            commit=commit[:7],
        )
    else:
        head = Phrase(
            QT_TR_NOOP("Dream made {count} change(s) ({files})."), count=len(changed), files=files
        )
    return joined(head, stop_note(stop_reason, dream))
