"""Matrix: matrix-nio against a real Synapse (the session-wide one of
``tests/channels/matrix/conftest.py``); the people are matrix-nio clients too."""

from __future__ import annotations

import asyncio
import io
import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from nio import UploadResponse

from desktop.core.channels.matrix.channel import MAX_CHARS
from desktop.core.channels.matrix.content import render_html
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.matrix.conftest import Person
from tests.channels.matrix.synapse import Account, Synapse


class Matrix:
    """The Matrix channel under test (a room alice made, with mallory in it too)."""

    name = "matrix"
    caps = Capabilities(
        limit=MAX_CHARS,
        flavour="matrix",
        approvals="words",
        xfail={
            "test_media_out": "the Matrix channel sends no files: its pieces are the text only "
            "(nanobot's uploads the attachment as m.file/m.image)",
        },
    )
    person, stranger = "alice", "mallory"

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.synapse: Synapse = request.getfixturevalue("synapse")
        self.tag = uuid.uuid4().hex[:8]
        self.bot: Account | None = None
        self.people: dict[str, Person] = {}
        self.room = ""
        self.runtime: Runtime | None = None

    @property
    def person_entry(self) -> str:
        return self.people["alice"].user_id

    @property
    def account(self) -> str:
        assert self.bot is not None
        return self.bot.user_id

    async def start_server(self) -> None:
        self.bot = await asyncio.to_thread(self.synapse.register, f"bot{self.tag}")
        for who in ("alice", "mallory"):
            account = await asyncio.to_thread(self.synapse.register, f"{who}{self.tag}")
            self.people[who] = Person(self.synapse, account)
            await self.people[who].start()

    async def stop_server(self) -> None:
        for person in self.people.values():
            await person.close()

    def section(self) -> dict[str, Any]:
        assert self.bot is not None
        return {
            "enabled": True,
            "homeserver": self.synapse.url,
            "userId": self.bot.user_id,
            "accessToken": self.bot.access_token,
            "deviceId": self.bot.device_id,
        }

    def chat(self) -> str:
        return self.room

    def sender_id(self, who: str) -> str:
        return self.people[who].user_id

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        person = self.people[sender or self.person]
        if text and not files:
            await person.say(self.room, text)
        for name, data in files:  # a file is an event of its own on Matrix
            response, _ = await person.client.upload(
                io.BytesIO(data), content_type="text/plain", filename=name, filesize=len(data)
            )
            assert isinstance(response, UploadResponse), response
            content = {"msgtype": "m.file", "body": name, "url": response.content_uri,
                       "info": {"mimetype": "text/plain", "size": len(data)}}  # fmt: skip
            await person.raw(self.room, "m.room.message", content)

    def sent(self) -> list[Sent]:
        assert self.bot is not None
        alice = self.people["alice"]
        out = []
        for event in alice.messages[self.room]:
            if event["sender"] != self.bot.user_id:
                continue
            content = event["content"]
            body = str(content.get("body", ""))
            text = str(content.get("formatted_body") or body)
            files = [(body, b"")] if content.get("msgtype") in ("m.file", "m.image") else []
            out.append(Sent(text, body, files, [], event))
        return out

    def markup(self, markdown: str) -> str:
        return render_html(markdown) or markdown

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        runtime = self.runtime
        assert runtime is not None
        await asyncio.to_thread(self.synapse.kill)
        await until(lambda: not runtime.channels.status("matrix").ok, what="the drop noticed")
        await asyncio.to_thread(self.synapse.start)

    async def on_runtime(self, runtime: Runtime) -> None:
        self.runtime = runtime
        if self.room:
            return
        assert self.bot is not None
        alice, mallory = self.people["alice"], self.people["mallory"]
        self.room = await alice.create_room(self.bot.user_id, mallory.user_id, direct=False)
        await mallory.join(self.room)
        await alice.wait_member(self.room, self.bot.user_id)
