"""Feishu / Lark: lark-oapi (Open API + long connection) against the local platform."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from desktop.core.channels.feishu.cards import CARD_TEXT_LIMIT, markdown_cards
from desktop.core.runtime import Runtime
from tests.channels.feishu import feishu_server
from tests.channels.feishu.feishu_server import APP_ID, APP_SECRET, BOT_NAME, FeishuServer
from tests.channels.harness import Capabilities, Sent, until

USERS = {"ada": "ou_user_0001", "mallory": "ou_stranger_01"}
CHATS = {"ada": "oc_chat_0001", "mallory": "oc_chat_0002"}  # each one's direct chat


class Feishu:
    """The Feishu channel under test (a person's direct chat with the bot)."""

    name = "feishu"
    caps = Capabilities(limit=CARD_TEXT_LIMIT, flavour="card", approvals="buttons")
    person, stranger = "ada", "mallory"
    person_entry = USERS["ada"]
    account = BOT_NAME

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.server = FeishuServer()
        self._files = 0

    async def start_server(self) -> None:
        await self.server.start()

    async def stop_server(self) -> None:
        await self.server.stop()

    def section(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "appId": APP_ID,
            "appSecret": APP_SECRET,
            "baseUrl": self.server.base_url,
            "reactEmoji": "",
        }

    def chat(self) -> str:
        return USERS[self.person]  # nanobot keys a direct chat by the person's open id

    def sender_id(self, who: str) -> str:
        return USERS[who]

    async def person_says(
        self, text: str, *, sender: str | None = None, files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        who = sender or self.person
        if text and not files:
            await self.server.push_text(CHATS[who], USERS[who], text)
        for name, data in files:  # a file is a message of its own on Feishu (no caption)
            self._files += 1
            key = f"file_in_{self._files}"
            content = {"file_key": key, "file_name": name}
            message_id, _ = await self.server.push_message(
                CHATS[who], USERS[who], content, msg_type="file"
            )
            self.server.resources[(message_id, key)] = data

    def sent(self) -> list[Sent]:
        out = []
        # To the chat, or to the person's open id before the platform knows their chat.
        chats = (CHATS[self.person], USERS[self.person])
        for sent in (s for s in self.server.sent if s.chat_id in chats):
            text = feishu_server.card_text(sent)
            files = []
            key = sent.content.get("file_key") or sent.content.get("image_key")
            if sent.msg_type in ("file", "image") and key:
                files.append(self.server.uploads[key])
                text = ""
            buttons = [
                b["text"]["content"]
                for e in sent.content.get("elements", [])
                if e.get("tag") == "action"
                for b in e["actions"]
            ]
            header = sent.content.get("header")
            shown = f"{json.dumps(header, ensure_ascii=False)} {text}" if header else text
            out.append(Sent(text, shown, files, buttons, sent))
        return out

    def markup(self, markdown: str) -> str:
        (card,) = markdown_cards(markdown)
        return feishu_server.card_text(feishu_server.Sent("", "", "interactive", card))

    async def answer_approval(self, question: Sent, allow: bool) -> None:
        label = "Allow once" if allow else "Deny"
        (row,) = [e for e in question.raw.content["elements"] if e["tag"] == "action"]
        value = next(b["value"] for b in row["actions"] if b["text"]["content"] == label)
        message = question.raw.message_id
        await self.server.push_card_action(CHATS[self.person], message, USERS[self.person], value)

    async def drop_connection(self) -> None:
        await self.server.drop()
        await until(lambda: self.server.connected, what="the long connection back")

    async def on_runtime(self, runtime: Runtime) -> None:
        return None
