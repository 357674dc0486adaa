"""Dream in review mode: a proposal instead of a commit, decided per hunk (real LiteLLM path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.core.memory.git_store import GitStore
from desktop.core.memory.proposal import PROPOSAL_FILE, ProposalStore
from desktop.core.memory.review import accept_proposal, edit_proposal, reject_proposal
from desktop.core.memory.store import MemoryStore
from tests.core.memory.dreaming import (
    ANALYSIS,
    MEMORY,
    USER,
    call,
    edit,
    make_dream,
    route,
)
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer
from tests.typed import present

ATLAS = ("memory/MEMORY.md", "- Project lives in ~/code/old", "- Project lives in ~/code/atlas")
GITHUB = ("memory/MEMORY.md", "- GitHub user: ada", "- GitHub user: ada-lovelace")
ENGLISH = ("USER.md", "- Lives in Berlin\n", "- Lives in Berlin\n- Prefers answers in English\n")


def script_three_edits(server: ScriptedOpenAIServer) -> None:
    route(server, Reply(ANALYSIS))
    server.push(
        Reply(tool_calls=[edit(*ATLAS)]),
        Reply(tool_calls=[edit(*GITHUB)]),
        Reply(tool_calls=[edit(*ENGLISH)]),
        Reply("Updated MEMORY.md and USER.md."),
    )


def memory_text(ws: Path) -> str:
    return (ws / "memory" / "MEMORY.md").read_text(encoding="utf-8")


async def test_review_mode_stores_a_proposal_and_changes_nothing(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    commits = GitStore(workspace).log(limit=None)
    script_three_edits(scripted_server)
    result = await make_dream(scripted_server, workspace, review=True).run()

    assert result.status == "proposed", result.message
    assert result.changes == 3 and result.commit is None and result.consumed_to is None
    assert "Dream proposes 3 change(s) (memory/MEMORY.md, USER.md)" in result.message
    assert memory_text(workspace) == MEMORY
    assert (workspace / "USER.md").read_text(encoding="utf-8") == USER
    assert MemoryStore(workspace).dream_cursor == 0
    assert GitStore(workspace).log(limit=None) == commits
    proposal = ProposalStore(workspace).load()
    assert proposal is not None and proposal.first == 1 and proposal.last == 3
    assert proposal.analysis == ANALYSIS
    assert [f.path for f in proposal.files] == ["memory/MEMORY.md", "USER.md"]
    assert [len(h) for h in proposal.hunks.values()] == [2, 1]
    assert proposal.file("memory/MEMORY.md").before == MEMORY
    assert "~/code/atlas" in proposal.file("memory/MEMORY.md").after
    # nothing of the scratch copy is left in the workspace
    assert sorted(p.name for p in (workspace / "memory").iterdir() if p.name.startswith(".d")) == [
        ".dream_proposal.json",
        ".dream_proposal.json.lock",
    ]


async def test_the_proposal_survives_a_restart_and_blocks_further_runs(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    script_three_edits(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    ids = {
        path: [h.id for h in hunks]
        for path, hunks in present(ProposalStore(workspace).load()).hunks.items()
    }
    calls = len(scripted_server.chat_requests())
    MemoryStore(workspace).append_history("- 2026-05-03: Another thing happened.")

    for review in (True, False):  # a new Dream object is a restart; the mode does not matter
        result = await make_dream(scripted_server, workspace, review=review).run()
        assert result.status == "pending"
        assert "still waiting for your review" in result.message
    assert len(scripted_server.chat_requests()) == calls  # no model call at all
    again = ProposalStore(workspace).load()
    assert again is not None
    assert {path: [h.id for h in hunks] for path, hunks in again.hunks.items()} == ids


async def test_accept_a_subset_commits_only_those_hunks_and_moves_the_cursor(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    script_three_edits(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    proposal = ProposalStore(workspace).load()
    assert proposal is not None
    atlas, _github = proposal.hunks["memory/MEMORY.md"]
    (english,) = proposal.hunks["USER.md"]
    git = GitStore(workspace)
    before = len(git.log(limit=None))

    outcome = accept_proposal(
        workspace, git, {"memory/MEMORY.md": [atlas.id], "USER.md": [english.id]}
    )

    assert outcome.status == "accepted" and outcome.applied == 2
    assert outcome.rejected == ("memory/MEMORY.md: + - GitHub user: ada-lovelace",)
    assert memory_text(workspace) == MEMORY.replace("~/code/old", "~/code/atlas")
    assert "Prefers answers in English" in (workspace / "USER.md").read_text(encoding="utf-8")
    assert MemoryStore(workspace).dream_cursor == 3 and outcome.consumed_to == 3
    assert not (workspace / PROPOSAL_FILE).exists()
    log = git.log(limit=None)
    assert len(log) == before + 1
    head = log[0]
    assert head.sha == outcome.commit
    assert head.subject.startswith("dream: ") and head.subject.endswith(", 2 change(s)")
    assert ANALYSIS in head.body and "Reviewed: 2 of 3 proposed change(s) accepted." in head.body
    assert "Rejected:\n- memory/MEMORY.md: + - GitHub user: ada-lovelace" in head.body
    patch = "\n".join(d.patch for d in git.show(head.sha))
    assert "+- Project lives in ~/code/atlas" in patch
    assert "ada-lovelace" not in patch
    # decided once: the next Dream runs again (nothing new to read)
    assert (await make_dream(scripted_server, workspace, review=True).run()).status == "nothing"


async def test_accept_applies_to_the_current_file_and_reports_what_no_longer_fits(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    script_three_edits(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    # meanwhile the person (or nanobot) edits the GitHub line and adds a line at the end
    file = workspace / "memory" / "MEMORY.md"
    changed = MEMORY.replace("- GitHub user: ada\n", "- GitHub user: ada-l\n") + "- Uses vim\n"
    file.write_text(changed, encoding="utf-8")

    outcome = accept_proposal(workspace, GitStore(workspace))  # all hunks

    assert outcome.applied == 2
    assert outcome.not_applicable == ("memory/MEMORY.md: + - GitHub user: ada-lovelace",)
    assert "could not be applied because the file changed" in outcome.message
    assert memory_text(workspace) == changed.replace("~/code/old", "~/code/atlas")
    log = GitStore(workspace).log(limit=2)
    assert log[1].subject == "edit: memory/MEMORY.md"  # the outside edit has its own commit
    assert "Not applicable (the file changed since):" in log[0].body


async def test_reject_consumes_the_batch_and_changes_nothing(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    script_three_edits(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    commits = len(GitStore(workspace).log(limit=None))

    outcome = reject_proposal(workspace)

    assert outcome.status == "rejected" and outcome.consumed_to == 3
    assert "entries 1..3 count as read" in outcome.message
    assert memory_text(workspace) == MEMORY
    assert MemoryStore(workspace).dream_cursor == 3
    assert len(GitStore(workspace).log(limit=None)) == commits
    assert ProposalStore(workspace).load() is None
    assert reject_proposal(workspace).status == "none"
    assert accept_proposal(workspace, GitStore(workspace)).status == "none"


async def test_an_edited_file_is_accepted_as_edited(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    script_three_edits(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    proposal = ProposalStore(workspace).load()
    assert proposal is not None
    atlas_id = proposal.hunks["memory/MEMORY.md"][0].id
    mine = proposal.file("memory/MEMORY.md").after.replace("ada-lovelace", "ada-byron")

    edited = edit_proposal(workspace, "memory/MEMORY.md", mine)

    assert edited.file("memory/MEMORY.md").edited
    assert edited.hunks["memory/MEMORY.md"][0].id == atlas_id  # untouched hunk keeps its id
    assert ProposalStore(workspace).load() == edited  # saved
    accept_proposal(workspace, GitStore(workspace), None)
    assert memory_text(workspace) == mine


async def test_skill_files_are_part_of_the_proposal(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    skill = "---\nname: release\ndescription: Release the app.\n---\n\n1. Tag.\n"
    route(scripted_server, Reply("[SKILL] release: Release the app."))
    scripted_server.push(
        Reply(tool_calls=[call("write_file", path="skills/release/SKILL.md", content=skill)]),
        Reply("Created the skill."),
    )
    result = await make_dream(scripted_server, workspace, review=True).run()
    assert result.status == "proposed"
    assert not (workspace / "skills" / "release").exists()
    outcome = accept_proposal(workspace, GitStore(workspace))
    assert (workspace / "skills" / "release" / "SKILL.md").read_text(encoding="utf-8") == skill
    assert outcome.commit is None  # skills are not part of the git timeline
    assert MemoryStore(workspace).dream_cursor == 3


async def test_a_failed_phase_two_proposes_nothing_and_is_retried(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    route(scripted_server, Reply(ANALYSIS), Fail(400, "bad", error_type="invalid_request_error"))
    result = await make_dream(scripted_server, workspace, review=True).run()
    assert result.status == "failed" and "Nothing was proposed" in result.message
    assert not (workspace / PROPOSAL_FILE).exists()
    assert MemoryStore(workspace).dream_cursor == 0
    assert memory_text(workspace) == MEMORY


@pytest.mark.parametrize("damage", [b"{not json", b'{"files": 3}', b"\xff\xfe"])
async def test_a_damaged_proposal_is_kept_aside_and_dream_runs(
    scripted_server: ScriptedOpenAIServer, workspace: Path, damage: bytes
) -> None:
    path = workspace / PROPOSAL_FILE
    path.write_bytes(damage)
    route(scripted_server, Reply("[SKIP]"))
    result = await make_dream(scripted_server, workspace, review=True).run()
    assert result.status == "skipped"
    assert not path.exists()
    copies = list(path.parent.glob(".dream_proposal.json.corrupt-*"))
    assert [c.read_bytes() for c in copies] == [damage]


async def test_the_proposal_file_is_plain_json(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    script_three_edits(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    data = json.loads((workspace / PROPOSAL_FILE).read_text(encoding="utf-8"))
    assert data["version"] == 1 and data["first"] == 1 and data["last"] == 3
    assert {f["path"] for f in data["files"]} == {"memory/MEMORY.md", "USER.md"}
    # nanobot's memory repository leaves it out of the history
    assert ".dream_proposal.json" not in {
        d.path for c in GitStore(workspace).log(limit=None) for d in GitStore(workspace).show(c.sha)
    }


async def test_cli_shows_accepts_some_and_rejects(
    scripted_server: ScriptedOpenAIServer, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop.cli.memory import run_memory
    from tests.core.memory.test_git_store import _parse

    assert run_memory(_parse(workspace, "memory", "proposal")) == 0
    assert "No Dream proposal is waiting" in capsys.readouterr().out
    assert run_memory(_parse(workspace, "memory", "accept")) == 1
    capsys.readouterr()
    script_three_edits(scripted_server)
    await make_dream(scripted_server, workspace, review=True).run()
    proposal = ProposalStore(workspace).load()
    assert proposal is not None
    atlas, github = proposal.hunks["memory/MEMORY.md"]

    assert run_memory(_parse(workspace, "memory", "proposal")) == 0
    out = capsys.readouterr().out
    assert "Dream proposes 3 change(s) from history entries 1..3" in out
    assert f"change {github.id}" in out and "+- GitHub user: ada-lovelace" in out
    assert run_memory(_parse(workspace, "memory", "accept", "--change", "nope")) == 2
    assert "no change nope" in capsys.readouterr().err
    assert run_memory(_parse(workspace, "memory", "accept", "--change", atlas.id)) == 0
    assert "Accepted 1 of 3 proposed change(s) (memory/MEMORY.md), committed as" in (
        capsys.readouterr().out
    )
    assert memory_text(workspace) == MEMORY.replace("~/code/old", "~/code/atlas")
    assert (workspace / "USER.md").read_text(encoding="utf-8") == USER
    assert run_memory(_parse(workspace, "memory", "reject")) == 1  # nothing left to decide
