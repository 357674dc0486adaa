"""Custom headers of HTTP MCP servers: secret values live in the keyring, not in config.json.

The server is a real streamable-HTTP MCP server from the ``mcp`` SDK, run in a subprocess,
behind a check that answers 401 unless ``Authorization`` carries the expected bearer token
and ``X-Api-Key`` the expected key.
"""

from __future__ import annotations

import json
import logging
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.config.loader import load_config, save_config
from desktop.core.config.mcp_headers import (
    forget_header_secrets,
    is_secret_header,
    keyring_name,
    store_header_secrets,
)
from desktop.core.config.secret_fields import inject_stored_secrets
from desktop.core.config.secrets import SecretStore
from desktop.core.tools.mcp import MCPManager
from desktop.core.tools.registry import ToolRegistry
from tests.conftest import write_config
from tests.core.tools.test_mcp import Calls, HTTPServer, start_http_server, stop
from tests.fakes.memory_keyring import MemoryKeyring

pytestmark = pytest.mark.timeout(120)

TOKEN = "Bearer mcp-header-secret-0123456789"
API_KEY = "key-from-the-environment-987"
SERVICE = "nanobot-desktop-test-mcp-headers"

GATED_SERVER = textwrap.dedent(
    '''
    import socket, sys
    import uvicorn
    from mcp.server.mcpserver import MCPServer
    from starlette.responses import PlainTextResponse

    EXPECTED = {"authorization": sys.argv[3], "x-api-key": sys.argv[4]}
    server = MCPServer("gated")

    @server.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    inner = server.streamable_http_app()

    async def app(scope, receive, send):
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            if any(headers.get(name) != value for name, value in EXPECTED.items()):
                await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
                return
        await inner(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", int(sys.argv[2])))
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="error")
    uvicorn.Server(config).run(sockets=[sock])
    '''
)


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HTTPServer]:
    script = tmp_path_factory.mktemp("gated") / "gated_server.py"
    script.write_text(GATED_SERVER, encoding="utf-8")
    server = start_http_server(script, "http", extra=[TOKEN, API_KEY])
    yield server
    stop(server)


def _config_file(tmp_path: Path, url: str, headers: dict[str, str]) -> Path:
    return write_config(
        tmp_path / "config.json",
        {
            "agents": {"defaults": {"workspace": str(tmp_path / "workspace")}},
            "tools": {"mcpServers": {"gated": {"url": url, "headers": headers}}},
        },
    )


async def _ping(config_servers: dict, tmp_path: Path) -> tuple[str, str]:  # type: ignore[type-arg]
    """Connect the servers and call ``ping``: ``(state, text or last error)``."""
    registry = ToolRegistry()
    async with MCPManager(config_servers, registry=registry) as manager:
        await manager.ensure_connected()
        status = manager.status("gated")
        if status.state != "connected":
            return status.state, status.last_error
        result = await Calls(registry, tmp_path)("mcp_gated_ping")
        return status.state, result.text


def test_secret_header_names() -> None:
    for name in ("Authorization", "X-API-Key", "x-api_key", "Cookie", "X-Auth-Token"):
        assert is_secret_header(name), name
    for name in ("Accept", "X-Trace", "User-Agent", "Mcp-Protocol-Version"):
        assert not is_secret_header(name), name


async def test_typed_secret_header_moves_to_keyring_and_reaches_server(
    gated: HTTPServer,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("GATED_KEY", API_KEY)
    headers = {"Authorization": TOKEN, "X-Api-Key": "${GATED_KEY}", "X-Trace": "visible"}
    path = _config_file(tmp_path, gated.url, headers)
    store = SecretStore(SERVICE)
    config = load_config(path)

    assert await store_header_secrets(config, store, "gated") == ["Authorization"]
    save_config(config)

    on_disk = json.loads(path.read_text(encoding="utf-8"))["tools"]["mcpServers"]["gated"]
    # The typed token left the file; the reference and the plain header stayed as they were.
    assert on_disk["headers"] == {
        "Authorization": "",
        "X-Api-Key": "${GATED_KEY}",
        "X-Trace": "visible",
    }
    assert TOKEN.split()[1] not in path.read_text(encoding="utf-8")
    assert memory_keyring.store == {(SERVICE, keyring_name("gated", "Authorization")): TOKEN}
    # The live config still holds the value: the server accepts it.
    assert await _ping(config.tools.mcp_servers, tmp_path) == ("connected", "pong")

    # A fresh start: the file alone is not enough; the keyring fills the header.
    fresh = load_config(path)
    assert fresh.tools.mcp_servers["gated"].headers["Authorization"] == ""
    loaded = await inject_stored_secrets(fresh, store)
    assert loaded == ["tools.mcp_servers.gated.Authorization"]
    caplog.set_level(logging.DEBUG)
    assert await _ping(fresh.tools.mcp_servers, tmp_path) == ("connected", "pong")
    assert TOKEN.split()[1] not in caplog.text

    # Saving the injected config again writes no secret either.
    save_config(fresh)
    assert TOKEN.split()[1] not in path.read_text(encoding="utf-8")

    await forget_header_secrets(store, "gated", ["Authorization", "X-Trace"])
    assert memory_keyring.store == {}


async def test_wrong_secret_header_fails_without_showing_it(
    gated: HTTPServer, tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    wrong = "Bearer wrong-secret-value-555"
    path = _config_file(tmp_path, gated.url, {"Authorization": "", "X-Api-Key": API_KEY})
    store = SecretStore(SERVICE)
    store.set(keyring_name("gated", "Authorization"), wrong)
    config = load_config(path)
    await inject_stored_secrets(config, store)
    state, error = await _ping(config.tools.mcp_servers, tmp_path)
    assert state == "failed" and error, error
    assert "wrong-secret-value-555" not in error
