"""MemoryStore: nanobot's history.jsonl format, cursors, malformed lines, compaction, files."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from desktop.core.memory.store import MemoryStore
from desktop.core.memory.templates import WORKSPACE_TEMPLATES, sync_workspace_templates
from desktop.core.utils.resources import data_path
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "nanobot_0_3_5" / "workspace"
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$")


def _lines(store: MemoryStore) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for line in store.history_file.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def test_append_writes_nanobot_lines_and_cursor_file(tmp_path: Path) -> None:
    """Each append is one ``{cursor, timestamp, content}`` line; ``.cursor`` holds the last cursor."""
    store = MemoryStore(tmp_path)
    assert store.append_history("- first fact\n") == 1
    assert store.append_history("second", when=datetime(2026, 1, 2, 3, 4)) == 2
    lines = _lines(store)
    assert [sorted(line) for line in lines] == [["content", "cursor", "timestamp"]] * 2
    assert lines[0]["content"] == "- first fact"
    assert STAMP.match(lines[0]["timestamp"])
    assert lines[1] == {"cursor": 2, "timestamp": "2026-01-02 03:04", "content": "second"}
    assert store.cursor_file.read_text() == "2"
    assert [e.cursor for e in store.entries_after(0)] == [1, 2]
    assert [e.content for e in store.entries_after(1)] == ["second"]
    assert [e.cursor for e in store.entries_after(0, limit=1)] == [1]
    assert store.last_cursor == 2


def test_unicode_is_written_as_is(tmp_path: Path) -> None:
    """Like nanobot (ensure_ascii=False): non-ASCII text stays readable in the file."""
    store = MemoryStore(tmp_path)
    store.append_history("Café in Lyon, 21°C 🌤")
    assert "Café in Lyon, 21°C 🌤" in store.history_file.read_text(encoding="utf-8")


def test_concurrent_appends_allocate_unique_monotonic_cursors(tmp_path: Path) -> None:
    """Threads (through two store instances of one workspace) never share or skip a cursor."""
    stores = [MemoryStore(tmp_path), MemoryStore(tmp_path)]
    results: list[int] = []
    guard = threading.Lock()
    barrier = threading.Barrier(8)

    def worker(n: int) -> None:
        barrier.wait()
        for i in range(40):
            cursor = stores[n % 2].append_history(f"t{n}-{i}")
            with guard:
                results.append(cursor)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(1, 321))
    cursors = [line["cursor"] for line in _lines(stores[0])]
    assert cursors == list(range(1, 321))  # file order is allocation order
    assert stores[0].malformed_count == 0 and len(stores[0].entries()) == 320


@pytest.mark.parametrize("cursor_file", [None, "", "garbage", "-4", "1"])
def test_cursor_survives_a_missing_or_corrupt_cursor_file(
    tmp_path: Path, cursor_file: str | None
) -> None:
    """Allocation uses max(.cursor, last line's cursor): a bad or stale .cursor never reuses one."""
    store = MemoryStore(tmp_path)
    for i in range(5):
        store.append_history(f"e{i}")
    if cursor_file is None:
        store.cursor_file.unlink()
    else:
        store.cursor_file.write_text(cursor_file)
    assert MemoryStore(tmp_path).append_history("next") == 6


def test_cursor_file_ahead_of_the_log_wins(tmp_path: Path) -> None:
    """After compaction removed entries, .cursor keeps allocation moving forward."""
    store = MemoryStore(tmp_path)
    store.append_history("one")
    store.cursor_file.write_text("41")
    assert MemoryStore(tmp_path).append_history("two") == 42


def test_malformed_last_line_falls_back_to_a_full_scan(tmp_path: Path) -> None:
    """With .cursor gone and a garbage last line, the highest valid cursor still counts."""
    store = MemoryStore(tmp_path)
    for i in range(3):
        store.append_history(f"e{i}")
    store.cursor_file.unlink()
    with store.history_file.open("a", encoding="utf-8") as handle:
        handle.write("not json at all\n")
    assert MemoryStore(tmp_path).append_history("after") == 4


def test_torn_last_line_does_not_swallow_the_next_entry(tmp_path: Path) -> None:
    """A crash mid-append leaves a line without newline; the next entry starts on its own line."""
    store = MemoryStore(tmp_path)
    store.append_history("whole")
    with store.history_file.open("a", encoding="utf-8") as handle:
        handle.write('{"cursor": 2, "timestamp": "2026-01-0')
    fresh = MemoryStore(tmp_path)
    assert fresh.append_history("after crash") == 2
    entries = fresh.entries()
    assert [e.content for e in entries] == ["whole", "after crash"]
    assert fresh.malformed_count == 1


def test_malformed_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    """Bad JSON, non-objects, bad cursors and bad fields are skipped, counted, never fatal."""
    store = MemoryStore(tmp_path)
    store.memory_dir.mkdir(parents=True)
    good = [
        {"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "a"},
        {"cursor": 5, "timestamp": "2026-01-01 10:05", "content": "b", "session_key": "cli:direct"},
    ]
    bad = [
        "{broken",
        "[1, 2]",
        '"text"',
        json.dumps({"cursor": True, "timestamp": "t", "content": "c"}),
        json.dumps({"cursor": "3", "timestamp": "t", "content": "c"}),
        json.dumps({"cursor": -1, "timestamp": "t", "content": "c"}),
        json.dumps({"cursor": 4, "timestamp": 7, "content": "c"}),
        json.dumps({"cursor": 4, "timestamp": "t"}),
    ]
    lines = [json.dumps(good[0]), *bad, "", "   ", json.dumps(good[1])]
    store.history_file.write_bytes(("\n".join(lines) + "\n").encode() + b"\xff\xfe garbage bytes\n")
    entries = store.entries()
    assert [(e.cursor, e.content) for e in entries] == [(1, "a"), (5, "b")]
    assert entries[1].extra == {"session_key": "cli:direct"}
    assert store.malformed_count == len(bad) + 1
    assert [e.cursor for e in store.entries_after(1)] == [5]
    assert store.append_history("next") == 6


def test_dream_cursor_roundtrip(tmp_path: Path) -> None:
    """Missing or unreadable → 0; writes are plain integers, atomic (no temp files left)."""
    store = MemoryStore(tmp_path)
    assert store.dream_cursor == 0
    store.dream_cursor = 7
    assert store.dream_cursor_file.read_text() == "7"
    assert MemoryStore(tmp_path).dream_cursor == 7
    store.dream_cursor_file.write_text("seven")
    assert store.dream_cursor == 0
    with pytest.raises(ValueError):
        store.dream_cursor = -1
    assert [p.name for p in store.memory_dir.iterdir() if p.name.endswith(".tmp")] == []


def _filled(tmp_path: Path, count: int) -> MemoryStore:
    store = MemoryStore(tmp_path)
    for i in range(1, count + 1):
        store.append_history(f"entry {i}")
    return store


def test_compact_keeps_the_newest_entries(tmp_path: Path) -> None:
    """Consumed entries beyond ``keep`` are dropped, oldest first; cursors keep growing."""
    store = _filled(tmp_path, 12)
    store.dream_cursor = 12
    assert store.compact_history(keep=5) == 7
    assert [e.cursor for e in store.entries()] == [8, 9, 10, 11, 12]
    assert store.compact_history(keep=5) == 0
    assert store.append_history("new") == 13


def test_compact_never_drops_entries_dream_has_not_consumed(tmp_path: Path) -> None:
    """Entries after the dream cursor survive, even beyond ``keep``."""
    store = _filled(tmp_path, 10)
    assert store.compact_history(keep=3) == 0  # dream cursor 0: nothing consumed
    assert len(store.entries()) == 10
    store.dream_cursor = 4
    assert store.compact_history(keep=3) == 4
    assert [e.cursor for e in store.entries()] == [5, 6, 7, 8, 9, 10]
    store.dream_cursor = 10
    assert store.compact_history(keep=0) == 6
    assert store.entries() == []
    assert store.append_history("still monotonic") == 11


def test_compact_default_keeps_a_thousand(tmp_path: Path) -> None:
    """The default bound is 1,000 entries."""
    store = MemoryStore(tmp_path)
    store.memory_dir.mkdir(parents=True)
    lines = [
        json.dumps({"cursor": i, "timestamp": "2026-01-01 00:00", "content": f"e{i}"})
        for i in range(1, 1201)
    ]
    store.history_file.write_text("\n".join(lines) + "\n")
    store.dream_cursor = 1200
    assert store.compact_history() == 200
    assert store.entries()[0].cursor == 201


def test_compact_preserves_lines_byte_for_byte_and_sets_malformed_aside(tmp_path: Path) -> None:
    """Kept lines (unknown keys included) are unchanged; malformed lines go to a side copy."""
    store = MemoryStore(tmp_path)
    store.memory_dir.mkdir(parents=True)
    keep_line = (
        '{"cursor": 3, "timestamp": "2026-01-01 00:03", "content": "c", "session_key": "tg:1"}'
    )
    text = (
        '{"cursor": 1, "timestamp": "2026-01-01 00:01", "content": "a"}\n'
        "{oops\n"
        '{"cursor": 2, "timestamp": "2026-01-01 00:02", "content": "b"}\n' + keep_line + "\n"
    )
    store.history_file.write_text(text)
    store.dream_cursor = 2
    assert store.compact_history(keep=1) == 2
    assert store.history_file.read_text() == keep_line + "\n"
    asides = list(store.memory_dir.glob("history.jsonl.malformed-*"))
    assert len(asides) == 1 and asides[0].read_text() == text
    assert store.malformed_count == 0


def test_compact_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure while replacing the file leaves the old log intact and no temp file behind."""
    store = _filled(tmp_path, 6)
    store.dream_cursor = 6
    before = store.history_file.read_bytes()

    def broken_replace(src: str, dst: str, **_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        store.compact_history(keep=2)
    monkeypatch.undo()
    assert store.history_file.read_bytes() == before
    assert [p.name for p in store.memory_dir.iterdir() if p.name.endswith(".tmp")] == []


def test_markdown_files_roundtrip(tmp_path: Path) -> None:
    """MEMORY.md under memory/, SOUL.md and USER.md at the root; missing reads as ''."""
    store = MemoryStore(tmp_path)
    assert store.read_memory() == store.read_soul() == store.read_user() == ""
    store.write_memory("# Memory\n- fact\n")
    store.write_soul("# Soul\n")
    store.write_user("# User\n- Name: Ada\n")
    assert (tmp_path / "memory" / "MEMORY.md").read_text() == "# Memory\n- fact\n"
    assert (tmp_path / "SOUL.md").read_text() == "# Soul\n"
    assert store.read_user() == "# User\n- Name: Ada\n"
    assert not list(tmp_path.rglob("*.tmp"))


def test_reads_a_workspace_written_by_nanobot(tmp_path: Path) -> None:
    """The nanobot 0.3.5 fixture: entries, cursors and memory files read as nanobot wrote them."""
    workspace = tmp_path / "ws"
    shutil.copytree(FIXTURE, workspace)
    store = MemoryStore(workspace)
    entries = store.entries()
    assert [e.cursor for e in entries] == [1, 2, 3]
    assert entries[0].timestamp == "2026-05-02 09:14"
    assert entries[0].extra == {"session_key": "cli:direct"}
    assert entries[1].content.startswith("[RAW] 2 messages")
    assert "21°C" in entries[1].content
    assert store.malformed_count == 0
    assert store.dream_cursor == 1
    assert store.last_cursor == 3
    assert [e.cursor for e in store.entries_after(store.dream_cursor)] == [2, 3]
    assert store.read_memory().startswith("# Long-term Memory")
    assert "I am nanobot" in store.read_soul()
    assert store.read_user().startswith("# User Profile")
    # We continue their log: next cursor 4, and compaction keeps what Dream has not read.
    assert store.append_history("- desktop entry") == 4
    assert store.compact_history(keep=1) == 1
    assert [e.cursor for e in store.entries()] == [2, 3, 4]
    assert _lines(store)[0] == {
        "cursor": 2,
        "timestamp": "2026-05-02 18:40",
        "content": entries[1].content,
        "session_key": "cli:direct",
    }


def test_sync_templates_fills_gaps_and_never_overwrites(tmp_path: Path) -> None:
    """Missing templates are copied; existing files (even empty ones) stay as they are."""
    workspace = tmp_path / "ws"
    created = sync_workspace_templates(workspace)
    assert created == [*WORKSPACE_TEMPLATES, "memory/history.jsonl"]
    for name in WORKSPACE_TEMPLATES:
        assert (workspace / name).read_text() == data_path("templates", name).read_text()
    assert (workspace / "memory" / "history.jsonl").read_text() == ""
    (workspace / "SOUL.md").write_text("my soul")
    (workspace / "USER.md").write_text("")
    (workspace / "AGENTS.md").unlink()
    assert sync_workspace_templates(workspace) == ["AGENTS.md"]
    assert (workspace / "SOUL.md").read_text() == "my soul"
    assert (workspace / "USER.md").read_text() == ""
    assert not (workspace / "agent").exists()  # prompts are not workspace files


def test_sync_templates_keeps_a_nanobot_workspace(tmp_path: Path) -> None:
    """An existing nanobot workspace only gains what it lacks (here TOOLS.md)."""
    workspace = tmp_path / "ws"
    shutil.copytree(FIXTURE, workspace)
    before = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
    assert sync_workspace_templates(workspace) == ["TOOLS.md"]
    assert all(p.read_bytes() == data for p, data in before.items())
