"""Pinned lines: the store, following the person's edits, and Dream never changing them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.memory.git_store import GitStore
from desktop.core.memory.pins import PINS_FILE, PinError, PinStore, find_missing
from desktop.core.memory.proposal import ProposalStore
from desktop.core.memory.review import accept_proposal
from desktop.core.memory.store import MemoryStore
from tests.core.memory.dreaming import ANALYSIS, MEMORY, USER, edit, make_dream, route
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

BERLIN = "- Lives in Berlin"
ATLAS = ("memory/MEMORY.md", "- Project lives in ~/code/old", "- Project lives in ~/code/atlas")


def test_pin_unpin_and_reload(tmp_path: Path) -> None:
    store = PinStore(tmp_path)
    assert store.load() == []
    pin = store.pin("USER.md", BERLIN + "\n")
    assert pin.text == BERLIN and pin.pinned_at
    assert store.pin("USER.md", BERLIN) == pin  # pinning twice keeps one pin
    store.pin("memory/MEMORY.md", "- Tests run with tox")
    assert [(p.path, p.text) for p in PinStore(tmp_path).load()] == [
        ("USER.md", BERLIN),
        ("memory/MEMORY.md", "- Tests run with tox"),
    ]
    data = json.loads((tmp_path / PINS_FILE).read_text(encoding="utf-8"))
    assert data["version"] == 1 and data["pins"][0]["line"] == BERLIN
    assert store.unpin("USER.md", BERLIN) and not store.unpin("USER.md", BERLIN)
    assert [p.path for p in store.load()] == ["memory/MEMORY.md"]
    with pytest.raises(PinError, match="blank"):
        store.pin("USER.md", "   ")
    with pytest.raises(PinError, match="only lines of"):
        store.pin("HEARTBEAT.md", "- x")


def test_a_pin_survives_edits_around_it_and_follows_an_edit_of_its_line(tmp_path: Path) -> None:
    store = PinStore(tmp_path)
    store.pin("USER.md", BERLIN)
    around = "# User\n\n- New first line\n" + USER.split("\n", 2)[2] + "- More\n"
    assert store.follow_edit("USER.md", USER, around) == []
    assert find_missing(store.load(), {"USER.md": around}) == []

    moved = around.replace(BERLIN, "- Lives in Berlin (Kreuzberg)")
    notes = store.follow_edit("USER.md", around, moved)
    assert notes == [
        "the pin of “- Lives in Berlin” in USER.md now holds “- Lives in Berlin (Kreuzberg)”"
    ]
    assert [p.text for p in store.load()] == ["- Lives in Berlin (Kreuzberg)"]

    gone = moved.replace("- Lives in Berlin (Kreuzberg)\n", "")
    notes = store.follow_edit("USER.md", moved, gone)
    assert "is no longer in USER.md" in notes[0]
    (kept,) = store.load()  # the pin waits for its line (an undo brings it back)
    assert find_missing([kept], {"USER.md": gone}) == [kept]
    assert find_missing([kept], {"USER.md": moved}) == []


@pytest.mark.parametrize(
    "damage", [b"{oops", b'{"pins": "x"}', b'{"pins": [{"file": "USER.md"}]}', b"\xff"]
)
def test_a_damaged_pins_file_is_kept_aside(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / PINS_FILE
    path.parent.mkdir(parents=True)
    path.write_bytes(damage)
    store = PinStore(tmp_path)
    assert store.load() == []
    assert store.warning and "could not all be read" in store.warning
    assert [c.read_bytes() for c in path.parent.glob(".pins.json.corrupt-*")] == [damage]
    store.pin("USER.md", BERLIN)  # a new pin replaces the damaged file; the copy stays
    assert [p.text for p in PinStore(tmp_path).load()] == [BERLIN]


def script_pinned_edit(server: ScriptedOpenAIServer) -> None:
    route(server, Reply(ANALYSIS + "\n[USER-REMOVE] Lives in Berlin — moved to Lisbon"))
    server.push(
        Reply(tool_calls=[edit("USER.md", BERLIN, "- Lives in Lisbon")]),
        Reply(tool_calls=[edit(*ATLAS)]),
        Reply("done"),
    )


async def test_dream_cannot_change_a_pinned_line(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    PinStore(workspace).pin("USER.md", BERLIN)
    script_pinned_edit(scripted_server)
    result = await make_dream(scripted_server, workspace).run()

    assert result.status == "changed", result.message
    assert (workspace / "USER.md").read_text(encoding="utf-8") == USER
    assert "~/code/atlas" in (workspace / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert result.changes == 1
    assert result.dropped == ("USER.md: “- Lives in Berlin”",)
    assert "Pinned lines were kept as they were (1 change(s) of them dropped" in result.message
    head = GitStore(workspace).log(limit=1)[0]
    assert head.sha == result.commit and head.subject.endswith("1 change(s)")
    assert (
        "Pinned lines kept (Dream's change dropped):\n- USER.md: “- Lives in Berlin”" in head.body
    )
    assert [d.path for d in GitStore(workspace).show(head.sha)] == [
        "memory/.dream_cursor",
        "memory/MEMORY.md",
    ]
    # both phases were told
    for request in scripted_server.chat_requests()[:2]:
        text = request.body["messages"][1]["content"]
        assert "## Pinned lines (fixed: never change or remove them)" in text
        assert "- USER.md: - Lives in Berlin" in text


async def test_a_proposal_never_holds_a_change_of_a_pinned_line(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    PinStore(workspace).pin("USER.md", BERLIN)
    script_pinned_edit(scripted_server)
    result = await make_dream(scripted_server, workspace, review=True).run()

    assert result.status == "proposed" and result.changes == 1
    assert "1 change(s) of them dropped" in result.message
    proposal = ProposalStore(workspace).load()
    assert proposal is not None
    assert [f.path for f in proposal.files] == ["memory/MEMORY.md"]
    assert proposal.dropped == result.dropped and len(proposal.dropped) == 1
    outcome = accept_proposal(workspace, GitStore(workspace))
    assert (workspace / "USER.md").read_text(encoding="utf-8") == USER
    head = GitStore(workspace).log(limit=1)[0]
    assert head.sha == outcome.commit
    assert "Pinned lines kept (Dream's change dropped):\n- USER.md:" in head.body


async def test_a_line_pinned_while_the_proposal_waits_is_not_changed_on_accept(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    script_pinned_edit(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    PinStore(workspace).pin("USER.md", BERLIN)  # after the proposal was made

    outcome = accept_proposal(workspace, GitStore(workspace))

    assert outcome.pinned == ("USER.md: + - Lives in Lisbon",)
    assert outcome.applied == 1 and "left out because they touch a pinned line" in outcome.message
    assert (workspace / "USER.md").read_text(encoding="utf-8") == USER
    assert MemoryStore(workspace).dream_cursor == 3


async def test_dream_still_runs_with_a_damaged_pins_file(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    (workspace / PINS_FILE).write_bytes(b"{broken")
    route(scripted_server, Reply(ANALYSIS))
    scripted_server.push(Reply(tool_calls=[edit(*ATLAS)]), Reply("done"))
    result = await make_dream(scripted_server, workspace).run()
    assert result.status == "changed" and result.commit is not None
    assert list((workspace / "memory").glob(".pins.json.corrupt-*"))
    assert (workspace / "memory" / "MEMORY.md").read_text(encoding="utf-8") != MEMORY
