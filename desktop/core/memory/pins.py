"""Pinned lines: lines of MEMORY.md, USER.md and SOUL.md that Dream must leave as they are.

Pins live in ``memory/.pins.json`` (a file nanobot does not know and never reads; the memory
repository's ``.gitignore`` leaves it out of the history)::

    {"version": 1, "pins": [{"file": "USER.md", "line": "- Name: Ada", "pinnedAt": "..."}]}

**Anchor.** A pin is the exact text of a line (without its line ending) in one file; every
line of that file with that text is pinned. Position is not part of it, so a pin survives any
edit around the line, reordering included. Blank lines cannot be pinned.

**When the pinned line itself changes.** Through the app (a save in the Memory tab), the pin
follows the edit when it is unambiguous: the line sat in a block of changed lines that was
replaced by a block of the same length, so the line at the same place in the new block is the
edited line (:meth:`PinStore.follow_edit`). Otherwise (the line was deleted, split, merged,
or the file was changed outside the app) the pin stays, reported as *not found*: it is active
again as soon as the text is back (an undo, a revert), and the person can unpin it.

**Damage.** A file that cannot be read as pins is copied aside (``.pins.json.corrupt-<time>``)
and treated as empty, with a warning; entries that do not fit are skipped. Dream still runs.
An empty file means no pins (the exec sandbox may create one as a read-only placeholder, so a
command cannot plant pins; the file tools refuse to write it).

Writes are atomic and serialised within the process (only the window changes pins).
"""

from __future__ import annotations

import difflib
import json
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from desktop.core.memory.hunks import Hunk, apply_hunks, split_hunks
from desktop.core.utils import ownfiles
from desktop.core.utils.i18n import QT_TR_NOOP, Phrase
from desktop.core.utils.validate import Unusable, read_document, set_aside_file

log = logging.getLogger(__name__)

PINS_FILE = "memory/.pins.json"
PINNABLE = ("memory/MEMORY.md", "SOUL.md", "USER.md")
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Pin:
    """One pinned line.

    Attributes:
        path: Workspace-relative file (one of :data:`PINNABLE`).
        text: The line's exact text, without its line ending.
        pinned_at: When it was pinned (ISO 8601, local time).
    """

    path: str
    text: str
    pinned_at: str = ""


class PinError(ValueError):
    """A line that cannot be pinned (blank, or not in a memory file); ``str()`` says why."""


def line_text(line: str) -> str:
    """A line without its line ending (what a pin stores and compares)."""
    return line.rstrip("\r\n")


def pinned_lines(pins: Iterable[Pin]) -> dict[str, set[str]]:
    """Pinned texts per file."""
    found: dict[str, set[str]] = {}
    for pin in pins:
        found.setdefault(pin.path, set()).add(pin.text)
    return found


def prompt_block(pins: Iterable[Pin]) -> str:
    """The section Dream's prompts get: every pinned line, per file (``""`` without pins)."""
    lines = [f"- {pin.path}: {pin.text}" for pin in pins]
    if not lines:
        return ""
    return (
        "\n\n## Pinned lines (fixed: never change or remove them)\n\n"
        "The person pinned these lines. Leave them exactly as they are; any change that touches "
        "them is thrown away.\n\n" + "\n".join(lines)
    )


def find_missing(pins: Iterable[Pin], files: dict[str, str | None]) -> list[Pin]:
    """The pins whose line is in none of ``files`` (a file not given counts as not checked)."""
    missing = []
    for pin in pins:
        if pin.path not in files:
            continue
        text = files[pin.path] or ""
        if pin.text not in {line_text(line) for line in text.splitlines()}:
            missing.append(pin)
    return missing


