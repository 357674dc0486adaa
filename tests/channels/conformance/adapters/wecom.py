"""WeCom: the AI bot SDK on its long connection against the local WeCom server (a person's
direct chat with the bot)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.base import split_message
from desktop.core.channels.wecom.channel import MAX_CHARS
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.wecom.server import BOT_ID, SECRET, WecomServer


class Wecom:
    """The WeCom channel under test (``alice``'s direct chat: its chat id is her userid)."""

    name = "wecom"
    caps = Capabilities(limit=MAX_CHARS, flavour="markdown", approvals="words")
    person, stranger = "alice", "mallory"
    person_entry = "alice"
    account = BOT_ID

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = WecomServer()
        self._asked: dict[str, str] = {}  # callback req_id -> who wrote

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {"enabled": True, "botId": BOT_ID, "secret": SECRET, "wsUrl": self.server.ws_url}

    def chat(self) -> str:
        return self.person

    def sender_id(self, who: str) -> str:
        return who

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        for name, data in files:  # a file is a message of its own on WeCom
            self._asked[await self.server.send_file(data, name, user=who)] = who
        self._asked[await self.server.say(text, user=who)] = who

    def sent(self) -> list[Sent]:
        out = []
        for frame in self.server.sent:
            if frame.cmd == "aibot_respond_msg":
                to = self._asked.get(frame.req_id, "")
            elif frame.cmd == "aibot_send_msg":
                to = str(frame.body.get("chatid", ""))
            else:
                continue
            if to != self.person:
                continue
            kind = str(frame.body.get("msgtype", ""))
            media_id = str((frame.body.get(kind) or {}).get("media_id", ""))
            files = [("", self.server.uploads[media_id])] if media_id else []
            out.append(Sent(frame.text, frame.text, files, [], frame))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = split_message(markdown.strip(), MAX_CHARS)
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = len(self.server.subscribes)
        await self.server.drop()
        await until(
            lambda: len(self.server.subscribes) > before and self.server.connected,
            what="subscribed again",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.server.connected, what="the bot's connection")
