"""Smaller agent parts: hooks, context budget, context builder, events, concurrency."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from pathlib import Path

import pytest

from desktop.core.agent.context import RUNTIME_CLOSE, RUNTIME_OPEN, SEPARATOR, ContextBuilder
from desktop.core.bus.events import RunEvent, TextDelta, ToolCallFinished, TurnFinished, UsageReport
from desktop.core.engine.hooks import AgentHook, CompositeHook, HookContext, RunAborted
from desktop.core.engine.runner import drop_oldest_turns
from desktop.core.providers.tokens import count_messages
from tests.core.agent.conftest import MakeLoop, Timeline
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


class Boom(AgentHook):
    async def before_iteration(self, ctx: HookContext) -> None:
        raise RuntimeError("hook bug")

    def finalize_content(self, ctx: HookContext, content: str) -> str:
        raise RuntimeError("hook bug")


class Upper(AgentHook):
    def __init__(self) -> None:
        self.calls = 0

    async def before_iteration(self, ctx: HookContext) -> None:
        self.calls += 1

    def finalize_content(self, ctx: HookContext, content: str) -> str:
        return content.upper()


async def test_failing_hook_does_not_stop_others_or_the_run(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A hook that raises is logged; later hooks and the run carry on."""
    upper = Upper()
    with caplog.at_level(logging.ERROR):
        answer = await make_loop().process_direct("hi", hook=CompositeHook([Boom(), upper]))
    assert answer == "HELLO FROM THE SCRIPTED SERVER."
    assert upper.calls == 1
    assert "hook Boom.before_iteration failed" in caplog.text


class Abort(AgentHook):
    async def on_checkpoint(self, ctx: HookContext) -> None:
        raise RunAborted("The chat could not be saved.", "OSError: disk full")


class Seen(AgentHook):
    def __init__(self) -> None:
        self.checkpoints = 0

    async def on_checkpoint(self, ctx: HookContext) -> None:
        self.checkpoints += 1


async def test_run_aborted_passes_through_the_composite_hook() -> None:
    """A hook's RunAborted is not swallowed like other failures: it reaches the runner and
    the hooks after it do not run."""
    seen = Seen()
    with pytest.raises(RunAborted) as raised:
        await CompositeHook([Abort(), seen]).on_checkpoint(HookContext("k"))
    assert raised.value.message == "The chat could not be saved."
    assert raised.value.details == "OSError: disk full"
    assert seen.checkpoints == 0


async def test_drop_oldest_turns_keeps_system_and_current() -> None:
    """Over budget: whole old turns leave the request; system and the newest turn stay."""
    messages = [{"role": "system", "content": "sys"}]
    for i in range(30):
        messages += [
            {"role": "user", "content": f"question {i} " + "words " * 200},
            {"role": "assistant", "content": f"answer {i} " + "words " * 200},
        ]
    messages.append({"role": "user", "content": "current question"})
    fitted = await drop_oldest_turns(messages, 3000)
    assert fitted[0] == messages[0] and fitted[-1] == messages[-1]
    assert count_messages(fitted) <= 3000
    assert fitted[1]["role"] == "user"  # starts at a turn boundary
    assert len(fitted) < len(messages)
    assert await drop_oldest_turns(messages, 10**6) == messages


