"""Pins and the Dream proposal's lock never follow a link the model planted (#20.2).

A command may leave a symlink where ``memory/.pins.json``, the proposal's lock or a memory file
belongs. Reading pins, saving them, enforcing them on disk and taking the proposal lock must
neither read nor write nor create anything outside the workspace.
"""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.memory.pins import Pin, PinStore, enforce_on_disk
from desktop.core.memory.proposal import ProposalStore

SECRET = {"pins": [{"file": "memory/MEMORY.md", "line": "OUTSIDE", "pinnedAt": "x"}]}


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "documents").mkdir(parents=True)
    (outside / "secret.json").write_text(json.dumps(SECRET) + "\n")
    return outside


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(folder.rglob("*"))
    }


def test_pins_behind_a_link_are_not_read_and_a_save_writes_a_real_file(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", _outside(tmp_path)
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / ".pins.json").symlink_to(outside / "secret.json")
    before = _snapshot(outside)
    store = PinStore(ws)
    assert store.load() == []  # the linked file's pin is not taken for a pin
    store.pin("memory/MEMORY.md", "keep me")
    assert _snapshot(outside) == before
    saved = ws / "memory" / ".pins.json"
    assert not saved.is_symlink() and "keep me" in saved.read_text()
    assert [p.text for p in PinStore(ws).load()] == ["keep me"]


def test_a_dangling_pins_link_creates_nothing_outside(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", _outside(tmp_path)
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / ".pins.json").symlink_to(outside / "documents" / "pins.json")
    PinStore(ws).pin("USER.md", "a line")
    assert not (outside / "documents" / "pins.json").exists()


def test_enforcing_pins_does_not_write_through_a_linked_memory_file(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", _outside(tmp_path)
    (ws / "memory").mkdir(parents=True)
    target = outside / "documents" / "notes.md"
    target.write_text("- pinned\n- changed by Dream\n")
    (ws / "memory" / "MEMORY.md").symlink_to(target)
    pin = Pin("memory/MEMORY.md", "- pinned", "2026-11-28T00:00:00+00:00")
    notes = enforce_on_disk(ws, {"memory/MEMORY.md": "- pinned\n"}, [pin])
    assert notes == [] and target.read_text() == "- pinned\n- changed by Dream\n"


def test_the_proposal_lock_behind_a_link_is_not_created_outside(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", _outside(tmp_path)
    (ws / "memory").mkdir(parents=True)
    lock = ws / "memory" / ".dream_proposal.json.lock"
    lock.symlink_to(outside / "documents" / "dream.lock")
    with ProposalStore(ws).locked():
        pass
    assert not (outside / "documents" / "dream.lock").exists()
    assert _snapshot(outside)["secret.json"] == (json.dumps(SECRET) + "\n").encode()
