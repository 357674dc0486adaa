"""``/compact`` and ``unifiedSession`` against the real ``nanobot`` 0.3.5 CLI.

A chat compacted by one program continues in the other from the summary: the old turns stay
in the file but neither program sends them again, and both show the summary. A unified
session written by us is the one nanobot 0.3.5 opens under ``unified:default``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from desktop.core.assembly import build_runtime
from desktop.core.bus.events import InboundMessage
from desktop.core.config.loader import load_config
from desktop.core.session.compaction import CONTINUATION_TEXT, HIDDEN_KEY, SUMMARY_KEY
from desktop.core.session.manager import SessionManager
from desktop.core.session.unified import UNIFIED_SESSION_KEY
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply
from tests.interop.conftest import Shared, texts

KEY = "cli:porto"


def _ours(shared: Shared) -> SessionManager:
    return SessionManager(shared.workspace, config_dir=shared.home / ".nanobot")


def _say(shared: Shared, program: str, text: str, *answers: str) -> str:
    shared.server.push(*(Reply(a) for a in answers))
    flag = "--session" if program == "nanobot-desktop" else "-s"
    return shared.ok(program, "agent", flag, KEY, "-m", text)


def _file(shared: Shared, key: str) -> list[dict[str, Any]]:
    path = _ours(shared).path_for(key)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_nanobot_continues_a_chat_we_compacted_from_the_summary(shared: Shared) -> None:
    _say(shared, "nanobot-desktop", "Plan a day in Porto.", "Visit Ribeira.")
    _say(shared, "nanobot-desktop", "And dinner?", "Try francesinha.")
    out = _say(shared, "nanobot-desktop", "/compact", "- PORTO-SUMMARY: Ribeira, francesinha.")
    assert "Context compacted." in out

    _say(shared, "nanobot", "What about Sunday?", "Go to the beach.")
    sent = shared.last_messages()
    assert "PORTO-SUMMARY" in sent[0]["content"]  # nanobot shows our summary
    assert "Plan a day in Porto." not in json.dumps(sent)  # and not the compacted turns
    # nanobot replays from the checkpoint (joined with the new message: it merges the two)
    assert texts(sent, "user")[0].startswith(CONTINUATION_TEXT)
    # nanobot appended its turn after our checkpoint and kept it
    header, *messages = _file(shared, KEY)
    assert [m["content"] for m in messages][-3:] == [
        CONTINUATION_TEXT,
        "What about Sunday?",
        "Go to the beach.",
    ]
    assert header["last_consolidated"] == 4
    assert "PORTO-SUMMARY" in header["metadata"][SUMMARY_KEY]["text"]


def test_we_continue_a_chat_nanobot_compacted_from_the_summary(shared: Shared) -> None:
    _say(shared, "nanobot", "Plan a day in Lisbon.", "Visit Alfama.")
    _say(shared, "nanobot", "And dinner?", "Try bacalhau.")
    _say(shared, "nanobot", "/compact", "- LISBON-SUMMARY: Alfama, bacalhau.")
    header, *messages = _file(shared, KEY)
    assert "LISBON-SUMMARY" in header["metadata"][SUMMARY_KEY]["text"]
    checkpoint = messages[header["last_consolidated"]]
    assert checkpoint["content"] == CONTINUATION_TEXT and checkpoint[HIDDEN_KEY] is True

    _say(shared, "nanobot-desktop", "What about Sunday?", "Take the tram.")
    sent = shared.last_messages()
    assert "LISBON-SUMMARY" in sent[0]["content"]
    assert "Plan a day in Lisbon." not in json.dumps(sent)
    assert texts(sent, "user")[0] == CONTINUATION_TEXT
    # a second /compact here takes in nanobot's summary and only the new turn
    _say(shared, "nanobot-desktop", "/compact", "- SUNDAY-SUMMARY")
    transcript = shared.last_messages()[-1]["content"]
    assert "LISBON-SUMMARY" in transcript and "What about Sunday?" in transcript
    assert "Plan a day in Lisbon." not in transcript


async def test_nanobot_opens_our_unified_session(shared: Shared) -> None:
    """Messages from two chat networks land in the file nanobot 0.3.5 reads as
    ``unified:default``, with ``last_channel`` as it keeps it."""
    data = json.loads(shared.config.read_text(encoding="utf-8"))
    data["agents"]["defaults"]["unifiedSession"] = True
    shared.config.write_text(json.dumps(data), encoding="utf-8")
    runtime = build_runtime(load_config(shared.config), make_provider(shared.server.url))
    try:
        shared.server.push(Reply("Noted."), Reply("Blue."))
        await runtime.agent.dispatch(InboundMessage("telegram", "u1", "111", "My colour is blue."))
        await runtime.agent.dispatch(InboundMessage("slack", "u1", "C9", "What is my colour?"))
    finally:
        await runtime.stop()
    script = (
        "import json, pathlib, sys\n"
        "from nanobot.session.manager import SessionManager\n"
        "from nanobot.session.keys import UNIFIED_SESSION_KEY\n"
        "s = SessionManager(pathlib.Path(sys.argv[1])).get_or_create(UNIFIED_SESSION_KEY)\n"
        "print(json.dumps({'key': s.key, 'contents': [m['content'] for m in s.messages],"
        " 'last': s.metadata.get('last_channel')}))\n"
    )
    found = await asyncio.to_thread(shared.nanobot_python, script, str(shared.workspace))
    assert found.returncode == 0, found.stderr
    seen = json.loads(found.stdout.strip().splitlines()[-1])
    assert seen == {
        "key": UNIFIED_SESSION_KEY,
        "contents": ["My colour is blue.", "Noted.", "What is my colour?", "Blue."],
        "last": "slack:C9",
    }
    assert Path(_ours(shared).path_for(UNIFIED_SESSION_KEY)).is_file()
