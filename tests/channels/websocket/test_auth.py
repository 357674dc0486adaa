"""Who may connect: nanobot 0.3.5's token rules (fixed token, issued tokens, the WebUI's
bootstrap login and API tokens), the refusal to listen on every interface without a token,
and TLS with a self-signed certificate made here."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from websockets.exceptions import InvalidStatus

from tests.channels.email.servers import make_certificate
from tests.channels.websocket.conftest import SECRET, Client, config_file, start_runtime, url_of
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer
from tests.waiting import until


async def get(url: str, *, ssl_context: Any = None, **headers: str) -> tuple[int, Any]:
    """GET ``url``: the status and the JSON body (or the text)."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(url, headers=headers, ssl=ssl_context) as response,
    ):
        text = await response.text()
        try:
            return response.status, await response.json(content_type=None)
        except ValueError:
            return response.status, text


async def refused(url: str, **kwargs: Any) -> int:
    """The HTTP status a refused WebSocket handshake got."""
    with pytest.raises(InvalidStatus) as caught:
        await Client.open(url, **kwargs)
    return caught.value.response.status_code


async def test_a_token_is_needed_by_default_and_issued_tokens_work_once(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, scripted_server, tokenIssuePath="/auth/token", tokenIssueSecret=SECRET
    )
    base = url_of(runtime)
    http = url_of(runtime, "http")
    try:
        assert await refused(f"{base}/") == 401, "no token"
        assert await refused(f"{base}/?token=nbwt_made_up") == 401, "an unknown token"
        assert (await get(f"{http}/auth/token"))[0] == 401, "the issue route wants the secret"
        assert (await get(f"{http}/auth/token", Authorization="Bearer wrong"))[0] == 401
        status, body = await get(f"{http}/auth/token", Authorization=f"Bearer {SECRET}")
        assert status == 200 and body["expires_in"] == 300
        assert body["token"].startswith("nbwt_")
        client = await Client.open(f"{base}/?token={body['token']}&client_id=phone")
        assert client.of("ready")[0]["client_id"] == "phone"
        await client.close()
        assert await refused(f"{base}/?token={body['token']}") == 401, "used up"
        status, _ = await get(f"{http}/auth/token", **{"X-Nanobot-Auth": SECRET})
        assert status == 200, "the secret also works as X-Nanobot-Auth"
    finally:
        await runtime.stop()


async def test_a_fixed_token_opens_the_socket(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, scripted_server, token="fixed-token-123")
    try:
        assert await refused(f"{url_of(runtime)}/?token=fixed-token-12") == 401
        client = await Client.open(f"{url_of(runtime)}/?token=fixed-token-123")
        await client.close()
    finally:
        await runtime.stop()


async def test_the_webui_login_gives_a_socket_token_and_an_api_token(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """``/webui/bootstrap`` with the secret (as the WebUI's login sends it) gives both tokens;
    the API refuses calls without the API token."""
    runtime = await start_runtime(tmp_path, scripted_server, tokenIssueSecret=SECRET)
    http = url_of(runtime, "http")
    try:
        assert (await get(f"{http}/webui/bootstrap"))[0] == 401
        status, boot = await get(f"{http}/webui/bootstrap", **{"X-Nanobot-Auth": SECRET})
        assert status == 200
        assert boot["ws_path"] == "/" and boot["ws_url"].startswith("ws://127.0.0.1:")
        assert (await get(f"{http}/api/sessions"))[0] == 401
        assert (await get(f"{http}/api/sessions", Authorization="Bearer nbwt_nope"))[0] == 401
        api = {"Authorization": f"Bearer {boot['api_token']}"}
        assert await get(f"{http}/api/sessions", **api) == (200, {"sessions": []})
        assert (await get(f"{http}/api/unknown", **api))[0] == 404
        client = await Client.open(f"{url_of(runtime)}/?token={boot['token']}")
        await client.close()
    finally:
        await runtime.stop()


async def test_without_a_secret_only_a_local_browser_may_log_in(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, scripted_server)
    http = url_of(runtime, "http")
    try:
        status, boot = await get(f"{http}/webui/bootstrap")
        assert status == 200 and boot["token"].startswith("nbwt_")
        status, _ = await get(f"{http}/webui/bootstrap", Host="192.168.1.20:8765")
        assert status == 403, "a Host naming another machine is not local"
        status, _ = await get(f"{http}/webui/bootstrap", **{"X-Forwarded-For": "10.0.0.7"})
        assert status == 403, "a visitor forwarded by a local proxy is not local"
    finally:
        await runtime.stop()


async def test_every_interface_without_a_token_is_refused(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(tmp_path, scripted_server, connected=False, host="0.0.0.0")
    try:
        await until(lambda: runtime.channels.status("websocket").state == "unavailable")
        status = runtime.channels.status("websocket")
        assert "0.0.0.0" in status.reason and "token" in status.reason
        port = runtime.config.channels.websocket.port
        with pytest.raises(OSError):
            async with aiohttp.ClientSession() as session:
                await session.get(f"http://127.0.0.1:{port}/")
    finally:
        await runtime.stop()


async def test_every_interface_with_a_secret_listens(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    runtime = await start_runtime(
        tmp_path, scripted_server, host="0.0.0.0", tokenIssueSecret=SECRET
    )
    try:
        status, _ = await get(
            f"{url_of(runtime, 'http')}/webui/bootstrap", Authorization=f"Bearer {SECRET}"
        )
        assert status == 200
    finally:
        await runtime.stop()


async def test_tls_with_a_self_signed_certificate(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    cert, key = make_certificate(tmp_path)
    trust = ssl.create_default_context(cafile=str(cert))
    scripted_server.push(Reply("secure hello"))
    runtime = await start_runtime(
        tmp_path,
        scripted_server,
        sslCertfile=str(cert),
        sslKeyfile=str(key),
        tokenIssueSecret=SECRET,
    )
    try:
        assert runtime.channels.status("websocket").account.startswith("wss://")
        status, boot = await get(
            f"{url_of(runtime, 'https')}/webui/bootstrap",
            ssl_context=trust,
            **{"X-Nanobot-Auth": SECRET},
        )
        assert status == 200 and boot["ws_url"].startswith("wss://")
        client = await Client.open(f"{url_of(runtime, 'wss')}/?token={boot['token']}", ssl=trust)
        await client.send(type="message", chat_id=client.default_chat, content="hi")
        await until(lambda: client.of("turn_end"), what="the answer over TLS")
        await client.close()
        with pytest.raises(aiohttp.ClientError):
            await get(f"{url_of(runtime, 'http')}/webui/bootstrap")
    finally:
        await runtime.stop()
    assert "".join(d["text"] for d in client.of("delta")) == "secure hello"


def test_a_section_with_only_one_tls_file_is_refused(tmp_path: Path) -> None:
    from desktop.core.config.channels.websocket import WebSocketConfig

    with pytest.raises(ValueError, match="sslCertfile and sslKeyfile"):
        WebSocketConfig.model_validate({"sslCertfile": "/x/cert.pem"})
    assert config_file(tmp_path).exists()
