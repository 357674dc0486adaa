"""``apply_patch``: several exact edits over one or more files, all applied or none.

The arguments are nanobot 0.3.5's: ``edits`` (1–20 of ``{path, action, old_text, new_text}``,
``action`` ``replace`` or ``add``) and ``dry_run``. ``replace`` swaps one unique occurrence of
``old_text``; ``add`` appends ``new_text`` to a file, or creates the file. Edits of one file
apply in order, each to the result of the ones before.

Safety is the file tools': every path is checked and opened by
:func:`~desktop.core.security.paths.open_tool_write` (protected files, ``restrictToWorkspace``,
no symlink swaps); a path outside the workspace needs the person's approval
(:func:`~desktop.core.agent.approval.approval_reason`). First every edit is worked out in
memory; only when all of them apply is anything written, each file atomically. A file changed
by someone else between the check and the write stops the patch, and files already written are
put back as they were.
"""

from __future__ import annotations

import asyncio
import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from desktop.core.security.paths import (
    PathDenied,
    WriteTarget,
    display_path,
    open_tool_write,
    resolve_tool_path,
)
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.diffs import join_diffs, unified_diff
from desktop.core.tools.filesystem import MAX_EDIT_BYTES, human_size, not_found_message
from desktop.core.tools.search import SNIFF_BYTES, looks_binary
from desktop.core.tools.untrusted import note_written

MAX_EDITS = 20


class PatchError(ValueError):
    """An edit that cannot apply; nothing is written."""


@dataclass
class _File:
    """One file the patch touches: as found, and as the edits leave it."""

    raw: str
    path: Path
    shown: str
    original: bytes | None  # None: the file does not exist yet
    stat: os.stat_result | None
    text: str = ""
    actions: list[str] = field(default_factory=list)

    @property
    def created(self) -> bool:
        return self.original is None

    @property
    def original_text(self) -> str:
        """The text as found (``""`` for a new file)."""
        return "" if self.original is None else self.original.decode("utf-8")


