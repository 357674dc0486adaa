"""DingTalk: dingtalk-stream (the stream connection) and the robot API against the local
DingTalk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.dingtalk.markup import LIMIT, pieces
from desktop.core.runtime import Runtime
from tests.channels.dingtalk.server import CLIENT_ID, CLIENT_SECRET, DingTalkServer
from tests.channels.harness import Capabilities, Sent, until

USERS = {"alice": "staff-alice", "mallory": "staff-mallory"}


class DingTalk:
    """The DingTalk channel under test (a person's one-to-one chat with the robot)."""

    name = "dingtalk"
    caps = Capabilities(limit=LIMIT, flavour="markdown", approvals="words")
    person, stranger = "alice", "mallory"
    person_entry = USERS["alice"]
    account = CLIENT_ID

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = DingTalkServer()
        self._files = 0

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "clientId": CLIENT_ID,
            "clientSecret": CLIENT_SECRET,
            "baseUrl": self.server.base_url,
            "oapiUrl": self.server.base_url,
        }

    def chat(self) -> str:
        return USERS[self.person]

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        await until(lambda: self.server.connected, what="the stream open")
        if text and not files:
            await self.server.push(self.server.message(text, sender=USERS[who], nick=who))
        for name, data in files:  # a file is a message of its own on DingTalk
            self._files += 1
            code = f"code-file-{self._files}"
            self.server.files[code] = data
            message = self.server.message(
                sender=USERS[who],
                nick=who,
                msgtype="file",
                content={"downloadCode": code, "fileName": name},
            )
            await self.server.push(message)

    def sent(self) -> list[Sent]:
        out = []
        for sent in self.server.sent():
            if sent.chat.startswith("group:") or sent.chat == USERS[self.stranger]:
                continue
            text = str(sent.param.get("text", ""))
            media = str(sent.param.get("mediaId") or sent.param.get("photoURL") or "")
            files = []
            if media.startswith("@media-"):
                _, name, data = self.server.uploads[int(media.removeprefix("@media-")) - 1]
                files.append((str(sent.param.get("fileName", name)), data))
            out.append(Sent(text, text, files, [], sent))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = pieces(markdown)
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = self.server.connections
        await self.server.drop()
        await until(
            lambda: self.server.connections > before and self.server.connected,
            what="the stream open again",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.server.connected, what="the stream open")
