"""OAuth for HTTP MCP servers against a local server speaking the documented flow.

``tests/fakes/mcp_oauth_server.py`` is an MCP server behind OAuth with its own authorization
server (discovery, dynamic registration, authorization code + PKCE, rotating refresh tokens).
The test plays the person: it follows the authorization URL the app would open in a browser,
and the redirect lands on the app's loopback listener.
"""

from __future__ import annotations

import json
import sys
import textwrap
import webbrowser
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from desktop.cli import main
from desktop.core.config.schema import MCPServerConfig
from desktop.core.config.secrets import SERVICE_ENV, SecretStore
from desktop.core.providers.oauth.tokens import TokenVault
from desktop.core.tools.mcp import MCPManager
from desktop.core.tools.mcp.oauth import keyring_name, sign_in, sign_out, signed_in
from desktop.core.tools.registry import ToolRegistry
from tests.conftest import write_config
from tests.core.tools.test_mcp import Calls, HTTPServer, start_http_server, stop
from tests.fakes.memory_keyring import MemoryKeyring
from tests.real_keyring import RealKeyring

pytestmark = pytest.mark.timeout(120)

SERVICE = "nanobot-desktop-test-mcp-oauth"
SCRIPT = Path(__file__).parents[2] / "fakes" / "mcp_oauth_server.py"


@pytest.fixture
def secured() -> Iterator[HTTPServer]:
    server = start_http_server(SCRIPT, "http")  # returns once the port accepts connections
    yield server
    stop(server)


def stats(server: HTTPServer) -> dict[str, int]:
    base = server.url.removesuffix("/mcp")
    return dict(httpx2.get(f"{base}/stats", timeout=10).json())


class Browser:
    """Plays the person's browser: opens the page and follows the redirect home."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    async def __call__(self, url: str) -> None:
        self.opened.append(url)
        async with httpx2.AsyncClient(timeout=10) as http:
            page = await http.get(url)  # the authorization server's page answers with a redirect
            assert page.status_code == 302, page.text
            landing = await http.get(page.headers["location"])
            assert "Signed in" in landing.text


async def connect(config: MCPServerConfig, store: SecretStore, tmp_path: Path) -> tuple[str, str]:
    registry = ToolRegistry()
    async with MCPManager({"secured": config}, registry=registry, secrets=store) as manager:
        await manager.ensure_connected()
        status = manager.status("secured")
        if status.state != "connected":
            return status.state, status.last_error
        return status.state, (await Calls(registry, tmp_path)("mcp_secured_whoami")).text


async def test_sign_in_then_background_connects_refresh_an_expired_token(
    secured: HTTPServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    store = SecretStore(SERVICE)
    config = MCPServerConfig(url=secured.url, auth="oauth")

    # Not signed in: an agent turn's connect opens no browser and says where to sign in.
    state, error = await connect(config, store, tmp_path)
    assert state == "failed" and "needs you to sign in" in error and "Settings" in error, error
    assert stats(secured).get("authorize", 0) == 0
    assert not await signed_in("secured", config, store)

    browser = Browser()
    await sign_in("secured", config, store, browser)
    assert len(browser.opened) == 1 and "code_challenge_method=S256" in browser.opened[0]
    assert stats(secured)["token-code"] == 1
    vault = TokenVault(store)
    kept = json.loads(vault.read_text(keyring_name("secured")) or "")
    # Every keyring entry stays within what Windows' credential store holds.
    assert all(len(value) <= 1000 for value in memory_keyring.store.values())
    assert len(memory_keyring.store) > 1, "expected a value long enough to be split"
    assert kept["url"] == secured.url and kept["tokens"]["access_token"].startswith("at-")
    assert kept["client"]["client_id"].startswith("client-") and kept["expiresAt"] > 0
    assert await signed_in("secured", config, store)

    # A later connect (a new process would do the same) uses the stored token.
    assert await connect(config, store, tmp_path) == ("connected", "signed in")
    assert stats(secured).get("token-refresh", 0) == 0

    # The token expired while the app was closed: the connect refreshes it, no browser.
    kept["expiresAt"] = 1.0
    vault.write_text(keyring_name("secured"), json.dumps(kept))
    assert await connect(config, store, tmp_path) == ("connected", "signed in")
    counts = stats(secured)
    assert counts["token-refresh"] == 1 and counts["authorize"] == 1
    renewed = json.loads(vault.read_text(keyring_name("secured")) or "")
    assert renewed["tokens"]["access_token"] != kept["tokens"]["access_token"]
    assert renewed["tokens"]["refresh_token"] != kept["tokens"]["refresh_token"]
    assert renewed["expiresAt"] > kept["expiresAt"]

    assert await sign_out("secured", store)
    assert memory_keyring.store == {}  # every part gone
    state, error = await connect(config, store, tmp_path)
    assert state == "failed" and "needs you to sign in" in error


FOLLOW = textwrap.dedent(
    """
    import sys, urllib.request
    # Plays the browser of $BROWSER: the authorization page redirects to the app's listener.
    with urllib.request.urlopen(sys.argv[1], timeout=10) as page:
        page.read()
    """
)


def test_cli_login_and_logout(
    secured: HTTPServer,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(SERVICE_ENV, SERVICE)
    follow = tmp_path / "follow.py"
    follow.write_text(FOLLOW, encoding="utf-8")
    monkeypatch.setenv("BROWSER", f"{sys.executable} {follow} %s")
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # read $BROWSER again
    config = write_config(
        tmp_path / "config.json",
        {
            "agents": {"defaults": {"workspace": str(tmp_path / "workspace")}},
            "tools": {
                "mcpServers": {
                    "secured": {"url": secured.url, "auth": "oauth"},
                    "plain": {"url": secured.url},
                }
            },
        },
    )
    assert main(["mcp", "login", "plain", "--config", str(config)]) == 2
    assert main(["mcp", "login", "secured", "--config", str(config), "--timeout", "60"]) == 0
    out = capsys.readouterr()
    assert "Signed in to secured" in out.out and "/authorize?" in out.err
    assert TokenVault(SecretStore(SERVICE)).read_text(keyring_name("secured"))
    assert stats(secured)["token-code"] == 1
    assert main(["mcp", "logout", "secured", "--config", str(config)]) == 0
    assert memory_keyring.store == {}


@pytest.mark.keyring_real
async def test_sign_in_with_the_real_keyring(
    secured: HTTPServer, tmp_path: Path, real_keyring: RealKeyring
) -> None:
    store = SecretStore(real_keyring.service, timeout=15)
    config = MCPServerConfig(url=secured.url, auth="oauth")
    await sign_in("secured", config, store, Browser())
    assert await signed_in("secured", config, store)
    fresh = SecretStore(real_keyring.service, timeout=15)  # as a new process would
    assert await connect(config, fresh, tmp_path) == ("connected", "signed in")
    assert await sign_out("secured", fresh)
    assert real_keyring.get(keyring_name("secured")) is None
    assert real_keyring.get(f"{keyring_name('secured')}#1") is None
