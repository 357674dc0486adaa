"""Temporary chats (issue #25 §1): a conversation that leaves nothing behind — its session is
never written, nothing of it reaches ``memory/history.jsonl`` (so Dream never sees it), its
tools may not write the memory files, and it starts no automations (reminders, triggers,
goals). The same requests in a normal chat do all of these (the control).

The real runtime on the scripted model server, the real tools (the memory write goes through
``write_file``'s guard; the reminder through the ``cron`` tool and the real cron store).
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from desktop.core.bus.events import InboundMessage, RunEvent, TurnFinished
from desktop.core.session.temporary import is_temporary, new_temporary_key
from tests.core.agent.test_lifecycle import _record, _runtime
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until


def _finished_more_than(events: list[RunEvent], count: int) -> bool:
    return sum(isinstance(e, TurnFinished) for e in events) > count


NORMAL = "desktop:20261128-120000-abcdef"


def _message(key: str, text: str) -> InboundMessage:
    return InboundMessage("desktop", "user", key.partition(":")[2], text, session_key_override=key)


def _tool_results(server: ScriptedOpenAIServer) -> list[str]:
    return [
        str(m.get("content"))
        for r in server.chat_requests()
        for m in r.body["messages"]
        if m.get("role") == "tool"
    ]


async def test_a_temporary_chat_keeps_nothing_and_schedules_nothing(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    events = _record(runtime)
    workspace = runtime.config.workspace_path
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    memory = workspace / "memory" / "MEMORY.md"
    memory.write_text("# Memory\n", encoding="utf-8")
    key = new_temporary_key()
    assert is_temporary(key) and not is_temporary(NORMAL)
    remember = json.dumps({"path": "memory/MEMORY.md", "content": "# Memory\nsecret plans\n"})
    remind = json.dumps({"action": "add", "message": "call mum", "every_seconds": 3600})
    for _ in (key, NORMAL):
        scripted_server.push(
            Reply(tool_calls=[("write_file", remember), ("cron", remind)]), Reply("Noted.")
        )
    runtime.agent.start()
    try:
        for chat in (key, NORMAL):
            count = sum(isinstance(e, TurnFinished) for e in events)
            await runtime.bus.publish_inbound(_message(chat, "Remember my plans, remind me."))
            await until(partial(_finished_more_than, events, count), 60)
            if chat == key:
                temp_results = _tool_results(scripted_server)
                assert memory.read_text(encoding="utf-8") == "# Memory\n"
                assert runtime.cron.list_jobs() == []
                assert await runtime.agent.archive_session(key) == 0
                trigger = await runtime.agent.create_trigger(key, "evening")
                assert "temporary chat" in trigger
        held = runtime.agent.sessions.get_or_create(key)
        assert held.messages[0]["role"] == "user"  # it lives in memory meanwhile
    finally:
        await runtime.stop()
    write, reminder = temp_results
    assert "'memory/MEMORY.md' is protected" in write
    assert "temporary chat" in reminder and "cannot schedule" in reminder
    # The normal chat did what the temporary one could not.
    assert "secret plans" in memory.read_text(encoding="utf-8")
    assert len(runtime.cron.list_jobs()) == 1
    sessions = runtime.agent.sessions
    assert sessions.path_for(NORMAL).is_file()
    assert not sessions.path_for(key).exists()  # never written
    assert not [p for p in sessions.directory.iterdir() if "temp-" in p.name]
    history = workspace / "memory" / "history.jsonl"
    assert not history.exists() or "secret" not in history.read_text(encoding="utf-8")


async def test_deleting_a_temporary_chat_forgets_it(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = _runtime(scripted_server, tmp_path)
    key = new_temporary_key()
    session = runtime.agent.sessions.get_or_create(key)
    session.add_message("user", "hello")
    runtime.agent.sessions.save(session)
    assert runtime.agent.sessions.cached(key) is not None
    assert runtime.agent.sessions.delete(key) is True
    assert runtime.agent.sessions.cached(key) is None
    assert runtime.agent.sessions.get_or_create(key).messages == []
    assert not runtime.agent.sessions.path_for(key).exists()
    await runtime.stop()
