"""``prompts/dream.md``: the workspace's own Dream instructions (nanobot 0.3.5's convention),
read by both Dream phases, shown and created by ``/dream-prompt``; ``prompts/README.md`` comes
with the workspace templates."""

from __future__ import annotations

from pathlib import Path

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.memory.prompt_overrides import (
    MAX_CHARS,
    default_dream_instructions,
    init_override,
    load_override,
    override_path,
)
from desktop.core.memory.templates import sync_workspace_templates
from tests.core.agent.conftest import make_provider
from tests.core.memory.dreaming import ANALYSIS, is_phase1, make_dream, route
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def test_what_counts_as_an_override(tmp_path: Path) -> None:
    path = override_path(tmp_path, "dream")
    assert load_override(tmp_path, "dream") is None  # none
    path.parent.mkdir()
    path.write_text("  \n\n", encoding="utf-8")
    assert load_override(tmp_path, "dream") is None  # empty: the defaults
    path.write_bytes(b"\xff\xfe not utf-8")
    assert load_override(tmp_path, "dream") is None  # unreadable: the defaults, no crash
    path.write_text("\n- Keep recipes in MEMORY.md under ## Kitchen.\n", encoding="utf-8")
    assert load_override(tmp_path, "dream") == "- Keep recipes in MEMORY.md under ## Kitchen."
    path.write_text("x" * (MAX_CHARS + 500), encoding="utf-8")
    long = load_override(tmp_path, "dream")
    assert long is not None and long.startswith("x" * MAX_CHARS) and len(long) < MAX_CHARS + 100
    path.unlink()
    path.mkdir()  # a folder at the name
    assert load_override(tmp_path, "dream") is None


def test_init_never_overwrites_instructions(tmp_path: Path) -> None:
    path = override_path(tmp_path, "dream")
    assert init_override(tmp_path, "dream", "defaults")
    assert path.read_text(encoding="utf-8") == "defaults\n"
    path.write_text("mine", encoding="utf-8")
    assert not init_override(tmp_path, "dream", "defaults")
    assert path.read_text(encoding="utf-8") == "mine"
    path.write_text("", encoding="utf-8")  # emptied: back to the defaults, init may write again
    assert init_override(tmp_path, "dream", "defaults")


async def test_both_dream_phases_follow_the_workspace_instructions(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    override_path(workspace, "dream").parent.mkdir()
    override_path(workspace, "dream").write_text(
        "- Keep recipes under ## Kitchen (marker 4417).", encoding="utf-8"
    )
    route(scripted_server, Reply(ANALYSIS))
    scripted_server.push(Reply("Nothing to change."))
    await make_dream(scripted_server, workspace).run()
    systems = {
        "phase 1" if is_phase1(r.body) else "phase 2": r.body["messages"][0]["content"]
        for r in scripted_server.chat_requests()
    }
    assert set(systems) == {"phase 1", "phase 2"}
    for phase, text in systems.items():
        assert "prompts/dream.md" in text and "marker 4417" in text, phase


async def test_without_instructions_the_prompts_are_unchanged(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    route(scripted_server, Reply("[SKIP]"))
    await make_dream(scripted_server, workspace).run()
    (request,) = scripted_server.chat_requests()
    assert "prompts/dream.md" not in request.body["messages"][0]["content"]


async def test_the_dream_prompt_command(
    scripted_server: ScriptedOpenAIServer, workspace: Path
) -> None:
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    loop = build_runtime(config, make_provider(scripted_server.url)).agent
    assert "default instructions" in await loop.process_direct("/dream-prompt")
    made = await loop.process_direct("/dream-prompt init")
    assert made.startswith("Created prompts/dream.md")
    path = override_path(workspace, "dream")
    assert path.read_text(encoding="utf-8").strip() == default_dream_instructions().strip()
    path.write_text("- Only facts about birds.", encoding="utf-8")
    again = await loop.process_direct("/dream-prompt init")
    assert "already has instructions" in again
    assert path.read_text(encoding="utf-8") == "- Only facts about birds."
    shown = await loop.process_direct("/dream-prompt")
    assert "own instructions" in shown and "- Only facts about birds." in shown
    assert (await loop.process_direct("/dream-prompt nonsense")) == "Usage: /dream-prompt [init]"
    assert "/dream-prompt" in await loop.process_direct("/help")
    assert scripted_server.chat_requests() == []  # commands, no model call


def test_the_templates_bring_the_prompts_readme(tmp_path: Path) -> None:
    created = sync_workspace_templates(tmp_path / "ws")
    readme = tmp_path / "ws" / "prompts" / "README.md"
    assert "prompts/README.md" in created and "/dream-prompt init" in readme.read_text()
    readme.write_text("my notes", encoding="utf-8")
    assert "prompts/README.md" not in sync_workspace_templates(tmp_path / "ws")
    assert readme.read_text() == "my notes"