class PinStore:
    """The pins of one workspace.

    Args:
        workspace: The workspace folder.

    Attributes:
        warning: What went wrong reading the file the last time (``None``: it was fine).
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace).expanduser()
        self.path = self.workspace / PINS_FILE
        self.warning: str | None = None

    def load(self) -> list[Pin]:
        """The pins, in the order they were made (never raises for a damaged file)."""
        self.warning = None
        try:
            document = read_document(self.path, root=self.workspace)  # no link followed
        except (Unusable, OSError) as exc:
            self._damaged(str(exc))
            return []
        if document is None:
            return []
        data, problems = document
        if data == {}:  # an empty file (the exec sandbox's placeholder): no pins
            return []
        raw = data.get("pins") if isinstance(data, dict) else None
        if not isinstance(raw, list):
            self._damaged(Phrase(QT_TR_NOOP("it does not hold a list of pins")))
            return []
        pins: list[Pin] = []
        skipped = len(problems)
        for entry in raw:
            pin = _pin_of(entry)
            if pin is None:
                skipped += 1
            elif pin not in pins:
                pins.append(pin)
        if skipped:
            self._damaged(
                Phrase(QT_TR_NOOP("1 entry could not be used"))
                if skipped == 1
                else Phrase(QT_TR_NOOP("{count} entries could not be used"), count=skipped)
            )
        return pins

    def pin(self, path: str, text: str) -> Pin:
        """Pin the line ``text`` of ``path`` (no-op when already pinned); returns the pin.

        Raises:
            PinError: A blank line or a file that is not a memory file.
        """
        text = line_text(text)
        if path not in PINNABLE:
            raise PinError(
                Phrase(
                    QT_TR_NOOP("only lines of {files} can be pinned, not {path}"),
                    files=", ".join(PINNABLE),
                    path=path,
                )
            )
        if not text.strip():
            raise PinError(Phrase(QT_TR_NOOP("a blank line cannot be pinned")))
        with _LOCK:
            pins = self.load()
            for pin in pins:
                if pin.path == path and pin.text == text:
                    return pin
            new = Pin(path, text, datetime.now().astimezone().isoformat(timespec="seconds"))
            self._save([*pins, new])
            return new

    def unpin(self, path: str, text: str) -> bool:
        """Remove the pin of ``text`` in ``path``; whether there was one."""
        text = line_text(text)
        with _LOCK:
            pins = self.load()
            kept = [pin for pin in pins if not (pin.path == path and pin.text == text)]
            if len(kept) == len(pins):
                return False
            self._save(kept)
            return True

    def follow_edit(self, path: str, old: str, new: str) -> list[str]:
        """Move pins of ``path`` along with an edit of their line by the person.

        Returns:
            Notes for the person: pins that followed the edit, and pins whose line is gone.
        """
        with _LOCK:
            pins = self.load()
            mine = [pin for pin in pins if pin.path == path]
            if not mine or old == new:
                return []
            old_lines = [line_text(line) for line in old.splitlines()]
            new_lines = [line_text(line) for line in new.splitlines()]
            notes: list[str] = []
            changed = False
            result: list[Pin] = []
            for pin in pins:
                if pin.path != path or pin.text in new_lines or pin.text not in old_lines:
                    result.append(pin)
                    continue
                moved = _follow(old_lines, new_lines, old_lines.index(pin.text))
                taken = {p.text for p in result if p.path == path}
                if moved is not None and moved.strip() and moved not in taken:
                    result.append(Pin(path, moved, pin.pinned_at))
                    notes.append(
                        Phrase(
                            QT_TR_NOOP("the pin of “{line}” in {path} now holds “{moved}”"),
                            line=pin.text,
                            path=path,
                            moved=moved,
                        )
                    )
                    changed = True
                else:
                    result.append(pin)
                    notes.append(
                        Phrase(
                            QT_TR_NOOP(
                                "the pinned line “{line}” is no longer in {path}; the pin waits "
                                "for it to come back (or unpin it)"
                            ),
                            line=pin.text,
                            path=path,
                        )
                    )
            if changed:
                self._save(result)
            return notes

    # -- internals ---------------------------------------------------------------------------
    def _save(self, pins: list[Pin]) -> None:
        entries = [{"file": p.path, "line": p.text, "pinnedAt": p.pinned_at} for p in pins]
        text = json.dumps({"version": 1, "pins": entries}, indent=2, ensure_ascii=False) + "\n"
        ownfiles.replace(self.path, text.encode(), root=self.workspace)  # no link followed

    def _damaged(self, reason: str) -> None:
        try:
            kept = Phrase(
                QT_TR_NOOP("it was kept as {name}"), name=set_aside_file(self.path, "corrupt").name
            )
        except OSError as exc:
            kept = Phrase(QT_TR_NOOP("no copy could be made ({error})"), error=str(exc))
        self.warning = Phrase(
            QT_TR_NOOP(
                "The pinned lines in {path} could not all be read ({reason}); {kept}. "
                "Pins that could not be read are not enforced."
            ),
            path=str(self.path),
            reason=reason,
            kept=kept,
        )
        log.warning(self.warning)


def _pin_of(entry: object) -> Pin | None:
    if not isinstance(entry, dict):
        return None
    path, text, when = entry.get("file"), entry.get("line"), entry.get("pinnedAt", "")
    if path not in PINNABLE or not isinstance(text, str) or not text.strip() or "\n" in text:
        return None
    return Pin(str(path), text, when if isinstance(when, str) else "")


def _follow(old: list[str], new: list[str], index: int) -> str | None:
    """The new text of line ``index`` of ``old`` when an equal-length block replaced it."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i1 <= index < i2:
            if tag == "replace" and i2 - i1 == j2 - j1:
                return new[j1 + index - i1]
            return None
    return None


def _dropped_notes(path: str, hunks: list[Hunk], fixed: set[str]) -> list[str]:
    notes = []
    for hunk in hunks:
        lines = sorted({line_text(line) for line in hunk.old if line_text(line) in fixed})
        shown = ", ".join(f"“{line}”" for line in lines)
        notes.append(f"{path}: {shown}")
    return notes


def drop_pinned(path: str, before: str, after: str, fixed: set[str]) -> tuple[str, list[str]]:
    """``after`` without the changes that touch a pinned line of ``before``, and the pinned
    lines concerned (``path: “line”``; review mode: applied before the proposal is stored)."""
    if not fixed or before == after:
        return after, []
    hunks = split_hunks(path, before, after)
    touching = [h for h in hunks if h.touches(fixed)]
    if not touching:
        return after, []
    kept = [h for h in hunks if not h.touches(fixed)]
    return apply_hunks(before, kept).text, _dropped_notes(path, touching, fixed)


def enforce_on_disk(workspace: Path, before: dict[str, str], pins: Iterable[Pin]) -> list[str]:
    """Undo, in the files on disk, the changes made since ``before`` that touch a pinned line
    (direct mode: after Dream's edits). Returns notes on what was dropped."""
    notes: list[str] = []
    for path, fixed in pinned_lines(pins).items():
        if path not in before:
            continue
        file = workspace / path
        try:  # no link followed (the model may have planted one)
            data = ownfiles.read_bytes(file, root=workspace)
            current = data.decode("utf-8") if data is not None else None
        except (OSError, UnicodeDecodeError):
            continue
        if current is None:
            continue
        hunks = split_hunks(path, before[path], current)
        touching = [h for h in hunks if h.touches(fixed)]
        if not touching:
            continue
        result = apply_hunks(current, [h.inverse() for h in touching])
        if result.applied:
            ownfiles.replace(file, result.text.encode("utf-8"), root=workspace)
        notes += _dropped_notes(path, [h for h in touching if h.id in result.applied], fixed)
    return notes
