"""Damage corpus for the memory files: ``history.jsonl``, the cursor files, the Markdown files.

For every case: loading never raises, the good parts are kept, the bad part is copied
byte-exact beside the file with a logged notice (once, however often it is read), and the
system prompt (the parser the tester found bricking every turn) still builds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.agent.context import ContextBuilder
from desktop.core.memory.store import MemoryStore
from tests.core.robust.corpus import FRAGMENTS, aside_bytes, asides, line_with, make_fifo, notices

GOOD1 = {"cursor": 1, "timestamp": "2026-01-01 10:00", "content": "first good entry"}
GOOD3 = {"cursor": 3, "timestamp": "2026-01-01 10:02", "content": "third good entry"}
MIDDLE = {"cursor": 2, "timestamp": "2026-01-01 10:01", "content": "middle entry"}
VALID = {
    "cursor": {"zero"},
    "timestamp": {"text", "empty_text"},
    "content": {"text", "empty_text"},
}


def _line(data: dict[str, object]) -> bytes:
    return json.dumps(data).encode() + b"\n"


def _history(ws: Path, middle: bytes, *, tail: bytes = b"") -> Path:
    path = ws / "memory" / "history.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_line(GOOD1) + middle + _line(GOOD3) + tail)
    return path


def _prompt(ws: Path) -> str:
    return ContextBuilder(ws).system_prompt("desktop")


def _assert_good_kept(ws: Path) -> None:
    contents = [e.content for e in MemoryStore(ws).entries()]
    assert "first good entry" in contents and "third good entry" in contents
    prompt = _prompt(ws)
    assert "first good entry" in prompt and "third good entry" in prompt


@pytest.mark.parametrize("fragment", list(FRAGMENTS))
@pytest.mark.parametrize("field", ["cursor", "timestamp", "content"])
def test_history_field_of_every_wrong_type(
    tmp_path: Path, field: str, fragment: str, caplog: pytest.LogCaptureFixture
) -> None:
    """One entry with a bad field: skipped and copied aside; the others stay in use."""
    bad = line_with(MIDDLE, field, FRAGMENTS[fragment])
    path = _history(tmp_path, bad)
    store = MemoryStore(tmp_path)
    entries = store.entries()
    _assert_good_kept(tmp_path)
    if fragment in VALID[field]:
        assert len(entries) == 3 and not asides(path)
        return
    assert len(entries) == 2 and store.malformed_count == 1
    assert aside_bytes(path) == bad, "the bad line is kept byte-exact beside the log"
    assert any("history.jsonl" in n and "line 2" in n for n in notices(caplog))
    MemoryStore(tmp_path).entries()
    _prompt(tmp_path)
    assert len(asides(path)) == 1, "reading the same damage again makes no second copy"
    assert MemoryStore(tmp_path).append_history("after") == 4
    assert path.read_bytes().startswith(_line(GOOD1) + bad), "the log is append-only"


RAW_LINES = {
    "not_utf8": b"\xff\xfe garbage bytes\n",
    "bad_utf8_in_text": b'{"cursor": 2, "timestamp": "t", "content": "caf\xe9"}\n',
    "not_json": b"{oops\n",
    "array": b"[1, 2]\n",
    "string": b'"text"\n',
    "null": b"null\n",
    "number": b"42\n",
    "nan_extra": b'{"cursor": 2, "timestamp": "t", "content": "c", "x": NaN}\n',
    "deep_extra": b'{"cursor": 2, "timestamp": "t", "content": "c", "x": '
    + b"[" * 150
    + b"]" * 150
    + b"}\n",
    "bomb": b"[" * 100_000 + b"\n",
    "huge_valid_json": b'{"cursor": 2, "timestamp": "t", "content": "'
    + b"x" * (17 * 1024 * 1024)
    + b'"}\n',
    "nul_bytes": b"\x00\x00\x00\n",
}


@pytest.mark.parametrize("kind", list(RAW_LINES))
def test_history_raw_line_shapes(
    tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Bytes that are not an entry at all: skipped and copied aside byte-exact."""
    path = _history(tmp_path, RAW_LINES[kind])
    _assert_good_kept(tmp_path)
    store = MemoryStore(tmp_path)
    assert len(store.entries()) == 2 and store.malformed_count == 1
    assert aside_bytes(path) == RAW_LINES[kind]
    assert notices(caplog)


def test_truncated_last_line_and_bom(tmp_path: Path) -> None:
    """A torn last line is set aside; a UTF-8 BOM before the first line is tolerated."""
    path = tmp_path / "memory" / "history.jsonl"
    path.parent.mkdir(parents=True)
    torn = b'{"cursor": 4, "timest'
    path.write_bytes(b"\xef\xbb\xbf" + _line(GOOD1) + _line(GOOD3) + torn)
    assert [e.cursor for e in MemoryStore(tmp_path).entries()] == [1, 3]
    assert aside_bytes(path) == torn
    assert MemoryStore(tmp_path).append_history("after a crash") == 4
    assert [e.cursor for e in MemoryStore(tmp_path).entries()] == [1, 3, 4]


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_history(tmp_path: Path, content: bytes) -> None:
    """An empty or blank log is simply empty."""
    path = tmp_path / "memory" / "history.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert MemoryStore(tmp_path).entries() == [] and not asides(path)
    assert "Recent History" not in _prompt(tmp_path)


