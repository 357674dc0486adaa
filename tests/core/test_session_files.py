"""Session files: cheap saves, crash leftovers, and two managers (as two processes would)
sharing one file.

Each :class:`SessionManager` opens its own lock files, so two managers in one process contend
for the ``flock`` locks exactly as two processes do; the real two-process tests are in
``test_two_processes.py``.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.core.session import shared, sync
from desktop.core.session.manager import SessionBusyError, SessionManager
from desktop.core.session.repair import INTERRUPTED_NOTE

KEY = "cli:direct"


def lines_of(path: Path) -> list[dict[str, Any]]:
    """Every line parsed (fails on a torn or invalid line), as nanobot reads them."""
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line.strip()) for line in text.splitlines()]


def tool_call(call_id: str) -> dict[str, Any]:
    """A well-formed tool call (the session reader sets malformed ones aside)."""
    return {"id": call_id, "type": "function", "function": {"name": "t", "arguments": "{}"}}


def turn(manager: SessionManager, text: str, answer: str = "ok", key: str = KEY) -> None:
    """One turn the way the agent loop saves it: user message, checkpoint, end."""
    session = manager.get_or_create(key)
    session.repair()
    session.begin_turn(text)
    manager.save(session)
    call = {"role": "assistant", "content": "", "tool_calls": [tool_call(f"id-{text}")]}
    result = {"role": "tool", "tool_call_id": f"id-{text}", "name": "t", "content": "r"}
    session.checkpoint([call, result])
    manager.save(session)
    session.finish_turn([call, result, {"role": "assistant", "content": answer}])
    manager.save(session)


# -- one process ---------------------------------------------------------------------------
def test_new_messages_are_appended_and_the_metadata_updated_in_place(tmp_path: Path) -> None:
    """After the first save, a turn only appends lines and rewrites the first line in place:
    same file (inode), earlier bytes untouched, every line valid."""
    manager = SessionManager(tmp_path)
    for n in range(20):
        turn(manager, f"q{n}")
    path = manager.path_for(KEY)
    before = path.read_bytes()
    inode = path.stat().st_ino
    first_line = before.index(b"\n")
    turn(manager, "one more")
    after = path.read_bytes()
    assert path.stat().st_ino == inode  # not replaced: appended
    assert after[first_line:].startswith(before[first_line:])  # nothing earlier rewritten
    assert after.index(b"\n") == first_line  # the metadata line kept its length (padding)
    meta, *messages = lines_of(path)
    assert meta["_type"] == "metadata" and "pending_user_turn" not in meta["metadata"]
    assert [m["content"] for m in messages if m["role"] == "user"][-2:] == ["q19", "one more"]
    reloaded = SessionManager(tmp_path).get_or_create(KEY)
    assert reloaded.messages == manager.get_or_create(KEY).messages


def test_changing_earlier_messages_rewrites_the_file_atomically(tmp_path: Path) -> None:
    """A Retry removes the pending turn: the file is replaced whole (new inode), valid."""
    manager = SessionManager(tmp_path)
    turn(manager, "kept")
    session = manager.get_or_create(KEY)
    session.begin_turn("to retry")
    manager.save(session)
    inode = manager.path_for(KEY).stat().st_ino
    assert session.take_pending_turn() is not None
    manager.save(session)
    assert manager.path_for(KEY).stat().st_ino != inode
    _, *messages = lines_of(manager.path_for(KEY))
    assert [m["content"] for m in messages if m["role"] == "user"] == ["kept"]


def test_metadata_that_outgrows_its_room_rewrites(tmp_path: Path) -> None:
    """A title longer than the padding: a full rewrite with room for it, then appends again."""
    manager = SessionManager(tmp_path)
    turn(manager, "hello")
    manager.rename(KEY, "t" * 2000)
    meta, *_ = lines_of(manager.path_for(KEY))
    assert meta["metadata"]["title"] == "t" * 2000
    inode = manager.path_for(KEY).stat().st_ino
    turn(manager, "again")
    assert manager.path_for(KEY).stat().st_ino == inode
    assert lines_of(manager.path_for(KEY))[0]["metadata"]["title"] == "t" * 2000


def test_a_file_written_by_nanobot_is_appended_to(tmp_path: Path) -> None:
    """nanobot writes no padding: the first save that grows the record rewrites once, later
    saves append; the file stays in nanobot's format."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    meta: dict[str, Any] = {"_type": "metadata", "key": KEY, "created_at": "2030-01-01T00:00:00"}
    meta |= {"updated_at": "2030-01-01T00:00:00", "metadata": {}, "last_consolidated": 0}
    rows = [
        meta,
        {"role": "user", "content": "from nanobot"},
        {"role": "assistant", "content": "hi"},
    ]
    (folder / "cli_direct.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    manager = SessionManager(tmp_path)
    turn(manager, "first")
    inode = manager.path_for(KEY).stat().st_ino
    turn(manager, "second")
    assert manager.path_for(KEY).stat().st_ino == inode
    _, *messages = lines_of(manager.path_for(KEY))
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users == ["from nanobot", "first", "second"]


def test_a_line_cut_short_by_a_crash_is_set_aside(tmp_path: Path) -> None:
    """A crash in the middle of an append leaves a partial last line: the next process moves
    it to the quarantine file, the file is valid again, and saving appends cleanly."""
    manager = SessionManager(tmp_path)
    turn(manager, "saved")
    path = manager.path_for(KEY)
    with path.open("ab") as handle:
        handle.write(b'{"role": "assistant", "content": "half wri')
    other = SessionManager(tmp_path)
    session = other.get_or_create(KEY)
    assert [m["content"] for m in session.messages if m["role"] == "user"] == ["saved"]
    quarantine = path.with_name(path.name + ".quarantine")
    assert quarantine.read_bytes() == b'{"role": "assistant", "content": "half wri\n'
    lines_of(path)
    turn(other, "next")
    _, *messages = lines_of(path)
    assert [m["content"] for m in messages if m["role"] == "user"] == ["saved", "next"]


def test_a_whole_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    """A complete last line that only lacks its newline is completed, not set aside."""
    manager = SessionManager(tmp_path)
    turn(manager, "saved")
    path = manager.path_for(KEY)
    path.write_bytes(path.read_bytes() + b'{"role": "user", "content": "no newline"}')
    session = SessionManager(tmp_path).get_or_create(KEY)
    assert session.messages[-1]["content"] == "no newline"
    assert path.read_bytes().endswith(b'"no newline"}\n')
    assert not path.with_name(path.name + ".quarantine").exists()


def test_truncated_tool_results_survive_being_saved_again(tmp_path: Path) -> None:
    """A tool result cut on disk, loaded and saved by another manager, is not cut again."""
    manager = SessionManager(tmp_path, max_tool_result_chars=100)
    session = manager.get_or_create(KEY)
    session.add_message("user", "read it")
    session.add_message("tool", "x" * 500, tool_call_id="1")
    manager.save(session)
    on_disk = lines_of(manager.path_for(KEY))[2]["content"]
    assert on_disk.startswith("x" * 100) and on_disk.endswith("[400 more characters not saved]")
    other = SessionManager(tmp_path, max_tool_result_chars=100)
    again = other.get_or_create(KEY)
    again.messages = [dict(m) for m in again.messages]  # force a full rewrite
    other.save(again)
    assert lines_of(manager.path_for(KEY))[2]["content"] == on_disk


def test_saving_waits_for_the_folder_lock(tmp_path: Path) -> None:
    """While another program holds the folder's .session-files.lock, a save waits for it."""
    manager = SessionManager(tmp_path)
    turn(manager, "first")
    other = FileLock(str(manager.directory / ".session-files.lock"))  # nanobot's lock
    other.acquire()
    session = manager.get_or_create(KEY)
    session.add_message("user", "while locked")
    done = threading.Event()

    def save() -> None:
        manager.save(session)
        done.set()

    worker = threading.Thread(target=save)
    worker.start()
    try:
        assert not done.wait(0.5)  # still waiting for the lock
        assert "while locked" not in manager.path_for(KEY).read_text()
    finally:
        other.release()
    worker.join(timeout=20)
    assert done.is_set() and "while locked" in manager.path_for(KEY).read_text()


def test_a_lock_held_too_long_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clear error, not a hang, when the folder lock never comes free."""
    monkeypatch.setattr(shared, "LOCK_TIMEOUT_S", 0.2)
    manager = SessionManager(tmp_path)
    other = FileLock(str(manager.directory / ".session-files.lock"))
    with other, pytest.raises(SessionBusyError, match=r"session-files\.lock"):
        manager.get_or_create(KEY)  # loading reads under the lock too


# -- two managers, one file ----------------------------------------------------------------
def test_alternating_turns_from_two_managers_are_all_kept(tmp_path: Path) -> None:
    """Each manager keeps its session cached; neither overwrites the other's turns, and each
    sees the other's turns before its next one."""
    first, second = SessionManager(tmp_path), SessionManager(tmp_path)
    for n in range(5):
        turn(first, f"a{n}")
        turn(second, f"b{n}")
    expected = [f"{who}{n}" for n in range(5) for who in "ab"]
    _, *messages = lines_of(first.path_for(KEY))
    assert [m["content"] for m in messages if m["role"] == "user"] == expected
    assert len(messages) == 4 * len(expected)
    for manager in (first, second):
        users = [m["content"] for m in manager.get_or_create(KEY).messages if m["role"] == "user"]
        assert users == expected


def test_a_turn_waits_for_the_other_process_turn(tmp_path: Path) -> None:
    """While one manager's turn runs, the other leaves it alone (no repair of a live turn),
    and its own first save waits until that turn has ended; then its turn follows it."""
    first, second = SessionManager(tmp_path), SessionManager(tmp_path)
    turn(first, "before")
    running = first.get_or_create(KEY)
    running.begin_turn("long turn")
    first.save(running)
    waiting = second.get_or_create(KEY)
    assert waiting.has_pending_turn and not waiting.repair()  # live elsewhere: untouched
    waiting.begin_turn("meanwhile")
    done = threading.Event()

    def save() -> None:
        second.save(waiting)
        done.set()

    worker = threading.Thread(target=save)
    worker.start()
    assert not done.wait(0.5)  # blocked on the other turn
    call = {"role": "assistant", "content": "", "tool_calls": [tool_call("L")]}
    result = {"role": "tool", "tool_call_id": "L", "content": "r"}
    running.checkpoint([call, result])
    first.save(running)
    assert not done.is_set()
    running.finish_turn([call, result, {"role": "assistant", "content": "long answer"}])
    first.save(running)
    worker.join(timeout=20)
    assert done.is_set()
    waiting.finish_turn([{"role": "assistant", "content": "short answer"}])
    second.save(waiting)
    _, *messages = lines_of(first.path_for(KEY))
    contents = [m.get("content") for m in messages]
    assert contents[4:] == ["long turn", "", "r", "long answer", "meanwhile", "short answer"]
    assert INTERRUPTED_NOTE not in contents


def test_a_crashed_turn_is_repaired_by_the_next_process(tmp_path: Path) -> None:
    """A pending turn whose process is gone (no one holds its turn lock) is interrupted."""
    first = SessionManager(tmp_path)
    session = first.get_or_create(KEY)
    session.begin_turn("crashed")
    first.save(session)
    first.release_turn(KEY)  # as when the process dies (the OS drops its locks)
    other = SessionManager(tmp_path).get_or_create(KEY)
    assert other.repair()
    assert other.messages[-1] == {"role": "assistant", "content": INTERRUPTED_NOTE}


def test_when_the_wait_runs_out_both_turns_stay_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the other turn outlasts the wait, both go ahead: turns are merged whole, in order
    of their ends, with nothing lost."""
    monkeypatch.setattr(shared, "TURN_WAIT_S", 0.2)
    first, second = SessionManager(tmp_path), SessionManager(tmp_path)
    a = first.get_or_create(KEY)
    a.begin_turn("a")
    first.save(a)
    b = second.get_or_create(KEY)
    b.begin_turn("b")
    second.save(b)  # waited 0.2 s, then merged
    a_call = {"role": "assistant", "content": "", "tool_calls": [tool_call("A")]}
    a_result = {"role": "tool", "tool_call_id": "A", "content": "ra"}
    a.checkpoint([a_call, a_result])
    first.save(a)
    b.finish_turn([{"role": "assistant", "content": "b done"}])
    second.save(b)
    a.finish_turn([a_call, a_result, {"role": "assistant", "content": "a done"}])
    first.save(a)
    _, *messages = lines_of(first.path_for(KEY))
    assert [m.get("content") for m in messages] == ["b", "b done", "a", "", "ra", "a done"]


def test_consolidation_in_one_and_a_turn_in_the_other_are_both_kept(tmp_path: Path) -> None:
    """One manager archives (moves last_consolidated) and renames; the other, not having
    seen that, adds a turn: the file gets both."""
    first, second = SessionManager(tmp_path), SessionManager(tmp_path)
    for n in range(3):
        turn(first, f"q{n}")
    stale = second.get_or_create(KEY)
    archived = first.get_or_create(KEY)
    archived.last_consolidated = 8
    archived.metadata["title"] = "Named"
    first.save(archived)
    stale.begin_turn("new")  # without calling get_or_create again
    second.save(stale)
    stale.finish_turn([{"role": "assistant", "content": "fine"}])
    second.save(stale)
    meta, *messages = lines_of(first.path_for(KEY))
    assert meta["last_consolidated"] == 8 and meta["metadata"]["title"] == "Named"
    assert [m["content"] for m in messages if m["role"] == "user"] == ["q0", "q1", "q2", "new"]
    assert first.get_or_create(KEY).messages[-1]["content"] == "fine"


def test_deleting_in_one_manager_and_writing_in_the_other(tmp_path: Path) -> None:
    """A session set aside elsewhere: a later turn here starts a new file with that turn only
    (the old conversation stays in the set-aside copy)."""
    first, second = SessionManager(tmp_path), SessionManager(tmp_path)
    turn(first, "old")
    session = second.get_or_create(KEY)
    aside = first.set_aside(KEY)
    assert aside is not None and aside.exists()
    assert second.get_or_create(KEY).messages == []
    assert session.messages == []
    turn(second, "new")
    _, *messages = lines_of(second.path_for(KEY))
    assert [m["content"] for m in messages if m["role"] == "user"] == ["new"]


# -- the merge rule ------------------------------------------------------------------------
def _m(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_merge_rule() -> None:
    """Theirs first, then ours; our running turn last and whole; our deletions applied."""

    def form(m: dict[str, Any]) -> dict[str, Any]:
        return m

    base = [_m("1"), _m("2")]
    ours = [*base, _m("ours")]
    theirs = [*[dict(m) for m in base], _m("theirs")]
    merged, shared_len = sync.merge_messages(base, ours, theirs, block_start=None, form=form)
    assert [m["content"] for m in merged] == ["1", "2", "theirs", "ours"]
    assert shared_len == 2 and merged[0] is base[0]  # our objects where equal
    # our running turn started before their message: it moves after it, whole
    base = [_m("1"), _m("turn")]
    ours = [*base, _m("step")]
    theirs = [*[dict(m) for m in base], _m("theirs")]
    merged, _ = sync.merge_messages(base, ours, theirs, block_start=1, form=form)
    assert [m["content"] for m in merged] == ["1", "theirs", "turn", "step"]
    # we removed "2" (a retry), they appended: both applied
    base = [_m("1"), _m("2")]
    ours = [base[0]]
    theirs = [dict(base[0]), dict(base[1]), _m("theirs")]
    merged, _ = sync.merge_messages(base, ours, theirs, block_start=None, form=form)
    assert [m["content"] for m in merged] == ["1", "theirs"]
    # we changed nothing: the file wins, our objects kept where equal
    merged, _ = sync.merge_messages(base, list(base), theirs, block_start=None, form=form)
    assert [m["content"] for m in merged] == ["1", "2", "theirs"] and merged[1] is base[1]


def test_signature_sees_an_in_place_metadata_change(tmp_path: Path) -> None:
    """Same inode, size and (coarse) mtime, different first page: a different signature."""
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a": 1}   \n{"b": 2}\n')
    stat = path.stat()
    before = sync.signature(path)
    with path.open("r+b") as handle:
        handle.write(b'{"a": 2}')
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    after = sync.signature(path)
    assert before is not None and after is not None
    assert before[:3] == after[:3] and before != after


@st.composite
def _edits(draw: st.DrawFn) -> tuple[list[Any], list[Any], list[Any], int | None]:
    """A base list, our version and theirs: each side deletes some and appends new ones; ours
    may have a running turn (a block at the end, begun within the base or new)."""
    base = [_m(f"b{n}") for n in range(draw(st.integers(0, 8)))]
    ours = [m for m in base if draw(st.integers(0, 5))]
    theirs = [dict(m) for m in base if draw(st.integers(0, 5))]
    theirs += [_m(f"t{n}") for n in range(draw(st.integers(0, 4)))]
    block_start = None
    if draw(st.booleans()):
        if len(ours) > 0 and draw(st.booleans()):
            block_start = len(ours) - 1  # the turn began with a message already saved
        else:
            block_start = len(ours)
            ours.append(_m("turn"))
    ours += [_m(f"o{n}") for n in range(draw(st.integers(0, 4)))]
    return base, ours, theirs, block_start


@settings(max_examples=500, deadline=None)
@given(edits=_edits())
def test_merge_loses_nothing_either_side_added(
    edits: tuple[list[Any], list[Any], list[Any], int | None],
) -> None:
    """Whatever both sides did: every message either side added is kept once; a message
    either side deleted is gone (unless it is part of our running turn); theirs keep their
    order; our running turn ends the list in one piece."""
    base, ours, theirs, block_start = edits
    merged, _ = sync.merge_messages(base, ours, theirs, block_start=block_start, form=lambda m: m)
    names = [m["content"] for m in merged]
    assert len(names) == len(set(names))
    base_names = {m["content"] for m in base}
    ours_names = [m["content"] for m in ours]
    theirs_names = [m["content"] for m in theirs]
    block = ours_names[block_start:] if block_start is not None else []
    added = (set(ours_names) | set(theirs_names)) - base_names
    assert added <= set(names)
    deleted = (base_names - set(ours_names)) | (base_names - set(theirs_names))
    assert not (deleted - set(block)) & set(names)
    assert [n for n in names if n in theirs_names and n not in block] == [
        n for n in theirs_names if n in names and n not in block
    ]
    if block:
        assert names[-len(block) :] == block
