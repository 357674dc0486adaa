"""The two sign-in flows against a local server: device flow and PKCE with a localhost callback."""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import time
import urllib.parse

import httpx
import pytest

from desktop.core.config.secrets import SecretStore
from desktop.core.providers.oauth.accounts import sign_in, signed_in
from desktop.core.providers.oauth.flow import LoginError
from tests.core.oauth.conftest import Prompts, act_as_browser
from tests.fakes.memory_keyring import MemoryKeyring
from tests.fakes.oauth_server import ACCOUNT_ID, EMAIL, GITHUB_LOGIN, FakeOAuthServer

SERVICE = "nanobot-desktop-oauth-flows"


@pytest.fixture
def store(memory_keyring: MemoryKeyring) -> SecretStore:
    return SecretStore(SERVICE, timeout=5)


async def test_device_flow_waits_through_pending_and_slow_down(
    oauth_server: FakeOAuthServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    """pending → slow_down → pending → success: the code is shown once, polling slows down
    when told, and the GitHub token lands in the keyring with the login it belongs to."""
    oauth_server.device_script.extend(
        ["authorization_pending", "slow_down", "authorization_pending"]
    )
    prompts = Prompts()
    tokens = await sign_in("github-copilot", store, on_prompt=prompts)

    [prompt] = prompts.seen
    assert prompt.kind == "device" and prompt.user_code == "WDJB-MJHT"
    assert prompt.url == f"{oauth_server.url}/login/device"
    polls = [r.at for r in oauth_server.seen("/login/oauth/access_token")]
    assert len(polls) == 4
    gaps = [b - a for a, b in itertools.pairwise(polls)]
    assert gaps[0] < 0.25  # the server's own interval (0.05 s) before slow_down
    assert all(gap >= 0.28 for gap in gaps[1:])  # then the slower interval it asked for
    assert tokens.account == GITHUB_LOGIN
    stored = json.loads(memory_keyring.store[(SERVICE, "github_copilot")])
    assert stored["access"] == tokens.access and tokens.access in oauth_server.github_valid
    assert signed_in("github_copilot", store) == tokens
    # The poll sent the device grant with the Copilot client id.
    first = oauth_server.seen("/login/oauth/access_token")[0].body
    assert first["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code"
    assert first["client_id"] == "Iv1.b507a08c87ecfe98"


@pytest.mark.parametrize(
    ("answer", "words"),
    [("access_denied", "cancelled in the browser"), ("expired_token", "expired")],
)
async def test_device_flow_refused_or_expired_stores_nothing(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    memory_keyring: MemoryKeyring,
    answer: str,
    words: str,
) -> None:
    oauth_server.device_script.extend(["authorization_pending", answer])
    with pytest.raises(LoginError) as caught:
        await sign_in("github_copilot", store, on_prompt=Prompts())
    assert words in str(caught.value)
    assert memory_keyring.store == {}


async def test_pkce_flow_exchanges_the_code_with_the_verifier(
    oauth_server: FakeOAuthServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    """The browser comes back to the localhost callback; the code is exchanged with the PKCE
    verifier (the server checks it against the challenge) and the tokens are stored."""
    prompts = Prompts()
    tokens = await sign_in("openai-codex", store, on_prompt=prompts)

    [prompt] = prompts.seen
    assert prompt.kind == "browser"
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(prompt.url).query))
    assert query["client_id"] == "app_EMoamEEZ73f0CkXaXp7hrann"
    assert query["scope"] == "openid profile email offline_access"
    assert query["code_challenge_method"] == "S256"
    assert query["redirect_uri"].startswith("http://localhost:")
    assert query["redirect_uri"].endswith("/auth/callback")
    [page] = prompts.pages
    assert page.status_code == 200 and "signed in" in page.text.lower()
    [exchange] = oauth_server.seen("/oauth/token")
    assert exchange.body["grant_type"] == "authorization_code"
    assert exchange.body["redirect_uri"] == query["redirect_uri"]
    assert tokens.account == EMAIL and tokens.account_id == ACCOUNT_ID
    assert tokens.refresh and tokens.expires_at and tokens.expires_at > time.time() + 3000
    stored = json.loads(memory_keyring.store[(SERVICE, "openai_codex")])
    assert stored["access"] == tokens.access and stored["refresh"] == tokens.refresh
    # The callback server is gone once the flow is over.
    port = int(urllib.parse.urlsplit(query["redirect_uri"]).port or 0)
    with pytest.raises(httpx.ConnectError):
        await act_as_browser(f"http://127.0.0.1:{port}/auth/callback?code=x&state=y")


async def test_pkce_callback_with_a_wrong_state_is_refused(
    oauth_server: FakeOAuthServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    """A callback that did not come from this sign-in (wrong state) gets a 400 page and no
    exchange; the real one that follows still completes the sign-in."""
    refused: list[httpx.Response] = []
    prompts = Prompts(browse=False)
    visits: list[asyncio.Task[None]] = []

    async def browser(prompt_url: str) -> None:
        redirect = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(prompt_url).query))[
            "redirect_uri"
        ]
        refused.append(await act_as_browser(f"{redirect}?code=forged-code&state=not-the-state"))
        await act_as_browser(prompt_url)

    def on_prompt(prompt: object) -> None:
        prompts(prompt)  # type: ignore[arg-type]
        visits.append(asyncio.get_running_loop().create_task(browser(prompts.seen[-1].url)))

    tokens = await sign_in("openai_codex", store, on_prompt=on_prompt)
    await asyncio.gather(*visits)
    [bad] = refused
    assert bad.status_code == 400 and "did not come from the sign-in" in bad.text
    [exchange] = oauth_server.seen("/oauth/token")
    assert exchange.body["code"] != "forged-code"
    assert tokens.account == EMAIL


