"""ChatGPT (Codex) calls in the usage ledger: an answered call with the backend's usage, and a
call stopped halfway with an estimate of what it cost (the Responses stream reports usage only
when it completes)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import StreamDelta
from desktop.core.providers.factory import build_provider
from desktop.core.providers.oauth.codex_provider import CodexProvider
from desktop.core.providers.switchable import SwitchableProvider, usage_scope
from desktop.core.usage.ledger import UsageLedger, read_file
from desktop.core.usage.place import LedgerPlace
from tests.conftest import write_config
from tests.core.oauth.conftest import signed_in_codex
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.oauth_server import CodexReply, FakeOAuthServer

SERVICE = "nanobot-desktop-oauth-usage"
ASK = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Tell a story."}]


@pytest.fixture
def store(memory_keyring: MemoryKeyring) -> SecretStore:
    return SecretStore(SERVICE, timeout=5)


async def test_codex_calls_answered_and_stopped_are_in_the_ledger(
    oauth_server: FakeOAuthServer, store: SecretStore, tmp_path: Path
) -> None:
    await signed_in_codex(store)
    data = {"agents": {"defaults": {"model": "openai-codex/gpt-5.1-codex"}}}
    config = load_config(write_config(tmp_path / "config.json", data))
    built = build_provider(config, store, retry_delays=())
    assert isinstance(built.provider, CodexProvider)
    provider = SwitchableProvider(built.provider)
    place = LedgerPlace.in_workspace(tmp_path)
    provider.add_call_listener(UsageLedger(place).record)
    oauth_server.codex_replies.append(CodexReply("Short answer.", usage=(30, 4)))
    oauth_server.codex_replies.append(CodexReply("word " * 300, chunk=5, delay=0.02))
    deltas: list[StreamDelta] = []
    with usage_scope(source="chat", session="desktop:story"):
        answer = await provider.chat_stream(ASK)
        assert answer.content == "Short answer."
        call = asyncio.ensure_future(provider.chat_stream(ASK, on_delta=deltas.append))
        async with asyncio.timeout(20):
            while len(deltas) < 5:
                await asyncio.sleep(0.01)
        call.cancel()  # /stop
        with pytest.raises(asyncio.CancelledError):
            await call
    answered, stopped = read_file(next(place.folder.glob("ledger-*.jsonl")), root=place.root)
    assert (answered.outcome, answered.prompt_tokens, answered.completion_tokens) == ("ok", 30, 4)
    assert (stopped.outcome, stopped.estimated, stopped.session) == (
        "stopped",
        True,
        "desktop:story",
    )
    assert stopped.prompt_tokens > 5 and 3 <= stopped.completion_tokens < 300
