"""xAI Grok sign-in and chat against a local fake of xAI's documented flow.

The issuer's discovery document, the browser page (played by an HTTP client following the
redirect to our callback server), the PKCE code exchange, userinfo, refresh-token rotation and
the Grok Responses API are all served by :class:`tests.fakes.xai_server.FakeXAIServer`.
"""

from __future__ import annotations

import json
import logging
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from desktop.cli import main as cli_main
from desktop.core.assembly import StartOptions, start_runtime
from desktop.core.config.loader import load_config
from desktop.core.config.secrets import SecretStore
from desktop.core.providers.base import LLMError, StreamDelta
from desktop.core.providers.factory import NotSignedInError, build_provider
from desktop.core.providers.oauth.accounts import sign_in, sign_out, signed_in
from desktop.core.providers.oauth.flow import LoginError
from desktop.core.providers.oauth.grok_provider import GrokProvider
from tests.conftest import write_config
from tests.core.oauth.conftest import Prompts
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.xai_server import CLIENT_ID, EMAIL, FakeXAIServer
from tests.real_keyring import RealKeyring

SERVICE = "nanobot-desktop-grok"
HELLO = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}]


@pytest.fixture
def xai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeXAIServer]:
    with FakeXAIServer() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def store(memory_keyring: MemoryKeyring) -> SecretStore:
    return SecretStore(SERVICE, timeout=5)


def _stored(memory_keyring: MemoryKeyring) -> dict[str, Any]:
    return cast("dict[str, Any]", json.loads(memory_keyring.store[(SERVICE, "xai_grok")]))


def _grok(tmp_path: Path, store: SecretStore, model: str = "xai-grok/grok-4.6") -> GrokProvider:
    data = {"agents": {"defaults": {"model": model, "workspace": str(tmp_path / "ws")}}}
    config = load_config(write_config(tmp_path / "config.json", data))
    built = build_provider(config, store, retry_delays=())
    assert isinstance(built.provider, GrokProvider)
    return built.provider


async def test_sign_in_discovers_the_issuer_and_exchanges_the_code_with_pkce(
    xai: FakeXAIServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    """The browser page is the discovered authorization endpoint with xAI's client, scopes,
    S256 challenge, state, nonce and a 127.0.0.1 callback; the code comes back there and is
    exchanged with the verifier and the client-version header; the account is the userinfo
    email; the tokens land in the keyring and nowhere else."""
    prompts = Prompts()
    tokens = await sign_in("xai-grok", store, on_prompt=prompts)

    [prompt] = prompts.seen
    assert prompt.kind == "browser" and prompt.url.startswith(f"{xai.url}/oauth2/authorize?")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(prompt.url).query))
    assert query["client_id"] == CLIENT_ID and query["code_challenge_method"] == "S256"
    assert {"openid", "offline_access", "grok-cli:access"} <= set(query["scope"].split())
    assert query["nonce"] and query["state"] and query["referrer"] == "nanobot"
    redirect = urllib.parse.urlsplit(query["redirect_uri"])
    assert (redirect.hostname, redirect.path) == ("127.0.0.1", "/callback")
    [page] = prompts.pages
    assert page.status_code == 200 and "signed in" in page.text.lower()
    [exchange] = xai.seen("/oauth2/token")
    assert exchange.body["grant_type"] == "authorization_code"
    assert exchange.body["redirect_uri"] == query["redirect_uri"]
    assert exchange.headers["x-grok-client-version"]
    assert tokens.account == EMAIL and tokens.provider == "xai_grok"
    stored = _stored(memory_keyring)
    assert stored["access"] == tokens.access and stored["refresh"] == tokens.refresh
    assert tokens.access in xai.access_valid
    assert signed_in("xai_grok", store) == tokens


