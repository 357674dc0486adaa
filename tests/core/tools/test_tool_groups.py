"""Deferred tool groups: the trivial turn's cost, ``load_tools``, and groups kept per session.

The scenarios use the real runtime (``build_runtime``) and LiteLLM on the scripted server, and
look at the tool definitions each request really carried.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.providers.base import LLMProvider, LLMResponse
from desktop.core.providers.tokens import count_messages, count_tools
from desktop.core.tools.groups import LOAD_TOOLS, groups_in_history
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

ALL_ON = {"my": {"enable": True}, "imageGeneration": {"enabled": True}}
BUDGET = 3200


class _NoModel(LLMProvider):
    @property
    def model(self) -> str:
        return "none"

    async def chat(self, *a: object, **k: object) -> LLMResponse:
        raise AssertionError("not called")

    async def chat_stream(self, *a: object, **k: object) -> LLMResponse:
        raise AssertionError("not called")


def _config(tmp_path: Path, **tools: Any) -> Config:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return Config.model_validate(
        {"agents": {"defaults": {"workspace": str(workspace)}}, "tools": tools}
    )


def _offered(server: ScriptedOpenAIServer, index: int) -> list[str]:
    body = server.chat_requests()[index].body
    return [t["function"]["name"] for t in body.get("tools") or []]


async def test_a_trivial_turn_with_every_tool_enabled_stays_under_budget(tmp_path: Path) -> None:
    """Every optional tool on: the request a new chat sends costs at most 3,200 tokens, and
    every tool of 0.3.5's set (but exec_session, run_cli_app) is there or one load away."""
    runtime = build_runtime(_config(tmp_path, **ALL_ON), _NoModel())
    try:
        loop = runtime.agent
        messages = loop.context.build_messages([], "hi", channel="desktop", chat_id="b")
        offered = loop.tools.definitions(set())
        total = count_messages(messages) + count_tools(offered)
        assert total <= BUDGET, total
        every = set(loop.tools.names())
        for name in (
            "apply_patch", "find_files", "list_sessions", "read_session", "search_sessions",
            "send_session_message", "create_goal", "update_goal", "my", "generate_image",
            "spawn", "read_file", "glob", LOAD_TOOLS,
        ):  # fmt: skip
            assert name in every, name
        names = {t["function"]["name"] for t in offered}
        assert "apply_patch" not in names and LOAD_TOOLS in names
        catalogue = next(t for t in offered if t["function"]["name"] == LOAD_TOOLS)
        text = json.dumps(catalogue)
        assert "apply_patch" in text and "send_session_message" in text
    finally:
        await runtime.stop()


async def test_load_tools_offers_a_group_from_the_next_request_and_keeps_it(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The model loads ``files``; the next request carries apply_patch, which then edits two
    files; the session's next turn offers the group at once (found in its history)."""
    config = _config(tmp_path)
    (config.workspace_path / "a.txt").write_text("alpha\n")
    edits = [
        {"path": "a.txt", "action": "replace", "old_text": "alpha", "new_text": "ALPHA"},
        {"path": "sub/b.txt", "action": "add", "new_text": "beta\n"},
    ]
    scripted_server.push(
        Reply(tool_calls=[(LOAD_TOOLS, json.dumps({"groups": ["files"]}))]),
        Reply(tool_calls=[("apply_patch", json.dumps({"edits": edits}))]),
        Reply("Patched."),
        Reply("Hello again."),
    )
    runtime = build_runtime(config, make_provider(scripted_server.url))
    try:
        assert await runtime.agent.process_direct("patch it", session_key="cli:g") == "Patched."
        assert await runtime.agent.process_direct("hi", session_key="cli:g") == "Hello again."
    finally:
        await runtime.stop()
    assert "apply_patch" not in _offered(scripted_server, 0)
    assert {"apply_patch", "find_files"} <= set(_offered(scripted_server, 1))
    assert "apply_patch" in _offered(scripted_server, 3), "kept for the session's next turn"
    assert (config.workspace_path / "a.txt").read_text() == "ALPHA\n"
    assert (config.workspace_path / "sub" / "b.txt").read_text() == "beta\n"
    results = [
        m["content"]
        for m in scripted_server.chat_requests()[2].body["messages"]
        if m["role"] == "tool"
    ]
    assert results[-1].startswith("Patch applied:"), results


async def test_a_deferred_tool_called_by_name_runs_and_loads_its_group(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A model that knows find_files (from 0.3.5) calls it unloaded: it runs, and its group is
    offered from the next request on."""
    config = _config(tmp_path)
    (config.workspace_path / "notes.md").write_text("x")
    scripted_server.push(
        Reply(tool_calls=[("find_files", json.dumps({"query": "notes"}))]), Reply("Found.")
    )
    runtime = build_runtime(config, make_provider(scripted_server.url))
    try:
        assert await runtime.agent.process_direct("find", session_key="cli:h") == "Found."
    finally:
        await runtime.stop()
    assert "find_files" not in _offered(scripted_server, 0)
    assert "find_files" in _offered(scripted_server, 1)
    tool = [m for m in scripted_server.chat_requests()[1].body["messages"] if m["role"] == "tool"]
    assert tool[-1]["content"] == "notes.md"


def test_groups_are_found_in_history_and_in_a_mention(tmp_path: Path) -> None:
    """Calls of load_tools (as saved: JSON text) and of a group's tool count; an @handle in
    the new message loads the sessions group; an e-mail address does not."""
    runtime = build_runtime(_config(tmp_path), _NoModel())
    tools = runtime.tools
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "1", "function": {"name": LOAD_TOOLS, "arguments": '{"groups":["goals"]}'}},
                {"id": "2", "function": {"name": "my", "arguments": "{}"}},
                {"id": "3", "function": {"name": LOAD_TOOLS, "arguments": '{"groups":["nope"]}'}},
            ],
        },
    ]
    assert groups_in_history(history, tools) == {"goals", "self"}
    assert groups_in_history([], tools, "ask @bodami about it") == {"sessions"}
    assert groups_in_history([], tools, "mail me@example.org") == set()
