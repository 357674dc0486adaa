"""Damage corpus for the remaining files the app reads: Dream's state, HEARTBEAT.md, skills,
and the Memory tab's snapshot (which now reads through the core's text reader)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop.core.engine.skills import SkillsLoader
from desktop.core.heartbeat.service import HeartbeatService
from desktop.core.memory.dream_state import read_failures
from desktop.core.memory.git_store import GitStore
from tests.core.robust.corpus import BOMB, aside_bytes, make_fifo

STATES = {
    "not_json": b"{oops",
    "not_utf8": b"\xff",
    "array": b"[1]",
    "failures_list": b'{"failures": [1, 2]}',
    "failures_text_counts": b'{"failures": {"1-3": "x", "4-5": 2}}',
    "failures_bool": b'{"failures": {"1-3": true}}',
    "nan": b'{"failures": {"1-3": NaN}}',
    "bomb": b"[" * BOMB,
}


@pytest.mark.parametrize("kind", [*STATES, "folder", "fifo"])
def test_dream_state(tmp_path: Path, kind: str) -> None:
    """Dream's failure counts: unusable parts read as "no failures", never an exception."""
    path = tmp_path / ".dream_state"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        make_fifo(path)
    else:
        path.write_bytes(STATES[kind])
    failures = read_failures(path)
    assert failures == ({"4-5": 2} if kind == "failures_text_counts" else {})


@pytest.mark.parametrize("kind", ["not_utf8", "folder", "fifo", "huge"])
def test_heartbeat_file(tmp_path: Path, kind: str) -> None:
    """HEARTBEAT.md: tasks are read whatever else the file holds; never an exception."""
    path = tmp_path / "HEARTBEAT.md"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        make_fifo(path)
    elif kind == "huge":
        path.write_bytes(b"- water the plants\n" + b"#" * (9 * 1024 * 1024))
    else:
        path.write_bytes(b"# Tasks\n- water the plants \xff\n")
    beat = HeartbeatService(tmp_path, provider=None, agent=None)  # type: ignore[arg-type]
    tasks = beat._read_tasks()
    if kind in ("folder", "fifo"):
        assert tasks == []
    else:
        assert tasks and tasks[0].startswith("- water the plants")
    if kind == "not_utf8":
        assert aside_bytes(path) == b"# Tasks\n- water the plants \xff\n"


SKILLS: dict[str, Any] = {
    "yaml_bomb": b"---\nname: s\ndescription: " + b"[" * BOMB + b"\n---\n",
    "metadata_json_bomb": b"---\nname: s\ndescription: d\nmetadata: '" + b"[" * BOMB + b"'\n---\n",
    "not_utf8": b"---\nname: s\ndescription: \xff\n---\n",
    "no_frontmatter": b"just text",
    "wrong_types": b"---\nname: [1]\ndescription: {a: 1}\nalways: maybe\n---\n",
    "folder": None,
    "fifo": None,
}


@pytest.mark.parametrize("kind", list(SKILLS))
def test_skill_files(tmp_path: Path, kind: str) -> None:
    """A broken SKILL.md is skipped with its reason; the good skill and the prompt stay."""
    good = tmp_path / "skills" / "good" / "SKILL.md"
    good.parent.mkdir(parents=True)
    good.write_text("---\nname: good\ndescription: A good skill\n---\nBody\n")
    bad = tmp_path / "skills" / "s" / "SKILL.md"
    bad.parent.mkdir(parents=True)
    if kind == "folder":
        bad.mkdir()
    elif kind == "fifo":
        make_fifo(bad)
    else:
        bad.write_bytes(SKILLS[kind])
    sections = "\n".join(SkillsLoader(tmp_path, builtin_dir=tmp_path / "none").sections())
    assert "A good skill" in sections


@pytest.mark.parametrize("shape", ["not_utf8", "folder", "fifo"])
def test_memory_tab_snapshot(tmp_path: Path, shape: str) -> None:
    """The Memory tab's snapshot reads the Markdown files through the core reader."""
    from desktop.ui.memory.snapshot import load_snapshot

    soul = tmp_path / "SOUL.md"
    if shape == "folder":
        soul.mkdir()
    elif shape == "fifo":
        make_fifo(soul)
    else:
        soul.write_bytes(b"kind \xff")
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "history.jsonl").write_bytes(b'\xff\n{"cursor": "x"}\n')
    snapshot = load_snapshot(tmp_path, GitStore(tmp_path), ensure_repo=False)
    assert snapshot.malformed == 2
    if shape == "not_utf8":
        assert snapshot.files["SOUL.md"] == "kind \ufffd"
    else:
        assert snapshot.files["SOUL.md"] is None


CHANNEL_STATES = {
    "not_json": (b"{oops", {}, set()),
    "not_utf8": (b"\xff\xfe", {}, set()),
    "bomb": (b"[" * BOMB, {}, set()),
    "array": (b"[1, 2]", {}, set()),
    "values_list": (b'{"values": [1], "seen": ["a"]}', {}, {"a"}),
    "seen_object": (b'{"values": {"offset": 7}, "seen": {"a": 1}}', {"offset": 7}, set()),
    "seen_mixed": (b'{"values": {"offset": 7}, "seen": ["a", 5, null]}', {"offset": 7}, {"a"}),
    "nan_value": (b'{"values": {"offset": NaN, "keep": 1}, "seen": ["a"]}', {"keep": 1}, {"a"}),
    "deep_value": (
        b'{"values": {"x": ' + b"[" * 150 + b"]" * 150 + b', "keep": 1}, "seen": []}',
        {"keep": 1},
        set(),
    ),
}


@pytest.mark.parametrize("kind", [*CHANNEL_STATES, "folder", "fifo"])
def test_channel_state(tmp_path: Path, kind: str) -> None:
    """A channel's cursor file: usable parts kept, the file copied aside, saving works."""
    from desktop.core.channels.state import ChannelStateStore

    path = tmp_path / "telegram.json"
    if kind == "folder":
        path.mkdir()
        expected: tuple[bytes, dict[str, Any], set[str]] = (b"", {}, set())
    elif kind == "fifo":
        make_fifo(path)
        expected = (b"", {}, set())
    else:
        expected = CHANNEL_STATES[kind]
        path.write_bytes(expected[0])
    store = ChannelStateStore(path)
    assert store.warning
    _, values, seen = expected
    for key, value in values.items():
        assert store.get(key) == value
    assert {item for item in ("a",) if store.seen(item)} == seen
    if kind not in ("folder", "fifo"):
        assert aside_bytes(path) == expected[0]
    store.update(seen=["b"], offset=8)
    again = ChannelStateStore(path)
    assert again.warning is None and again.get("offset") == 8 and again.seen("b")
