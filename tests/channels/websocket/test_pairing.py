"""DM pairing on the WebSocket channel, as nanobot 0.3.5 has it: a client is checked at the
handshake (its token, its ``client_id`` against ``allowFrom``), so nobody is offered a
pairing code; a ``client_id`` approved in ``pairing.json`` is let in at its next connection."""

from __future__ import annotations

from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus

from desktop.core.channels.pairing.store import PairingStore
from tests.channels.websocket.conftest import Client, echo, start_runtime, url_of
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.waiting import until


async def test_no_code_is_offered_and_a_paired_client_is_let_in(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_server.route = echo()
    runtime = await start_runtime(
        tmp_path,
        scripted_server,
        websocketRequiresToken=False,
        streaming=False,
        allowFrom=["alice"],
    )
    folder = tmp_path / "nanobot"
    try:
        with pytest.raises(InvalidStatus) as refused:
            await Client.open(f"{url_of(runtime)}/?client_id=mallory")
        assert refused.value.response.status_code == 403
        assert not (folder / "pairing.json").exists()  # no code, no request

        store = PairingStore(folder)  # approved elsewhere (the window, the command line)
        request, _ = store.request("websocket", "mallory")
        assert store.approve(request.code) is not None
        client = await Client.open(f"{url_of(runtime)}/?client_id=mallory")
        chat = client.default_chat
        await client.send(type="message", chat_id=chat, content="paired now")
        await until(lambda: client.of("message", chat), what="the answer")
        await client.close()
    finally:
        await runtime.stop()
    assert [m["text"] for m in client.of("message", chat)] == ["echo: paired now"]
