"""Damage corpus for session files: the metadata line, every message field, raw line shapes.

For every case: loading never raises, every untouched message is kept as it was, the bad line
(or the line whose field was dropped) is copied byte-exact beside the file with a notice, the
session lists and search still work, and a save makes the file clean again.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop.core.session.manager import SessionManager
from tests.core.robust.corpus import (
    FRAGMENTS,
    SCRUBBED,
    UNPARSEABLE,
    aside_bytes,
    asides,
    line_with,
    make_fifo,
    notices,
)

KEY = "desktop:trip"
META: dict[str, Any] = {
    "_type": "metadata",
    "key": KEY,
    "created_at": "2026-01-01T10:00:00",
    "updated_at": "2026-01-01T10:05:00",
    "metadata": {"title": "Trip planning"},
    "last_consolidated": 0,
}
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "hello", "timestamp": "2026-01-01T10:00:00", "media": []},
    {"role": "assistant", "content": "hi there", "reasoning_content": "greet"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "name": "read_file", "content": "data"},
    {"role": "assistant", "content": "done"},
]
ROLES = {"user", "assistant", "tool", "system"}


def _write(ws: Path, lines: list[bytes]) -> Path:
    path = SessionManager(ws).path_for(KEY)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(lines))
    return path


def _encoded(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode() + b"\n"


def _check_usable(ws: Path) -> list[dict[str, Any]]:
    """Load, list, search, repair, build history and save: nothing may raise."""
    manager = SessionManager(ws)
    session = manager.get_or_create(KEY)
    assert isinstance(session.metadata, dict)
    assert 0 <= session.last_consolidated <= len(session.messages)
    messages = list(session.messages)
    manager.list_sessions()
    assert manager.summaries()
    manager.search("hello")
    session.repair()
    for message in session.get_history():
        assert message["role"] in ROLES
        assert message.get("content") is None or isinstance(message["content"], str | list)
    session.title  # noqa: B018 - must not raise
    session.add_message("user", "one more")
    manager.save(session)
    copies = asides(manager.path_for(KEY))
    reloaded = SessionManager(ws).get_or_create(KEY)
    assert reloaded.messages[-1]["content"] == "one more"
    assert asides(manager.path_for(KEY)) == copies, "a saved session reads back clean"
    return messages


# -- the metadata line -----------------------------------------------------------------------

META_VALID = {
    "key": {"text", "empty_text", "null", "true", "false", "zero", "negative", "float"}
    | {"huge_int", "list", "object"},
    "created_at": set(),
    "updated_at": set(),
    "metadata": {"null", "object"},
    "last_consolidated": {"null", "zero"},
}


@pytest.mark.parametrize("fragment", list(FRAGMENTS))
@pytest.mark.parametrize("field", list(META_VALID))
def test_metadata_field_of_every_wrong_type(
    tmp_path: Path, field: str, fragment: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A bad metadata field falls back to its default; every message is kept."""
    first = line_with(META, field, FRAGMENTS[fragment])
    path = _write(tmp_path, [first, *map(_encoded, MESSAGES)])
    messages = _check_usable(tmp_path)
    assert messages == MESSAGES
    if fragment in META_VALID[field] and fragment not in SCRUBBED | UNPARSEABLE:
        assert not asides(path)
    else:
        assert aside_bytes(path) == first
        assert any(path.name in n for n in notices(caplog))


@pytest.mark.parametrize(
    "metadata",
    [
        {"title": 42},
        {"title": ["a"]},
        {"pending_user_turn": "x"},
        {"pending_user_turn": {"index": "0"}},
        {"pending_user_turn": {"index": -3}},
        {"pending_user_turn": {"index": True}},
        {"runtime_checkpoint": 5},
    ],
)
def test_metadata_inner_keys(tmp_path: Path, metadata: dict[str, Any]) -> None:
    """Known keys inside ``metadata`` are checked too (a bad one is dropped, the rest kept)."""
    first = _encoded({**META, "metadata": {**metadata, "keep": "me"}})
    path = _write(tmp_path, [first, *map(_encoded, MESSAGES)])
    session = SessionManager(tmp_path).get_or_create(KEY)
    assert session.metadata == {"keep": "me"}
    assert session.take_pending_turn() is None
    assert isinstance(session.title, str)
    assert aside_bytes(path) == first
    _check_usable(tmp_path)