async def test_pkce_provider_error_ends_the_sign_in(
    oauth_server: FakeOAuthServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    """The person refuses on the provider's page: the callback carries an error."""

    async def browser(prompt_url: str) -> None:
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(prompt_url).query))
        await act_as_browser(
            f"{query['redirect_uri']}?error=access_denied&error_description=You+said+no"
            f"&state={query['state']}"
        )

    visits: list[asyncio.Task[None]] = []

    def on_prompt(prompt: object) -> None:
        visit = browser(prompt.url)  # type: ignore[attr-defined]
        visits.append(asyncio.get_running_loop().create_task(visit))

    with pytest.raises(LoginError, match="You said no"):
        await sign_in("openai-codex", store, on_prompt=on_prompt)
    await asyncio.gather(*visits)
    assert memory_keyring.store == {}
    assert oauth_server.seen("/oauth/token") == []


async def test_pkce_port_in_use_says_so(
    oauth_server: FakeOAuthServer,
    store: SecretStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        monkeypatch.setenv("NANOBOT_DESKTOP_CODEX_CALLBACK_PORT", str(taken.getsockname()[1]))
        with pytest.raises(LoginError, match=r"Port \d+ on this computer is in use"):
            await sign_in("openai-codex", store, on_prompt=Prompts())
    finally:
        taken.close()


async def test_cancelling_the_browser_sign_in_frees_the_port(
    oauth_server: FakeOAuthServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    prompts = Prompts(browse=False)
    task = asyncio.get_running_loop().create_task(sign_in("openai-codex", store, on_prompt=prompts))
    while not prompts.seen:
        await asyncio.sleep(0.01)
    redirect = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(prompts.seen[0].url).query))[
        "redirect_uri"
    ]
    port = int(urllib.parse.urlsplit(redirect).port or 0)
    socket.create_connection(("127.0.0.1", port), timeout=2).close()  # listening now
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    assert memory_keyring.store == {}


async def test_cancelling_the_device_sign_in_stops_polling(
    oauth_server: FakeOAuthServer, store: SecretStore, memory_keyring: MemoryKeyring
) -> None:
    oauth_server.device_script.extend(["authorization_pending"] * 1000)
    prompts = Prompts()
    task = asyncio.get_running_loop().create_task(
        sign_in("github-copilot", store, on_prompt=prompts)
    )
    while len(oauth_server.seen("/login/oauth/access_token")) < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    count = len(oauth_server.seen("/login/oauth/access_token"))
    await asyncio.sleep(0.3)
    assert len(oauth_server.seen("/login/oauth/access_token")) == count
    assert memory_keyring.store == {}
