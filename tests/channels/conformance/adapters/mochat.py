"""Mochat: python-socketio and the claw HTTP API against the local Mochat server."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.base import split_message
from desktop.core.channels.mochat.channel import MAX_CHARS
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.mochat.server import AGENT, TOKEN, MochatServer

SESSION = "session_alice"


class Mochat:
    """The Mochat channel under test (a session the agent takes part in)."""

    name = "mochat"
    caps = Capabilities(
        limit=MAX_CHARS,
        flavour="markdown",
        approvals="words",
        media_out="Mochat's claw API has no file upload: an attachment goes out as a "
        "'[file: name]' line (tests/channels/mochat)",
        media_in="the claw protocol's messages carry text only: there is no attachment to save",
    )
    person, stranger = "alice", "mallory"
    person_entry = "alice"
    account = AGENT

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = MochatServer()

    async def start_server(self) -> None:
        await self.server.start()
        self.server.add_session(SESSION)

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "baseUrl": self.server.url,
            "clawToken": TOKEN,
            "agentUserId": AGENT,
            "sessions": [SESSION],
            "replyDelayMode": "off",
        }

    def chat(self) -> str:
        return SESSION

    def sender_id(self, who: str) -> str:
        return who

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        assert not files, "Mochat carries no attachments"
        await self.server.say(SESSION, text, author=sender or self.person)

    def sent(self) -> list[Sent]:
        return [
            Sent(s.content, s.content, [], [], s)
            for s in self.server.sent
            if s.body.get("sessionId") == SESSION
        ]

    def markup(self, markdown: str) -> str:
        (piece,) = split_message(markdown, MAX_CHARS)
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        await self.person_says("allow" if allow else "deny")

    async def drop_connection(self) -> None:
        before = len(self.server.connects)
        await self.server.drop()
        await until(
            lambda: len(self.server.connects) > before and self.server.clients,
            what="connected and subscribed again",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        await until(lambda: self.server.clients, what="subscribed to the session")