def test_last_consolidated_past_the_end(tmp_path: Path) -> None:
    """An index beyond the messages is reset, never used to slice."""
    _write(tmp_path, [_encoded({**META, "last_consolidated": 99}), *map(_encoded, MESSAGES)])
    session = SessionManager(tmp_path).get_or_create(KEY)
    assert session.last_consolidated == 0 and len(session.get_history()) == 5


# -- message fields --------------------------------------------------------------------------

# (message index, field): fragments that keep the message unchanged / keep it minus the field.
MESSAGE_FIELDS: dict[tuple[int, str], tuple[set[str], set[str]]] = {
    (0, "role"): (set(), set()),
    (0, "content"): ({"null", "text", "empty_text"}, set()),
    (2, "tool_calls"): ({"null"}, set()),
    (3, "tool_call_id"): ({"text", "empty_text"}, set()),
    (3, "name"): ({"text", "empty_text"}, set(FRAGMENTS)),
    (0, "timestamp"): ({"null", "text", "empty_text"}, set(FRAGMENTS)),
    (1, "reasoning_content"): ({"null", "text", "empty_text"}, set(FRAGMENTS)),
    (0, "media"): ({"null"}, set(FRAGMENTS)),
}


@pytest.mark.parametrize("fragment", list(FRAGMENTS))
@pytest.mark.parametrize(
    ("index", "field"), list(MESSAGE_FIELDS), ids=[f for _, f in MESSAGE_FIELDS]
)
def test_message_field_of_every_wrong_type(
    tmp_path: Path, index: int, field: str, fragment: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A message with a bad field: the field (or the message) is set aside, the rest kept."""
    lines = [_encoded(META), *map(_encoded, MESSAGES)]
    bad = line_with(MESSAGES[index], field, FRAGMENTS[fragment])
    lines[index + 1] = bad
    path = _write(tmp_path, lines)
    messages = _check_usable(tmp_path)
    others = [m for i, m in enumerate(MESSAGES) if i != index]
    assert [m for m in messages if m in others] == others, "untouched messages are kept as-is"
    valid, dropped = MESSAGE_FIELDS[(index, field)]
    broken = fragment in SCRUBBED | UNPARSEABLE
    if fragment in valid and not broken:
        assert len(messages) == 5 and not asides(path)
        return
    assert aside_bytes(path) == bad
    assert any(path.name in n for n in notices(caplog))
    if fragment in dropped and not broken:
        kept = {k: v for k, v in MESSAGES[index].items() if k != field}
        assert kept in messages
    else:
        assert len(messages) == 4


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": [{"type": "text"}]},
        {"role": "user", "content": [{"type": 5, "text": "x"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": 7}]},
        {"role": "user", "content": ["just text"]},
        {"role": "assistant", "content": "x", "tool_calls": [{"id": 1}]},
        {"role": "assistant", "content": "x", "tool_calls": [{"id": "c", "function": "f"}]},
        {"role": "assistant", "content": "x", "tool_calls": [{"id": "c", "function": {}}]},
        {
            "role": "assistant",
            "content": "x",
            "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": 5}}],
        },
        {"role": "tool", "content": "x"},
        {"role": "bogus", "content": "x"},
        {"content": "no role"},
    ],
)
def test_unusable_message_shapes(tmp_path: Path, message: dict[str, Any]) -> None:
    """Messages a provider would reject are set aside whole."""
    bad = _encoded(message)
    path = _write(tmp_path, [_encoded(META), *map(_encoded, MESSAGES), bad])
    assert _check_usable(tmp_path) == MESSAGES
    assert aside_bytes(path) == bad


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"role": "user", "content": "x", "tool_calls": []}, "tool_calls"),
        ({"role": "user", "content": "x", "tool_call_id": "c1"}, "tool_call_id"),
        ({"role": "user", "content": "x", "name": "bad name with spaces"}, "name"),
    ],
)
def test_fields_a_provider_rejects_are_dropped(
    tmp_path: Path, message: dict[str, Any], field: str
) -> None:
    """Fields only valid on other roles are dropped; the message stays."""
    bad = _encoded(message)
    path = _write(tmp_path, [_encoded(META), *map(_encoded, MESSAGES), bad])
    messages = _check_usable(tmp_path)
    assert messages[-1] == {k: v for k, v in message.items() if k != field}
    assert aside_bytes(path) == bad


# -- raw lines and whole files ----------------------------------------------------------------

RAW = {
    "not_utf8": b"\xff\xfe\xfd\n",
    "not_json": b"{broken\n",
    "array": b"[1, 2]\n",
    "nul": b"\x00\n",
    "second_metadata": _encoded(META),
    "type_not_text": b'{"_type": 5}\n',
    "huge": b'{"role": "user", "content": "' + b"x" * (17 * 1024 * 1024) + b'"}\n',
    "surrogate_key": b'{"role": "user", "content": "x", "\\ud800": 1}\n',
}


@pytest.mark.parametrize("kind", list(RAW))
def test_raw_lines(tmp_path: Path, kind: str) -> None:
    """Lines that are no message at all are set aside byte-exact."""
    path = _write(tmp_path, [_encoded(META), *map(_encoded, MESSAGES[:2]), RAW[kind]])
    assert _check_usable(tmp_path) == MESSAGES[:2]
    assert aside_bytes(path) == RAW[kind]


def test_unknown_record_types_are_skipped_untouched(tmp_path: Path) -> None:
    """A record of a newer nanobot version is not damage."""
    path = _write(
        tmp_path, [_encoded(META), b'{"_type": "future", "x": 1}\n', _encoded(MESSAGES[0])]
    )
    assert _check_usable(tmp_path) == MESSAGES[:1] and not asides(path)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n\n",
        _encoded(META),
        b"\xef\xbb\xbf" + _encoded(META) + _encoded(MESSAGES[0]),
        _encoded(MESSAGES[0]) + _encoded(MESSAGES[1]),
        _encoded(META) + _encoded(MESSAGES[0]) + b'{"role": "assistant", "cont',
        b"\xff" * 10 + b"\n" + _encoded(MESSAGES[0]),
    ],
    ids=["empty", "blank", "metadata_only", "bom", "no_metadata", "truncated", "bad_first_line"],
)
def test_whole_file_shapes(tmp_path: Path, content: bytes) -> None:
    """Empty, header-only, headless and torn files all load."""
    _write(tmp_path, [content])
    _check_usable(tmp_path)


@pytest.mark.parametrize("shape", ["folder", "fifo", "sessions_is_a_file"])
def test_session_path_that_is_not_a_file(
    tmp_path: Path, shape: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder or FIFO at the session file (or a file at ``sessions/``): moved aside, the
    conversation starts empty and can be saved."""
    manager = SessionManager(tmp_path)
    path = manager.path_for(KEY)
    if shape == "sessions_is_a_file":
        shutil.rmtree(path.parent)  # the (new, empty) id folder becomes a file
        path.parent.write_text("not a folder")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir() if shape == "folder" else make_fifo(path)
    session = manager.get_or_create(KEY)
    assert session.messages == []
    assert notices(caplog)
    manager.list_sessions()
    manager.summaries()
    session.add_message("user", "hello again")
    manager.save(session)
    assert SessionManager(tmp_path).get_or_create(KEY).messages[0]["content"] == "hello again"
    moved = asides(path.parent if shape == "sessions_is_a_file" else path)
    assert len(moved) == 1
