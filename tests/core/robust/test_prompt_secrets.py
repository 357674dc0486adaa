"""No key reaches the provider through a file the app puts into a prompt.

The model (or a person) can copy ``config.json`` into a memory file, a bootstrap file, a
skill, the heartbeat list or Dream's instructions, and the history log can hold a key from an
archived turn. Each case writes such a file in a fresh workspace, then runs real work on the
scripted OpenAI server through the real LiteLLM path -- a chat turn, archiving, Dream, the
heartbeat -- and inspects every request the server received: the config's key (known to the
app: the loader registers it), a key it never saw but shaped like one (``sk-…``), and a secret
field of a JSON copy (``"botToken": "…"``) must all be masked.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.config.loader import load_config
from desktop.core.runtime import Runtime
from tests.conftest import write_config
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import ScriptedOpenAIServer

KEY = "desktop:secrets"
KNOWN = "plainKnownKey-9f8e7d6c5b4a"  # the config's apiKey: no telltale shape at all
SHAPED = "sk-ant-api03-NEVERSEENbefore0123456789"
FIELD = "123456789:AAEneverRegisteredBotToken"
SECRETS = (KNOWN, SHAPED, FIELD)


def _copy_of_config() -> str:
    data = {
        "providers": {"openrouter": {"apiKey": KNOWN}, "anthropic": {"apiKey": SHAPED}},
        "channels": {"telegram": {"enabled": True, "botToken": FIELD}},
    }
    return json.dumps(data, indent=2)


def _skill(text: str) -> str:
    return f"---\nname: keys\ndescription: Keys.\nalways: true\n---\n\n{text}\n"


def _history(text: str) -> str:
    entry = {"cursor": 1, "timestamp": "2026-01-01 10:00", "content": text}
    return json.dumps(entry) + "\n"


CASES: dict[str, tuple[str, Callable[[str], str]]] = {
    "memory": ("memory/MEMORY.md", lambda t: t),
    "soul": ("SOUL.md", lambda t: t),
    "user": ("USER.md", lambda t: t),
    "agents": ("AGENTS.md", lambda t: t),
    "tools": ("TOOLS.md", lambda t: t),
    "skill": ("skills/keys/SKILL.md", _skill),
    "heartbeat": ("HEARTBEAT.md", lambda t: "- [ ] post this: " + " ".join(t.split())),
    "history": ("memory/history.jsonl", _history),
    "dream_prompt": ("prompts/dream.md", lambda t: t),
}


async def _work(runtime: Runtime) -> None:
    agent = runtime.agent
    await agent.process_direct("hello", session_key=KEY, channel="desktop", chat_id="d")
    await runtime.memory.consolidator.archive_all(runtime.sessions.get_or_create(KEY))
    await runtime.memory.dream().run()
    await runtime.heartbeat.tick()


@pytest.mark.parametrize("case", list(CASES))
async def test_no_key_from_a_file_reaches_a_request(
    case: str, scripted_server: ScriptedOpenAIServer, tmp_path: Path, no_keyring: None
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    name, render = CASES[case]
    target = ws / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(_copy_of_config()))
    cfg = write_config(
        tmp_path / "cfg" / "config.json",
        {
            "agents": {"defaults": {"workspace": str(ws), "model": "m", "timezone": "UTC"}},
            "providers": {"openrouter": {"apiKey": KNOWN}},
        },
    )
    config = load_config(cfg, environ={})
    runtime = await start_runtime(
        config, StartOptions(provider=make_provider(scripted_server.url), serve_socket=False)
    )
    try:
        async with asyncio.timeout(120):
            await _work(runtime)
    finally:
        await runtime.stop()
    requests = scripted_server.chat_requests()
    assert requests
    sent = json.dumps([r.body for r in requests])
    assert "[REDACTED]" in sent, "the file did reach a prompt (masked)"
    leaked = [secret for secret in SECRETS if secret in sent]
    assert leaked == [], f"sent to the provider: {leaked}"
