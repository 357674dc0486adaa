"""Tokens at run time: renewed before expiry and once on a 401; a refused renewal signs out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMError, StreamDelta
from desktop.core.providers.factory import NotSignedInError, build_provider
from desktop.core.providers.oauth.accounts import session_for, signed_in
from desktop.core.providers.oauth.codex_provider import CodexProvider
from desktop.core.providers.oauth.copilot_provider import CopilotProvider
from tests.conftest import write_config
from tests.core.oauth.conftest import signed_in_codex, signed_in_copilot
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.oauth_server import CodexReply, FakeOAuthServer
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer

SERVICE = "nanobot-desktop-oauth-refresh"
HELLO = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}]


@pytest.fixture
def store(memory_keyring: MemoryKeyring) -> SecretStore:
    return SecretStore(SERVICE, timeout=5)


def _config(tmp_path: Path, model: str, **providers: Any) -> Any:
    data = {
        "agents": {"defaults": {"model": model, "workspace": str(tmp_path / "ws")}},
        "providers": providers,
    }
    return load_config(write_config(tmp_path / "config.json", data))


def _codex(tmp_path: Path, store: SecretStore) -> CodexProvider:
    built = build_provider(_config(tmp_path, "openai-codex/gpt-5.1-codex"), store, retry_delays=())
    assert isinstance(built.provider, CodexProvider)
    return built.provider


def _stored(memory_keyring: MemoryKeyring, name: str) -> dict[str, Any]:
    return cast("dict[str, Any]", json.loads(memory_keyring.store[(SERVICE, name)]))


async def test_codex_streams_and_sends_the_account_header(
    oauth_server: FakeOAuthServer, store: SecretStore, tmp_path: Path
) -> None:
    await signed_in_codex(store)
    oauth_server.codex_replies.append(CodexReply("Streaming from the backend.", reasoning="hmm"))
    provider = _codex(tmp_path, store)
    deltas: list[StreamDelta] = []
    response = await provider.chat_stream(HELLO, on_delta=deltas.append)

    assert response.content == "Streaming from the backend."
    assert response.reasoning_content == "hmm"
    assert response.usage.prompt_tokens == 12 and response.usage.completion_tokens == 7
    assert len([d for d in deltas if d.kind == "text"]) > 3
    [request] = oauth_server.seen("/backend-api/codex/responses")
    assert request.headers["chatgpt-account-id"] == "acct-test-0001"
    assert request.headers["OpenAI-Beta"] == "responses=experimental"
    assert request.body["model"] == "gpt-5.1-codex"
    assert request.body["instructions"] == "Be brief."
    assert request.body["store"] is False and request.body["stream"] is True
    assert request.body["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hello"}]}
    ]


async def test_codex_tool_calls_come_back_as_tool_calls(
    oauth_server: FakeOAuthServer, store: SecretStore, tmp_path: Path
) -> None:
    await signed_in_codex(store)
    oauth_server.codex_replies.append(CodexReply("", tool_call=("read_file", '{"path": "a.txt"}')))
    provider = _codex(tmp_path, store)
    tools = [
        {
            "type": "function",
            "function": {"name": "read_file", "description": "Read", "parameters": {}},
        }
    ]
    response = await provider.chat(HELLO, tools)
    [call] = response.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_abc", "read_file", {"path": "a.txt"})
    assert response.finish_reason == "tool_calls"
    [request] = oauth_server.seen("/backend-api/codex/responses")
    assert request.body["tools"][0]["name"] == "read_file"
    # The result goes back as function_call / function_call_output items.
    follow: list[dict[str, Any]] = [
        *HELLO,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_abc",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc", "content": "file text"},
    ]
    await provider.chat(follow, tools)
    items = oauth_server.seen("/backend-api/codex/responses")[1].body["input"]
    assert items[1] == {
        "type": "function_call",
        "call_id": "call_abc",
        "name": "read_file",
        "arguments": '{"path": "a.txt"}',
    }
    assert items[2] == {
        "type": "function_call_output",
        "call_id": "call_abc",
        "output": "file text",
    }


async def test_codex_refreshes_before_expiry(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    """An access token that expires within the minute is renewed before the call; the new
    tokens replace the old ones in the keyring (the refresh token rotates)."""
    oauth_server.access_lifetime_s = 30  # inside the 60 s margin
    first = await signed_in_codex(store)
    oauth_server.access_lifetime_s = 3600
    response = await _codex(tmp_path, store).chat(HELLO)
    assert response.content == "Hello from Codex."
    [refresh] = [
        r for r in oauth_server.seen("/oauth/token") if r.body["grant_type"] == "refresh_token"
    ]
    assert refresh.body["refresh_token"] == first.refresh
    stored = _stored(memory_keyring, "openai_codex")
    assert stored["access"] != first.access and stored["refresh"] != first.refresh
    assert stored["account"] == first.account  # kept though the refresh sent no id_token
    [call] = oauth_server.seen("/backend-api/codex/responses")
    assert call.headers["Authorization"] == f"Bearer {stored['access']}"


async def test_codex_renews_once_on_401(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    """The server stops accepting a token that has not expired yet: one refresh, one retry."""
    await signed_in_codex(store)
    provider = _codex(tmp_path, store)
    assert (await provider.chat(HELLO)).content == "Hello from Codex."
    oauth_server.expire_codex_tokens()
    assert (await provider.chat(HELLO)).content == "Hello from Codex."
    grants = [r.body["grant_type"] for r in oauth_server.seen("/oauth/token")]
    assert grants == ["authorization_code", "refresh_token"]
    assert len(oauth_server.seen("/backend-api/codex/responses")) == 3  # ok, 401, ok
    assert provider.session.refreshes == 1


async def test_codex_refused_refresh_signs_out_with_a_clear_error(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    await signed_in_codex(store)
    provider = _codex(tmp_path, store)
    oauth_server.expire_codex_tokens()
    oauth_server.refuse_refresh = True
    with pytest.raises(LLMError) as caught:
        await provider.chat_stream(HELLO)
    error = caught.value
    assert error.kind == "auth" and not error.retryable
    assert error.message.startswith("Signed out of ChatGPT (Codex)")
    assert "provider login openai-codex" in error.message
    assert (SERVICE, "openai_codex") not in memory_keyring.store
    assert signed_in("openai_codex", store) is None
    # The next build says "not signed in" before any request.
    with pytest.raises(NotSignedInError, match="Not signed in to ChatGPT"):
        _codex(tmp_path, store)


async def test_a_second_process_uses_the_token_the_first_renewed(
    oauth_server: FakeOAuthServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    """Two sessions (two processes) read the same expiring token; the first renews it. The
    second, waiting for the lock meanwhile, re-reads the keyring under the lock and uses the
    renewed token instead of spending the (rotated, now invalid) refresh token, which would
    sign both out."""
    oauth_server.access_lifetime_s = 30
    old = await signed_in_codex(store)
    oauth_server.access_lifetime_s = 3600
    one = session_for("openai_codex", store)
    two = session_for("openai_codex", store)
    renewed = one.tokens()
    assert two._renew(old, None) == renewed  # what two does after having read ``old``
    assert (one.refreshes, two.refreshes) == (1, 0)
    grants = [r.body["grant_type"] for r in oauth_server.seen("/oauth/token")]
    assert grants == ["authorization_code", "refresh_token"]


async def test_signing_out_stops_the_next_call(
    oauth_server: FakeOAuthServer, store: SecretStore, tmp_path: Path
) -> None:
    """A provider built while signed in stops at once after a sign-out (no token kept)."""
    from desktop.core.providers.oauth.accounts import sign_out

    await signed_in_codex(store)
    provider = _codex(tmp_path, store)
    assert (await provider.chat(HELLO)).content
    assert await sign_out("openai-codex", store)
    with pytest.raises(LLMError, match="Not signed in to ChatGPT"):
        await provider.chat(HELLO)
    assert len(oauth_server.seen("/backend-api/codex/responses")) == 1


async def test_copilot_chat_through_litellm_with_a_copilot_token(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    tmp_path: Path,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    """GitHub token → Copilot token → OpenAI-compatible chat (LiteLLM) with the editor headers;
    a Copilot token about to expire is fetched again, and a 401 fetches a new one once."""
    oauth_server.copilot_api = scripted_server.url
    scripted_server.authorize = oauth_server.copilot_gate
    scripted_server.default = Reply("Hello from Copilot.")
    github = await signed_in_copilot(store)
    built = build_provider(_config(tmp_path, "github-copilot/gpt-4.1"), store, retry_delays=())
    provider = built.provider
    assert isinstance(provider, CopilotProvider)
    deltas: list[StreamDelta] = []
    response = await provider.chat_stream(HELLO, on_delta=deltas.append)
    assert response.content == "Hello from Copilot."
    assert [d.kind for d in deltas].count("text") > 1
    [request] = scripted_server.chat_requests()
    assert request.body["model"] == "gpt-4.1"
    headers = {k.lower(): v for k, v in request.headers.items()}
    assert headers["copilot-integration-id"] == "vscode-chat"
    assert headers["editor-version"].startswith("vscode/")
    copilot_token = headers["authorization"].removeprefix("Bearer ")
    assert copilot_token in oauth_server.copilot_valid and copilot_token != github.access
    [exchange] = oauth_server.seen("/copilot_internal/v2/token")
    assert exchange.headers["Authorization"] == f"token {github.access}"

    oauth_server.expire_copilot_tokens()  # the chat API refuses the token it had
    assert (await provider.chat(HELLO)).content == "Hello from Copilot."
    assert len(oauth_server.seen("/copilot_internal/v2/token")) == 2
    statuses = len(scripted_server.chat_requests())
    assert statuses == 3  # ok, 401, ok

    oauth_server.copilot_lifetime_s = 30  # expires within the minute: fetched before each call
    oauth_server.expire_copilot_tokens()
    await provider.chat(HELLO)  # 401 → new (short-lived) token
    before = len(oauth_server.seen("/copilot_internal/v2/token"))
    await provider.chat(HELLO)
    assert len(oauth_server.seen("/copilot_internal/v2/token")) == before + 1


async def test_copilot_revoked_github_token_signs_out(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    scripted_server: ScriptedOpenAIServer,
) -> None:
    oauth_server.copilot_api = scripted_server.url
    await signed_in_copilot(store)
    provider = build_provider(
        _config(tmp_path, "github-copilot/gpt-4.1"), store, retry_delays=()
    ).provider
    oauth_server.github_valid.clear()  # revoked on github.com
    with pytest.raises(LLMError) as caught:
        await provider.chat(HELLO)
    assert caught.value.kind == "auth"
    assert caught.value.message.startswith("Signed out of GitHub Copilot")
    assert (SERVICE, "github_copilot") not in memory_keyring.store
    assert scripted_server.chat_requests() == []


async def test_copilot_without_a_subscription_keeps_the_sign_in(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    await signed_in_copilot(store)
    oauth_server.refuse_copilot = 403
    provider = build_provider(
        _config(tmp_path, "github-copilot/gpt-4.1"), store, retry_delays=()
    ).provider
    with pytest.raises(LLMError, match="no GitHub Copilot access"):
        await provider.chat(HELLO)
    assert (SERVICE, "github_copilot") in memory_keyring.store


def test_not_signed_in_is_a_missing_key_with_the_way_to_sign_in(
    store: SecretStore, tmp_path: Path
) -> None:
    """An explicit openai-codex/… model never falls through to OpenAI's API (even with an
    OpenAI key), and says how to sign in."""
    store.set("openai", "sk-test-0123456789abcdef")
    with pytest.raises(NotSignedInError) as caught:
        build_provider(_config(tmp_path, "openai-codex/gpt-5.1-codex"), store)
    assert "provider login openai-codex" in str(caught.value)
    with pytest.raises(NotSignedInError, match="GitHub Copilot"):
        build_provider(_config(tmp_path, "github_copilot/gpt-4.1"), store)
