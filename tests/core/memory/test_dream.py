"""Dream: two-phase distillation through the real LiteLLM path on the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.memory.git_store import GitStore
from desktop.core.memory.store import MemoryStore
from tests.core.agent.conftest import make_provider
from tests.core.memory.dreaming import (
    ANALYSIS,
    MEMORY,
    SUBJECT,
    USER,
    call,
    edit,
    make_dream,
    phase2_requests,
    route,
)
from tests.fakes.openai_server import Fail, Reply, ScriptedOpenAIServer


async def test_surgical_edits_one_commit_and_cursor(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    git = GitStore(workspace)
    before = git.log(limit=None)
    route(scripted_server, Reply(ANALYSIS))
    scripted_server.push(
        Reply(
            tool_calls=[
                edit(
                    "memory/MEMORY.md",
                    "- Project lives in ~/code/old",
                    "- Project lives in ~/code/atlas",
                )
            ]
        ),
        Reply(
            tool_calls=[
                edit(
                    "USER.md",
                    "- Lives in Berlin\n",
                    "- Lives in Berlin\n- Prefers answers in English\n",
                )
            ]
        ),
        Reply("Updated MEMORY.md and USER.md."),
    )
    result = await make_dream(scripted_server, workspace).run()

    assert result.status == "changed", result.message
    assert result.changes == 2
    assert result.analysis == ANALYSIS
    assert result.consumed_to == 3 and MemoryStore(workspace).dream_cursor == 3
    memory = (workspace / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    assert memory == MEMORY.replace("~/code/old", "~/code/atlas")
    user = (workspace / "USER.md").read_text(encoding="utf-8")
    assert user == USER + "- Prefers answers in English\n"
    after = git.log(limit=None)
    assert len(after) == len(before) + 1
    newest = after[0]
    assert SUBJECT.match(newest.subject), newest.subject
    assert ANALYSIS in newest.body
    assert newest.sha == result.commit
    # phase 1 had no tools and saw the batch and the files; phase 2 had exactly our three tools
    first = scripted_server.chat_requests()[0].body
    assert "tools" not in first
    assert (
        "~/code/atlas" in first["messages"][1]["content"]
        and "USER.md" in first["messages"][1]["content"]
    )
    names = sorted(t["function"]["name"] for t in phase2_requests(scripted_server)[0]["tools"])
    assert names == ["edit_file", "read_file", "write_file"]
    assert not git.log(limit=1)[0].subject.startswith("edit:")


async def test_outside_edit_is_not_attributed_to_dream(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    (workspace / "SOUL.md").write_text(
        "# Soul\n\n- Be brief.\n- Use metric units.\n", encoding="utf-8"
    )
    route(scripted_server, Reply(ANALYSIS))
    scripted_server.push(
        Reply(
            tool_calls=[
                edit("memory/MEMORY.md", "- Tests run with tox", "- Tests run with pytest -q")
            ]
        ),
        Reply("done"),
    )
    result = await make_dream(scripted_server, workspace).run()
    log = GitStore(workspace).log(limit=3)
    assert (
        log[0].subject.endswith("1 change(s)") and log[0].files_changed == 2
    )  # MEMORY.md + cursor
    assert log[1].subject == "edit: SOUL.md"
    assert result.changes == 1


async def test_looping_model_is_stopped_by_max_iterations(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    route(scripted_server, Reply(ANALYSIS), Reply(tool_calls=[call("read_file", path="USER.md")]))
    commits = len(GitStore(workspace).log(limit=None))
    result = await make_dream(scripted_server, workspace, max_iterations=3).run()
    assert result.stop_reason == "max_iterations"
    assert result.status == "unchanged"
    assert "iteration limit (3)" in result.message
    assert len(phase2_requests(scripted_server)) == 3
    assert MemoryStore(workspace).dream_cursor == 3
    assert len(GitStore(workspace).log(limit=None)) == commits


async def test_token_hungry_model_is_stopped_by_budget(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    hungry = Reply(
        tool_calls=[edit("memory/MEMORY.md", "- Tests run with tox", "- Tests run with nox")],
        usage=(50_000, 20_000),
    )
    route(scripted_server, Reply(ANALYSIS), hungry)
    result = await make_dream(
        scripted_server, workspace, max_iterations=10, token_budget=60_000
    ).run()
    assert result.status == "budget"
    assert "token budget (60000)" in result.message and "stopped" in result.message
    assert len(phase2_requests(scripted_server)) == 1
    # the edit made before the stop is kept, committed, and the batch is consumed
    assert "- Tests run with nox" in (workspace / "memory" / "MEMORY.md").read_text(
        encoding="utf-8"
    )
    assert result.commit is not None and MemoryStore(workspace).dream_cursor == 3


async def test_write_file_only_under_skills(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    skill = "---\nname: new-skill\ndescription: Release the app.\n---\n\n1. Tag.\n2. Push.\n"
    route(scripted_server, Reply("[SKILL] new-skill: Release the app."))
    scripted_server.push(
        Reply(tool_calls=[call("write_file", path="notes.txt", content="x")]),
        Reply(tool_calls=[call("write_file", path="memory/MEMORY.md", content="wiped")]),
        Reply(tool_calls=[call("write_file", path="skills/new-skill/SKILL.md", content=skill)]),
        Reply("Created the new-skill skill."),
    )
    result = await make_dream(scripted_server, workspace).run()
    assert not (workspace / "notes.txt").exists()
    assert (workspace / "memory" / "MEMORY.md").read_text(encoding="utf-8") == MEMORY
    assert (workspace / "skills" / "new-skill" / "SKILL.md").read_text(encoding="utf-8") == skill
    tool_results = [
        m for m in phase2_requests(scripted_server)[-1]["messages"] if m["role"] == "tool"
    ]
    assert "only create files under skills/" in tool_results[0]["content"]
    assert "only create files under skills/" in tool_results[1]["content"]
    assert result.status == "changed" and result.changes == 1
    assert result.commit is None  # skills are not part of the git timeline


async def test_whole_file_rewrite_with_edit_file_is_refused(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    route(scripted_server, Reply(ANALYSIS))
    scripted_server.push(
        Reply(tool_calls=[edit("memory/MEMORY.md", MEMORY, "# Memory\n\n- all new\n")]), Reply("ok")
    )
    result = await make_dream(scripted_server, workspace).run()
    assert (workspace / "memory" / "MEMORY.md").read_text(encoding="utf-8") == MEMORY
    assert result.status == "unchanged"
    tool = next(m for m in phase2_requests(scripted_server)[-1]["messages"] if m["role"] == "tool")
    assert "rewrite all of" in tool["content"]


async def test_skip_advances_cursor_without_commit(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    commits = len(GitStore(workspace).log(limit=None))
    route(scripted_server, Reply("[SKIP]"))
    result = await make_dream(scripted_server, workspace).run()
    assert result.status == "skipped" and result.consumed_to == 3
    assert MemoryStore(workspace).dream_cursor == 3
    assert len(GitStore(workspace).log(limit=None)) == commits
    assert phase2_requests(scripted_server) == []


async def test_nothing_after_cursor_makes_no_model_call(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    MemoryStore(workspace).dream_cursor = 3
    result = await make_dream(scripted_server, workspace).run()
    assert result.status == "nothing"
    assert scripted_server.chat_requests() == []


async def test_batch_size_limits_the_batch(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    route(scripted_server, Reply("[SKIP]"))
    result = await make_dream(scripted_server, workspace, max_batch_size=2).run()
    assert result.consumed_to == 2
    text = scripted_server.chat_requests()[0].body["messages"][1]["content"]
    assert "moved the project" in text and "weather" not in text


async def test_phase1_failures_skip_the_batch_after_three(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    route(scripted_server, Fail(400, "bad request", error_type="invalid_request_error"))
    dream = make_dream(scripted_server, workspace)
    for attempt in (1, 2):
        result = await dream.run()
        assert result.status == "failed"
        assert f"attempt {attempt} of 3" in result.message
        assert MemoryStore(workspace).dream_cursor == 0
        state = json.loads((workspace / "memory" / ".dream_state").read_text(encoding="utf-8"))
        assert state == {"failures": {"1": attempt}}
    result = await dream.run()
    assert result.status == "skipped" and result.consumed_to == 3
    store = MemoryStore(workspace)
    assert store.dream_cursor == 3
    entries = store.entries()
    assert [e.cursor for e in entries] == [1, 2, 3, 4]  # the raw entries stay
    assert entries[-1].content == "[DREAM-SKIPPED] cursors 1..3 after 3 failed attempts"
    assert json.loads((workspace / "memory" / ".dream_state").read_text(encoding="utf-8")) == {
        "failures": {}
    }


async def test_commands_through_the_loop(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    loop = build_runtime(config, make_provider(scripted_server.url)).agent
    assert loop.context.workspace == workspace
    assert (await loop.process_direct("/dream-restore")) == "No Dream commits yet."

    route(scripted_server, Reply(ANALYSIS))
    scripted_server.push(
        Reply(
            tool_calls=[
                edit(
                    "memory/MEMORY.md",
                    "- Project lives in ~/code/old",
                    "- Project lives in ~/code/atlas",
                )
            ]
        ),
        Reply("done"),
    )
    reply = await loop.process_direct("/dream")
    assert "1 change(s)" in reply and "committed as" in reply
    sha = GitStore(workspace).log("dream:", 1)[0].short_sha

    shown = await loop.process_direct("/dream-log")
    assert (
        sha in shown
        and "+- Project lives in ~/code/atlas" in shown
        and "-- Project lives in ~/code/old" in shown
    )
    assert sha in await loop.process_direct(f"/dream-log {sha}")
    listing = await loop.process_direct("/dream-restore")
    assert sha in listing and "dream:" in listing

    # a later human edit of another line must survive the revert
    memory_file = workspace / "memory" / "MEMORY.md"
    memory_file.write_text(
        memory_file.read_text(encoding="utf-8").replace("GitHub user: ada", "GitHub user: ada-l"),
        encoding="utf-8",
    )
    reply = await loop.process_direct(f"/dream-restore {sha}")
    assert reply.startswith(f"Undid {sha}"), reply
    assert memory_file.read_text(encoding="utf-8") == MEMORY.replace(
        "GitHub user: ada", "GitHub user: ada-l"
    )
    assert MemoryStore(workspace).dream_cursor == 3  # bookkeeping is not rolled back
    assert "no commit" in (await loop.process_direct("/dream-log zzzz")).lower()
    assert "Unknown command /nope" in await loop.process_direct("/nope")