@pytest.mark.parametrize("shape", ["folder", "fifo"])
def test_history_that_is_not_a_file(
    tmp_path: Path, shape: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder or FIFO at the log: read as empty (never blocking), moved aside on write."""
    path = tmp_path / "memory" / "history.jsonl"
    path.parent.mkdir(parents=True)
    if shape == "folder":
        path.mkdir()
        (path / "inside.txt").write_text("kept")
    else:
        make_fifo(path)
    assert MemoryStore(tmp_path).entries() == []
    assert _prompt(tmp_path)
    assert any("history.jsonl" in n for n in notices(caplog))
    assert MemoryStore(tmp_path).append_history("first") == 1
    moved = asides(path)
    assert len(moved) == 1
    if shape == "folder":
        assert (moved[0] / "inside.txt").read_text() == "kept"
    assert [e.content for e in MemoryStore(tmp_path).entries()] == ["first"]


CURSOR_CONTENTS = {
    "garbage": b"garbage",
    "negative": b"-4",
    "float": b"1.5",
    "huge": b"9" * 30,
    "not_utf8": b"\xff\xfe",
    "json": b'{"cursor": 3}',
    "long_file": b"1" * 100_000,
    "nul": b"\x00",
}


@pytest.mark.parametrize("kind", list(CURSOR_CONTENTS))
@pytest.mark.parametrize("name", [".cursor", ".dream_cursor"])
def test_cursor_files(
    tmp_path: Path, name: str, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An unusable cursor reads as missing (set aside, noticed); cursors never go back."""
    path = _history(tmp_path, _line(MIDDLE))
    cursor = path.parent / name
    cursor.write_bytes(CURSOR_CONTENTS[kind])
    store = MemoryStore(tmp_path)
    assert store.dream_cursor == 0
    assert store.last_cursor == 3
    assert aside_bytes(cursor) == CURSOR_CONTENTS[kind]
    assert any(name in n for n in notices(caplog))
    prompt = _prompt(tmp_path)
    assert "middle entry" in prompt, "an unusable dream cursor shows every entry"
    assert MemoryStore(tmp_path).append_history("next") == 4


@pytest.mark.parametrize("shape", ["folder", "fifo"])
@pytest.mark.parametrize("name", [".cursor", ".dream_cursor"])
def test_cursor_that_is_not_a_file(tmp_path: Path, name: str, shape: str) -> None:
    """A folder or FIFO at a cursor file: ignored when read, moved aside when written."""
    _history(tmp_path, _line(MIDDLE))
    cursor = tmp_path / "memory" / name
    if shape == "folder":
        cursor.mkdir()
    else:
        make_fifo(cursor)
    store = MemoryStore(tmp_path)
    assert store.last_cursor == 3 and store.dream_cursor == 0
    assert "middle entry" in _prompt(tmp_path)
    assert store.append_history("next") == 4
    store.dream_cursor = 2
    assert MemoryStore(tmp_path).dream_cursor == 2
    assert cursor.read_text() == ("2" if name == ".dream_cursor" else "4")


@pytest.mark.parametrize("name", ["memory/MEMORY.md", "SOUL.md", "USER.md", "AGENTS.md"])
def test_markdown_that_is_not_utf8(
    tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Bad bytes show as U+FFFD in the prompt; the original file is copied aside first."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    original = b"# Notes\n\nkeep this line\ncaf\xe9 \xff\xfe\n"
    path.write_bytes(original)
    prompt = _prompt(tmp_path)
    assert "keep this line" in prompt and "\ufffd" in prompt
    assert aside_bytes(path) == original and path.read_bytes() == original
    assert any(name.split("/")[-1] in n for n in notices(caplog))
    store = MemoryStore(tmp_path)
    text = {"memory/MEMORY.md": store.read_memory, "SOUL.md": store.read_soul}.get(
        name, store.read_user
    )()
    if name != "AGENTS.md":
        assert "keep this line" in text
    _prompt(tmp_path)
    assert len(asides(path)) == 1


@pytest.mark.parametrize("shape", ["folder", "fifo"])
@pytest.mark.parametrize("name", ["memory/MEMORY.md", "SOUL.md", "USER.md"])
def test_markdown_that_is_not_a_file(tmp_path: Path, name: str, shape: str) -> None:
    """A folder or FIFO where a Markdown file belongs is skipped (never blocks)."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if shape == "folder":
        path.mkdir()
    else:
        make_fifo(path)
    if name != "SOUL.md":
        (tmp_path / "SOUL.md").write_text("soul notes")
    prompt = _prompt(tmp_path)
    if name != "SOUL.md":
        assert "soul notes" in prompt
    store = MemoryStore(tmp_path)
    assert (store.read_memory(), store.read_soul(), store.read_user()).count("") >= 1
