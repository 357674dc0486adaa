"""Links, FIFOs and folders a command left where the app's own workspace files belong.

A command the model runs (``exec``) may write anywhere in the workspace that is not protected,
and may do so before the file exists. Each case plants one thing at one app-owned path -- a
symlink to a secret file outside the workspace, a dangling symlink into a folder outside
(a write through it would create a file there), a FIFO (a naive reader or writer blocks
forever), or a symlinked folder -- then starts the runtime as the app does
(:func:`start_runtime`) on the scripted OpenAI server through the real LiteLLM path and runs
real work: a chat turn, archiving it (the Consolidator), a Dream run, a heartbeat, another
turn. Nothing outside the workspace may be read, written or created; nothing may hang; every
model call must be counted in the usage ledger; and no request may carry the secret file's
text.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.config.loader import load_config
from desktop.core.memory.store import MemoryStore
from desktop.core.runtime import Runtime
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.core.robust.corpus import make_fifo
from tests.core.usage.helpers import records_of
from tests.fakes.openai_server import ScriptedOpenAIServer

KEY = "desktop:planted"
MARKER = "OUTSIDE-MARKER-5f2c"
SECRET_KEY = "sk-proj-OUTSIDEsecret0123456789abcdef"
MONTH = datetime.now(UTC).strftime("%Y-%m")

# Every file the app itself reads or writes in the workspace (and the legacy ledger place).
FILES = (
    "memory/history.jsonl",
    "memory/history.jsonl.lock",
    "memory/.cursor",
    "memory/.dream_cursor",
    "memory/MEMORY.md",
    "SOUL.md",
    "USER.md",
    "AGENTS.md",
    "TOOLS.md",
    "HEARTBEAT.md",
    "skills/evil/SKILL.md",
    "prompts/dream.md",
    f"usage/ledger-{MONTH}.jsonl",
    "usage/.ledger.lock",
    ".nanobot/usage-checkpoint.json",
    "sessions/desktop_planted.jsonl",
)
FOLDERS = ("memory", "skills/evil", "usage", "prompts")
CASES = [(path, kind) for path in FILES for kind in ("link", "link_new", "fifo")] + [
    (path, "folder_link") for path in FOLDERS
]


def _outside(tmp_path: Path) -> Path:
    """A folder outside the workspace with a secret file and an empty "Documents" folder."""
    outside = tmp_path / "outside"
    (outside / "documents").mkdir(parents=True)
    secret = {"providers": {"openai": {"apiKey": SECRET_KEY}}, "note": MARKER}
    (outside / "secret.json").write_text(json.dumps(secret) + "\n")
    return outside


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else b"<dir>"
        for path in sorted(folder.rglob("*"))
    }


def _plant(ws: Path, outside: Path, path: str, kind: str) -> None:
    target = ws / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link":
        target.symlink_to(outside / "secret.json")
    elif kind == "link_new":
        target.symlink_to(outside / "documents" / target.name)
    elif kind == "fifo":
        make_fifo(target)
    else:
        target.symlink_to(outside / "documents", target_is_directory=True)


async def _work(runtime: Runtime) -> list[str]:
    """A turn, archiving it, a Dream run, a heartbeat, another turn."""
    agent = runtime.agent
    answers = [await agent.process_direct("hello", session_key=KEY, channel="desktop", chat_id="d")]
    session = runtime.sessions.get_or_create(KEY)
    await runtime.memory.consolidator.archive_all(session)
    await runtime.memory.dream().run()
    await runtime.heartbeat.tick()
    answers.append(
        await agent.process_direct("again", session_key=KEY, channel="desktop", chat_id="d")
    )
    return answers


@pytest.mark.parametrize(("path", "kind"), CASES, ids=[f"{p}:{k}" for p, k in CASES])
async def test_a_planted_link_or_fifo_never_leads_the_app_outside(
    path: str, kind: str, scripted_server: ScriptedOpenAIServer, tmp_path: Path, no_keyring: None
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = _outside(tmp_path)
    (ws / "HEARTBEAT.md").write_text("- [ ] water the plants\n")
    cfg = write_config(
        tmp_path / "cfg" / "config.json",
        {"agents": {"defaults": {"workspace": str(ws), "model": "m", "timezone": "UTC"}}},
    )
    if path == "HEARTBEAT.md":
        (ws / path).unlink()
    _plant(ws, outside, path, kind)
    before = _snapshot(outside)
    config = load_config(cfg, environ={})
    runtime = await start_runtime(
        config, StartOptions(provider=make_provider(scripted_server.url), serve_socket=False)
    )
    try:
        async with asyncio.timeout(120):  # a FIFO followed naively blocks forever
            answers = await _work(runtime)
        assert runtime.ledger is not None
        place = runtime.ledger.place
    finally:
        await runtime.stop()
    assert answers == ["Hello from the scripted server."] * 2
    assert _snapshot(outside) == before, "nothing outside the workspace was written or created"
    assert (outside / "secret.json").stat().st_size == len(before["secret.json"])
    requests = scripted_server.chat_requests()
    sent = json.dumps([r.body for r in requests])
    assert MARKER not in sent and SECRET_KEY not in sent, "the linked file's text was sent"
    assert len(records_of(place)) == len(requests), "every model call is in the ledger"
    assert not place.folder.is_relative_to(ws), "the ledger is out of the model's reach"
    if not (kind == "folder_link" and path == "memory"):
        entries = await asyncio.to_thread(MemoryStore(ws).entries)
        assert entries, "the turn was archived to a real history file in the workspace"