async def test_budget_trims_the_request_not_the_session(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """A tiny context window makes the runner send fewer turns; the session keeps them all."""
    loop = make_loop(contextWindowTokens=2048, maxTokens=256)
    for i in range(6):
        await loop.process_direct(f"message {i} " + "padding " * 150)
    sent = scripted_server.chat_requests()[-1].body["messages"]
    assert len(sent) < 2 * 6 + 1
    assert len(loop.sessions.get_or_create("cli:direct").messages) == 12


def test_system_prompt_parts(tmp_path: Path) -> None:
    """Identity, bootstrap files, memory and recent history, joined by separators."""
    (tmp_path / "SOUL.md").write_text("I am calm.")
    (tmp_path / "USER.md").write_text("The user likes tea.")
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text("- The user's cat is Miso.")
    (memory / ".dream_cursor").write_text("1")
    (memory / "history.jsonl").write_text(
        '{"cursor": 1, "timestamp": "2026-11-01 10:00", "content": "consumed"}\n'
        "not json\n"
        '{"cursor": 2, "timestamp": "2026-11-02 11:00", "content": "talked about trains"}\n'
    )
    prompt = ContextBuilder(tmp_path).system_prompt("desktop")
    parts = prompt.split(SEPARATOR)
    assert parts[0].startswith("# nanobot")
    assert "## SOUL.md\n\nI am calm." in parts[1] and "## USER.md" in parts[1]
    assert parts[2] == "# Memory\n\n- The user's cat is Miso."
    assert parts[3] == "# Recent History\n\n- [2026-11-02 11:00] talked about trains"
    assert "consumed" not in prompt


def test_runtime_block_and_images(tmp_path: Path) -> None:
    """The current message starts with the runtime block; images become base64 parts."""
    png = tmp_path / "dot.png"
    png.write_bytes(
        base64.b64decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
        )
    )
    builder = ContextBuilder(tmp_path, timezone="Europe/Berlin")
    content = builder.user_content(
        "look", channel="desktop", chat_id="c1", media=[str(png), str(tmp_path / "nope.png")]
    )
    assert isinstance(content, list) and len(content) == 2
    text = content[0]["text"]
    assert text.startswith(RUNTIME_OPEN) and RUNTIME_CLOSE in text and text.endswith("look")
    assert "Channel: desktop" in text and "Chat ID: c1" in text and "Europe/Berlin" in text
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


async def test_run_events_are_typed(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer
) -> None:
    """A turn with a tool emits text deltas, tool events, usage and turn-finished."""
    scripted_server.push(
        Reply(tool_calls=[("slow_read", '{"n": 1}')]), Reply("The answer is here.")
    )
    loop = make_loop()
    events: list[RunEvent] = []
    loop.bus.subscribe(events.append)
    await loop.process_direct("go")
    kinds = [e.kind for e in events]
    assert {"tool_started", "tool_finished", "usage", "text_delta", "turn_finished"} <= set(kinds)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "The answer is here."
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert finished.ok and finished.result_preview == "read 1" and finished.duration_s > 0
    assert isinstance(events[-1], TurnFinished)
    assert any(isinstance(e, UsageReport) and e.prompt_tokens == 10 for e in events)


async def test_sessions_run_concurrently_but_one_turn_per_session(
    make_loop: MakeLoop, scripted_server: ScriptedOpenAIServer, timeline: Timeline
) -> None:
    """Two sessions overlap; two messages of one session run one after the other."""
    scripted_server.default = Reply(tool_calls=[("slow_read", '{"n": 1}')])
    scripted_server.route = None
    loop = make_loop(maxToolIterations=1)
    started = asyncio.get_running_loop().time()
    await asyncio.gather(
        loop.process_direct("a", session_key="s:1"), loop.process_direct("b", session_key="s:2")
    )
    parallel = asyncio.get_running_loop().time() - started
    spans = sorted(timeline.spans, key=lambda s: s[1])
    assert spans[1][1] < spans[0][2], "different sessions overlap"
    timeline.spans.clear()
    await asyncio.gather(
        loop.process_direct("c", session_key="s:1"), loop.process_direct("d", session_key="s:1")
    )
    spans = sorted(timeline.spans, key=lambda s: s[1])
    assert spans[1][1] >= spans[0][2], "one turn at a time per session"
    assert parallel > 0


def test_recent_history_is_capped(tmp_path: Path) -> None:
    """Long archives are shortened in the prompt and the section has a size cap."""
    memory = tmp_path / "memory"
    memory.mkdir()
    lines = [
        json.dumps(
            {
                "cursor": i,
                "timestamp": "2026-11-02 11:00",
                "content": f"[RAW] entry {i} " + "word " * 2000,
            }
        )
        for i in range(1, 41)
    ]
    (memory / "history.jsonl").write_text("\n".join(lines) + "\n")
    section = ContextBuilder(tmp_path).recent_history()
    assert len(section) <= 6_100
    assert "entry 40 " in section and "entry 1 " not in section  # newest kept
    assert "grep history.jsonl" in section