def _decode(data: bytes, shown: str) -> str:
    if len(data) > MAX_EDIT_BYTES:
        raise PatchError(f"{shown} is larger than {human_size(MAX_EDIT_BYTES)}")
    if looks_binary(data[:SNIFF_BYTES]):
        raise PatchError(f"{shown} looks like a binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise PatchError(f"{shown} is not UTF-8 text") from None


def _load(raw: str, ctx: ToolContext) -> _File:
    """Check ``raw`` for writing and read what is there now (nothing is created)."""
    path = resolve_tool_path(raw, ctx, write=True)
    shown = display_path(path, ctx.workspace)
    try:
        with open_tool_write(raw, ctx, create_parents=False) as target:
            if target.existing is None:
                return _File(raw, target.path, shown, None, None)
            data = target.read(MAX_EDIT_BYTES + 1)
            found = _File(raw, target.path, shown, data, target.existing)
    except FileNotFoundError:  # a parent folder is missing: a new file
        return _File(raw, path, shown, None, None)
    found.text = _decode(data, shown)
    return found


def _replace(file: _File, old: str, new: str) -> None:
    content = file.text
    if old not in content and "\r\n" in content and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    count = content.count(old)
    if count == 0:
        raise PatchError(not_found_message(file.shown, content, old).removeprefix("Error: "))
    if count > 1:
        raise PatchError(
            f"old_text occurs {count} times in {file.shown}; include more lines to make it unique"
        )
    file.text = content.replace(old, new, 1)


def _add(file: _File, new: str) -> None:
    if file.created and not file.actions:
        file.text = new
        return
    content = file.text
    if "\r\n" in content:
        new = new.replace("\r\n", "\n").replace("\n", "\r\n")
    newline = "\r\n" if "\r\n" in content else "\n"
    if content and not content.endswith(("\n", "\r")) and not new.startswith(("\n", "\r")):
        content += newline
    file.text = content + new


def _plan(edits: list[Any], ctx: ToolContext) -> list[_File]:  # noqa: C901  # per edit kind, each with its own error for the model
    """Every edit applied in memory, files in first-touched order.

    Raises:
        PatchError: An edit is malformed or does not apply (the message names it).
        PathDenied: A path may not be written.
    """
    files: dict[Path, _File] = {}
    for number, edit in enumerate(edits, start=1):
        where = f"edit {number}"
        if not isinstance(edit, dict):
            raise PatchError(f"{where} is not an object")
        raw, action = edit.get("path"), edit.get("action")
        old, new = edit.get("old_text"), edit.get("new_text")
        if not isinstance(raw, str) or not raw.strip() or "\0" in raw:
            raise PatchError(f"{where} needs a path")
        if action not in ("replace", "add"):
            raise PatchError(f"{where}: action must be 'replace' or 'add', not {action!r}")
        if not isinstance(new, str):
            raise PatchError(f"{where} ({raw}): new_text is required for {action}")
        loaded = _load(raw, ctx)
        file = files.setdefault(loaded.path, loaded)
        if action == "replace":
            if not isinstance(old, str) or not old:
                raise PatchError(f"{where} ({raw}): old_text is required for replace")
            if file.created and not file.actions:
                raise PatchError(f"{where}: {file.shown} does not exist (use action 'add')")
            if old == new:
                raise PatchError(f"{where} ({raw}): old_text and new_text are identical")
            try:
                _replace(file, old, new)
            except PatchError as exc:
                raise PatchError(f"{where}: {exc}") from None
        else:
            _add(file, new)
        file.actions.append(action)
    return list(files.values())


def _stats(file: _File) -> str:
    before = [] if file.original is None else file.original.decode("utf-8").splitlines()
    after = file.text.splitlines()
    added = removed = 0
    for line in difflib.unified_diff(before, after, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    verb = "create" if file.created else "update"
    return f"- {verb} {file.shown} (+{added}/-{removed})"


def _same(before: os.stat_result | None, now: os.stat_result | None) -> bool:
    if before is None or now is None:
        return before is now
    return (before.st_ino, before.st_size, before.st_mtime_ns) == (
        now.st_ino,
        now.st_size,
        now.st_mtime_ns,
    )


def _undo(done: list[tuple[WriteTarget, _File]]) -> list[str]:
    """Put written files back; the names of those that could not be."""
    failed = []
    for target, file in reversed(done):
        try:
            if file.original is None:
                target.remove()
            else:
                target.write(file.original)
        except OSError:
            failed.append(file.shown)
    return failed


def _write(files: list[_File], ctx: ToolContext) -> None:
    """Write every file atomically; on a failure put the written ones back and raise."""
    opened: list[WriteTarget] = []
    done: list[tuple[WriteTarget, _File]] = []
    try:
        for file in files:
            target = open_tool_write(file.raw, ctx)
            opened.append(target)
            if target.path != file.path or not _same(file.stat, target.existing):
                raise PatchError(f"{file.shown} changed while the patch was prepared; retry")
            note_written(target.write(file.text.encode("utf-8")))
            done.append((target, file))
    except (OSError, PatchError, PathDenied) as exc:
        failed = _undo(done)
        kept = f"; could not restore {', '.join(failed)}" if failed else ""
        if isinstance(exc, PatchError | PathDenied):
            raise PatchError(f"{exc}{kept}") from None
        raise PatchError(f"writing failed ({exc}); nothing was changed{kept}") from None
    finally:
        for target in opened:
            target.close()


def _apply(edits: list[Any], ctx: ToolContext, dry_run: bool) -> ToolResult:
    try:
        files = _plan(edits, ctx)
        summary = "\n".join(_stats(f) for f in files)
        if dry_run:
            return ToolResult("Patch dry-run succeeded (nothing written):\n" + summary)
        _write(files, ctx)
    except PathDenied as exc:
        return ToolResult.error(f"Error: {exc}; nothing was changed")
    except PatchError as exc:
        return ToolResult.error(f"Error applying patch: {exc}; nothing was changed")
    diffs = [unified_diff(f.shown, None if f.created else f.original_text, f.text) for f in files]
    return ToolResult("Patch applied:\n" + summary, diff=join_diffs(diffs))


class ApplyPatchTool(Tool):
    """Apply several exact edits across files in one call, all or nothing."""

    name = "apply_patch"
    description = (
        "Edit one or more files in one call, all or nothing: replace one unique old_text, "
        "or add (append to / create a file). dry_run checks without writing."
    )
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_EDITS,
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "action": {"type": "string", "enum": ["replace", "add"]},
                        "old_text": {"type": "string"},
                        "new_text": {"type": "string"},
                    },
                    "required": ["path", "action"],
                },
            },
            "dry_run": {"type": "boolean"},
        },
        "required": ["edits"],
    }
    group = "files"

    async def execute(
        self, ctx: ToolContext, *, edits: list[Any], dry_run: bool = False, **_: Any
    ) -> ToolResult:
        """Apply ``edits`` (or only check them with ``dry_run``)."""
        if len(edits) > MAX_EDITS:
            return ToolResult.error(f"Error: at most {MAX_EDITS} edits per call")
        return await asyncio.to_thread(_apply, edits, ctx, dry_run)
