"""Telegram: python-telegram-bot against the local Bot API server (long polling)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.telegram.markup import split_pieces, utf16_len
from desktop.core.runtime import Runtime
from tests.channels.harness import Capabilities, Sent, until
from tests.channels.telegram.bot_api_server import TOKEN, BotApiServer, telegram_text

CHAT = 4242
USERS = {"ada": 4242, "mallory": 6666}


class Telegram:
    """The Telegram channel under test."""

    name = "telegram"
    caps = Capabilities(limit=4096, measure=utf16_len, flavour="html", approvals="buttons")
    person, stranger = "ada", "mallory"
    person_entry = "4242"
    account = "@test_bot"

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.api = BotApiServer()

    async def start_server(self) -> None:
        await self.api.start()

    async def stop_server(self) -> None:
        await self.api.stop()

    def section(self) -> dict[str, Any]:
        return {"enabled": True, "token": TOKEN, "baseUrl": self.api.base_url, "reactEmoji": ""}

    def chat(self) -> str:
        return str(CHAT)

    def sender_id(self, who: str) -> str:
        return f"{USERS[who]}|{who}"

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        fields: dict[str, Any] = {}
        for name, data in files:  # one document per message, as Telegram sends them
            document = self.api.add_file(data, f"documents/{name}")
            fields["document"] = {**document, "file_name": name, "mime_type": "text/plain"}
            fields["caption"] = text
        self.api.put_message(
            CHAT, None if files else text, user_id=USERS[who], username=who, **fields
        )

    def sent(self) -> list[Sent]:
        out = []
        for call in self.api.calls_of("sendMessage", "sendDocument", "sendPhoto"):
            if call.status != 200 or call.params.get("chat_id") not in (CHAT, str(CHAT)):
                continue
            text = str(call.params.get("text") or call.params.get("caption") or "")
            html = call.params.get("parse_mode") == "HTML"
            markup = call.params.get("reply_markup") or {}
            buttons = [b["text"] for row in markup.get("inline_keyboard", []) for b in row]
            files = [
                (str(call.params[key]).removeprefix("<file ").removesuffix(">"), data)
                for key, data in call.files.items()
            ]
            shown = telegram_text(text) if html else text
            out.append(Sent(text, shown, files, buttons, call))
        return out

    def markup(self, markdown: str) -> str:
        (piece,) = split_pieces(markdown)
        return piece.html

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        params = question.raw.params
        message = next(
            m for m in self.api.messages.values() if m.get("reply_markup") == params["reply_markup"]
        )
        label = "Allow once" if allow else "Deny"
        rows = message["reply_markup"]["inline_keyboard"]
        data = next(b["callback_data"] for row in rows for b in row if b["text"] == label)
        self.api.put_callback(message, data, user_id=USERS[self.person], username=self.person)

    async def drop_connection(self) -> None:
        await self.api.stop()  # every open poll is cut; the next ones are refused
        before = len(self.api.calls)
        await self.api.start()  # the same port
        await until(
            lambda: any(c.method == "getUpdates" for c in self.api.calls[before:]),
            what="polling again",
        )

    async def on_runtime(self, runtime: Runtime) -> None:
        return None
