"""Structured mentions (:mod:`desktop.core.agent.mentions`): what the runtime block says of a
mentioned chat, skill or MCP server; malformed metadata dropped; a chat typed by ``@handle``
still recognised, never twice; the mentions never saved into the session's metadata."""

from __future__ import annotations

from pathlib import Path

from desktop.core.agent.mentions import NOTES_KEY, mention_notes, parse, with_mentions
from desktop.core.engine.skills import SkillsLoader
from desktop.core.session.handles import list_chats
from desktop.core.session.manager import SessionManager


def _sessions(tmp_path: Path) -> SessionManager:
    sessions = SessionManager(tmp_path / "ws", config_dir=tmp_path)
    chat = sessions.get_or_create("telegram:42")
    chat.add_message("user", "Plan the Lisbon trip")
    sessions.save(chat)
    sessions.rename("telegram:42", "Lisbon trip")
    return sessions


def test_each_kind_of_mention_gets_its_line(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path)
    skills = SkillsLoader(tmp_path / "ws").list_skills
    notes = mention_notes(sessions, skills=skills, servers=lambda: ["github"])
    handle = next(c.handle for c in list_chats(sessions) if c.key == "telegram:42")
    raw = [
        {"kind": "chat", "ref": "telegram:42"},
        {"kind": "skill", "ref": "weather"},
        {"kind": "mcp", "ref": "github"},
        {"kind": "skill", "ref": "no-such-skill"},
        {"kind": "mcp", "ref": "gone"},
        {"kind": "chat", "ref": "telegram:404"},
    ]
    session_metadata = {"title": "here"}
    metadata = with_mentions(session_metadata, raw)
    assert NOTES_KEY not in session_metadata  # a copy for the request only
    lines = notes(f"ask @{handle} about it", metadata)
    weather = next(s for s in skills() if s.name == "weather")
    assert lines == [
        f'Mentioned chat @{handle}: session telegram:42, "Lisbon trip" '
        "(read_session or send_session_message with its handle)",
        f"Mentioned skill weather: read {weather.path} first and follow it for this request",
        "Mentioned MCP server github: use the tools it provides for this request",
        "Mentioned skill no-such-skill: it is not installed",
        "Mentioned MCP server gone: it is not configured",
        "Mentioned chat telegram:404: it no longer exists",
    ]  # the typed @handle of the same chat is not said twice


def test_typed_handles_still_work_and_malformed_mentions_are_dropped(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path)
    notes = mention_notes(sessions)
    handle = next(c.handle for c in list_chats(sessions) if c.key == "telegram:42")
    assert notes(f"see @{handle}", {}) == [
        f'Mentioned chat @{handle}: session telegram:42, "Lisbon trip" '
        "(read_session or send_session_message with its handle)"
    ]
    assert notes("mail me@example.org or @skill:weather", {}) == []  # no chat handles
    assert parse([{"kind": "file", "ref": "x"}, "chat", {"kind": "skill", "ref": ""}, None]) == []
    assert parse("skill") == [] and parse([{"kind": "mcp", "ref": "a"}] * 3) == parse(
        [{"kind": "mcp", "ref": "a"}]
    )
