"""NapCat: the channel against the local NapCat (OneBot v11 over a WebSocket)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.napcat.channel import LIMIT
from desktop.core.channels.napcat.segments import texts
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.napcat.onebot_server import ALICE, BOT, STRANGER, TOKEN, OneBotServer

USERS = {"alice": ALICE, "mallory": STRANGER}


class Napcat:
    """The NapCat channel under test (a person's private chat with the QQ account)."""

    name = "napcat"
    caps = Capabilities(
        limit=LIMIT,
        flavour="plain",  # QQ shows plain text: the marks go, the link is its address
        approvals="words",
        media_in=(
            "the channel takes in pictures only, as nanobot 0.3.5 does (a QQ document is not "
            "downloaded); a picture coming in is shown by tests/channels/napcat"
        ),
    )
    person, stranger = "alice", "mallory"
    person_entry = str(ALICE)
    account = str(BOT)

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = OneBotServer()

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {"enabled": True, "wsUrl": self.server.url, "accessToken": TOKEN}

    def chat(self) -> str:
        return f"private:{ALICE}"

    def sender_id(self, who: str) -> str:
        return str(USERS[who])

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        assert not files, "NapCat's case for files skips"
        who = sender or self.person
        await until(lambda: self.server.clients, what="the channel connected")
        await self.server.say(text, user=USERS[who], nickname=who)

    def sent(self) -> list[Sent]:
        out = []
        for action in self.server.sent():
            params = action["params"]
            if action["action"] != "send_private_msg" or params.get("user_id") != ALICE:
                continue
            text = "".join(s["data"]["text"] for s in params["message"] if s["type"] == "text")
            files = [
                (
                    str(s["data"].get("name", "")),
                    base64.b64decode(s["data"]["file"].removeprefix("base64://")),
                )
                for s in params["message"]
                if s["type"] in ("image", "file") and s["data"]["file"].startswith("base64://")
            ]
            out.append(Sent(text, text, files, [], action))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = texts(markdown, LIMIT)
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = self.server.connections
        await self.server.drop()  # NapCat restarts: the connection closes
        await until(
            lambda: self.server.connections > before and self.server.clients,
            what="connected again",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.server.clients, what="the channel connected")
