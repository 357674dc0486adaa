"""Sessions in nanobot's JSONL format."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.session.manager import SessionManager, session_filename


def test_format_and_reload(tmp_path: Path) -> None:
    """Metadata line first, then messages; a fresh manager reads it back."""
    manager = SessionManager(tmp_path)
    session = manager.get_or_create("telegram:42")
    session.add_message("user", "hi")
    session.add_message("assistant", "hello", reasoning_content="r")
    session.metadata["title"] = "Greeting"
    path = manager.save(session)
    assert path == manager.directory / "dGVsZWdyYW06NDI.jsonl"  # base64url, no padding
    assert manager.directory.parent == Path.home() / ".nanobot" / "sessions"
    meta, *_lines = (json.loads(ln) for ln in path.read_text().splitlines())
    assert set(meta) == {
        "_type",
        "key",
        "created_at",
        "updated_at",
        "metadata",
        "last_consolidated",
    }
    assert meta["key"] == "telegram:42" and meta["metadata"] == {"title": "Greeting"}
    loaded = SessionManager(tmp_path).get_or_create("telegram:42")
    assert [m["content"] for m in loaded.messages] == ["hi", "hello"]
    assert loaded.metadata["title"] == "Greeting"


def test_history_starts_at_user_and_keeps_provider_keys(tmp_path: Path) -> None:
    """get_history skips consolidated messages and a leading non-user message."""
    session = SessionManager(tmp_path).get_or_create("cli:direct")
    session.add_message("user", "old")
    session.add_message("assistant", "old answer")
    session.add_message("assistant", "orphan")
    session.add_message("user", "new", media=["x.png"])
    session.add_message("assistant", "", tool_calls=[{"id": "1"}])
    session.add_message("tool", "out", tool_call_id="1", name="read_file")
    session.last_consolidated = 2
    history = session.get_history()
    assert [m["role"] for m in history] == ["user", "assistant", "tool"]
    assert history[0] == {"role": "user", "content": "new"}
    assert history[2] == {
        "role": "tool",
        "content": "out",
        "tool_call_id": "1",
        "name": "read_file",
    }


def test_unparseable_lines_are_quarantined_byte_exact(tmp_path: Path) -> None:
    """Bad lines are copied aside (``.corrupt-<time>``) and skipped; the original stays until a
    save, and loading again does not copy them a second time."""
    legacy = tmp_path / "sessions"
    legacy.mkdir()
    bad = b'{"role": "user", "content": "tru\xffncated\n'
    original = (
        b'{"_type": "metadata", "key": "cli:direct", "metadata": {}, "last_consolidated": 0}\n'
        b'{"role": "user", "content": "ok"}\n' + bad + b"[1]\n"
    )
    (legacy / "cli_direct.jsonl").write_bytes(original)
    manager = SessionManager(tmp_path)
    session = manager.get_or_create("cli:direct")
    path = manager.path_for("cli:direct")  # adopted byte-exact under nanobot 0.3.5's name
    directory = path.parent
    assert [m["content"] for m in session.messages] == ["ok"]
    copies = list(directory.glob(f"{path.name}.corrupt-*"))
    assert len(copies) == 1 and copies[0].read_bytes() == bad + b"[1]\n"
    assert path.read_bytes() == original
    SessionManager(tmp_path).get_or_create("cli:direct")
    assert list(directory.glob(f"{path.name}.corrupt-*")) == copies
    manager.save(session)
    assert len(path.read_text().splitlines()) == 2


def test_filenames_are_safe() -> None:
    """Keys become safe file names."""
    assert session_filename("cli:direct") == "cli_direct.jsonl"
    assert session_filename("../x:y/z") == ".._x_y_z.jsonl"
    assert "/" not in session_filename("a/b:c")


def test_list_rename_delete(tmp_path: Path) -> None:
    """Sessions are listed newest first, renamed and deleted."""
    manager = SessionManager(tmp_path)
    for key in ("cli:a", "telegram:b"):
        session = manager.get_or_create(key)
        session.add_message("user", f"hello from {key}")
        manager.save(session)
    manager.rename("cli:a", "  Planning  ")  # a rename is not activity: the order stays
    listed = SessionManager(tmp_path).list_sessions()
    assert [s["key"] for s in listed] == ["telegram:b", "cli:a"]
    assert listed[1]["title"] == "Planning"
    assert manager.get_or_create("telegram:b").title == "hello from telegram:b"
    assert manager.delete("cli:a") is True and manager.delete("cli:a") is False
    assert [s["key"] for s in SessionManager(tmp_path).list_sessions()] == ["telegram:b"]


def test_tool_results_truncated_on_disk_only(tmp_path: Path) -> None:
    """Long tool results are cut when saved; the live session keeps them whole."""
    manager = SessionManager(tmp_path, max_tool_result_chars=100)
    session = manager.get_or_create("cli:direct")
    session.add_message("tool", "x" * 250, tool_call_id="1", name="read_file")
    manager.save(session)
    assert len(session.messages[0]["content"]) == 250
    saved = json.loads(manager.path_for("cli:direct").read_text().splitlines()[1])
    assert (
        saved["content"].startswith("x" * 100)
        and "150 more characters not saved" in saved["content"]
    )


def test_checkpoint_and_repair(tmp_path: Path) -> None:
    """An interrupted turn gets results for unfinished calls and a note; nothing is lost."""
    session = SessionManager(tmp_path).get_or_create("cli:direct")
    session.begin_turn("please work")
    call = {"id": "c1", "type": "function", "function": {"name": "exec", "arguments": "{}"}}
    call2 = {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    session.checkpoint(
        [
            {"role": "assistant", "content": "", "tool_calls": [call, call2]},
            {"role": "tool", "tool_call_id": "c2", "name": "read_file", "content": "ok"},
        ]
    )
    assert session.has_pending_turn
    assert session.repair() is True
    roles = [(m["role"], m.get("tool_call_id")) for m in session.messages]
    assert roles == [
        ("user", None),
        ("assistant", None),
        ("tool", "c2"),
        ("tool", "c1"),
        ("assistant", None),
    ]
    assert session.messages[3]["name"] == "exec" and "interrupted" in session.messages[3]["content"]
    assert not session.has_pending_turn and session.repair() is False
