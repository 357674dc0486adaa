"""The thin provider path keeps its connection between calls once its owner asks it to, and
its owner closes it: the runtime's switchable provider for every provider it has used."""

from __future__ import annotations

from typing import Any

from desktop.core.config.provider_registry import find_by_name
from desktop.core.providers.matching import ProviderChoice
from desktop.core.providers.openai_provider import OpenAIProvider
from desktop.core.providers.switchable import SwitchableProvider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

HI = [{"role": "user", "content": "hi"}]


def thin(server: ScriptedOpenAIServer) -> OpenAIProvider:
    """A thin-path provider for the scripted server (the ``custom`` route)."""
    spec = find_by_name("custom")
    assert spec is not None
    choice = ProviderChoice(
        spec=spec, section="custom", model="openai/scripted", api_base=server.url
    )
    return OpenAIProvider(choice, api_key="sk-connections-0123456789", retry_delays=(0.01,))


def connections(server: ScriptedOpenAIServer) -> set[tuple[str, int]]:
    """The TCP connections the chat requests came on (their client ports)."""
    return {request.peer for request in server.chat_requests()}


async def test_two_calls_of_a_kept_provider_share_one_connection(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Two calls, one TCP connection (no second handshake); closed by ``aclose``."""
    scripted_server.default = Reply("one answer")
    provider = thin(scripted_server)
    provider.keep_connections()
    try:
        for _ in range(2):
            assert (await provider.chat(HI)).content == "one answer"
        kept: Any = provider._kept[1] if provider._kept else None
    finally:
        await provider.aclose()
    assert len(scripted_server.chat_requests()) == 2
    assert len(connections(scripted_server)) == 1
    assert kept is not None and kept.is_closed()
    assert (await provider.chat(HI)).content == "one answer"  # after: a call of its own
    assert provider._kept is None
    assert len(connections(scripted_server)) == 2


async def test_without_an_owner_each_call_has_its_own_connection(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """A provider nobody will close keeps nothing: each call opens and closes its client."""
    provider = thin(scripted_server)
    for _ in range(2):
        await provider.chat(HI)
    assert provider._kept is None
    assert len(connections(scripted_server)) == 2


async def test_the_switchable_provider_closes_every_provider_it_used(
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """Switching models keeps both providers' connections until the owner closes: the old
    one's running calls may still use it. ``aclose`` (Runtime.stop) closes them all."""
    first, second = thin(scripted_server), thin(scripted_server)
    switchable = SwitchableProvider(first)
    await switchable.chat(HI)
    switchable.switch(second)
    await switchable.chat(HI)
    await switchable.chat(HI)
    clients = [p._kept[1] for p in (first, second) if p._kept is not None]
    assert len(clients) == 2 and not any(c.is_closed() for c in clients)
    assert len(connections(scripted_server)) == 2  # one per provider, not one per call
    await switchable.aclose()
    assert all(c.is_closed() for c in clients)
    assert first._kept is None and second._kept is None
