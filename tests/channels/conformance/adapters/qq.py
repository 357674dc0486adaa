"""QQ: botpy (REST + gateway) against the local QQ platform.

botpy has no setting for its API host: as ``tests/channels/qq/conftest.py`` does, botpy's
``Route`` and the channel's token address point at the local server for the test.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import pytest
from botpy.http import Route

from desktop.core.channels.base import split_message
from desktop.core.channels.qq import client
from desktop.core.channels.qq.channel import MESSAGE_LIMIT, QQChannel
from desktop.core.channels.render import plain_text
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.qq.qq_server import APP_ID, BOT_NAME, SECRET, QQServer

USERS = {"ada": "E4F4AEA33253A2797FB897C50B81D7ED", "mallory": "0000AEA33253A2797FB897C50B81D7ED"}


class QQ:
    """The QQ channel under test (a person's private chat with the bot, plain text)."""

    name = "qq"
    caps = Capabilities(
        limit=MESSAGE_LIMIT,
        flavour="plain",
        approvals="words",
        # The bot API takes pictures, voice and video as rich media; other files go as a note.
        media_out="image",
    )
    person, stranger = "ada", "mallory"
    person_entry = USERS["ada"]
    account = BOT_NAME

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = QQServer()
        self.monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        self._files = 0

    async def start_server(self) -> None:
        server = await self.server.start()
        self.monkeypatch.setattr(Route, "SCHEME", "http")
        self.monkeypatch.setattr(Route, "DOMAIN", server.host)
        self.monkeypatch.setattr(client, "TOKEN_URL", f"http://{server.host}/app/getAppAccessToken")
        self.monkeypatch.setattr(QQChannel, "media_hosts", ("127.0.0.1",))

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {"enabled": True, "appId": APP_ID, "secret": SECRET, "ackMessage": ""}

    def chat(self) -> str:
        return USERS[self.person]

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        attachments = []
        for name, data in files:
            self._files += 1
            served = f"in-{self._files}-{name}"
            self.server.media[served] = data
            attachments.append(
                {
                    "url": f"http://{self.server.host}/media/{served}",
                    "filename": name,
                    "content_type": "text/plain",
                    "size": len(data),
                }
            )
        extra = {"attachments": attachments} if attachments else {}
        await self.server.c2c(USERS[sender or self.person], text, **extra)

    def sent(self) -> list[Sent]:
        out = []
        base = f"/v2/users/{USERS[self.person]}/"
        for call in self.server.calls:
            if not call.path.startswith(base):
                continue
            body = call.body
            if call.path.endswith("/files"):
                out.append(Sent("", "", [("", base64.b64decode(body["file_data"]))], [], body))
            elif body.get("msg_type") != 7:
                text = str(body.get("content") or (body.get("markdown") or {}).get("content"))
                out.append(Sent(text, text, [], [], body))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = split_message(plain_text(markdown), MESSAGE_LIMIT)  # msgFormat "plain"
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = self.server.connections
        await self.server.drop()
        await until(lambda: self.server.connections > before, what="the gateway again")

    async def on_runtime(self, runtime: Runtime) -> None:
        return None
