"""Crash harness: kill -9 the agent at every event of a scripted tool loop, then recover.

Three sets of crash points: the loop's events (hooks, around every save, inside tools); every
single write of the saves that append (between the new lines and the metadata line); and a
write of new lines cut in half (a kill in the middle of a large ``write``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop.core.agent.context import ContextBuilder
from desktop.core.bus.queue import MessageBus
from desktop.core.config.schema import Config
from desktop.core.session.manager import SessionManager
from desktop.core.tools.registry import ToolRegistry
from tests import zygote
from tests.conftest import REPO
from tests.core.agent.conftest import make_provider, new_loop
from tests.core.agent.crash_child import Step
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

SCRIPT = [
    Reply("Let me start.", tool_calls=[("step", '{"n": 1}'), ("step", '{"n": 2}')]),
    Reply(tool_calls=[("step", '{"n": 3}')]),
    Reply(tool_calls=[("step", '{"n": 4}'), ("step", '{"n": 5}'), ("step", '{"n": 6}')]),
    Reply("All steps are done."),
]


def _run_child(
    server: ScriptedOpenAIServer, workspace: Path, crash_at: int, mode: str = "events"
) -> subprocess.CompletedProcess[str]:
    """Run the scripted turn in a separate process that SIGKILLs itself at event ``crash_at``.

    The process is forked from a server that imported LiteLLM and the agent once
    (``tests.zygote``), not started from nothing: the kill is just as real.
    """
    server.script.clear()
    server.push(*SCRIPT)
    return zygote.run(
        "tests.core.agent.crash_child:run",
        [server.url, str(workspace), str(crash_at), mode],
        timeout=120,
        cwd=REPO,
    )


def check_invariants(messages: list[dict[str, Any]]) -> None:
    """The session invariants that must hold after any crash and repair."""
    users = [m for m in messages if m.get("role") == "user"]
    assert [m["content"] for m in users].count("do the task") == 1
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and message.get("tool_calls"):
            ids = sorted(c["id"] for c in message["tool_calls"])
            results = []
            for later in messages[i + 1 :]:
                if later.get("role") != "tool":
                    break
                results.append(later["tool_call_id"])
            assert sorted(results) == ids, f"calls {ids} got results {results}"
    orphan = [m for m in messages if m.get("role") == "tool"]
    assert len(orphan) == sum(len(m.get("tool_calls") or []) for m in messages)
    assert messages[-1]["role"] == "assistant" and not messages[-1].get("tool_calls")


def _count_events(factory: pytest.TempPathFactory, mode: str) -> int:
    with ScriptedOpenAIServer() as server:
        result = _run_child(server, factory.mktemp(f"count-{mode}"), -1, mode)
    assert result.returncode == 0, result.stderr
    assert "ANSWER:All steps are done." in result.stdout
    return int(result.stdout.split("EVENTS:")[1].split()[0])


@pytest.fixture(scope="module")
def total_events(tmp_path_factory: pytest.TempPathFactory) -> int:
    """Run once without crashing to count the events of the scripted loop."""
    return _count_events(tmp_path_factory, "events")


@pytest.fixture(scope="module")
def total_writes(tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many writes the appending saves of the scripted loop make."""
    return _count_events(tmp_path_factory, "writes")


@pytest.fixture(scope="module")
def total_appends(tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many writes of new lines the scripted loop makes."""
    return _count_events(tmp_path_factory, "torn")


def test_enough_crash_points(total_events: int, total_writes: int, total_appends: int) -> None:
    """The scripted loop offers more than 20 distinct crash points, and its saves after the
    first one append (two writes: new lines, then the metadata line)."""
    assert total_events >= 20
    assert total_appends >= 6 and total_writes >= total_appends + 4


async def _recover(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path, *, torn: bool = False
) -> None:
    """After a kill: the file is (or, when torn, becomes on opening) valid JSONL with the user
    message once; the session repairs consistently; a fresh loop continues it."""
    path = SessionManager(tmp_path).path_for("cli:direct")
    assert path.exists(), "the user message is saved before the first model call"
    quarantine = path.with_name(path.name + ".quarantine")
    if torn:
        last = path.read_bytes().rsplit(b"\n", 1)[-1]
        assert last, "the kill left a partial line"
    else:
        lines = path.read_text().splitlines()
        assert all(json.loads(line) for line in lines)  # never a torn file
        assert not list(path.parent.glob(f"{path.name}.corrupt-*"))
    session = SessionManager(tmp_path).get_or_create("cli:direct")
    assert all(json.loads(line) for line in path.read_text().splitlines())
    if torn:
        assert quarantine.read_bytes() == last + b"\n"  # the fragment, kept
    else:
        assert not quarantine.exists()
    assert [m["content"] for m in session.messages if m["role"] == "user"] == ["do the task"]
    session.repair()
    check_invariants(session.messages)
    assert not session.has_pending_turn
    # Restart: the killed process is gone; a fresh loop (this process) continues the
    # conversation from what is on disk.
    scripted_server.script.clear()
    scripted_server.push(Reply("Back again."))
    tools = ToolRegistry()
    tools.register(Step())
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(tmp_path)}}})
    loop = new_loop(
        config,
        make_provider(scripted_server.url),
        MessageBus(),
        SessionManager(tmp_path),
        tools,
        ContextBuilder(tmp_path),
    )
    assert await loop.process_direct("next") == "Back again."
    final = SessionManager(tmp_path).get_or_create("cli:direct")
    check_invariants(final.messages)
    sent = scripted_server.chat_requests()[-1].body["messages"]
    ids = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert sorted(ids) == sorted(answered)


@pytest.mark.parametrize("crash_at", range(1, 51))
async def test_crash_and_recover(
    crash_at: int, total_events: int, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Kill at event N; restart; the session is consistent and the next turn works."""
    if crash_at > total_events:
        pytest.skip(f"the loop has {total_events} events")
    result = _run_child(scripted_server, tmp_path, crash_at)
    assert result.returncode == -9, result.stdout + result.stderr
    if crash_at == 1:
        # Event 1 is the very first save (the user message) starting: nothing is on disk yet,
        # and nothing was acknowledged to the user. Every later point must find the message.
        assert not SessionManager(tmp_path).path_for("cli:direct").exists()
        return
    await _recover(scripted_server, tmp_path)


@pytest.mark.parametrize("crash_at", range(1, 21))
async def test_crash_between_writes_and_recover(
    crash_at: int, total_writes: int, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Kill right after write N of an appending save (new lines on disk, the metadata line
    not yet, or the other way round): valid JSONL, and recovery as above."""
    if crash_at > total_writes:
        pytest.skip(f"the loop makes {total_writes} writes")
    result = _run_child(scripted_server, tmp_path, crash_at, "writes")
    assert result.returncode == -9, result.stdout + result.stderr
    await _recover(scripted_server, tmp_path)


@pytest.mark.parametrize("crash_at", range(1, 11))
async def test_torn_append_and_recover(
    crash_at: int, total_appends: int, scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Kill in the middle of writing new lines: the partial line is set aside when the file
    is next opened (kept in the quarantine file), and recovery works as above."""
    if crash_at > total_appends:
        pytest.skip(f"the loop appends {total_appends} times")
    result = _run_child(scripted_server, tmp_path, crash_at, "torn")
    assert result.returncode == -9, result.stdout + result.stderr
    await _recover(scripted_server, tmp_path, torn=True)