async def test_a_discovery_naming_another_origin_is_refused(
    xai: FakeXAIServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    """An endpoint outside the issuer's origin is never used: no page, nothing stored."""
    xai.foreign_endpoint = True
    prompts = Prompts()
    with pytest.raises(LoginError, match="unexpected token_endpoint"):
        await sign_in("xai_grok", store, on_prompt=prompts)
    assert prompts.seen == [] and memory_keyring.store == {}


async def test_grok_chat_streams_with_xais_headers_and_renews_once_on_a_401(
    xai: FakeXAIServer, store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    """A signed-in Grok chat streams from the Responses API with xAI's client headers and the
    answer's length and temperature; when the server refuses the access token, the sign-in is
    renewed once (the rotated refresh token is stored) and the call goes through."""
    await sign_in("xai-grok", store, on_prompt=Prompts())
    provider = _grok(tmp_path, store)
    deltas: list[StreamDelta] = []
    first = await provider.chat_stream(HELLO, on_delta=deltas.append, max_tokens=321)
    assert first.content == "Hello from Grok."
    assert first.usage.prompt_tokens == 11 and first.usage.completion_tokens == 4
    assert len([d for d in deltas if d.kind == "text"]) >= 4
    [request] = xai.seen("/v1/responses")
    assert request.body["model"] == "grok-4.6" and request.body["instructions"] == "Be brief."
    assert request.body["max_output_tokens"] == 321 and request.body["temperature"] == 0.1
    assert request.body["stream"] is True and request.body["store"] is False
    assert request.headers["x-grok-model-override"] == "grok-4.6"
    assert request.headers["x-grok-client-mode"] == "headless"
    before = _stored(memory_keyring)

    xai.expire_access()
    second = await provider.chat([{"role": "user", "content": "again"}])
    assert second.content == "Hello from Grok."
    assert provider.session.refreshes == 1
    [refresh] = xai.seen("/oauth2/token")[1:]
    assert refresh.body["grant_type"] == "refresh_token"
    assert refresh.body["refresh_token"] == before["refresh"]
    after = _stored(memory_keyring)
    assert after["refresh"] != before["refresh"] and after["refresh"] in xai.refresh_valid
    assert after["account"] == EMAIL  # a refresh keeps who signed in


async def test_a_refused_renewal_signs_out_and_says_so(
    xai: FakeXAIServer, store: SecretStore, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    await sign_in("xai-grok", store, on_prompt=Prompts())
    provider = _grok(tmp_path, store)
    xai.expire_access()
    xai.refuse_refresh = True
    with pytest.raises(LLMError) as caught:
        await provider.chat_stream(HELLO)
    assert caught.value.kind == "auth"
    assert caught.value.message.startswith("Signed out of xAI Grok")
    assert memory_keyring.store == {}
    with pytest.raises(NotSignedInError, match="provider login xai-grok"):
        _grok(tmp_path, store)


async def test_sign_out_forgets_the_tokens(
    xai: FakeXAIServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    await sign_in("xai-grok", store, on_prompt=Prompts())
    assert await sign_out("xai-grok", store) is True
    assert memory_keyring.store == {} and signed_in("xai_grok", store) is None


def test_cli_status_names_grok(
    memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``provider status`` lists xai-grok beside the other two; ``grok`` is understood."""
    config = write_config(tmp_path / "config.json", {})
    assert cli_main(["provider", "status", "--config", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("xai-grok  xAI Grok") for line in lines), lines
    assert cli_main(["provider", "status", "grok", "--config", str(config)]) == 0
    assert "not signed in" in capsys.readouterr().out


@pytest.mark.keyring_real
async def test_a_grok_turn_with_the_sign_in_in_the_real_keyring(
    xai: FakeXAIServer,
    real_keyring: RealKeyring,
    tmp_path: Path,
    isolated_env: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Signed in through the real Secret Service, a chat turn of the real runtime streams from
    Grok; no token appears in the logs or in any file."""
    caplog.set_level(logging.DEBUG, logger="desktop")
    store = SecretStore(real_keyring.service, timeout=15)
    await sign_in("xai-grok", store, on_prompt=Prompts())
    stored = json.loads(real_keyring.get("xai_grok") or "{}")
    assert stored["account"] == EMAIL and stored["access"] in xai.access_valid
    data = {"agents": {"defaults": {"model": "xai-grok/grok-4.6", "workspace": str(tmp_path)}}}
    config = load_config(write_config(tmp_path / "config.json", data))
    runtime = await start_runtime(config, StartOptions(secrets=store, serve_socket=False))
    try:
        answer = await runtime.agent.process_direct("hello")
    finally:
        await runtime.stop()
    assert answer == "Hello from Grok."
    assert "nanobot" in xai.seen("/v1/responses")[0].body["instructions"].lower()
    for path in [*tmp_path.rglob("*"), *isolated_env.rglob("*")]:
        if path.is_file():
            data_bytes = path.read_bytes()
            assert not any(token.encode() in data_bytes for token in xai.issued), path
    assert not any(token in caplog.text for token in xai.issued)
