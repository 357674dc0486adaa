"""Discord: discord.py against the local Discord (REST + gateway)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.discord.channel import DiscordChannel
from desktop.core.channels.discord.markup import MESSAGE_LIMIT, split, to_discord
from desktop.core.runtime import Runtime
from tests.channels.discord.discord_server import (
    ADA,
    DM,
    GUILD_READY_TIMEOUT,
    TOKEN,
    DiscordServer,
    user,
)
from tests.channels.harness import Capabilities, Sent, until

USERS = {"ada": ADA, "mallory": ADA + 1000}


class Discord:
    """The Discord channel under test (a direct message with the bot)."""

    name = "discord"
    caps = Capabilities(limit=MESSAGE_LIMIT, flavour="markdown", approvals="buttons")
    person, stranger = "ada", "mallory"
    person_entry = str(ADA)
    account = "@nanobot"

    def __init__(self, request: pytest.FixtureRequest) -> None:
        monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
        monkeypatch.setattr(DiscordChannel, "guild_ready_timeout", GUILD_READY_TIMEOUT)
        self.server = DiscordServer()

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "token": TOKEN,
            "apiBase": self.server.base_url,
            "readReceiptEmoji": "",
        }

    def chat(self) -> str:
        return str(DM)

    def sender_id(self, who: str) -> str:
        return f"{USERS[who]}|{who}"

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        attachments = [self.server.attachment(n, d, "text/plain") for n, d in files]
        self.server.put_message(DM, text, author=user(USERS[who], who), attachments=attachments)

    def sent(self) -> list[Sent]:
        out = []
        for call in self.server.sent(DM):
            body = call.body or {}
            text = str(body.get("content") or "")
            buttons = [
                str(b.get("label"))
                for row in body.get("components") or []
                for b in row.get("components", [])
            ]
            out.append(Sent(text, text, list(call.files), buttons, call))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = split(to_discord(markdown))
        return piece

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        label = "Allow once" if allow else "Deny"
        message = next(
            m
            for m in self.server.messages.values()
            if m.get("components") and m["content"] == question.text
        )
        (row,) = message["components"]
        custom_id = next(b["custom_id"] for b in row["components"] if b["label"] == label)
        self.server.put_click(message, custom_id)

    async def drop_connection(self) -> None:
        self.server.drop()
        await until(lambda: self.server.connected, what="back on the gateway")

    async def on_runtime(self, runtime: Runtime) -> None:
        return None
