"""Mattermost: the REST API and WebSocket (aiohttp) against the local Mattermost server."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.base import split_message
from desktop.core.channels.mattermost.channel import MAX_CHARS
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.mattermost.server import (
    ALICE,
    DM,
    MALLORY,
    MALLORY_DM,
    TOKEN,
    MattermostServer,
)

USERS = {"alice": ALICE, "mallory": MALLORY}


class Mattermost:
    """The Mattermost channel under test (a direct message with the bot)."""

    name = "mattermost"
    # Mattermost renders Markdown itself: the answer goes as the model wrote it.
    caps = Capabilities(
        limit=MAX_CHARS,
        flavour="markdown",
        # Message buttons call back an integration URL the Mattermost server must reach,
        # which a desktop app does not have: approvals are answered by a reply word.
        approvals="words",
    )
    person, stranger = "alice", "mallory"
    person_entry = ALICE
    account = "@nanobot"

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = MattermostServer()

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {"enabled": True, "serverUrl": self.server.url, "token": TOKEN}

    def chat(self) -> str:
        return DM

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        file_ids = [self.server.add_file(name, data, "text/plain") for name, data in files]
        chat = DM if who == self.person else MALLORY_DM
        await self.server.say(chat, text, user=USERS[who], file_ids=file_ids)

    def sent(self) -> list[Sent]:
        out = []
        for post in self.server.bot_posts(DM):
            files = [
                (str(self.server.files[f][0]["name"]), self.server.files[f][1])
                for f in post["file_ids"]
            ]
            out.append(Sent(post["message"], post["message"], files, [], post))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = split_message(markdown, MAX_CHARS)
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = self.server.connections
        await self.server.drop()
        await until(lambda: self.server.connections > before, what="a new WebSocket")

    async def on_runtime(self, runtime: Runtime) -> None:
        return None
